"""The contract every space of transforms keeps, and the product of spaces.

A **space** is the set of all transforms of one kind of one program: its
renamings (:class:`~invar.symmetry.renamings.RenamingSpace`), its line
orders (:class:`~invar.symmetry.permutations.PermutationSpace`), or one of
each (:class:`ProductSpace`). :class:`Space` is the typed protocol they
share, so that the code above (the audit's drawing, the CLI) takes a space
as a value and never asks which kind it holds.

Every space is exact: ``count`` is the true size (an int, possibly huge),
``enumerate`` walks the elements in a fixed order, ``rank``/``unrank`` map
between an element and its position in that order, and ``samples`` draws
uniformly. A space too large to count (a permutation space with a part too
wide for its table) refuses ``count`` with :class:`IntractableError`,
which carries bounds, and samples by a Markov chain instead
(``exact_sampling`` is then False).

Examples
--------
>>> from invar.program import Line, Program
>>> from invar.symmetry.permutations import PermutationSpace
>>> p = Program("toy", tuple(Line(t) for t in ("x = 1", "y = x", "z = 2")), (), deps=((0, 1),))
>>> orders = PermutationSpace(p)
>>> both = ProductSpace(orders, orders)
>>> both.count(), isinstance(both, Space)
(9, True)
>>> [tuple(t.order for t in pair) for pair in both.enumerate(limit=2)]
[((0, 1, 2), (0, 1, 2)), ((0, 1, 2), (0, 2, 1))]
>>> both.rank(both.unrank(5))
5
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable, Generic, Iterator, Protocol, TypeVar, runtime_checkable

from ..errors import SpaceError
from ..program import Program
from .bigint import decimal_string, divmod_exact, product

#: a space's element: a Renaming, a Permutation, or a tuple of them (a product's)
T = TypeVar("T")


class IntractableError(SpaceError):
    """The exact count (or rank) needs more down-sets than allowed.

    ``lower`` and ``upper`` bound the true count."""

    def __init__(self, message: str, lower: int, upper: int) -> None:
        super().__init__(message)
        self.lower = lower
        self.upper = upper


@runtime_checkable
class Space(Protocol[T]):
    """All transforms of one kind of one program, exactly.

    The nine methods below are the contract; ``__contains__`` (membership)
    and ``exact_sampling`` come with them. A class declares that it keeps
    it by naming ``Space[ElementType]`` among its bases; ``isinstance(x,
    Space)`` checks any object's methods at run time."""

    #: the program whose transforms these are
    program: Program

    def count(self) -> int:
        """The exact number of elements (identity included where admissible);
        :class:`IntractableError`, with bounds, where it is too costly."""
        ...

    def rank(self, t: T) -> int:
        """The position of ``t`` in the enumeration order (SpaceError when not an element)."""
        ...

    def unrank(self, index: int) -> T:
        """The element at position ``index`` of the enumeration order."""
        ...

    def enumerate(self, limit: int | None = None) -> Iterator[T]:
        """Every element (at most ``limit``), in the space's fixed order."""
        ...

    def sample(self, n: int, rng: random.Random | int | None = None) -> list[T]:
        """``n`` elements drawn independently and uniformly: the first ``n`` of ``samples(rng)``."""
        ...

    def samples(self, rng: random.Random | int | None = None) -> Iterator[T]:
        """An endless stream of independent uniform draws, in constant memory."""
        ...

    def apply(self, program: Program | None, t: T) -> Program:
        """``program`` (None: the space's own) transformed by ``t``."""
        ...

    def render(self, t: T) -> str:
        """The text of the space's program transformed by ``t``."""
        ...

    def undo(self, prediction: Any, t: T) -> Any:
        """A prediction made on the transformed program, in the original's terms."""
        ...

    def __contains__(self, t: object) -> bool:
        """Whether ``t`` is an element of the space."""
        ...

    @property
    def exact_sampling(self) -> bool:
        """Whether ``samples`` is exactly uniform (else a Markov chain's, within its ε)."""
        ...


