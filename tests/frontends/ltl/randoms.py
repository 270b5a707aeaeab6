"""Random formulas and symbolic traces for the LTL property tests."""

from __future__ import annotations

import random

from invar.frontends.ltl.formula import Formula, ap
from invar.frontends.ltl.trace import Trace

UNARY = ["!", "X", "F", "G"]
BINARY = ["&", "|", "->", "<->", "xor", "U", "R", "W", "M"]


def formula(rng: random.Random, size: int, aps: str, unary=UNARY, binary=BINARY, constants: float = 0.08) -> Formula:
    """A random formula of ``size`` nodes over every operator and constant."""
    if size == 1:
        return Formula(rng.choice("10")) if rng.random() < constants else ap(rng.choice(aps))
    if size == 2 or rng.random() < 0.35:
        return Formula(rng.choice(unary), (formula(rng, size - 1, aps, unary, binary, constants),))
    left = rng.randint(1, size - 2)
    return Formula(
        rng.choice(binary),
        (
            formula(rng, left, aps, unary, binary, constants),
            formula(rng, size - 1 - left, aps, unary, binary, constants),
        ),
    )


def step(rng: random.Random, aps: str) -> Formula:
    """A small propositional step: ``1``, a literal, or a few and/or'ed literals
    (occasionally unsatisfiable, which empties the trace)."""
    if rng.random() < 0.2:
        return Formula("1")
    return formula(rng, rng.randint(1, 4), aps, ["!"], ["&", "|", "&"], constants=0.0)


def trace(rng: random.Random, aps: str, max_prefix: int = 3, max_cycle: int = 3) -> Trace:
    return Trace(
        tuple(step(rng, aps) for _ in range(rng.randint(0, max_prefix))),
        tuple(step(rng, aps) for _ in range(rng.randint(1, max_cycle))),
    )


def concrete_trace(rng: random.Random, aps: str) -> tuple[Trace, list[frozenset[str]], int]:
    """A fully specified lasso (every step a full valuation), and its words."""
    n_prefix, n_cycle = rng.randint(0, 3), rng.randint(1, 4)
    words = [frozenset(a for a in aps if rng.random() < 0.5) for _ in range(n_prefix + n_cycle)]
    steps = [valuation(w, aps) for w in words]
    return Trace(tuple(steps[:n_prefix]), tuple(steps[n_prefix:])), words, n_prefix


def valuation(true_aps: frozenset[str], aps: str) -> Formula:
    out = None
    for a in aps:
        lit = ap(a) if a in true_aps else Formula("!", (ap(a),))
        out = lit if out is None else Formula("&", (out, lit))
    return out if out is not None else Formula("1")


def words_of(concrete: Trace) -> list[frozenset[str]]:
    """The valuations of a concrete trace whose steps are conjunctions of literals."""
    out = []
    for s in concrete.steps:
        true: set[str] = set()
        stack = [(s, False)]
        while stack:
            g, neg = stack.pop()
            if g.op == "ap" and not neg:
                true.add(g.name)
            elif g.op == "!":
                stack.append((g.args[0], not neg))
            elif g.op == "&":
                stack.extend((x, neg) for x in g.args)
        out.append(frozenset(true))
    return out
