"""Dependencies between the instructions of a basic block.

Line j must stay after line i (i < j) when swapping them could change the
block's final state: one writes a resource the other reads or writes.
Resources are base registers (a write to ``%eax`` conflicts with a read of
``%ah``), the arithmetic flags as one resource, the x87 stack as one resource,
MXCSR, the FS and GS bases, and memory. Two memory accesses conflict when one
of them stores, unless both addresses are provably disjoint: same base and
index registers, unchanged between the two lines, numeric displacements whose
extents (the operation's memory width, :func:`~.semantics.memory_bytes`) do
not overlap. On ``mxcsr`` and ``x87`` some instructions only *accumulate*
(:data:`~.semantics.ACCUMULATING`: SSE floating point ORs its exception flags
into MXCSR, an MMX instruction sets the x87 top and tags as every other MMX
instruction does): two accumulations do not conflict, an accumulation
conflicts with every read and write of the resource. Control flow, rip-relative
addressing (its address moves with the instruction), and instructions that
read the world outside the block (``rdtsc``, ``cpuid``) are barriers: nothing
moves across them.

``Program.deps`` is not every conflicting pair but a sparse set of pairs
whose transitive closure is exactly the order the conflicts generate (the
permutation space, the DLG layers and every count depend only on that
closure), built in one pass, in time and memory near-linear in the block:

* registers, ``flags``: per resource, the nearest conflicts only (a
  read follows the last write; a write follows the reads since the last
  write, or that write when there were none);
* ``mxcsr``, ``x87`` (:class:`_Modal`): the lines since the last write come
  in *runs* of reads or of accumulations; a line of the run's kind follows
  the run before (or the write), one of the other kind starts a run after
  the current one, and a write follows the current run (or the last write);
* barriers follow the lines since the previous barrier that nothing follows
  yet, and the lines after a barrier follow it when they follow nothing else;
* memory: an access whose address is described (:func:`_access`) belongs to
  the *group* of its address key (segment, base, index, scale); every other
  access is a group of its own. Inside a group, bytes are resources, each
  access touching ``disp .. disp + extent``, so per-byte nearest conflicts
  keep exactly the overlapping pairs. Across groups every store conflicts
  with every access; :class:`_Memory` keeps the stores in *runs* of one
  group and links an access only to what no later conflicting access
  already follows.

Two accesses of one group whose base or index register is written between
them are ordered by that register anyway (the first reads it, the write
follows; the second reads what was written), so groups need no versions.
"""

from __future__ import annotations

import bisect

from ...program import Line
from .semantics import ACCUMULATING, Effects, memory_bytes

_MEM = frozenset({"mem"})
_MODAL = frozenset(ACCUMULATING)


def _extent(info: dict, eff: Effects) -> int | None:
    """An upper bound in bytes on what one memory operand of this instruction
    touches (:func:`~.semantics.memory_bytes`: from the operation, not only
    the registers beside it), or None when its extent does not follow from
    the operand."""
    base = info["base"]
    if eff.unbounded_memory or base in ("bt", "bts", "btr", "btc", "movdir64b", "enqcmd", "enqcmds"):
        return None
    return memory_bytes(info["mnemonic"], base, info["operands"], eff.x87)


def _access(info: dict, eff: Effects) -> tuple[tuple, int, int] | None:
    """``(address key, first byte, end byte)`` of what the line touches in
    memory, or None when the address is not described well enough to prove
    anything (implicit memory, unbounded extents, symbolic or rip-relative
    displacements, or operands with different keys)."""
    key = None
    lo = hi = 0
    for o in info["operands"]:
        if o["kind"] != "mem":
            continue
        size = _extent(info, eff)
        if size is None or o.get("disp") is None or o.get("absolute") or o.get("rip"):
            return None
        k = (
            o.get("seg"),
            o["base"].referent if o["base"] is not None else None,
            o["index"].referent if o["index"] is not None else None,
            o["scale"] if o["index"] is not None else 1,
        )
        if key is None:
            key, lo, hi = k, o["disp"], o["disp"] + size
        elif k != key:
            return None  # two addresses, not comparable as one range
        else:
            lo, hi = min(lo, o["disp"]), max(hi, o["disp"] + size)
    return None if key is None else (key, lo, hi)


