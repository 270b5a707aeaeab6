"""How far one check may go: its deadline and the error that ends it.

Holds :class:`CheckLimitError` (past the state limit or the deadline), the
:class:`Budget` every loop of the checker spends from, and :func:`slices`, which
cuts a long list so that a loop over it still looks at the clock.

Part of the frontends layer: imports only :mod:`invar.errors` (and nothing from
symmetry up, nor the rest of the LTL checker, which builds on it).
"""

from __future__ import annotations

import time
from typing import Sequence

from ...errors import InvarError


class CheckLimitError(InvarError):
    """The product grew past ``max_states`` or the deadline passed."""


#: units of work (a move compared, a node expanded …) between two looks at the clock
GRAIN = 2048


class Budget:
    """The wall-clock deadline of one check, looked at every :data:`GRAIN`
    units of work. Every loop whose length depends on the input spends from
    it, so a check stops within one grain of its deadline wherever it is; the
    work itself is unchanged, so whatever finishes is exact."""

    __slots__ = ("timeout", "deadline", "left")

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.left = GRAIN

    def spend(self, work: int = 1) -> None:
        self.left -= work
        if self.left <= 0:
            self.left = GRAIN
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise CheckLimitError(f"over the time limit: trace check ran past {self.timeout:g} s")


#: no deadline (library callers that set no timeout)
UNLIMITED = Budget(None)


def slices(xs: Sequence[int]) -> Sequence[Sequence[int]]:
    """``xs`` in slices of at most :data:`GRAIN` items, so that a loop over
    a long list still looks at the clock (one slice, ``xs`` itself, usually)."""
    if len(xs) <= GRAIN:
        return (xs,)
    return [xs[i : i + GRAIN] for i in range(0, len(xs), GRAIN)]
