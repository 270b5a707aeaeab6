"""The decomposition tree of a poset is the canonical one, whatever path
(peeling single elements or the general split) built it."""

from __future__ import annotations

import itertools
import random

import pytest

from invar.symmetry.posets import PARALLEL, PRIME, SERIES, UNIT, Poset


def _below(k: int, edges) -> list[set[int]]:
    """``below[v]``: every element under ``v`` (transitive closure)."""
    below = [set() for _ in range(k)]
    for u, v in sorted(edges, key=lambda e: e[1]):
        below[v] |= {u} | below[u]
    for v in range(k):  # edges sorted by head: close once more over chains
        for u in list(below[v]):
            below[v] |= below[u]
    return below


def _elements(node) -> list[int]:
    if node.kind == UNIT:
        return list(node.elements)
    return sorted(e for c in node.children for e in _elements(c))


def _connected(part: list[int], below) -> bool:
    seen, todo = {part[0]}, [part[0]]
    while todo:
        u = todo.pop()
        for w in part:
            if w not in seen and (w in below[u] or u in below[w]):
                seen.add(w)
                todo.append(w)
    return len(seen) == len(part)


def _shapes(rng: random.Random):
    k = rng.randint(0, 12)
    kind = rng.randrange(3)
    if kind == 0:
        p = rng.choice([0.05, 0.2, 0.5])
        return k, [(u, v) for u, v in itertools.combinations(range(k), 2) if rng.random() < p]
    h = max(1, k // 2)
    # a zipper (writes, then prints in order), with a few random extra edges
    edges = [(i, h + i) for i in range(h) if h + i < k] + [(h + i - 1, h + i) for i in range(1, h) if h + i < k]
    edges += [(u, v) for u, v in itertools.combinations(range(k), 2) if rng.random() < 0.03]
    if kind == 2:  # and bottoms and tops around it
        edges = (
            [(u + 1, v + 1) for u, v in edges] + [(0, v) for v in range(1, k + 1)] + [(v, k + 1) for v in range(k + 1)]
        )
        k += 2
    return k, edges


@pytest.mark.parametrize("seed", range(400))
def test_every_node_is_canonical(seed):
    """Parallel children are exactly the components (connected, mutually
    incomparable); series children lie wholly below each other in order; no
    child repeats its parent's kind; prime parts are neither; every element
    is in exactly one leaf; sizes add up."""
    rng = random.Random(seed)
    k, edges = _shapes(rng)
    poset = Poset(k, edges)
    below = _below(k, edges)
    assert _elements(poset.root) == list(range(k))
    for node in poset.nodes():
        assert node.size == len(_elements(node))
        parts = [_elements(c) for c in node.children]
        if node.kind == PARALLEL and node.children:
            assert len(parts) > 1 or k <= 1
            assert [p[0] for p in parts] == sorted(p[0] for p in parts)
            for a, b in itertools.combinations(parts, 2):
                assert not any(u in below[w] or w in below[u] for u in a for w in b)
            assert all(_connected(p, below) for p in parts)
            assert all(c.kind != PARALLEL for c in node.children)
        elif node.kind == SERIES:
            assert len(parts) > 1
            for i, j in itertools.combinations(range(len(parts)), 2):
                assert all(u in below[w] for u in parts[i] for w in parts[j])
            assert all(c.kind != SERIES for c in node.children)
        elif node.kind == PRIME:
            whole = _elements(node)
            assert _connected(whole, below)
            assert not any(all(u in below[w] for u in whole[:c] for w in whole[c:]) for c in range(1, len(whole)))
