"""The renaming rules of LTL: alpha-conversion of atomic propositions.

A renaming maps the APs of a formula and its trace together, injectively;
operators, constants and the trace's punctuation never change.
"""

from __future__ import annotations

import re
from typing import Sequence

from ...errors import ParseError, PoolError, SpaceError
from ...program import Program, Token
from ...symmetry.renamings import RenamingSpace
from .formula import KEYWORDS, Formula, parse_formula
from .parse import locate
from .trace import parse_trace

_AP_NAME = re.compile(r"[a-z_][A-Za-z0-9_]*")


def _spell(token: Token, target: str) -> str:
    return target


def _shape(f: Formula) -> tuple[str, ...]:
    """The formula with every AP name blanked, in Polish order (which fixes
    the tree, given each operator's arity): what a renaming must keep."""
    return tuple("?" if n.op == "ap" else n.op for n in f.walk())


def _line_shape(text: str, li: int) -> object:
    if li == 0:
        return _shape(parse_formula(text))
    trace = parse_trace(text)
    return len(trace.prefix), tuple(_shape(s) for s in trace.steps)


def _holds_long_names(program: Program) -> Token | None:
    """The first AP token of a line that would no longer parse the same with
    multi-letter AP names (compact Polish such as ``&ab``), or None."""
    for li, line in enumerate(program.lines):
        aps = [k for k, t in enumerate(program.tokens) if t.line == li and t.kind == "ap"]
        if not aps:
            continue
        renamed = program.with_token_texts({k: f"p_{n}" for n, k in enumerate(aps)})
        try:
            ok = _line_shape(renamed.lines[li].text, li) == _line_shape(line.text, li)
        except ParseError:
            ok = False
        if not ok:
            return program.tokens[aps[0]]
    return None


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Sequence[str] = ()) -> RenamingSpace:
    """All alpha-renamings of a formula (and its trace): injective maps of the
    used APs into ``pool`` (default: the APs used), minus ``pins``.

    The count is the falling factorial ``P(len(pool) - pinned, used)``."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    if pool is None:
        targets = [r for r in program.referents if r not in pinned]
    else:
        targets = list(dict.fromkeys(pool))
        for name in targets:
            if not _AP_NAME.fullmatch(name) or name in KEYWORDS:
                raise PoolError(f"{name!r} is not an AP name (lowercase letter or _, then letters, digits, _)")
        in_pool = set(targets)
        for tok in program.tokens:
            if tok.referent is not None and tok.referent not in in_pool and tok.referent not in pinned:
                line, col, source = locate(program, tok)
                raise SpaceError(
                    f"AP {tok.referent!r} is not in the pool ({', '.join(targets)})",
                    line=line,
                    col=col,
                    source_line=source,
                )
        targets = [t for t in targets if t not in pinned]
        long_names = [t for t in targets if len(t) > 1]
        if long_names:
            bad = _holds_long_names(program)
            if bad is not None:
                line, col, source = locate(program, bad)
                raise SpaceError(
                    f"pool AP {long_names[0]!r} has more than one letter, which compact Polish notation "
                    "cannot hold; separate the tokens with spaces (e.g. '& a X b')",
                    line=line,
                    col=col,
                    source_line=source,
                )
    return RenamingSpace(program, used, [targets] * len(used), _spell)


def canonical_space(program: Program, *, pins: Sequence[str] = ()) -> RenamingSpace:
    """Renamings onto the fixed pool ``a, b, c, …`` (single letters, so compact
    Polish stays writable; ``p0, p1, …`` when the unit uses more APs than the
    alphabet leaves), pinned APs excluded; the first is the canonical form.
    Unlike a user's ``--aps`` pool, the unit's own APs need not belong to it."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    targets = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in pinned]
    if len(used) > len(targets):
        targets = [n for n in (f"p{k}" for k in range(len(used) + len(pinned))) if n not in pinned]
    return RenamingSpace(program, used, [targets] * len(used), _spell)
