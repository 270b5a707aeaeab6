"""Declarations and name resolution for one Java unit.

Reads the neutral description (:mod:`.syntax`) of a method and its
tokens; returns, for every identifier token of the unit that names a
parameter or local, the referent ``local:<unit>:<line>.<col>:<name>`` of its
declaration, with what dependencies need to know of each (array, unboxes,
``final``) and the locals that must keep their names.

Scopes are block scopes read off the tokens: a declaration reaches to the end
of its block, a ``for``/``catch``/resource variable to the end of its
statement, a lambda parameter to the end of its lambda, a method parameter to
the end of its method; a pattern variable (``o instanceof T x``) reaches
exactly where the Java Language Specification (6.3.1) says it is definitely
matched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import ParseError, UnsupportedError
from .syntax import (
    Binary,
    Block,
    Case,
    Catch,
    ClassBody,
    Cond,
    Decl,
    Do,
    Expr,
    For,
    ForEach,
    If,
    Initializer,
    InstanceOf,
    Jump,
    Lambda,
    LocalClass,
    LocalVars,
    Method,
    New,
    Paren,
    Return,
    Stmt,
    Switch,
    SwitchExpr,
    Sync,
    Throw,
    Tokens,
    Try,
    Unary,
    While,
    Yield,
    walk,
)

_LOOPS = (For, ForEach, While, Do)


@dataclass(slots=True)
class Scopes:
    """What :func:`resolve` finds in one unit."""

    #: identifier token -> referent, for declarations and resolved uses
    ref_of: dict[int, str]
    #: referent -> view (``param`` or ``local``)
    view_of: dict[str, str]
    #: the declaring tokens
    decl_toks: frozenset[int]
    #: referents of array type, of a type that may unbox, declared ``final``
    arrays: frozenset[str]
    unboxes: frozenset[str]
    finals: frozenset[str]
    #: identifier tokens that cannot name a variable (members, labels …)
    not_a_name: frozenset[int]
    #: identifier tokens that are contextual keywords where they stand (JLS
    #: 3.9): ``var`` as a declaration's type, ``yield`` opening a yield
    #: statement, ``record`` opening a local record; a local may share their
    #: spelling without meaning anything else
    keywords: frozenset[int]
    #: referents that keep their names
    pinned: frozenset[str]
    #: referents of pattern variables that stay in scope after the statement
    #: that declares them (``if (!(o instanceof T x)) return;``), by statement
    escaping: dict[int, set[str]]


@dataclass(slots=True)
class _Declared:
    """What :meth:`Resolver._declarations` finds, by declaring token."""

    #: (token, ranges in scope, name, view) of every declaration
    decls: list[tuple[int, list[tuple[int, int]], str, str]] = field(default_factory=list)
    arrays: set[int] = field(default_factory=set)
    unboxes: set[int] = field(default_factory=set)
    finals: set[int] = field(default_factory=set)
    #: locals that may be a case label: final, with an initializer
    constants: set[int] = field(default_factory=set)
    patterns: list[Decl] = field(default_factory=list)
    #: ``id`` of a statement -> the pattern variables that stay in scope after it
    escaping: dict[int, set[int]] = field(default_factory=dict)


def _case_labels(ref_of: dict[int, str], constants: set[int], case_names: set[int]) -> set[str]:
    """The locals a ``case`` label may name, which keep their names; every
    other label token loses its referent (mutating ``ref_of``). ``case RED:``
    names an enum constant, unless the switch is on a value and ``RED`` a
    constant local (final, initialized): javac accepts no other local there.
    Which one it is depends on the selector's type, unknown here."""
    constant_refs = {ref_of[k] for k in constants}
    pinned = set()
    for k in case_names:
        ref = ref_of.get(k)
        if ref is None:
            continue
        if ref in constant_refs:
            pinned.add(ref)
        else:
            del ref_of[k]
    return pinned


