"""Register renamings of a basic block and its canonical form.

A renaming maps base registers to base registers one-to-one within a class
(general-purpose, vector, mmx, mask) and keeps every view and the referent
relation. What a referent may become is the intersection, over its tokens, of
what each use allows:

* the view must exist on the target: ``%ah``-style uses need ``a c d b``;
* an instruction with a high-byte register cannot carry a REX prefix, so its
  other registers must stay among the eight legacy ones (low bytes among
  ``a c d b``, vector registers among ``%xmm0-7``);
* ``%rsp`` is never an index;
* a write mask (``{%k1}``) is never ``%k0``, which means "no mask";
* vector registers stay in ``%xmm0-15`` unless every use is in an instruction
  that is EVEX-encoded whatever its registers (an instruction with no VEX
  form such as ``vmovdqu64``, a ``zmm``, a mask, a decorator), and always when
  the block uses the vector file as a whole (``vzeroupper``);
* where llvm-mca times an instruction form differently on some register of a
  slot (``adcq $0, %rax``: :mod:`invar.frontends.x86.forms`, measured by the
  register sweep), that register stays in that slot and no other register of
  the slot becomes it.

Pinned referents (implicit and fixed operands, ``--pin``) stay put, and no
other referent may take their place. The enumeration order is that of
:mod:`invar.symmetry.renamings`, with targets in encoding order
(``a c d b sp bp si di r8 … r15``; vector registers by number).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from ...errors import SpaceError, UsageError
from ...program import Program, Token
from ...symmetry.renamings import Renaming, RenamingSpace
from ..registry import X86
from .registers import BASES, LEGACY, LEGACY_BYTE, exists, lookup, spell
from .forms import timing_constraints
from .vector import evex_only


def _pin_referent(name: str) -> str:
    if ":" in name and name.split(":")[0] in BASES:
        return name
    reg = lookup(name)
    if reg is None:
        raise UsageError(f"--pin {name!r}: unknown register", path="--pin")
    return reg.referent


def _spell(token: Token, target: str) -> str:
    return spell(token.view, target)


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
    """The space of semantics-preserving register renamings of ``program``."""
    if program.lang != X86.name:
        raise SpaceError(f"not an x86 block: {program.lang}")
    if pool:
        raise UsageError("x86 renamings take no name pool; use --pin to keep registers")
    pinned = set(program.pinned) | {_pin_referent(p) for p in pins}
    vector_file = "vec:*" in pinned
    by_line: dict[int, list[Token]] = {}
    for tok in program.tokens:
        by_line.setdefault(tok.line, []).append(tok)

    allowed: dict[str, set[str]] = {}
    only_evex: dict[str, bool] = {}
    forbidden: dict[str, set[str]] = {}
    for line_tokens in by_line.values():
        regs = [t for t in line_tokens if t.kind == "register"]
        has_high = any(t.view == "gpr:8h" for t in regs)
        # not "a register above 15": that is not kept by renamings into 0-15
        mnemonic = next((t.text.lower() for t in line_tokens if t.kind == "mnemonic"), "")
        evex = (
            evex_only(mnemonic)
            or any(t.view == "vec:512" or t.view.startswith("mask:") for t in regs)
            or any(t.kind == "decorator" for t in line_tokens)
        )
        for referent, special in timing_constraints(line_tokens):
            if referent in special:
                pinned.add(referent)
            else:
                forbidden.setdefault(referent, set()).update(special)
        for k, tok in enumerate(line_tokens):
            if tok.kind != "register" or tok.referent is None:
                continue
            cls = tok.referent.split(":")[0]
            if cls not in BASES:
                continue
            ok = set(_viewable(tok.view, cls))
            if has_high and tok.view != "gpr:8h":
                if cls == "gpr":
                    legal = LEGACY_BYTE if tok.view == "gpr:8" else LEGACY
                    ok &= {f"gpr:{b}" for b in legal}
                elif cls == "vec":
                    ok &= {f"vec:{i}" for i in range(8)}
            # the index of a memory operand: the token after "(base," or "(,"
            prev = line_tokens[k - 1].text if k else ""
            if cls == "gpr" and prev == "," and k >= 2 and _in_parentheses(line_tokens, k):
                ok.discard("gpr:sp")
            if cls == "mask" and prev == "{":  # a write mask: %k0 would mean no masking
                ok.discard("mask:0")
            if cls == "vec":
                only_evex[tok.referent] = only_evex.get(tok.referent, True) and evex
            allowed[tok.referent] = allowed.get(tok.referent, ok) & ok
    for ref, only in only_evex.items():
        if vector_file or not only:
            allowed[ref] &= {f"vec:{i}" for i in range(16)}
    for ref, special in forbidden.items():
        if ref in allowed:
            allowed[ref] -= special

    present = program.referents
    referents = [r for r in present if r in allowed and r not in pinned]
    # a referent outside its own allowed set cannot be renamed at all: pin it
    for r in list(referents):
        if r not in allowed[r]:
            referents.remove(r)
            pinned.add(r)
    order = {f"{cls}:{b}": k for cls, bases in BASES.items() for k, b in enumerate(bases)}
    targets = [
        sorted((t for t in allowed[r] if t not in pinned), key=lambda t: (t.split(":")[0], order[t])) for r in referents
    ]
    space = RenamingSpace(program, referents, targets, _spell)
    space.pinned = frozenset(p for p in pinned if p != "vec:*") & frozenset(present)
    return space


@lru_cache(maxsize=None)
def _viewable(view: str, cls: str) -> frozenset[str]:
    """The bases of class ``cls`` that have a register of ``view``."""
    return frozenset(f"{cls}:{b}" for b in BASES[cls] if exists(view, f"{cls}:{b}"))


def _in_parentheses(tokens: list[Token], k: int) -> bool:
    depth = 0
    for t in tokens[:k]:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
    return depth > 0


def canonical_space(program: Program, *, pins: Iterable[str] = ()) -> RenamingSpace:
    """x86 targets are the register file itself, already fixed: the canonical
    space is the renaming space (see :func:`invar.symmetry.spaces.canonical`)."""
    return renaming_space(program, pins=pins)


def canonical(program: Program, pins: Iterable[str] = ()) -> tuple[Program, Renaming]:
    """The canonical renaming of a block: the first renaming in enumeration
    order (:func:`invar.symmetry.spaces.canonical`).

    Renamings of one block share their space's shape (the same referent
    positions with the same allowed targets), so they all map to the same
    first renaming, and blocks that are not renamings of each other differ in
    that shape or in their fixed tokens, so their canonical forms differ."""
    from ...symmetry.spaces import canonical as _canonical

    return _canonical(program, pins=pins)
