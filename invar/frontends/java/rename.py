"""Java's renaming rules: the shared local rules (:mod:`..locals`) with
the words no Java variable may take.

Imports ``..locals``, ``errors``, ``program`` and ``symmetry`` only.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ...program import Program
from ...symmetry.renamings import RenamingSpace
from ..locals import local_canonical_space, local_renaming_space

#: reserved words and literals no variable may be named
JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while true false null var yield
    record sealed permits _""".split()
)


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
    """All renamings of a method's parameters and locals that capture nothing:
    no target is a Java keyword or any identifier the method uses otherwise
    (fields, types, methods, labels). Pool and pins as for Python."""
    return local_renaming_space(program, pool=pool, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


def canonical_space(program: Program, *, pins: Iterable[str] = ()) -> RenamingSpace:
    """Renamings onto the fixed pool ``v0, v1, …``; the first is the canonical form."""
    return local_canonical_space(program, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


__all__ = ["renaming_space", "canonical_space", "JAVA_KEYWORDS"]
