"""Programs over strings of symbols, whose invariances are known exactly.

Each takes ``symbols`` (the alphabet, in order; default ``abcde``) and a
length bound ``max_length``; the answer stands at every position.

* ``contains-a``: 1 when ``a`` occurs. One head averages an end marker over
  the a's and itself: 1 / (a's + 1). Not invariant under renamings.
* ``first-is-a``: 1 when the first symbol is ``a``: a head reads position 0.
* ``distinct-count``: the number of distinct symbols. One head per symbol
  (a set query: that symbol or the end marker) tells whether it occurs; the
  MLP adds the answers. Invariant under renamings.
* ``histogram``: at each symbol, how often it occurs (the Tracr paper's
  ``hist``). One head, its query a set (the position's own symbol or the end
  marker) over the symbols, averages the end marker's 1: 1 / (count + 1),
  which the MLP turns into the count. Invariant under renamings.
* ``palindrome``: 1 when the string reads the same backwards. The length
  comes from a head averaging the end marker over every position; each
  position finds its mirror (length − 1 − index), compares its symbol with
  the mirror's, and a head averages the matches. Invariant under renamings.
* ``reverse``: the symbol at the mirror position (the output's labels are the
  symbols). Equivariant under renamings.
* ``sort``: the distinct symbols of the input in alphabet order, after a
  start marker (the Tracr paper's sort of unique values): a set query of
  every symbol up to one's own counts the smaller ones, giving each symbol
  its place; each place then reads the symbol ranked there. An input with a
  repeated symbol is outside its domain (two symbols share a place, which
  the interpreter reports as an undefined head output).
"""

from __future__ import annotations

from fractions import Fraction

from .lang import END, START, MLPBuilder, numerical, program, qkv, set_var, var
from .spec import AltaError, AltaProgram

SYMBOLS = "abcde"
#: the default length bound of the symbol-string programs
DEFAULT_MAX_LENGTH = 16


def _symbols(symbols: str, max_length: int, *, target: str | None = None) -> tuple[str, ...]:
    out = tuple(symbols)
    if not out or len(set(out)) != len(out) or any(s in (START, END) for s in out):
        raise AltaError(f"symbols {symbols!r}: give distinct symbols (characters)")
    if target is not None and target not in out:
        raise AltaError(f"symbol {target!r} is not among the symbols {symbols!r}")
    if max_length < 1:
        raise AltaError(f"max_length {max_length}: give at least 1")
    return out


def _inverse_counts(n: int) -> tuple[float, ...]:
    """The values of 1 / (count + 1) for counts 0..n, ascending."""
    return tuple(sorted(1 / k for k in range(1, n + 2)))


def _token(symbols: tuple[str, ...]):
    """A symbol's index; any marker is ``len(symbols)``."""
    return lambda t: symbols.index(t) if t in symbols else len(symbols)


def contains_a(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH, target: str = "a") -> AltaProgram:
    """1 at every position when ``target`` occurs (at most ``max_length`` times)."""
    alphabet = _symbols(symbols, max_length, target=target)
    variables = {
        "is_end": numerical((0, 1), token=lambda t: float(t == END)),
        "a_or_end": var(2, token=lambda t: int(t in (target, END))),
        "one": var(2, default=1),
        "answer": var(2),
    }
    heads = {"inv_count": qkv("one", "a_or_end", "is_end", output=numerical(_inverse_counts(max_length)))}
    x = MLPBuilder(variables, heads)
    for inv in x.get("inv_count"):
        x.set("answer", int(round(1 / inv) - 1 > 0))
    return program(
        variables,
        heads,
        x.rules,
        output="answer",
        alphabet=(*alphabet, END),
        suffix=(END,),
        max_layers=1,
        name="contains-a",
    )


def first_is_a(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH, target: str = "a") -> AltaProgram:
    """1 at every position when the first symbol is ``target``."""
    alphabet = _symbols(symbols, max_length, target=target)
    variables = {
        "idx": var(max_length, position=lambda i: i),
        "first": var(1),
        "is_a": var(2, token=lambda t: int(t == target)),
        "answer": var(2),
    }
    heads = {"first_is_a": qkv("first", "idx", "is_a")}
    x = MLPBuilder(variables, heads)
    for value in x.get("first_is_a"):
        x.set("answer", value)
    return program(
        variables,
        heads,
        x.rules,
        output="answer",
        alphabet=alphabet,
        max_length=max_length,
        max_layers=1,
        name="first-is-a",
    )


