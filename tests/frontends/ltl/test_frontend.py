"""The LTL frontend: file layout rules, IR tokens, renaming spaces, pool errors."""

from __future__ import annotations

import pytest

from invar.errors import ParseError, SpaceError, UsageError
from invar.frontends import parse_units as parse_any
from invar.frontends.ltl import pair_of, parse_units, program_of, renaming_space
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.trace import parse_trace

FILE = """# a comment, then one of each layout
G(a -> F b)
&aXb a;b;{1}
U!ab
b;{1}
  XXGb\t a;&ab;{b}
"""


def test_units_follow_the_layout_rule() -> None:
    units = parse_units(FILE, "f.ltl")
    assert [u.name for u in units] == ["line 2", "line 3", "line 4", "line 6"]
    assert [len(u.lines) for u in units] == [1, 2, 2, 2]
    assert [[line.source_line for line in u.lines] for u in units] == [[2], [3, 3], [4, 5], [6, 6]]
    # rendering gives the unit's source text back
    assert [u.render() for u in units] == ["G(a -> F b)", "&aXb a;b;{1}", "U!ab\nb;{1}", "  XXGb\t a;&ab;{b}"]
    assert pair_of(units[1]) == (parse_formula("&aXb"), parse_trace("a;b;{1}"))
    assert parse_any(FILE, "ltl", "f.ltl")[0].lang == "ltl"


def test_tokens_views_and_referents() -> None:
    program = program_of("G(a -> F b)", "a;&ab;{b}")
    assert "".join(t.text for t in program.tokens if t.line == 0) == "G(a->Fb)"
    for t in program.tokens:
        assert program.lines[t.line].text[t.start : t.end] == t.text
        if t.kind == "ap":
            assert t.view == "ap" and t.referent == t.text
        else:
            assert t.view == t.text and t.referent is None
    assert program.referents == ("a", "b")
    kinds = {t.text: t.kind for t in program.tokens}
    assert kinds == {
        "G": "operator",
        "(": "paren",
        "a": "ap",
        "->": "operator",
        "F": "operator",
        "b": "ap",
        ")": "paren",
        ";": "delimiter",
        "&": "operator",
        "{": "delimiter",
        "}": "delimiter",
    }


@pytest.mark.parametrize("used, pool, expected", [(2, 4, 12), (5, 10, 30240), (3, 3, 6), (1, 26, 26), (4, 3, 0)])
def test_counts_are_falling_factorials(used: int, pool: int, expected: int) -> None:
    names = [chr(ord("a") + k) for k in range(26)]
    formula = " & ".join(f"F {n}" for n in names[:used])
    program = program_of(formula, None)
    if used > pool:
        with pytest.raises(SpaceError):
            renaming_space(program, pool=names[:pool])
        return
    assert renaming_space(program, pool=names[:pool]).count() == expected


def test_renaming_keeps_formula_and_trace_consistent() -> None:
    program = program_of("U a b", "a;& a b;{b}")
    space = renaming_space(program, pool=["a", "b", "req_1", "ack"])
    assert space.count() == 12
    for r in space.enumerate():
        renamed = space.apply(program, r)
        mapping = r.as_dict()
        assert renamed.lines[0].text == f"U {mapping['a']} {mapping['b']}"
        formula, trace = pair_of(renamed)
        assert set(formula.aps()) == set(trace.aps()) == set(mapping.values())


def test_pins_keep_an_ap() -> None:
    program = program_of("&aXb", "a;b;{1}")
    space = renaming_space(program, pool=["a", "b", "c"], pins=["a"])
    assert space.count() == 2  # b -> b or c; a stays and is no target
    assert {space.apply(program, r).lines[0].text for r in space.enumerate()} == {"&aXb", "&aXc"}


def test_ap_missing_from_pool_is_located() -> None:
    (program,) = parse_units("\n  &aXb a;b;{1}\n")
    with pytest.raises(SpaceError) as info:
        renaming_space(program, pool=["a", "c"])
    assert (info.value.line, info.value.col) == (2, 6)
    assert "'b'" in info.value.message and info.value.source_line == "  &aXb a;b;{1}"


def test_multi_letter_pool_needs_spaced_polish() -> None:
    with pytest.raises(SpaceError) as info:
        renaming_space(program_of("&aXb", None), pool=["a", "b", "req_1"])
    assert info.value.col == 2
    # infix and spaced Polish take long names
    assert renaming_space(program_of("a & X b", "a;b;{1}"), pool=["a", "b", "req_1"]).count() == 6
    with pytest.raises(UsageError):
        renaming_space(program_of("a", None), pool=["a", "Bad"])


@pytest.mark.parametrize(
    "text, line, col, fragment",
    [
        ("G(a -> F b\n", 1, 2, "never closed"),
        ("a\n&aXb a;b\n", 2, 9, "no loop"),
        ("  &aXb a;{b\n", 1, 10, "never closed"),
        ("a;{1}\n", 1, 1, "trace without a formula"),
        ("Ga\nb;c\n", 2, 4, "no loop"),
        ("Ga\n a;{X b}\n", 2, 5, "temporal operator"),
        ("G(a Q b) a;{1}\n", 1, 5, "unknown operator"),
    ],
)
def test_file_errors_are_located(text: str, line: int, col: int, fragment: str) -> None:
    try:
        err = parse_units(text, "f.ltl").skipped[0]
    except ParseError as raised:  # no good unit at all: the file is bad as a whole
        err = raised
    assert (err.path, err.line, err.col) == ("f.ltl", line, col)
    assert fragment in err.message
    assert err.source_line == text.splitlines()[line - 1]


def test_bad_units_are_skipped_and_the_rest_returned() -> None:
    text = "&aXb a;b;{1}\nG(a\nFb\nb;c\na;{1}\nXa;{1}\nGa\n{X a}\nU!ab\tb;{1}\nF b\n"
    units = parse_units(text, "f.ltl")
    assert [u.name for u in units] == ["line 1", "line 9", "line 10"]
    assert [(e.line, e.col, e.unit, e.reason) for e in units.skipped] == [
        (2, 2, "line 2", "malformed formula"),
        (4, 4, "line 3", "malformed trace"),
        (5, 1, "line 5", "trace without a formula"),
        (6, 1, "line 6", "trace without a formula"),
        (8, 2, "line 7", "malformed trace"),
    ]
    assert all(e.path == "f.ltl" for e in units.skipped)
    assert units.skip_summary() == "5 skipped: 1 malformed formula, 2 malformed traces, 2 traces without a formula"
    with pytest.raises(ParseError) as info:  # nothing good: the first error is raised
        parse_units("G(a\nb;c\n", "f.ltl")
    assert (info.value.line, info.value.col) == (1, 2)


def test_jsonl_records_are_skipped_one_by_one() -> None:
    from invar.frontends.ltl import parse_jsonl_units

    text = (
        '{"formula": "Ga", "trace": "{a}"}\n[1, 2]\n{"formula": "G(a", "trace": "{a}"}\n'
        '{"formula": "a", "trace": "a;b"}\n' + "[" * 5000 + "\n" + '{"formula": "Fa"}\n'
    )
    units = parse_jsonl_units(text, "f.jsonl")
    assert [u.name for u in units] == ["line 1", "line 6"]
    assert [(e.line, e.reason) for e in units.skipped] == [
        (2, "malformed record"),
        (3, "malformed formula"),
        (4, "malformed trace"),
        (5, "malformed record"),
    ]
    assert "unbalanced parenthesis" in units.skipped[1].message
