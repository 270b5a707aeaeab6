"""Exact counting, ranking, enumeration and uniform sampling of renamings.

A renaming maps each renamable referent of a program to a target name,
one-to-one. Which targets a referent may take is decided by its frontend
(views kept, encodability, capture avoidance) and handed over as an *allowed*
list per referent; pinned referents are simply absent and their names are
excluded from every allowed list. What remains is a pure combinatorial object:
the injective maps ``referent[i] -> allowed[i]``.

Counting such maps is a permanent in general, but the allowed lists come in a
handful of shapes. Referents with the same list form a **class**; targets that
belong to exactly the same classes' lists are interchangeable, and we call
such a group an **atom**. Whether and in how many ways a partial map can be
finished depends only on the next referent's index and on how many targets
of each atom are taken: a *state*. Walking the referents in order, level
``i`` holds the states that the first ``i`` referents can reach and the rest
can finish (usually one per level: one class, or classes with atoms of their
own). Level ``i`` goes to level ``i + 1`` by a transfer matrix whose entries
are small (the free targets of the atom taken).

Everything exact is computed on a **product tree** over ranges of
referents, so no big number is ever built per referent. A range's transfer
is never a matrix: the ways from state ``u`` to state ``v`` are one
coefficient of a polynomial in the atoms times a ratio of falling factorials
(:mod:`.transfer`), so a vector times a range's transfer is one product of
polynomials (Kronecker substitution), near-linear in the states where the
matrices' products cost their cube. The count is the root's product;
``rank`` folds the per-referent digits up the tree (a mixed-radix number
whose radices are the tree's products); ``unrank`` splits an index down the
tree by division, the weights of every range (left or right half) scaled
down to about its own count's length first, and the choice corrected by a
neighbour step where its exact rank, the fold of what it chose times the
exact weights, says so (each range hands its fold back: its children's,
one product). So every range handles numbers about as long as its own
count, which halve at every split: ``O(b log n)`` bits in all for a count of
``b`` bits, where weights as long as the rest of the count cost ``n b``.
Choices among the targets of one list are found with a Fenwick tree of the
free ones per (class, atom).

Enumeration order: lexicographic over the tuple of targets, referents taken in
order of first appearance and each referent's targets in the order its
frontend lists them (for x86: the encoding order ``a c d b sp bp si di r8 … r15``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import islice
from typing import Callable, Iterator, Mapping, Sequence

from ..errors import SpaceError
from ..program import Program, Token
from .bigint import divmod_exact
from .ordered import Fenwick
from .space import Space, accepts, check_draws, check_index
from .transfer import Transfer, split

#: rewrites one token for a target referent: ``spell(token, target) -> new text``
Speller = Callable[[Token, str], str]


@dataclass(frozen=True, slots=True)
class Renaming:
    """One renaming: ``mapping[k] = (referent, target)`` in referent order."""

    #: (referent, target) pairs for every renamable referent, in first-appearance order
    mapping: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, str]:
        return dict(self.mapping)

    def inverse(self) -> dict[str, str]:
        return {t: r for r, t in self.mapping}

    @property
    def is_identity(self) -> bool:
        return all(r == t for r, t in self.mapping)


#: referents per leaf of the product tree
_LEAF = 32
#: bits of margin the scaled-down weights of a range keep over its count
#: (see ``RenamingSpace._unrank_scaled``): an error of one unit per earlier
#: sequence then stays under one sequence's weight
_GUARD = 16
#: a range whose weights would lose fewer bits than this is unranked exactly
_MIN_SHIFT = 64


def map_names(value, names: Mapping[str, str]):
    """``value`` with every string ``names`` maps replaced by its image:
    containers (lists, tuples, dicts, keys included) element-wise; anything
    else (a number) kept."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, (list, tuple)):
        return type(value)(map_names(v, names) for v in value)
    if isinstance(value, dict):
        return {map_names(k, names): map_names(v, names) for k, v in value.items()}
    return value


def _descend(trees: Sequence[tuple[Fenwick, int]], index: int) -> tuple[int, int]:
    """Over one list whose position ``p`` weighs ``w`` when free and of an
    atom ``(tree, w)`` of ``trees``: the largest ``p`` whose positions before
    it weigh at most ``index`` in all, and that weight."""
    pos, acc = 0, 0
    first = trees[0][0]
    step = first.top
    n = first.n
    while step:
        nxt = pos + step
        if nxt <= n:
            s = acc
            for tree, w in trees:
                s += tree.tree[nxt] * w
            if s <= index:
                pos, acc = nxt, s
        step >>= 1
    return pos, acc


