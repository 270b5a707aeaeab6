"""The all-pairs dependency construction, kept as the reference the
frontend's sparse one is checked against (tests/frontends/test_x86_deps.py,
tests/frontends/test_x86.py).

:func:`all_pairs` returns every conflicting pair (i, j), i < j, as the
frontend built ``Program.deps`` before dependencies became a generating set:
quadratic in time and memory, and independent of the frontend's
construction, so that the two agree only when the frontend is right;
:func:`agree` checks a parsed program against it. The
rules are those of docs/formats.md: resources are base registers, ``flags``,
``x87``, ``mxcsr``, segment bases and memory (on ``x87`` and ``mxcsr`` two
accumulating lines, MMX or SSE floating point, do not conflict); two memory
accesses conflict unless both addresses have the same base and index
registers (unchanged between the two lines) and numeric displacements whose
extents do not overlap; barriers order everything.
"""

from __future__ import annotations

import bisect
import dataclasses
import importlib

from invar.frontends.x86.semantics import ACCUMULATING, Effects, memory_bytes
from invar.program import Line, Program
from invar.symmetry.dlg import dlg
from invar.symmetry.permutations import IntractableError, PermutationSpace

_parse = importlib.import_module("invar.frontends.x86.parse")


def _extent(info: dict, eff: Effects) -> int | None:
    """An upper bound in bytes on what one memory operand of this instruction
    touches (the operation's width, which the frontend's tables give), or
    None when its extent does not follow from the operand."""
    base = info["base"]
    if eff.unbounded_memory or base in ("bt", "bts", "btr", "btc", "movdir64b", "enqcmd", "enqcmds"):
        return None
    return memory_bytes(info["mnemonic"], base, info["operands"], eff.x87)


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


def all_pairs(lines: list[Line], semantics: list[tuple]) -> tuple[tuple[int, int], ...]:
    """Every conflicting pair of a block; ``semantics[i]`` is ``(effects,
    info, tokens)`` for line i as built by the parser."""
    n = len(lines)
    access = [_access(info, eff) for eff, info, _ in semantics]
    barrier = [eff.barrier for eff, _info, _toks in semantics]
    # per resource, the lines that wrote it and the lines that read it, so
    # each line meets only the lines it can conflict with
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    memory_lines: list[int] = []
    barrier_lines: list[int] = []
    deps: set[tuple[int, int]] = set()
    # per resource that some lines only accumulate into (mxcsr, x87): (line, how) of each line touching it
    modal: dict[str, list[tuple[int, str]]] = {}
    for j in range(n):
        reads, writes = lines[j].reads - {"mem"}, lines[j].writes - {"mem"}
        found: set[int] = set()
        if barrier[j]:
            found.update(range(j))
        else:
            found.update(barrier_lines)
            for r in (reads | writes) & _MODAL:
                how = _how(r, lines[j], semantics[j][0])
                # two accumulations commute, two reads commute; a write conflicts with all
                found.update(i for i, other in modal.get(r, ()) if "W" in (how, other) or how != other)
                modal.setdefault(r, []).append((j, how))
            reads, writes = reads - _MODAL, writes - _MODAL
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
    return tuple(sorted(deps))


_MODAL = frozenset(ACCUMULATING)


def _how(resource: str, line: Line, eff: Effects) -> str:
    """``A`` when the line only accumulates into the resource (its effects say
    so), ``W`` when it writes it, ``R`` when it reads it."""
    if resource in eff.accumulates:
        return "A"
    return "W" if resource in line.writes else "R"


def reference(program: Program) -> tuple[tuple[int, int], ...]:
    """Every conflicting pair of ``program``, by the all-pairs construction."""
    semantics = []
    for line in program.lines:
        _line, tokens, eff, info = _parse._instruction_cached(line.text)
        semantics.append((eff, info, tokens))
    return all_pairs(list(program.lines), semantics)


def closure(n: int, deps) -> list[int]:
    """``reach[j]``: bit mask of the lines that line ``j`` must follow."""
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, j in deps:
        assert 0 <= i < j < n, (i, j)
        preds[j].append(i)
    reach = [0] * n
    for j in range(n):
        mask = 0
        for i in preds[j]:
            mask |= reach[i] | (1 << i)
        reach[j] = mask
    return reach


def agree(program: Program, count: bool) -> int:
    """Check that ``program.deps`` (sorted, distinct, forward pairs) has the
    closure and the DLG layers of every conflicting pair (and the same
    permutation count, when ``count`` and the count is tractable); return
    how many conflicting pairs there are."""
    n = len(program.lines)
    ref = reference(program)
    assert list(program.deps) == sorted(set(program.deps))
    want = closure(n, ref)
    assert all(want[j] >> i & 1 for i, j in program.deps), "a pair that is no dependency"
    assert closure(n, program.deps) == want, "the closures differ"
    everything = dataclasses.replace(program, deps=ref)
    assert dlg(program).layers == dlg(everything).layers
    if count:
        try:
            assert PermutationSpace(program).count() == PermutationSpace(everything).count()
        except IntractableError:
            pass
    return len(ref)
