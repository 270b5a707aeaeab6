"""The javalang path: Java 8 source into the neutral description.

``javalang`` reads Java 8 (the parser the SPE paper used), with the repairs
of :mod:`.javalang_repairs`. :func:`read` turns its tokens into :class:`~.syntax.Tokens` and each
method into a :class:`~.syntax.Method`, converting one method at a time
so that a method it cannot describe is skipped alone.

javalang gives most nodes only a start position and a declaration none at
all, so a declared name is found on the tokens: the first identifier after
the position reached so far that is written as a declaration (after a type,
before ``=``, ``,``, ``;``, ``[``, ``)``, ``:`` or ``->``).
"""

from __future__ import annotations

from typing import Callable

import javalang
from javalang import tree as jt

from ...errors import ParseError, UnsupportedError
from .syntax import (
    ArrayInit,
    Assert,
    Assign,
    BASIC,
    Binary,
    Block,
    Call,
    Case,
    Cast,
    Catch,
    ClassBody,
    ClassLit,
    Cond,
    CtorCall,
    Decl,
    Do,
    Empty,
    EnumConstant,
    Expr,
    ExprStmt,
    Field,
    For,
    ForEach,
    IDENT,
    If,
    IncDec,
    Index,
    Initializer as SyntaxInitializer,
    InstanceOf,
    Jump,
    KEYWORD,
    LITERAL,
    Lambda,
    Literal,
    LocalClass,
    LocalVars,
    Method,
    MethodRef,
    Name,
    New,
    NewArray,
    OP,
    Paren,
    Path,
    Return,
    Select,
    Stmt,
    SuperRef,
    Switch,
    Sync,
    This,
    Throw,
    Tokens,
    Try,
    Unary,
    While,
    deepest,
    type_kind,
)
from .javalang_repairs import Initializer, Parenthesized, Parser, Tokenizer


# -------------------------------------------------------------------- read


def _lexer_error(err: Exception, text: str, at: int, path: str | None) -> ParseError:
    """javalang's lexical error, located at offset ``at`` of ``text`` (where the
    token it could not read starts): its own message names the character it
    stopped on, which may be another one."""
    line = text.count("\n", 0, at) + 1
    what = str(err).split(" at ")[0]
    return ParseError(
        f"{what} at {text[at]!r}" if at < len(text) else what,
        path=path,
        line=line,
        col=at - text.rfind("\n", 0, at),
        source_line=text.split("\n")[line - 1],
    )


def read(
    text: str, path: str | None = None
) -> tuple[Tokens, list[tuple[tuple[str, ...], int, int, Callable[[], Method]]]]:
    """The tokens of ``text`` and its methods with bodies declared in a
    class, interface or enum: ``(names, line, col, describe)`` each, where
    ``describe()`` builds the method's description (and may raise an
    :class:`~invar.errors.InvarError` for that method alone). A syntax or
    lexical error raises :class:`~invar.errors.ParseError`."""
    lines = text.split("\n")
    tokens: list = []

    def too_deep() -> ParseError:
        line, col = deepest(
            [t.value for t in tokens], [t.position.line for t in tokens], [t.position.column - 1 for t in tokens]
        )
        return ParseError(
            "nesting too deep to parse",
            path=path,
            line=line,
            col=col,
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
        )

    tokenizer = Tokenizer(text)
    try:
        tokens = list(tokenizer.tokenize())
        tree = Parser(tokens).parse()
    except javalang.tokenizer.LexerError as err:
        raise _lexer_error(err, text, min(tokenizer.i, len(text)), path) from None
    except javalang.parser.JavaSyntaxError as err:
        pos = getattr(err.at, "position", None)
        line, col = (pos.line, pos.column) if pos else (len(lines), 1)
        got = getattr(err.at, "value", None)
        raise ParseError(
            f"{err.description} (at {got!r})" if got is not None else f"{err.description} (at the end of the input)",
            path=path,
            line=line,
            col=col,
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
        ) from None
    except (RecursionError, MemoryError):
        raise too_deep() from None
    ix = Tokens(
        lines,
        [t.value for t in tokens],
        [_kind(t) for t in tokens],
        [t.position.line for t in tokens],
        [t.position.column - 1 for t in tokens],
    )
    at = {(t.position.line, t.position.column): k for k, t in enumerate(tokens)}
    out = []
    try:  # javalang walks its trees recursively: a deep expression parses, then overflows here
        for p, n in tree.filter(jt.MethodDeclaration):
            r = n.return_type
            if isinstance(r, jt.ReferenceType) and r.name == "record" and not r.arguments and not r.sub_type:
                # ``record R(…) {}`` reads as a method ``R`` returning a type ``record``
                pos = n.position
                raise ParseError(
                    "record declaration (Java 16; javalang reads Java 8)",
                    path=path,
                    line=pos.line if pos else 1,
                    col=pos.column if pos else 1,
                )
        units = _units(tree)
    except (RecursionError, MemoryError):
        raise too_deep() from None
    for names, n in units:
        out.append(
            (
                names,
                n.position.line if n.position else 0,
                n.position.column if n.position else 0,
                lambda n=n: _Describer(ix, at).unit(n),
            )
        )
    return ix, out


