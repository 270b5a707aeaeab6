"""The dependency rule Python and Java share: its sparse pairs have exactly the
closure of "every pair that conflicts"."""

from __future__ import annotations

import random

import pytest

from invar.frontends.effects import HEAP, Effect, block_deps, conflict


def all_pairs(members, protected):
    """The reference: every pair of lines that conflict, in order."""
    return [
        (i, j) for x, (i, a) in enumerate(members) for j, b in members[x + 1 :] if conflict(a, b, protected=protected)
    ]


def closure(pairs, lines):
    reach = {i: set() for i in lines}
    for i in sorted(lines, reverse=True):
        for a, b in pairs:
            if a == i:
                reach[i] |= {b} | reach[b]
    return {(i, j) for i in lines for j in reach[i]}


GLOBALS = ["global:g", "global:h", "global:k"]


def random_effect(rng: random.Random) -> Effect:
    resources = ["local:x", "local:y", "local:z", HEAP, *GLOBALS]
    e = Effect(reads={r for r in resources if rng.random() < 0.3}, writes={r for r in resources if rng.random() < 0.15})
    if rng.random() < 0.2:
        e.reads.add("global:*")  # every global, as eval() may read them
    e.side = rng.random() < 0.15
    e.barrier = rng.random() < 0.04
    e.jump = rng.random() < 0.02
    e.may_raise = rng.random() < 0.3
    return e


@pytest.mark.parametrize("seed", range(200))
def test_sparse_pairs_have_the_closure_of_all_conflicts(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 14)
    lines = sorted(rng.sample(range(40), n))  # a block's lines need not be consecutive
    members = [(i, random_effect(rng)) for i in lines]
    protected = rng.random() < 0.3
    sparse = block_deps(members, protected=protected)
    assert all(i < j for i, j in sparse)
    assert set(sparse) <= set(all_pairs(members, protected))  # only real conflicts
    assert closure(sparse, lines) == closure(all_pairs(members, protected), lines)


def expanded(e: Effect) -> Effect:
    """``e`` with its whole-prefix read spelled out over the globals there are."""
    reads = set(e.reads) - {"global:*"} | (set(GLOBALS) if "global:*" in e.reads else set())
    return Effect(reads, set(e.writes), e.side, e.barrier, e.jump, e.may_raise)


@pytest.mark.parametrize("seed", range(200))
def test_a_whole_prefix_read_orders_as_its_resources_spelled_out(seed):
    rng = random.Random(seed)
    lines = list(range(rng.randint(1, 16)))
    members = [(i, random_effect(rng)) for i in lines]
    protected = rng.random() < 0.3
    spelled = [(i, expanded(e)) for i, e in members]
    assert closure(block_deps(members, protected=protected), lines) == closure(
        block_deps(spelled, protected=protected), lines
    )
    assert all_pairs(members, protected) == all_pairs(spelled, protected)


def test_whole_reads_keep_the_pairs_linear():
    """A module's top level after ``eval`` escaped: every call reads every
    global, every ``def`` writes a new one. The pairs stay a few per line
    (spelled out, each def would follow every call before it). Whole
    readers without a side effect (``frame.f_globals``) are not ordered
    among themselves, so each later write follows each of them: there the
    pairs are as many as the conflicts need."""
    members = []
    for i in range(0, 6000, 2):
        members.append((i, Effect(writes={f"global:f{i}"})))
        members.append((i + 1, Effect(reads={"global:*", HEAP}, writes={HEAP}, side=True)))
    assert len(block_deps(members)) < 3 * 6000


def test_pairs_grow_linearly():
    """A long block of independent statements and one final return: the
    pairs are a handful per line, not one per pair of lines."""
    members = [(i, Effect(reads={f"local:v{i}"}, writes={f"local:w{i}"})) for i in range(5000)]
    members.append((5000, Effect(barrier=True)))
    assert len(block_deps(members)) == 5000
    chain = [(i, Effect(reads={"local:x"}, writes={"local:x"}, side=True)) for i in range(5000)]
    assert len(block_deps(chain)) < 2 * 5000
