"""The Space protocol: renaming, permutation and product spaces of real
programs keep one contract (count, rank/unrank, enumerate, seeded samples),
the product is itertools.product's, and the audit's drawing, generic over
it, draws what it drew when it special-cased each transform."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from functools import lru_cache

import pytest

import invar
from invar.audit import run
from invar.audit.config import TRANSFORMS
from invar.errors import SpaceError
from invar.program import Line, Program
from invar.symmetry.permutations import IntractableError, PermutationSpace
from invar.symmetry.space import ProductSpace, Space, draw
from invar.symmetry.spaces import renaming_space
from tests.conftest import FIXTURES

#: (fixture, language, unit): real programs of every language, small enough to enumerate
PROGRAMS = [
    ("x86/figure1a.s", "x86", 0),
    ("x86/gcc-blocks.s", "x86", 4),
    ("python/arith.py", "python", 2),
    ("python/control.py", "python", 6),
    ("java/Arith.java", "java", 7),
    ("java/Lists.java", "java", 1),
    ("ltl/paper.ltl", "ltl", 0),
]
KINDS = ["renaming", "permutation", "product"]


@lru_cache(maxsize=None)
def program(fixture: str, lang: str, unit: int) -> Program:
    return invar.parse_units((FIXTURES / fixture).read_text(encoding="utf-8"), lang)[unit]


def space_of(kind: str, p: Program) -> Space:
    if kind == "renaming":
        return renaming_space(p)
    if kind == "permutation":
        return PermutationSpace(p)
    return ProductSpace(renaming_space(p), PermutationSpace(p))


CASES = [pytest.param(kind, case, id=f"{kind}-{case[0]}#{case[2]}") for kind in KINDS for case in PROGRAMS]


@pytest.mark.parametrize("kind,case", CASES)
def test_every_space_keeps_the_protocol(kind, case):
    space = space_of(kind, program(*case))
    assert isinstance(space, Space)
    assert type(space.count()) is int and space.exact_sampling


@pytest.mark.parametrize("kind,case", CASES)
def test_count_is_the_enumerations_length_and_rank_inverts_unrank(kind, case):
    space = space_of(kind, program(*case))
    every = list(space.enumerate())
    assert space.count() == len(every) == len(set(every))
    step = max(1, len(every) // 300)  # every element of the small spaces, a spread of the large
    for i in range(0, len(every), step):
        x = every[i]
        assert x in space
        assert space.rank(x) == i
        assert space.unrank(space.rank(x)) == x
    assert list(space.enumerate(limit=3)) == every[:3]


@pytest.mark.parametrize("kind,case", CASES)
def test_a_space_applies_to_its_program_and_its_versions_and_refuses_another(kind, case):
    """A renaming of one program may merge another's names (``%rax`` onto
    the ``%rcx`` it already uses), and an order of n lines indexes past a
    shorter program: both are refused, while a version of the space's own
    program (reordered, renamed) is transformed as the audit transforms it."""
    p = program(*case)
    space, names, orders = space_of(kind, p), renaming_space(p), PermutationSpace(p)
    t, r, o = space.unrank(space.count() - 1), names.unrank(names.count() - 1), orders.unrank(orders.count() - 1)
    if kind == "renaming":  # renaming a reordered program = reordering the renamed one
        assert space.apply(orders.apply(None, o), t).render() == orders.apply(space.apply(None, t), o).render()
    if kind == "permutation":
        assert space.apply(names.apply(None, r), t).render() == names.apply(space.apply(None, t), r).render()
    other = program(*PROGRAMS[(PROGRAMS.index(case) + 1) % len(PROGRAMS)])
    assert len(other.lines) != len(p.lines)
    with pytest.raises(SpaceError, match="apply it to its own program"):
        space.apply(other, t)


@pytest.mark.parametrize("kind", KINDS)
def test_a_negative_count_of_draws_is_refused(kind):
    with pytest.raises(SpaceError, match="cannot draw -1 elements"):
        space_of(kind, program(*PROGRAMS[0])).sample(-1, rng=0)


@pytest.mark.parametrize("kind,case", CASES)
def test_samples_are_seeded(kind, case):
    space = space_of(kind, program(*case))
    drawn = space.sample(6, 11)
    assert drawn == space.sample(6, random.Random(11)) == list(itertools.islice(space.samples(11), 6))
    assert all(x in space for x in drawn)


@pytest.mark.parametrize("case", PROGRAMS, ids=[f"{c[0]}#{c[2]}" for c in PROGRAMS])
def test_the_product_is_itertools_product_of_its_factors(case):
    p = program(*case)
    names, orders = renaming_space(p), PermutationSpace(p)
    both = ProductSpace(names, orders)
    assert both.count() == names.count() * orders.count()
    assert list(both.enumerate()) == list(itertools.product(names.enumerate(), orders.enumerate()))
    # a draw is a renaming, then an order, per element, from one generator
    rng = random.Random(5)
    r, o = names.samples(rng), orders.samples(rng)
    assert both.sample(4, 5) == [(next(r), next(o)) for _ in range(4)]
    # applied in order (renamed, then reordered), undone in reverse
    t = both.unrank(both.count() - 1)
    variant = orders.apply(names.apply(p, t[0]), t[1])
    assert both.apply(None, t) == variant and both.render(t) == variant.render()
    referents = [r for r, _ in t[0].mapping]
    assert both.undo([b for _, b in t[0].mapping], t) == referents


def _toy(max_states: int) -> PermutationSpace:
    """A prime order of four lines (an N), too wide for a table of ``max_states`` down-sets."""
    p = Program("toy", tuple(Line(f"l{i}") for i in range(4)), (), deps=((0, 2), (1, 2), (1, 3)))
    return PermutationSpace(p, max_states=max_states)


def test_a_product_with_a_factor_too_wide_to_count_refuses_with_bounds():
    wide, narrow = _toy(2), _toy(8)
    assert not wide.exact_sampling and narrow.count() == 5
    both = ProductSpace(narrow, wide)
    with pytest.raises(IntractableError) as err:
        both.count()
    assert (err.value.lower, err.value.upper) == (5 * 4, 5 * 6)
    got = draw(both, 3, random.Random(0))
    assert (got.size, got.exhaustive, got.exact, len(got.items)) == (None, False, False, 3)
    assert all(x in both for x in got.items)
    assert [tuple(x.order for x in t) for t in list(both.enumerate())[:2]] == [
        ((0, 1, 2, 3), (0, 1, 2, 3)),
        ((0, 1, 2, 3), (0, 1, 3, 2)),
    ]


def test_a_product_refuses_what_is_not_its_element():
    p = program("python/arith.py", "python", 2)
    both = ProductSpace(renaming_space(p), PermutationSpace(p))
    with pytest.raises(SpaceError):
        both.rank((both.unrank(0)[0],))
    with pytest.raises(SpaceError):
        both.unrank(both.count())
    assert (both.unrank(0)[0],) not in both and "x" not in both
    with pytest.raises(ValueError):
        ProductSpace()


# ------------------------------------------------------------ the audit's draw
def test_every_transform_names_its_spaces():
    assert set(run.FACTORS) == set(TRANSFORMS)
    assert {f for fs in run.FACTORS.values() for f in fs} == set(run._SPACES) == {"renaming", "permutation"}


#: what ``draw`` gave before it was generic (main, before the Space protocol), literally
PINNED = {
    ("x86/figure1a.s", "x86", 0, "both", 2, 0): (
        3360,
        False,
        [
            {"order": [0, 1, 2], "renaming": {"gpr:a": "gpr:r15", "gpr:bp": "gpr:si", "gpr:sp": "gpr:r12"}},
            {"order": [0, 1, 2], "renaming": {"gpr:a": "gpr:sp", "gpr:bp": "gpr:r8", "gpr:sp": "gpr:c"}},
        ],
    ),
    ("x86/gcc-blocks.s", "x86", 1, "renamings", 2, 0): (
        3150,
        False,
        [
            {"renaming": {"gpr:a": "gpr:r8", "gpr:d": "gpr:r11"}},
            {"renaming": {"gpr:a": "gpr:r15", "gpr:d": "gpr:r10", "gpr:di": "gpr:r11"}},
        ],
    ),
    ("python/control.py", "python", 0, "both", 5, 7): (
        4,
        True,
        [
            {
                "order": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                "renaming": {"local:classify_number:kind": "kind", "local:classify_number:size": "size"},
            },
            {
                "order": [0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 10],
                "renaming": {"local:classify_number:kind": "kind", "local:classify_number:size": "size"},
            },
            {
                "order": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                "renaming": {"local:classify_number:kind": "size", "local:classify_number:size": "kind"},
            },
            {
                "order": [0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 10],
                "renaming": {"local:classify_number:kind": "size", "local:classify_number:size": "kind"},
            },
        ],
    ),
    ("java/Arith.java", "java", 0, "permutations", 5, 7): (
        3,
        True,
        [{"order": [0, 1, 2, 3, 4, 5, 6]}, {"order": [0, 1, 3, 2, 4, 5, 6]}, {"order": [0, 2, 1, 3, 4, 5, 6]}],
    ),
    ("ltl/paper.ltl", "ltl", 0, "both", 40, 0): (
        2,
        True,
        [{"order": [0, 1], "renaming": {}}, {"order": [0, 1], "renaming": {"a": "b", "b": "a"}}],
    ),
}


@pytest.mark.parametrize("key", list(PINNED), ids=[f"{k[0]}#{k[2]}-{k[3]}-{k[4]}-{k[5]}" for k in PINNED])
def test_draw_gives_the_variants_it_gave_before(key):
    fixture, lang, unit, transform, k, seed = key
    got = run.draw(program(fixture, lang, unit), transform, k, random.Random(seed))
    size, exhaustive, described = PINNED[key]
    assert (got.size, got.exhaustive, got.exact) == (size, exhaustive, True)
    assert [v.describe() for v in got.variants] == described


#: (fixture, language): the first six units of each, every transform, K and seed below
TABLE = [
    ("x86/figure1a.s", "x86"),
    ("x86/gcc-blocks.s", "x86"),
    ("python/arith.py", "python"),
    ("python/control.py", "python"),
    ("java/Arith.java", "java"),
    ("ltl/paper.ltl", "ltl"),
]
#: sha256 of that table's draws as main drew them before the Space protocol (468 draws), but for the
#: twelve of gcc-blocks.s's third block that rename: its SSE ``movsd`` stores were read as the string
#: instruction, which pins %rsi and %rdi (43,680 renamings where the block has 57,600)
TABLE_SHA256 = "348355f15999b0e248ce11d56cf2c722bce0a2fcc507fc4321dad67a94b34350"


def test_every_draw_of_a_table_is_what_it_was_before():
    out = {}
    for fixture, lang in TABLE:
        units = invar.parse_units((FIXTURES / fixture).read_text(encoding="utf-8"), lang)[:6]
        for u, p in enumerate(units):
            for transform, k, seed in itertools.product(TRANSFORMS, (2, 5, 40), (0, 7)):
                got = run.draw(p, transform, k, random.Random(seed))
                out[f"{fixture}#{u}:{transform}:{k}:{seed}"] = [
                    str(got.size),
                    got.exhaustive,
                    got.exact,
                    [v.describe() for v in got.variants],
                ]
    assert len(out) == 468
    assert hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest() == TABLE_SHA256


def _draw_as_before(program: Program, transform: str, k: int, rng: random.Random, orders: PermutationSpace):
    """Main's ``draw`` before the protocol, its sampling branch: a renaming then an order per variant."""
    names = renaming_space(program) if transform in ("renamings", "both") else None
    orders = orders if transform in ("permutations", "both") else None
    streams = [s.samples(rng) for s in (names, orders) if s is not None]
    return [
        run.Variant(next(streams[0]) if names is not None else None, next(streams[-1]) if orders is not None else None)
        for _ in range(k)
    ]


@pytest.mark.parametrize("transform", ["permutations", "both"])
def test_draw_from_a_space_too_wide_to_count_is_what_it_was_before(transform, monkeypatch):
    """Where the orders are too many to count (drawn by the Markov chain)."""
    p = program("x86/gcc-blocks.s", "x86", 15)  # a prime part of 4 units: more than 2 down-sets
    monkeypatch.setitem(run._SPACES, "permutation", lambda program, pool: PermutationSpace(program, max_states=2))
    got = run.draw(p, transform, 7, random.Random(3))
    assert got.size is None and not got.exhaustive
    assert got.exact == PermutationSpace(p, max_states=2).exact_sampling
    assert got.variants == _draw_as_before(p, transform, 7, random.Random(3), PermutationSpace(p, max_states=2))
    assert (got.rspace is not None) == (transform == "both")
