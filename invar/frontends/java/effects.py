"""What a Java statement does: its :class:`~.effects.Effect`.

A pass over the neutral description (:mod:`.syntax`) of one statement,
everything nested in it included, that dispatches on each node's class
name; docs/formats.md lists the rules and docs/semantics.md the contract.
Locals are known from :class:`~.scopes.Scopes`; every other name is a
field, reached through ``heap``.
"""

from __future__ import annotations

from .syntax import (
    Assign,
    Binary,
    Call,
    Decl,
    Do,
    Expr,
    For,
    ForEach,
    IncDec,
    Index,
    Jump,
    Lambda,
    LocalClass,
    Method,
    MethodRef,
    Name,
    New,
    NewArray,
    Paren,
    Path,
    Select,
    Stmt,
    SuperRef,
    Switch,
    SwitchExpr,
    This,
    Try,
    While,
    walk,
)
from ..effects import HEAP, Effect
from .scopes import Scopes

#: static methods of these classes only compute a value (they may read their
#: arguments, arrays included), except those in :data:`IMPURE_STATICS`
PURE_QUALIFIERS = frozenset(
    {"Math", "Integer", "Long", "Double", "Float", "Character", "Boolean", "String", "StrictMath"}
)
#: static methods of the classes above that act on state: ``random`` advances a
#: shared generator, ``toChars``/``getChars`` fill an array argument
IMPURE_STATICS = frozenset({"random", "toChars", "getChars"})
#: constructing these has no effect beyond the new object; a copy constructor
#: (``new ArrayList<>(xs)``, ``new String(cs)``) still reads its arguments
ALLOCATORS = frozenset(
    """ArrayList LinkedList HashMap TreeMap LinkedHashMap HashSet TreeSet LinkedHashSet ArrayDeque
    StringBuilder String Integer Long Double Object int long double char boolean byte short float""".split()
)
_LOOPS = (For, ForEach, While, Do)
#: bodies that do not run where they are written: code there still reads and
#: writes (conservatively), but its jumps and barriers are its own
_BODIES = (Lambda, New, Method, LocalClass)


