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
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from ...errors import InvarError
from .formula import TRUE, Formula, ap, conj, negate
from .trace import Trace

__all__ = ["CheckResult", "CheckLimitError", "check", "satisfying_trace", "evaluate_step"]


class CheckLimitError(InvarError):
    """The product grew past ``max_states`` or the deadline passed."""


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


# ------------------------------------------------------------------ tableau
_T, _F = 0, 1  # node ids of true and false


class _Tableau:
    """Hash-consed NNF nodes ``(op, a, b)`` and their one-step expansions."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, int, int]] = [("1", -1, -1), ("0", -1, -1)]
        self.ids: dict[tuple[str, int, int], int] = {n: k for k, n in enumerate(self.nodes)}
        #: AP name -> bit index
        self.ap_bits: dict[str, int] = {}
        #: node id of an eventuality (U, M) -> its acceptance bit
        self.eventualities: dict[int, int] = {}
        self._nnf: dict[tuple[Formula, bool], int] = {}
        self._expansions: dict[frozenset[int], list[tuple[int, int, frozenset[int], int]]] = {}

    # nodes ----------------------------------------------------------------
    def bit(self, name: str) -> int:
        return self.ap_bits.setdefault(name, len(self.ap_bits))

    def mk(self, op: str, a: int = -1, b: int = -1) -> int:
        """Make a node, folding constants so that obligations stay small."""
        if op == "&":
            if a == _F or b == _F:
                return _F
            if a == _T or a == b:
                return b
            if b == _T:
                return a
            a, b = min(a, b), max(a, b)
        elif op == "|":
            if a == _T or b == _T:
                return _T
            if a == _F or a == b:
                return b
            if b == _F:
                return a
            a, b = min(a, b), max(a, b)
        elif op == "X":
            if a in (_T, _F):
                return a
        elif op == "U":
            if b in (_T, _F) or a == _F:
                return b
        elif op == "R":
            if b in (_T, _F) or a == _T:
                return b
        elif op == "W":
            if b == _T or a == _T:
                return _T
            if a == _F:
                return b
            if b == _F:
                return self.mk("R", _F, a)
        elif op == "M":
            if b == _F or a == _F:
                return _F
            if a == _T:
                return b
            if b == _T:
                return self.mk("U", _T, a)
        key = (op, a, b)
        node = self.ids.get(key)
        if node is None:
            node = len(self.nodes)
            self.nodes.append(key)
            self.ids[key] = node
            if op in ("U", "M"):
                self.eventualities[node] = len(self.eventualities)
        return node

    def nnf(self, f: Formula, neg: bool = False) -> int:
        """The node for ``f`` (``!f`` when ``neg``) in negation normal form."""
        key = (f, neg)
        done = self._nnf.get(key)
        if done is not None:
            return done
        o = f.op
        if o == "ap":
            node = self.mk("nap" if neg else "ap", self.bit(f.name))
        elif o == "1":
            node = _F if neg else _T
        elif o == "0":
            node = _T if neg else _F
        elif o == "!":
            node = self.nnf(f.args[0], not neg)
        elif o == "X":
            node = self.mk("X", self.nnf(f.args[0], neg))
        elif o == "F":
            node = self.mk("R", _F, self.nnf(f.args[0], True)) if neg else self.mk("U", _T, self.nnf(f.args[0]))
        elif o == "G":
            node = self.mk("U", _T, self.nnf(f.args[0], True)) if neg else self.mk("R", _F, self.nnf(f.args[0]))
        else:
            x, y = f.args
            if o == "&" or o == "|":
                dual = {"&": "|", "|": "&"}[o] if neg else o
                node = self.mk(dual, self.nnf(x, neg), self.nnf(y, neg))
            elif o == "->":
                node = (
                    self.mk("&", self.nnf(x), self.nnf(y, True)) if neg else self.mk("|", self.nnf(x, True), self.nnf(y))
                )
            elif o in ("<->", "xor"):
                same = (o == "<->") != neg  # the formula says "x and y agree"
                if same:
                    node = self.mk("|", self.mk("&", self.nnf(x), self.nnf(y)), self.mk("&", self.nnf(x, True), self.nnf(y, True)))
                else:
                    node = self.mk("|", self.mk("&", self.nnf(x), self.nnf(y, True)), self.mk("&", self.nnf(x, True), self.nnf(y)))
            elif o in ("U", "R", "W", "M"):
                dual = {"U": "R", "R": "U", "W": "M", "M": "W"}[o] if neg else o
                node = self.mk(dual, self.nnf(x, neg), self.nnf(y, neg))
            else:  # pragma: no cover - the parsers only build the operators above
                raise ValueError(f"unknown operator {o!r}")
        self._nnf[key] = node
        return node

    # expansion -------------------------------------------------------------
    def expand(self, state: frozenset[int], forced_pos: int = 0, forced_neg: int = 0) -> list[tuple[int, int, frozenset[int], int]]:
        """The one-step expansions of ``state``: ``(pos, neg, next, postponed)``
        with ``pos``/``neg`` bit masks of APs that must be true/false now, the
        obligations for the next step, and a mask of eventualities postponed.

        Branches that contradict the literals the current step forces
        (``forced_pos``/``forced_neg``) are cut as soon as they do, and a
        transition dominated by another (weaker literals, fewer obligations,
        fewer postponements) is dropped: whatever run takes it could take the
        other, since a state's words are those satisfying all its obligations."""
        key = (state, forced_pos, forced_neg)
        done = self._expansions.get(key)
        if done is not None:
            return done
        nodes, ev = self.nodes, self.eventualities
        out: dict[tuple[int, int, frozenset[int], int], None] = {}
        # each branch: (todo, seen, pos, neg, next, postponed)
        branches = [(sorted(state), frozenset(), 0, 0, frozenset(), 0)]
        while branches:
            todo, seen, pos, neg, nxt, post = branches.pop()
            todo = list(todo)
            alive = True
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen = seen | {n}
                op, a, b = nodes[n]
                if op == "1":
                    continue
                if op == "0":
                    alive = False
                    break
                if op == "ap":
                    if (neg | forced_neg) >> a & 1:
                        alive = False
                        break
                    pos |= 1 << a
                elif op == "nap":
                    if (pos | forced_pos) >> a & 1:
                        alive = False
                        break
                    neg |= 1 << a
                elif op == "&":
                    todo.append(a)
                    todo.append(b)
                elif op == "X":
                    nxt = nxt | {a}
                elif op == "|":
                    branches.append((todo + [b], seen, pos, neg, nxt, post))
                    todo.append(a)
                elif op == "U":  # b now, or a now and the same until next
                    branches.append((todo + [a], seen, pos, neg, nxt | {n}, post | 1 << ev[n]))
                    todo.append(b)
                elif op == "M":  # a and b now, or b now and the same next
                    branches.append((todo + [b], seen, pos, neg, nxt | {n}, post | 1 << ev[n]))
                    todo.append(a)
                    todo.append(b)
                elif op == "R":  # a and b now, or b now and the same next
                    branches.append((todo + [b], seen, pos, neg, nxt | {n}, post))
                    todo.append(a)
                    todo.append(b)
                elif op == "W":  # b now, or a now and the same next
                    branches.append((todo + [a], seen, pos, neg, nxt | {n}, post))
                    todo.append(b)
                else:  # pragma: no cover
                    raise ValueError(op)
            if alive:
                out[(pos, neg, nxt, post)] = None
        result = _undominated(out)
        self._expansions[key] = result
        return result


