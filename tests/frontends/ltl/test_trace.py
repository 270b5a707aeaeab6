"""Lasso traces: parsing, printing, lexemes and located errors."""

from __future__ import annotations

import random

import pytest

from invar.errors import ParseError
from invar.frontends.ltl.formula import Formula, ap, op
from invar.frontends.ltl.trace import lex_trace, parse_trace, to_trace_text

from . import randoms


def test_parse_deepltl_trace() -> None:
    t = parse_trace("a;&ab;{b}")
    assert t.prefix == (ap("a"), op("&", ap("a"), ap("b")))
    assert t.cycle == (ap("b"),)
    assert [t.successor(p) for p in range(3)] == [1, 2, 2]
    assert t.aps() == ("a", "b")


def test_loop_only_and_multi_step_loop() -> None:
    assert parse_trace("{1}").prefix == () and parse_trace("{1}").cycle == (Formula("1"),)
    t = parse_trace("{a;!a}")
    assert t.cycle == (ap("a"), op("!", ap("a")))
    assert [t.successor(p) for p in range(2)] == [1, 0]


@pytest.mark.parametrize("canonical", ["a;&ab;{b}", "{1}", "a;b;{1}", "!a;|ab;{&a!b;b}", "& req_1 b;{1}"])
def test_round_trip(canonical: str) -> None:
    assert to_trace_text(parse_trace(canonical)) == canonical


def test_random_round_trip() -> None:
    rng = random.Random(3)
    for _ in range(500):
        t = randoms.trace(rng, "abc")
        assert parse_trace(to_trace_text(t)) == t


def test_lexemes_have_offsets() -> None:
    text = "a;&ab;{b}"
    _, lexemes = lex_trace(text)
    assert "".join(lx.text for lx in lexemes) == text
    for lx in lexemes:
        assert text[lx.start : lx.start + len(lx.text)] == lx.text
    assert [lx.kind for lx in lexemes if lx.text in ";{}"] == ["delimiter"] * 4


@pytest.mark.parametrize(
    "text, col, fragment",
    [
        ("a;b", 4, "no loop"),
        ("a;{b", 3, "never closed"),
        ("a;b}", 4, "without '{'"),
        ("a;{b}c", 6, "after the loop"),
        ("a{b}", 2, "expected ';'"),
        ("a;;{b}", 3, "empty step"),
        ("{}", 2, "empty step"),
        ("Xa;{b}", 1, "temporal operator 'X'"),
        ("a;{&a}", 6, "missing an operand"),
        ("a;{b{c}}", 5, "second loop"),
        ("a;{?}", 4, "unknown operator"),
        ("a;{é}", 4, "unknown operator 'é'"),
    ],
)
def test_errors_are_located(text: str, col: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_trace(text)
    assert info.value.col == col, info.value.message
    assert fragment in info.value.message
