"""Linear extensions of a finite poset: exact counting, walking and sampling
by decomposition.

A :class:`Poset` holds ``k`` elements ``0..k-1`` whose index order is a
topological order, and a set of direct edges ``(u, v)``, ``u < v``, whose
transitive closure is the order (any generating set: all comparable pairs,
the transitive reduction, anything between).

Decomposition
-------------
The poset is split into a tree whose leaves are single elements:

* **parallel** node: the connected components of the comparability graph. A
  linear extension interleaves the components' extensions, so
  ``e(P) = multinomial(|C_1|, …, |C_m|) · Π e(C_i)``;
* **series** node: ``P = P_1 ⊕ P_2 ⊕ …`` where every element of ``P_i`` lies
  below every element of ``P_{i+1}``; these parts are intervals of the index
  order, found in one sweep (:func:`_series_cuts`), and ``e(P) = Π e(P_i)``;
* **prime** node: neither. Its extensions are counted by a dynamic program
  over its **down-sets** (bit masks), whose table has one entry per down-set:
  small for narrow posets, exponential in the width. A prime node with more
  than ``max_states`` down-sets is *intractable*.

An antichain of ``n`` elements is one parallel node (``n!`` at once), a chain
one series node; most orders that arise from programs are wide but made of
such parts, so the down-set table is only ever built for the prime parts.
Elements that split off one at a time (no edge left, the only maximal or the
only minimal element) are peeled in time proportional to their edges, so a
tree as deep as the poset (a series node over a parallel node over …) is
built in linear time, and counts are one product of per-node factors.

Counting, bounds and the walk
-----------------------------
``count()`` multiplies out the tree (raising :class:`TooWide` when a prime
node is intractable); ``bounds()`` replaces each intractable prime node by
bounds: ``Π |L|!`` over its longest-path layers ``L`` (placing layer after
layer in any order respects every edge) below, and ``k! / Π |C|!`` over a
chain partition ``C`` above (the order inside each chain is forced). A
:class:`Walker` builds an extension left to right and knows, for every element
that may come next, how many extensions begin that way: the completions so
far times a ratio of small counts along the element's path, priced lazily
and from one option to the next. That is what lexicographic ranking and
unranking need.

Sampling
--------
``sample(rng)`` draws a uniform extension without unranking: a parallel node
interleaves its children's draws by a uniform shuffle of their labels, a
series node concatenates them, and a prime node walks its down-set table,
taking each next element with probability proportional to the extensions it
leaves. An intractable prime node is drawn by the Bubley–Dyer chain: from the
current extension of its ``k`` elements, pick adjacent positions ``(p, p+1)``
with probability proportional to ``p (k − p)``, and with probability 1/2 swap
them when they are incomparable. The chain is symmetric, so its stationary law
is uniform; Bubley and Dyer (Discrete Math. 201, 1999) show by path coupling
that it is within total variation ``ε`` of uniform after ``O(k³ log(k/ε))``
steps. We run ``⌈(k³ − k)/3 · ln(k²/(4ε))⌉`` steps (``ε`` =
:data:`MIXING_EPSILON`) before the first draw and again between draws. Only
the prime node itself runs the chain; everything around it stays exact.

Seeds
-----
What a seed draws has a version (:data:`SAMPLER_VERSION`; docs/formats.md).
Version 1 built every node's draw as a list, children before parents, so a
tree as deep as the poset copied each element once per level (quadratic on
the zipper of n writes and their n prints in order). Version 2 draws the
same nodes in the same order but places the elements top down: a node hands
its positions to its largest child in place and the others take theirs out
by rank (:class:`~invar.symmetry.ordered.Positions`), so an element changes
hands only when it is in a smaller part, at most ``log2 k`` times, each a
Fenwick-tree lookup: ``O(k log k)`` a draw whatever the depth. A parallel
node larger than :data:`SHUFFLE_MAX` whose smaller children hold less than
half of it draws only their positions (``random.sample``), in time their
size; every other node takes version 1's random numbers, so small posets
draw what they drew before.

Nothing here recurses over the number of elements. Decomposing one node is
:class:`_Peeling`'s work: peel single elements, then split the rest.

Part of the symmetry layer: imports only :mod:`.bigint` from invar (its
:class:`TooWide` is caught by :mod:`.permutations`); must not import
frontends or anything above them.
"""

from __future__ import annotations

import math
import random
from bisect import insort
from collections import Counter
from itertools import accumulate
from typing import Iterable, Iterator, Sequence

from .bigint import divmod_exact, product
from .ordered import OrderedSet, Positions

#: most down-sets one prime node's counting table may hold before it is intractable
DEFAULT_MAX_STATES = 1 << 18
#: total-variation distance the Markov chain is run to (see the module docstring)
MIXING_EPSILON = 1e-3
#: prime parts up to this size get a minimum chain partition for their upper bound
EXACT_CHAINS = 400
#: what a seed means to :meth:`Poset.sample` (see "Seeds" in the module docstring; docs/formats.md)
SAMPLER_VERSION = 2
#: parallel nodes up to this many elements draw their interleaving as seed version 1 did
SHUFFLE_MAX = 64