def _undominated(transitions: Iterable[tuple[int, int, frozenset[int], int]]) -> list[tuple[int, int, frozenset[int], int]]:
    ordered = sorted(transitions, key=lambda t: (bin(t[0] | t[1]).count("1") + len(t[2]) + bin(t[3]).count("1")))
    kept: list[tuple[int, int, frozenset[int], int]] = []
    for t in ordered:
        pos, neg, nxt, post = t
        if not any(
            not (k[0] & ~pos or k[1] & ~neg or k[3] & ~post) and k[2] <= nxt for k in kept
        ):
            kept.append(t)
    return kept


# ------------------------------------------------------------- trace steps
def evaluate_step(step: Formula, true_aps: frozenset[str] | set[str]) -> bool:
    """The truth of a propositional step formula under one valuation."""
    o = step.op
    if o == "ap":
        return step.name in true_aps
    if o == "1":
        return True
    if o == "0":
        return False
    if o == "!":
        return not evaluate_step(step.args[0], true_aps)
    x = evaluate_step(step.args[0], true_aps)
    y = evaluate_step(step.args[1], true_aps)
    if o == "&":
        return x and y
    if o == "|":
        return x or y
    if o == "->":
        return (not x) or y
    if o == "<->":
        return x == y
    if o == "xor":
        return x != y
    raise ValueError(f"temporal operator {o!r} in a trace step")


