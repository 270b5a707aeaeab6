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
from typing import Iterable, Iterator, Sequence

from ...errors import InvarError
from .formula import TRUE, Formula, ap, conj, negate
from .trace import Trace

__all__ = ["CheckResult", "CheckLimitError", "check", "satisfying_trace", "evaluate_step"]


class CheckLimitError(InvarError):
    """The product grew past ``max_states`` or the deadline passed."""


#: units of work (a move compared, a node expanded …) between two looks at the clock
_GRAIN = 2048


class _Budget:
    """The wall-clock deadline of one check, looked at every :data:`_GRAIN`
    units of work. Every loop whose length depends on the input spends from
    it, so a check stops within one grain of its deadline wherever it is; the
    work itself is unchanged, so whatever finishes is exact."""

    __slots__ = ("timeout", "deadline", "left")

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.left = _GRAIN

    def spend(self, work: int = 1) -> None:
        self.left -= work
        if self.left <= 0:
            self.left = _GRAIN
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise CheckLimitError(f"over the time limit: trace check ran past {self.timeout:g} s")


#: no deadline (library callers that set no timeout)
_UNLIMITED = _Budget(None)


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

    def __init__(self, budget: _Budget = _UNLIMITED, max_pairs: int | None = None) -> None:
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
        #: the check's deadline, and the largest conjunction of move lists
        #: allowed (None: unlimited), both checked while expanding
        self.budget = budget
        self.max_pairs = max_pairs

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
        """The node for ``f`` (``!f`` when ``neg``) in negation normal form.

        Each subformula's translation is a generator that asks for its
        operands' nodes; they run from an explicit stack, so nesting depth
        never meets the recursion limit, and in the order a recursive
        translation would, so nodes get the same numbers (and every later
        order, down to the traces a dataset holds, stays the same)."""
        memo = self._nnf
        if (f, neg) in memo:
            return memo[(f, neg)]
        stack = [((f, neg), self._nnf_steps(f, neg))]
        value: int | None = None
        while stack:
            key, steps = stack[-1]
            try:
                wanted = steps.send(value)
            except StopIteration as done:
                stack.pop()
                memo[key] = value = done.value
                continue
            value = memo.get(wanted)
            if value is None:
                self.budget.spend()
                stack.append((wanted, self._nnf_steps(*wanted)))
        return memo[(f, neg)]

    def _nnf_steps(self, f: Formula, neg: bool) -> Iterator[tuple[Formula, bool]]:
        """Translate ``f`` (negated when ``neg``): yields each (operand,
        negated) whose node it needs and receives that node."""
        o = f.op
        if o == "ap":
            return self.mk("nap" if neg else "ap", self.bit(f.name))
        if o == "1":
            return _F if neg else _T
        if o == "0":
            return _T if neg else _F
        if o == "!":
            return (yield (f.args[0], not neg))
        if o == "X":
            return self.mk("X", (yield (f.args[0], neg)))
        if o == "F":
            if neg:
                return self.mk("R", _F, (yield (f.args[0], True)))
            return self.mk("U", _T, (yield (f.args[0], False)))
        if o == "G":
            if neg:
                return self.mk("U", _T, (yield (f.args[0], True)))
            return self.mk("R", _F, (yield (f.args[0], False)))
        x, y = f.args
        if o == "&" or o == "|":
            dual = {"&": "|", "|": "&"}[o] if neg else o
            return self.mk(dual, (yield (x, neg)), (yield (y, neg)))
        if o == "->":
            if neg:
                return self.mk("&", (yield (x, False)), (yield (y, True)))
            return self.mk("|", (yield (x, True)), (yield (y, False)))
        if o in ("<->", "xor"):
            if (o == "<->") != neg:  # the formula says "x and y agree"
                both = self.mk("&", (yield (x, False)), (yield (y, False)))
                neither = self.mk("&", (yield (x, True)), (yield (y, True)))
                return self.mk("|", both, neither)
            first = self.mk("&", (yield (x, False)), (yield (y, True)))
            second = self.mk("&", (yield (x, True)), (yield (y, False)))
            return self.mk("|", first, second)
        if o in ("U", "R", "W", "M"):
            dual = {"U": "R", "R": "U", "W": "M", "M": "W"}[o] if neg else o
            return self.mk(dual, (yield (x, neg)), (yield (y, neg)))
        raise ValueError(f"unknown operator {o!r}")  # pragma: no cover - the parsers only build the above

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
        """The moves of node ``n`` alone, its operands' moves first (from an
        explicit stack: obligations nest as deep as the formula)."""
        memo = self._moves
        todo = [n]
        while todo:
            m = todo[-1]
            if (m, fpos, fneg) in memo:
                todo.pop()
                continue
            op, a, b = self.nodes[m]
            if op in _COMPOSITE:
                missing = [c for c in (a, b) if (c, fpos, fneg) not in memo]
                if missing:
                    todo += missing
                    continue
            todo.pop()
            self.budget.spend()
            memo[(m, fpos, fneg)] = self._moves_of(m, fpos, fneg)
        return memo[(n, fpos, fneg)]

    def _moves_of(self, n: int, fpos: int, fneg: int) -> list[int]:
        op, a, b = self.nodes[n]
        if op == "1":
            return [0]
        if op == "0":
            return []
        if op == "ap":
            return [] if fneg >> a & 1 else [1 << a]
        if op == "nap":
            return [] if fpos >> a & 1 else [1 << (self.n_aps + a)]
        if op == "X":
            return [1 << (self.next_shift + a)]
        ma, mb = self._moves[(a, fpos, fneg)], self._moves[(b, fpos, fneg)]
        if op == "&":
            return self._merge(ma, mb)
        if op == "|":
            return _undominated(dict.fromkeys(ma + mb), self.budget)
        later = 1 << (self.next_shift + n)
        if op in ("U", "M"):
            later |= 1 << (self.post_shift + self.eventualities[n])
        if op in ("U", "W"):  # b now, or a now and the same next
            return _undominated(dict.fromkeys(mb + self._merge(ma, [later])), self.budget)
        # R, M: a and b now, or b now and the same next
        return _undominated(dict.fromkeys(self._merge(ma, mb) + self._merge(mb, [later])), self.budget)

    def _merge(self, xs: Sequence[int], ys: Sequence[int]) -> list[int]:
        """The conjunction of two move lists: consistent pairs, undominated."""
        if self.max_pairs is not None and len(xs) * len(ys) > self.max_pairs:
            raise CheckLimitError(f"over the state limit: a tableau expansion needs more than {self.max_pairs} move pairs")
        budget = self.budget
        shift, lits = self.n_aps, self.lit_mask
        out: dict[int, None] = {}
        work = 0
        parts = _parts(ys)
        for x in xs:
            for part in parts:
                work += len(part) + 1
                if work > _GRAIN:
                    budget.spend(work)
                    work = 0
                for y in part:
                    m = x | y
                    if m & (m >> shift) & lits:
                        continue  # an AP both true and false
                    out[m] = None
        budget.spend(work)
        return _undominated(out, budget)


