"""The formula automaton: ``!phi`` (or ``phi``) in negation normal form and
its one-step expansions, built on the fly.

:class:`Tableau` hash-conses NNF nodes ``(op, a, b)`` over ``& | X U R W M``
(constants folded, ``->``, ``<->`` and ``xor`` expanded over shared
subformulas) and expands a set of obligations into its *moves*: literals now,
obligations next, eventualities postponed, packed into one integer, with
dominated moves dropped. Steps 1 and 2 of :mod:`.check`'s method.

Part of the frontends layer: imports the LTL formula and :mod:`.limits` only;
must not import the trace side of the checker (:mod:`.steps`, :mod:`.product`)
nor anything above the frontends layer.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from .formula import Formula
from .limits import GRAIN, UNLIMITED, Budget, CheckLimitError, slices


_T, _F = 0, 1  # node ids of true and false
#: ``&`` and ``|``: (the constant that decides it, the constant it ignores)
_JUNCTIONS = {"&": (_F, _T), "|": (_T, _F)}
#: ``U`` and ``R``: (the dual, the left operand that makes it ``F x`` or ``G x``,
#: the left operand that makes it its right one)
_UNTILS = {"U": ("R", _T, _F), "R": ("U", _F, _T)}
#: ``W`` and ``M``: (the constant either operand makes it, the left operand
#: that makes it its right one, the operator it becomes, with that left
#: operand, when the right one is that same constant: ``x W 0`` is ``G x``,
#: ``x M 1`` is ``F x``)
_WEAKS = {"W": (_T, _F, "R"), "M": (_F, _T, "U")}


class Tableau:
    """Hash-consed NNF nodes ``(op, a, b)`` and their one-step expansions."""

    def __init__(self, budget: Budget = UNLIMITED, max_pairs: int | None = None) -> None:
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
        """Make a node, folding constants so that obligations stay small
        (:meth:`_folded`); ``&`` and ``|`` keep their operands in order."""
        folded = self._folded(op, a, b)
        if folded is not None:
            return folded
        if op in _JUNCTIONS:
            a, b = min(a, b), max(a, b)
        key = (op, a, b)
        node = self.ids.get(key)
        if node is None:
            node = len(self.nodes)
            self.nodes.append(key)
            self.ids[key] = node
            if op in ("U", "M"):
                self.eventualities[node] = len(self.eventualities)
        return node

    def _folded(self, op: str, a: int, b: int) -> int | None:
        """The node ``(op, a, b)`` simplifies to, or None when it is its own."""
        if op in _JUNCTIONS:
            decides, ignored = _JUNCTIONS[op]
            if a == decides or b == decides:
                return decides
            if a == ignored or a == b:
                return b
            if b == ignored:
                return a
        elif op == "X":
            if a in (_T, _F):
                return a
        elif op in _UNTILS:
            return self._folded_until(op, a, b)
        elif op in _WEAKS:
            top, unit, always = _WEAKS[op]
            if b == top or a == top:
                return top
            if a == unit:
                return b
            if b == unit:
                return self.mk(always, unit, a)
        return None

    def _folded_until(self, op: str, a: int, b: int) -> int | None:
        """``U``/``R`` with a constant operand, or one that says no more than
        its right operand: ``F F x``, ``F G F x`` (and ``G G x``, ``G F G x``)."""
        dual, unary, void = _UNTILS[op]
        if b in (_T, _F) or a == void:
            return b
        if a == unary:
            inner = self.nodes[b]
            if inner[:2] == (op, unary):  # F F x = F x
                return b
            if inner[:2] == (dual, void) and self.nodes[inner[2]][:2] == (op, unary):  # F G F x = G F x
                return b
        return None

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
        for n in bits(state):
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
            for n in bits(state):
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
            raise CheckLimitError(
                f"over the state limit: a tableau expansion needs more than {self.max_pairs} move pairs"
            )
        budget = self.budget
        shift, lits = self.n_aps, self.lit_mask
        out: dict[int, None] = {}
        work = 0
        parts = slices(ys)
        for x in xs:
            for part in parts:
                work += len(part) + 1
                if work > GRAIN:
                    budget.spend(work)
                    work = 0
                for y in part:
                    m = x | y
                    if m & (m >> shift) & lits:
                        continue  # an AP both true and false
                    out[m] = None
        budget.spend(work)
        return _undominated(out, budget)


def bits(state: int) -> list[int]:
    out = []
    while state:
        low = state & -state
        out.append(low.bit_length() - 1)
        state ^= low
    return out


#: node kinds whose moves are built from their two operands' moves
_COMPOSITE = frozenset({"&", "|", "U", "R", "W", "M"})


def _undominated(moves: Iterable[int], budget: Budget = UNLIMITED) -> list[int]:
    """Moves no other move dominates (a dominating move's bits are a subset),
    in order of their number of bits.

    ``moves`` holds no duplicates, so only a move with fewer bits can
    dominate another: moves are grouped by bit count and each is compared
    with the smaller groups' survivors only."""
    groups: dict[int, list[int]] = {}
    for part in slices(list(moves)):
        budget.spend(len(part))
        for t in part:
            groups.setdefault(t.bit_count(), []).append(t)
    if len(groups) <= 1:
        return next(iter(groups.values()), [])
    kept: list[int] = []
    work = 0
    for count in sorted(groups):
        survivors = []
        parts = slices(kept)
        for t in groups[count]:
            nt = ~t
            dominated = False
            for part in parts:
                work += len(part) + 1
                if work > GRAIN:
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
