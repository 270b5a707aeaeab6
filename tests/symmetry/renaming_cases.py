"""Renaming spaces built by hand, for the tests of the renaming space and
of its cost: a program that is its referents' names, one token each, and
two classes of referents that share a few targets, with their count by a
closed formula."""

from __future__ import annotations

import math

from invar.program import Line, Program, Token


def program(referents: list[str]) -> Program:
    """One line of the referents' names, each a token of its own."""
    tokens, pos = [], 0
    for r in referents:
        tokens.append(Token(r, "name", "name", r, 0, pos))
        pos += len(r) + 1
    return Program("test", (Line(" ".join(referents)),), tuple(tokens))


def shared_case(n: int, shared: int) -> tuple[list[str], list[list[str]], int]:
    """Two classes of ``n`` referents each over pools of their own, plus
    ``shared`` targets both may take (``shared²/2`` states a level),
    interleaved in the lists: (referents, allowed targets, count)."""
    own_a, own_b = [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]
    common = [f"s{i}" for i in range(shared)]
    list_a = own_a[: n // 3] + common + own_a[n // 3 :]
    list_b = common[::-1] + own_b
    referents = [f"r{i}" for i in range(2 * n)]
    allowed = [list_a if i % 2 == 0 else list_b for i in range(2 * n)]
    # the count by its formula: x of class a's referents and y of class b's in the shared targets
    count = sum(
        math.comb(n, x) * math.perm(n, n - x) * math.comb(n, y) * math.perm(n, n - y) * math.perm(shared, x + y)
        for x in range(shared + 1)
        for y in range(shared + 1 - x)
    )
    return referents, allowed, count