UNIT, PARALLEL, SERIES, PRIME = "unit", "parallel", "series", "prime"


class TooWide(Exception):
    """A prime node needs more down-sets than allowed."""


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def multinomial(sizes: Sequence[int]) -> int:
    total, factors = 0, []
    for s in sizes:
        total += s
        factors.append(math.comb(total, s))
    return product(factors)


class Node:
    """One node of the decomposition tree."""

    __slots__ = ("kind", "elements", "size", "children", "parent", "slot", "prime")

    def __init__(self, kind: str, elements: list[int] | None, size: int | None = None) -> None:
        self.kind = kind
        #: the poset elements below this node, increasing (None for a node
        #: made while peeling, whose elements are its children's)
        self.elements = elements
        #: how many elements are below this node
        self.size = len(elements) if size is None else size
        self.children: list[Node] = []
        self.parent: Node | None = None
        #: index among the parent's children
        self.slot = 0
        #: the down-set machinery of a prime node
        self.prime: _Prime | None = None


class _Prime:
    """A prime node's elements as a local poset ``0..k-1`` with its down-set table."""

    def __init__(self, elements: list[int], succ: Sequence[Sequence[int]], max_states: int) -> None:
        self.elements = elements
        self.k = len(elements)
        self.local = {e: i for i, e in enumerate(elements)}
        self.succ = tuple(tuple(self.local[w] for w in succ[e] if w in self.local) for e in elements)
        pred = [0] * self.k
        for u, outs in enumerate(self.succ):
            for v in outs:
                pred[v] |= 1 << u
        self.pred = pred
        self.max_states = max_states
        self._table: dict[int, int] | None = None
        self._too_wide = False
        self._desc: tuple[int, ...] | None = None
        #: the Markov chain's current extension (local elements), kept between draws
        self.chain_state: list[int] | None = None
        #: steps run before each draw: None for the certified bound (chain_steps)
        self.steps_override: int | None = None

    # ------------------------------------------------------- down-set table
    def table(self) -> dict[int, int]:
        """``table[S]`` = extensions that finish from down-set ``S``; raises TooWide."""
        if self._table is None:
            if self._too_wide:
                raise TooWide
            try:
                self._table = self._build()
            except TooWide:
                self._too_wide = True
                raise
        return self._table

    @property
    def tractable(self) -> bool:
        try:
            self.table()
        except TooWide:
            return False
        return True

    def _layers(self) -> list[int]:
        """Each element's longest-path layer (a layer is an antichain)."""
        layer = [0] * self.k
        for v in range(self.k):  # local order is a topological order
            for u in bits(self.pred[v]):
                layer[v] = max(layer[v], layer[u] + 1)
        return layer

    def _build(self) -> dict[int, int]:
        k, pred, succ = self.k, self.pred, self.succ
        # every subset of an antichain generates its own down-set: a layer of
        # L elements means at least 2**L of them, refused before any is built
        widest = max(_counts(self._layers()).values(), default=0)
        if widest >= self.max_states.bit_length():
            raise TooWide
        # forward, level by level: each down-set with the elements that may come next
        level = {0: sum(1 << u for u in range(k) if not pred[u])}
        levels = [level]
        states = 1
        for _ in range(k):
            nxt: dict[int, int] = {}
            for down, avail in level.items():
                for u in bits(avail):
                    grown = down | (1 << u)
                    if grown in nxt:
                        continue
                    new_avail = avail & ~(1 << u)
                    for v in succ[u]:
                        if not pred[v] & ~grown:
                            new_avail |= 1 << v
                    nxt[grown] = new_avail
            states += len(nxt)
            if states > self.max_states:
                raise TooWide
            levels.append(nxt)
            level = nxt
        full = (1 << k) - 1
        ways = {full: 1}
        for level in reversed(levels[:-1]):
            for down, avail in level.items():
                ways[down] = sum(ways[down | (1 << u)] for u in bits(avail))
        return ways

    # --------------------------------------------------------------- bounds
    def bounds(self) -> tuple[int, int]:
        lower = math.prod(math.factorial(s) for s in _counts(self._layers()).values())
        return lower, multinomial(self._chain_partition())

    def descendants(self) -> tuple[int, ...]:
        """``desc[u]``: mask of the elements that must follow ``u`` (transitive)."""
        if self._desc is None:
            desc = [0] * self.k
            for u in reversed(range(self.k)):
                for v in self.succ[u]:
                    desc[u] |= (1 << v) | desc[v]
            self._desc = tuple(desc)
        return self._desc

    def _chain_partition(self) -> list[int]:
        """Sizes of a chain partition: a minimum one (Dilworth, by bipartite
        matching on the comparability relation: chains = k − maximum matching,
        augmenting paths searched iteratively) up to :data:`EXACT_CHAINS`
        elements; past that, chains grown greedily along direct edges, in
        linear time (any chain partition bounds the count)."""
        if self.k > EXACT_CHAINS:
            chain_of: dict[int, int] = {}  # the chain whose last element is u
            sizes: list[int] = []
            for v in range(self.k):
                chain = next((chain_of.pop(u) for u in bits(self.pred[v]) if u in chain_of), None)
                if chain is None:
                    chain = len(sizes)
                    sizes.append(0)
                sizes[chain] += 1
                chain_of[v] = chain
            return sizes
        desc = self.descendants()
        match_of: dict[int, int] = {}  # right element -> left element
        for root in range(self.k):
            # depth-first search for an augmenting path from ``root``
            seen: set[int] = set()
            stack = [(root, bits(desc[root]))]
            path: list[tuple[int, int]] = []  # (left, right) edges tried on the way
            while stack:
                u, candidates = stack[-1]
                v = next((w for w in candidates if w not in seen), None)
                if v is None:
                    stack.pop()
                    if path:
                        path.pop()
                    continue
                seen.add(v)
                path.append((u, v))
                if v not in match_of:
                    for left, right in path:
                        match_of[right] = left
                    break
                stack.append((match_of[v], bits(desc[match_of[v]])))
        nxt = {u: v for v, u in match_of.items()}
        sizes = []
        for h in (u for u in range(self.k) if u not in match_of):
            n = 1
            while h in nxt:
                h = nxt[h]
                n += 1
            sizes.append(n)
        return sizes

    # -------------------------------------------------------- Markov chain
    def chain_steps(self, epsilon: float = MIXING_EPSILON) -> int:
        """Steps of the Bubley–Dyer chain run before each draw."""
        k = self.k
        if k < 2:
            return 0
        return math.ceil((k**3 - k) / 3 * math.log(max(k * k / (4 * epsilon), 2.0)))

    def run_chain(self, state: list[int], steps: int, rng: random.Random) -> None:
        """Advance the Bubley–Dyer chain ``steps`` steps from ``state`` in place."""
        k = self.k
        if k < 2:
            return
        desc = self.descendants()
        positions = list(range(k - 1))
        cum = list(accumulate((p + 1) * (k - 1 - p) for p in range(k - 1)))
        batch = 1 << 14
        done = 0
        while done < steps:
            m = min(batch, steps - done)
            picks = rng.choices(positions, cum_weights=cum, k=m)
            coins = rng.getrandbits(m)
            for p in picks:
                if coins & 1:
                    x, y = state[p], state[p + 1]
                    if not desc[x] >> y & 1:
                        state[p], state[p + 1] = y, x
                coins >>= 1
            done += m

    def sample(self, rng: random.Random) -> list[int]:
        """One extension (local elements): exact from the table when
        tractable, else by the Markov chain."""
        if self.tractable:
            table = self.table()
            # the elements that may come next, kept in increasing order as
            # they free up (a down-set table is only built for narrow parts,
            # so this list stays short): the same choices, in the same order,
            # as scanning every element at every step
            missing = [bin(p).count("1") for p in self.pred]
            avail = [u for u in range(self.k) if not missing[u]]
            placed, out = 0, []
            for _ in range(self.k):
                pick = rng.randrange(table[placed])
                for at, u in enumerate(avail):
                    ways = table[placed | (1 << u)]
                    if pick < ways:
                        break
                    pick -= ways
                placed |= 1 << u
                out.append(u)
                del avail[at]
                for v in self.succ[u]:
                    missing[v] -= 1
                    if not missing[v]:
                        insort(avail, v)
            return out
        if self.chain_state is None:
            self.chain_state = list(range(self.k))
        steps = self.chain_steps() if self.steps_override is None else self.steps_override
        self.run_chain(self.chain_state, steps, rng)
        return list(self.chain_state)


