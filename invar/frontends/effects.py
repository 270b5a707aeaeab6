"""What a statement does, and which statements of a block must keep their order.

The Python and Java frontends both reduce a statement (with everything nested
in it) to an :class:`Effect` and then apply one rule, :func:`block_deps`, to
the statements of each block. Keeping the rule here, apart from either syntax,
is what makes the two languages agree on what a dependency is.

Resources are strings: a scoped variable (``local:f:x``), a global
(``global:x``), and the pseudo-resource ``heap`` that stands for every object
reachable through attributes, subscripts, closures and callees. Reading or
writing the heap is tracked as a resource like any other, so two statements
that only read the heap may swap while a store through a subscript orders
against every heap reader. A read of a resource ending in ``*`` is a read of
every resource that starts with what comes before it (``global:*``: every
global, what ``eval`` or ``globals()`` may read), one entry where the set it
stands for would repeat the module's globals on every such line; only reads
are written so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: the pseudo-resource for everything reachable through references
HEAP = "heap"
#: a read of every global (see the module docstring)
ALL_GLOBALS = "global:*"


@dataclass(slots=True)
class Effect:
    """The summary of one statement (mutable while it is being built)."""

    #: resources the statement may read
    reads: set[str] = field(default_factory=set)
    #: resources the statement may write
    writes: set[str] = field(default_factory=set)
    #: it may act on the world (a call, a store through a reference, I/O, await,
    #: yield, import): all such statements keep their relative order
    side: bool = False
    #: it may leave the function (return, raise, assert) or must stay where it
    #: is for the compiler (``global``): nothing crosses it
    barrier: bool = False
    #: it may leave the enclosing loop (break or continue not inside a loop of
    #: its own): a barrier for the loop body's statements
    jump: bool = False
    #: it may raise; matters only where a handler could observe the partial state
    may_raise: bool = False

    def absorb(self, other: "Effect") -> None:
        """Add ``other`` (a nested statement) to this one."""
        self.reads |= other.reads
        self.writes |= other.writes
        self.side |= other.side
        self.barrier |= other.barrier
        self.jump |= other.jump
        self.may_raise |= other.may_raise


@dataclass(slots=True)
class LineItem:
    """A line under construction by a source frontend: its last physical line
    and its place (block, depth), with the statement's effect."""

    code_end: int
    block: int
    depth: int
    source_line: int
    effect: Effect | None


def _wildcards(reads: set[str] | frozenset[str]) -> list[str]:
    """The prefixes ``reads`` reads whole (``global:*`` -> ``global:``)."""
    return [r[:-1] for r in reads if r.endswith("*")]


def _meets(reads: set[str] | frozenset[str], writes: set[str] | frozenset[str]) -> bool:
    """Whether a statement reading ``reads`` reads something ``writes`` writes."""
    if not writes:
        return False
    if not writes.isdisjoint(reads):
        return True
    return any(w.startswith(p) for p in _wildcards(reads) for w in writes)


def conflict(a: Effect, b: Effect, *, protected: bool = False) -> bool:
    """Whether statements ``a`` (earlier) and ``b`` (later) must keep their order.

    ``protected``: the block runs under an exception handler or a context
    manager, where the state at the point of a raise is observable, so a
    statement that may raise orders against everything."""
    if a.barrier or b.barrier or a.jump or b.jump:
        return True
    if a.side and b.side:
        return True
    if protected and (a.may_raise or b.may_raise):
        return True
    if a.writes and not a.writes.isdisjoint(b.writes):
        return True
    return _meets(b.reads, a.writes) or _meets(a.reads, b.writes)


