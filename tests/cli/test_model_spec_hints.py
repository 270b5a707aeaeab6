"""``invar audit --model`` naming a Python callable by its file (``mods.py:f``):
one located line that says what to write instead (the module's name, as
imported with the current directory on the path)."""

from __future__ import annotations

import sys

import pytest

from invar.audit.models import import_callable, open_model
from invar.errors import ModelError
from tests.conftest import FIXTURES

BLOCKS = str(FIXTURES / "blocks")
MODULE = "def f(texts):\n    return [1.0 for _ in texts]\n"
NO_FILE = "no such model file (a checkpoint, a TorchScript file, an http:// endpoint or package.module:function)"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working directory holding mods.py and sub/mods.py; the import path restored afterwards."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "mods.py").write_text(MODULE)
    (tmp_path / "sub" / "mods.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    for name in ("mods", "sub", "sub.mods"):  # imported from this folder: not another test's
        sys.modules.pop(name, None)


#: (--model, where the error is, its message); {tmp}: the working directory
CASES = [
    (
        "mods.py:f",
        "--model",
        "cannot import mods.py (ModuleNotFoundError: No module named 'mods.py'; 'mods' is not a package); "
        "name the module, not its file: drop .py and write mods:f",
    ),
    ("./mods.py:f", "./mods.py:f", f"{NO_FILE}; name the module, not its file: drop .py and write mods:f"),
    ("sub/mods.py:f", "sub/mods.py:f", f"{NO_FILE}; name the module, not its file: drop .py and write sub.mods:f"),
    (
        "{tmp}/sub/mods.py:f",
        "{tmp}/sub/mods.py:f",
        f"{NO_FILE}; name the module, not its file: drop .py and write sub.mods:f",
    ),
    (
        "/elsewhere/mods.py:f",
        "/elsewhere/mods.py:f",
        f"{NO_FILE}; name the module, not its file: mods:f, with /elsewhere on PYTHONPATH (or run from there)",
    ),
    (
        "my-dir/mods.py:f",
        "my-dir/mods.py:f",
        f"{NO_FILE}; name the module, not its file: package.module:function, importable from {{tmp}}",
    ),
    # no file named: no hint
    ("nosuchmod:f", "--model", "cannot import nosuchmod (ModuleNotFoundError: No module named 'nosuchmod')"),
    ("mods:g", "--model", "mods has no g"),
    ("none.pt", "none.pt", NO_FILE),
]


@pytest.mark.parametrize("spec, where, message", CASES)
def test_a_callable_named_by_its_file_gets_a_hint(invoke, folder, spec, where, message):
    fill = lambda text: text.replace("{tmp}", str(folder))  # noqa: E731
    result = invoke("audit", "--model", fill(spec), "--task", "bhive", "--dataset", BLOCKS, "--limit", "2")
    assert result.exit_code == 1, result.output
    assert result.stderr == f"{fill(where)}: error: {fill(message)}\n"


def test_the_hinted_spec_is_the_one_that_loads(folder):
    assert import_callable("mods:f")(["a", "b"]) == [1.0, 1.0]
    assert import_callable("sub.mods:f")(["a"]) == [1.0]
    with pytest.raises(ModelError, match="drop .py and write mods:f"):
        open_model("mods.py:f")
