"""The examples a dataset stores, as every task reads them.

A dataset's rows become :class:`Example` values here, below the tasks that
score them (``invar.tasks`` imports this module; nothing in ``invar.data``
imports a task).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Example:
    """One stored example: the program as stored, its label, where it was read."""

    #: the program as the dataset stores it (BHive: hex)
    source: str
    label: Any
    path: str = ""
    line: int = 0
    #: why this row could not be read (a located DataError), else None; the
    #: audit reports such a row and goes on, training stops at it (:func:`checked`)
    error: Any = None


def checked(examples: Sequence[Example]) -> list[Example]:
    """``examples`` when every one was read; else the first one's error
    (training refuses a malformed row; an audit reports it and goes on)."""
    for ex in examples:
        if ex.error is not None:
            raise ex.error
    return list(examples)


__all__ = ["Example", "checked"]