class _Whole:
    """The readers of one prefix as a whole (``global:*``) in a block, and
    the last writer of each resource under it: what :func:`block_deps` needs
    to order them without spelling the prefix out on every reading line.

    Side-effecting lines keep their order among themselves, so a writer
    needs an edge from the last side-effecting whole reader only (the
    earlier ones precede it), and such a reader from the writes since the
    previous one; a whole reader without side effects (``f.f_globals``) is
    ordered against each last writer, and each later writer against it."""

    __slots__ = ("prefix", "writers", "recent", "last_side", "quiet", "quiet_seen")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.writers: dict[str, int] = {}  # resource under the prefix -> its last writer
        self.recent: set[str] = set()  # written since the last side-effecting whole reader
        self.last_side: int | None = None
        self.quiet: list[int] = []  # whole readers without side effects, in order
        self.quiet_seen: dict[str, int] = {}  # resource -> len(quiet) at its last write

    def read(self, j: int, side: bool, out: list[tuple[int, int]]) -> None:
        """Line ``j`` reads the prefix whole: it follows each resource's last writer."""
        names = self.recent if side and self.last_side is not None else self.writers
        out.extend((self.writers[r], j) for r in names if self.writers[r] != j)

    def write(self, j: int, r: str, out: list[tuple[int, int]]) -> None:
        """Line ``j`` writes ``r`` under the prefix: it follows the whole readers before it."""
        if self.last_side is not None and self.last_side != j:
            out.append((self.last_side, j))
        out.extend((i, j) for i in self.quiet[self.quiet_seen.get(r, 0) :] if i != j)
        self.writers[r] = j
        self.recent.add(r)
        self.quiet_seen[r] = len(self.quiet)

    def reader(self, j: int, side: bool) -> None:
        """Line ``j``, a whole reader, is done."""
        if side:
            self.last_side, self.recent = j, set()
        else:
            self.quiet.append(j)


def block_deps(members: list[tuple[int, Effect]], *, protected: bool = False) -> list[tuple[int, int]]:
    """Dependency pairs ``(i, j)`` between the lines of one block: a sparse set
    whose transitive closure is exactly "every pair :func:`conflict` orders",
    built in time linear in the block's size and resources.

    ``members`` are ``(line index, effect)`` in program order. The pairs are
    the nearest conflicts: per resource, a write follows the last write and
    the reads since it, a read follows the last write; each side effect
    follows the previous one; a line that conflicts with everything (a
    barrier, a jump, or, when ``protected``, a line that may raise) follows
    every line since the previous such line, and every later line follows
    it; a read of a prefix whole, as :class:`_Whole` says. Any conflicting
    pair is joined by a path of these pairs."""
    out: list[tuple[int, int]] = []
    prefixes = sorted({p for _, e in members for p in _wildcards(e.reads)})
    since_barrier: list[int] = []  # lines since the last all-conflicting line
    barrier: int | None = None
    last_side: int | None = None
    writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    wholes = [_Whole(p) for p in prefixes]
    for j, e in members:
        total = e.barrier or e.jump or (protected and e.may_raise)
        if total:
            out.extend((i, j) for i in since_barrier)
            if barrier is not None and not since_barrier:
                out.append((barrier, j))
            # everything before now precedes j, everything after follows it
            barrier, since_barrier, last_side = j, [], None
            writer, readers, wholes = {}, {}, [_Whole(p) for p in prefixes]
            continue
        if barrier is not None:
            out.append((barrier, j))
        if e.side:
            if last_side is not None:
                out.append((last_side, j))
            last_side = j
        read_whole = [w for w in wholes if w.prefix + "*" in e.reads] if wholes else []
        for w in read_whole:
            w.read(j, e.side, out)
        for r in e.reads:
            w = writer.get(r)
            if w is not None:
                out.append((w, j))
        for r in e.writes:
            w = writer.get(r)
            if w is not None and r not in e.reads:
                out.append((w, j))
            out.extend((i, j) for i in readers.get(r, ()) if i != j)
            writer[r] = j
            readers[r] = []
            for whole in wholes:
                if r.startswith(whole.prefix):
                    whole.write(j, r, out)
        for r in e.reads:
            if r not in e.writes:
                readers.setdefault(r, []).append(j)
        for w in read_whole:
            w.reader(j, e.side)
        since_barrier.append(j)
    return out


__all__ = ["ALL_GLOBALS", "HEAP", "Effect", "conflict", "block_deps"]