def _parts(xs: Sequence[int]) -> Sequence[Sequence[int]]:
    """``xs`` in slices of at most :data:`_GRAIN` items, so that a loop over
    a long list still looks at the clock (one slice, ``xs`` itself, usually)."""
    if len(xs) <= _GRAIN:
        return (xs,)
    return [xs[i : i + _GRAIN] for i in range(0, len(xs), _GRAIN)]


def _bits(state: int) -> list[int]:
    out = []
    while state:
        low = state & -state
        out.append(low.bit_length() - 1)
        state ^= low
    return out


#: node kinds whose moves are built from their two operands' moves
_COMPOSITE = frozenset({"&", "|", "U", "R", "W", "M"})


def _undominated(moves: Iterable[int], budget: _Budget = _UNLIMITED) -> list[int]:
    """Moves no other move dominates (a dominating move's bits are a subset),
    in order of their number of bits.

    ``moves`` holds no duplicates, so only a move with fewer bits can
    dominate another: moves are grouped by bit count and each is compared
    with the smaller groups' survivors only."""
    groups: dict[int, list[int]] = {}
    for part in _parts(list(moves)):
        budget.spend(len(part))
        for t in part:
            groups.setdefault(t.bit_count(), []).append(t)
    if len(groups) <= 1:
        return next(iter(groups.values()), [])
    kept: list[int] = []
    work = 0
    for count in sorted(groups):
        survivors = []
        parts = _parts(kept)
        for t in groups[count]:
            nt = ~t
            dominated = False
            for part in parts:
                work += len(part) + 1
                if work > _GRAIN:
                    budget.spend(work)
                    work = 0
                for k in part:
                    if not k & nt:
                        dominated = True
                        break
                if dominated:
                    break
            if not dominated:
                survivors.append(t)
        kept += survivors
    budget.spend(work)
    return kept


