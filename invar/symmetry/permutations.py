"""Exact counting, enumeration and uniform sampling of permutations.

A line order keeps a program's meaning exactly when it is a *linear extension*
of the dependency order: every pair ``(i, j)`` of ``Program.deps`` still has
``i`` before ``j``. The DLG layer test (same layer => swappable) is only a proxy:
in ``x = 1`` / ``y = x`` / ``z = 2`` the order ``z`` / ``y`` / ``x`` keeps every
line in its layer and breaks the program. This module is exact.

Structure
---------
Lines reorder only within their block (``Line.block``; a negative block never
moves) and carry their body along (the run of following deeper lines,
``Line.depth``). A **group** is a maximal run of consecutive lines of one block
at one depth whose bodies tile the run without gaps; its **units** are those
lines with their bodies. Anything else (a line of another block at the same
depth, a negative-block line) is a barrier that nothing crosses, so a line that
must travel with a header (a closing brace, an ``else:``) has to be deeper than
the header. A dependency between lines of two units of one group orders the
units. The space is the product over groups, so nested blocks reorder
independently, each inside its unit.

Counting
--------
Within a group the units split into connected components of their dependency
graph; a linear extension of the group is an interleaving of linear
extensions of its components, so

    count(group) = multinomial(k; |C_1|, …, |C_m|) · Π count(C_i).

Each component is counted by a dynamic program over its **down-sets** (sets of
units closed under predecessors, stored as bit masks): the number of ways to
finish from down-set ``S`` is the sum over the units that may come next.
The table has one entry per down-set, which is small for narrow posets and
exponential in the width. When a component has more than ``max_states``
down-sets the exact count is refused (:class:`IntractableError`) and
:meth:`PermutationSpace.bounds` gives

* a lower bound Π |L|! over the DLG layers ``L`` of the component (placing the
  layers one after another, each in any order, always respects the edges), and
* an upper bound k! / Π |C|! over a minimum chain partition (Dilworth): the
  order inside each chain is forced, so an extension is fixed by which chain
  each position draws from.

Enumeration order
-----------------
Lexicographic over the concatenated unit sequences of the groups, groups taken
in order of their first line (an outer block before the blocks nested in it),
each group's units named by their original index. The original order is
always first (index 0). ``rank``/``unrank`` follow this order exactly.

Sampling
--------
When every component is tractable, ``sample`` draws an integer below
``count()`` uniformly and unranks it: exactly uniform. Otherwise the tractable
components are still drawn exactly, the interleaving of components is drawn
exactly (a uniform shuffle of component labels), and each intractable
component is drawn by the Bubley–Dyer chain: from the current linear
extension of ``k`` units, pick adjacent positions ``(p, p + 1)``,
``p = 1 … k − 1``, with probability proportional to ``p (k − p)``; with
probability 1/2 do nothing, else swap the two units when they are
incomparable. The chain is symmetric, so its stationary law is uniform;
Bubley and Dyer (Discrete Math. 201, 1999) show by path coupling that it is
within total variation ``ε`` of uniform after ``O(k³ log(k/ε))`` steps. We run
``⌈(k³ − k)/3 · ln(k²/(4ε))⌉`` steps (``ε`` = :data:`MIXING_EPSILON`) before
the first draw and again between draws.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterator, Sequence

from ..errors import SpaceError
from ..program import Program

#: most down-sets a component's counting table may hold before the exact count is refused
DEFAULT_MAX_STATES = 1 << 18
#: total-variation distance the Markov chain is run to (see the module docstring)
MIXING_EPSILON = 1e-3


class IntractableError(SpaceError):
    """The exact count (or rank) needs more down-sets than allowed.

    ``lower`` and ``upper`` bound the true count."""

    def __init__(self, message: str, lower: int, upper: int) -> None:
        super().__init__(message)
        self.lower = lower
        self.upper = upper


@dataclass(frozen=True, slots=True)
class Permutation:
    """One permutation: ``order[new] = old`` over every line of the program
    (the convention of :meth:`Program.reordered`)."""

    #: original index of the line now at each position
    order: tuple[int, ...]

    @property
    def is_identity(self) -> bool:
        return all(new == old for new, old in enumerate(self.order))

    @property
    def inverse(self) -> tuple[int, ...]:
        """``inverse[old] = new``: where each original line went."""
        inv = [0] * len(self.order)
        for new, old in enumerate(self.order):
            inv[old] = new
        return tuple(inv)


def _bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _multinomial(sizes: Sequence[int]) -> int:
    total, out = 0, 1
    for s in sizes:
        total += s
        out *= math.comb(total, s)
    return out


class _TooWide(Exception):
    pass


class _Component:
    """A connected poset of ``k`` units, local indices in original order.

    ``pred[u]`` is the bit mask of the units that must precede ``u``."""

    def __init__(self, pred: Sequence[int], max_states: int) -> None:
        self.k = len(pred)
        self.pred = tuple(pred)
        self.succ = tuple(tuple(v for v in range(self.k) if pred[v] >> u & 1) for u in range(self.k))
        self.max_states = max_states
        self._table: dict[int, int] | None = None
        self._too_wide = False

    # ------------------------------------------------------- down-set table
    def table(self) -> dict[int, int]:
        """``table[S]`` = ways to finish from down-set ``S``; raises _TooWide."""
        if self._table is None:
            if self._too_wide:
                raise _TooWide
            try:
                self._table = self._build()
            except _TooWide:
                self._too_wide = True
                raise
        return self._table

    @property
    def tractable(self) -> bool:
        try:
            self.table()
        except _TooWide:
            return False
        return True

    def _build(self) -> dict[int, int]:
        k, pred, succ = self.k, self.pred, self.succ
        # forward, level by level: each down-set with the units that may come next
        level = {0: sum(1 << u for u in range(k) if not pred[u])}
        levels = [level]
        states = 1
        for _ in range(k):
            nxt: dict[int, int] = {}
            for down, avail in level.items():
                for u in _bits(avail):
                    grown = down | (1 << u)
                    if grown in nxt:
                        continue
                    new_avail = avail & ~(1 << u)
                    for v in succ[u]:
                        if not pred[v] & ~grown:
                            new_avail |= 1 << v
                    nxt[grown] = new_avail
            states += len(nxt)
            if states > self.max_states:
                raise _TooWide
            levels.append(nxt)
            level = nxt
        # backward: completions of each down-set
        full = (1 << k) - 1
        ways = {full: 1}
        for level in reversed(levels[:-1]):
            for down, avail in level.items():
                ways[down] = sum(ways[down | (1 << u)] for u in _bits(avail))
        return ways

    def count(self) -> int:
        return self.table()[0]

    # --------------------------------------------------------------- bounds
    def bounds(self) -> tuple[int, int]:
        """(lower, upper) bounds on the number of linear extensions."""
        if self.tractable:
            c = self.count()
            return c, c
        layer = [0] * self.k
        for v in range(self.k):  # local order is a topological order
            for u in _bits(self.pred[v]):
                layer[v] = max(layer[v], layer[u] + 1)
        sizes: dict[int, int] = {}
        for h in layer:
            sizes[h] = sizes.get(h, 0) + 1
        lower = math.prod(math.factorial(s) for s in sizes.values())
        upper = _multinomial(self._chain_partition())
        return lower, upper

    def descendants(self) -> tuple[int, ...]:
        """``desc[u]``: mask of the units that must follow ``u`` (transitive)."""
        desc = [0] * self.k
        for u in reversed(range(self.k)):
            for v in self.succ[u]:
                desc[u] |= (1 << v) | desc[v]
        return tuple(desc)

    def _chain_partition(self) -> list[int]:
        """Sizes of a minimum chain partition (Dilworth, by bipartite matching
        on the comparability relation: chains = k − maximum matching)."""
        desc = self.descendants()
        match_of: dict[int, int] = {}  # right vertex -> left vertex

        def augment(u: int, seen: set[int]) -> bool:
            for v in _bits(desc[u]):
                if v in seen:
                    continue
                seen.add(v)
                if v not in match_of or augment(match_of[v], seen):
                    match_of[v] = u
                    return True
            return False

        try:
            for u in range(self.k):
                augment(u, set())
        except RecursionError:  # very long augmenting paths: any chain partition still bounds
            return self._greedy_chains(desc)
        nxt = {u: v for v, u in match_of.items()}
        heads = [u for u in range(self.k) if u not in match_of]
        sizes = []
        for h in heads:
            n = 1
            while h in nxt:
                h = nxt[h]
                n += 1
            sizes.append(n)
        return sizes

    def _greedy_chains(self, desc: Sequence[int]) -> list[int]:
        """Sizes of a chain partition built greedily (not minimum, still a bound)."""
        left = set(range(self.k))
        sizes = []
        while left:
            u: int | None = min(left)
            size = 0
            while u is not None:
                left.discard(u)
                size += 1
                u = next((v for v in _bits(desc[u]) if v in left), None)
            sizes.append(size)
        return sizes

    # -------------------------------------------------------- Markov chain
    def chain_steps(self, epsilon: float = MIXING_EPSILON) -> int:
        """Steps of the Bubley–Dyer chain run before each draw."""
        k = self.k
        if k < 2:
            return 0
        return math.ceil((k**3 - k) / 3 * math.log(max(k * k / (4 * epsilon), 2.0)))

    def run_chain(self, state: list[int], steps: int, rng: random.Random) -> None:
        """Advance the Bubley–Dyer chain ``steps`` steps from ``state`` in place."""
        k = self.k
        if k < 2:
            return
        desc = self.descendants()
        positions = list(range(k - 1))
        cum = list(accumulate((p + 1) * (k - 1 - p) for p in range(k - 1)))
        batch = 1 << 14
        done = 0
        while done < steps:
            m = min(batch, steps - done)
            picks = rng.choices(positions, cum_weights=cum, k=m)
            coins = rng.getrandbits(m)
            for p in picks:
                if coins & 1:
                    x, y = state[p], state[p + 1]
                    if not desc[x] >> y & 1:
                        state[p], state[p + 1] = y, x
                coins >>= 1
            done += m


class _Group:
    """One reorderable run of units; see the module docstring."""

    def __init__(self, ranges: list[tuple[int, int]], pred: list[int], max_states: int) -> None:
        #: (start, end) line range of each unit, in original order
        self.ranges = ranges
        self.k = len(ranges)
        self.start, self.end = ranges[0][0], ranges[-1][1]
        self.pred = pred
        # connected components of the unit dependency graph (union-find)
        parent = list(range(self.k))

        def find(u: int) -> int:
            while parent[u] != u:
                parent[u] = parent[parent[u]]
                u = parent[u]
            return u

        for v in range(self.k):
            for u in _bits(pred[v]):
                parent[find(u)] = find(v)
        members: dict[int, list[int]] = {}
        for u in range(self.k):
            members.setdefault(find(u), []).append(u)
        self.members = sorted(members.values())
        self.comp_of = [0] * self.k
        self.local_of = [0] * self.k
        for c, units in enumerate(self.members):
            for i, u in enumerate(units):
                self.comp_of[u], self.local_of[u] = c, i
        self.components = []
        for units in self.members:
            local = {u: i for i, u in enumerate(units)}
            cpred = [sum(1 << local[w] for w in _bits(pred[u])) for u in units]
            self.components.append(_Component(cpred, max_states))

    @property
    def tractable(self) -> bool:
        return all(c.tractable for c in self.components)

    def _tables(self) -> list[dict[int, int]]:
        try:
            return [c.table() for c in self.components]
        except _TooWide:
            lower, upper = self.bounds()
            raise IntractableError(
                f"lines {self.start + 1}-{self.end}: too wide for an exact count "
                f"(more than {self.components[0].max_states} down-sets); "
                f"between {lower} and {upper} orders",
                lower,
                upper,
            ) from None

    def count(self) -> int:
        self._tables()
        return _multinomial([c.k for c in self.components]) * math.prod(c.count() for c in self.components)

    def bounds(self) -> tuple[int, int]:
        mult = _multinomial([c.k for c in self.components])
        pairs = [c.bounds() for c in self.components]
        return mult * math.prod(lo for lo, _ in pairs), mult * math.prod(hi for _, hi in pairs)

    def _available(self, placed: int) -> list[int]:
        return [u for u in range(self.k) if not placed >> u & 1 and not self.pred[u] & ~placed]

    def _walk(self, choose) -> tuple[int, ...]:
        """Build a unit sequence left to right. At each step ``choose`` gets the
        available units (increasing) with the number of completions after each
        and returns the pick; the completions follow the module's formula."""
        tables = self._tables()
        comps = self.components
        remaining = [c.k for c in comps]
        left = self.k
        local_placed = [0] * len(comps)
        cur = [t[0] for t in tables]
        prod_cur = math.prod(cur)
        mult = _multinomial(remaining)
        placed = 0
        seq = []
        for _ in range(self.k):
            options = []
            for u in self._available(placed):
                c = self.comp_of[u]
                after = tables[c][local_placed[c] | (1 << self.local_of[u])]
                ways = mult * remaining[c] // left * (prod_cur // cur[c]) * after
                options.append((u, ways))
            u = choose(options)
            c = self.comp_of[u]
            local_placed[c] |= 1 << self.local_of[u]
            after = tables[c][local_placed[c]]
            prod_cur = prod_cur // cur[c] * after
            cur[c] = after
            mult = mult * remaining[c] // left
            remaining[c] -= 1
            left -= 1
            placed |= 1 << u
            seq.append(u)
        return tuple(seq)

    def unrank(self, index: int) -> tuple[int, ...]:
        box = [index]

        def choose(options: list[tuple[int, int]]) -> int:
            for u, ways in options:
                if box[0] < ways:
                    return u
                box[0] -= ways
            raise AssertionError("unrank ran past the end")  # pragma: no cover

        return self._walk(choose)

    def rank(self, seq: Sequence[int]) -> int:
        self.check(seq)
        box = [0]
        it = iter(seq)

        def choose(options: list[tuple[int, int]]) -> int:
            target = next(it)
            for u, ways in options:
                if u == target:
                    return u
                box[0] += ways
            raise AssertionError("rank: unit not available")  # pragma: no cover

        self._walk(choose)
        return box[0]

    def check(self, seq: Sequence[int]) -> None:
        """Raise SpaceError unless ``seq`` is a linear extension of the units."""
        if sorted(seq) != list(range(self.k)):
            raise SpaceError(f"lines {self.start + 1}-{self.end}: not an order of the {self.k} units")
        placed = 0
        for u in seq:
            missing = self.pred[u] & ~placed
            if missing:
                first = next(_bits(missing))
                raise SpaceError(
                    f"line {self.ranges[u][0] + 1} placed before line {self.ranges[first][0] + 1}, "
                    "which it depends on"
                )
            placed |= 1 << u

    def enumerate(self) -> Iterator[tuple[int, ...]]:
        """Every linear extension in lexicographic order (no table needed:
        every valid prefix can be completed)."""
        seq: list[int] = []
        placed = 0
        stack = [iter(self._available(0))]
        while stack:
            if len(seq) >= len(stack):
                placed ^= 1 << seq.pop()
            u = next(stack[-1], None)
            if u is None:
                stack.pop()
                continue
            seq.append(u)
            placed |= 1 << u
            if len(seq) == self.k:
                yield tuple(seq)
                continue
            stack.append(iter(self._available(placed)))

    def sample_approx(self, rng: random.Random, chains: dict[int, list[int]]) -> tuple[int, ...]:
        """One draw when some component is intractable (see the module docstring);
        ``chains`` keeps each Markov chain's state between draws."""
        per_comp: list[list[int]] = []
        for c, comp in enumerate(self.components):
            if comp.tractable:
                table = comp.table()
                per_comp.append(list(_unrank_component(comp, table, rng.randrange(table[0]))))
            else:
                state = chains.setdefault(c, list(range(comp.k)))
                comp.run_chain(state, comp.chain_steps(), rng)
                per_comp.append(list(state))
        labels = [c for c, comp in enumerate(self.components) for _ in range(comp.k)]
        rng.shuffle(labels)
        iters = [iter(p) for p in per_comp]
        return tuple(self.members[c][next(iters[c])] for c in labels)