def distinct_count(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """The number of distinct symbols, at every position."""
    alphabet = _symbols(symbols, max_length)
    k = len(alphabet)
    variables = {
        "tok": var(k + 1, token=_token(alphabet)),
        "is_end": numerical((0, 1), token=lambda t: float(t == END)),
    }
    heads = {}
    for i, s in enumerate(alphabet):
        variables[f"want_{i}"] = set_var(k + 1, [(i, k)], default=(i, k))
        variables[f"seen_{i}"] = var(2)
        heads[f"inv_count_{i}"] = qkv(f"want_{i}", "tok", "is_end", output=numerical(_inverse_counts(max_length)))
    variables["count"] = var(k + 1)
    x = MLPBuilder(variables, heads)
    for i in range(k):
        for inv in x.get(f"inv_count_{i}"):
            x.set(f"seen_{i}", int(round(1 / inv) - 1 > 0))
    for seen in x.get(*(f"seen_{i}" for i in range(k))):
        x.set("count", sum(seen) if k > 1 else seen)
    return program(
        variables,
        heads,
        x.rules,
        output="count",
        alphabet=(*alphabet, END),
        suffix=(END,),
        max_layers=2,
        name="distinct-count",
    )


def histogram(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """At every position, the number of times its symbol occurs (the end marker counts 0)."""
    alphabet = _symbols(symbols, max_length)
    k = len(alphabet)
    variables = {
        "tok": var(k + 1, token=_token(alphabet)),
        # the end marker's query selects only itself: its count is 0
        "own_or_end": set_var(k + 1, [(i, k) for i in range(k)] + [(k,)], token=lambda t: {_token(alphabet)(t), k}),
        "is_end": numerical((0, 1), token=lambda t: float(t == END)),
        "count": var(max_length + 1),
    }
    heads = {"inv_count": qkv("own_or_end", "tok", "is_end", output=numerical(_inverse_counts(max_length)))}
    x = MLPBuilder(variables, heads)
    for inv in x.get("inv_count"):
        x.set("count", round(1 / inv) - 1)
    return program(
        variables,
        heads,
        x.rules,
        output="count",
        alphabet=(*alphabet, END),
        suffix=(END,),
        max_layers=1,
        name="histogram",
    )


def _mirror(alphabet: tuple[str, ...], max_length: int) -> tuple[dict, dict]:
    """Variables and heads that give each position its mirror's symbol (``mirror_tok``)."""
    k, positions = len(alphabet), max_length + 1
    variables = {
        "tok": var(k + 1, token=_token(alphabet)),
        "idx": var(positions, position=lambda i: i),
        "mirror": var(positions),
        "is_end": numerical((0, 1), token=lambda t: float(t == END)),
    }
    heads = {
        "inv_length": qkv(None, None, "is_end", output=numerical(_inverse_counts(max_length))),
        "mirror_tok": qkv("mirror", "idx", "tok"),
    }
    return variables, heads


def _mirror_rules(x: MLPBuilder) -> None:
    """mirror := length − 1 − idx (the end marker, past the symbols, is its own mirror)."""
    for inv in x.get("inv_length"):
        n = round(1 / inv) - 1
        for i in x.get("idx"):
            for m in x.get("mirror"):
                if m == 0:
                    x.set("mirror", n - 1 - i if i < n else i)


def palindrome(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """1 at every position when the string equals its reverse."""
    alphabet = _symbols(symbols, max_length)
    variables, heads = _mirror(alphabet, max_length)
    variables["match"] = numerical((0, 1))
    variables["answer"] = var(2)
    fractions = sorted({float(Fraction(p, q)) for q in range(1, max_length + 2) for p in range(q + 1)})
    heads["matches"] = qkv(None, None, "match", output=numerical(fractions))
    x = MLPBuilder(variables, heads)
    _mirror_rules(x)
    for t, mt in x.get("tok", "mirror_tok"):
        x.set("match", float(t == mt))
    for share in x.get("matches"):
        x.set("answer", int(share == 1.0))
    return program(
        variables,
        heads,
        x.rules,
        output="answer",
        alphabet=(*alphabet, END),
        suffix=(END,),
        max_length=max_length + 1,
        max_layers=3,
        name="palindrome",
    )


def reverse(symbols: str = SYMBOLS, max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """The string backwards (the end marker stays last)."""
    alphabet = _symbols(symbols, max_length)
    variables, heads = _mirror(alphabet, max_length)
    variables["out"] = var(len(alphabet) + 1)
    x = MLPBuilder(variables, heads)
    _mirror_rules(x)
    for mt in x.get("mirror_tok"):
        x.set("out", mt)
    return program(
        variables,
        heads,
        x.rules,
        output="out",
        alphabet=(*alphabet, END),
        suffix=(END,),
        max_length=max_length + 1,
        max_layers=2,
        name="reverse",
        labels=(*alphabet, END),
    )


def sort_distinct(symbols: str = SYMBOLS) -> AltaProgram:
    """The input's distinct symbols in alphabet order, after a start marker
    (at most one of each symbol: its length bound is the alphabet's size)."""
    alphabet = _symbols(symbols, 1)
    k = len(alphabet)
    places = k + 1
    ranks = [(0,)] + [tuple(range(v + 1)) for v in range(1, k + 1)]  # START counts, and symbols up to v
    code = lambda t: 0 if t == START else alphabet.index(t) + 1  # noqa: E731
    variables = {
        "tok": var(k + 1, token=code),
        "idx": var(places, position=lambda i: i),
        "below": set_var(k + 1, ranks, token=lambda t: ranks[code(t)]),
        "is_start": numerical((0, 1), token=lambda t: float(t == START)),
        "state": var(3),
        "place": var(places),
        "sorted": var(k + 1),
    }
    heads = {
        "inv_rank": qkv("below", "tok", "is_start", output=numerical(_inverse_counts(k))),
        "ranked": qkv("idx", "place", "tok"),
    }
    x = MLPBuilder(variables, heads)
    for state in x.get("state"):
        if state == 0:  # each symbol's place: the symbols up to it, itself included
            x.set("state", 1)
            for inv in x.get("inv_rank"):
                for place in x.get("place"):
                    if place == 0:
                        x.set("place", round(1 / inv) - 1)
        elif state == 1:  # each place reads the symbol ranked there
            x.set("state", 2)
            for value in x.get("ranked"):
                for old in x.get("sorted"):
                    if old == 0:
                        x.set("sorted", value)
    return program(
        variables,
        heads,
        x.rules,
        output="sorted",
        alphabet=(START, *alphabet),
        prefix=(START,),
        halt=("state", 2),
        max_length=places,
        name="sort",
        labels=(START, *alphabet),
    )
