"""Where a program is nested too deeply to parse.

A parser that runs out of recursion (Python's ``ast``, javalang) says only
that it did, not where. The place is found again from the tokens, which are
read without recursion: the statement whose nesting is largest, measured as
the depth of its brackets plus the operators and brackets it chains (every
operator of ``a + a + …`` is one more level of the tree, as is every ``-`` of
``- - a``, every ``.b`` of ``a.b.b`` and every ``[0]`` of ``a[0][0]``). The place reported is the first token at the
statement's greatest bracket depth when brackets make most of its nesting,
else the statement's first token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

__all__ = ["Token", "deepest"]

OPENS = frozenset("([{")
CLOSES = frozenset(")]}")


@dataclass(frozen=True, slots=True)
class Token:
    #: the token's text
    text: str
    #: 1-based line and column of its first character
    line: int
    col: int
    #: whether it ends a statement (Python's NEWLINE, Java's ``;``)
    ends: bool = False
    #: whether it adds a level to the tree it is part of (an operator, ``not``,
    #: ``lambda``, ``.``, a conditional's ``if`` …)
    level: bool = False


@dataclass
class _Statement:
    start: tuple[int, int]
    levels: int = 0
    depth: int = 0
    deepest: tuple[int, int] | None = None

    @property
    def measure(self) -> int:
        return self.depth + self.levels


def deepest(tokens: Iterable[Token]) -> tuple[int, int]:
    """(line, col) of the most deeply nested place among ``tokens`` ((1, 1)
    when there are none)."""
    best: _Statement | None = None
    current: _Statement | None = None
    depth = 0
    for tok in tokens:
        if current is None:
            current = _Statement((tok.line, tok.col))
        if tok.text in OPENS:
            # a bracket is a level too: ``a[0][0]`` nests without nesting brackets
            depth += 1
            current.levels += 1
            if depth > current.depth:
                current.depth, current.deepest = depth, (tok.line, tok.col)
        elif tok.text in CLOSES:
            depth = max(0, depth - 1)
        elif tok.level:
            current.levels += 1
        if tok.ends:
            if best is None or current.measure > best.measure:
                best = current
            current = None
    if current is not None and (best is None or current.measure > best.measure):
        best = current
    if best is None:
        return 1, 1
    if best.deepest is not None and best.depth >= best.levels:
        return best.deepest
    return best.start
