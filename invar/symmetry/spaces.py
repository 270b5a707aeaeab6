"""Which renaming space a program has, and its canonical form, by language.

Frontends own what a legal renaming is (views, encodability, capture); each
exposes ``renaming_space(program, *, pool=None, pins=()) -> RenamingSpace``
and ``canonical_space(program, *, pins=()) -> RenamingSpace``: the renamings
whose targets are a fixed pool that depends on nothing a renaming changes
(``v0, v1, …`` for locals, ``a, b, …`` for APs, the register file itself for
x86), whose first renaming is the canonical form.
"""

from __future__ import annotations

import importlib
from typing import Iterable, Sequence

from ..errors import SpaceError
from ..program import Program
from .renamings import Renaming, RenamingSpace

_RENAMERS = {
    "x86": "invar.frontends.x86.rename",
    "python": "invar.frontends.python",
    "java": "invar.frontends.java",
    "ltl": "invar.frontends.ltl",
}


def _renamer(program: Program):
    if program.lang not in _RENAMERS:
        raise SpaceError(f"no renamings are defined for {program.lang} programs")
    return importlib.import_module(_RENAMERS[program.lang])


def renaming_space(
    program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()
) -> RenamingSpace:
    """The renaming space of ``program`` (see each frontend for its rules)."""
    return _renamer(program).renaming_space(program, pool=pool, pins=tuple(pins))


def canonical(program: Program, *, pins: Iterable[str] = ()) -> tuple[Program, Renaming]:
    """The canonical renaming of ``program`` and the program it gives.

    It is the first renaming in enumeration order of the space whose targets
    are the frontend's fixed canonical pool. That pool, the order of the
    referents (first appearance) and the names a renaming must avoid (every
    name it does not rename) are the same for every renaming of a program, so
    all renamings of one program have the same canonical form (docs/semantics.md)."""
    space = _renamer(program).canonical_space(program, pins=tuple(pins))
    if space.count() == 0:
        raise SpaceError(f"{program.name or 'the program'} has no admissible renaming")
    first = space.unrank(0)
    return space.apply(program, first), first


__all__ = ["renaming_space", "canonical"]
