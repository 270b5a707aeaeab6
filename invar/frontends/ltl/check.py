"""The exact trace checker: does *every* word of a symbolic lasso satisfy a formula?

A symbolic trace ``u{v}`` describes a set of infinite words (each position of
every unrolling may take any valuation its step formula allows). It satisfies
``phi`` when no word of that set satisfies ``!phi``. We decide this exactly, as
an emptiness check:

1. ``!phi`` is put in negation normal form over ``& | X U R W M`` (F and G
   become U and R; ``->``, ``<->`` and ``xor`` are expanded over shared,
   memoised subformulas, so the DAG stays linear in the formula's size).
2. A tableau turns a set of obligations into its one-step expansions
   ``(literals now, obligations next, eventualities postponed)`` — a
   transition-based generalized Büchi automaton, built on the fly. An
   eventuality (``U``, ``M``) that is postponed forever is the only way a run
   can cheat, so a run is accepting when every eventuality has infinitely
   many transitions that do not postpone it.
3. The product of the trace's positions with the tableau states is explored,
   keeping a transition only when its literals are consistent with the step
   formula at that position. The trace satisfies ``phi`` exactly when the
   product has no reachable strongly connected component whose internal
   transitions cover every eventuality.

When it fails, an accepting lasso of the product is read back as a concrete
word of the trace (one valuation per step) that violates ``phi``: the
counterexample. The same machinery, run on ``phi`` itself and the trace
``{1}``, produces a symbolic trace all of whose words satisfy ``phi``
(:func:`satisfying_trace`), which is how the dataset generator labels formulas.

The steps live in modules of their own: :mod:`.tableau` (1 and 2, the
formula automaton), :mod:`.steps` (the trace's step formulas),
:mod:`.product` (3, the product and its accepting lasso) and :mod:`.limits`
(the deadline and state limit every step spends from). This module holds the
checker's public face: :func:`check`, its :class:`CheckResult` and error
:class:`CheckLimitError`, and :func:`satisfying_trace`, each reading a lasso
back as a trace; and :func:`check_program`, which checks a unit's trace
against its formula.

Part of the frontends layer: imports the LTL formula, trace, unit and checker
modules, :mod:`invar.errors` and :mod:`invar.program` only; must not import
anything above the frontends layer (encoding, tasks, data, nn, …).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvarError, ParseError
from ...program import Program
from .formula import TRUE, Formula, ap, conj, negate
from .limits import Budget, CheckLimitError
from .parse import locate, pair_of
from .product import Edge, accepting_lasso, explore
from .steps import Steps
from .tableau import Tableau
from .trace import Trace

__all__ = ["CheckResult", "CheckLimitError", "check", "satisfying_trace", "check_program"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict of :func:`check`."""

    #: every word of the trace satisfies the formula
    holds: bool
    #: a concrete word of the trace (every step a full valuation) violating
    #: the formula, when it does not hold
    counterexample: Trace | None = None
    #: product states explored (a measure of the work done)
    states: int = 0


def _tableau(formula: Formula, budget: Budget, max_states: int | None) -> Tableau:
    """A tableau for ``formula``'s APs whose work is bounded by the deadline
    and, with a state limit, by the size of any one expansion (which grows
    exponentially in the worst case)."""
    tableau = Tableau(budget, max_states)
    for name in formula.aps():
        tableau.bit(name)
    return tableau


def check(
    formula: Formula, trace: Trace, *, max_states: int | None = None, timeout: float | None = None
) -> CheckResult:
    """Decide whether every word described by ``trace`` satisfies ``formula``.

    Raises :class:`CheckLimitError` past ``max_states`` product states or
    ``timeout`` seconds (both unlimited by default)."""
    budget = Budget(timeout)
    tableau = _tableau(formula, budget, max_states)
    root = tableau.nnf(formula, neg=True)
    steps = Steps(trace, tableau, budget)
    tableau.layout()
    nodes, adj = explore(tableau, root, steps, max_states)
    lasso = accepting_lasso(adj, len(tableau.eventualities), budget)
    if lasso is None:
        return CheckResult(True, None, len(nodes))
    names = list(tableau.ap_bits)
    prefix, cycle = lasso

    def concrete(e: Edge) -> Formula:
        _, _, p, pos, neg = e
        model = steps.model(p, pos, neg)
        assert model is not None
        vm = steps.masks[p]
        true_mask = (model & vm) | (pos & ~vm)
        literals = [ap(n) if true_mask >> tableau.ap_bits[n] & 1 else negate(ap(n)) for n in names]
        return conj(literals)

    witness = Trace(tuple(concrete(e) for e in prefix), tuple(concrete(e) for e in cycle))
    return CheckResult(False, witness, len(nodes))


def satisfying_trace(formula: Formula, *, max_states: int | None = None, timeout: float | None = None) -> Trace | None:
    """A symbolic trace all of whose words satisfy ``formula`` (None when the
    formula is unsatisfiable). Steps are conjunctions of the literals the
    tableau needs (``1`` when none), so unconstrained APs stay free."""
    budget = Budget(timeout)
    tableau = _tableau(formula, budget, max_states)
    root = tableau.nnf(formula)
    steps = Steps(Trace((), (TRUE,)), tableau, budget)
    tableau.layout()
    _, adj = explore(tableau, root, steps, max_states)
    lasso = accepting_lasso(adj, len(tableau.eventualities), budget)
    if lasso is None:
        return None
    names = list(tableau.ap_bits)

    def symbolic(e: Edge) -> Formula:
        _, _, _, pos, neg = e
        literals = []
        for n in names:
            b = tableau.ap_bits[n]
            if pos >> b & 1:
                literals.append(ap(n))
            elif neg >> b & 1:
                literals.append(negate(ap(n)))
        return conj(literals)

    prefix, cycle = lasso
    return Trace(tuple(symbolic(e) for e in prefix), tuple(symbolic(e) for e in cycle))


def check_program(program: Program, *, timeout: float | None = None, max_states: int | None = None):
    """Check the trace of ``program`` against its formula
    (:func:`invar.frontends.ltl.check.check`).

    Errors (no trace, :class:`~invar.frontends.ltl.check.CheckLimitError`)
    are located at the unit's formula."""
    first = program.tokens[0]
    formula, trace = pair_of(program)
    try:
        if trace is None:
            raise ParseError(
                "formula without a trace: checking needs one (in text, after the formula or on the next line; "
                'in JSONL, a "trace" string)'
            )
        return check(formula, trace, timeout=timeout, max_states=max_states)
    except InvarError as err:
        line, col, source = locate(program, first)
        raise err.at(line, col, source_line=source) from None