class _Memory:
    """Memory conflicts of one barrier-free stretch of a block, added to each
    access's predecessors as it comes.

    Cross-group conflicts are kept in *runs*: maximal stretches of stores of
    one group. Every store of a run follows every store of the run before
    (different groups conflict), so for a new access only the last two runs
    and the loads around them can be unordered with it:

    * ``front``: the stores of the current run that no later store of the run
      follows (their byte ranges are disjoint); ``start``/``last``: its first
      and last store;
    * ``prev_front``, ``prev_loads``, ``prev_end``: the same for the run
      before, with the loads of its group that none of its stores follows;
    * ``foreign``: loads since the previous run ended whose group is not the
      current run's, each with its *anchor*: the last store before it when
      it came after a store of another group, and so follows that store's
      whole front and everything before it (-1 otherwise);
    * ``own``: loads of the current run's group since the previous run ended
      that no store of that group follows yet.
    """

    __slots__ = (
        "bytes",
        "group",
        "front",
        "start",
        "last",
        "prev_front",
        "prev_loads",
        "prev_end",
        "foreign",
        "foreign_lines",
        "own",
        "_fresh",
    )

    def __init__(self) -> None:
        #: per group, per byte: [last store or -1, loads since it]
        self.bytes: dict[object, dict[int, list]] = {}
        self.group: object = None
        self.front: set[int] = set()
        self.start = self.last = -1
        self.prev_front: list[int] = []
        self.prev_loads: list[int] = []
        self.prev_end = -1
        self.foreign: list[tuple[int, object, int]] = []
        self.foreign_lines: list[int] = []
        self.own: dict[int, None] = {}
        self._fresh = 0

    def access(self, j: int, where: tuple | None, store: bool, preds: set[int]) -> None:
        """Line ``j`` touches memory at ``where`` (from :func:`_access`; None:
        anywhere); add the earlier accesses it must follow to ``preds``."""
        if where is None:
            self._fresh += 1
            group: object = ("anywhere", self._fresh)  # conflicts with every store and, storing, with all
            cover, overlapped = -1, ()
        else:
            group = where[0]
            cover, overlapped = self._bytes(j, group, where[1], where[2], store, preds)
        if not store:
            self._load(j, group, cover, preds)
        elif self.group is None or group != self.group:
            self._new_run(j, group, preds)
        else:
            self._continue_run(j, cover, overlapped, preds)

    def _bytes(self, j: int, group, lo: int, hi: int, store: bool, preds: set[int]) -> tuple[int, set[int]]:
        """Per-byte nearest conflicts inside the group. Returns the latest
        store of the group this access overlaps (-1 if none) and the stores
        it overlaps that are the last on some byte."""
        table = self.bytes.setdefault(group, {})
        cover = -1
        overlapped: set[int] = set()
        for b in range(lo, hi):
            cell = table.get(b)
            if cell is None:
                table[b] = [j, []] if store else [-1, [j]]
                continue
            last, loads = cell
            if last >= 0:
                overlapped.add(last)
                if last > cover:
                    cover = last
            if store:
                if loads:
                    preds.update(loads)
                    for line in loads:  # they now come before a store of their own group
                        self.own.pop(line, None)
                elif last >= 0:
                    preds.add(last)
                cell[0], cell[1] = j, []
            else:
                if last >= 0:
                    preds.add(last)
                loads.append(j)
        return cover, overlapped

    def _load(self, j: int, group, cover: int, preds: set[int]) -> None:
        if self.group is None:  # no store yet
            self.foreign.append((j, group, -1))
            self.foreign_lines.append(j)
        elif group != self.group:
            preds.update(self.front)  # every earlier store of another group is below the front
            self.foreign.append((j, group, self.last))
            self.foreign_lines.append(j)
        else:
            if cover < self.start:  # a store of this run it overlaps already follows the run before
                preds.update(self.prev_front)
            self.own[j] = None

    def _new_run(self, j: int, group, preds: set[int]) -> None:
        last = self.last
        k = bisect.bisect_right(self.foreign_lines, last)
        after = self.foreign[k:]  # loads since the last store: unordered with it and with each other
        covered = False
        for line, g, anchor in after:
            if g != group:
                preds.add(line)
                covered |= anchor == last  # it follows the whole front
        if not covered:
            preds.update(self.front)
        preds.update(self.own)
        own_after = [(line, self.group, -1) for line in self.own if line > last]  # they follow no front
        self.prev_front = list(self.front)
        self.prev_end = last
        self.prev_loads = [line for line in self.own if line < last]
        foreign = sorted([a for a in after if a[1] != group] + own_after)
        self.foreign = foreign
        self.foreign_lines = [a[0] for a in foreign]
        self.own = {line: None for line, g, _anchor in after if g == group and line not in preds}
        self.group = group
        self.front = {j}
        self.start = self.last = j

    def _continue_run(self, j: int, cover: int, overlapped, preds: set[int]) -> None:
        if cover < self.start:
            cover = -1
        if self.foreign and self.foreign[-1][2] >= self.start:
            cover = max(cover, self.foreign[-1][2])
        if cover < 0:
            preds.update(self.prev_loads)
            front_covered = False
            for line, _g, anchor in self.foreign:
                preds.add(line)
                front_covered |= anchor == self.prev_end >= 0  # it follows the previous run's front
            if not front_covered:
                preds.update(self.prev_front)
        else:
            k = bisect.bisect_right(self.foreign_lines, cover)
            preds.update(self.foreign_lines[k:])
        self.front.difference_update(overlapped)
        self.front.add(j)
        self.last = j


