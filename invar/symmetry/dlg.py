"""The directed layered graph (DLG) of a program's dependencies.

Following the SPE paper, layer 0 holds the lines that depend on no other line,
and every other line sits at the length of its longest dependency path from a
source. Lines of one layer never depend on each other, which is why the
symmetry mask (:mod:`invar.symmetry.masks`) lets them attend to one another;
but sharing a layer does not make two lines swappable (``x = 1`` / ``y = x`` /
``z = 2``: ``z`` and ``x`` share layer 0, yet ``z`` / ``y`` / ``x`` breaks the
program), so permutations come from :mod:`invar.symmetry.permutations`, never
from layers.

The edges are ``Program.deps`` as the frontend gave them (deduplicated); the
DLG adds no edges for block structure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..program import Program


@dataclass(frozen=True, slots=True)
class DLG:
    """Layers and edges of one program; line indices are 0-based."""

    #: ``layer_of[i]``: the layer of line ``i`` (longest path from a source)
    layer_of: tuple[int, ...]
    #: ``layers[h]``: the lines of layer ``h``, in program order
    layers: tuple[tuple[int, ...], ...]
    #: dependency edges ``(i, j)``: line ``j`` must stay after line ``i``
    edges: tuple[tuple[int, int], ...]

    @property
    def depth(self) -> int:
        """Number of layers (the longest dependency chain, in lines)."""
        return len(self.layers)

    def to_networkx(self):
        """The DLG as a ``networkx.DiGraph`` with a ``layer`` attribute per node."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from((i, {"layer": h}) for i, h in enumerate(self.layer_of))
        graph.add_edges_from(self.edges)
        return graph


def dlg(program: Program) -> DLG:
    """The DLG of ``program``.

    Deps always point forward (``i < j``), so program order is a topological
    order and one pass computes every longest path.

    Examples
    --------
    >>> from invar.program import Line, Program
    >>> p = Program("toy", tuple(Line(t) for t in ("x = 1", "y = x", "z = 2")), (), deps=((0, 1),))
    >>> dlg(p).layers
    ((0, 2), (1,))
    """
    n = len(program.lines)
    edges = tuple(sorted(set(program.deps)))
    layer = [0] * n
    for i, j in edges:  # sorted by i, and i < j: layer[i] is final when read
        if not 0 <= i < j < n:
            raise ValueError(f"dependency ({i}, {j}) is not a forward pair of lines 0..{n - 1}")
        layer[j] = max(layer[j], layer[i] + 1)
    layers: list[list[int]] = [[] for _ in range(max(layer, default=-1) + 1)]
    for i, h in enumerate(layer):
        layers[h].append(i)
    return DLG(tuple(layer), tuple(tuple(ls) for ls in layers), edges)


__all__ = ["DLG", "dlg"]