class Resolver:
    """Finds every declaration of a unit and resolves every identifier."""

    def __init__(self, ix: Tokens, method: Method, name: str, start: int, close: int) -> None:
        self.ix = ix
        self.method = method
        self.name = name
        self.start_tok, self.close_tok = start, close

    # ------------------------------------------------------------ resolve
    def resolve(self) -> Scopes:
        ix = self.ix
        found = self._declarations()
        decls, patterns, escaping = found.decls, found.patterns, found.escaping
        self._check_redeclared(decls)
        keywords = self._contextual_keywords()
        not_a_name = self._not_names() | keywords
        case_names = self._case_names()
        ref_of: dict[int, str] = {}
        view_of: dict[str, str] = {}
        by_name: dict[str, list[tuple[int, list[tuple[int, int]], str]]] = {}
        for k, ranges, name, view in decls:
            ref = f"local:{self.name}:{ix.line_of[k]}.{ix.col_of[k] + 1}:{name}"
            by_name.setdefault(name, []).append((k, ranges, ref))
            view_of[ref] = view
            ref_of[k] = ref
        decl_toks = frozenset(ref_of)
        for cands in by_name.values():
            cands.sort(key=lambda c: c[0])
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k] or k in ref_of or k in not_a_name:
                continue
            cands = by_name.get(ix.values[k])
            if not cands:
                continue
            best = None
            for d, ranges, ref in cands:
                if d <= k and any(lo <= k <= hi for lo, hi in ranges):
                    best = ref
            if best is not None:
                ref_of[k] = best
        pinned_cases = _case_labels(ref_of, found.constants, case_names)
        # a compact constructor's components are parameters no token of it
        # declares: no local may take their names (docs/semantics.md)
        implicit = {
            f"local:{self.name}:{ix.line_of[k]}.{ix.col_of[k] + 1}:{ix.values[k]}" for k in self.method.implicit
        }
        self._check_patterns(patterns, ref_of, not_a_name | case_names)
        return Scopes(
            ref_of=ref_of,
            view_of=view_of,
            decl_toks=decl_toks,
            arrays=frozenset(ref_of[k] for k in found.arrays),
            unboxes=frozenset(ref_of[k] for k in found.unboxes),
            finals=frozenset(ref_of[k] for k in found.finals),
            not_a_name=frozenset(not_a_name),
            keywords=keywords,
            pinned=self._captured_by_classes(ref_of, decl_toks) | pinned_cases | implicit,
            escaping={s: {ref_of[k] for k in ks} for s, ks in escaping.items()},
        )

    def _declarations(self) -> "_Declared":
        """Every declaration of the method: its token, the ranges where it is
        in scope, its name and view; and the tokens of arrays, boxed locals,
        finals and possible case constants, its pattern variables and those
        that stay in scope after their statement."""
        found = _Declared()
        decls, escaping, patterns = found.decls, found.escaping, found.patterns
        arrays, unboxes, finals, constants = found.arrays, found.unboxes, found.finals, found.constants
        for node, up in walk(self.method):
            if not isinstance(node, Decl):
                continue
            parent = up[-1]
            k = node.tok
            if node.view == "local" and node.final and node.init is not None:
                constants.add(k)
            if isinstance(parent, InstanceOf):
                ranges, after = self._pattern_scope(node, up)
                patterns.append(node)
                if after is not None:
                    escaping.setdefault(id(after), set()).add(k)
            elif isinstance(parent, Method) and parent is self.method:
                ranges = [(k, self.close_tok)]
            elif isinstance(parent, ForEach) or (isinstance(parent, For) and any(node is d for d in parent.init)):
                # a for variable reaches the end of its loop, braced or not
                ranges = [(k, self.stmt_end(parent))]
            else:
                ranges = [(k, self.scope_end(k))]
            decls.append((k, ranges, node.name, node.view))
            if isinstance(parent, Method):
                # the rule this frontend has always applied: a method's own
                # modifiers, when it has any, say whether its parameters are
                # final. Only whether a loop may be endless reads it, and no
                # parameter is a constant, so it errs towards more barriers
                final = ("final" in parent.modifiers) if parent.modifiers else node.final
            else:
                final = node.final
            if final:
                finals.add(k)
            if node.kind == "array":
                arrays.add(k)
            elif node.kind in ("boxed", "unknown") or self._typed_by_boxed_variable(node, parent):
                unboxes.add(k)
        return found

    def _typed_by_boxed_variable(self, decl: Decl, parent) -> bool:
        """Whether a declaration of a reference type names a type variable
        that may unbox (``Tokens.boxed_type_variables``): its type is
        the identifier just before its name (before the first declarator's,
        in ``T a = p, b = q;``), as a type variable takes no arguments."""
        if decl.kind != "reference":
            return False
        ix = self.ix
        k = (parent.decls[0].tok if isinstance(parent, LocalVars) else decl.tok) - 1
        return ix.identifier[k] and ix.values[k] in ix.boxed_type_variables

    # ------------------------------------------------------------- scopes
    def scope_end(self, k: int) -> int:
        """Last token a declaration at token ``k`` reaches."""
        ix = self.ix
        nxt = ix.values[k + 1] if k + 1 < len(ix) else ""
        if nxt == "->":
            return self.lambda_end(k + 1)
        o = ix.enclosing[k]
        if o >= 0 and ix.values[o] == "(":
            c = ix.match[o]
            after = ix.values[c + 1] if c + 1 < len(ix) else ""
            if after == "->":
                return self.lambda_end(c + 1)
            if after == "{":
                return ix.match[c + 1]
            j = c + 1
            while j < self.close_tok and ix.values[j] != ";":
                j = ix.match.get(j, j) + 1 if ix.values[j] in ("(", "[", "{") else j + 1
            return j
        return ix.match[o] if o >= 0 and ix.values[o] == "{" else self.close_tok

    def stmt_end(self, s: Stmt) -> int:
        """The last token of statement ``s``: an unbraced body ends where its
        own last statement ends, an ``if``/``else`` chain at its last branch."""
        ix = self.ix
        if isinstance(s, If):
            return self.stmt_end(s.other if s.other is not None else s.then)
        if isinstance(s, (For, ForEach, While)):
            return self.stmt_end(s.body)
        k = s.tok
        if isinstance(s, Do):
            k = self.stmt_end(s.body) + 1  # while ( … ) ;
            return ix.match[k + 1] + 1
        braced = isinstance(s, (Block, Switch, Sync, Try, LocalClass))
        while k < self.close_tok:
            v = ix.values[k]
            if v == "{" and braced:
                k = ix.match[k]
                if not (isinstance(s, Try) and ix.values[k + 1] in ("catch", "finally")):
                    return k
            elif v in ("(", "[", "{"):
                k = ix.match.get(k, k)
            elif v == ";" and not braced:
                return k
            k += 1
        return self.close_tok

    def lambda_end(self, arrow: int) -> int:
        ix = self.ix
        j = arrow + 1
        if j < len(ix) and ix.values[j] == "{":
            return ix.match[j]
        while j < self.close_tok:
            v = ix.values[j]
            if v in ("(", "[", "{"):
                j = ix.match.get(j, j) + 1
                continue
            if v in (")", "]", "}", ";", ","):
                return j
            j += 1
        return j

    # ---------------------------------------------------------- not names
    def _not_names(self) -> set[int]:
        """Identifier tokens that cannot name a variable: members after ``.``
        or ``::``, method names before ``(``, labels and ``break``/``continue``
        targets (a label may share a local's name), annotation elements, a
        type before the name it declares (no variable's name is followed by
        an identifier: one before another is a type or a keyword), and every
        other type position: those the parser found (:attr:`Method.types`:
        type arguments, array, cast and ``instanceof`` types …), an
        annotation's name, a created type (``new T``), the names of a
        ``throws`` clause, and a type qualifying ``.class``, ``.this`` or
        ``.super.`` (JLS 6.5.1: none of them is ever a variable, whatever
        local shares its name)."""
        ix = self.ix
        out = set(self.method.types)
        throws = False
        for k in range(self.start_tok, self.close_tok + 1):
            v = ix.values[k]
            if v == "throws" and not ix.identifier[k]:
                throws = True
            elif v in ("{", ";"):
                throws = False
            if not ix.identifier[k]:
                continue
            before = ix.values[k - 1]
            if (
                before in (".", "::", "break", "continue", "@", "new")
                or ix.values[k + 1] == "("
                or ix.identifier[k + 1]
                or throws
            ):
                out.add(k)
            elif before in ("(", ",") and ix.values[k + 1] == "=" and self._in_annotation(k):
                out.add(k)  # an annotation element: @SuppressWarnings(value = "x")
            elif self._qualifies_type(k):
                out.add(k)
        for node, _ in walk(self.method):
            if isinstance(node, Stmt):
                out.update(node.labels)
        return out

    def _qualifies_type(self, k: int) -> bool:
        """Whether the dotted name starting at token ``k`` is followed by
        ``[]`` (an array type: ``T[] a``, ``T[].class``, ``T[]::new``) or
        ends in ``.class``, ``.this`` or ``.super.`` / ``.super::`` (a
        type's name: ``T.class``, ``Outer.this``, ``Iface.super.m()``;
        ``o.super(…)`` names an outer instance, a variable)."""
        ix, v = self.ix, self.ix.values
        j = k + 1
        while j + 1 < len(ix) and v[j] == "." and ix.identifier[j + 1]:
            j += 2
        if j + 1 >= len(ix):
            return False
        if v[j] == "[" and v[j + 1] == "]":
            return True
        if v[j] != ".":
            return False
        nxt = v[j + 1]
        return nxt in ("class", "this") or (nxt == "super" and j + 2 < len(ix) and v[j + 2] in (".", "::"))

    def _case_names(self) -> set[int]:
        """The labels of ``case`` written as a bare identifier (``case RED:``,
        ``case A, B ->``): an enum constant, or a constant variable."""
        ix, v = self.ix, self.ix.values
        out = set()
        for k in range(self.start_tok, self.close_tok + 1):
            if v[k] != "case" or ix.identifier[k]:
                continue
            level = ix.enclosing[k]
            segment: list[int] = []
            j = k + 1
            while j <= self.close_tok:
                if ix.enclosing[j] == level and v[j] in (",", ":", "->"):
                    if len(segment) == 1 and ix.identifier[segment[0]]:
                        out.add(segment[0])
                    if v[j] != ",":
                        break
                    segment = []
                else:
                    segment.append(j)
                j += 1
        return out

    def _contextual_keywords(self) -> frozenset[int]:
        """See :attr:`Scopes.keywords`."""
        ix = self.ix
        out = {
            k
            for k in range(self.start_tok, self.close_tok + 1)
            if ix.values[k] == "var" and ix.identifier[k] and ix.identifier[k + 1]
        }
        for node, _ in walk(self.method):
            if (isinstance(node, Yield) and ix.values[node.tok] == "yield") or (
                isinstance(node, LocalClass) and ix.values[node.tok] == "record"
            ):
                out.add(node.tok)
        return frozenset(out)

    def _in_annotation(self, k: int) -> bool:
        """Whether token ``k`` stands directly inside an annotation's parentheses."""
        ix = self.ix
        o = ix.enclosing[k]
        if o < 1 or ix.values[o] != "(":
            return False
        j = o - 1
        while j > 1 and ix.identifier[j] and ix.values[j - 1] == ".":
            j -= 2
        return ix.identifier[j] and ix.values[j - 1] == "@"

    def _captured_by_classes(self, ref_of: dict[int, str], decl_toks: frozenset[int]) -> frozenset[str]:
        """Locals declared outside an anonymous or local class body and named
        inside it: there a simple name may mean a member the class inherits
        (which invar cannot see), so these keep their names."""
        ix = self.ix
        bodies = []
        for node, _ in walk(self.method):
            body = node.body if isinstance(node, (New, LocalClass)) else None
            if body is not None and body.tok >= 0:
                bodies.append((body.tok, ix.match.get(body.tok, self.close_tok)))
        pinned = set()
        decl_of = {ref: k for k, ref in ref_of.items() if k in decl_toks}
        for k, ref in ref_of.items():
            d = decl_of[ref]
            if any(o < k < c and not o < d < c for o, c in bodies):
                pinned.add(ref)
        return frozenset(pinned)

    # ------------------------------------------------------------ patterns
    def _pattern_scope(self, decl: Decl, up: tuple) -> tuple[list[tuple[int, int]], Stmt | None]:
        """Where pattern variable ``decl`` is definitely matched (JLS 6.3.1
        and 6.3.2), as token ranges, and the statement after which it stays
        in scope for the rest of its block (or None). Follows ``!``, ``&&``,
        ``||``, ``?:`` and parentheses out of the ``instanceof`` up to the
        condition of an ``if``, ``while``, ``for`` or ``do``; anywhere else
        the variable's scope ends with the expression."""
        ranges: list[tuple[int, int]] = []
        when = True  # the variable is introduced when the expression so far is true
        child = up[-1]
        for i in range(len(up) - 2, -1, -1):
            node = up[i]
            if isinstance(node, Paren):
                pass
            elif isinstance(node, Unary) and node.op == "!":
                when = not when
            elif isinstance(node, Binary) and node.op in ("&&", "||"):
                if child is node.left and (node.op == "&&") == when:
                    ranges.append(self._span(node.right))
                if (node.op == "&&") != when:
                    return ranges, None  # ``a || b`` introduces nothing when true, ``a && b`` when false
            elif isinstance(node, Cond):
                if child is node.cond:
                    ranges.append(self._span(node.then if when else node.other))
                return ranges, None
            elif isinstance(node, If) and child is node.cond:
                taken, other = (node.then, node.other) if when else (node.other, node.then)
                if taken is not None:
                    ranges.append((taken.tok, self.stmt_end(taken)))
                if not self._completes(other) and (taken is None or self._completes(taken)):
                    return ranges + self._rest_of_block(node, up[:i]), self._block_statement(node, up[:i])
                return ranges, None
            elif isinstance(node, (While, For)) and child is node.cond:
                if when:
                    if isinstance(node, For):
                        ranges.extend(self._span(u) for u in node.update)
                    ranges.append((node.body.tok, self.stmt_end(node.body)))
                elif not self._breaks_out(node):
                    return ranges + self._rest_of_block(node, up[:i]), self._block_statement(node, up[:i])
                return ranges, None
            elif isinstance(node, Do) and child is node.cond:
                if not when and not self._breaks_out(node):
                    return ranges + self._rest_of_block(node, up[:i]), self._block_statement(node, up[:i])
                return ranges, None
            else:
                return ranges, None
            child = node
        return ranges, None

    def _span(self, e: Expr) -> tuple[int, int]:
        if e.span[0] < 0:
            raise UnsupportedError("an expression without its extent", line=0, col=0)
        return e.span

    @staticmethod
    def _block_statement(stmt: Stmt, up: tuple) -> Stmt | None:
        """``stmt`` when it stands directly in a block (a block's, body's or
        switch group's statement list), else None."""
        parent = up[-1] if up else None
        if isinstance(parent, (Block, Method, Try, Catch, Sync, Initializer, Lambda)) or (
            isinstance(parent, Case) and not parent.arrow
        ):
            return stmt
        return None

    def _rest_of_block(self, stmt: Stmt, up: tuple) -> list[tuple[int, int]]:
        """The tokens after ``stmt`` to the end of the block holding it, when
        it stands directly in one (else nothing: the variable is then
        introduced nowhere further)."""
        if self._block_statement(stmt, up) is None:
            return []
        ix = self.ix
        end = self.stmt_end(stmt)
        o = ix.enclosing[end]
        if ix.match.get(end) == o:  # a closing bracket's own opening one
            o = ix.enclosing[o]
        while o >= 0 and ix.values[o] != "{":
            o = ix.enclosing[o]
        return [(end, ix.match.get(o, self.close_tok) if o >= 0 else self.close_tok)]

    def _completes(self, s: Stmt | None) -> bool:
        """Whether ``s`` may complete normally, as far as its syntax shows:
        it does unless it is a ``return``, ``throw``, ``break``, ``continue``
        or ``yield``, a block ending in one, or an ``if``/``else`` whose
        branches both do not (a labeled statement may: ``break`` may end it)."""
        if s is None or s.labels:
            return True
        if isinstance(s, (Return, Throw, Jump, Yield)):
            return False
        if isinstance(s, Block):
            return not s.body or self._completes(s.body[-1])
        if isinstance(s, If):
            return s.other is None or self._completes(s.then) or self._completes(s.other)
        return True

    @staticmethod
    def _breaks_out(loop: Stmt) -> bool:
        """Whether a ``break`` may leave ``loop``: a labeled one anywhere in
        it, or an unlabeled one outside every nested loop, switch and body."""
        for node, up in walk(loop.body):
            if isinstance(node, Jump) and node.what == "break":
                if node.label is not None:
                    return True
                if not any(isinstance(a, _LOOPS + (Switch, SwitchExpr, Lambda, New, LocalClass)) for a in up):
                    return True
        return False

    def _check_redeclared(self, decls: list) -> None:
        """Refuse a parameter or local declared where another of its name is in
        scope, as javac does (JLS 6.4: not in a nested block, a ``for``, a
        ``catch``, a lambda or a pattern either); a class body in between
        (a local or anonymous class's method) may declare it again, and each
        of its methods has its own parameters. A pattern variable's scope
        follows the flow of control, so a declaration after one is not
        checked against it; an enhanced ``for`` variable's starts at the body."""
        ix = self.ix
        inside = {}  # declaring token -> (the class bodies and methods it stands in, a pattern's, its parent)
        for node, up in walk(self.method):
            if isinstance(node, Decl):
                owners = frozenset(id(a) for a in up if isinstance(a, (ClassBody, Method)))
                inside[node.tok] = (owners, isinstance(up[-1], InstanceOf), up[-1])
        earlier: dict[str, list[tuple[int, list[tuple[int, int]]]]] = {}
        for k, ranges, name, _view in sorted(decls, key=lambda d: d[0]):
            bodies, pattern, parent = inside[k]
            if isinstance(parent, ForEach):
                ranges = [(max(parent.body.tok, k), ranges[0][1])]
            for d, scope in earlier.get(name, ()):
                if inside[d][0] == bodies and any(lo <= k <= hi for lo, hi in scope):
                    raise ParseError(
                        f"{name!r} is already declared on line {ix.line_of[d]}, and is in scope here",
                        line=ix.line_of[k],
                        col=ix.col_of[k] + 1,
                    )
            if not pattern:
                earlier.setdefault(name, []).append((k, ranges))

    def _check_patterns(self, patterns: list[Decl], ref_of: dict[int, str], not_a_name: set[int]) -> None:
        """Refuse a unit that spells a pattern variable's name after it, up
        to the end of its block, where the name resolves to no local: there it
        could mean a field, or the variable where invar does not follow the
        flow of control."""
        ix = self.ix
        for decl in patterns:
            k = decl.tok
            o = ix.enclosing[k]
            while o >= 0 and ix.values[o] != "{":
                o = ix.enclosing[o]
            end = min(ix.match.get(o, self.close_tok) if o >= 0 else self.close_tok, self.close_tok)
            for j in range(k + 1, end + 1):
                if ix.identifier[j] and ix.values[j] == decl.name and j not in not_a_name and j not in ref_of:
                    raise UnsupportedError(
                        f"cannot tell whether {decl.name!r} means the pattern variable of line {ix.line_of[k]} "
                        "(its scope follows the flow of control)",
                        line=ix.line_of[j],
                        col=ix.col_of[j] + 1,
                    )


__all__ = ["Scopes", "Resolver"]
