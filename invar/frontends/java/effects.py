"""What a Java statement does: its :class:`~.effects.Effect`.

A pass over the neutral description (:mod:`.syntax`) of one statement,
everything nested in it included, that dispatches on each node's class
name; docs/formats.md lists the rules and docs/semantics.md the contract.
Locals are known from :class:`~.scopes.Scopes`; every other name is a
field, reached through ``heap``.
"""

from __future__ import annotations

from .syntax import (
    IDENT,
    Assign,
    Binary,
    Call,
    Cond,
    Decl,
    Do,
    Expr,
    For,
    ForEach,
    IncDec,
    Index,
    Jump,
    Lambda,
    Literal,
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
    Tokens,
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
#: the package of every class above (and :data:`PURE_QUALIFIERS`), which
#: its simple name means only where nothing in the file takes that name
#: (:func:`jdk_classes`); the primitive names are no classes and always mean
#: themselves
JDK_PACKAGES = {
    **dict.fromkeys(
        "Math StrictMath Integer Long Double Float Character Boolean String StringBuilder Object".split(), "java.lang"
    ),
    **dict.fromkeys(
        "ArrayList LinkedList HashMap TreeMap LinkedHashMap HashSet TreeSet LinkedHashSet ArrayDeque".split(),
        "java.util",
    ),
}
_LOOPS = (For, ForEach, While, Do)
#: bodies that do not run where they are written: code there still reads and
#: writes (conservatively), but its jumps and barriers are its own
_BODIES = (Lambda, New, Method, LocalClass)


class StatementEffects:
    """Effects of the statements of one unit (memoized per statement)."""

    def __init__(self, scopes: Scopes, ix: Tokens) -> None:
        self.scopes = scopes
        self.ix = ix
        #: the simple names that mean their JDK class in this file
        self.jdk = jdk_classes(ix)
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

    def visit_Cond(self, e: Effect, node: Cond, path) -> None:
        # ``c ? 1 : null`` has a boxed type: where it is unboxed (assigned to
        # a primitive, an operand of arithmetic) a null raises, and invar does
        # not know the context's type. A boxed operand raises as it is read
        # (a boxed local, a field, a call, a cast, an element all may raise)
        if self.is_null(node.then) or self.is_null(node.other):
            e.may_raise = True

    def is_null(self, node: Expr) -> bool:
        """Whether ``node`` is the literal ``null`` (in parentheses or not)."""
        node = unparenthesized(node)
        return isinstance(node, Literal) and node.tok >= 0 and self.ix.values[node.tok] == "null"

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
        target = unparenthesized(target)
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
            or (node.type in JDK_PACKAGES and node.type not in self.jdk)
        ):
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = True

    def pure_call(self, node: Call) -> bool:
        """Whether a method invocation only computes a value (see
        PURE_QUALIFIERS): a static method of one of those JDK classes,
        named by a simple name that means the class here (no local of that
        name, which takes precedence over the class, and nothing else in the
        file of that name: :func:`jdk_classes`). ``String.join(sep, xs)``
        iterates ``xs`` (``iterator()``, ``hasNext()``, ``next()``) unless it
        is an array or a string: a call, as iteration is."""
        if node.obj is not None or node.qual not in PURE_QUALIFIERS or node.name in IMPURE_STATICS:
            return False
        if node.qual not in self.jdk or self.local(node.tok) is not None:
            return False
        if node.qual == "String" and node.name == "join" and len(node.args) == 2:
            return self.not_iterable(node.args[1])
        return True

    def not_iterable(self, node: Expr) -> bool:
        """Whether ``String.join``'s second argument is surely an array or a
        string (its varargs), never an ``Iterable``: a literal, a
        concatenation, an array built there or a local declared an array."""
        node = unparenthesized(node)
        if isinstance(node, (Literal, NewArray)) or (isinstance(node, Binary) and node.op == "+"):
            return True
        return isinstance(node, Name) and self.local(node.tok) in self.scopes.arrays

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


def unparenthesized(node: Expr) -> Expr:
    """``node`` without the parentheses around it."""
    while isinstance(node, Paren):
        node = node.expr
    return node