def _unrank_component(comp: _Component, table: dict[int, int], index: int) -> Iterator[int]:
    """Lexicographic unranking inside one tractable component."""
    placed = 0
    for _ in range(comp.k):
        for u in range(comp.k):
            if placed >> u & 1 or comp.pred[u] & ~placed:
                continue
            ways = table[placed | (1 << u)]
            if index < ways:
                placed |= 1 << u
                yield u
                break
            index -= ways


def _groups(program: Program, max_states: int) -> list[_Group]:
    """Split a program into groups of units with their unit dependencies."""
    lines = program.lines
    n = len(lines)
    end = [n] * n
    stack: list[int] = []
    for i, line in enumerate(lines):
        while stack and lines[stack[-1]].depth >= line.depth:
            end[stack.pop()] = i
        stack.append(i)
    by_block: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        if line.block >= 0:
            by_block.setdefault(line.block, []).append(i)
    runs: list[list[int]] = []
    for items in by_block.values():
        run = [items[0]]
        for i in items[1:]:
            if end[run[-1]] == i and lines[i].depth == lines[run[-1]].depth:
                run.append(i)
            else:
                runs.append(run)
                run = [i]
        runs.append(run)
    for i, j in program.deps:
        if not 0 <= i < j < n:
            raise ValueError(f"dependency ({i}, {j}) is not a forward pair of lines 0..{n - 1}")
    groups = []
    for run in sorted(r for r in runs if len(r) > 1):
        ranges = [(i, end[i]) for i in run]
        start, stop = ranges[0][0], ranges[-1][1]
        owner = {}
        for u, (s, e) in enumerate(ranges):
            for line in range(s, e):
                owner[line] = u
        pred = [0] * len(ranges)
        for i, j in program.deps:
            if start <= i < stop and start <= j < stop and owner[i] != owner[j]:
                pred[owner[j]] |= 1 << owner[i]
        groups.append(_Group(ranges, pred, max_states))
    return groups


