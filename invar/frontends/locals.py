"""Renaming rules that Python and Java share: a unit's parameters and locals.

Both frontends give every parameter and local a referent and give every
other name none. A renaming moves the movable referents (those not pinned)
to targets that no name the unit keeps could capture. Each language only
says which words no variable may take (its keywords); see
:func:`invar.frontends.python.renaming_space` and
:func:`invar.frontends.java.renaming_space`.

Imports ``errors``, ``program`` and ``symmetry`` only; never a language's
package (they import this).
"""

from __future__ import annotations

import keyword
from typing import Callable, Iterable

from ..errors import PoolError
from ..program import Program
from ..symmetry.renamings import RenamingSpace


def name_of(referent: str) -> str:
    """The variable name a referent stands for (``local:f:x`` -> ``x``); a
    renamed program's referents are their target names, which stand for
    themselves."""
    return referent.rsplit(":", 1)[-1]


def fresh_names(avoid: set[str], n: int, stem: str = "v") -> list[str]:
    """``n`` names ``v0, v1, …`` none of which is in ``avoid``."""
    out, k = [], 0
    while len(out) < n:
        cand = f"{stem}{k}"
        if cand not in avoid:
            out.append(cand)
        k += 1
    return out


def check_pool(pool: Iterable[str], is_keyword=keyword.iskeyword) -> list[str]:
    """The pool as a list, or a PoolError naming its first unusable entry
    (the pool is the caller's mistake, not the program's)."""
    out = list(dict.fromkeys(pool))
    for p in out:
        if not p.isidentifier() or is_keyword(p):
            raise PoolError(f"the name pool's {p!r} cannot name a variable")
    return out


def _renamable(program: Program, pins: Iterable[str]) -> tuple[list[str], set[str], set[str]]:
    """(movable referents in first-appearance order, pinned referents, names
    no target may take): the part of a local renaming space that no renaming
    of the program changes."""
    pins = set(pins)
    referents = list(program.referents)
    pinned = set(program.pinned)
    pinned |= {r for r in referents if r in pins or name_of(r) in pins}
    movable = [r for r in referents if r not in pinned]
    # names the unit uses without renaming them; keywords, operators,
    # literals and attribute names are no variables and capture nothing
    forbidden = {t.text for t in program.tokens if t.referent is None and t.kind == "name"}
    forbidden |= {name_of(r) for r in pinned} | pins
    return movable, pinned, forbidden


def local_canonical_space(program: Program, *, pins: Iterable[str], is_keyword: Callable[[str], bool]) -> RenamingSpace:
    """The renamings onto the fixed pool ``v0, v1, …`` (as many names as the
    unit has movable referents, skipping names it uses without renaming them,
    which no renaming changes); the first is the canonical form."""
    pins = tuple(pins)
    movable, _pinned, forbidden = _renamable(program, pins)
    pool = fresh_names(forbidden, len(movable))
    return local_renaming_space(program, pool=pool, pins=pins, is_keyword=is_keyword)


def local_renaming_space(program: Program, *, pool, pins, is_keyword) -> RenamingSpace:
    """The renamings of ``program``'s movable referents onto ``pool``, no
    target a word ``is_keyword`` refuses or a name the unit keeps.

    Without a pool, each view is its own pool (docs/semantics.md,
    "Enumeration order"): a parameter takes the unit's parameter names, a
    local its local names, so that variants differ in which referent holds
    which name and never in the words each role shows; fresh names
    (``p0, p1, …``, ``l0, l1, …``: the view's initial) make up a view with
    fewer distinct names than referents."""
    movable, pinned, forbidden = _renamable(program, pins)
    referents = list(program.referents)
    view_of: dict[str, str] = {}
    for t in program.tokens:
        if t.referent is not None:
            view_of.setdefault(t.referent, t.view)
    if pool is not None:
        names = [p for p in check_pool(pool, is_keyword) if p not in forbidden]
        allowed = [names] * len(movable)
    else:
        groups: dict[str, list[str]] = {}
        for r in movable:
            groups.setdefault(view_of[r], []).append(r)
        own = {name_of(r) for r in referents}
        # the views each name occurs in, gathered once (not a set per name and view)
        views_of: dict[str, set[str]] = {}
        for view, refs in groups.items():
            for r in refs:
                views_of.setdefault(name_of(r), set()).add(view)
        by_view: dict[str, list[str]] = {}
        for view, refs in groups.items():
            names = [n for n in dict.fromkeys(name_of(r) for r in refs) if n not in forbidden]
            shared = sum(1 for n in names if len(views_of[n]) > 1)
            missing = len(refs) + shared - len(names)
            if missing > 0:
                names += fresh_names(forbidden | own, missing, stem=f"{view[0]}")
            by_view[view] = names
        allowed = [by_view[view_of[r]] for r in movable]
    return RenamingSpace(program, movable, allowed, lambda token, target: target)


__all__ = ["name_of", "fresh_names", "check_pool", "local_canonical_space", "local_renaming_space"]
