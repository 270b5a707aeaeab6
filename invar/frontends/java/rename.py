"""Java's renaming rules: the shared local rules (:mod:`..locals`) with
the words no Java variable may take.

Imports ``..locals``, ``errors``, ``program`` and ``symmetry`` only.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ...program import Program
from ...symmetry.renamings import RenamingSpace
from ..locals import local_canonical_space, local_renaming_space

#: the words no variable may be named (JLS 3.8, 3.9): the reserved keywords
#: (``_`` among them since Java 9) and the literals
JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while true false null _""".split()
)
#: the restricted identifiers (JLS 3.8, 3.9 of Java 17): never a type's name
#: (``TypeIdentifier``), and ``yield`` never a method's called by its simple
#: name, but a local variable or parameter may take any of them
#: (``VariableDeclaratorId`` is any ``Identifier``), and every place a
#: renaming puts a target is such a declaration or a use of one: ``int var =
#: 1; var = var + 1;``, ``yield yield;`` in a switch expression, ``record.x``.
#: So they are renaming targets; types, methods and labels are never renamed
RESTRICTED_IDENTIFIERS = frozenset({"var", "yield", "record", "sealed", "permits"})


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
    """All renamings of a method's parameters and locals that capture nothing:
    no target is a Java keyword or literal or any identifier the method uses
    otherwise (fields, types, methods, labels); a restricted identifier
    (:data:`RESTRICTED_IDENTIFIERS`) may be one. Pool and pins as for Python."""
    return local_renaming_space(program, pool=pool, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


def canonical_space(program: Program, *, pins: Iterable[str] = ()) -> RenamingSpace:
    """Renamings onto the fixed pool ``v0, v1, …``; the first is the canonical form."""
    return local_canonical_space(program, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


__all__ = ["renaming_space", "canonical_space", "JAVA_KEYWORDS", "RESTRICTED_IDENTIFIERS"]