def _units(tree) -> list[tuple[tuple[str, ...], object]]:
    """Every method with a body declared in a named type, an enum constant's
    body, or a class body that stands outside every method (an anonymous
    class in a field's initializer): ``(names, node)`` in source order,
    named as :func:`.treesitter_parser.read` names them."""
    out = []
    stack: list[tuple[object, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, names = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend((v, names) for v in reversed(node))
            continue
        if not isinstance(node, javalang.ast.Node):
            continue
        if isinstance(node, (jt.MethodDeclaration, jt.ConstructorDeclaration)):
            if node.body is not None:
                out.append((names + (node.name,), node))
            continue
        if isinstance(node, (jt.TypeDeclaration, jt.EnumConstantDeclaration)) and node is not tree:
            names = names + (node.name,)
        elif isinstance(node, jt.FieldDeclaration):
            stack.extend((d, names + (d.name,)) for d in node.declarators)
            continue
        elif isinstance(node, Initializer):
            names = names + ("<clinit>" if node.static else "<init>",)
        stack.extend((child, names) for child in reversed(node.children))
    out.sort(key=lambda u: (u[1].position.line, u[1].position.column) if u[1].position else (0, 0))
    return out


def _kind(token) -> str:
    if isinstance(token, javalang.tokenizer.Identifier):
        return IDENT
    if isinstance(token, javalang.tokenizer.BasicType):
        return BASIC
    if isinstance(token, javalang.tokenizer.Keyword):
        return KEYWORD
    if isinstance(token, javalang.tokenizer.Literal):
        return LITERAL
    return OP


def _type_kind(typ, extra_dims: int = 0, varargs: bool = False) -> str:
    """:data:`~.syntax.TYPE_KINDS` of a javalang type."""
    if varargs or extra_dims:
        return "array"
    if typ is None:
        return "unknown"
    if typ.dimensions:
        return "array"
    if isinstance(typ, jt.BasicType):
        return "primitive"
    while getattr(typ, "sub_type", None) is not None:  # java.lang.Integer
        typ = typ.sub_type
    return type_kind(dims=0, basic=False, name=typ.name)


def _type_name(typ) -> str:
    parts = [typ.name]
    while getattr(typ, "sub_type", None) is not None:
        typ = typ.sub_type
        parts.append(typ.name)
    return ".".join(parts)


class _Describer:
    """Converts one javalang method, in source order, keeping the position
    reached so far (``cursor``) to find declared names on the tokens."""

    def __init__(self, ix: Tokens, at: dict[tuple[int, int], int]) -> None:
        self.ix = ix
        self.at = at
        self.cursor = 0
        #: the last token a declared name may stand at (the unit's closing brace)
        self.limit = len(ix) - 2

    def unit(self, n) -> Method:
        """The description of unit ``n`` (a method with a body)."""
        p = n.position
        k = self.at.get((p.line, p.column)) if p is not None else None
        if k is None:
            raise UnsupportedError(
                f"{type(n).__name__} without a source position", line=p.line if p else 0, col=p.column if p else 0
            )
        ix = self.ix
        while ix.values[k] != "{":
            k = ix.match[k] if ix.values[k] in ("(", "[") else k
            k += 1
        self.limit = ix.match[k]
        method = self.method(n)
        types = set()
        for _, node in n:  # every node under it (javalang walks its tree)
            for p in getattr(node, "_types", ()):
                t = self.at.get((p.line, p.column))
                if t is not None:
                    types.add(t)
        method.types = frozenset(types)
        return method

    # ------------------------------------------------------------ positions
    def unsupported(self, what: str, k: int) -> UnsupportedError:
        """The error for a construct invar does not read, at token ``k``
        (unlocated when it is -1)."""
        ix = self.ix
        return UnsupportedError(what, line=ix.line_of[k] if k >= 0 else 0, col=ix.col_of[k] + 1 if k >= 0 else 0)

    def pos(self, node) -> int:
        """The token at ``node``'s position (-1 without one); the cursor
        moves up to it."""
        p = getattr(node, "_position", None)
        if p is None:
            return -1
        k = self.at.get((p.line, p.column), -1)
        if k > self.cursor:
            self.cursor = k
        return k

    def declared(self, name: str, inferred: bool = False) -> int:
        """The token declaring ``name`` at or after the cursor: the name right
        after its type (``,`` too, for a second declarator), before what may
        follow a declarator; ``inferred`` lambda parameters have no type.
        Never a use: ``this.n)``, ``f(a, n)``, ``(n)`` declare nothing."""
        ix = self.ix
        for k in range(self.cursor, self.limit + 1):
            if ix.identifier[k] and ix.values[k] == name and ix.values[k + 1] in ("=", ",", ";", "[", ")", ":", "->"):
                before = ix.values[k - 1]
                if inferred:
                    if before in ("(", ",") or ix.values[k + 1] == "->":
                        self.cursor = k + 1
                        return k
                elif (
                    ix.identifier[k - 1]
                    or ix.basic[k - 1]
                    or before in (">", ">>", ">>>", "]", "...")
                    or (before == "," and ix.values[k + 1] in ("=", ",", ";", "["))
                ):
                    self.cursor = k + 1
                    return k
        k = min(self.cursor, len(ix) - 1)
        raise UnsupportedError(f"cannot locate the declaration of {name!r}", line=ix.line_of[k], col=ix.col_of[k] + 1)

    def labels(self, k: int) -> tuple[int, ...]:
        """The label tokens starting at token ``k`` (``a: b: for …``)."""
        ix, out = self.ix, []
        while 0 <= k < len(ix) - 1 and ix.identifier[k] and ix.values[k + 1] == ":":
            out.append(k)
            k += 2
        return tuple(out)

    # -------------------------------------------------------------- members
    def method(self, n) -> Method:
        k = self.pos(n)
        annotations = self.annotations(n.annotations)
        params = [self.param(p) for p in n.parameters or []]
        body = None if n.body is None else self.stmts(n.body)
        return Method(k, n.name, frozenset(n.modifiers or ()), params, body, annotations=annotations)

    def param(self, p) -> Decl:
        self.pos(p)
        annotations = self.annotations(p.annotations)
        k = self.declared(p.name)
        return Decl(
            k,
            p.name,
            "param",
            _type_kind(p.type, varargs=p.varargs),
            "final" in (p.modifiers or ()),
            annotations=annotations,
        )

    def class_body(self, members) -> ClassBody:
        out = []
        brace = -1
        for m in members or []:
            p = getattr(m, "_position", None)
            k = self.at.get((p.line, p.column)) if p is not None else None
            if brace < 0 and k is not None and self.ix.enclosing[k] >= 0:
                brace = self.ix.enclosing[k]
            out.append(self.member(m))
        if members and brace < 0:
            raise UnsupportedError("a class body whose members have no source position", line=0, col=0)
        return ClassBody(brace, out)

    def member(self, m):
        if isinstance(m, Initializer):
            self.pos(m)
            return SyntaxInitializer(-1, self.stmts(m.statements))
        if isinstance(m, (jt.MethodDeclaration, jt.ConstructorDeclaration)):
            return self.method(m)
        if isinstance(m, jt.FieldDeclaration):
            k = self.pos(m)
            annotations = self.annotations(m.annotations)
            inits = []
            for d in m.declarators:
                if d.initializer is not None:
                    inits.append(self.expr(d.initializer))
            return Field(k, inits, annotations=annotations)
        if isinstance(m, (jt.ClassDeclaration, jt.InterfaceDeclaration, jt.EnumDeclaration)):
            return self.type_decl(m)
        raise UnsupportedError(f"{type(m).__name__} in a class body", line=0, col=0)

    def type_decl(self, m) -> LocalClass:
        k = self.pos(m)
        annotations = self.annotations(m.annotations)
        if isinstance(m, jt.EnumDeclaration):
            members = []
            for c in m.body.constants or []:
                notes = self.annotations(c.annotations)
                args = [self.expr(a) for a in c.arguments or []]
                members.append(
                    EnumConstant(
                        -1, c.name, args, None if c.body is None else self.class_body(c.body), annotations=notes
                    )
                )
            body = self.class_body(m.body.declarations)
            body.members[:0] = members
        else:
            body = self.class_body(m.body)
        return LocalClass(k, m.name, body, annotations, labels=())

    def annotations(self, annotations) -> list[Expr]:
        out: list[Expr] = []
        for a in annotations or []:
            self.pos(a)
            self.element(a.element, out)
        return out

    def element(self, value, out: list) -> None:
        if value is None:
            return
        if isinstance(value, list):
            for v in value:
                self.element(v, out)
        elif isinstance(value, jt.ElementValuePair):
            self.pos(value)
            self.element(value.value, out)
        elif isinstance(value, jt.ElementArrayValue):
            self.element(value.values, out)
        elif isinstance(value, jt.Annotation):
            self.pos(value)
            self.element(value.element, out)
        else:
            out.append(self.expr(value))

    # ----------------------------------------------------------- statements
    def stmts(self, stmts) -> list[Stmt]:
        return [self.stmt(s) for s in stmts or []]

    def stmt(self, s) -> Stmt:
        k = self.pos(s)
        labels = self.labels(k) if getattr(s, "label", None) else ()
        if isinstance(s, jt.LocalVariableDeclaration):
            annotations = self.annotations(s.annotations)
            return LocalVars(k, self.declarators(s), annotations, labels=labels)
        if isinstance(s, (jt.ClassDeclaration, jt.InterfaceDeclaration, jt.EnumDeclaration)):
            decl = self.type_decl(s)
            decl.labels = labels
            return decl
        if isinstance(s, jt.StatementExpression):
            return ExprStmt(k, self.expr(s.expression), labels=labels)
        if isinstance(s, jt.BlockStatement):
            return Block(k, self.stmts(s.statements), labels=labels)
        if isinstance(s, jt.IfStatement):
            return If(
                k,
                self.expr(s.condition),
                self.stmt(s.then_statement),
                None if s.else_statement is None else self.stmt(s.else_statement),
                labels=labels,
            )
        if isinstance(s, jt.WhileStatement):
            return While(k, self.expr(s.condition), self.stmt(s.body), labels=labels)
        if isinstance(s, jt.DoStatement):
            body = self.stmt(s.body)
            return Do(k, body, self.expr(s.condition), labels=labels)
        if isinstance(s, jt.ForStatement):
            return self.for_stmt(k, s, labels)
        if isinstance(s, jt.TryStatement):
            return self.try_stmt(k, s, labels)
        if isinstance(s, jt.SynchronizedStatement):
            return Sync(k, self.expr(s.lock), self.stmts(s.block), labels=labels)
        if isinstance(s, jt.SwitchStatement):
            expr = self.expr(s.expression)
            cases = []
            for c in s.cases or []:
                # ``case NAME:`` is kept as a string (an enum constant): no node
                case_labels = [self.expr(e) for e in c.case or [] if isinstance(e, javalang.ast.Node)]
                cases.append(Case(-1, case_labels, self.stmts(c.statements)))
            return Switch(k, expr, cases, labels=labels)
        if isinstance(s, jt.ReturnStatement):
            return Return(k, None if s.expression is None else self.expr(s.expression), labels=labels)
        if isinstance(s, jt.ThrowStatement):
            return Throw(k, self.expr(s.expression), labels=labels)
        if isinstance(s, jt.AssertStatement):
            return Assert(k, self.expr(s.condition), None if s.value is None else self.expr(s.value), labels=labels)
        if isinstance(s, (jt.BreakStatement, jt.ContinueStatement)):
            what = "break" if isinstance(s, jt.BreakStatement) else "continue"
            return Jump(k, what, s.goto, labels=labels)
        if type(s) is jt.Statement:
            return Empty(k, labels=labels)
        raise self.unsupported(f"statement {type(s).__name__}", k)

    def for_stmt(self, k: int, s, labels) -> Stmt:
        """A ``for`` loop at token ``k``: counted or over an iterable."""
        c = s.control
        if isinstance(c, jt.EnhancedForControl):
            (var,) = self.declarators(c.var)
            var.annotations = self.annotations(c.var.annotations)
            iterable = self.expr(c.iterable)
            return ForEach(k, var, iterable, self.stmt(s.body), labels=labels)
        if isinstance(c.init, jt.VariableDeclaration):
            init = self.declarators(c.init)
            init[0].annotations = self.annotations(c.init.annotations)
        else:
            init = [self.expr(e) for e in c.init or []]
        cond = None if c.condition is None else self.expr(c.condition)
        update = [self.expr(e) for e in c.update or []]
        return For(k, init, cond, update, self.stmt(s.body), labels=labels)

    def try_stmt(self, k: int, s, labels) -> Stmt:
        """A ``try`` statement at token ``k``, its resources and its catches."""
        resources = [self.resource(r) for r in s.resources or []]
        body = self.stmts(s.block)
        catches = []
        for c in s.catches or []:
            ck = self.pos(c)
            p = c.parameter
            notes = self.annotations(p.annotations)
            final = "final" in (p.modifiers or ())
            param = Decl(self.declared(p.name), p.name, "local", "reference", final, annotations=notes)
            catches.append(Catch(ck, param, self.stmts(c.block)))
        final_block = None if s.finally_block is None else self.stmts(s.finally_block)
        return Try(k, resources, body, catches, final_block, labels=labels)

    def declarators(self, s) -> list[Decl]:
        final = "final" in (s.modifiers or ())
        out = []
        for d in s.declarators:
            k = self.declared(d.name)
            kind = _type_kind(s.type, extra_dims=len(d.dimensions or ()))
            init = None if d.initializer is None else self.expr(d.initializer)
            out.append(Decl(k, d.name, "local", kind, final, init))
        return out

    def resource(self, r) -> Decl:
        notes = self.annotations(r.annotations)
        k = self.declared(r.name)
        return Decl(
            k,
            r.name,
            "local",
            _type_kind(r.type),
            "final" in (r.modifiers or ()),
            self.expr(r.value),
            annotations=notes,
        )

    # ---------------------------------------------------------- expressions
    def expr(self, e) -> Expr:
        if isinstance(e, jt.Assignment):
            target = self.expr(e.expressionl)
            return Assign(target.tok, target, e.type, self.expr(e.value))
        if isinstance(e, jt.TernaryExpression):
            cond = self.expr(e.condition)
            return Cond(cond.tok, cond, self.expr(e.if_true), self.expr(e.if_false))
        if isinstance(e, jt.BinaryOperation):
            left = self.expr(e.operandl)
            if e.operator == "instanceof":
                return InstanceOf(left.tok, left, None)
            return Binary(left.tok, e.operator, left, self.expr(e.operandr))
        if isinstance(e, jt.Cast):
            return Cast(-1, self.expr(e.expression))
        if isinstance(e, jt.LambdaExpression):
            if len(e.parameters or ()) == 1 and isinstance(e.parameters[0], jt.Cast):
                # ``(T) x -> …`` is read as a lambda of parameter ``(T) x``: a cast of the lambda
                cast = e.parameters[0]
                return Cast(-1, self.expr(jt.LambdaExpression(parameters=[cast.expression], body=e.body)))
            params = [self.lambda_param(p) for p in e.parameters or []]
            body = self.stmts(e.body) if isinstance(e.body, list) else self.expr(e.body)
            return Lambda(-1, params, body)
        if isinstance(e, jt.MethodReference):
            obj = self.expr(e.expression) if isinstance(e.expression, javalang.ast.Node) else None
            m = e.method
            k = self.pos(m) if isinstance(m, javalang.ast.Node) else -1
            name = getattr(m, "member", None) or getattr(m, "value", None) or "?"
            return MethodRef(k, obj, name)
        if isinstance(e, jt.Primary):
            return self.primary(e)
        if isinstance(e, jt.ArrayInitializer):
            return ArrayInit(-1, [self.expr(i) for i in e.initializers or []])
        raise UnsupportedError(f"expression {type(e).__name__}", line=0, col=0)

    def lambda_param(self, p) -> Decl:
        if isinstance(p, jt.MemberReference):
            return Decl(self.pos(p), p.member, "param", "unknown", bare=True)
        if (
            isinstance(p, Parenthesized)
            and isinstance(p.expression, jt.MemberReference)
            and not p.expression.qualifier
            and not p.expression.selectors
        ):
            return Decl(self.pos(p.expression), p.expression.member, "param", "unknown")  # ``(x) -> …``
        if isinstance(p, jt.InferredFormalParameter):
            return Decl(self.declared(p.name, inferred=True), p.name, "param", "unknown")
        if isinstance(p, jt.FormalParameter):
            return self.param(p)
        raise UnsupportedError(f"lambda parameter {type(p).__name__}", line=0, col=0)

    def primary(self, e) -> Expr:
        k = self.pos(e)
        qual = getattr(e, "qualifier", None) or ""
        if isinstance(e, Parenthesized):
            base: Expr = Paren(k, self.expr(e.expression))
        elif isinstance(e, jt.Literal):
            base = Literal(k)
        elif isinstance(e, jt.This):
            base = This(k, qual)
        elif isinstance(e, jt.MemberReference):
            base = Path(k, f"{qual}.{e.member}") if qual else Name(k, e.member)
        elif isinstance(e, jt.MethodInvocation):
            base = Call(k, None, qual, e.member, [self.expr(a) for a in e.arguments or []])
        elif isinstance(e, jt.SuperMethodInvocation):
            base = SuperRef(k, None, e.member, True, [self.expr(a) for a in e.arguments or []])
        elif isinstance(e, jt.SuperMemberReference):
            base = SuperRef(k, None, e.member, False, [])
        elif isinstance(e, (jt.ExplicitConstructorInvocation, jt.SuperConstructorInvocation)):
            what = "this" if isinstance(e, jt.ExplicitConstructorInvocation) else "super"
            base = CtorCall(k, what, None, [self.expr(a) for a in e.arguments or []])
        elif isinstance(e, (jt.ClassCreator, jt.InnerClassCreator)):
            base = self.creator(e, k, None, qual)
        elif isinstance(e, jt.ArrayCreator):
            dims = [self.expr(d) for d in e.dimensions or [] if d is not None]
            init = None if e.initializer is None else self.expr(e.initializer)
            base = NewArray(k, dims, init)
        elif isinstance(e, jt.ClassReference):
            base = ClassLit(k)
        else:
            raise self.unsupported(f"expression {type(e).__name__}", k)
        for s in e.selectors or []:
            sk = self.pos(s)
            if isinstance(s, jt.ArraySelector):
                base = Index(sk, base, self.expr(s.index))
            elif isinstance(s, jt.MethodInvocation):
                base = Call(sk, base, "", s.member, [self.expr(a) for a in s.arguments or []])
            elif isinstance(s, jt.MemberReference):
                base = Select(sk, base, s.member)
            elif isinstance(s, jt.SuperMethodInvocation):
                base = SuperRef(sk, base, s.member, True, [self.expr(a) for a in s.arguments or []])
            elif isinstance(s, jt.SuperMemberReference):
                base = SuperRef(sk, base, s.member, False, [])
            elif isinstance(s, (jt.ClassCreator, jt.InnerClassCreator)):
                base = self.creator(s, sk, base, "")
            elif isinstance(s, jt.SuperConstructorInvocation):  # ``Outer.this.super(…)``
                base = CtorCall(sk, "super", base, [self.expr(a) for a in s.arguments or []])
            else:
                raise self.unsupported(f"selector {type(s).__name__}", sk)
        for op in e.postfix_operators or []:
            base = IncDec(base.tok, base, op)
        for op in reversed(e.prefix_operators or []):
            base = IncDec(base.tok, base, op) if op in ("++", "--") else Unary(base.tok, op, base)
        return base

    def creator(self, e, k: int, outer, outer_qual: str) -> New:
        name = _type_name(e.type)
        if isinstance(e, jt.InnerClassCreator) and outer is None and not outer_qual:
            outer_qual = "?"  # an inner creator always has an outer instance
        args = [self.expr(a) for a in e.arguments or []]
        body = None if e.body is None else self.class_body(e.body)
        return New(k, name, outer, outer_qual, args, body)


__all__ = ["read"]
