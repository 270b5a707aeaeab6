"""The neutral description of Java source that both Java parsers produce.

``javalang`` (Java 8) and ``tree-sitter-java`` (Java 17 and later) each turn
a file into the same two things, and one builder (:mod:`.parse`) makes
programs out of them, so the two paths cannot drift apart:

- :class:`Tokens`: the file's tokens (comments dropped, a literal, text
  blocks included, one token), each with its text, its lexical class and its
  position, plus the bracket structure every layout and scope rule reads;
- a :class:`Method` and the statement, expression and declaration nodes
  below: what the analyses need to know about a method, as slotted
  dataclasses (mutable only while a parser builds them).

Nodes carry an anchor token ``tok`` (an index into :class:`Tokens`), fixed per
node type below, and their parts in source order; :func:`children` walks
them. Types are not nodes: a declaration records only what dependencies ask
of its type (:data:`TYPE_KINDS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Iterator, Union

from .. import nesting

#: lexical classes of a token
IDENT, BASIC, KEYWORD, LITERAL, OP = "ident", "basic", "keyword", "literal", "op"
#: Java's primitive type names (a separate class: a declaration may follow one)
BASIC_TYPES = frozenset("boolean byte char short int long float double".split())
#: reserved words (Java 8's, as javalang reads them): never an identifier token
KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while""".split()
)
#: what a declaration's type tells dependencies: ``primitive``, ``array``,
#: ``boxed`` (it unboxes, and so may throw), ``reference`` or ``unknown`` (inferred)
TYPE_KINDS = ("primitive", "array", "boxed", "reference", "unknown")
#: reference types whose values unbox (and so may throw NullPointerException)
BOXED = frozenset({"Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float", "Double"})
_OPEN = {"(": ")", "[": "]", "{": "}"}
#: operators that add a level to the expression they are part of
_LEVELS = frozenset("+ - * / % << >> >>> & | ^ ~ ! < > <= >= == != && || ? : . -> instanceof new".split())


def deepest(values: list[str], line_of: list[int], col_of: list[int]) -> tuple[int, int]:
    """(line, 1-based column) where tokens (texts, lines, 0-based columns)
    nest most deeply, statement by statement (see :mod:`..nesting`): where
    a parser that ran out of recursion was."""
    return nesting.deepest(
        nesting.Token(v, line, col + 1, ends=v in (";", "{", "}"), level=v in _LEVELS)
        for v, line, col in zip(values, line_of, col_of)
    )


def type_kind(*, dims: int, basic: bool, name: str | None) -> str:
    """The :data:`TYPE_KINDS` entry of a declared type: ``dims`` array
    dimensions (the declarator's and varargs included), a primitive
    (``basic``) or the last simple name of a reference type (``None`` when no
    type is written, ``var`` when it is inferred)."""
    if dims:
        return "array"
    if basic:
        return "primitive"
    if name is None or name == "var":  # ``var x = …``: the type is inferred
        return "unknown"
    return "boxed" if name in BOXED else "reference"


def _boxed_type_variables(ix: "Tokens") -> frozenset[str]:
    """The type variables of the file of tokens ``ix`` whose values may
    unbox: those with a bound (``T extends Integer``, ``T extends Long &
    Comparable<Long>``) that is a :data:`BOXED` type or such a type variable
    (``U extends T``). Read off the tokens, so both parsers agree: a type
    parameter is an identifier after ``<`` or ``,`` and before ``extends``
    (in type arguments only ``?`` stands there); a name declared twice counts
    when either declaration may unbox."""
    bounds: dict[str, set[str]] = {}
    v = ix.values
    for k in range(1, len(ix) - 1):
        if ix.identifier[k] and v[k + 1] == "extends" and v[k - 1] in ("<", ","):
            bounds.setdefault(v[k], set()).update(_bound_names(ix, k + 2))
    out = {t for t, names in bounds.items() if names & BOXED}
    grew = True
    while grew:
        new = {t for t, names in bounds.items() if t not in out and names & out}
        out |= new
        grew = bool(new)
    return frozenset(out)


def _bound_names(ix: "Tokens", k: int) -> set[str]:
    """The simple names of the types of a bound starting at token ``k``
    (``java.lang.Integer & Comparable<Integer>``: ``Integer``,
    ``Comparable``), up to the ``,`` or ``>`` that ends it."""
    v, depth, out, last = ix.values, 0, set(), None
    for j in range(k, len(ix)):
        t = v[j]
        if t == "<":
            depth += 1
        elif t in (">", ">>", ">>>"):
            if depth == 0:
                break
            depth -= len(t)
        elif depth == 0 and t in ("&", ",", "{", "(", ";"):
            if last is not None:
                out.add(last)
            last = None
            if t != "&":
                return out
        elif depth == 0 and ix.identifier[j]:
            last = t
        if depth < 0:
            break
    if last is not None:
        out.add(last)
    return out