def _counts(values: Iterable[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def _components(
    elements: list[int], succ: Sequence[Sequence[int]], pred: Sequence[Sequence[int]], member: dict[int, int]
) -> list[list[int]]:
    """Connected components of the comparability graph on ``elements``
    (``member`` maps each element to its position), each increasing, in order
    of their smallest element."""
    parent = list(range(len(elements)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, e in enumerate(elements):
        for w in succ[e]:
            j = member.get(w)
            if j is not None:
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i, e in enumerate(elements):
        groups.setdefault(find(i), []).append(e)
    return sorted(groups.values())


def _series_cuts(
    elements: list[int], succ: Sequence[Sequence[int]], pred: Sequence[Sequence[int]], member: dict[int, int]
) -> list[int]:
    """Positions ``c`` (0 < c < len) where ``elements[:c]`` lies wholly below
    ``elements[c:]``.

    With ``M`` the maximal elements of the prefix and ``N`` the minimal ones of
    the suffix, the cut is series exactly when every pair of ``M × N`` is a
    direct edge: a path from a maximal element of the prefix leaves the prefix
    at once, and cannot enter a minimal element of the suffix but by its last
    edge. One sweep keeps ``M``, ``N`` and the number of edges between them,
    touching each element's edges a bounded number of times."""
    m = len(elements)
    in_suffix_preds = [0] * m
    for i, e in enumerate(elements):
        in_suffix_preds[i] = sum(1 for p in pred[e] if p in member)
    in_m = [False] * m
    in_n = [in_suffix_preds[i] == 0 for i in range(m)]
    size_m, size_n = 0, sum(in_n)
    edges_mn = 0
    cuts = []
    for c in range(1, m):
        x = c - 1
        e = elements[x]
        # x leaves N (its predecessors are all in the prefix)
        in_n[x] = False
        size_n -= 1
        edges_mn -= sum(1 for p in pred[e] if p in member and in_m[member[p]])
        # its predecessors in M stop being maximal
        for p in pred[e]:
            j = member.get(p)
            if j is not None and in_m[j]:
                in_m[j] = False
                size_m -= 1
                edges_mn -= sum(1 for w in succ[p] if w in member and in_n[member[w]])
        # x becomes maximal in the prefix
        in_m[x] = True
        size_m += 1
        edges_mn += sum(1 for w in succ[e] if w in member and in_n[member[w]])
        # successors with no predecessor left in the suffix become minimal
        for w in succ[e]:
            j = member.get(w)
            if j is None:
                continue
            in_suffix_preds[j] -= 1
            if in_suffix_preds[j] == 0:
                in_n[j] = True
                size_n += 1
                edges_mn += sum(1 for p in pred[w] if p in member and in_m[member[p]])
        if edges_mn == size_m * size_n:
            cuts.append(c)
    return cuts


class _Peeling:
    """The state of one :meth:`Poset._peel`: the elements still live and
    their in- and out-degrees among themselves, the node that parts are hung
    under (``current``, of kind ``kind`` once known) and the parts peeled so
    far."""

    def __init__(self, node: Node, succ: Sequence[Sequence[int]], pred: Sequence[Sequence[int]]) -> None:
        self.succ, self.pred = succ, pred
        self.order = order = node.elements
        self.live = live = set(order)
        self.pin = pin = dict.fromkeys(order, 0)
        self.pout = pout = dict.fromkeys(order, 0)
        for e in order:
            for w in succ[e]:
                if w in live:
                    pout[e] += 1
                    pin[w] += 1
        #: elements that may have no edge left (checked against ``live`` when used)
        self.lone = [e for e in order if not pin[e] and not pout[e]]
        #: how many live elements are maximal, and how many minimal
        self.counts = [sum(1 for e in order if not pout[e]), sum(1 for e in order if not pin[e])]
        #: the first and last live element in ``order`` (as of the last step)
        self.lo, self.hi = 0, len(order) - 1
        self.current, self.kind = node, None
        self.before: list[Node] = []  # peeled parts before the rest (and every part of a parallel node)
        self.after: list[Node] = []  # peeled parts after the rest, last first
        self.first: dict[int, int] = {}  # id of a peeled node -> its least element

    def remove(self, e: int) -> None:
        """Take ``e`` out, updating its neighbours' degrees."""
        live, pin, pout, counts, lone = self.live, self.pin, self.pout, self.counts, self.lone
        live.discard(e)
        counts[0] -= not pout[e]
        counts[1] -= not pin[e]
        # a predecessor loses an outgoing edge (it may turn maximal), a
        # successor an incoming one (it may turn minimal)
        for neighbours, lost, kept, turned in ((self.pred[e], pout, pin, 0), (self.succ[e], pin, pout, 1)):
            for v in neighbours:
                if v in live:
                    lost[v] -= 1
                    if not lost[v]:
                        counts[turned] += 1
                        if not kept[v]:
                            lone.append(v)

    def close(self, middle: list[Node]) -> None:
        """Give ``current`` its children: the peeled parts around ``middle``."""
        parts = self.before + middle + self.after[::-1]
        if self.kind == PARALLEL:
            parts.sort(key=lambda c: c.elements[0] if c.elements else self.first[id(c)])
        for slot, child in enumerate(parts):
            child.parent, child.slot = self.current, slot
        self.current.children = parts

    def _descend(self, rest: Node) -> None:
        """Hang ``rest`` (of another kind) among the parts peeled so far, and
        go on under it."""
        self.close([rest])
        self.current, self.kind, self.before, self.after = rest, rest.kind, [], []

    def _next(self) -> tuple[str, list[int]] | None:
        """The kind of the next peeling step and the elements it peels: those
        with no edge left, else the only maximal or the only minimal one;
        None when no element splits off alone."""
        order, live = self.order, self.live
        while order[self.lo] not in live:
            self.lo += 1
        while order[self.hi] not in live:
            self.hi -= 1
        alone = sorted({e for e in self.lone if e in live})
        self.lone.clear()
        if alone:
            return PARALLEL, alone
        if self.counts[0] == 1:
            return SERIES, [order[self.hi]]
        if self.counts[1] == 1:
            return SERIES, [order[self.lo]]
        return None

    def peel_singles(self) -> None:
        """Peel elements one step at a time while one splits off alone."""
        while len(self.live) > 1:
            nxt = self._next()
            if nxt is None:
                break
            step, peel = nxt
            if self.kind is not None and step != self.kind:
                rest = Node(step, None, len(self.live))
                self.first[id(rest)] = self.order[self.lo]
                self._descend(rest)
            self.kind = self.current.kind = step
            last = self.order[self.hi]
            for e in peel:
                self.remove(e)
                (self.after if step == SERIES and e == last else self.before).append(Node(UNIT, [e]))

    def split(self, max_states: int) -> list[Node]:
        """Split what is left the general way (components, series cuts, or a
        prime node); return the parts still to decompose."""
        elements = [e for e in self.order[self.lo : self.hi + 1] if e in self.live]
        member = {e: i for i, e in enumerate(elements)}
        parts = _components(elements, self.succ, self.pred, member)
        if len(parts) > 1:
            split = PARALLEL
        else:
            cuts = _series_cuts(elements, self.succ, self.pred, member)
            split = SERIES if cuts else PRIME
            bounds = [0, *cuts, len(elements)]
            parts = [elements[a:b] for a, b in zip(bounds, bounds[1:])]
        if split == PRIME:
            self._prime(elements, max_states)
            return []
        todo = [Node(PARALLEL, part) for part in parts]
        if self.kind is None:
            self.current.kind = self.kind = split
        elif split != self.kind:
            self._descend(Node(split, elements))
        self.close(todo)
        return todo

    def _prime(self, elements: list[int], max_states: int) -> None:
        """Hang what is left as one prime node, every element with its leaf."""
        target = self.current if self.kind is None else Node(PRIME, elements)
        target.kind = PRIME
        target.prime = _Prime(elements, self.succ, max_states)
        target.children = [Node(UNIT, [e]) for e in elements]  # every element gets a leaf
        for slot, child in enumerate(target.children):
            child.parent, child.slot = target, slot
        if self.kind is not None:
            self.close([target])


class Poset:
    """A finite poset and its linear extensions; see the module docstring.

    Parameters
    ----------
    k
        Number of elements; the index order ``0..k-1`` is a topological order.
    edges
        Pairs ``(u, v)``, ``u < v``, generating the order.
    max_states
        Most down-sets a prime node's table may hold.

    Examples
    --------
    >>> Poset(4, []).count()  # an antichain
    24
    >>> Poset(4, [(0, 2), (1, 2), (2, 3)]).count()  # {0, 1} below 2 below 3
    2
    """

    def __init__(self, k: int, edges: Iterable[tuple[int, int]], max_states: int = DEFAULT_MAX_STATES) -> None:
        self.k = k
        succ: list[list[int]] = [[] for _ in range(k)]
        pred: list[list[int]] = [[] for _ in range(k)]
        for u, v in set(edges):
            if not 0 <= u < v < k:
                raise ValueError(f"edge ({u}, {v}) is not a forward pair of elements 0..{k - 1}")
            succ[u].append(v)
            pred[v].append(u)
        for lst in succ:
            lst.sort()
        for lst in pred:
            lst.sort()
        self.succ, self.pred = succ, pred
        self.max_states = max_states
        self._count: int | None = None
        self.root = self._decompose()
        #: each element's leaf node
        self.leaf: list[Node] = [None] * k  # type: ignore[list-item]
        for node in self.nodes():
            if node.kind == UNIT:
                self.leaf[node.elements[0]] = node

    # ------------------------------------------------------ decomposition
    def _decompose(self) -> Node:
        root = Node(PARALLEL, list(range(self.k)))
        todo = [root]
        while todo:
            node = todo.pop()
            if node.size <= 1:
                node.kind = UNIT if node.size else PARALLEL  # no elements: one (empty) extension
                continue
            todo.extend(self._peel(node))
        return root

    def _peel(self, node: Node) -> list[Node]:
        """Decompose ``node``; return the parts still to decompose.

        First, while one element alone splits off, it is peeled in time
        proportional to its edges: an element with no edge left (a parallel
        part of its own), the only maximal element (above all the others: a
        series part at the end) or the only minimal one (at the start). Then
        what is left is split the general way (components, series cuts, or a
        prime node), in time linear in its size. Peeling gives the same tree
        as splitting the general way at every level, so an order that sheds
        one line per level (n writes, then n prints of them in order, whose
        tree is 2n deep) is decomposed in linear time, not n × depth; a part
        of the same kind as the node it was peeled from joins that node."""
        peeling = _Peeling(node, self.succ, self.pred)
        peeling.peel_singles()
        if len(peeling.live) <= 1:
            peeling.close([Node(UNIT, [e]) for e in peeling.live])
            return []
        return peeling.split(self.max_states)

    def nodes(self) -> Iterator[Node]:
        """Every node, parents before children."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def _postorder(self) -> list[Node]:
        return list(self.nodes())[::-1]

    # ------------------------------------------------------------ counting
    @property
    def tractable(self) -> bool:
        """True when every prime node's table fits in ``max_states``."""
        return all(n.prime.tractable for n in self.nodes() if n.kind == PRIME)

    def count(self) -> int:
        """The exact number of linear extensions; raises TooWide.

        A node's count is its own factor (a parallel node's multinomial, a
        prime node's table) times its children's counts, so the root's is the
        product of every node's factor: no count is kept per node, which on
        a tree as deep as the poset is long would hold numbers of every
        length from 1 to the root's."""
        if self._count is None:
            self._count = product(self._factor(node) for node in self.nodes())
        return self._count

    def _factor(self, node: Node) -> int:
        if node.kind == PRIME:
            return node.prime.table()[0]
        if node.kind == PARALLEL and len(node.children) > 1:
            return multinomial([c.size for c in node.children])
        return 1

    def bounds(self) -> tuple[int, int]:
        """(lower, upper) bounds on ``count()``; equal when it is tractable
        (a product of per-node factors, as in :meth:`count`)."""
        lower, upper = [], []
        for node in self.nodes():
            if node.kind == PRIME and not node.prime.tractable:
                lo, hi = node.prime.bounds()
            else:
                lo = hi = self._factor(node)
            lower.append(lo)
            upper.append(hi)
        return product(lower), product(upper)

    def reset_chains(self, steps: int | None = None) -> None:
        """Start every intractable part's Markov chain afresh; ``steps``, when
        given, replaces the certified number of steps per draw."""
        for node in self.nodes():
            if node.kind == PRIME:
                node.prime.chain_state = None
                node.prime.steps_override = steps

    def chain_steps(self) -> int:
        """Chain steps per draw that the certified bound asks for, over every
        intractable part (0 when sampling is exact)."""
        return sum(n.prime.chain_steps() for n in self.nodes() if n.kind == PRIME and not n.prime.tractable)

    def prime_sizes(self) -> list[tuple[int, bool]]:
        """(size, tractable) of every prime node."""
        return [(n.prime.k, n.prime.tractable) for n in self.nodes() if n.kind == PRIME]

    # ----------------------------------------------------------- the walk
    def frontier(self) -> "Frontier":
        """The elements that may come first, kept up to date as elements are placed."""
        return Frontier(self)

    def walker(self) -> "Walker":
        """A left-to-right builder of one extension (raises TooWide when intractable)."""
        return Walker(self)

    def unrank(self, index: int) -> list[int]:
        """The ``index``-th linear extension in lexicographic order."""
        walk = self.walker()
        for _ in range(self.k):
            for u, ways in walk.options():
                if index < ways:
                    walk.place(u)
                    break
                index -= ways
            else:  # pragma: no cover - count() and the walk disagree
                raise AssertionError("unrank ran past the end")
        return walk.seq

    def rank(self, seq: Sequence[int]) -> int:
        """The position of the linear extension ``seq`` in lexicographic order."""
        walk, index = self.walker(), 0
        for target in seq:
            for u, ways in walk.options():
                if u == target:
                    break
                index += ways
            else:
                raise ValueError(f"{target} may not come next")
            walk.place(target)
        return index

    # ---------------------------------------------------------- sampling
    def sample(self, rng: random.Random, version: int = SAMPLER_VERSION) -> list[int]:
        """One linear extension: uniform when tractable, and otherwise uniform
        up to the Markov chain's ``ε`` inside the intractable prime nodes.

        ``version`` is what a seed means (see the module docstring): 2 draws
        in time near-linear in the elements whatever the tree's depth; 1
        reproduces the draws of invar before it, in time proportional to the
        elements times the depth of the tree."""
        if version == 1:
            return self._sample_v1(rng)
        if version != SAMPLER_VERSION:
            raise ValueError(f"no sampler version {version} (1 or {SAMPLER_VERSION})")
        draws = {}
        # children before parents, as version 1 drew, so that the draws it
        # shares with version 2 come from the same random numbers
        for node in self._postorder():
            if node.kind == PRIME:
                draws[id(node)] = node.prime.sample(rng)
            elif node.kind == PARALLEL and node.children:
                draws[id(node)] = _interleaving(node, rng)
        return self._place(draws)

    def _place(self, draws: dict[int, object]) -> list[int]:
        """Give every element its position, parents before children: a node
        hands its positions to its largest child in place and the others take
        theirs out (by rank among the node's), so an element changes hands
        only when it is in a smaller part, at most log2(k) times."""
        out = [0] * self.k
        stack: list[tuple[Node, Positions]] = [(self.root, Positions(range(self.k)))]
        while stack:
            node, pos = stack.pop()
            if node.kind == UNIT:
                out[pos.remaining()[0]] = node.elements[0]
                continue
            if node.kind == PRIME:
                elements = node.prime.elements
                for at, u in zip(pos.remaining(), draws[id(node)]):
                    out[at] = elements[u]
                continue
            if not node.children:
                continue
            heavy, ranks = draws[id(node)] if node.kind == PARALLEL else _series_ranks(node)
            light = [slot for slot in range(len(node.children)) if slot != heavy]
            for slot, at in zip(light, pos.take(ranks[slot] for slot in light)):
                child = node.children[slot]
                if child.kind == UNIT:
                    out[at[0]] = child.elements[0]
                else:
                    stack.append((child, Positions(at)))
            stack.append((node.children[heavy], pos))
        return out

    def _sample_v1(self, rng: random.Random) -> list[int]:
        """Seed version 1: every node's draw built as a list, children
        before parents, and a parallel node's interleaving a shuffle of its
        children's labels."""
        draws: dict[int, list[int]] = {}
        for node in self._postorder():
            if node.kind == UNIT:
                seq = list(node.elements)
            elif node.kind == PRIME:
                for c in node.children:
                    draws.pop(id(c))
                seq = [node.prime.elements[i] for i in node.prime.sample(rng)]
            elif node.kind == SERIES:
                seq = [e for c in node.children for e in draws.pop(id(c))]
            else:
                labels = [slot for slot, c in enumerate(node.children) for _ in range(c.size)]
                rng.shuffle(labels)
                iters = [iter(draws.pop(id(c))) for c in node.children]
                seq = [next(iters[slot]) for slot in labels]
            draws[id(node)] = seq
        return draws[id(self.root)]


def _heaviest(node: Node) -> int:
    """The slot of the node's largest child (the first of the largest)."""
    sizes = [c.size for c in node.children]
    return sizes.index(max(sizes))


def _interleaving(node: Node, rng: random.Random) -> tuple[int, list[list[int] | None]]:
    """A uniform interleaving of a parallel node's children: (the largest
    child's slot, each other child's ranks among the node's positions).

    Every assignment of the node's ``m`` positions to its children with the
    children's sizes is equally likely. Where the children other than the
    largest hold at least half of the node, or the node holds at most
    :data:`SHUFFLE_MAX` elements, the draw is version 1's (a shuffle of every
    position's label: ``m - 1`` random numbers, no more than twice the
    smaller children's size or a constant); elsewhere only the smaller
    children's positions are drawn (``random.sample`` of their number among
    ``m``, dealt to the children in order), so a large child with a few small
    ones beside it costs what the small ones hold, not the node's size."""
    heavy = _heaviest(node)
    m = node.size
    light = m - node.children[heavy].size
    ranks: list[list[int] | None] = [None] * len(node.children)
    if m <= SHUFFLE_MAX or 2 * light >= m:
        labels = [slot for slot, c in enumerate(node.children) for _ in range(c.size)]
        rng.shuffle(labels)
        for slot in range(len(node.children)):
            if slot != heavy:
                ranks[slot] = []
        for q, slot in enumerate(labels):
            if slot != heavy:
                ranks[slot].append(q)  # type: ignore[union-attr]
        return heavy, ranks
    picks = rng.sample(range(m), light)
    start = 0
    for slot, child in enumerate(node.children):
        if slot != heavy:
            ranks[slot] = sorted(picks[start : start + child.size])
            start += child.size
    return heavy, ranks


def _series_ranks(node: Node) -> tuple[int, list[list[int] | None]]:
    """A series node's children take its positions in turn: (the largest
    child's slot, each other child's run of ranks)."""
    heavy = _heaviest(node)
    ranks: list[list[int] | None] = []
    start = 0
    for slot, child in enumerate(node.children):
        ranks.append(None if slot == heavy else list(range(start, start + child.size)))
        start += child.size
    return heavy, ranks


class Frontier:
    """The elements that may come next while an extension is built left to
    right (and taken back right to left): those not placed whose direct
    predecessors all are. Placing or taking back an element touches its
    direct successors only, and the next element from a given one is found in
    time logarithmic in the poset (an :class:`~invar.symmetry.ordered.OrderedSet`),
    so a walk over an extension costs its edges, not the poset's size per step."""

    __slots__ = ("succ", "missing", "free")

    def __init__(self, poset: "Poset") -> None:
        self.succ = poset.succ
        #: direct predecessors not yet placed, per element
        self.missing = [len(p) for p in poset.pred]
        self.free = OrderedSet(poset.k, full=False)
        for u, m in enumerate(self.missing):
            if not m:
                self.free.add(u)

    def place(self, u: int) -> None:
        missing, free = self.missing, self.free
        free.discard(u)
        for v in self.succ[u]:
            missing[v] -= 1
            if not missing[v]:
                free.add(v)

    def unplace(self, u: int) -> None:
        """Take back ``u``, the element placed last."""
        missing, free = self.missing, self.free
        for v in self.succ[u]:
            if not missing[v]:
                free.discard(v)
            missing[v] += 1
        free.add(u)

    def next_from(self, x: int) -> int | None:
        """The smallest element at least ``x`` that may come next, or None."""
        return self.free.next_from(x)

    def __iter__(self) -> Iterator[int]:
        """The elements that may come next, increasing."""
        free = self.free
        return (free.select(r) for r in range(len(free)))


class Walker:
    """One linear extension under construction, left to right, with the number
    of extensions that complete each next choice.

    Placing ``u`` next multiplies the completions by a product over u's path
    to the root: ``left(c) / left(p)`` at a parallel node ``p`` whose child
    ``c`` holds ``u`` (``left``: elements not yet placed below a node; the
    multinomial's share), ``table[S | u] / table[S]`` at a prime node, 1 at
    a series node (only its current child has elements that may come next).
    Only the small counts ``left`` and the prime nodes' masks are kept, and
    the one big number, the completions of what is placed.

    The options are priced lazily in increasing order, each from the one
    before: two elements' products differ only below their lowest common
    ancestor, so the next option's count is the last one's times a ratio of
    a few small integers (one multiplication and one exact division by a
    small number, linear in the count's length), and only the first option
    is priced along its whole path. A walk that stops at the option it
    takes prices only the options before it. :attr:`work` counts the
    factors gathered and the big-integer operations done, for tests."""

    def __init__(self, poset: Poset) -> None:
        self.poset = poset
        self.frontier = poset.frontier()
        self.seq: list[int] = []
        nodes = list(poset.nodes())  # parents before children
        at = {id(n): i for i, n in enumerate(nodes)}
        self._nodes = nodes
        self._parent = [-1 if n.parent is None else at[id(n.parent)] for n in nodes]
        self._depth = [0] * len(nodes)
        for i in range(1, len(nodes)):
            self._depth[i] = self._depth[self._parent[i]] + 1
        self._left = [n.size for n in nodes]
        self._leaf = [at[id(poset.leaf[u])] for u in range(poset.k)]
        self._mask = {i: 0 for i, n in enumerate(nodes) if n.kind == PRIME}
        self._count = poset.count()
        self._priced: tuple[int, int] | None = None  # the option priced last
        #: options priced, factors gathered and big-integer operations done so far
        self.work = {"priced": 0, "factors": 0, "big": 0}

    def completions(self) -> int:
        """Linear extensions of the elements not yet placed."""
        return self._count

    def _factor(self, child: int, u: int) -> tuple[int, int]:
        """What placing ``u`` (below node ``child``) multiplies by at child's parent."""
        p = self._parent[child]
        node = self._nodes[p]
        if node.kind == PARALLEL:
            return self._left[child], self._left[p]
        if node.kind == PRIME:
            table, mask = node.prime.table(), self._mask[p]
            return table[mask | 1 << node.prime.local[u]], table[mask]
        return 1, 1

    def _scaled(self, value: int, up: list[int], down: list[int]) -> int:
        """``value * prod(up) // prod(down)``, exact by construction; equal
        factors on both sides cancel first (runs of parallel nodes telescope)."""
        self.work["factors"] += len(up) + len(down)
        if len(up) + len(down) > 8:
            common = Counter(up) & Counter(down)
            if common:
                up = list((Counter(up) - common).elements())
                down = list((Counter(down) - common).elements())
            num, den = product(up), product(down)
        else:
            num, den = math.prod(up), math.prod(down)
        if num != 1:
            value *= num
            self.work["big"] += 1
        if den != 1:
            value = value // den if den.bit_length() <= 4000 else divmod_exact(value, den)[0]
            self.work["big"] += 1
        return value

    def _price_first(self, u: int) -> int:
        """Extensions that begin with the placed elements and ``u``: the
        product along u's whole path."""
        up, down = [], []
        i = self._leaf[u]
        while self._parent[i] >= 0:
            a, b = self._factor(i, u)
            if a != b:
                up.append(a)
                down.append(b)
            i = self._parent[i]
        return self._scaled(self._count, up, down)

    def _price_next(self, ways: int, prev: int, u: int) -> int:
        """``u``'s count from ``prev``'s (``ways``): the factors below their
        lowest common ancestor, u's over prev's."""
        up, down = [], []
        a, b, depth, parent = self._leaf[prev], self._leaf[u], self._depth, self._parent
        while a != b:
            if depth[a] >= depth[b]:
                x, y = self._factor(a, prev)
                a = parent[a]
            else:
                y, x = self._factor(b, u)
                b = parent[b]
            if x != y:
                up.append(y)
                down.append(x)
        return self._scaled(ways, up, down)

    def options(self) -> Iterator[tuple[int, int]]:
        """``(element, extensions that begin with the placed ones and it)`` for
        every element that may come next, in increasing order, priced as
        they are asked for (see the class docstring); nothing may be placed
        while the iterator is in use."""
        prev, ways = None, 0
        for u in self.frontier:
            ways = self._price_first(u) if prev is None else self._price_next(ways, prev, u)
            self._priced = (u, ways)
            self.work["priced"] += 1
            yield u, ways
            prev = u

    def place(self, u: int) -> None:
        """Place ``u`` next (it must be one of the options)."""
        priced = self._priced
        self._count = priced[1] if priced is not None and priced[0] == u else self._price_first(u)
        self._priced = None
        i = self._leaf[u]
        parent = self._parent[i]
        if parent in self._mask:
            self._mask[parent] |= 1 << self._nodes[parent].prime.local[u]
        left = self._left
        while i >= 0:
            left[i] -= 1
            i = self._parent[i]
        self.frontier.place(u)
        self.seq.append(u)


__all__ = ["Poset", "Walker", "Node", "TooWide", "DEFAULT_MAX_STATES", "MIXING_EPSILON", "bits", "multinomial"]
