"""``--function`` picks a unit by its name, qualified or its last parts; units
that share a name (Java overloads, Python redefinitions) are told apart by
their ``@LINE`` (``@LINE.COLUMN`` on a shared line), and the shared name alone
is ambiguous."""

from __future__ import annotations

import pytest

from tests.frontends import OVERLOADS as OV

RED = "def f(a):\n    return a\n\n\ndef f(b):\n    return b\n"
NESTED = """\
class R {
    record Pt(int x) {
        Pt {
            x = x + 1;
        }
        int s() { return x; }
    }
    static class A { static class Q { int m(int a) { return a; } } }
    static class B { static class Q { int m(int b) { return b; } } }
}
"""
LTL = "&ab\t{a & b}\n|ab\t{a}\n"
BLOCKS = "addq %rax, %rbx\n\nsubq %rcx, %rdx\n"


LISTING = "\t.text\nf:\n\tmovq\t%rdi, %rax\n\tjmp\t.L2\n.L2:\n\taddq\t$1, %rax\n\tret\n"


@pytest.mark.parametrize(
    "name, text, function, picked",
    [
        ("Ov.java", OV, "Ov.f@3", ["Ov.f@3"]),
        ("Ov.java", OV, "f@2", ["Ov.f@2"]),
        ("Ov.java", OV, "g@4.32", ["Ov.g@4.32"]),
        ("Ov.java", OV, "h", ["Ov.h"]),
        ("Ov.java", OV, "f", "ambiguous: Ov.f@2, Ov.f@3"),
        ("Ov.java", OV, "Ov.g", "ambiguous: Ov.g@4.5, Ov.g@4.32"),
        ("Ov.java", OV, "32", "no function '32'"),
        # or its last parts
        ("R.java", NESTED, "Pt.Pt", ["R.Pt.Pt"]),
        ("R.java", NESTED, "A.Q.m", ["R.A.Q.m"]),
        ("R.java", NESTED, "Q.m", "ambiguous: R.A.Q.m, R.B.Q.m"),
        ("R.java", NESTED, "t.Pt", "no function 't.Pt'"),
        ("r.py", RED, "f@5", ["f@5"]),
        ("r.py", RED, "f", "ambiguous: f@1, f@5"),
        # an LTL file's units are "line N", an assembly file's "lineN": either spelling picks either
        ("p.ltl", LTL, "line2", ["line 2"]),
        ("p.ltl", LTL, "line 2", ["line 2"]),
        ("b.s", BLOCKS, "line 3", ["line3"]),
        ("p.ltl", LTL, "line9", "no function 'line9' (found: line 1, line 2)"),
        # a listing's blocks are listed with the labels that also name them
        ("l.s", LISTING, "nosuch", "no function 'nosuch' (found: line3 (f), line6 (.L2))"),
        ("l.s", LISTING, ".L2", ["line6"]),
    ],
)
def test_function_picks_one_unit_or_says_why_not(invoke, tmp_path, name, text, function, picked):
    path = tmp_path / name
    path.write_text(text)
    result = invoke("renamings", path, "--count", "--function", function, "--format", "jsonl")
    if isinstance(picked, list):
        assert result.exit_code == 0, result.output
        assert [line.split('"unit": "')[1].split('"')[0] for line in result.stdout.splitlines()] == picked
    else:
        assert result.exit_code == 2 and picked in result.stderr
