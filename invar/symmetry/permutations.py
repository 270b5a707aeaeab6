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

Counting and sampling
---------------------
Each group's units form a poset (:class:`~invar.symmetry.posets.Poset`)
decomposed into parallel parts (independent components, interleaved:
a multinomial times the parts' counts), series parts (one wholly before the
next: a product) and prime parts, counted by a dynamic program over their
down-sets. A prime part with more than ``max_states`` down-sets is
intractable: ``count`` is refused (:class:`IntractableError`) with bounds,
and ``sample`` draws that part by the Bubley–Dyer chain while everything
around it stays exact (see :mod:`invar.symmetry.posets`). The space is the
product over groups.

Enumeration order
-----------------
Lexicographic over ``order`` (``order[new] = old``), the original order first.
Since a unit's first line is its header and a moved unit carries its body,
comparing two orders position by position compares, in each group, the
first unit, then everything nested inside that unit, then the second unit,
and so on; so the significance of an inner group depends on where its
enclosing unit lands. ``rank``/``unrank`` walk the same decisions, each
counted by the number of orders it leaves (see ``PermutationSpace._decide``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import islice
from typing import Iterator, Sequence

from ..errors import SpaceError
from ..program import Program
from .bigint import product
from .posets import DEFAULT_MAX_STATES, MIXING_EPSILON, SAMPLER_VERSION, Poset, TooWide, Walker

# IntractableError is re-exported: its home before the protocol
from .space import IntractableError, Space, accepts, check_draws, check_index


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


class _Group:
    """One reorderable run of units; see the module docstring."""

    def __init__(self, ranges: list[tuple[int, int]], edges: set[tuple[int, int]], max_states: int) -> None:
        #: (start, end) line range of each unit, in original order
        self.ranges = ranges
        self.k = len(ranges)
        self.start, self.end = ranges[0][0], ranges[-1][1]
        self.poset = Poset(self.k, edges, max_states)
        self.max_states = max_states

    @property
    def tractable(self) -> bool:
        return self.poset.tractable

    def count(self) -> int:
        try:
            return self.poset.count()
        except TooWide:
            lower, upper = self.bounds()
            raise IntractableError(
                f"lines {self.start + 1}-{self.end}: too wide for an exact count "
                f"(a part needs more than {self.max_states} down-sets); "
                f"between {lower} and {upper} orders",
                lower,
                upper,
            ) from None

    def bounds(self) -> tuple[int, int]:
        return self.poset.bounds()

    def walker(self) -> Walker:
        """A left-to-right builder of one unit sequence that knows, at every
        step, how many linear extensions complete each choice."""
        self.count()
        return self.poset.walker()

    def unrank(self, index: int) -> tuple[int, ...]:
        """The ``index``-th linear extension of the units, lexicographically."""
        self.count()
        return tuple(self.poset.unrank(index))

    def sample(self, rng: random.Random, version: int = SAMPLER_VERSION) -> tuple[int, ...]:
        """One unit sequence, uniform (up to the chain's ``ε`` in intractable parts)."""
        return tuple(self.poset.sample(rng, version))

    def check(self, seq: Sequence[int]) -> None:
        """Raise SpaceError unless ``seq`` is a linear extension of the units."""
        if sorted(seq) != list(range(self.k)):
            raise SpaceError(f"lines {self.start + 1}-{self.end}: not an order of the {self.k} units")
        at = [0] * self.k
        for new, u in enumerate(seq):
            at[u] = new
        for u in seq:
            late = [p for p in self.poset.pred[u] if at[p] > at[u]]
            if late:
                raise SpaceError(
                    f"line {self.ranges[u][0] + 1} placed before line {self.ranges[min(late)][0] + 1}, "
                    "which it depends on"
                )


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
    runs = sorted(r for r in runs if len(r) > 1)
    ranges = [[(i, end[i]) for i in run] for run in runs]
    # every line's chain of (group, unit) holding it, outermost first: a
    # dependency orders units of the outermost group whose units part its lines
    chain: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for g in sorted(range(len(runs)), key=lambda g: (ranges[g][0][0], -ranges[g][-1][1])):
        for u, (s, e) in enumerate(ranges[g]):
            for line in range(s, e):
                chain[line].append((g, u))
    edges: list[set[tuple[int, int]]] = [set() for _ in runs]
    for i, j in program.deps:
        for (gi, ui), (gj, uj) in zip(chain[i], chain[j]):
            if gi != gj:
                break
            if ui != uj:
                edges[gi].add((ui, uj))
                break
    return [_Group(r, e, max_states) for r, e in zip(ranges, edges)]


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


class PermutationSpace(Space[Permutation]):
    """All semantics-preserving line orders of one program; see the module docstring.
    It keeps the :class:`~invar.symmetry.space.Space` contract; ``count``
    and ``rank`` may refuse with :class:`IntractableError`.

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
        if max_states < 1:
            raise SpaceError(f"max_states {max_states}: an exact count needs room for at least 1 down-set")
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
            return product(g.count() for g in self.groups)
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
        return product(lo for lo, _ in pairs), product(hi for _, hi in pairs)

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
        an iterator of its options ``(unit, orders that begin with the
        decisions so far and this unit)``, in increasing order and priced as
        they are drawn (see :class:`~invar.symmetry.posets.Walker`), and
        returns its pick, which it must have drawn last."""
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
            scale = rest_inner[g] * below
            options = walk.options() if scale == 1 else ((u, ways * scale) for u, ways in walk.options())
            u = choose(g, options)
            walk.place(u)
            rest_inner[g] //= self._inner(g, u)
            stack.append(("step", g, 0, below))
            stack.append(("groups", self._inside[g][u], 0, below * walk.completions() * rest_inner[g]))
        return [tuple(w.seq) for w in walkers]

    def unrank(self, index: int) -> Permutation:
        """The permutation at position ``index`` of the enumeration order."""
        check_index(index, self.count(), "permutation index")
        box = [index]

        def choose(g: int, options: Iterator[tuple[int, int]]) -> int:
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

        def choose(g: int, options: Iterator[tuple[int, int]]) -> int:
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
        return accepts(self._split, t)

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
        # what may come next in each group, kept up to date as units are
        # placed and taken back: finding a decision's next option costs a
        # logarithm, not a scan of the group
        fronts = [g.poset.frontier() for g in groups]

        # one frame per decision: [group, unit it chose last (None before the
        # first), pending tasks after it]; tasks are immutable tuples in a
        # linked list, so frames share them
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
                if len(seqs[g]) == groups[g].k:
                    tasks = rest
                    continue
                return g, tasks
            return None

        frames: list[list] = []

        def push(tasks) -> bool:
            due = advance(tasks)
            if due is None:
                return False
            frames.append([due[0], None, due[1]])
            return True

        if not push((("groups", self._top, 0), None)):
            yield self._assemble(seqs)
            return
        while frames:
            frame = frames[-1]
            g, chosen, tasks = frame
            if chosen is not None:  # take back what this frame placed last
                seqs[g].pop()
                fronts[g].unplace(chosen)
            u = fronts[g].next_from(0 if chosen is None else chosen + 1)
            if u is None:
                frames.pop()
                continue
            frame[1] = u
            seqs[g].append(u)
            fronts[g].place(u)
            if not push((("groups", self._inside[g][u], 0), (("step", g), tasks[1]))):
                yield self._assemble(seqs)
                produced += 1
                if limit is not None and produced >= limit:
                    return

    @property
    def exact_sampling(self) -> bool:
        """True when :meth:`sample` is exactly uniform (else it uses the Markov chain)."""
        return self.tractable

    def sample(
        self, n: int, rng: random.Random | int | None = None, *, version: int = SAMPLER_VERSION
    ) -> list[Permutation]:
        """``n`` permutations drawn independently and uniformly (exactly when
        :attr:`exact_sampling`, else to within the Markov chain's ``ε``)."""
        check_draws(n)
        return list(islice(self.samples(rng, version=version), n))

    def samples(
        self, rng: random.Random | int | None = None, *, chain_steps: int | None = None, version: int = SAMPLER_VERSION
    ) -> Iterator[Permutation]:
        """An endless stream of independent uniform draws (see :meth:`sample`),
        in constant memory. The space is the product of its groups, so a
        uniform draw of each group's sequence is a uniform order; the Markov
        chains of intractable parts start afresh, so a seed reproduces the
        stream whatever was drawn before.

        ``chain_steps`` replaces the number of Markov chain steps run in each
        intractable part before a draw. The certified number
        (:attr:`chain_steps_needed`, the Bubley–Dyer bound) grows as the cube
        of the part's size; fewer steps give draws that are faster and no
        longer certified to be near uniform. Exact parts are unaffected.

        ``version`` is what the seed means (docs/formats.md, "Permutations"):
        :data:`~invar.symmetry.posets.SAMPLER_VERSION` by default; 1 draws
        what invar drew before it, for the same seed."""
        if version not in (1, SAMPLER_VERSION):
            raise ValueError(f"no sampler version {version} (1 or {SAMPLER_VERSION})")
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        for g in self.groups:
            g.poset.reset_chains(chain_steps)
        while True:
            yield self._assemble([g.sample(rng, version) for g in self.groups])

    @property
    def chain_steps_needed(self) -> int:
        """Markov chain steps per draw that the certified bound asks for (0 when exact)."""
        return sum(g.poset.chain_steps() for g in self.groups)

    # ---------------------------------------------------------- apply / undo
    def apply(self, program: Program | None, t: Permutation) -> Program:
        """The program with its lines in ``t.order`` (tokens and deps follow).
        ``program``: the space's own (None), or a version of it with as many
        lines (renamed, say); another length is refused (SpaceError)."""
        program = self.program if program is None else program
        if len(program.lines) != len(self.program.lines):
            raise SpaceError(
                f"this space orders a program of {len(self.program.lines)} lines, not one of {len(program.lines)}: "
                "apply it to its own program or a renaming of it"
            )
        return program.reordered(t.order)

    def render(self, t: Permutation) -> str:
        """The reordered program's text, without building its IR (what
        ``apply(None, t).render()`` gives, in time linear in the text)."""
        program, lines = self.program, self.program.lines
        return program.prefix + program.separator.join(lines[old].text for old in t.order) + program.suffix

    @staticmethod
    def undo(prediction, t: Permutation):
        """A permutation renames nothing, so a prediction about the program is
        returned as is; a per-line prediction maps back through ``t.inverse``."""
        return prediction


__all__ = [
    "PermutationSpace",
    "Permutation",
    "IntractableError",
    "DEFAULT_MAX_STATES",
    "MIXING_EPSILON",
    "SAMPLER_VERSION",
]