class StatementEffects:
    """Effects of the statements of one unit (memoized per statement)."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.memo: dict[int, Effect] = {}

    def effect(self, stmt: Stmt) -> Effect:
        got = self.memo.get(id(stmt))
        if got is None:
            got = self.memo[id(stmt)] = self._effect(stmt)
        return got

    def local(self, tok: int) -> str | None:
        return self.scopes.ref_of.get(tok)

    def _effect(self, stmt: Stmt) -> Effect:
        e = Effect()
        for node, path in walk(stmt):
            visit = getattr(self, "visit_" + type(node).__name__, None)
            if visit is not None:
                visit(e, node, path)
        return e

    # ------------------------------------------------------------- values
    def visit_Name(self, e: Effect, node: Name, path) -> None:
        ref = self.local(node.tok)
        if ref is not None:
            e.reads.add(ref)
        else:
            e.reads.add(HEAP)
            e.reads.add(f"field:{node.name}")
            e.may_raise = True  # a field may unbox

    def visit_Path(self, e: Effect, node: Path, path) -> None:
        ref = self.local(node.tok)
        if ref is not None:
            e.reads.add(ref)
        e.reads.add(HEAP)
        e.may_raise = True

    def visit_Select(self, e: Effect, node: Select, path) -> None:
        e.reads.update((HEAP, f"field:{node.name}"))
        e.may_raise = True

    def visit_MethodRef(self, e: Effect, node: MethodRef, path) -> None:
        e.reads.update((HEAP, f"field:{node.name}"))
        e.may_raise = True

    def visit_Index(self, e: Effect, node, path) -> None:
        e.reads.add(HEAP)
        e.may_raise = True

    visit_Cast = visit_Index

    def visit_Binary(self, e: Effect, node: Binary, path) -> None:
        if node.op in ("/", "%"):
            e.may_raise = True

    def visit_NewArray(self, e: Effect, node, path) -> None:
        e.may_raise = True  # a negative size

    # ------------------------------------------------------------- writes
    def visit_Assign(self, e: Effect, node: Assign, path) -> None:
        self.store(e, node.target)
        if node.op in ("/=", "%="):
            e.may_raise = True

    def visit_IncDec(self, e: Effect, node: IncDec, path) -> None:
        self.store(e, node.target)

    def visit_Decl(self, e: Effect, node: Decl, path) -> None:
        ref = self.local(node.tok)
        if ref is None:
            return
        if node.bare:
            e.reads.add(ref)  # ``x -> …``: its name is read where it stands
        else:
            e.writes.add(ref)

    def store(self, e: Effect, target: Expr) -> None:
        """A write of ``target``: a local, or else a field or array element
        (through ``heap``, an output)."""
        while isinstance(target, Paren):
            target = target.expr
        ref = self.local(target.tok) if isinstance(target, Name) else None
        if ref is not None:
            e.writes.add(ref)
        else:
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = e.may_raise = True

    # -------------------------------------------------------------- calls
    def visit_Call(self, e: Effect, node: Call, path) -> None:
        e.reads.add(HEAP)
        e.may_raise = True
        if not self.pure_call(node):
            e.writes.add(HEAP)
            e.side = True

    def visit_SuperRef(self, e: Effect, node: SuperRef, path) -> None:
        e.reads.add(HEAP)
        e.may_raise = True
        if node.call:
            e.writes.add(HEAP)
            e.side = True

    def visit_CtorCall(self, e: Effect, node, path) -> None:
        # this(…) / super(…) must stay the constructor's first statement
        e.reads.add(HEAP)
        e.writes.add(HEAP)
        e.side = e.may_raise = e.barrier = True

    def visit_New(self, e: Effect, node: New, path) -> None:
        """``new T(…)``: an allocation reads its arguments (a copy constructor
        reads its source); unless ``T`` is a known allocator, it is a call."""
        e.may_raise = True
        if node.args:
            e.reads.add(HEAP)
        if (
            node.outer is not None
            or node.outer_qual
            or (node.body is not None and node.body.members)
            or node.type not in ALLOCATORS
        ):
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = True

    def pure_call(self, node: Call) -> bool:
        """Whether a method invocation only computes a value (see PURE_QUALIFIERS)."""
        if node.obj is not None or node.qual not in PURE_QUALIFIERS or node.name in IMPURE_STATICS:
            return False
        return self.local(node.tok) is None  # a local of that name takes precedence over the class

    # --------------------------------------------------------- statements
    def visit_ForEach(self, e: Effect, node: ForEach, path) -> None:
        # iterating reads the elements; over anything but an array it calls
        # iterator(), hasNext() and next()
        e.reads.add(HEAP)
        e.may_raise = True
        it = node.iterable
        if not (isinstance(it, Name) and self.local(it.tok) in self.scopes.arrays):
            e.writes.add(HEAP)
            e.side = True
        self._loop(e, node, path)

    def visit_Try(self, e: Effect, node: Try, path) -> None:
        if node.resources:
            # the resources are closed on the way out: close() is a call
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = e.may_raise = True

    def visit_Switch(self, e: Effect, node, path) -> None:
        e.may_raise = True  # a null string, enum or boxed value

    visit_SwitchExpr = visit_Switch

    def visit_Return(self, e: Effect, node, path) -> None:
        if not _in_body(path):
            e.barrier = True

    visit_Throw = visit_Assert = visit_Return

    def visit_LocalClass(self, e: Effect, node, path) -> None:
        if not _in_body(path):
            e.barrier = True

    visit_Sync = visit_LocalClass

    def visit_Jump(self, e: Effect, node: Jump, path) -> None:
        if _in_body(path):
            return
        loops = _LOOPS if node.what == "continue" else _LOOPS + (Switch,)
        if node.label is not None or not any(isinstance(a, loops) for a in path):
            e.barrier = e.barrier or node.label is not None
            e.jump = e.jump or node.label is None

    def visit_For(self, e: Effect, node, path) -> None:
        self._loop(e, node, path)

    visit_While = visit_Do = visit_For

    def _loop(self, e: Effect, node, path) -> None:
        if not _in_body(path) and self.maybe_endless(node):
            # a loop that the compiler may judge endless: what follows it is
            # unreachable, so nothing may move after it
            e.barrier = True

    def maybe_endless(self, loop) -> bool:
        """Whether a loop's condition may be a constant expression (``true``,
        ``for (;;)``, a constant field): none of its names is a local that is
        not declared ``final``, and it calls, allocates and indexes nothing."""
        if isinstance(loop, ForEach):
            return False
        cond = loop.cond
        if cond is None:
            return True
        for n, _ in walk(cond):
            if isinstance(n, (Call, New, NewArray, Index, Assign, Lambda, This, SwitchExpr)) or (
                isinstance(n, SuperRef) and n.call
            ):
                return False
            if isinstance(n, (Name, Path)):
                ref = self.local(n.tok)
                if ref is not None and ref not in self.scopes.finals:
                    return False
        return True


def _in_body(path) -> bool:
    """Whether a walk's ancestors put a node inside a lambda or a class body."""
    return any(isinstance(a, _BODIES) for a in path)


__all__ = ["StatementEffects", "PURE_QUALIFIERS", "IMPURE_STATICS", "ALLOCATORS"]
