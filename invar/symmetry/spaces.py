"""Which renaming space a program has, chosen by its language.

Frontends own what a legal renaming is (views, encodability, capture); each
exposes ``renaming_space(program, *, pool=None, pins=()) -> RenamingSpace``.
"""

from __future__ import annotations

import importlib
from typing import Iterable, Sequence

from ..errors import SpaceError
from ..program import Program
from .renamings import RenamingSpace

_RENAMERS = {
    "x86": "invar.frontends.x86.rename",
    "python": "invar.frontends.python",
    "java": "invar.frontends.java",
    "ltl": "invar.frontends.ltl",
}


def renaming_space(
    program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()
) -> RenamingSpace:
    """The renaming space of ``program`` (see each frontend for its rules)."""
    if program.lang not in _RENAMERS:
        raise SpaceError(f"no renamings are defined for {program.lang} programs")
    module = importlib.import_module(_RENAMERS[program.lang])
    return module.renaming_space(program, pool=pool, pins=tuple(pins))
