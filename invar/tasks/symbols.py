"""Renaming rules of the tasks whose programs are strings of interchangeable
symbols (``copy``, ``alta``): every injective map of the symbols a program
uses into a pool, a symbol's referent being the symbol itself.

Imports ``errors``, ``program`` and ``symmetry`` only.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import UsageError
from ..program import Program, Token
from ..symmetry.renamings import RenamingSpace


def _spell(token: Token, target: str) -> str:
    return target


def symbol_space(
    program: Program, *, pool: Sequence[str] | None, pins: Sequence[str], alphabet: Sequence[str], what: str
) -> RenamingSpace:
    """Injective maps of the symbols ``program`` uses (pinned ones aside) into
    ``pool`` (default: the symbols used); a pool entry outside ``alphabet`` is
    a UsageError saying it is not ``what``."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    targets = [t for t in (pool if pool is not None else used) if t not in pinned]
    allowed = set(alphabet)
    bad = [t for t in targets if t not in allowed]
    if bad:
        raise UsageError(f"{bad[0]!r} is not {what}")
    return RenamingSpace(program, used, [targets] * len(used), _spell)


__all__ = ["symbol_space"]