class Tokens:
    """A file's tokens with the lookups every unit needs.

    Positions: ``line_of`` 1-based, ``col_of`` 0-based in characters (not
    bytes), of each token's first character."""

    def __init__(
        self, lines: list[str], values: list[str], kinds: list[str], line_of: list[int], col_of: list[int]
    ) -> None:
        #: the file's physical lines (split at ``\\n``)
        self.lines = lines
        self.values = values
        self.kinds = kinds
        self.line_of = line_of
        self.col_of = col_of
        self.identifier = [k == IDENT for k in kinds]
        self.basic = [k == BASIC for k in kinds]
        #: matching bracket of every bracket token, and each token's innermost open bracket
        self.match: dict[int, int] = {}
        self.enclosing: list[int] = [-1] * len(values)
        stack: list[int] = []
        for k, v in enumerate(values):
            self.enclosing[k] = stack[-1] if stack else -1
            if v in _OPEN and kinds[k] == OP:
                stack.append(k)
            elif v in (")", "]", "}") and kinds[k] == OP and stack:
                o = stack.pop()
                self.match[o] = k
                self.match[k] = o

    def __len__(self) -> int:
        return len(self.values)

    @cached_property
    def boxed_type_variables(self) -> frozenset[str]:
        """The file's type variables whose values may unbox (:func:`_boxed_type_variables`)."""
        return _boxed_type_variables(self)

    def first_on_line(self, k: int) -> bool:
        return k == 0 or self.line_of[k - 1] < self.line_of[k]

    def last_on_line(self, k: int) -> bool:
        return k + 1 >= len(self.values) or self.line_of[k + 1] > self.line_of[k]


# ------------------------------------------------------------------ nodes
@dataclass(slots=True)
class Node:
    #: the anchor token (see each node type)
    tok: int


@dataclass(slots=True)
class Decl(Node):
    """A parameter or local: ``tok`` is its name token."""

    name: str
    #: ``param`` (method, lambda and catch-less parameters) or ``local``
    view: str
    #: one of :data:`TYPE_KINDS`
    kind: str
    #: declared ``final``
    final: bool = False
    #: its initializer (a local's ``= …``, a resource's value)
    init: "Expr | None" = None
    #: annotation element values written on it
    annotations: list["Expr"] = field(default_factory=list)
    #: an untyped lambda parameter written without parentheses (``x -> …``)
    bare: bool = False


@dataclass(slots=True)
class Stmt(Node):
    """A statement: ``tok`` is its first label, else its first token after
    modifiers and annotations (a declaration's type, ``class``, ``if`` …)."""

    #: tokens of the labels written before it (``a: b: for …``)
    labels: tuple[int, ...] = field(default=(), kw_only=True)


@dataclass(slots=True)
class Block(Stmt):
    body: list[Stmt]


@dataclass(slots=True)
class LocalVars(Stmt):
    """``final T a = 1, b;``"""

    decls: list[Decl]
    annotations: list["Expr"] = field(default_factory=list)


@dataclass(slots=True)
class LocalClass(Stmt):
    """A local class, interface, enum or record declaration."""

    name: str
    body: "ClassBody"
    annotations: list["Expr"] = field(default_factory=list)


@dataclass(slots=True)
class ExprStmt(Stmt):
    expr: "Expr"


@dataclass(slots=True)
class If(Stmt):
    cond: "Expr"
    then: Stmt
    other: Stmt | None


@dataclass(slots=True)
class While(Stmt):
    cond: "Expr"
    body: Stmt


@dataclass(slots=True)
class Do(Stmt):
    body: Stmt
    cond: "Expr"


@dataclass(slots=True)
class For(Stmt):
    """``for (init; cond; update) body``: ``init`` holds declarations or
    expressions."""

    init: list["Decl | Expr"]
    cond: "Expr | None"
    update: list["Expr"]
    body: Stmt


@dataclass(slots=True)
class ForEach(Stmt):
    var: Decl
    iterable: "Expr"
    body: Stmt


@dataclass(slots=True)
class Catch(Node):
    """``catch (E e) { … }``: ``tok`` is ``catch``."""

    param: Decl
    body: list[Stmt]


