"""Dependencies between the instructions of a basic block.

Line j depends on line i (i < j) when swapping them could change the block's
final state: one writes a resource the other reads or writes. Resources are
base registers (a write to ``%eax`` conflicts with a read of ``%ah``), the
arithmetic flags as one resource, the x87 stack as one resource, and memory.
Two memory accesses conflict unless both addresses are provably disjoint:
same base and index registers, unchanged between the two lines, numeric
displacements whose extents (bounded by the instruction's widest operand) do
not overlap. Control flow, rip-relative addressing (its address moves with
the instruction), and instructions that read the world outside the block
(``rdtsc``, ``cpuid``) are barriers: nothing moves across them.
"""

from __future__ import annotations

import bisect

from ...program import Line
from .semantics import Effects, suffix_bytes

#: the widest memory access a single bounded operand makes (a zmm register)
_WIDEST = 64


def _extent(info: dict, eff: Effects) -> int | None:
    """An upper bound in bytes on what one memory operand of this instruction
    touches, or None when its extent does not follow from the operand."""
    base = info["base"]
    if eff.unbounded_memory or base in ("bt", "bts", "btr", "btc", "movdir64b", "enqcmd", "enqcmds"):
        return None
    size = suffix_bytes(info["mnemonic"], base)
    if size is not None and base not in ("fild", "fistp", "fisttp", "fld", "fst", "fstp"):
        return size
    widths = [o["reg"].bits // 8 for o in info["operands"] if o["kind"] == "reg" and o["reg"].cls in ("gpr", "vec", "mmx")]
    if eff.x87:
        return max([10] + widths)
    return max(widths) if widths else _WIDEST


def _access(info: dict, eff: Effects) -> list[tuple] | None:
    """The memory operands as comparable address keys, or None when any is not
    described well enough to prove anything."""
    out = []
    for o in info["operands"]:
        if o["kind"] != "mem":
            continue
        size = _extent(info, eff)
        if size is None or o.get("disp") is None or o.get("absolute") or o.get("rip"):
            return None
        key = (
            o.get("seg"),
            o["base"].referent if o["base"] is not None else None,
            o["index"].referent if o["index"] is not None else None,
            o["scale"] if o["index"] is not None else 1,
        )
        out.append((key, o["disp"], size))
    if not out and (eff.reads_memory or eff.writes_memory):
        return None  # implicit memory (push, string ops): not described
    return out


def _disjoint(a: list[tuple], b: list[tuple], between) -> bool:
    for key_a, disp_a, size_a in a:
        for key_b, disp_b, size_b in b:
            if key_a != key_b:
                return False
            if key_a[1] in between or key_a[2] in between:
                return False  # the base or index changes between the two lines
            if not (disp_a + size_a <= disp_b or disp_b + size_b <= disp_a):
                return False
    return True


class _WrittenBetween:
    """``ref in between``: was ``ref`` written by a line strictly between i and j?"""

    __slots__ = ("writers", "i", "j")

    def __init__(self, writers: dict[str, list[int]], i: int, j: int) -> None:
        self.writers, self.i, self.j = writers, i, j

    def __contains__(self, ref: object) -> bool:
        lines = self.writers.get(ref, ()) if isinstance(ref, str) else ()
        k = bisect.bisect_right(lines, self.i)
        return k < len(lines) and lines[k] < self.j


def block_dependencies(lines: list[Line], semantics: list[tuple]) -> tuple[tuple[tuple[int, int], ...], frozenset[str]]:
    """Dependency pairs of a block and the referents its semantics pin.

    ``semantics[i]`` is ``(effects, info, tokens)`` for line i as built by the
    parser. Pinned referents are the implicit and fixed registers; when an
    instruction exposes every register (``fxsave``, ``syscall``) every
    renamable referent is pinned; ``vec:*`` marks a block that uses the vector
    file as a whole (``vzeroupper``), which keeps renamings inside ``%xmm0-15``.
    """
    n = len(lines)
    pinned: set[str] = set()
    everything = False
    for eff, _info, _toks in semantics:
        imp = eff.implicit
        everything |= imp.everything
        if imp.vector_file:  # touches all of %xmm0-15 alike: restricts, does not pin
            pinned.add("vec:*")
            pinned |= imp.reads | imp.fixed
        else:
            pinned |= imp.reads | imp.writes | imp.fixed
    if everything:
        pinned |= {t.referent for _e, _i, toks in semantics for t in toks if t.referent is not None}
    access = [_access(info, eff) for eff, info, _ in semantics]
    barrier = [eff.barrier for eff, _info, _toks in semantics]
    # per resource, the lines that wrote it and the lines that read it, so
    # each line meets only the lines it can conflict with
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    memory_lines: list[int] = []
    barrier_lines: list[int] = []
    deps: set[tuple[int, int]] = set()
    for j in range(n):
        reads, writes = lines[j].reads - {"mem"}, lines[j].writes - {"mem"}
        found: set[int] = set()
        if barrier[j]:
            found.update(range(j))
        else:
            found.update(barrier_lines)
            for r in reads | writes:
                found.update(writers.get(r, ()))
            for r in writes:
                found.update(readers.get(r, ()))
            touches = "mem" in lines[j].reads or "mem" in lines[j].writes
            if touches:
                for i in memory_lines:
                    if i in found or not ("mem" in lines[i].writes or "mem" in lines[j].writes):
                        continue
                    a, b = access[i], access[j]
                    if a is None or b is None or not _disjoint(a, b, _WrittenBetween(writers, i, j)):
                        found.add(i)
        deps.update((i, j) for i in found)
        if barrier[j]:
            barrier_lines.append(j)
        for r in writes:
            writers.setdefault(r, []).append(j)
        for r in reads:
            readers.setdefault(r, []).append(j)
        if "mem" in lines[j].reads or "mem" in lines[j].writes:
            memory_lines.append(j)
    deps = sorted(deps)
    return tuple(deps), frozenset(pinned)