def role(resource: str, reads: frozenset[str], writes: frozenset[str], eff: Effects) -> str:
    """How a line touches a resource of :data:`_MODAL`: ``W`` (writes: conflicts
    with everything), ``A`` (accumulates: conflicts with reads and writes) or
    ``R`` (reads: conflicts with accumulations and writes)."""
    if resource in eff.accumulates:
        return "A"
    return "W" if resource in writes else "R"


class _Modal:
    """Nearest conflicts on one resource of :data:`_MODAL` since the last barrier."""

    __slots__ = ("writer", "kind", "run", "previous")

    def __init__(self) -> None:
        self.writer = -1
        self.kind = ""  # of the current run: "R", "A", or "" right after a write
        self.run: list[int] = []
        self.previous: list[int] = []  # the run before the current one

    def touch(self, j: int, kind: str, preds: set[int]) -> None:
        """Line ``j`` touches the resource as ``kind`` (:func:`role`); add the
        lines it must follow to ``preds``."""
        if kind == "W":
            before = self.run
        else:
            if kind != self.kind:
                self.previous, self.run, self.kind = self.run, [], kind
            before = self.previous
        if before:
            preds.update(before)
        elif self.writer >= 0:
            preds.add(self.writer)
        if kind == "W":
            self.writer, self.kind, self.run, self.previous = j, "", [], []
        else:
            self.run.append(j)


def block_dependencies(lines: list[Line], semantics: list[tuple]) -> tuple[tuple[tuple[int, int], ...], frozenset[str]]:
    """Dependency pairs of a block (a generating set of its dependency
    order, see the module docstring) and the referents its semantics pin.

    ``semantics[i]`` is ``(effects, info, tokens)`` for line i as built by the
    parser. Pinned referents are the implicit and fixed registers; when an
    instruction exposes every register (``fxsave``, ``syscall``) every
    renamable referent is pinned; ``vec:*`` marks a block that uses the vector
    file as a whole (``vzeroupper``), which keeps renamings inside ``%xmm0-15``.
    """
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
    if any(eff.x87 for eff, _i, _t in semantics):
        # an MMX register is an x87 register (mm7 is R7), where x87 pushes and pops land: not renamable
        pinned |= {t.referent for _e, _i, toks in semantics for t in toks if (t.referent or "").startswith("mmx:")}
    return tuple(sorted(_generating_pairs(lines, semantics))), frozenset(pinned)


def _generating_pairs(lines: list[Line], semantics: list[tuple]) -> list[tuple[int, int]]:
    deps: list[tuple[int, int]] = []
    barrier = -1  # the last barrier
    sinks: set[int] = set()  # lines since it that no line follows yet
    writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    memory = _Memory()
    modal: dict[str, _Modal] = {}
    for j, (line, (eff, info, _toks)) in enumerate(zip(lines, semantics)):
        if eff.barrier:
            preds = sinks if sinks else ({barrier} if barrier >= 0 else set())
            deps.extend((i, j) for i in preds)
            barrier, sinks = j, set()
            writer, readers, memory, modal = {}, {}, _Memory(), {}  # nothing crosses it: start afresh
            continue
        preds: set[int] = set()
        reads, writes = line.reads, line.writes
        touched = (reads | writes) & _MODAL
        if touched:
            for r in touched:
                modal.setdefault(r, _Modal()).touch(j, role(r, reads, writes, eff), preds)
            reads, writes = reads - _MODAL, writes - _MODAL
        for r in reads:
            if r in writer:
                preds.add(writer[r])
        for r in writes:
            since = readers.get(r)
            if since:
                preds.update(since)
            elif r in writer:
                preds.add(writer[r])
        if "mem" in reads or "mem" in writes:
            memory.access(j, _access(info, eff), "mem" in writes, preds)
            reads, writes = reads - _MEM, writes - _MEM
        for r in writes:
            writer[r] = j
            readers[r] = []
        for r in reads:
            if r not in writes:
                readers.setdefault(r, []).append(j)
        preds.discard(j)
        if not preds and barrier >= 0:
            preds.add(barrier)
        sinks.difference_update(preds)
        sinks.add(j)
        deps.extend((i, j) for i in preds)
    return deps