# ------------------------------------------------------------- trace steps
#: a propositional step compiled for evaluation: instructions in post-order,
#: ``(op, a, b)`` with ``a`` the AP's bit for ``ap`` and otherwise ``a``/``b``
#: the indices of the operands' instructions
_Circuit = list[tuple[str, int, int]]
_PROPOSITIONAL = frozenset({"ap", "1", "0", "!", "&", "|", "->", "<->", "xor"})


def _circuit(step: Formula, bit) -> _Circuit:
    """``step`` as a :data:`_Circuit`, APs numbered by ``bit(name)``."""
    code: _Circuit = []
    values: list[int] = []  # instruction indices of the finished operands
    todo = [(step, False)]
    while todo:
        f, ready = todo.pop()
        o = f.op
        if o not in _PROPOSITIONAL:
            raise ValueError(f"temporal operator {o!r} in a trace step")
        if o == "ap" or o in ("1", "0"):
            values.append(len(code))
            code.append((o, bit(f.name) if o == "ap" else -1, -1))
        elif not ready:
            todo.append((f, True))
            todo.extend((a, False) for a in reversed(f.args))
        elif o == "!":
            a = values.pop()
            values.append(len(code))
            code.append(("!", a, -1))
        else:
            b, a = values.pop(), values.pop()
            values.append(len(code))
            code.append((o, a, b))
    return code


def _value(code: _Circuit, true: int, false: int) -> bool | None:
    """The circuit's value when the APs in ``true`` hold and those in
    ``false`` do not; None when that depends on the APs in neither."""
    v: list[bool | None] = []
    for o, a, b in code:
        if o == "ap":
            r = True if true >> a & 1 else (False if false >> a & 1 else None)
        elif o == "1":
            r = True
        elif o == "0":
            r = False
        elif o == "!":
            x = v[a]
            r = None if x is None else not x
        else:
            x, y = v[a], v[b]
            if o == "&":
                r = False if x is False or y is False else (True if x and y else None)
            elif o == "|":
                r = True if x is True or y is True else (False if x is False and y is False else None)
            elif o == "->":
                r = True if x is False or y is True else (False if x is True and y is False else None)
            elif x is None or y is None:
                r = None
            else:
                r = (x == y) if o == "<->" else (x != y)
        v.append(r)
    return v[-1]


def evaluate_step(step: Formula, true_aps: frozenset[str] | set[str]) -> bool:
    """The truth of a propositional step formula under one valuation."""
    names = step.aps()
    bits = {n: k for k, n in enumerate(names)}
    true = sum(1 << k for n, k in bits.items() if n in true_aps)
    return bool(_value(_circuit(step, bits.__getitem__), true, ~true))


def _cube(step: Formula) -> tuple[list[str], list[str], bool] | None:
    """(APs it makes true, APs it makes false, satisfiable as far as constants
    go) when ``step`` is a conjunction of literals and constants, else None.
    Trace steps almost always are, and their one model needs no search."""
    pos: list[str] = []
    neg: list[str] = []
    sat = True
    todo = [step]
    while todo:
        f = todo.pop()
        o = f.op
        if o == "&":
            todo.extend(f.args)
        elif o == "ap":
            pos.append(f.name)
        elif o == "1" or o == "0":
            sat = sat and o == "1"
        elif o == "!" and f.args[0].op in ("ap", "1", "0"):
            inner = f.args[0]
            if inner.op == "ap":
                neg.append(inner.name)
            else:
                sat = sat and inner.op == "0"
        else:
            return None
    return pos, neg, sat