@lru_cache(maxsize=8192)
def _step_models(step: Formula) -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
    """The step's APs and the sets of them that are true in its models."""
    names = step.aps()
    models = []
    for m in range(1 << len(names)):
        true_aps = frozenset(n for k, n in enumerate(names) if m >> k & 1)
        if evaluate_step(step, true_aps):
            models.append(true_aps)
    return names, tuple(models)


class _Steps:
    """The trace's step formulas compiled against the tableau's AP bits."""

    def __init__(self, trace: Trace, tableau: _Tableau) -> None:
        self.trace = trace
        self.n = len(trace.prefix) + len(trace.cycle)
        self.masks: list[int] = []
        self.models: list[list[int]] = []
        #: literals every model of the step agrees on (what it forces)
        self.forced: list[tuple[int, int]] = []
        for step in trace.steps:
            names, models = _step_models(step)
            bits = [tableau.bit(name) for name in names]
            mask = sum(1 << b for b in bits)
            ms = [sum(1 << tableau.bit(name) for name in m) for m in models]
            self.masks.append(mask)
            self.models.append(ms)
            always, never = mask, mask
            for m in ms:
                always &= m
                never &= ~m
            self.forced.append((always, never) if ms else (0, 0))
        self._memo: dict[tuple[int, int, int], int | None] = {}

    def model(self, p: int, pos: int, neg: int) -> int | None:
        """A model (mask of true APs over the step's APs) of step ``p`` that
        agrees with the literals ``pos``/``neg``, or None."""
        vm = self.masks[p]
        key = (p, pos & vm, neg & vm)
        if key in self._memo:
            return self._memo[key]
        want, avoid = key[1], key[2]
        found = next((m for m in self.models[p] if m & want == want and not m & avoid), None)
        self._memo[key] = found
        return found


# ------------------------------------------------------------------ search
#: one product edge: (target node, acceptance marks, trace position, pos, neg)
_Edge = tuple[int, int, int, int, int]


def _explore(
    tableau: _Tableau, root: int, steps: _Steps, max_states: int | None, deadline: float | None
) -> tuple[list[tuple[int, frozenset[int]]], list[list[_Edge]]]:
    """Every product node reachable from (position 0, {root}), with its edges."""
    start = (0, frozenset([root]))
    index = {start: 0}
    nodes = [start]
    adj: list[list[_Edge]] = []
    k = 0
    while k < len(nodes):
        p, state = nodes[k]
        k += 1
        if deadline is not None and k & 255 == 0 and time.monotonic() > deadline:
            raise CheckLimitError("trace check ran past its time limit")
        edges: list[_Edge] = []
        q = steps.trace.successor(p)
        fpos, fneg = steps.forced[p]
        for pos, neg, nxt, post in tableau.expand(state, fpos, fneg):
            if steps.model(p, pos, neg) is None:
                continue
            target = (q, nxt)
            t = index.get(target)
            if t is None:
                t = index[target] = len(nodes)
                nodes.append(target)
                if max_states is not None and len(nodes) > max_states:
                    raise CheckLimitError(f"trace check explored more than {max_states} product states")
            edges.append((t, post, p, pos, neg))
        adj.append(edges)
    return nodes, adj


def _sccs(adj: Sequence[Sequence[_Edge]]) -> list[list[int]]:
    """Strongly connected components (iterative Tarjan)."""
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            recurse = False
            edges = adj[v]
            while i < len(edges):
                w = edges[i][0]
                i += 1
                if index[w] < 0:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def _accepting_lasso(adj: Sequence[Sequence[_Edge]], n_marks: int) -> tuple[list[_Edge], list[_Edge]] | None:
    """An accepting lasso (prefix edges from node 0, cycle edges) or None.

    Marks on edges are *postponed* eventualities; a cycle is accepting when,
    for every eventuality, one of its edges does not postpone it."""
    full = (1 << n_marks) - 1
    for comp in _sccs(adj):
        members = set(comp)
        covered = 0  # eventualities some internal edge does not postpone
        internal = False
        for v in comp:
            for e in adj[v]:
                if e[0] in members:
                    internal = True
                    covered |= full & ~e[1]
        if internal and covered == full:
            return _lasso_through(adj, members, full)
    return None


