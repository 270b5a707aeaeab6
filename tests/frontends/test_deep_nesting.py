"""A program nested too deeply to parse is reported at the line where the
deep construct is, never at 1:1, never with a traceback, and never by a crash
of the interpreter (a C stack overflow would kill it: every case is parsed in
a child process, which must end normally).

Python's ``ast`` and javalang run out of recursion without saying where;
Python's tokenizer says where for brackets nested past 200; the LTL parser
keeps an explicit stack and reads any depth; x86 is read line by line.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

#: deep constructs, each an expression of depth ``n`` over names a, b, f
PYTHON = {
    "chain": lambda n: " + ".join(["a"] * n),
    "power": lambda n: " ** ".join(["a"] * n),
    "unary": lambda n: "-" * n + "a",
    "not": lambda n: "not " * n + "a",
    "attributes": lambda n: "a" + ".b" * n,
    "subscripts": lambda n: "a" + "[0]" * n,
    "conditionals": lambda n: "a if b else " * n + "a",
    "lambdas": lambda n: "lambda: " * n + "a",
    "parentheses": lambda n: "(" * n + "a" + ")" * n,
    "lists": lambda n: "[" * n + "]" * n,
    "calls": lambda n: "f(" * n + "a" + ")" * n,
}
JAVA = {
    "chain": lambda n: "int x = " + " + ".join(["a"] * n) + ";",
    "conditionals": lambda n: "int x = " + "b ? a : " * n + "a;",
    "parentheses": lambda n: "int x = " + "(" * n + "a" + ")" * n + ";",
    "calls": lambda n: "int x = " + "f(" * n + "a" + ")" * n + ";",
    "arrays": lambda n: "Object x = new int" + "[]" * n + "{" * n + "}" * n + ";",
    "blocks": lambda n: "{" * n + "}" * n,
}
#: past CPython's parser stack (6,000) and javalang's recursion alike; a deeper input hits the same limits
#: (depths of 20,000, 50,000 and 200,000 were checked as well and cost the suite 10-60 s for nothing new)
DEPTHS = (5000, 10000)


def _python_cases():
    for shape, make in PYTHON.items():
        for n in DEPTHS:
            # inside a function, on line 3
            yield f"python-{shape}-{n}", "python", f"def g(a, b, f):\n    y = 1\n    x = {make(n)}\n    return y\n", 3
        # at module level, on line 2 (the file's only unit is the module)
        yield f"python-{shape}-module", "python", f"y = 1\nx = {make(DEPTHS[-1])}\nz = 2\n", 2


def _java_cases():
    for shape, make in JAVA.items():
        for n in DEPTHS:
            text = (
                "class C {\n    int g(int a, boolean b) {\n        " + make(n) + "\n        return a;\n    }\n"
                "    int h(int a) {\n        return a + 1;\n    }\n}\n"
            )
            yield f"java-{shape}-{n}", "java", text, 3


CASES = list(_python_cases()) + list(_java_cases())

#: parses every case in one child process: a crash there fails every case
_CHILD = """
import json, sys
from invar.errors import InvarError
from invar.frontends import parse_units
for case_id, lang, text in json.load(sys.stdin):
    try:
        units = parse_units(text, lang, "deep")
        found = {"units": [u.name for u in units],
                 "skipped": [[e.line, e.col, e.message] for e in getattr(units, "skipped", ())]}
    except InvarError as err:
        found = {"error": [err.line, err.col, err.message, str(err)]}
    print(json.dumps({"id": case_id, **found}), flush=True)
"""


@pytest.fixture(scope="module")
def parsed() -> dict[str, dict]:
    cases = [(case_id, lang, text) for case_id, lang, text, _ in CASES]
    run = subprocess.run(
        [sys.executable, "-c", _CHILD], input=json.dumps(cases), capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert run.returncode == 0, f"the interpreter died ({run.returncode}):\n{run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr
    return {r["id"]: r for r in map(json.loads, run.stdout.splitlines())}


@pytest.mark.parametrize("case_id, lang, text, line", CASES, ids=[c[0] for c in CASES])
def test_too_deep_is_reported_where_it_is(parsed, case_id, lang, text, line) -> None:
    found = parsed[case_id]
    if lang == "java":
        # the method is skipped with its located error; the other one is read
        assert found["units"] == ["C.h"], found
        ((at, col, message),) = found["skipped"]
        assert "nested too deeply" in message
    else:
        at, col, message, shown = found["error"]
        assert shown.startswith(f"deep:{line}:{col}: error: ") and "\n" not in shown
        assert "nest" in message  # "nesting too deep to parse", "too many nested parentheses"
    assert at == line, found
    assert 1 <= col <= len(text.splitlines()[line - 1])


@pytest.mark.parametrize(
    "lang, text",
    [
        ("python", "def g(a):\n    y = 1\n    x = " + " + ".join(["a"] * 500) + "\n    return x\n"),
        ("python", "def g(a):\n    y = 1\n    x = " + "-" * 500 + "a\n    return x\n"),
        (
            "java",
            "class C {\n    int g(int a) {\n        int x = "
            + " + ".join(["a"] * 500)
            + ";\n        return x;\n    }\n}\n",
        ),
    ],
)
def test_deep_but_parsable_programs_are_read(lang, text) -> None:
    from invar.frontends import parse_units

    (unit,) = parse_units(text, lang, "deep")
    assert [line.source_line for line in unit.lines if line.text.lstrip().startswith(("x =", "int x ="))] == [3]


@pytest.mark.parametrize("n", [1000, 20000])  # 20,000 is far past any recursion limit
def test_ltl_reads_any_depth_and_locates_errors_inside(n) -> None:
    """Deep formulas are checked; an error deep inside one is located on its line."""
    from invar.errors import ParseError
    from invar.frontends.ltl import parse_units

    units = parse_units(f"Ga {{a}}\n{'X ' * n}a\t{{a}}\n{'(' * n}a{')' * n} & b\t{{&ab}}\n")
    assert len(units) == 3 and not units.skipped
    units = parse_units(f"Ga {{a}}\n\n{'(' * n}a{')' * (n - 1)}\t{{a}}\n")
    (err,) = units.skipped
    assert isinstance(err, ParseError) and err.line == 3 and "never closed" in err.message