#: a step that is not a conjunction of literals has its models listed up to
#: this many APs; a larger one is searched for a model per question
_LISTED = 12


class _Steps:
    """The trace's step formulas compiled against the tableau's AP bits."""

    def __init__(self, trace: Trace, tableau: _Tableau, budget: _Budget = _UNLIMITED) -> None:
        self.trace = trace
        self.budget = budget
        self.n = len(trace.prefix) + len(trace.cycle)
        self.masks: list[int] = []
        #: every model of a step (masks of true APs over its APs), or None
        #: when the step is searched instead (:attr:`circuits`)
        self.models: list[list[int] | None] = []
        self.circuits: list[_Circuit | None] = []
        #: literals every model of the step agrees on (what it forces; a
        #: searched step forces nothing, which only costs pruning)
        self.forced: list[tuple[int, int]] = []
        for step in trace.steps:
            budget.spend()
            # APs get their bits in order of first appearance, which fixes
            # the order of moves and so the counterexample found
            names = step.aps()
            mask = _mask(tableau, names)
            cube = _cube(step)
            code: _Circuit | None = None
            if cube is not None:
                pos = _mask(tableau, cube[0])
                neg = _mask(tableau, cube[1])
                ms: list[int] | None = [pos] if cube[2] and not pos & neg else []
            else:
                code = _circuit(step, tableau.bit)
                ms = self._listed(code, [tableau.bit(n) for n in names]) if len(names) <= _LISTED else None
            self.masks.append(mask)
            self.models.append(ms)
            self.circuits.append(code)
            if ms:
                always, never = mask, mask
                for m in ms:
                    always &= m
                    never &= ~m
                self.forced.append((always, never))
            else:
                self.forced.append((0, 0))
        self._memo: dict[tuple[int, int, int], int | None] = {}

    def _listed(self, code: _Circuit, bits: list[int]) -> list[int]:
        out = []
        for m in range(1 << len(bits)):
            self.budget.spend(len(code))
            true = sum(1 << b for k, b in enumerate(bits) if m >> k & 1)
            if _value(code, true, ~true):
                out.append(true)
        return out

    def model(self, p: int, pos: int, neg: int) -> int | None:
        """A model (mask of true APs over the step's APs) of step ``p`` that
        agrees with the literals ``pos``/``neg``, or None."""
        vm = self.masks[p]
        key = (p, pos & vm, neg & vm)
        if key in self._memo:
            return self._memo[key]
        want, avoid = key[1], key[2]
        models = self.models[p]
        if models is None:
            found = self._search(p, want, avoid)
        else:
            found = next((m for m in models if m & want == want and not m & avoid), None)
        self._memo[key] = found
        return found

    def _search(self, p: int, want: int, avoid: int) -> int | None:
        """Depth-first search for a model of a large step: each AP in turn
        true then false, cut as soon as the step's value is decided."""
        code = self.circuits[p]
        assert code is not None
        free = _bits(self.masks[p] & ~want & ~avoid)
        todo = [(0, want, avoid)]
        while todo:
            self.budget.spend(len(code))
            k, true, false = todo.pop()
            value = _value(code, true, false)
            if value is False:
                continue
            if value is True:
                return true & self.masks[p]
            b = free[k]  # undecided, so some AP is still free
            todo.append((k + 1, true, false | 1 << b))
            todo.append((k + 1, true | 1 << b, false))
        return None


def _mask(tableau: _Tableau, names: Iterable[str]) -> int:
    out = 0
    for name in names:
        out |= 1 << tableau.bit(name)
    return out


# ------------------------------------------------------------------ search
#: one product edge: (target node, acceptance marks, trace position, pos, neg)
_Edge = tuple[int, int, int, int, int]


