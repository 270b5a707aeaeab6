"""Which renaming space a program has, and its canonical form, by language.

Frontends own what a legal renaming is (views, encodability, capture); each
exposes ``renaming_space(program, *, pool=None, pins=()) -> RenamingSpace``
and ``canonical_space(program, *, pins=()) -> RenamingSpace``: the renamings
whose targets are a fixed pool that depends on nothing a renaming changes
(``v0, v1, …`` for locals, ``a, b, …`` for APs, the register file itself for
x86), whose first renaming is the canonical form.

This module sits below the frontends, so it cannot read their registry; the
layers that know the languages register each one's rules module here
(:func:`register_rules`): the frontends' registry
(``invar/frontends/registry.py``) for every record with rules, and a task
for a language of its own (copy strings, character windows, ALTA inputs).
``import invar`` imports that registry, so the table is full before any
program is asked about.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Iterable, Sequence

from ..errors import SpaceError
from ..program import Program

if TYPE_CHECKING:  # annotations only: the frontends' registry imports this module, and must stay light
    from .renamings import Renaming, RenamingSpace

#: ``Program.lang`` -> the module that holds its renaming rules; filled by :func:`register_rules`
_RENAMERS: dict[str, str] = {}


def register_rules(lang: str, module: str) -> None:
    """Name the module whose ``renaming_space`` and ``canonical_space`` give
    the renamings of ``lang``'s programs (the first registration of a language stands)."""
    _RENAMERS.setdefault(lang, module)


def _renamer(program: Program):
    if program.lang not in _RENAMERS:
        raise SpaceError(f"no renamings are defined for {program.lang} programs")
    return importlib.import_module(_RENAMERS[program.lang])


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
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


__all__ = ["renaming_space", "canonical", "register_rules"]
