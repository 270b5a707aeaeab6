"""Python's renaming rules: the shared local rules (:mod:`..locals`) with
the words no Python variable may take.

Imports ``..locals``, ``.scopes`` (what a private name is), ``errors``, ``program`` and ``symmetry`` only.
"""

from __future__ import annotations

import keyword
from typing import Iterable, Sequence

from ...program import Program
from ...symmetry.renamings import RenamingSpace
from ..locals import local_canonical_space, local_renaming_space
from .scopes import private


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
    """All capture-free renamings of the unit's parameters and locals.

    ``pool``: the target names; by default a pool per view (docs/semantics.md,
    "Enumeration order"): parameters take the unit's parameter names and
    locals its local names, padded with fresh ``p0, p1, …`` or ``l0, l1, …``
    where a view has fewer names than referents (two scopes reuse a name).
    ``pins``: referents or bare names to keep. No target may be a keyword or any name the unit uses
    without renaming it (globals, builtins, imports, attributes' owners …),
    so no renamed variable can capture or be captured; nor a private name
    (``__x``), which a class mangles (a private variable keeps its name).
    """
    if pool is not None:  # a private name is another name inside a class: never a target
        pool = [p for p in pool if not private(p)]
    return local_renaming_space(program, pool=pool, pins=pins, is_keyword=_reserved)


def _reserved(word: str) -> bool:
    """Names no Python variable may take: keywords, and dunder names, which
    the language reserves (``__debug__`` cannot be assigned; ``__class__``
    is the cell zero-argument ``super()`` reads)."""
    return keyword.iskeyword(word) or (word.startswith("__") and word.endswith("__") and len(word) > 4)


def canonical_space(program: Program, *, pins: Iterable[str] = ()) -> RenamingSpace:
    """The renamings onto the fixed pool ``v0, v1, …`` (as many names as the
    unit has movable referents, skipping names it uses without renaming them,
    which no renaming changes); the first is the canonical form."""
    return local_canonical_space(program, pins=pins, is_keyword=_reserved)


__all__ = ["renaming_space", "canonical_space"]
