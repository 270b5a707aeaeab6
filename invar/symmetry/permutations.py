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
Lexicographic over ``order`` (``order[new] = old``), the original order first.
Since a unit's first line is its header and a moved unit carries its body,
comparing two orders position by position compares, in each group, the
first unit, then everything nested inside that unit, then the second unit,
and so on; so the significance of an inner group depends on where its
enclosing unit lands. ``rank``/``unrank`` walk the same decisions, each
counted by the number of orders it leaves (see ``PermutationSpace._decide``).

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

    def walker(self) -> "_Walker":
        """A left-to-right builder of one unit sequence that knows, at every
        step, how many linear extensions complete each choice."""
        return _Walker(self, self._tables())

    def unrank(self, index: int) -> tuple[int, ...]:
        """The ``index``-th linear extension of the units, lexicographically."""
        walk = self.walker()
        for _ in range(self.k):
            for u, ways in walk.options():
                if index < ways:
                    walk.place(u)
                    break
                index -= ways
            else:  # pragma: no cover - count() and the walk disagree
                raise AssertionError("unrank ran past the end")
        return tuple(walk.seq)

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


class _Walker:
    """One unit sequence of a group under construction, with the number of
    linear extensions that complete each next choice (the module's formula,
    kept up to date incrementally as units are placed)."""

    __slots__ = ("group", "tables", "remaining", "left", "local_placed", "cur", "prod_cur", "mult", "placed", "seq")

    def __init__(self, group: "_Group", tables: list[dict[int, int]]) -> None:
        self.group = group
        self.tables = tables
        self.remaining = [c.k for c in group.components]
        self.left = group.k
        self.local_placed = [0] * len(group.components)
        self.cur = [t[0] for t in tables]
        self.prod_cur = math.prod(self.cur)
        self.mult = _multinomial(self.remaining)
        self.placed = 0
        self.seq: list[int] = []

    def completions(self) -> int:
        """Linear extensions of the units not yet placed."""
        return self.mult * self.prod_cur

    def options(self) -> list[tuple[int, int]]:
        """``(unit, completions after placing it)`` for every unit that may
        come next, in increasing unit order."""
        g = self.group
        out = []
        for u in g._available(self.placed):
            c = g.comp_of[u]
            after = self.tables[c][self.local_placed[c] | (1 << g.local_of[u])]
            out.append((u, self.mult * self.remaining[c] // self.left * (self.prod_cur // self.cur[c]) * after))
        return out

    def place(self, u: int) -> None:
        g = self.group
        c = g.comp_of[u]
        self.local_placed[c] |= 1 << g.local_of[u]
        after = self.tables[c][self.local_placed[c]]
        self.prod_cur = self.prod_cur // self.cur[c] * after
        self.cur[c] = after
        self.mult = self.mult * self.remaining[c] // self.left
        self.remaining[c] -= 1
        self.left -= 1
        self.placed |= 1 << u
        self.seq.append(u)


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


def _nesting(groups: list[_Group]) -> tuple[list[int], list[list[list[int]]]]:
    """Which groups lie directly inside which unit: (top-level groups in line
    order, ``inside[g][u]`` = groups directly nested in unit ``u`` of ``g``,
    in line order)."""
    inside: list[list[list[int]]] = [[[] for _ in g.ranges] for g in groups]
    top: list[int] = []
    # groups are sorted by first line; an enclosing unit starts before (or at
    # the header of) what it holds, so a stack of open units finds the parent
    order = sorted(range(len(groups)), key=lambda g: (groups[g].start, -groups[g].end))
    open_units: list[tuple[int, int, int]] = []  # (group, unit, end line)
    for h in order:
        start = groups[h].start
        while open_units and open_units[-1][2] <= start:
            open_units.pop()
        parent = None
        while open_units:
            g, u, end = open_units[-1]
            s, e = groups[g].ranges[u]
            if s <= start and groups[h].end <= e:
                parent = (g, u)
                break
            open_units.pop()
        if parent is None:
            top.append(h)
        else:
            inside[parent[0]][parent[1]].append(h)
        for u, (s, e) in reversed(list(enumerate(groups[h].ranges))):
            open_units.append((h, u, e))
    return top, inside


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
        self._top, self._inside = _nesting(self.groups)
        self._full_memo: dict[int, int] = {}

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
    #
    # An order is built by a sequence of decisions in the order of the
    # positions they fill: the top-level groups left to right; inside a
    # group, its next unit, then (before the group's following unit) the
    # groups nested in that unit, recursively. Taking every decision's
    # options in increasing line order therefore lists orders
    # lexicographically. Pending work is a stack of tasks, ``("groups",
    # list, i)`` (groups list[i:] still to build) and ``("step", g)`` (the
    # rest of group g), so nesting depth costs no recursion.

    def _full(self, g: int) -> int:
        """Configurations of group ``g`` with everything nested in it."""
        got = self._full_memo.get(g)
        if got is None:
            group = self.groups[g]
            got = group.count() * math.prod(self._inner(g, u) for u in range(group.k))
            self._full_memo[g] = got
        return got

    def _inner(self, g: int, u: int) -> int:
        """Configurations of the groups nested in unit ``u`` of group ``g``."""
        return math.prod(self._full(h) for h in self._inside[g][u])

    def _decide(self, choose) -> list[tuple[int, ...]]:
        """Run the decisions of one order and return each group's unit
        sequence; ``choose(g, options)`` gets the group of each decision and
        its options ``(unit, orders that begin with the decisions so far and
        this unit)``, and returns its pick."""
        self.count()
        walkers = [g.walker() for g in self.groups]
        # what is still unbuilt inside each group's unplaced units
        rest_inner = [math.prod(self._inner(g, u) for u in range(grp.k)) for g, grp in enumerate(self.groups)]
        stack: list[tuple] = [("groups", self._top, 0, 1)]
        while stack:
            kind, a, i, below = stack.pop()
            if kind == "groups":
                if i < len(a):
                    stack.append(("groups", a, i + 1, below))
                    stack.append(("step", a[i], 0, below * math.prod(self._full(h) for h in a[i + 1 :])))
                continue
            g, walk = a, walkers[a]
            if len(walk.seq) == self.groups[g].k:
                continue
            options = [(u, ways * rest_inner[g] * below) for u, ways in walk.options()]
            u = choose(g, options)
            walk.place(u)
            rest_inner[g] //= self._inner(g, u)
            stack.append(("step", g, 0, below))
            stack.append(("groups", self._inside[g][u], 0, below * walk.completions() * rest_inner[g]))
        return [tuple(w.seq) for w in walkers]

    def unrank(self, index: int) -> Permutation:
        """The permutation at position ``index`` of the enumeration order."""
        total = self.count()
        if not 0 <= index < total:
            raise SpaceError(f"permutation index {index} out of range 0..{total - 1}")
        box = [index]

        def choose(g: int, options: list[tuple[int, int]]) -> int:
            for u, ways in options:
                if box[0] < ways:
                    return u
                box[0] -= ways
            raise AssertionError("unrank ran past the end")  # pragma: no cover

        return self._assemble(self._decide(choose))

    def rank(self, t: Permutation | Sequence[int]) -> int:
        """Position of ``t`` in the enumeration order (SpaceError if not in the space)."""
        seqs = self._split(t)
        box = [0]
        nexts = [iter(seq) for seq in seqs]

        def choose(g: int, options: list[tuple[int, int]]) -> int:
            target = next(nexts[g])
            for u, ways in options:
                if u == target:
                    return u
                box[0] += ways
            raise AssertionError("rank: unit not available")  # pragma: no cover

        self._decide(choose)
        return box[0]

    def __contains__(self, t: Permutation | Sequence[int]) -> bool:
        """True when ``t`` keeps every dependency and the block structure."""
        try:
            self._split(t)
        except SpaceError:
            return False
        return True

    # ------------------------------------------------- enumerate and sample
    def enumerate(self, limit: int | None = None) -> Iterator[Permutation]:
        """Permutations in lexicographic order of ``order`` (see the module
        docstring); a depth-first walk over the same decisions as
        :meth:`unrank` that needs no counting table, so it works on
        intractable spaces too."""
        if limit is not None and limit <= 0:
            return
        produced = 0
        groups = self.groups
        seqs: list[list[int]] = [[] for _ in groups]
        placed = [0] * len(groups)
        # one frame per decision: (group, options left, pending tasks after it);
        # tasks are immutable tuples in a linked list, so frames share them
        def advance(tasks):
            """Pop finished tasks until a decision is due: (group, tasks) or None."""
            while tasks is not None:
                task, rest = tasks
                if task[0] == "groups":
                    _, a, i = task
                    if i < len(a):
                        tasks = (("step", a[i]), (("groups", a, i + 1), rest))
                    else:
                        tasks = rest
                    continue
                g = task[1]
                if placed[g] == (1 << groups[g].k) - 1:
                    tasks = rest
                    continue
                return g, tasks
            return None

        frames: list[tuple[int, list[int], object]] = []
        history: list[int] = []

        def push(tasks) -> bool:
            due = advance(tasks)
            if due is None:
                return False
            g, tasks = due
            frames.append((g, list(reversed(groups[g]._available(placed[g]))), tasks))
            return True

        if not push((("groups", self._top, 0), None)):
            yield self._assemble(seqs)
            return
        while frames:
            g, options, tasks = frames[-1]
            # undo the previous choice made at this frame
            while len(history) > len(frames) - 1:
                h = history.pop()
                placed[h] &= ~(1 << seqs[h].pop())
            if not options:
                frames.pop()
                continue
            u = options.pop()
            seqs[g].append(u)
            placed[g] |= 1 << u
            history.append(g)
            _, rest = tasks
            if not push((("groups", self._inside[g][u], 0), (("step", g), rest))):
                yield self._assemble(seqs)
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
            # the space is the product of its groups: a uniform draw of each
            # group's sequence is a uniform order
            return [self._assemble([g.unrank(rng.randrange(g.count())) for g in self.groups]) for _ in range(n)]
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
