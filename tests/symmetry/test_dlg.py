"""The DLG puts each line at the length of its longest dependency path."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from invar.program import Line, Program
from invar.symmetry.dlg import dlg


def program(n: int, deps) -> Program:
    return Program("toy", tuple(Line(f"l{i}") for i in range(n)), (), deps=tuple(deps))


@pytest.mark.parametrize(
    "n, deps, layers",
    [
        (3, [(0, 1)], ((0, 2), (1,))),  # x = 1 / y = x / z = 2
        (5, [(0, 2), (0, 3), (0, 4), (1, 3), (2, 3), (2, 4), (3, 4)], ((0, 1), (2,), (3,), (4,))),  # earnings
        (4, [], ((0, 1, 2, 3),)),
        (4, [(0, 3), (1, 2), (2, 3)], ((0, 1), (2,), (3,))),  # longest, not shortest, path
        (0, [], ()),
    ],
)
def test_layers(n, deps, layers):
    graph = dlg(program(n, deps))
    assert graph.layers == layers
    assert graph.depth == len(layers)
    assert graph.edges == tuple(sorted(deps))


@pytest.mark.parametrize("seed", range(10))
def test_layers_are_longest_paths_and_antichains(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 25)
    deps = {(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.15}
    graph = dlg(program(n, sorted(deps) + sorted(deps)[:3]))  # duplicates are merged
    assert graph.edges == tuple(sorted(deps))
    g = graph.to_networkx()
    for v in range(n):
        longest = (
            max((len(p) - 1 for u in range(n) for p in nx.all_simple_paths(g, u, v)), default=0) if n <= 12 else None
        )
        if longest is not None:
            assert graph.layer_of[v] == longest
        assert g.nodes[v]["layer"] == graph.layer_of[v]
    for i, j in graph.edges:  # no edge inside a layer, every edge climbs
        assert graph.layer_of[i] < graph.layer_of[j]
    for v in range(n):  # a line above layer 0 sits right above one of its predecessors
        if graph.layer_of[v]:
            assert any(graph.layer_of[u] == graph.layer_of[v] - 1 for u, w in graph.edges if w == v)


def test_backward_dependency_is_refused():
    with pytest.raises(ValueError, match="forward pair"):
        dlg(program(2, [(1, 0)]))
