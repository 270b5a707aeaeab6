"""``invar audit --model`` naming a Python callable by its file (``mods.py:f``):
one line located at the file that says what to write instead (the module's
name, as imported with the current directory on the path, or with the file's
folder on PYTHONPATH), or that there is no such file."""

from __future__ import annotations

import sys

import pytest

from invar.audit.models import import_callable, open_model
from invar.errors import ModelError
from tests.conftest import FIXTURES

BLOCKS = str(FIXTURES / "blocks")
MODULE = "def f(texts):\n    return [1.0 for _ in texts]\n"
NO_FILE = "no such model file (a checkpoint, a TorchScript file, an http:// endpoint or package.module:function)"
NO_PY = (
    "no such file (a Python callable is named package.module:function, the module importable from the current "
    "directory or PYTHONPATH)"
)
PY_FILE = "a Python file, named where a module is expected"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working directory holding mods.py, sub/mods.py, my-dir/mods.py, my-mods.py and imports.py (which
    imports a module that is not there), and ../elsewhere/mods.py; the import path restored afterwards."""
    (tmp_path / "work").mkdir()
    for name in ("work/sub", "work/my-dir", "elsewhere"):
        (tmp_path / name).mkdir()
    for name in ("mods.py", "sub/mods.py", "my-dir/mods.py", "my-mods.py", "../elsewhere/mods.py"):
        (tmp_path / "work" / name).write_text(MODULE)
    (tmp_path / "work" / "imports.py").write_text("import zzz_absent\n" + MODULE)
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path / "work"
    for name in ("mods", "sub", "sub.mods", "imports"):  # imported from this folder: not another test's
        sys.modules.pop(name, None)


#: (--model, where the error is, its message); {tmp}: the working directory. A spec FILE.py:F is located
#: at its file: there is no such file, or it is a Python file where a module is expected (and what to write)
CASES = [
    ("mods.py:f", "mods.py", f"{PY_FILE}; name the module, not its file: drop .py and write mods:f"),
    ("./mods.py:f", "./mods.py", f"{PY_FILE}; name the module, not its file: drop .py and write mods:f"),
    ("sub/mods.py:f", "sub/mods.py", f"{PY_FILE}; name the module, not its file: drop .py and write sub.mods:f"),
    (
        "{tmp}/sub/mods.py:f",
        "{tmp}/sub/mods.py",
        f"{PY_FILE}; name the module, not its file: drop .py and write sub.mods:f",
    ),
    (  # a folder whose name is no package's: the module, with that folder on the path
        "my-dir/mods.py:f",
        "my-dir/mods.py",
        f"{PY_FILE}; name the module, not its file: mods:f, with my-dir on PYTHONPATH (or run from there)",
    ),
    (
        "{elsewhere}/mods.py:f",
        "{elsewhere}/mods.py",
        f"{PY_FILE}; name the module, not its file: mods:f, with {{elsewhere}} on PYTHONPATH (or run from there)",
    ),
    (  # a file whose name is no module's
        "my-mods.py:f",
        "my-mods.py",
        f"{PY_FILE}; its name is no module's ('my-mods' is not a Python name): rename it, then write MODULE:f",
    ),
    # no such file: said, and no fix proposed for it (it was "drop .py and write nothere:f")
    ("nothere.py:f", "nothere.py", NO_PY),
    ("./nothere.py:f", "./nothere.py", NO_PY),
    ("sub/nothere.py:f", "sub/nothere.py", NO_PY),
    ("/elsewhere/mods.py:f", "/elsewhere/mods.py", NO_PY),
    # no file named: no hint
    ("nosuchmod:f", "--model", "cannot import nosuchmod (ModuleNotFoundError: No module named 'nosuchmod')"),
    ("mods:g", "--model", "mods has no g"),
    ("none.pt", "none.pt", NO_FILE),
    # a module that the named one imports is missing: that is said, not the file
    ("imports.py:f", "--model", "cannot import imports.py (ModuleNotFoundError: No module named 'zzz_absent')"),
]


@pytest.mark.parametrize("spec, where, message", CASES)
def test_a_callable_named_by_its_file_gets_a_hint(invoke, folder, spec, where, message):
    fill = lambda text: text.replace("{tmp}", str(folder)).replace("{elsewhere}", str(folder.parent / "elsewhere"))  # noqa: E731
    result = invoke("audit", "--model", fill(spec), "--task", "bhive", "--dataset", BLOCKS, "--limit", "2")
    assert result.exit_code == 1, result.output
    assert result.stderr == f"{fill(where)}: error: {fill(message)}\n"


def test_the_hinted_spec_is_the_one_that_loads(folder):
    assert import_callable("mods:f")(["a", "b"]) == [1.0, 1.0]
    assert import_callable("sub.mods:f")(["a"]) == [1.0]
    with pytest.raises(ModelError, match="drop .py and write mods:f"):
        open_model("mods.py:f")
    with pytest.raises(ModelError, match="no such file"):
        open_model("nothere.py:f")