@dataclass(slots=True)
class Try(Stmt):
    """``try (resources) { … } catch … finally { … }``: a resource is a
    declaration or an expression naming one."""

    resources: list["Decl | Expr"]
    body: list[Stmt]
    catches: list[Catch]
    final: list[Stmt] | None


@dataclass(slots=True)
class Sync(Stmt):
    lock: "Expr"
    body: list[Stmt]


@dataclass(slots=True)
class Case(Node):
    """One ``case``/``default`` group or rule: ``tok`` is its first token."""

    #: the ``case`` values (constants, enum names, patterns)
    values: list["Expr"]
    #: the statements of a group, or a rule's body (an expression statement,
    #: a block or a throw)
    body: list[Stmt]
    #: an arrow rule (``case 1 ->``) rather than a group (``case 1:``)
    arrow: bool = False


@dataclass(slots=True)
class Switch(Stmt):
    expr: "Expr"
    cases: list[Case]


@dataclass(slots=True)
class Return(Stmt):
    expr: "Expr | None"


@dataclass(slots=True)
class Throw(Stmt):
    expr: "Expr"


@dataclass(slots=True)
class Assert(Stmt):
    cond: "Expr"
    message: "Expr | None"


@dataclass(slots=True)
class Jump(Stmt):
    """``break`` or ``continue``, with its target label if any."""

    what: str
    label: str | None


@dataclass(slots=True)
class Yield(Stmt):
    expr: "Expr"


@dataclass(slots=True)
class Empty(Stmt):
    pass


# ------------------------------------------------------------ expressions
@dataclass(slots=True)
class Expr(Node):
    #: its first and last tokens, where the parser gives them (tree-sitter;
    #: javalang gives only starts): what pattern variables' scopes are made of
    span: tuple[int, int] = field(default=(-1, -1), kw_only=True, compare=False)


@dataclass(slots=True)
class Name(Expr):
    """A simple name used as a value: a local, or else a field."""

    name: str


@dataclass(slots=True)
class Path(Expr):
    """A dotted name ``a.b.c`` (a package, class, field or local at its
    head): ``tok`` is its first name."""

    name: str


@dataclass(slots=True)
class Select(Expr):
    """``obj.name`` where ``obj`` is not a dotted name: ``tok`` is the ``.``."""

    obj: Expr
    name: str


@dataclass(slots=True)
class Index(Expr):
    """``obj[index]``: ``tok`` is the ``[``."""

    obj: Expr
    index: Expr


@dataclass(slots=True)
class Call(Expr):
    """A method invocation: ``f(…)``, ``a.b.f(…)`` (``qual`` is ``"a.b"``) or
    ``obj.f(…)``. ``tok`` is the qualifier's first name, the method name when
    unqualified, or the ``.`` after ``obj``."""

    obj: Expr | None
    qual: str
    name: str
    args: list[Expr]


@dataclass(slots=True)
class SuperRef(Expr):
    """``super.f``, ``super.m(…)``, ``X.super.m(…)`` (``outer`` is ``X``)."""

    outer: Expr | None
    name: str
    call: bool
    args: list[Expr]


@dataclass(slots=True)
class CtorCall(Expr):
    """``this(…)`` or ``super(…)`` at the start of a constructor."""

    what: str
    outer: Expr | None
    args: list[Expr]


@dataclass(slots=True)
class New(Expr):
    """``new T(…)``, ``outer.new T(…)``, optionally with a class body.
    ``type`` is the created type's dotted name (no type arguments)."""

    type: str
    outer: Expr | None
    #: ``outer`` written as a dotted name (``a.new B()``): it names no node
    outer_qual: str
    args: list[Expr]
    body: "ClassBody | None"


@dataclass(slots=True)
class NewArray(Expr):
    dims: list[Expr]
    init: "ArrayInit | None"


@dataclass(slots=True)
class ArrayInit(Expr):
    items: list[Expr]


@dataclass(slots=True)
class Cast(Expr):
    expr: Expr


@dataclass(slots=True)
class Assign(Expr):
    target: Expr
    op: str
    value: Expr


@dataclass(slots=True)
class IncDec(Expr):
    """``++``/``--``, prefix or postfix."""

    target: Expr
    op: str


@dataclass(slots=True)
class Unary(Expr):
    op: str
    expr: Expr


@dataclass(slots=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True)
class InstanceOf(Expr):
    """``expr instanceof T`` or, with a pattern, ``expr instanceof T x``."""

    expr: Expr
    pattern: Decl | None


