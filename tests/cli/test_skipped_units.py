"""A file with one bad function: the others are processed, the bad one is
reported with its location, a summary says how many were skipped and why,
and the exit status is 1."""

from __future__ import annotations

import pytest

from invar.frontends.python.parse import _UnitBuilder
from invar.errors import UnsupportedError


@pytest.fixture
def one_bad_function(monkeypatch, tmp_path):
    original = _UnitBuilder.build

    def build(self):
        if getattr(self.node, "name", "") == "bad":
            raise UnsupportedError("construct not supported here", line=self.node.lineno, col=5)
        return original(self)

    monkeypatch.setattr(_UnitBuilder, "build", build)
    path = tmp_path / "m.py"
    path.write_text("def good(a, b):\n    x = a\n    y = b\n    return x + y\n\ndef bad():\n    return 2\n")
    return path


@pytest.mark.parametrize(
    "command", [["renamings", "--count"], ["permutations", "--count"], ["dlg"], ["canon"], ["parse"]]
)
def test_other_units_are_processed_and_the_bad_one_reported(invoke, one_bad_function, command):
    result = invoke(command[0], one_bad_function, *command[1:])
    assert result.exit_code == 1
    assert result.stdout.strip()  # the good function was processed
    err = result.stderr.splitlines()
    assert err[0].startswith(f"{one_bad_function}:6:5: error: construct not supported here")
    assert err[-1] == f"{one_bad_function}: 1 skipped: 1 unsupported construct"


def test_python_files_with_a_bom_or_a_coding_cookie(tmp_path, invoke):
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfdef f(a, /):\n    b = a\n    c = 2\n    return b + c\n")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\ndef f(a, /):\n    s = 'caf\xe9'\n    t = a\n    return s, t\n")
    assert invoke("permutations", bom, "--count").stdout.strip() == "2"
    result = invoke("renamings", latin, "--limit", "2")
    assert result.exit_code == 0 and "caf\u00e9" in result.stdout
    piped = invoke("renamings", "-", "--lang", "python", "--count", input=latin.read_bytes())
    assert piped.exit_code == 0 and piped.stdout.strip() == "2"


@pytest.mark.parametrize(
    "command", [["renamings", "--count"], ["permutations", "--count"], ["dlg"], ["canon"], ["parse"]]
)
def test_a_function_read_well_is_picked_alone(invoke, one_bad_function, command):
    """``--function good``: the other unit's error is not this one's, so it is
    neither shown nor counted in the exit status."""
    result = invoke(command[0], one_bad_function, *command[1:], "--function", "good")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() and not result.stderr.strip()


def test_a_function_not_read_well_shows_the_errors_above_its_refusal(invoke, one_bad_function):
    result = invoke("renamings", one_bad_function, "--count", "--function", "bad")
    assert result.exit_code != 0
    err = result.stderr.splitlines()
    assert err[0].startswith(f"{one_bad_function}:6:5: error: construct not supported here")
    assert err[1] == f"{one_bad_function}: 1 skipped: 1 unsupported construct"
    assert "'bad'" in err[-1]
