"""Ranking and unranking line orders: the bijection is part of the
documented format (docs/formats.md), so its outputs are pinned as produced by
the walker before the lazy pricing, checked by brute force on small orders,
and its work is counted (never timed) on a deep zipper."""

from __future__ import annotations

import itertools
import random

import pytest

from invar.symmetry import posets
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.posets import Poset

from .test_permutations import random_nested


def _zipper(n: int) -> tuple[int, list[tuple[int, int]]]:
    """``n`` writes, then ``n`` prints of them in order: a tree ``2n`` deep."""
    return 2 * n, [(i, n + i) for i in range(n)] + [(n + i - 1, n + i) for i in range(1, n)]


def _random(seed: int, k: int, p: float) -> tuple[int, list[tuple[int, int]]]:
    rng = random.Random(seed)
    return k, [(u, v) for u, v in itertools.combinations(range(k), 2) if rng.random() < p]


CASES = {
    "series": (9, [(0, 3), (1, 3), (2, 3), (3, 4), (3, 5), (4, 6), (5, 6), (6, 7), (6, 8)]),
    "parallel": (10, [(0, 4), (4, 8), (1, 5), (2, 6), (6, 9), (3, 7)]),
    "prime": (8, [(0, 2), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 6), (5, 7)]),
    "zipper": _zipper(15),
    "random-sparse": _random(3, 24, 0.08),
    "random-dense": _random(5, 26, 0.25),
}
#: (index, extension) at 0, count // 3, 2 * count // 3 + 1 and count - 1, as the previous walker gave them
PINNED = {
    "series": [
        (0, (0, 1, 2, 3, 4, 5, 6, 7, 8)),
        (8, (1, 0, 2, 3, 4, 5, 6, 7, 8)),
        (17, (2, 0, 1, 3, 4, 5, 6, 8, 7)),
        (23, (2, 1, 0, 3, 5, 4, 6, 8, 7)),
    ],
    "parallel": [
        (0, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
        (8400, (1, 0, 3, 4, 2, 6, 9, 5, 7, 8)),
        (16801, (2, 3, 0, 1, 4, 5, 6, 7, 9, 8)),
        (25199, (3, 7, 2, 6, 9, 1, 5, 0, 4, 8)),
    ],
    "prime": [
        (0, (0, 1, 2, 3, 4, 5, 6, 7)),
        (15, (0, 1, 3, 5, 7, 2, 4, 6)),
        (31, (1, 0, 3, 5, 7, 2, 4, 6)),
        (45, (1, 3, 5, 7, 0, 2, 4, 6)),
    ],
    "zipper": [
        (0, tuple(range(30))),
        (
            2063427784543125,
            (
                1,
                12,
                0,
                2,
                9,
                15,
                3,
                16,
                4,
                5,
                17,
                6,
                18,
                8,
                13,
                11,
                19,
                20,
                10,
                7,
                21,
                22,
                23,
                24,
                25,
                26,
                27,
                28,
                14,
                29,
            ),
        ),
        (
            4126855569086251,
            (
                6,
                10,
                0,
                2,
                3,
                15,
                7,
                8,
                11,
                1,
                16,
                17,
                5,
                9,
                4,
                12,
                18,
                19,
                20,
                21,
                22,
                23,
                24,
                14,
                13,
                25,
                26,
                27,
                28,
                29,
            ),
        ),
        (6190283353629374, (*range(14, -1, -1), *range(15, 30))),
    ],
    "random-sparse": [
        (0, tuple(range(24))),
        (53513405883463680, (1, 4, 18, 3, 2, 8, 0, 7, 15, 6, 9, 23, 22, 12, 5, 16, 14, 21, 10, 20, 11, 19, 13, 17)),
        (107026811766927361, (5, 1, 3, 18, 4, 8, 14, 2, 16, 0, 6, 22, 7, 9, 11, 12, 15, 19, 10, 21, 20, 13, 23, 17)),
        (160540217650391039, (21, 18, 16, 12, 8, 5, 14, 3, 15, 20, 19, 2, 1, 4, 0, 22, 7, 9, 23, 6, 11, 17, 13, 10)),
    ],
    "random-dense": [
        (0, tuple(range(26))),
        (
            152750312592500,
            (1, 3, 4, 2, 6, 10, 0, 8, 12, 25, 13, 15, 5, 9, 21, 16, 7, 18, 22, 11, 23, 19, 17, 14, 24, 20),
        ),
        (
            305500625185002,
            (4, 0, 1, 3, 2, 7, 10, 8, 5, 9, 11, 15, 13, 21, 6, 22, 23, 12, 14, 17, 16, 19, 20, 18, 25, 24),
        ),
        (
            458250937777501,
            (8, 4, 1, 6, 5, 9, 3, 10, 15, 2, 13, 21, 11, 19, 0, 22, 23, 17, 12, 25, 16, 20, 18, 24, 7, 14),
        ),
    ],
}
#: PermutationSpace over random_nested(Random(seed), 40): (count, [(index, order)])
PINNED_PROGRAMS = {
    7: (
        2529792000,
        [
            (843264000, (1, 2, 3, 4, 0, *range(5, 40))),
            (
                2529791998,
                (
                    2,
                    3,
                    1,
                    4,
                    39,
                    5,
                    6,
                    7,
                    35,
                    34,
                    33,
                    32,
                    8,
                    16,
                    19,
                    18,
                    17,
                    15,
                    9,
                    10,
                    12,
                    11,
                    13,
                    14,
                    20,
                    21,
                    23,
                    22,
                    27,
                    26,
                    25,
                    29,
                    24,
                    28,
                    30,
                    31,
                    37,
                    36,
                    38,
                    0,
                ),
            ),
        ],
    ),
    11: (
        141806700,
        [
            (47268900, (0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 13, *range(15, 31), 14, 31, 32, 11, 12, *range(33, 40))),
            (
                141806698,
                (
                    2,
                    0,
                    3,
                    4,
                    5,
                    6,
                    7,
                    8,
                    9,
                    10,
                    13,
                    15,
                    32,
                    16,
                    20,
                    22,
                    21,
                    23,
                    24,
                    26,
                    25,
                    27,
                    19,
                    18,
                    28,
                    17,
                    30,
                    29,
                    31,
                    14,
                    11,
                    33,
                    1,
                    12,
                    35,
                    36,
                    37,
                    38,
                    39,
                    34,
                ),
            ),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unrank_gives_what_it_gave_before_and_rank_inverts_it(name):
    poset = Poset(*CASES[name])
    count = poset.count()
    assert [i for i, _ in PINNED[name]] == [0, count // 3, 2 * count // 3 + 1, count - 1]
    for index, extension in PINNED[name]:
        assert tuple(poset.unrank(index)) == extension
        assert poset.rank(extension) == index


def test_the_prime_case_has_a_prime_part():
    assert Poset(*CASES["prime"]).prime_sizes()


@pytest.mark.parametrize("seed", sorted(PINNED_PROGRAMS))
def test_programs_with_nested_blocks_unrank_as_before(seed):
    space = PermutationSpace(random_nested(random.Random(seed), 40))
    count, pinned = PINNED_PROGRAMS[seed]
    assert space.count() == count
    for index, order in pinned:
        assert space.unrank(index).order == order
        assert space.rank(order) == index


@pytest.mark.parametrize("seed", range(30))
def test_rank_and_unrank_are_the_lexicographic_bijection(seed):
    """Every extension of a small random poset, listed by brute force in
    lexicographic order, is unranked from its position and ranked back."""
    rng = random.Random(seed)
    k = rng.randint(0, 7)
    edges = [(u, v) for u, v in itertools.combinations(range(k), 2) if rng.random() < rng.choice([0.1, 0.3, 0.5])]
    extensions = [p for p in itertools.permutations(range(k)) if all(p.index(u) < p.index(v) for u, v in edges)]
    poset = Poset(k, edges)
    assert poset.count() == len(extensions)
    for index, extension in enumerate(extensions):
        assert tuple(poset.unrank(index)) == extension
        assert poset.rank(extension) == index
    with pytest.raises(ValueError):
        poset.rank(tuple(reversed(range(k))) if edges else (k,))


@pytest.mark.parametrize("n", [100, 300])
def test_unranking_a_deep_zipper_prices_each_option_with_a_bounded_number_of_big_operations(n, monkeypatch):
    """On the zipper (a tree 2n deep) the previous walker priced every option
    that may come next along its whole path, with big-integer divisions at
    every node (about n² options × 2n nodes). Now only the options before the
    one taken are priced, each from the one before it (one multiplication and
    one division by a small number), and only the first along its path."""
    walkers: list[posets.Walker] = []

    class Counted(posets.Walker):
        def __init__(self, poset):
            super().__init__(poset)
            walkers.append(self)

    monkeypatch.setattr(posets, "Walker", Counted)
    k, edges = _zipper(n)
    poset = Poset(k, edges)
    index = poset.count() // 3
    extension = poset.unrank(index)
    assert poset.rank(extension) == index
    for walk in walkers:
        work = walk.work
        assert work["big"] <= 2 * work["priced"]
        assert work["priced"] <= k * k // 8
        assert work["factors"] <= k * k