class ProductSpace(Space[tuple]):
    """One transform from each factor, applied in the factors' order: the
    audit's ``both`` is ``ProductSpace(renamings, permutations)``, a
    renaming then a line order.

    An element is a tuple with one element of each factor. The enumeration
    order is that of :func:`itertools.product` over the factors'
    enumerations (the last factor varies fastest), so ``rank`` is the
    mixed-radix number whose digits are the factors' ranks. A draw takes one
    element of each factor, in order, from one generator: for a renaming
    space and a permutation space, a renaming then an order, per element."""

    def __init__(self, *factors: Space) -> None:
        if not factors:
            raise ValueError("a product needs at least one space")
        #: the spaces multiplied, in the order their transforms apply
        self.factors: tuple[Space, ...] = factors
        self.program = factors[0].program

    # ---------------------------------------------------------------- counting
    def count(self) -> int:
        """The product of the factors' counts; :class:`IntractableError`
        when a factor refuses its own (its bounds times the others')."""
        bounds, refused = [], False
        for f in self.factors:
            try:
                c = f.count()
                bounds.append((c, c))
            except IntractableError as err:
                bounds.append((err.lower, err.upper))
                refused = True
        lower, upper = product(lo for lo, _ in bounds), product(hi for _, hi in bounds)
        if refused:
            raise IntractableError(
                f"too many to count exactly; between {decimal_string(lower)} and {decimal_string(upper)}", lower, upper
            )
        return lower

    @property
    def exact_sampling(self) -> bool:
        return all(f.exact_sampling for f in self.factors)

    # ---------------------------------------------------- ranking / unranking
    def rank(self, t: tuple) -> int:
        if not isinstance(t, tuple) or len(t) != len(self.factors):
            raise SpaceError(f"an element of this product is a tuple of {len(self.factors)} transforms")
        index = 0
        for f, x in zip(self.factors, t):
            index = index * f.count() + f.rank(x)
        return index

    def unrank(self, index: int) -> tuple:
        check_index(index, self.count())
        digits = []
        for f in reversed(self.factors):
            index, digit = divmod_exact(index, f.count())
            digits.append(f.unrank(digit))
        return tuple(reversed(digits))

    def __contains__(self, t: object) -> bool:
        return isinstance(t, tuple) and len(t) == len(self.factors) and all(x in f for f, x in zip(self.factors, t))

    # ------------------------------------------------- enumerate and sample
    def enumerate(self, limit: int | None = None) -> Iterator[tuple]:
        """The elements in :func:`itertools.product`'s order, lazily: each
        later factor is walked again for every element of the ones before it,
        so no factor is held in memory."""
        if limit is not None and limit <= 0:
            return
        if any(next(f.enumerate(1), None) is None for f in self.factors):
            return  # an empty factor: an empty product
        yield from islice(_product(self.factors), limit)

    def sample(self, n: int, rng: random.Random | int | None = None) -> list[tuple]:
        check_draws(n)
        return list(islice(self.samples(rng), n))

    def samples(self, rng: random.Random | int | None = None) -> Iterator[tuple]:
        """Independent uniform draws: each factor's own stream, all from one
        generator, read in the factors' order for every element."""
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        streams = [f.samples(rng) for f in self.factors]
        while True:
            yield tuple([next(s) for s in streams])

    # ---------------------------------------------------------- apply / undo
    def apply(self, program: Program | None, t: tuple) -> Program:
        """Each factor's transform in turn, the first factor's first."""
        for f, x in zip(self.factors, t):
            program = f.apply(program, x)
        return program  # type: ignore[return-value]

    def render(self, t: tuple) -> str:
        return self.apply(None, t).render()

    def undo(self, prediction: Any, t: tuple) -> Any:
        """Each factor's undo in turn, the last factor's first."""
        for f, x in reversed(list(zip(self.factors, t))):
            prediction = f.undo(prediction, x)
        return prediction


def _product(factors: tuple[Space, ...]) -> Iterator[tuple]:
    if not factors:
        yield ()
        return
    for x in factors[0].enumerate():
        for rest in _product(factors[1:]):
            yield (x, *rest)


def check_index(index: int, total: int, what: str = "index") -> None:
    """SpaceError unless ``0 <= index < total``; an empty space says so."""
    if total == 0:
        raise SpaceError(f"{what} {index}: the space is empty (no admissible element)")
    if not 0 <= index < total:
        raise SpaceError(f"{what} {index} out of range 0..{total - 1}")


def check_draws(n: int) -> None:
    """SpaceError unless ``n`` (a number of draws) is at least 0."""
    if n < 0:
        raise SpaceError(f"cannot draw {n} elements: give a count of at least 0")


def accepts(check: Callable[[Any], object], t: Any) -> bool:
    """Whether ``check`` (a space's own reading of an element: its rank, its
    split) takes ``t`` without a SpaceError: the membership test of a space
    that validates as it reads."""
    try:
        check(t)
    except SpaceError:
        return False
    return True


@dataclass(frozen=True)
class Drawn(Generic[T]):
    """What :func:`draw` took from a space."""

    #: the elements: drawn uniformly, or every element in enumeration order when ``exhaustive``
    items: list[T]
    #: the space's count; None when it is too large to count
    size: int | None
    #: whether ``items`` is the whole space
    exhaustive: bool
    #: whether the draws are exactly uniform (False: a Markov chain's)
    exact: bool


def draw(space: Space[T], k: int, rng: random.Random) -> Drawn[T]:
    """``k`` elements of ``space`` drawn uniformly (independently, with
    replacement) from ``rng``, or every element when there are at most ``k``."""
    try:
        size, exact = space.count(), True
    except IntractableError:  # far too many to count: drawn by the Markov chain
        size, exact = None, space.exact_sampling
    if size == 0:
        return Drawn([], 0, True, True)
    if size is not None and size <= k:
        return Drawn(list(space.enumerate()), size, True, True)
    return Drawn(space.sample(k, rng), size, False, exact)


__all__ = ["Space", "ProductSpace", "IntractableError", "Drawn", "accepts", "check_draws", "check_index", "draw"]