def jdk_classes(ix: Tokens) -> frozenset[str]:
    """The names of :data:`JDK_PACKAGES` that mean their JDK class throughout
    the file of tokens ``ix``: the file declares nothing of that name (a
    class, interface, enum, record or type parameter, nested or local or
    top-level; a field, enum constant, record component, parameter or
    local anywhere), no single import names another class of it, and a
    ``java.util`` class is imported (by name or with ``java.util.*``).
    Read off the tokens, so both parsers agree; it errs towards declaring
    (a name that only looks declared makes the class unknown, its calls
    calls). Types declared in the package's other files are not seen
    (docs/semantics.md)."""
    got = getattr(ix, "_jdk_classes", None)
    if got is None:
        declared = _declared_names(ix)
        imports = _imports(ix)
        out = set()
        for name, package in JDK_PACKAGES.items():
            if name in declared:
                continue
            if any(
                not star and path.rsplit(".", 1)[-1] == name and path != f"{package}.{name}" for path, star in imports
            ):
                continue
            if package != "java.lang" and not any(
                path == (package if star else f"{package}.{name}") for path, star in imports
            ):
                continue
            out.add(name)
        got = frozenset(out)
        ix._jdk_classes = got  # type: ignore[attr-defined]
    return got


#: modifiers that may stand before a generic method's type parameters
_MODIFIERS = frozenset("public protected private static final abstract synchronized native strictfp default".split())


def _declared_names(ix: Tokens) -> set[str]:
    """Every name the file's tokens may declare something with (see
    :func:`jdk_classes`): over-approximated."""
    v, ident, n = ix.values, ix.identifier, len(ix)
    out: set[str] = set()
    type_names: set[int] = set()
    for k in range(n - 1):
        if not ident[k]:
            if v[k] in ("class", "interface", "enum") and (k == 0 or v[k - 1] != ".") and ident[k + 1]:
                out.add(v[k + 1])
                type_names.add(k + 1)
                if v[k] == "enum":
                    _enum_constants(ix, k + 2, out)
            elif (
                v[k] == "<" and k > 0 and (v[k - 1] in ("{", "}", ";") or v[k - 1] in _MODIFIERS or k - 1 in type_names)
            ):
                _type_parameters(ix, k, out)
            continue
        if v[k] == "record" and k + 2 < n and ident[k + 1] and v[k + 2] in ("(", "<"):
            out.add(v[k + 1])
            type_names.add(k + 1)
            continue
        if k == 0:
            continue
        before, after = v[k - 1], v[k + 1]
        if after in ("=", ";", ",", ")", "[", ":", "->") and (
            ident[k - 1] or ix.basic[k - 1] or before in (">", ">>", ">>>", "]", "...")
        ):
            out.add(v[k])  # a variable declared after its type
        elif before in (",", "(") and after in ("=", ";", "->"):
            out.add(v[k])  # a further declarator, a lambda's parameter
    return out


def _type_parameters(ix: Tokens, k: int, out: set[str]) -> None:
    """The names a type parameter section opening at token ``k`` declares."""
    v, depth = ix.values, 0
    for j in range(k, len(ix)):
        t = v[j]
        if t == "<":
            depth += 1
        elif t in (">", ">>", ">>>"):
            depth -= len(t)
            if depth <= 0:
                return
        elif t in ("(", ")", "{", "}", ";", "="):
            return
        elif depth == 1 and ix.identifier[j] and v[j - 1] in ("<", ","):
            out.add(t)


def _enum_constants(ix: Tokens, k: int, out: set[str]) -> None:
    """The constants of the enum whose header continues at token ``k``."""
    v = ix.values
    while k < len(ix) and v[k] != "{":
        k += 1
    if k >= len(ix):
        return
    for j in range(k + 1, ix.match.get(k, len(ix))):
        if ix.enclosing[j] != k:
            continue
        if v[j] == ";":
            return
        if ix.identifier[j]:
            out.add(v[j])


def _imports(ix: Tokens) -> list[tuple[str, bool]]:
    """The file's imports: ``(dotted path, on demand)`` each (``static`` ones too)."""
    v, out = ix.values, []
    for k in range(len(ix)):
        if v[k] != "import" or ix.kinds[k] == IDENT or ix.enclosing[k] != -1:
            continue
        parts, star = [], False
        for j in range(k + 1, len(ix)):
            if v[j] == ";":
                break
            if v[j] == "*":
                star = True
            elif ix.identifier[j]:
                parts.append(v[j])
        out.append((".".join(parts), star))
    return out


def _in_body(path) -> bool:
    """Whether a walk's ancestors put a node inside a lambda or a class body."""
    return any(isinstance(a, _BODIES) for a in path)


__all__ = ["StatementEffects", "PURE_QUALIFIERS", "IMPURE_STATICS", "ALLOCATORS", "JDK_PACKAGES", "jdk_classes"]
