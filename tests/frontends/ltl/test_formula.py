"""Formula parsing and printing: both syntaxes, exact round trips, located errors."""

from __future__ import annotations

import random

import pytest

from invar.errors import ParseError
from invar.frontends.ltl.formula import Formula, ap, op, parse_formula, to_infix, to_polish

from . import randoms

a, b, c = ap("a"), ap("b"), ap("c")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("G(a -> F b)", op("G", op("->", a, op("F", b)))),
        ("a U b", op("U", a, b)),
        ("&aXb", op("&", a, op("X", b))),
        ("U!ab", op("U", op("!", a), b)),
        ("& a X b", op("&", a, op("X", b))),
        ("a & b | c", op("|", op("&", a, b), c)),
        ("a | b & c", op("|", a, op("&", b, c))),
        ("a -> b -> c", op("->", a, op("->", b, c))),
        ("a U b U c", op("U", a, op("U", b, c))),
        ("a U b & c", op("&", op("U", a, b), c)),
        ("a xor b <-> c", op("<->", op("xor", a, b), c)),
        ("!a R (b W c) M a", op("R", op("!", a), op("M", op("W", b, c), a))),
        ("GFa", op("G", op("F", a))),
        ("XX req_1", op("X", op("X", ap("req_1")))),
        ("true U false", op("U", Formula("1"), Formula("0"))),
        ("1", Formula("1")),
        (">a=b^cc", op("->", a, op("<->", b, op("xor", c, c)))),
        ("W R a b M c a", op("W", op("R", a, b), op("M", c, a))),
    ],
)
def test_parse_table(text: str, expected: Formula) -> None:
    assert parse_formula(text) == expected


@pytest.mark.parametrize(
    "canonical",
    ["G(a -> F b)", "a U b", "!(a & b) | X c", "(a U b) U c", "(a -> b) -> c", "F G !a", "X X !req_1", "a & (b & c)"],
)
def test_infix_canonical_round_trip(canonical: str) -> None:
    assert to_infix(parse_formula(canonical)) == canonical


@pytest.mark.parametrize("canonical", ["&aXb", "U!ab", "|Fa!Fa", "XXGb", ">a=b^c1", "& req_1 X b", "M W a 0 ! c_d"])
def test_polish_canonical_round_trip(canonical: str) -> None:
    assert to_polish(parse_formula(canonical)) == canonical


def test_random_round_trips() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        f = randoms.formula(rng, rng.randint(1, 25), rng.choice(["ab", "abc", "pq"]))
        infix, polish = to_infix(f), to_polish(f)
        assert parse_formula(infix) == f, infix
        assert parse_formula(polish) == f, polish
        assert parse_formula(infix, "infix") == f
        assert parse_formula(polish, "polish") == f
        assert to_infix(parse_formula(infix)) == infix
        assert to_polish(parse_formula(polish)) == polish
        spaced = to_polish(f, spaced=True)
        assert parse_formula(spaced) == f and to_polish(parse_formula(spaced), spaced=True) == spaced


@pytest.mark.parametrize(
    "text, col, fragment",
    [
        ("G(a -> F b", 2, "never closed"),
        ("a & b)", 6, "without '('"),
        ("a Q b", 3, "unknown operator 'Q'"),
        ("a ? b", 3, "unknown operator '?'"),
        ("&aX", 4, "missing an operand"),
        ("&a?b", 3, "unknown operator '?'"),
        ("a &", 4, "expected an operand"),
        ("", 1, "empty"),
        ("a b", 3, "unexpected 'b'"),
        ("Ua", 3, "missing an operand"),
        ("Gé", 2, "unknown operator 'é'"),  # letters outside ASCII are no AP (infix and Polish alike)
        ("G(a & é)", 7, "unknown operator 'é'"),
        ("a & _é", 6, "unknown operator 'é'"),
    ],
)
def test_errors_are_located(text: str, col: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_formula(text)
    assert info.value.line == 1
    assert info.value.col == col
    assert fragment in info.value.message


def test_size_and_aps() -> None:
    f = parse_formula("G(a -> F req_1)")
    assert f.size == 5
    assert f.aps() == ("a", "req_1")
    assert parse_formula("&aXb").size == 4


NAMES = [f"p{k}" for k in range(1000)]


@pytest.mark.parametrize(
    "text",
    [
        "X " * 3000 + "a",  # unary nesting
        " & ".join(NAMES),  # a long left-associative chain
        " -> ".join(NAMES),  # right-associative: nests to the right
        " U ".join(NAMES),
        "(" * 3000 + "a" + ")" * 3000,
        "G(" * 1500 + "a" + ")" * 1500,
        "& " * 999 + " ".join(NAMES),  # spaced Polish, nested to the left
        "U " * 999 + " ".join(NAMES),
        "X" * 5000 + "a",  # compact Polish, glued unary operators
    ],
)
def test_deep_and_long_formulas_parse_and_print(text: str) -> None:
    """Nesting and length are bounded by memory, not the recursion limit."""
    f = parse_formula(text)
    infix, polish = to_infix(f), to_polish(f)
    assert parse_formula(infix) == f and parse_formula(polish) == f
    assert to_infix(parse_formula(infix)) == infix
    assert to_polish(parse_formula(polish)) == polish
    assert f.size == len(polish.split()) or f.size == len(polish)
    assert repr(f).startswith("Formula(")
    deeper = Formula("X", (f,))
    assert deeper != Formula("X", (Formula("F", (f,)),)) and deeper == parse_formula("X " + polish)


def test_any_text_parses_or_is_a_located_error() -> None:
    """Mangled formulas (characters dropped, doubled, or swapped for
    punctuation, digits and letters outside ASCII) either parse or raise a
    ParseError inside the text: no other exception escapes the lexer or the
    parsers."""
    rng = random.Random(5)
    alphabet = "abGFXU()!&|-><10 _éßπ中\u00a0\t;{}"
    for _ in range(3000):
        f = randoms.formula(rng, rng.randint(1, 9), "abc")
        chars = list(rng.choice([to_infix, to_polish])(f))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(chars) + 1)
            chars[at:at] = rng.choice(alphabet)
        mangled = "".join(chars)
        for syntax in ("auto", "infix", "polish"):
            try:
                parse_formula(mangled, syntax)
            except ParseError as e:
                assert 1 <= e.col <= len(mangled) + 1, (mangled, e.col, e.message)
