"""``--pin`` of ``canon`` and ``renamings``: a pin that no unit of the file
spells or refers to is most likely misspelt, and pins nothing; the command
says so on standard error and goes on (such a pin still keeps its name from
being a target, so it is not refused). x86 registers are checked apart."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES

ARITH = FIXTURES / "python" / "arith.py"
PAPER = FIXTURES / "ltl" / "paper.ltl"
JAVA = FIXTURES / "java" / "Arith.java"


@pytest.mark.parametrize(
    "args, unused",
    [
        (["canon", ARITH, "--pin", "rent"], []),  # a parameter of earnings
        (["canon", ARITH, "--pin", "rnet"], ["rnet"]),
        (["canon", ARITH, "--pin", "local:earnings:rent", "--pin", "nope", "--pin", "nope"], ["nope"]),
        (["renamings", ARITH, "--count", "--pin", "int"], []),  # spelt in the file, though no variable
        (["renamings", PAPER, "--count", "--pin", "q"], ["q"]),
        (["renamings", PAPER, "--count", "--pin", "a"], []),
        (["renamings", JAVA, "--count", "--pin", "zzz"], ["zzz"]),
        (["renamings", FIXTURES / "x86" / "figure1a.s", "--count", "--pin", "rdx"], []),  # unused register: allowed
    ],
)
def test_a_pin_that_names_nothing_in_the_file_is_noted(invoke, args, unused):
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: --pin")]
    assert notes == [f"note: --pin {p!r}: no name or referent of that spelling in {args[1]}" for p in unused]


def test_with_function_the_note_names_the_unit(invoke):
    result = invoke("canon", ARITH, "--function", "quadratic", "--pin", "rent")  # rent is earnings'
    assert result.exit_code == 0
    assert result.stderr.strip() == f"note: --pin 'rent': no name or referent of that spelling in quadratic of {ARITH}"
