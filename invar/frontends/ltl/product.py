"""The product of a trace's positions with the tableau's states, and an
accepting lasso in it.

:func:`explore` builds every product node reachable from (position 0, the
root obligation), keeping a tableau move only where the step at that position
has a model agreeing with it; :func:`accepting_lasso` finds a reachable
strongly connected component whose internal edges discharge every
eventuality and returns a lasso through it (prefix edges, cycle edges), or
None when there is none: step 3 of :mod:`.check`'s method.

Part of the frontends layer: imports :mod:`.limits`, :mod:`.tableau` and
:mod:`.steps`; must not import :mod:`.check` nor anything above the
frontends layer.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

from .limits import UNLIMITED, Budget, CheckLimitError
from .steps import Steps
from .tableau import Tableau


#: one product edge: (target node, acceptance marks, trace position, pos, neg)
Edge = tuple[int, int, int, int, int]


def explore(
    tableau: Tableau, root: int, steps: Steps, max_states: int | None
) -> tuple[list[tuple[int, int]], list[list[Edge]]]:
    """Every product node reachable from (position 0, {root}), with its edges."""
    start = (0, 1 << root)
    index = {start: 0}
    nodes = [start]
    adj: list[list[Edge]] = []
    k = 0
    while k < len(nodes):
        p, state = nodes[k]
        k += 1
        edges: list[Edge] = []
        q = steps.trace.successor(p)
        fpos, fneg = steps.forced[p]
        moves = tableau.expand(state, fpos, fneg)
        tableau.budget.spend()
        for i, move in enumerate(moves):
            if i & 255 == 255:
                tableau.budget.spend(256)
            pos, neg, nxt, post = tableau.unpack(move)
            if steps.model(p, pos, neg) is None:
                continue
            target = (q, tableau.reduce(nxt))
            t = index.get(target)
            if t is None:
                t = index[target] = len(nodes)
                nodes.append(target)
                if max_states is not None and len(nodes) > max_states:
                    raise CheckLimitError(
                        f"over the state limit: trace check explored more than {max_states} product states"
                    )
            edges.append((t, post, p, pos, neg))
        adj.append(edges)
    return nodes, adj


def _sccs(adj: Sequence[Sequence[Edge]], budget: Budget = UNLIMITED) -> list[list[int]]:
    """Strongly connected components (iterative Tarjan)."""
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            budget.spend()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            recurse = False
            edges = adj[v]
            while i < len(edges):
                w = edges[i][0]
                i += 1
                if index[w] < 0:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def accepting_lasso(
    adj: Sequence[Sequence[Edge]], n_marks: int, budget: Budget = UNLIMITED
) -> tuple[list[Edge], list[Edge]] | None:
    """An accepting lasso (prefix edges from node 0, cycle edges) or None.

    Marks on edges are *postponed* eventualities; a cycle is accepting when,
    for every eventuality, one of its edges does not postpone it."""
    full = (1 << n_marks) - 1
    for comp in _sccs(adj, budget):
        members = set(comp)
        covered = 0  # eventualities some internal edge does not postpone
        internal = False
        for v in comp:
            budget.spend(len(adj[v]) + 1)
            for e in adj[v]:
                if e[0] in members:
                    internal = True
                    covered |= full & ~e[1]
        if internal and covered == full:
            return _lasso_through(adj, members, full, budget)
    return None


def _bfs(
    adj: Sequence[Sequence[Edge]], sources: Iterable[int], goal, within: set[int] | None, budget: Budget
) -> list[tuple[int, Edge]]:
    """Shortest edge path from a source to an edge ``e`` leaving node ``v`` with
    ``goal(v, e)``; returns ``[(from_node, edge), …]`` ending with that edge."""
    parent: dict[int, tuple[int, Edge] | None] = {}
    queue: deque[int] = deque()
    for s in sources:
        parent[s] = None
        queue.append(s)
    while queue:
        v = queue.popleft()
        budget.spend(len(adj[v]) + 1)
        for e in adj[v]:
            w = e[0]
            if within is not None and w not in within:
                continue
            if goal(v, e):
                path = [(v, e)]
                while parent[v] is not None:
                    u, pe = parent[v]  # type: ignore[misc]
                    path.append((u, pe))
                    v = u
                path.reverse()
                return path
            if w not in parent:
                parent[w] = (v, e)
                queue.append(w)
    raise AssertionError("no path where the SCC analysis promised one")  # pragma: no cover


def _lasso_through(
    adj: Sequence[Sequence[Edge]], comp: set[int], full: int, budget: Budget
) -> tuple[list[Edge], list[Edge]]:
    if 0 in comp:
        prefix: list[Edge] = []
        entry = 0
    else:
        path = _bfs(adj, [0], lambda v, e: e[0] in comp, None, budget)
        prefix = [e for _, e in path]
        entry = prefix[-1][0]
    cycle: list[Edge] = []
    here = entry
    missing = full
    while missing:
        path = _bfs(adj, [here], lambda v, e, m=missing: bool(m & ~e[1]), comp, budget)
        for _, e in path:
            missing &= e[1]  # an edge discharges what it does not postpone
        cycle.extend(e for _, e in path)
        here = cycle[-1][0]
    if not cycle or here != entry:
        # close the loop (at least one edge, back to the entry node)
        if here == entry:
            first = next(e for e in adj[entry] if e[0] in comp)
            cycle.append(first)
            here = first[0]
        if here != entry:
            path = _bfs(adj, [here], lambda v, e: e[0] == entry, comp, budget)
            cycle.extend(e for _, e in path)
    return prefix, cycle
