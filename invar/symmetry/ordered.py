"""A set of positions that answers order statistics: the ``r``-th smallest
member, how many members lie below a value, and members taken out or put
back, each in time logarithmic in the positions (a Fenwick tree of
membership flags).

It is what lets the symmetry layer walk long orders without rescanning them:
the sampler of :mod:`.posets` hands a node's positions down to its largest
part in place (the others take theirs out), and the walks over line orders
keep the lines that may come next as one (see :mod:`.permutations`). The
tree itself, :class:`Fenwick`, also weighs the free targets of a renaming
(see :mod:`.renamings`).

Part of the symmetry layer: imports nothing from invar.
"""

from __future__ import annotations

from typing import Iterable, Sequence


class Fenwick:
    """Weights of positions ``0..n-1`` in a Fenwick tree (``tree``, 1-based):
    the sum of those before a position and a weight changed, each in time
    logarithmic in ``n``; ``top``, the largest power of two up to ``n``, is
    where a descent to the position of a given prefix sum starts."""

    __slots__ = ("tree", "n", "top")

    def __init__(self, tree: list[int]) -> None:
        self.tree = tree
        self.n = len(tree) - 1
        self.top = 1 << (self.n.bit_length() - 1) if self.n else 0

    @staticmethod
    def build(weights: Sequence[int]) -> list[int]:
        """The tree of ``weights``, in time linear in their number."""
        tree = [0, *weights]
        n = len(weights)
        for i in range(1, n + 1):
            j = i + (i & -i)
            if j <= n:
                tree[j] += tree[i]
        return tree

    def prefix(self, p: int) -> int:
        """The weights of positions ``0..p-1``."""
        s, tree = 0, self.tree
        while p > 0:
            s += tree[p]
            p &= p - 1
        return s

    def update(self, p: int, delta: int) -> None:
        """Add ``delta`` to the weight of position ``p``."""
        tree, n = self.tree, self.n
        p += 1
        while p <= n:
            tree[p] += delta
            p += p & -p


class OrderedSet(Fenwick):
    """Members among ``0..n-1``; all of them at first when ``full``.

    Examples
    --------
    >>> s = OrderedSet(6)
    >>> s.discard(2); s.discard(4)
    >>> len(s), s.select(2), s.rank(5), s.next_from(2)
    (4, 3, 3, 3)
    """

    __slots__ = ("size", "member")

    def __init__(self, n: int, full: bool = True) -> None:
        super().__init__(Fenwick.build([1] * n) if full else [0] * (n + 1))
        self.member = bytearray([1 if full else 0]) * n
        self.size = n if full else 0

    def __len__(self) -> int:
        return self.size

    def __contains__(self, x: int) -> bool:
        return 0 <= x < self.n and bool(self.member[x])

    def add(self, x: int) -> None:
        """Put ``x`` in (nothing when it is already)."""
        if not self.member[x]:
            self.member[x] = 1
            self.size += 1
            self.update(x, 1)

    def discard(self, x: int) -> None:
        """Take ``x`` out (nothing when it is not in)."""
        if self.member[x]:
            self.member[x] = 0
            self.size -= 1
            self.update(x, -1)

    def rank(self, x: int) -> int:
        """How many members are smaller than ``x``."""
        return self.prefix(min(x, self.n))

    def select(self, r: int) -> int:
        """The member with ``r`` members below it (``0 <= r < len(self)``)."""
        pos, step, tree, n = 0, self.top, self.tree, self.n
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] <= r:
                pos = nxt
                r -= tree[nxt]
            step >>= 1
        return pos

    def next_from(self, x: int) -> int | None:
        """The smallest member at least ``x``, or None."""
        if x < self.n and x >= 0 and self.member[x]:
            return x
        r = self.rank(x)
        return self.select(r) if r < self.size else None


class Positions:
    """Sorted positions ``base``, of which the members of an :class:`OrderedSet`
    are still free: a node's positions while parts of it take theirs out."""

    __slots__ = ("base", "free")

    def __init__(self, base: Sequence[int]) -> None:
        self.base = base
        self.free = OrderedSet(len(base))

    def __len__(self) -> int:
        return len(self.free)

    def take(self, groups: Iterable[Sequence[int]]) -> list[list[int]]:
        """For each group of ranks (increasing, counted among the free
        positions before any is taken), those positions; all of them are then
        taken out."""
        free, base = self.free, self.base
        found = [[free.select(r) for r in ranks] for ranks in groups]
        for idx in found:
            for i in idx:
                free.discard(i)
        return [[base[i] for i in idx] for idx in found]

    def remaining(self) -> list[int]:
        """The free positions, increasing."""
        free, base = self.free, self.base
        if len(free) == len(base):
            return list(base)
        return [base[free.select(r)] for r in range(len(free))]


__all__ = ["Fenwick", "OrderedSet", "Positions"]
