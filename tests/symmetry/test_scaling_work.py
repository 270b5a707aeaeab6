"""The samplers' and the Python frontend's work, counted, on inputs CI can
afford: each test checks the output and a bound on operations that the
previous code exceeded by a factor growing with the input (never time)."""

from __future__ import annotations

import gc
import itertools
import math
import random
from collections import Counter

import pytest

import invar
from invar.symmetry import ordered, posets, renamings
from invar.symmetry.posets import SAMPLER_VERSION, Poset
from invar.symmetry.renamings import RenamingSpace
from invar.symmetry.transfer import split
from tests.symmetry.renaming_cases import program, shared_case


def _zipper(n: int) -> tuple[int, list[tuple[int, int]]]:
    """``n`` writes, then ``n`` prints of them in order: a tree ``2n`` deep."""
    return 2 * n, [(i, n + i) for i in range(n)] + [(n + i - 1, n + i) for i in range(1, n)]


def _is_extension(seq, edges) -> bool:
    at = {u: p for p, u in enumerate(seq)}
    return sorted(seq) == list(range(len(seq))) and all(at[u] < at[v] for u, v in edges)


def _counting_selects(monkeypatch) -> Counter:
    calls: Counter = Counter()
    select = ordered.OrderedSet.select

    def counted(self, r):
        calls["select"] += 1
        return select(self, r)

    monkeypatch.setattr(ordered.OrderedSet, "select", counted)
    return calls


@pytest.mark.parametrize("n", [200, 2000])
def test_a_draw_of_a_deep_zipper_places_each_element_a_bounded_number_of_times(n, monkeypatch):
    """Version 2 hands a node's positions to its largest child in place: on
    the zipper (a tree 2n deep, each node shedding one element) every
    element is looked up about once, where version 1 copied each level's draw
    (n² element copies in all)."""
    k, edges = _zipper(n)
    poset = Poset(k, edges)
    calls = _counting_selects(monkeypatch)
    draw = poset.sample(random.Random(1))
    assert _is_extension(draw, edges)
    assert calls["select"] <= 2 * k


@pytest.mark.parametrize("seed", range(40))
def test_version_2_draws_what_version_1_drew_on_small_parallel_nodes(seed):
    """Where every parallel node holds at most SHUFFLE_MAX elements the two
    versions take the same random numbers in the same order: the same seed
    gives the same extension."""
    rng = random.Random(seed)
    k = rng.randint(0, 40)
    edges = [(u, v) for u, v in itertools.combinations(range(k), 2) if rng.random() < rng.choice([0.02, 0.1, 0.3])]
    poset = Poset(k, edges)
    for s in range(3):
        assert poset.sample(random.Random(s), 2) == poset.sample(random.Random(s), 1)
    with pytest.raises(ValueError):
        poset.sample(random.Random(0), SAMPLER_VERSION + 1)


def test_a_large_child_beside_small_ones_draws_only_the_small_ones_positions_uniformly(monkeypatch):
    """Past SHUFFLE_MAX a parallel node draws the positions of its children
    other than the largest (``random.sample``): exactly uniform over the
    interleavings, checked by counting every extension of a small case
    drawn that way (the threshold lowered to reach it)."""
    monkeypatch.setattr(posets, "SHUFFLE_MAX", 0)
    # a chain of 4 beside a chain of 1 and a 2-antichain under nothing: 7!/(4!·1!·2!)·2 = 210 extensions
    edges = [(0, 1), (1, 2), (2, 3)]
    poset = Poset(7, edges)
    assert poset.count() == 210
    rng = random.Random(5)
    draws = Counter(tuple(poset.sample(rng)) for _ in range(21_000))
    assert len(draws) == 210 and all(_is_extension(d, edges) for d in draws)
    # each of 210 outcomes expects 100 draws; a chi-square statistic far in the tail fails
    chi2 = sum((c - 100) ** 2 / 100 for c in draws.values())
    assert chi2 < 320


# ------------------------------------------------------------------ renamings
def _shared(n: int, shared: int) -> tuple[RenamingSpace, int]:
    """Two classes of ``n`` referents over pools of their own plus ``shared``
    targets both may take (``shared²/2`` states a level), and its count by formula."""
    referents, allowed, count = shared_case(n, shared)
    return RenamingSpace(program(referents), referents, allowed, lambda tok, t: t), count


@pytest.mark.parametrize("n,shared", [(300, 5), (600, 5)])
def test_a_wide_renaming_space_counts_with_a_product_per_tree_node(n, shared):
    """The count is one polynomial product per referent in the leaves and
    one per node above them, whatever the states per level (the previous
    code multiplied S×S matrices: S³ per node, and walked level by level past
    16 states)."""
    space, count = _shared(n, shared)
    assert max(map(len, space._states())) > 16
    assert space.count() == count
    refs = 2 * n
    assert space._transfer().products <= refs + 2 * math.ceil(refs / renamings._LEAF) + 1


def _leaves(lo: int, hi: int) -> int:
    """Leaves of the product tree over referents ``lo..hi-1``."""
    if hi - lo <= renamings._LEAF:
        return 1
    mid = split(lo, hi, renamings._LEAF)
    return _leaves(lo, mid) + _leaves(mid, hi)


