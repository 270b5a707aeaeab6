"""Prefixes, and where invar accepts them.

A prefix is accepted only where it means something, so that the text says
what runs (``lock mov`` raises #UD, ``rep bsf`` runs as ``tzcnt``,
``data16 addl`` adds 16 bits); what compilers print stays valid: ``rep ret``,
``repz ret``, ``rep stosq``, ``lock cmpxchg``, ``data16``/``cs`` nop
paddings, ``notrack``/``bnd`` branches.
"""

from __future__ import annotations

import re

from .operands import STRING, error, fixed_memory, is_gpr

#: words that prefix an instruction; a segment name written alone is a segment override
SEGMENT_WORDS = frozenset("cs ds es fs gs ss".split())
PREFIXES = (
    frozenset("lock rep repe repz repne repnz data16 data32 addr32 rex64 notrack bnd xacquire xrelease".split())
    | SEGMENT_WORDS
)

#: instructions ``lock`` may prefix (with a memory destination)
_LOCKABLE = frozenset(
    "add adc and btc btr bts cmpxchg cmpxchg8b cmpxchg16b dec inc neg not or sbb sub xadd xchg xor".split()
)
_BRANCH = re.compile(r"^(?:j[a-z]+|call|ret|lret|loop[a-z]*)$")
_REP_STRING = ("movs", "lods", "stos", "ins", "outs")
_REPE_STRING = ("cmps", "scas")


def segment_prefix(prefixes: list[tuple[str, int]]) -> str | None:
    """The segment a prefix word selects for memory operands (``fs``/``gs``;
    the others mean nothing in 64-bit mode), or None."""
    for p, _ in prefixes:
        if p in ("fs", "gs"):
            return p
    return None


def _check_conflicts(prefixes: list[tuple[str, int]], family: str | None, operands: list[dict]) -> None:
    """No two prefixes that contradict each other (``rep`` and ``repne``,
    ``xacquire`` and ``xrelease``) and no two segments for one operand."""
    names = [p for p, _ in prefixes]
    for group in ({"rep", "repe", "repz"}, {"repne", "repnz"}), ({"xacquire"}, {"xrelease"}):
        used = [p for p in dict.fromkeys(names) if any(p in g for g in group)]
        if any(p in group[0] for p in used) and any(p in group[1] for p in used):
            raise error(f"conflicting prefixes {' and '.join(used)}", prefixes[-1][1])
    segments = [p for p in names if p in SEGMENT_WORDS]
    if len(set(segments)) > 1:
        raise error(f"two segment overrides ({' and '.join(sorted(set(segments)))})", prefixes[-1][1])
    for o in operands:
        if segments and o["kind"] == "mem" and o.get("seg") not in (None, segments[0]):
            if family is not None and o.get("seg") == "es" and fixed_memory(o, ("rdi", "edi")):
                continue  # a string destination is always %es: no prefix changes it
            raise error(f"two segment overrides ({segments[0]} and %{o['seg']})", o["col"])


def check_prefixes(mnemonic: str, base: str, prefixes: list[tuple[str, int]], operands: list[dict]) -> None:
    """Prefixes only where they mean something. ``rep`` on the instructions it
    repeats (and ``rep ret``/``rep nop``, which compilers print); ``repe``/
    ``repne`` on ``cmps``/``scas``, ``repne`` also as the ``bnd`` prefix of
    branches; ``lock`` on a read-modify-write of memory; ``xacquire``/
    ``xrelease`` with a locked instruction (``xrelease`` also on a store);
    ``notrack`` on an indirect jump or call; ``bnd`` on branches; ``data16``,
    ``rex64`` and ``addr32`` where they change nothing invar models (nops,
    calls, ``data16`` before a 64-bit ``lea``: the TLS sequences); segment
    words anywhere (``fs``/``gs`` select the segment of memory operands)."""
    names = [p for p, _ in prefixes]
    string = STRING.match(mnemonic)
    family = (
        string.group(1) if string and not any(o["kind"] == "reg" and o["reg"].cls == "vec" for o in operands) else None
    )
    branch = bool(_BRANCH.match(base)) or base in ("jmp", "call")
    nop = base in ("nop", "pause")
    mem_dest = bool(operands) and operands[-1]["kind"] == "mem"
    _check_conflicts(prefixes, family, operands)
    for p, at in prefixes:
        ok = True
        if p in ("rep", "repe", "repz"):
            if family in _REP_STRING:
                ok = p == "rep"
            else:  # rep ret (a branch-predictor habit), rep nop (pause)
                ok = family in _REPE_STRING or base == "ret" or (mnemonic == "nop" and not operands and names == [p])
            why = "repeats string instructions (movs, stos, lods, ins, outs; repe: cmps, scas)"
        elif p in ("repne", "repnz"):
            ok = family in _REPE_STRING or branch
            why = "repeats cmps and scas (or marks a bnd branch)"
        elif p == "lock":
            ok = base in _LOCKABLE and (mem_dest or base == "xchg" and any(o["kind"] == "mem" for o in operands))
            why = (
                "applies to a read-modify-write of memory (add, adc, and, btc, btr, bts, cmpxchg, dec, inc, neg, not, "
                "or, sbb, sub, xadd, xchg, xor)"
            )
        elif p == "xacquire":
            ok = "lock" in names or base == "xchg" and any(o["kind"] == "mem" for o in operands)
            why = "applies to a locked instruction or xchg with memory"
        elif p == "xrelease":
            ok = (
                "lock" in names
                or base == "xchg"
                and any(o["kind"] == "mem" for o in operands)
                or (base == "mov" and mem_dest and operands[0]["kind"] in ("reg", "imm"))
            )
            why = "applies to a locked instruction, xchg with memory or a store"
        elif p == "notrack":
            ok = base in ("jmp", "call") and bool(operands) and bool(operands[0].get("indirect"))
            why = "applies to an indirect jmp or call"
        elif p == "bnd":
            ok = branch
            why = "applies to branches"
        elif p == "data32":
            ok = False
            why = "does not exist in 64-bit mode"
        elif p in ("data16", "rex64"):
            ok = (
                nop
                or base == "call"
                or (
                    p == "data16"
                    and base == "lea"
                    and bool(operands)
                    and is_gpr(operands[-1])
                    and operands[-1]["bits"] == 64
                )
            )
            why = "changes the operand size; invar accepts it only on nops, calls and 64-bit lea"
        elif p == "addr32":
            ok = nop or base in ("call", "jmp")
            why = "changes the address size; invar accepts it only on nops, calls and jumps"
        else:
            continue  # segment words
        if not ok:
            raise error(f"prefix {p!r} {why}; not {mnemonic!r}", at)