@dataclass(slots=True)
class Cond(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(slots=True)
class Lambda(Expr):
    params: list[Decl]
    #: an expression, or a block's statements
    body: Union[Expr, list[Stmt]]


@dataclass(slots=True)
class MethodRef(Expr):
    """``obj::name`` (``obj`` is None for a type or ``super``)."""

    obj: Expr | None
    name: str


@dataclass(slots=True)
class This(Expr):
    """``this`` or ``Outer.this``."""

    qual: str


@dataclass(slots=True)
class Paren(Expr):
    expr: Expr


@dataclass(slots=True)
class Literal(Expr):
    pass


@dataclass(slots=True)
class ClassLit(Expr):
    """``T.class``"""


@dataclass(slots=True)
class SwitchExpr(Expr):
    expr: Expr
    cases: list[Case]


# ------------------------------------------------------------ class bodies
@dataclass(slots=True)
class Method(Node):
    """A method or constructor: ``tok`` is the first token after its
    modifiers and annotations (type parameters, return type or name)."""

    name: str
    #: the method's own modifiers (``public``, ``final`` …)
    modifiers: frozenset[str]
    params: list[Decl]
    #: its body's statements, or None without a body
    body: list[Stmt] | None
    #: a record's compact constructor (its parameters are implicit)
    compact: bool = False
    annotations: list[Expr] = field(default_factory=list)
    #: the identifier tokens that stand in a type position anywhere in the
    #: method (a declaration's type, type arguments and parameters, array,
    #: cast, ``instanceof`` and created types, a catch's types); filled for
    #: the unit only. They never name a variable
    types: frozenset[int] = frozenset()
    #: a compact constructor's implicit parameters: the name tokens of its
    #: record's components (in the record's header)
    implicit: tuple[int, ...] = ()


@dataclass(slots=True)
class Field(Node):
    """A field declaration of a class body: its initializers."""

    inits: list[Expr]
    annotations: list[Expr] = field(default_factory=list)


@dataclass(slots=True)
class Initializer(Node):
    """An initializer block (``static { … }`` or ``{ … }``)."""

    body: list[Stmt]


@dataclass(slots=True)
class EnumConstant(Node):
    name: str
    args: list[Expr]
    body: "ClassBody | None"
    annotations: list[Expr] = field(default_factory=list)


@dataclass(slots=True)
class ClassBody(Node):
    """The members of a class body: ``tok`` is its ``{`` (-1 when not known)."""

    members: list[Union[Method, Field, Initializer, EnumConstant, LocalClass]]


@lru_cache(maxsize=None)
def _parts(cls: type) -> tuple[str, ...]:
    """The fields of a node class that may hold nodes."""
    return tuple(f.name for f in fields(cls) if f.name not in ("tok", "labels", "span"))


def children(node) -> Iterator:
    """The nodes directly inside ``node``, in source order (declaration
    order of the fields, lists flattened)."""
    for name in _parts(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, Node):
                    yield v


def walk(node, ancestors: tuple = ()) -> Iterator[tuple[object, tuple]]:
    """Every node under ``node`` (itself first) in pre-order, each with its
    ancestors (outermost first), without recursion."""
    stack = [(node, ancestors)]
    while stack:
        n, up = stack.pop()
        yield n, up
        inner = up + (n,)
        stack.extend((c, inner) for c in reversed(list(children(n))))


__all__ = [
    "IDENT",
    "BASIC",
    "KEYWORD",
    "LITERAL",
    "OP",
    "BASIC_TYPES",
    "KEYWORDS",
    "TYPE_KINDS",
    "BOXED",
    "type_kind",
    "Tokens",
    "Node",
    "Decl",
    "Stmt",
    "Block",
    "LocalVars",
    "LocalClass",
    "ExprStmt",
    "If",
    "While",
    "Do",
    "For",
    "ForEach",
    "Catch",
    "Try",
    "Sync",
    "Case",
    "Switch",
    "Return",
    "Throw",
    "Assert",
    "Jump",
    "Yield",
    "Empty",
    "Expr",
    "Name",
    "Path",
    "Select",
    "Index",
    "Call",
    "SuperRef",
    "CtorCall",
    "New",
    "NewArray",
    "ArrayInit",
    "Cast",
    "Assign",
    "IncDec",
    "Unary",
    "Binary",
    "InstanceOf",
    "Cond",
    "Lambda",
    "MethodRef",
    "This",
    "Paren",
    "Literal",
    "ClassLit",
    "SwitchExpr",
    "Method",
    "Field",
    "Initializer",
    "EnumConstant",
    "ClassBody",
    "children",
    "walk",
]