def test_unranking_handles_numbers_that_halve_down_the_tree(monkeypatch):
    """A leaf of the product tree compares its choices against weights as
    long as what lies right of it within its parent's range, so the numbers
    halve at every split: referents times bits, summed over leaves, stay
    within the count's bits times the tree's depth (times a leaf), where the
    previous code walked a space of more than 16 states a level as one leaf
    whose every referent handled numbers as long as the whole count."""
    space, count = _shared(600, 5)
    work: list[int] = []
    leaf = RenamingSpace._unrank_leaf

    def counted(self, lo, hi, x, index, weights, *rest):
        bits = max([index.bit_length(), *(w.bit_length() for w in (weights or {}).values())])
        work.append((hi - lo) * bits)
        return leaf(self, lo, hi, x, index, weights, *rest)

    monkeypatch.setattr(RenamingSpace, "_unrank_leaf", counted)
    rng = random.Random(3)
    leaves = _leaves(0, 1200)
    for index in (0, count - 1, count // 3, rng.randrange(count)):
        work.clear()
        renaming = space.unrank(index)
        assert space.rank(renaming) == index
        assert len(work) == leaves
        assert sum(work) <= 2 * renamings._LEAF * count.bit_length() * (math.log2(leaves) + 1)
        assert sum(work) < 1200 * count.bit_length() / 3


@pytest.mark.parametrize("n", [500, 2000])
def test_unranking_a_wide_space_handles_numbers_as_long_as_each_range_own_count(n, monkeypatch):
    """Every range of the product tree, right halves as well as left ones,
    is unranked on weights scaled down to its own count and corrected from
    the fold of what it chose, so each level of the tree handles about the
    count's bits: the leaves about a leaf's length times the count's bits in
    all, and the vectors multiplied by a range's polynomial about the count's
    bits times the states per level, per level of the tree. The previous code
    scaled only left halves: a right half kept its parent's weights, as long
    as the parent's count, down the right spine of every left half, so both
    grew by a factor of the tree's depth more (at 2,000 referents a class,
    leaves 3.3 to 4.4 times a leaf's length times the count's bits and
    vectors 11.4 to 12.7 times the count's bits and the states, against 2.1
    and 6.8 to 8.1 here)."""
    from invar.symmetry import transfer

    space, count = _shared(n, 5)
    states = max(map(len, space._states()))
    bits = count.bit_length()
    work = Counter()
    leaf, col, row = RenamingSpace._unrank_leaf, transfer.Transfer.col, transfer.Transfer.row

    def counted_leaf(self, lo, hi, x, index, weights, *rest):
        work["leaves"] += (hi - lo) * max([index.bit_length(), *(w.bit_length() for w in (weights or {}).values())])
        return leaf(self, lo, hi, x, index, weights, *rest)

    def counted_col(self, lo, hi, w):
        work["vectors"] += sum(c.bit_length() for c in (w or {}).values())
        return col(self, lo, hi, w)

    def counted_row(self, lo, hi, f):
        work["vectors"] += sum(c.bit_length() for c in f.values())
        return row(self, lo, hi, f)

    monkeypatch.setattr(RenamingSpace, "_unrank_leaf", counted_leaf)
    monkeypatch.setattr(transfer.Transfer, "col", counted_col)
    monkeypatch.setattr(transfer.Transfer, "row", counted_row)
    depth = math.log2(_leaves(0, 2 * n))
    for index in (count // 3, count - 1):
        work.clear()
        renaming = space.unrank(index)
        assert work["leaves"] <= 2.5 * renamings._LEAF * bits
        assert work["vectors"] <= (depth + 2) * states * bits
        assert space.rank(renaming) == index


# ------------------------------------------------------------ Python frontend
def test_the_python_frontend_parses_without_cyclic_collections():
    """A parse allocates some 25 objects a line and frees almost none until
    it returns: collections during it only scan a growing heap (half the
    time at 100,000 locals, some 200 collections at 3,000). None runs now
    but the one the first allocation after it may start, and the collector's
    state is given back as it was."""
    n = 3000
    text = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n))
    text += "    return [" + ", ".join(f"v{i}" for i in range(n)) + "]\n"
    invar.parse_units("def g():\n    return 1\n", "python")  # imports first
    starts: list[int] = []

    def note(phase, info):
        if phase == "start":
            starts.append(info["generation"])

    gc.callbacks.append(note)
    try:
        assert gc.isenabled()
        units = invar.parse_units(text, "python")
        assert gc.isenabled()
        gc.disable()
        try:
            invar.parse_units("def g():\n    return 1\n", "python")
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(note)
    assert len(units[0].lines) == n + 2
    # the one a first allocation after the parse may trigger, of the young objects only
    assert len(starts) <= 1 and 2 not in starts


def test_enumerating_line_orders_finds_each_next_unit_in_logarithmic_steps(monkeypatch):
    """The walk keeps the units that may come next in a Fenwick tree, so a
    decision costs a few of its logarithmic lookups, not a scan of the group
    (the previous code listed every available unit at every decision: k² a
    order on this zipper of k units). The orders are the space's first ones,
    in lexicographic order."""
    from invar.symmetry.permutations import PermutationSpace

    n, limit = 300, 10
    text = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n))
    text += "".join(f"    print(v{i})\n" for i in range(n))
    space = PermutationSpace(invar.parse(text, "python"))
    k = sum(len(g.ranges) for g in space.groups)
    assert k == 2 * n
    calls: Counter = Counter()
    for name in ("rank", "select"):
        method = getattr(ordered.OrderedSet, name)

        def counted(self, r, _method=method, _name=name):
            calls[_name] += 1
            return _method(self, r)

        monkeypatch.setattr(ordered.OrderedSet, name, counted)
    orders = [t.order for t in space.enumerate(limit=limit)]
    # at most one decision per unit per order (a back-up re-decides the tail), two lookups each
    assert calls["rank"] + calls["select"] <= 2 * 2 * (limit + 1) * k
    assert orders == sorted(set(orders)) and len(orders) == limit
    assert orders[0] == tuple(range(2 * n + 1))
    assert all(order in space for order in orders)