class PermutationSpace:
    """All semantics-preserving line orders of one program; see the module docstring.

    Parameters
    ----------
    program
        The program; its ``deps``, ``block`` and ``depth`` define the space.
    max_states
        Most down-sets one component's counting table may hold; beyond it the
        exact count is refused with bounds and sampling uses the Markov chain.

    Examples
    --------
    >>> from invar.program import Line, Program
    >>> p = Program("toy", tuple(Line(t) for t in ("x = 1", "y = x", "z = 2")), (), deps=((0, 1),))
    >>> space = PermutationSpace(p)
    >>> space.count()
    3
    >>> [t.order for t in space.enumerate()]
    [(0, 1, 2), (0, 2, 1), (2, 0, 1)]
    """

    def __init__(self, program: Program, max_states: int = DEFAULT_MAX_STATES) -> None:
        self.program = program
        self.max_states = max_states
        self.groups = _groups(program, max_states)
        # inner groups first, so outer moves carry already reordered bodies
        self._assembly = sorted(range(len(self.groups)), key=lambda g: self.groups[g].end - self.groups[g].start)

    # ---------------------------------------------------------------- counting
    @property
    def tractable(self) -> bool:
        """True when the exact count, rank, unrank and exact sampling are available."""
        return all(g.tractable for g in self.groups)

    def count(self) -> int:
        """The exact number of semantics-preserving orders (identity included).

        Raises :class:`IntractableError`, with bounds, when a component has
        more than ``max_states`` down-sets."""
        try:
            return math.prod(g.count() for g in self.groups)
        except IntractableError:
            lower, upper = self.bounds()
            raise IntractableError(
                f"too wide for an exact count within {self.max_states} down-sets per component; "
                f"between {lower} and {upper} orders",
                lower,
                upper,
            ) from None

    def bounds(self) -> tuple[int, int]:
        """(lower, upper) bounds on ``count()``; equal when it is tractable."""
        pairs = [g.bounds() for g in self.groups]
        return math.prod(lo for lo, _ in pairs), math.prod(hi for _, hi in pairs)

    def group_counts(self) -> list[tuple[int, int, int, int]]:
        """Per group: (first line, end line, lower, upper), lines 0-based, end exclusive."""
        return [(g.start, g.end, *g.bounds()) for g in self.groups]

    # ------------------------------------------------------- order assembly
    def _assemble(self, seqs: Sequence[Sequence[int]]) -> Permutation:
        order = list(range(len(self.program.lines)))
        for g in self._assembly:
            group = self.groups[g]
            segment = []
            for u in seqs[g]:
                s, e = group.ranges[u]
                segment.extend(order[s:e])
            order[group.start : group.end] = segment
        return Permutation(tuple(order))

    def _split(self, t: Permutation | Sequence[int]) -> list[tuple[int, ...]]:
        order = tuple(t.order if isinstance(t, Permutation) else t)
        n = len(self.program.lines)
        if sorted(order) != list(range(n)):
            raise SpaceError(f"not an order of the program's {n} lines")
        new_of = [0] * n
        for new, old in enumerate(order):
            new_of[old] = new
        seqs = [tuple(sorted(range(g.k), key=lambda u: new_of[g.ranges[u][0]])) for g in self.groups]
        for g, seq in zip(self.groups, seqs):
            g.check(seq)
        if self._assemble(seqs).order != order:
            raise SpaceError("the order moves a line out of its block or away from its header")
        return seqs

    # ---------------------------------------------------- ranking / unranking
    def unrank(self, index: int) -> Permutation:
        """The permutation at position ``index`` of the enumeration order."""
        total = self.count()
        if not 0 <= index < total:
            raise SpaceError(f"permutation index {index} out of range 0..{total - 1}")
        seqs = []
        for g in reversed(self.groups):
            index, r = divmod(index, g.count())
            seqs.append(g.unrank(r))
        return self._assemble(seqs[::-1])

    def rank(self, t: Permutation | Sequence[int]) -> int:
        """Position of ``t`` in the enumeration order (SpaceError if not in the space)."""
        seqs = self._split(t)
        self.count()
        index = 0
        for g, seq in zip(self.groups, seqs):
            index = index * g.count() + g.rank(seq)
        return index

    def __contains__(self, t: Permutation | Sequence[int]) -> bool:
        """True when ``t`` keeps every dependency and the block structure."""
        try:
            self._split(t)
        except SpaceError:
            return False
        return True

    # ------------------------------------------------- enumerate and sample
    def enumerate(self, limit: int | None = None) -> Iterator[Permutation]:
        """Permutations in lexicographic order (see the module docstring);
        needs no counting table, so it works on intractable spaces too."""
        if limit is not None and limit <= 0:
            return
        produced = 0
        seqs: list[tuple[int, ...]] = []

        def rec(g: int) -> Iterator[Permutation]:
            if g == len(self.groups):
                yield self._assemble(seqs)
                return
            for seq in self.groups[g].enumerate():
                seqs.append(seq)
                yield from rec(g + 1)
                seqs.pop()

        for t in rec(0):
            yield t
            produced += 1
            if limit is not None and produced >= limit:
                return

    @property
    def exact_sampling(self) -> bool:
        """True when :meth:`sample` is exactly uniform (else it uses the Markov chain)."""
        return self.tractable

    def sample(self, n: int, rng: random.Random | int | None = None) -> list[Permutation]:
        """``n`` permutations drawn independently and uniformly (exactly when
        :attr:`exact_sampling`, else to within the Markov chain's ``ε``)."""
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        if self.tractable:
            total = self.count()
            return [self.unrank(rng.randrange(total)) for _ in range(n)]
        chains: list[dict[int, list[int]]] = [{} for _ in self.groups]
        out = []
        for _ in range(n):
            seqs = []
            for g, group in enumerate(self.groups):
                if group.tractable:
                    seqs.append(group.unrank(rng.randrange(group.count())))
                else:
                    seqs.append(group.sample_approx(rng, chains[g]))
            out.append(self._assemble(seqs))
        return out

    # ---------------------------------------------------------- apply / undo
    def apply(self, program: Program | None, t: Permutation) -> Program:
        """The program with its lines in ``t.order`` (tokens and deps follow)."""
        program = self.program if program is None else program
        return program.reordered(t.order)

    @staticmethod
    def undo(prediction, t: Permutation):
        """A permutation renames nothing, so a prediction about the program is
        returned as is; a per-line prediction maps back through ``t.inverse``."""
        return prediction


__all__ = ["PermutationSpace", "Permutation", "IntractableError", "DEFAULT_MAX_STATES", "MIXING_EPSILON"]