class _Walk:
    """An unranking under way: the free targets per (class, atom), the
    ``(referent, target)`` pairs chosen so far (one per referent, in order)
    and the state each of them leads to."""

    __slots__ = ("trees", "out", "path")

    def __init__(self, trees: dict[tuple[int, int], Fenwick]) -> None:
        self.trees = trees
        self.out: list[tuple[str, str]] = []
        self.path: list[int] = []


class RenamingSpace(Space[Renaming]):
    """All renamings of one program; see the module docstring. It keeps the
    :class:`~invar.symmetry.space.Space` contract, and always counts and
    samples exactly.

    ``referents``: the renamable referents, in enumeration order.
    ``allowed``: for each referent, its admissible targets in enumeration order.
    ``spell``: how a token is written once its referent is renamed.
    """

    def __init__(
        self, program: Program, referents: Sequence[str], allowed: Sequence[Sequence[str]], spell: Speller
    ) -> None:
        if len(referents) != len(allowed):
            raise ValueError("one allowed set per referent")
        self.program = program
        self.referents = tuple(referents)
        self.spell = spell
        # classes: distinct allowed lists (frontends pass one list object for
        # many referents, so most are recognised by identity alone)
        lists: list[tuple[str, ...]] = []
        by_content: dict[tuple[str, ...], int] = {}
        by_id: dict[int, int] = {}
        class_of: list[int] = []
        for a in allowed:
            j = by_id.get(id(a))
            if j is None:
                content = tuple(dict.fromkeys(a))
                j = by_content.setdefault(content, len(lists))
                if j == len(lists):
                    lists.append(content)
                by_id[id(a)] = j
            class_of.append(j)
        self._lists = lists
        self._class_of = class_of
        self.allowed = tuple(lists[j] for j in class_of)
        # atoms: targets grouped by the classes whose lists hold them
        classes_of: dict[str, list[int]] = {}
        for j, lst in enumerate(lists):
            for t in lst:
                classes_of.setdefault(t, []).append(j)
        self.targets = tuple(classes_of)
        atoms: dict[tuple[int, ...], list[str]] = {}
        for t, js in classes_of.items():
            atoms.setdefault(tuple(js), []).append(t)
        self._atom_sizes = tuple(len(v) for v in atoms.values())
        self._atom_of: dict[str, int] = {t: a for a, ts in enumerate(atoms.values()) for t in ts}
        self._classes_of = {t: tuple(js) for t, js in classes_of.items()}
        self._atoms_of_class = [tuple(sorted({self._atom_of[t] for t in lst})) for lst in lists]
        self._positions: list[dict[str, int] | None] = [None] * len(lists)
        self._fenwick_init: dict[tuple[int, int], list[int]] = {}
        self._levels: list[tuple[tuple[int, ...], ...]] | None = None
        self._level_index: dict[int, dict[tuple[int, ...], int]] = {}
        self._transfer_tree: Transfer | None = None
        self._ways: dict[tuple[int, int], dict[int, int]] = {}
        self._transitions: dict[int, tuple[tuple[tuple[int, int, int], ...], ...]] = {}
        # which tokens each referent owns, for apply()
        self._tokens_of: dict[str, list[int]] = {}
        for k, tok in enumerate(program.tokens):
            if tok.referent is not None:
                self._tokens_of.setdefault(tok.referent, []).append(k)

    # ------------------------------------------------------------- levels
    def _states(self) -> list[tuple[tuple[int, ...], ...]]:
        """``levels[i]``: the states (targets taken per atom) after the first
        ``i`` referents that the rest can still finish."""
        if self._levels is None:
            sizes = self._atom_sizes
            n = len(self.referents)
            forward: list[tuple[tuple[int, ...], ...]] = [((0,) * len(sizes),)]
            for i in range(n):
                nxt: dict[tuple[int, ...], None] = {}
                for used in forward[-1]:
                    for a in self._atoms_of_class[self._class_of[i]]:
                        if used[a] < sizes[a]:
                            nxt[used[:a] + (used[a] + 1,) + used[a + 1 :]] = None
                forward.append(tuple(nxt))
            levels = forward
            for i in range(n - 1, -1, -1):
                alive = set(levels[i + 1])
                atoms = self._atoms_of_class[self._class_of[i]]
                levels[i] = tuple(
                    u
                    for u in levels[i]
                    if any(u[a] < sizes[a] and u[:a] + (u[a] + 1,) + u[a + 1 :] in alive for a in atoms)
                )
            if not levels[0]:
                levels = [() for _ in levels]
            self._levels = levels
        return self._levels

    def _index(self, i: int, state: tuple[int, ...]) -> int | None:
        """Position of ``state`` in level ``i``, or None when it is not there."""
        level = self._states()[i]
        if len(level) <= 8:
            for x, u in enumerate(level):
                if u == state:
                    return x
            return None
        got = self._level_index.get(i)
        if got is None:
            got = self._level_index[i] = {u: x for x, u in enumerate(level)}
        return got.get(state)

    def _steps(self, i: int, x: int) -> tuple[tuple[int, int, int], ...]:
        """From state ``x`` of level ``i``: ``(atom, state of level i+1, free
        targets of that atom)`` for each atom referent ``i`` may take into a
        live state."""
        return self._level_steps(i)[x]

    def _level_steps(self, i: int) -> tuple[tuple[tuple[int, int, int], ...], ...]:
        """:meth:`_steps` of every state of level ``i``, made for the whole
        level at once and kept once asked (tuples of ints, which the garbage
        collector stops tracking)."""
        got = self._transitions.get(i)
        if got is None:
            levels = self._states()
            following = {u: y for y, u in enumerate(levels[i + 1])}.get
            sizes = self._atom_sizes
            moves = [(a, sizes[a]) for a in self._atoms_of_class[self._class_of[i]]]
            rows = []
            for u in levels[i]:
                row = []
                for a, size in moves:
                    free = size - u[a]
                    if free > 0:
                        y = following(u[:a] + (u[a] + 1,) + u[a + 1 :])
                        if y is not None:
                            row.append((a, y, free))
                rows.append(tuple(row))
            got = self._transitions[i] = tuple(rows)
        return got

    # ---------------------------------------------------------- product tree
    def _transfer(self) -> Transfer:
        """The transfer matrices as polynomials on a product tree (see :mod:`.transfer`)."""
        if self._transfer_tree is None:
            atoms = [self._atoms_of_class[j] for j in self._class_of]
            self._transfer_tree = Transfer(self._atom_sizes, atoms, self._states(), _LEAF)
        return self._transfer_tree

    def _row(self, lo: int, hi: int, f: dict[int, int]) -> dict[int, int]:
        """``f · M(lo, hi)``, vectors by state index."""
        levels = self._states()
        got = self._transfer().row(lo, hi, {levels[lo][x]: c for x, c in f.items() if c})
        return {self._index(hi, v): c for v, c in got.items()}  # type: ignore[misc]

    def _col(self, lo: int, hi: int, w: dict[int, int] | None) -> dict[int, int]:
        """``M(lo, hi) · w`` (``w`` all ones when None), vectors by state index;
        the ways to finish (``w`` None) are kept per range, since every
        unranking of the space asks for the same ones."""
        if w is None and (lo, hi) in self._ways:
            return self._ways[(lo, hi)]
        levels = self._states()
        vec = None if w is None else {levels[hi][y]: c for y, c in w.items() if c}
        got = self._transfer().col(lo, hi, vec)
        out = {self._index(lo, u): c for u, c in got.items()}
        if w is None:
            self._ways[(lo, hi)] = out
        return out  # type: ignore[return-value]

    # ---------------------------------------------------------------- counting
    def count(self) -> int:
        """The exact number of renamings (identity included when admissible)."""
        if not self._states()[0]:
            return 0
        return self._col(0, len(self.referents), None).get(0, 0)

    def __len__(self) -> int:  # pragma: no cover - may overflow ssize_t
        return self.count()

    @property
    def exact_sampling(self) -> bool:
        """Always True: every renaming space is counted, so drawn, exactly."""
        return True

    # ------------------------------------------------- free targets by list
    def _position(self, j: int) -> dict[str, int]:
        got = self._positions[j]
        if got is None:
            got = self._positions[j] = {t: p for p, t in enumerate(self._lists[j])}
        return got

    def _free_trees(self) -> dict[tuple[int, int], Fenwick]:
        """A fresh Fenwick tree of the free targets per (class, atom), all free."""
        out = {}
        for j, lst in enumerate(self._lists):
            for a in self._atoms_of_class[j]:
                init = self._fenwick_init.get((j, a))
                if init is None:
                    atom_of = self._atom_of
                    init = self._fenwick_init[(j, a)] = Fenwick.build([int(atom_of[t] == a) for t in lst])
                out[(j, a)] = Fenwick(init[:])
        return out

    def _take(self, trees: dict[tuple[int, int], Fenwick], t: str, delta: int) -> None:
        a = self._atom_of[t]
        for j in self._classes_of[t]:
            trees[(j, a)].update(self._position(j)[t], delta)

    # ---------------------------------------------------- ranking / unranking
    def rank(self, renaming: Renaming | Mapping[str, str]) -> int:
        """Position of ``renaming`` in the enumeration order.

        Per referent, the free targets before the chosen one are counted per
        atom (each leaves the same completions); those digits are folded up
        the product tree, so the big numbers are multiplied only there."""
        mapping = renaming.as_dict() if isinstance(renaming, Renaming) else dict(renaming)
        n = len(self.referents)
        levels = self._states()
        if not levels[0]:
            raise SpaceError("the program has no admissible renaming")
        trees = self._free_trees()
        taken: set[str] = set()
        # digits[i]: {state of level i+1: free targets before the chosen one
        # whose atom leads there}
        digits: list[dict[int, int]] = []
        x = 0
        for i, ref in enumerate(self.referents):
            target = mapping.get(ref, ref)
            if target in taken or self._position(self._class_of[i]).get(target) is None:
                raise SpaceError(f"{ref} -> {target} is not an admissible renaming")
            here, x = self._digits(i, x, target, trees)
            if x is None:
                raise SpaceError(f"{ref} -> {target} is not an admissible renaming")
            digits.append(here)
            taken.add(target)
            self._take(trees, target, -1)
        return sum(self._fold(0, n, digits).values()) if n else 0

    def _digits(self, i: int, x: int, target: str, trees) -> tuple[dict[int, int], int | None]:
        """Referent ``i`` takes ``target`` from state ``x``: (the free targets
        before it in its list, by the state each leads to; the state it
        leads to, None when that state is not live)."""
        j = self._class_of[i]
        p = self._position(j)[target]
        here: dict[int, int] = {}
        nxt = None
        chosen = self._atom_of[target]
        for a, y, _free in self._steps(i, x):
            before = trees[(j, a)].prefix(p)
            if before:
                here[y] = before
            if a == chosen:
                nxt = y
        return here, nxt

    def _fold(self, lo: int, hi: int, digits: Sequence[dict[int, int]], base: int = 0) -> dict[int, int]:
        """``Σ_{lo<=i<hi} digits[i - base] · M(i+1, hi)``: the rank's part from
        referents ``lo..hi-1``, as a vector over level ``hi``."""
        if hi - lo <= _LEAF:
            acc: dict[int, int] = {}
            for i in range(lo, hi):
                nxt = dict(digits[i - base])
                for x, c in acc.items():
                    for _a, y, free in self._steps(i, x):
                        nxt[y] = nxt.get(y, 0) + c * free
                acc = nxt
            return acc
        mid = split(lo, hi, _LEAF)
        out = self._row(mid, hi, self._fold(lo, mid, digits, base))
        for y, c in self._fold(mid, hi, digits, base).items():
            out[y] = out.get(y, 0) + c
        return out

    def unrank(self, index: int) -> Renaming:
        """The renaming at position ``index`` of the enumeration order."""
        check_index(index, self.count(), "renaming index")
        walk = _Walk(self._free_trees())
        self._unrank(0, len(self.referents), 0, index, None, walk)
        return Renaming(tuple(walk.out))

    def _unrank(
        self, lo: int, hi: int, x: int, index: int, weights: dict[int, int] | None, walk: _Walk
    ) -> tuple[int, int, dict[int, int]]:
        """Choose the targets of referents ``lo..hi-1`` from state ``x``:
        ``index`` counts the choices in order, each weighing ``weights`` of
        the state it ends in (1 when None). Returns (the end state, what is
        left of ``index`` within its weight, the fold of the choices: the
        sequences from ``x`` before them, by the state of level ``hi`` each
        ends in, whatever the weights)."""
        if weights is not None and len(self._states()[hi]) == 1:
            # one way to end: its weight divides out at once, so the numbers
            # below are as long as this range's own count
            index, rest = divmod_exact(index, weights[0])
            end, _left, fold = self._unrank(lo, hi, x, index, None, walk)
            return end, rest, fold
        if weights is not None:
            # the range's own sequences from ``x`` (one product on the tree): a
            # sum of list lengths' logarithms overstates it by a bit or more a
            # referent, which on long ranges left nothing to shift
            own = self._col(lo, hi, None).get(x, 0)
            shift = min((w.bit_length() for w in weights.values() if w), default=0) - own.bit_length() - _GUARD
            if shift >= _MIN_SHIFT:
                return self._unrank_scaled(lo, hi, x, index, weights, shift, walk)
        if hi - lo <= _LEAF:
            return self._unrank_leaf(lo, hi, x, index, weights, walk)
        mid = split(lo, hi, _LEAF)
        y, index, left = self._unrank(lo, mid, x, index, self._col(mid, hi, weights), walk)
        end, rest, fold = self._unrank(mid, hi, y, index, weights, walk)
        for z, c in self._row(mid, hi, left).items():
            fold[z] = fold.get(z, 0) + c
        return end, rest, fold

    def _unrank_scaled(
        self, lo: int, hi: int, x: int, index: int, weights: dict[int, int], shift: int, walk: _Walk
    ) -> tuple[int, int, dict[int, int]]:
        """:meth:`_unrank` where the weights are longer than the range's own
        count by ``shift`` bits and more (everything right of the range counts
        in them): the range is unranked with ``index`` shifted right by
        ``shift`` bits and the weights too, each rounded up, so that the numbers
        it handles are as long as its count plus :data:`_GUARD` bits. Each
        earlier sequence's weight is then off by less than one unit, less in
        all than any one sequence's weight, so the sequence found is the one
        sought or a neighbour in the enumeration order; its fold times the
        exact weights is its exact rank, which says which, and a step to the
        neighbour (its fold changed by one sequence) corrects it."""
        scaled = {z: ((w - 1) >> shift) + 1 for z, w in weights.items() if w}
        y, _left, fold = self._unrank(lo, hi, x, index >> shift, scaled, walk)
        before = sum(c * weights.get(z, 0) for z, c in fold.items())
        while index < before:
            y = self._neighbour(lo, hi, x, walk, -1)
            before -= weights[y]
            fold[y] -= 1
        while index >= before + weights[y]:
            before += weights[y]
            fold[y] = fold.get(y, 0) + 1
            y = self._neighbour(lo, hi, x, walk, 1)
        return y, index - before, fold

    def _neighbour(self, lo: int, hi: int, x: int, walk: _Walk, step: int) -> int:
        """Replace the choices of referents ``lo..hi-1`` from state ``x`` by
        the next (``step`` 1) or previous (-1) sequence of live states in the
        enumeration order; return the state it ends in. Only the referents
        from the last that can change on are chosen again."""
        out, path, trees = walk.out, walk.path, walk.trees
        for i in range(hi - 1, lo - 1, -1):
            _ref, t = out[i]
            self._take(trees, t, 1)
            del out[i:], path[i:]
            y = x if i == lo else path[i - 1]
            choice = self._extreme(i, y, trees, step, self._position(self._class_of[i])[t])
            if choice is None:
                continue
            for k in range(i, hi):
                if k > i:
                    choice = self._extreme(k, y, trees, step, None)
                p, y = choice  # type: ignore[misc]
                target = self._lists[self._class_of[k]][p]
                out.append((self.referents[k], target))
                path.append(y)
                self._take(trees, target, -1)
            return y
        raise AssertionError("no neighbouring sequence")  # pragma: no cover - the index is in range

    def _extreme(
        self, i: int, x: int, trees: dict[tuple[int, int], Fenwick], step: int, after: int | None
    ) -> tuple[int, int] | None:
        """Referent ``i``'s free target from state ``x`` whose step is live:
        the first after list position ``after`` (``step`` 1) or the last
        before it (-1), or the first or last of all when ``after`` is None;
        as (list position, next state), or None."""
        j = self._class_of[i]
        best: tuple[int, int] | None = None
        for a, y, _free in self._steps(i, x):
            tree = trees[(j, a)]
            total = tree.prefix(tree.n)
            if step > 0:
                k = 0 if after is None else tree.prefix(after + 1)
            else:
                k = (total if after is None else tree.prefix(after)) - 1
            if not 0 <= k < total:
                continue
            p = _descend([(tree, 1)], k)[0]
            if best is None or (p < best[0] if step > 0 else p > best[0]):
                best = (p, y)
        return best

    def _unrank_leaf(
        self, lo: int, hi: int, x: int, index: int, weights: dict[int, int] | None, walk: _Walk
    ) -> tuple[int, int, dict[int, int]]:
        """:meth:`_unrank` on a leaf of the product tree, referent by referent."""
        # completions of each state of each level of the leaf, weighted at its end
        width = len(self._states()[hi])
        below = [1] * width if weights is None else [weights.get(z, 0) for z in range(width)]
        after: list[list[int]] = [below] * (hi - lo + 1)
        for i in range(hi - 1, lo, -1):
            here = []
            for steps in self._level_steps(i):
                ways = 0
                for _a, y, free in steps:
                    ways += free * below[y]
                here.append(ways)
            after[i - lo] = below = here
        trees, out, path = walk.trees, walk.out, walk.path
        # per referent, the free targets before the chosen one by the state each leads to (as rank makes them)
        digits: list[dict[int, int]] = []
        for i in range(lo, hi):
            j = self._class_of[i]
            below = after[i + 1 - lo]
            steps = self._steps(i, x)
            live = [(trees[(j, a)], below[y]) for a, y, _free in steps if below[y]]
            p, used = _descend(live, index)
            index -= used
            t = self._lists[j][p]
            chosen = self._atom_of[t]
            taken: dict[int, int] = {}
            for a, y, _free in steps:
                before = trees[(j, a)].prefix(p)
                if before:
                    taken[y] = before
                if a == chosen:
                    x = y
            digits.append(taken)
            out.append((self.referents[i], t))
            path.append(x)
            self._take(trees, t, -1)
        return x, index, self._fold(lo, hi, digits, lo)

    def __contains__(self, renaming: Renaming | Mapping[str, str]) -> bool:
        return accepts(self.rank, renaming)

    # ------------------------------------------------- enumerate and sample
    def enumerate(self, limit: int | None = None) -> Iterator[Renaming]:
        """Renamings in lexicographic order (see the module docstring); a
        depth-first walk with an explicit stack that takes, at each referent,
        the next free target whose atom leaves a state the rest can finish."""
        n = len(self.referents)
        if limit is not None and limit <= 0:
            return
        if not self._states()[0]:
            return
        if n == 0:
            yield Renaming(())
            return
        produced = 0
        trees = self._free_trees()
        mapping: list[tuple[str, str]] = []
        states = [0]  # state of each level reached so far
        # one frame per referent being decided: the list position of its next candidate
        frames = [0]
        while frames:
            i = len(frames) - 1
            if i == n:
                yield Renaming(tuple(mapping))
                produced += 1
                if limit is not None and produced >= limit:
                    return
                frames.pop()
                self._undo(mapping, trees, states)
                continue
            j = self._class_of[i]
            k = frames[-1]
            best: tuple[int, int] | None = None
            for a, y, _free in self._steps(i, states[i]):
                tree = trees[(j, a)]
                p = _descend([(tree, 1)], tree.prefix(k))[0]  # first free of atom a at k or later
                if p < tree.n and (best is None or p < best[0]):
                    best = (p, y)
            if best is None:  # no candidate left: back up
                frames.pop()
                if frames:
                    self._undo(mapping, trees, states)
                continue
            p, y = best
            t = self._lists[j][p]
            mapping.append((self.referents[i], t))
            self._take(trees, t, -1)
            states.append(y)
            frames[-1] = p + 1
            frames.append(0)

    def _undo(self, mapping: list[tuple[str, str]], trees: dict[tuple[int, int], Fenwick], states: list[int]) -> None:
        _ref, t = mapping.pop()
        self._take(trees, t, 1)
        states.pop()

    def sample(self, n: int, rng: random.Random | int | None = None) -> list[Renaming]:
        """``n`` renamings drawn independently and exactly uniformly."""
        check_draws(n)
        return list(islice(self.samples(rng), n))

    def samples(self, rng: random.Random | int | None = None) -> Iterator[Renaming]:
        """An endless stream of independent, exactly uniform renamings, in
        constant memory (what ``sample`` and ``--sample N`` draw from)."""
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        total = self.count()
        if total == 0:
            raise SpaceError("the program has no admissible renaming")
        if self.referents and len(self._atom_sizes) == 1 and all(self.allowed):
            # one atom: every referent may take every target, so a uniform
            # injective sequence is a uniform renaming
            pool, refs = self.allowed[0], self.referents
            while True:
                yield Renaming(tuple(zip(refs, rng.sample(pool, len(refs)))))
        while True:
            yield self.unrank(rng.randrange(total))

    # --------------------------------------------------------- apply / undo
    def apply(self, program: Program | None, renaming: Renaming) -> Program:
        """The program with every token of a renamed referent respelled.
        ``program``: the space's own (None), or a version of it with the same
        referents (its lines reordered, say); another program is refused
        (SpaceError), since a renaming of one program may merge the names of
        another (``%rax`` onto a ``%rcx`` the other already uses)."""
        program = self.program if program is None else program
        tokens_of = self._tokens_of if program is self.program else None
        if tokens_of is None and (names := _referents(program)) != (own := _referents(self.program)):
            raise SpaceError(
                f"this space renames a program of referents {', '.join(sorted(own))}, not one of "
                f"{', '.join(sorted(names))}: apply it to its own program or a reordering of it"
            )
        new_texts: dict[int, str] = {}
        for ref, target in renaming.mapping:
            if ref == target:
                continue
            ks = (
                tokens_of.get(ref, ())
                if tokens_of is not None
                else [k for k, t in enumerate(program.tokens) if t.referent == ref]
            )
            for k in ks:
                new_texts[k] = self.spell(program.tokens[k], target)
        renamed = program.with_token_texts(new_texts)
        # referents follow their tokens
        if new_texts:
            mapping = renaming.as_dict()
            tokens = tuple(
                replace(t, referent=mapping.get(t.referent, t.referent)) if t.referent in mapping else t
                for t in renamed.tokens
            )
            renamed = replace(renamed, tokens=tokens)
        return renamed

    def render(self, renaming: Renaming) -> str:
        """The renamed program's text, without building its IR: the fast path
        for producing many variants (see bench/bench_renamings.py)."""
        template = self._template()
        mapping = renaming.as_dict()
        spell = self._spell_cached
        out = []
        for piece in template:
            if isinstance(piece, str):
                out.append(piece)
            else:
                tok = piece
                target = mapping.get(tok.referent, tok.referent)
                out.append(tok.text if target == tok.referent else spell(tok.view, tok, target))
        return "".join(out)

    def _template(self) -> list:
        """The program text as literal strings and renamable tokens, in order."""
        if getattr(self, "_template_cache", None) is None:
            renamable = set(self.referents)
            program = self.program
            pieces: list = [program.prefix]
            for li, line in enumerate(program.lines):
                if li:
                    pieces.append(program.separator)
                pos = 0
                for k in program._line_token_indices(li):
                    tok = program.tokens[k]
                    if tok.referent in renamable:
                        pieces.append(line.text[pos : tok.start])
                        pieces.append(tok)
                        pos = tok.end
                pieces.append(line.text[pos:])
            pieces.append(program.suffix)
            merged: list = []
            for p in pieces:
                if isinstance(p, str) and merged and isinstance(merged[-1], str):
                    merged[-1] += p
                elif p != "":
                    merged.append(p)
            self._template_cache = merged
            self._spellings: dict[tuple[str, str], str] = {}
        return self._template_cache

    def _spell_cached(self, view: str, token: Token, target: str) -> str:
        key = (view, target) if self.spell_by_view else (token.text, target)
        got = self._spellings.get(key)
        if got is None:
            got = self._spellings[key] = self.spell(token, target)
        return got

    #: whether ``spell`` depends only on the token's view and the target (true
    #: for registers and names); frontends whose spelling needs the token's own
    #: text set it to False
    spell_by_view = True

    @staticmethod
    def undo(prediction, renaming: Renaming):
        """Map a prediction made on the renamed program back to the original's
        names: strings naming a target become the referent they came from;
        containers are mapped element-wise; anything else (a number) is kept."""
        return map_names(prediction, renaming.inverse())


def _referents(program: Program) -> frozenset[str]:
    """Every referent that a token of ``program`` names."""
    return frozenset(t.referent for t in program.tokens if t.referent is not None)
