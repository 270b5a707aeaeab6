"""RenamingSpace against brute force on random allowed-set structures."""

from __future__ import annotations

import itertools
import random

import pytest

from invar.errors import SpaceError
from invar.symmetry.renamings import Renaming, RenamingSpace
from tests.symmetry.renaming_cases import program, shared_case


def _brute(referents, allowed) -> list[tuple[tuple[str, str], ...]]:
    """Every injective map, in lexicographic order of the target tuple
    (targets ranked by their position in each referent's list)."""
    out = []
    for choice in itertools.product(*allowed):
        if len(set(choice)) == len(choice):
            out.append(tuple(zip(referents, choice)))
    return out


def _random_case(rng: random.Random):
    targets = [f"t{k}" for k in range(rng.randint(1, 7))]
    n = rng.randint(0, 5)
    referents = [f"r{k}" for k in range(n)]
    order = targets[:]
    rng.shuffle(order)  # one global order of targets, as frontends give
    allowed = [[t for t in order if rng.random() < 0.7] for _ in referents]
    return referents, allowed


@pytest.mark.parametrize("seed", range(300))
def test_count_enumerate_rank_unrank_match_brute_force(seed):
    rng = random.Random(seed)
    referents, allowed = _random_case(rng)
    space = RenamingSpace(program(referents), referents, allowed, lambda tok, t: t)
    expected = _brute(referents, allowed)
    assert space.count() == len(expected)
    listed = [r.mapping for r in space.enumerate()]
    assert listed == expected
    for k, mapping in enumerate(expected):
        assert space.unrank(k).mapping == mapping
        assert space.rank(Renaming(mapping)) == k
    if expected:
        for r in space.sample(5, rng):
            assert r.mapping in expected
    else:
        with pytest.raises(SpaceError):
            space.sample(1, rng)


@pytest.mark.parametrize("leaf,shift", [(1, None), (2, None), (3, None), (1, 0), (2, 0)])
@pytest.mark.parametrize("seed", range(60))
def test_product_tree_and_walk_match_brute_force(seed, leaf, shift, monkeypatch):
    """The same against brute force with the product tree cut into leaves of
    one, two and three referents (every split, fold and division runs on
    small cases), and with ranges unranked on weights shifted down
    wherever a bit can go (every correction step runs)."""
    from invar.symmetry import renamings

    monkeypatch.setattr(renamings, "_LEAF", leaf)
    if shift is not None:
        monkeypatch.setattr(renamings, "_MIN_SHIFT", 1)
        monkeypatch.setattr(renamings, "_GUARD", shift)
    rng = random.Random(1000 + seed)
    referents, allowed = _random_case(rng)
    space = RenamingSpace(program(referents), referents, allowed, lambda tok, t: t)
    expected = _brute(referents, allowed)
    assert space.count() == len(expected)
    assert [r.mapping for r in space.enumerate()] == expected
    for k, mapping in enumerate(expected):
        assert space.unrank(k).mapping == mapping
        assert space.rank(Renaming(mapping)) == k


@pytest.mark.parametrize("n,shared", [(1, 1), (20, 2), (150, 3), (400, 0)])
def test_several_states_per_level_count_by_formula_and_rank_unrank_agree(n, shared):
    """Past brute force: counts by a closed formula, unrank and rank inverse
    to each other, enumeration and sampling consistent with both."""
    referents, allowed, count = shared_case(n, shared)
    space = RenamingSpace(program(referents), referents, allowed, lambda tok, t: t)
    assert space.count() == count
    rng = random.Random(n)
    indices = sorted({0, 1, count - 1, *(rng.randrange(count) for _ in range(6))})
    for k in indices:
        r = space.unrank(k)
        assert space.rank(r) == k
        assert len({t for _, t in r.mapping}) == len(referents)
    listed = list(space.enumerate(3))
    assert [space.rank(r) for r in listed] == list(range(min(3, count)))
    for r in space.sample(3, rng):
        assert r in space


def test_apply_undo_and_render_agree():
    referents = ["x", "y"]
    space = RenamingSpace(program(referents), referents, [["a", "b", "c"], ["a", "b", "c"]], lambda tok, t: t)
    for r in space.enumerate():
        renamed = space.apply(None, r)
        assert renamed.render() == space.render(r)
        assert [t.referent for t in renamed.tokens] == [t for _, t in r.mapping]
        assert space.undo([t for _, t in r.mapping], r) == referents


def test_fast_render_equals_apply_on_every_fixture():
    """``render`` (template) and ``apply(...).render()`` (IR) agree everywhere."""
    from invar import parse_units
    from invar.frontends import EXTENSIONS
    from invar.symmetry.spaces import renaming_space
    from tests.conftest import FIXTURES

    checked = 0
    rng = random.Random(0)
    for path in sorted(FIXTURES.rglob("*")):
        lang = EXTENSIONS.get(path.suffix)
        # fixtures/blocks holds datasets (CSV tables), read by the audit tests
        if lang is None or "blocks" in path.relative_to(FIXTURES).parts:
            continue
        for unit in parse_units(path.read_text(), lang, path=str(path)):
            space = renaming_space(unit)
            if not space.count():
                continue
            for r in space.sample(3, rng):
                assert space.render(r) == space.apply(unit, r).render(), (path, unit.name)
                checked += 1
    assert checked > 500
