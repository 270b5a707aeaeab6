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
        self._expansions: dict[tuple[int, int, int], list[int]] = {}
        self._moves: dict[tuple[int, int, int], list[int]] = {}
        self._reduced: dict[int, int] = {}
        #: wall-clock deadline (time.monotonic) and the largest conjunction of
        #: move lists allowed, both checked while expanding (None: unlimited)
        self.deadline: float | None = None
        self.max_pairs: int | None = None

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
            if a == _T:
                inner = self.nodes[b]
                if inner[0] == "U" and inner[1] == _T:  # F F x = F x
                    return b
                if inner[0] == "R" and inner[1] == _F and self.nodes[inner[2]][:2] == ("U", _T):  # F G F x = G F x
                    return b
        elif op == "R":
            if b in (_T, _F) or a == _T:
                return b
            if a == _F:
                inner = self.nodes[b]
                if inner[0] == "R" and inner[1] == _F:  # G G x = G x
                    return b
                if inner[0] == "U" and inner[1] == _T and self.nodes[inner[2]][:2] == ("R", _F):  # G F G x = F G x
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

    def layout(self) -> None:
        """Fix how a move packs into one integer, once every AP and node exists:
        APs true now, APs false now, eventualities postponed, obligations next
        (a bit per node). Dominance is then one ``k & ~t`` per pair of moves."""
        self.n_aps = len(self.ap_bits)
        self.lit_mask = (1 << self.n_aps) - 1
        self.post_shift = 2 * self.n_aps
        self.post_mask = (1 << len(self.eventualities)) - 1
        self.next_shift = self.post_shift + len(self.eventualities)

    def unpack(self, move: int) -> tuple[int, int, int, int]:
        """(pos, neg, next-state bits, postponed) of a packed move."""
        return (
            move & self.lit_mask,
            (move >> self.n_aps) & self.lit_mask,
            move >> self.next_shift,
            (move >> self.post_shift) & self.post_mask,
        )

    def reduce(self, state: int) -> int:
        """Drop obligations another one already implies, so that equivalent
        states meet: ``x`` next to ``G x``, and ``y U x``/``y W x`` next to ``x``."""
        done = self._reduced.get(state)
        if done is not None:
            return done
        out = state
        for n in _bits(state):
            op, a, b = self.nodes[n]
            if op == "R" and a == _F and state >> b & 1:
                out &= ~(1 << b)
            elif op in ("U", "W") and state >> b & 1:
                out &= ~(1 << n)
        self._reduced[state] = out
        return out

    # expansion -------------------------------------------------------------
    def expand(self, state: int, forced_pos: int = 0, forced_neg: int = 0) -> list[int]:
        """The one-step expansions (packed moves, see :meth:`layout`) of
        ``state``, a bit set of obligations.

        Expansions are built per node and memoised, so states that share
        obligations share the work; a state's expansion is the conjunction of
        its members'. Moves that contradict the literals the current step
        forces (``forced_pos``/``forced_neg``) are cut at the leaves, and a move
        dominated by another (weaker literals, fewer obligations, fewer
        postponements) is dropped: whatever run takes it could take the other,
        since a state's words are exactly those satisfying all its obligations."""
        key = (state, forced_pos, forced_neg)
        done = self._expansions.get(key)
        if done is None:
            done = [0]
            for n in _bits(state):
                done = self._merge(done, self._node_moves(n, forced_pos, forced_neg))
                if not done:
                    break
            self._expansions[key] = done
        return done

    def _node_moves(self, n: int, fpos: int, fneg: int) -> list[int]:
        key = (n, fpos, fneg)
        done = self._moves.get(key)
        if done is not None:
            return done
        op, a, b = self.nodes[n]
        if op == "1":
            moves = [0]
        elif op == "0":
            moves = []
        elif op == "ap":
            moves = [] if fneg >> a & 1 else [1 << a]
        elif op == "nap":
            moves = [] if fpos >> a & 1 else [1 << (self.n_aps + a)]
        elif op == "X":
            moves = [1 << (self.next_shift + a)]
        else:
            ma, mb = self._node_moves(a, fpos, fneg), self._node_moves(b, fpos, fneg)
            if op == "&":
                moves = self._merge(ma, mb)
            elif op == "|":
                moves = _undominated(dict.fromkeys(ma + mb))
            else:
                later = 1 << (self.next_shift + n)
                if op in ("U", "M"):
                    later |= 1 << (self.post_shift + self.eventualities[n])
                if op in ("U", "W"):  # b now, or a now and the same next
                    moves = _undominated(dict.fromkeys(mb + self._merge(ma, [later])))
                else:  # R, M: a and b now, or b now and the same next
                    moves = _undominated(dict.fromkeys(self._merge(ma, mb) + self._merge(mb, [later])))
        self._moves[key] = moves
        return moves

    def _merge(self, xs: Sequence[int], ys: Sequence[int]) -> list[int]:
        """The conjunction of two move lists: consistent pairs, undominated."""
        if self.max_pairs is not None and len(xs) * len(ys) > self.max_pairs:
            raise CheckLimitError(f"a tableau expansion needs more than {self.max_pairs} move pairs")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise CheckLimitError("trace check ran past its time limit")
        shift, lits = self.n_aps, self.lit_mask
        out: dict[int, None] = {}
        for x in xs:
            for y in ys:
                m = x | y
                if m & (m >> shift) & lits:
                    continue  # an AP both true and false
                out[m] = None
        return _undominated(out)


def _bits(state: int) -> list[int]:
    out = []
    while state:
        low = state & -state
        out.append(low.bit_length() - 1)
        state ^= low
    return out


def _undominated(moves: Iterable[int]) -> list[int]:
    """Moves no other move dominates (a dominating move's bits are a subset)."""
    kept: list[int] = []
    for t in sorted(moves, key=int.bit_count):
        for k in kept:
            if not k & ~t:
                break
        else:
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
) -> tuple[list[tuple[int, int]], list[list[_Edge]]]:
    """Every product node reachable from (position 0, {root}), with its edges."""
    start = (0, 1 << root)
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
        for move in tableau.expand(state, fpos, fneg):
            pos, neg, nxt, post = tableau.unpack(move)
            if steps.model(p, pos, neg) is None:
                continue
            target = (q, tableau.reduce(nxt))
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
def _limited(tableau: _Tableau, deadline: float | None, max_states: int | None) -> _Tableau:
    """Bound the tableau's work: the deadline, and (with a state limit) the size
    of any one expansion, which grows exponentially in the worst case."""
    tableau.deadline = deadline
    tableau.max_pairs = max_states
    return tableau


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
    tableau = _limited(_Tableau(), deadline, max_states)
    for name in formula.aps():
        tableau.bit(name)
    root = tableau.nnf(formula, neg=True)
    steps = _Steps(trace, tableau)
    tableau.layout()
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
    tableau = _limited(_Tableau(), deadline, max_states)
    for name in formula.aps():
        tableau.bit(name)
    root = tableau.nnf(formula)
    steps = _Steps(Trace((), (TRUE,)), tableau)
    tableau.layout()
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