def _explore(
    tableau: _Tableau, root: int, steps: _Steps, max_states: int | None
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
        edges: list[_Edge] = []
        q = steps.trace.successor(p)
        fpos, fneg = steps.forced[p]
        moves = tableau.expand(state, fpos, fneg)
        tableau.budget.spend()
        for i, move in enumerate(moves):
            if i & 255 == 255:
                tableau.budget.spend(256)
            pos, neg, nxt, post = tableau.unpack(move)
            if steps.model(p, pos, neg) is None:
                continue
            target = (q, tableau.reduce(nxt))
            t = index.get(target)
            if t is None:
                t = index[target] = len(nodes)
                nodes.append(target)
                if max_states is not None and len(nodes) > max_states:
                    raise CheckLimitError(f"over the state limit: trace check explored more than {max_states} product states")
            edges.append((t, post, p, pos, neg))
        adj.append(edges)
    return nodes, adj


def _sccs(adj: Sequence[Sequence[_Edge]], budget: _Budget = _UNLIMITED) -> list[list[int]]:
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
            budget.spend()
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


def _accepting_lasso(
    adj: Sequence[Sequence[_Edge]], n_marks: int, budget: _Budget = _UNLIMITED
) -> tuple[list[_Edge], list[_Edge]] | None:
    """An accepting lasso (prefix edges from node 0, cycle edges) or None.

    Marks on edges are *postponed* eventualities; a cycle is accepting when,
    for every eventuality, one of its edges does not postpone it."""
    full = (1 << n_marks) - 1
    for comp in _sccs(adj, budget):
        members = set(comp)
        covered = 0  # eventualities some internal edge does not postpone
        internal = False
        for v in comp:
            budget.spend(len(adj[v]) + 1)
            for e in adj[v]:
                if e[0] in members:
                    internal = True
                    covered |= full & ~e[1]
        if internal and covered == full:
            return _lasso_through(adj, members, full, budget)
    return None


def _bfs(
    adj: Sequence[Sequence[_Edge]], sources: Iterable[int], goal, within: set[int] | None, budget: _Budget
) -> list[tuple[int, _Edge]]:
    """Shortest edge path from a source to an edge ``e`` leaving node ``v`` with
    ``goal(v, e)``; returns ``[(from_node, edge), …]`` ending with that edge."""
    parent: dict[int, tuple[int, _Edge] | None] = {}
    queue: deque[int] = deque()
    for s in sources:
        parent[s] = None
        queue.append(s)
    while queue:
        v = queue.popleft()
        budget.spend(len(adj[v]) + 1)
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


def _lasso_through(
    adj: Sequence[Sequence[_Edge]], comp: set[int], full: int, budget: _Budget
) -> tuple[list[_Edge], list[_Edge]]:
    if 0 in comp:
        prefix: list[_Edge] = []
        entry = 0
    else:
        path = _bfs(adj, [0], lambda v, e: e[0] in comp, None, budget)
        prefix = [e for _, e in path]
        entry = prefix[-1][0]
    cycle: list[_Edge] = []
    here = entry
    missing = full
    while missing:
        path = _bfs(adj, [here], lambda v, e, m=missing: bool(m & ~e[1]), comp, budget)
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
            path = _bfs(adj, [here], lambda v, e: e[0] == entry, comp, budget)
            cycle.extend(e for _, e in path)
    return prefix, cycle


# -------------------------------------------------------------- public API
def _tableau(formula: Formula, budget: _Budget, max_states: int | None) -> _Tableau:
    """A tableau for ``formula``'s APs whose work is bounded by the deadline
    and, with a state limit, by the size of any one expansion (which grows
    exponentially in the worst case)."""
    tableau = _Tableau(budget, max_states)
    for name in formula.aps():
        tableau.bit(name)
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
    budget = _Budget(timeout)
    tableau = _tableau(formula, budget, max_states)
    root = tableau.nnf(formula, neg=True)
    steps = _Steps(trace, tableau, budget)
    tableau.layout()
    nodes, adj = _explore(tableau, root, steps, max_states)
    lasso = _accepting_lasso(adj, len(tableau.eventualities), budget)
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
    budget = _Budget(timeout)
    tableau = _tableau(formula, budget, max_states)
    root = tableau.nnf(formula)
    steps = _Steps(Trace((), (TRUE,)), tableau, budget)
    tableau.layout()
    _, adj = _explore(tableau, root, steps, max_states)
    lasso = _accepting_lasso(adj, len(tableau.eventualities), budget)
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