def _bfs(adj: Sequence[Sequence[_Edge]], sources: Iterable[int], goal, within: set[int] | None) -> list[tuple[int, _Edge]]:
    """Shortest edge path from a source to an edge ``e`` leaving node ``v`` with
    ``goal(v, e)``; returns ``[(from_node, edge), …]`` ending with that edge."""
    parent: dict[int, tuple[int, _Edge] | None] = {}
    queue: deque[int] = deque()
    for s in sources:
        parent[s] = None
        queue.append(s)
    while queue:
        v = queue.popleft()
        for e in adj[v]:
            w = e[0]
            if within is not None and w not in within:
                continue
            if goal(v, e):
                path = [(v, e)]
                while parent[v] is not None:
                    u, pe = parent[v]  # type: ignore[misc]
                    path.append((u, pe))
                    v = u
                path.reverse()
                return path
            if w not in parent:
                parent[w] = (v, e)
                queue.append(w)
    raise AssertionError("no path where the SCC analysis promised one")  # pragma: no cover


def _lasso_through(adj: Sequence[Sequence[_Edge]], comp: set[int], full: int) -> tuple[list[_Edge], list[_Edge]]:
    if 0 in comp:
        prefix: list[_Edge] = []
        entry = 0
    else:
        path = _bfs(adj, [0], lambda v, e: e[0] in comp, None)
        prefix = [e for _, e in path]
        entry = prefix[-1][0]
    cycle: list[_Edge] = []
    here = entry
    missing = full
    while missing:
        path = _bfs(adj, [here], lambda v, e, m=missing: bool(m & ~e[1]), comp)
        for _, e in path:
            missing &= e[1]  # an edge discharges what it does not postpone
        cycle.extend(e for _, e in path)
        here = cycle[-1][0]
    if not cycle or here != entry:
        # close the loop (at least one edge, back to the entry node)
        if here == entry:
            first = next(e for e in adj[entry] if e[0] in comp)
            cycle.append(first)
            here = first[0]
        if here != entry:
            path = _bfs(adj, [here], lambda v, e: e[0] == entry, comp)
            cycle.extend(e for _, e in path)
    return prefix, cycle


# -------------------------------------------------------------- public API
def check(
    formula: Formula,
    trace: Trace,
    *,
    max_states: int | None = None,
    timeout: float | None = None,
) -> CheckResult:
    """Decide whether every word described by ``trace`` satisfies ``formula``.

    Raises :class:`CheckLimitError` past ``max_states`` product states or
    ``timeout`` seconds (both unlimited by default)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    tableau = _Tableau()
    for name in formula.aps():
        tableau.bit(name)
    root = tableau.nnf(formula, neg=True)
    steps = _Steps(trace, tableau)
    nodes, adj = _explore(tableau, root, steps, max_states, deadline)
    lasso = _accepting_lasso(adj, len(tableau.eventualities))
    if lasso is None:
        return CheckResult(True, None, len(nodes))
    names = list(tableau.ap_bits)
    prefix, cycle = lasso

    def concrete(e: _Edge) -> Formula:
        _, _, p, pos, neg = e
        model = steps.model(p, pos, neg)
        assert model is not None
        vm = steps.masks[p]
        true_mask = (model & vm) | (pos & ~vm)
        literals = [ap(n) if true_mask >> tableau.ap_bits[n] & 1 else negate(ap(n)) for n in names]
        return conj(literals)

    witness = Trace(tuple(concrete(e) for e in prefix), tuple(concrete(e) for e in cycle))
    return CheckResult(False, witness, len(nodes))


def satisfying_trace(
    formula: Formula, *, max_states: int | None = None, timeout: float | None = None
) -> Trace | None:
    """A symbolic trace all of whose words satisfy ``formula`` (None when the
    formula is unsatisfiable). Steps are conjunctions of the literals the
    tableau needs (``1`` when none), so unconstrained APs stay free."""
    deadline = None if timeout is None else time.monotonic() + timeout
    tableau = _Tableau()
    for name in formula.aps():
        tableau.bit(name)
    root = tableau.nnf(formula)
    steps = _Steps(Trace((), (TRUE,)), tableau)
    _, adj = _explore(tableau, root, steps, max_states, deadline)
    lasso = _accepting_lasso(adj, len(tableau.eventualities))
    if lasso is None:
        return None
    names = list(tableau.ap_bits)

    def symbolic(e: _Edge) -> Formula:
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

