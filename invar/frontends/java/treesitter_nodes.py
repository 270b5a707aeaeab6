"""tree-sitter-java's nodes into the neutral description (:mod:`.syntax`).

One method at a time, with the anchors :mod:`.javalang_parser` gives the same
constructs, so that the builder makes the same program from either parser.
Every node type of Java 17 that may stand in a method is read; a construct
invar does not analyse (a pattern in a ``switch`` label, a record pattern:
preview features in Java 17) raises a located
:class:`~invar.errors.UnsupportedError`.
"""

from __future__ import annotations

from bisect import bisect_left

from ...errors import UnsupportedError
from .syntax import (
    ArrayInit,
    Assert,
    Assign,
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
    If,
    IncDec,
    Index,
    Initializer,
    InstanceOf,
    Jump,
    Lambda,
    Literal,
    LocalClass,
    LocalVars,
    Method,
    MethodRef,
    Name,
    New,
    NewArray,
    Paren,
    Path,
    Return,
    Select,
    Stmt,
    SuperRef,
    Switch,
    SwitchExpr,
    Sync,
    This,
    Throw,
    Try,
    Unary,
    While,
    Yield,
    type_kind as syntax_type_kind,
)

#: named nodes that are one token: literals (text blocks included) keep
#: their inside (escapes, quotes, words) out of the token stream
LITERALS = frozenset(
    {
        "decimal_integer_literal",
        "hex_integer_literal",
        "octal_integer_literal",
        "binary_integer_literal",
        "decimal_floating_point_literal",
        "hex_floating_point_literal",
        "character_literal",
        "string_literal",
        "null_literal",
        "true",
        "false",
    }
)
COMMENTS = frozenset({"line_comment", "block_comment"})
TYPE_DECLS = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    }
)
METHODS = frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration"})
#: class bodies: their blocks are initializers, their fields name what they hold
BODIES = frozenset({"class_body", "interface_body", "enum_body_declarations", "annotation_type_body"})
PRIMITIVES = frozenset({"integral_type", "floating_point_type", "boolean_type"})
#: what tree-sitter-java wrongly puts under a postfix ``++``/``--`` (see
#: :meth:`Describer._e_update`): a cast and a prefix operator's expression
_PREFIXED = frozenset({"cast_expression", "unary_expression"})


def node_name(node) -> str:
    """The text of a declaration's ``name`` field."""
    n = node.child_by_field_name("name")
    return n.text.decode("utf-8") if n is not None else "?"


def node_text(node) -> str:
    return node.text.decode("utf-8")


class Describer:
    """Converts one tree-sitter method into the neutral description."""

    def __init__(self, reader) -> None:
        """``reader``: the file's :class:`~.treesitter_parser.Reader` (tokens,
        and the token each node starts at)."""
        self.r = reader
        self.ix = reader.ix

    def fail(self, what: str, node) -> UnsupportedError:
        line, col = self.r.position(node)
        return UnsupportedError(what, line=line, col=col)

    # -------------------------------------------------------------- members
    def unit(self, node) -> Method:
        """The description of unit ``node``, with the identifiers in type
        positions (:attr:`~.syntax.Method.types`) and, for a compact
        constructor, its record's components."""
        method = self.method(node)
        r = self.r
        types = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "type_identifier":
                types.add(r.tok(n))
            else:
                stack.extend(n.children)
        method.types = frozenset(types)
        if method.compact:
            record = node.parent.parent if node.parent is not None else None
            header = None if record is None else record.child_by_field_name("parameters")
            if header is not None:
                method.implicit = tuple(
                    r.tok(p.child_by_field_name("name")) for p in header.named_children if p.type == "formal_parameter"
                )
        return method

    def method(self, node) -> Method:
        mods, annotations = self.modifiers(node)
        params = []
        plist = node.child_by_field_name("parameters")
        if plist is not None:
            for p in plist.named_children:
                if p.type in ("formal_parameter", "spread_parameter"):
                    params.append(self.param(p))
                elif p.type == "receiver_parameter":
                    pass  # ``Outer this``: not a variable
                elif p.type not in COMMENTS:
                    raise self.fail(f"parameter {p.type}", p)
        body = node.child_by_field_name("body")
        stmts = None if body is None else self.block(body)
        return Method(
            self.r.anchor(node),
            node_name(node),
            mods,
            params,
            stmts,
            compact=node.type == "compact_constructor_declaration",
            annotations=annotations,
        )

    def modifiers(self, node) -> tuple[frozenset[str], list[Expr]]:
        mods: set[str] = set()
        annotations: list[Expr] = []
        for c in node.children:
            if c.type == "modifiers":
                for m in c.children:
                    if m.type in ("annotation", "marker_annotation"):
                        self.annotation(m, annotations)
                    elif m.type not in COMMENTS:
                        mods.add(node_text(m))
        return frozenset(mods), annotations

    def annotation(self, node, out: list) -> None:
        args = node.child_by_field_name("arguments")
        if args is not None:
            for c in args.named_children:
                self.element(c, out)

    def element(self, node, out: list) -> None:
        t = node.type
        if t in COMMENTS:
            return
        if t == "element_value_pair":
            self.element(node.child_by_field_name("value"), out)
        elif t == "element_value_array_initializer":
            for c in node.named_children:
                self.element(c, out)
        elif t in ("annotation", "marker_annotation"):
            self.annotation(node, out)
        else:
            out.append(self.expr(node))

    def param(self, p) -> Decl:
        mods, annotations = self.modifiers(p)
        if p.type == "spread_parameter":
            decl = next(c for c in p.named_children if c.type == "variable_declarator")
            name = decl.child_by_field_name("name")
            return Decl(self.r.tok(name), node_text(name), "param", "array", "final" in mods, annotations=annotations)
        name = p.child_by_field_name("name")
        dims = p.child_by_field_name("dimensions")
        kind = self.type_kind(p.child_by_field_name("type"), dims is not None)
        return Decl(self.r.tok(name), node_text(name), "param", kind, "final" in mods, annotations=annotations)

    def type_kind(self, typ, extra_dims: bool = False) -> str:
        if extra_dims:
            return "array"
        if typ is None:
            return "unknown"
        while typ.type == "annotated_type":
            typ = typ.named_children[-1]
        t = typ.type
        if t == "array_type":
            return "array"
        if t in PRIMITIVES:
            return "primitive"
        if t == "generic_type":
            typ = typ.named_children[0]
            t = typ.type
        if t == "scoped_type_identifier":
            typ = [c for c in typ.named_children if c.type == "type_identifier"][-1]
        return syntax_type_kind(dims=0, basic=False, name=node_text(typ))

    def class_body(self, node) -> ClassBody:
        members = []
        for c in node.named_children:
            t = c.type
            if t in COMMENTS:
                continue
            if t in METHODS:
                members.append(self.method(c))
            elif t in ("field_declaration", "constant_declaration"):
                mods, annotations = self.modifiers(c)
                inits = [
                    self.expr(d.child_by_field_name("value"))
                    for d in c.named_children
                    if d.type == "variable_declarator" and d.child_by_field_name("value") is not None
                ]
                members.append(Field(self.r.anchor(c), inits, annotations=annotations))
            elif t in TYPE_DECLS:
                members.append(self.type_decl(c))
            elif t == "block":
                members.append(Initializer(-1, self.block(c)))
            elif t == "static_initializer":
                members.append(Initializer(-1, self.block(c.named_children[-1])))
            elif t == "enum_body_declarations":
                members.extend(self.class_body(c).members)
            elif t == "enum_constant":
                _, notes = self.modifiers(c)
                args = c.child_by_field_name("arguments")
                body = c.child_by_field_name("body")
                members.append(
                    EnumConstant(
                        -1,
                        node_name(c),
                        [] if args is None else self.args(args),
                        None if body is None else self.class_body(body),
                        annotations=notes,
                    )
                )
            elif t == "annotation_type_element_declaration":
                value = c.child_by_field_name("value")
                if value is not None:
                    out: list = []
                    self.element(value, out)
                    members.append(Field(self.r.anchor(c), out))
            else:
                raise self.fail(f"{t} in a class body", c)
        brace = self.r.tok(node) if members else -1
        return ClassBody(brace, members)

    def type_decl(self, node) -> LocalClass:
        _, annotations = self.modifiers(node)
        body = node.child_by_field_name("body")
        return LocalClass(self.r.anchor(node), node_name(node), self.class_body(body), annotations)

    # ----------------------------------------------------------- statements
    def block(self, node) -> list[Stmt]:
        """The statements of a block, an empty one (``;``) included."""
        return [self.stmt(c) for c in node.children if (c.is_named or c.type == ";") and c.type not in COMMENTS]

    def stmt(self, node, labels: tuple[int, ...] = ()) -> Stmt:
        """The statement ``node`` (``labels``: the tokens of the labels
        before it), by its type (:data:`_STATEMENTS`)."""
        k = self.r.tok(node)
        if labels:
            k = labels[0]
        describe = _STATEMENTS.get(node.type)
        if describe is None:
            raise self.fail(f"statement {node.type}", node)
        return describe(self, node, k, labels)

    def _s_labeled(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        label = node.named_children[0]
        inner = [c for c in node.named_children[1:] if c.type not in COMMENTS]
        return self.stmt(inner[0], labels + (self.r.tok(label),))

    def _s_local_variable_declaration(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        mods, annotations = self.modifiers(node)
        k = labels[0] if labels else self.r.anchor(node)
        return LocalVars(k, self.declarators(node, "final" in mods), annotations, labels=labels)

    def _s_type_decl(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        decl = self.type_decl(node)
        decl.labels = labels
        if labels:
            decl.tok = labels[0]
        return decl

    def _s_expression(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        (e,) = [c for c in node.named_children if c.type not in COMMENTS]
        return ExprStmt(k, self.expr(e), labels=labels)

    def _s_explicit_constructor_invocation(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        return ExprStmt(k, self.expr(node), labels=labels)

    def _s_block(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        return Block(k, self.block(node), labels=labels)

    def _s_if(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        other = node.child_by_field_name("alternative")
        return If(
            k,
            self.cond(node.child_by_field_name("condition")),
            self.stmt(node.child_by_field_name("consequence")),
            None if other is None else self.stmt(other),
            labels=labels,
        )

    def _s_while(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        return While(
            k,
            self.cond(node.child_by_field_name("condition")),
            self.stmt(node.child_by_field_name("body")),
            labels=labels,
        )

    def _s_do(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        body = self.stmt(node.child_by_field_name("body"))
        return Do(k, body, self.cond(node.child_by_field_name("condition")), labels=labels)

    def _s_for(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        init: list = []
        for c in node.children_by_field_name("init"):
            if c.type == "local_variable_declaration":
                mods, annotations = self.modifiers(c)
                decls = self.declarators(c, "final" in mods)
                decls[0].annotations = annotations
                init.extend(decls)
            else:
                init.append(self.expr(c))
        cond = node.child_by_field_name("condition")
        update = [self.expr(c) for c in node.children_by_field_name("update")]
        return For(
            k,
            init,
            None if cond is None else self.expr(cond),
            update,
            self.stmt(node.child_by_field_name("body")),
            labels=labels,
        )

    def _s_enhanced_for(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        mods, annotations = self.modifiers(node)
        name = node.child_by_field_name("name")
        dims = node.child_by_field_name("dimensions")
        var = Decl(
            self.r.tok(name),
            node_text(name),
            "local",
            self.type_kind(node.child_by_field_name("type"), dims is not None),
            "final" in mods,
            annotations=annotations,
        )
        iterable = self.expr(node.child_by_field_name("value"))
        return ForEach(k, var, iterable, self.stmt(node.child_by_field_name("body")), labels=labels)

    def _s_try(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        r = self.r
        resources = []
        spec = node.child_by_field_name("resources")
        if spec is not None:
            for r in spec.named_children:
                if r.type == "resource":
                    resources.append(self.resource(r))
        body = self.block(node.child_by_field_name("body"))
        catches, final = [], None
        for c in node.named_children:
            if c.type == "catch_clause":
                p = next(x for x in c.named_children if x.type == "catch_formal_parameter")
                mods, annotations = self.modifiers(p)
                name = p.child_by_field_name("name")
                param = Decl(
                    self.r.tok(name), node_text(name), "local", "reference", "final" in mods, annotations=annotations
                )
                catches.append(Catch(-1, param, self.block(c.child_by_field_name("body"))))
            elif c.type == "finally_clause":
                final = self.block(c.named_children[-1])
        return Try(k, resources, body, catches, final, labels=labels)

    def _s_synchronized(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        lock = next(c for c in node.named_children if c.type == "parenthesized_expression")
        return Sync(k, self.cond(lock), self.block(node.child_by_field_name("body")), labels=labels)

    def _s_switch(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        return Switch(
            k,
            self.cond(node.child_by_field_name("condition")),
            self.cases(node.child_by_field_name("body")),
            labels=labels,
        )

    def _s_return(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        e = [c for c in node.named_children if c.type not in COMMENTS]
        return Return(k, self.expr(e[0]) if e else None, labels=labels)

    def _s_throw(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        (e,) = [c for c in node.named_children if c.type not in COMMENTS]
        return Throw(k, self.expr(e), labels=labels)

    def _s_assert(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        e = [c for c in node.named_children if c.type not in COMMENTS]
        return Assert(k, self.expr(e[0]), self.expr(e[1]) if len(e) > 1 else None, labels=labels)

    def _s_jump(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        t = node.type
        label = [c for c in node.named_children if c.type == "identifier"]
        return Jump(k, t.split("_")[0], node_text(label[0]) if label else None, labels=labels)

    def _s_yield(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        (e,) = [c for c in node.named_children if c.type not in COMMENTS]
        return Yield(k, self.expr(e), labels=labels)

    def _s_empty(self, node, k: int, labels: tuple[int, ...]) -> Stmt:
        return Empty(k, labels=labels)

    def cond(self, node) -> Expr:
        """The expression inside a statement's parentheses (javalang keeps no
        node for them)."""
        if node.type == "parenthesized_expression":
            (e,) = [c for c in node.named_children if c.type not in COMMENTS]
            return self.expr(e)
        return self.expr(node)

    def declarators(self, node, final: bool) -> list[Decl]:
        typ = node.child_by_field_name("type")
        out = []
        for d in node.children_by_field_name("declarator"):
            name = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            kind = self.type_kind(typ, d.child_by_field_name("dimensions") is not None)
            out.append(
                Decl(
                    self.r.tok(name), node_text(name), "local", kind, final, None if value is None else self.expr(value)
                )
            )
        return out

    def resource(self, r) -> Decl | Expr:
        name = r.child_by_field_name("name")
        if name is None:  # ``try (existing)``: a variable or field named, not declared
            (e,) = [c for c in r.named_children if c.type not in COMMENTS]
            return self.expr(e)
        mods, annotations = self.modifiers(r)
        dims = r.child_by_field_name("dimensions")
        return Decl(
            self.r.tok(name),
            node_text(name),
            "local",
            self.type_kind(r.child_by_field_name("type"), dims is not None),
            "final" in mods,
            self.expr(r.child_by_field_name("value")),
            annotations=annotations,
        )

    def cases(self, block) -> list[Case]:
        out = []
        for c in block.named_children:
            if c.type in COMMENTS:
                continue
            values: list[Expr] = []
            body: list[Stmt] = []
            for x in c.children:
                if x.type == "switch_label":
                    for v in x.named_children:
                        if v.type in COMMENTS:
                            continue
                        if v.type in ("pattern", "type_pattern", "record_pattern", "guard", "underscore_pattern"):
                            raise self.fail("a pattern in a switch label", v)
                        if v.type != "identifier":  # an enum constant names no value
                            values.append(self.expr(v))
                elif (x.is_named or x.type == ";") and x.type not in COMMENTS:
                    body.append(self.stmt(x))
            out.append(Case(-1, values, body, arrow=c.type == "switch_rule"))
        return out

    # ---------------------------------------------------------- expressions
    def args(self, node) -> list[Expr]:
        return [self.expr(c) for c in node.named_children if c.type not in COMMENTS]

    def path(self, node) -> str | None:
        """``a.b.c`` when ``node`` is a dotted name (identifiers only)."""
        parts = []
        while node.type == "field_access":
            field = node.child_by_field_name("field")
            if field.type != "identifier":
                return None
            parts.append(node_text(field))
            node = node.child_by_field_name("object")
        if node.type != "identifier":
            return None
        parts.append(node_text(node))
        return ".".join(reversed(parts))

    def head(self, node) -> int:
        """The token of a dotted name's first identifier."""
        while node.type == "field_access":
            node = node.child_by_field_name("object")
        return self.r.tok(node)

    def dot(self, node) -> int:
        """The ``.`` token of a field access or method invocation."""
        for c in node.children:
            if c.type == ".":
                return self.r.tok(c)
        return -1

    def expr(self, node) -> Expr:
        e = self._expr(node)
        r = self.r
        e.span = (r.tok(node), bisect_left(r.starts, node.end_byte) - 1)
        return e

    def _expr(self, node) -> Expr:
        describe = _EXPRESSIONS.get(node.type)
        if describe is None:
            raise self.fail(f"expression {node.type}", node)
        return describe(self, node)

    def _e_identifier(self, node) -> Expr:
        r = self.r
        return Name(r.tok(node), node_text(node))

    def _e_field_access(self, node) -> Expr:
        dotted = self.path(node)
        if dotted is not None:
            return Path(self.head(node), dotted)
        obj = node.child_by_field_name("object")
        field = node.child_by_field_name("field")
        if field.type == "this":  # Outer.this
            q = self.path(obj)
            if q is None:
                raise self.fail("a qualified this", node)
            return This(self.head(obj), q)
        if obj.type == "super":
            return SuperRef(-1, None, node_text(field), False, [])
        if any(c.type == "super" for c in node.children[1:]):  # X.super.f
            return SuperRef(self.dot(node), self.expr(obj), node_text(field), False, [])
        return Select(self.dot(node), self.expr(obj), node_text(field))

    def _e_method_invocation(self, node) -> Expr:
        r = self.r
        obj = node.child_by_field_name("object")
        name = node_text(node.child_by_field_name("name"))
        args = self.args(node.child_by_field_name("arguments"))
        if obj is None:
            return Call(r.tok(node), None, "", name, args)
        if obj.type == "super":
            return SuperRef(-1, None, name, True, args)
        if any(c.type == "super" for c in node.children[1:]):  # X.super.m(…)
            return SuperRef(self.dot(node), self.expr(obj), name, True, args)
        dotted = self.path(obj)
        if dotted is not None:
            return Call(self.head(obj), None, dotted, name, args)
        return Call(self.dot(node), self.expr(obj), "", name, args)

    def _e_explicit_constructor_invocation(self, node) -> Expr:
        ctor = node.child_by_field_name("constructor")
        obj = node.child_by_field_name("object")
        # ``a.b.super(…)`` names its outer instance (no node, as javalang
        # keeps it); ``this.x.super(…)``, ``f().super(…)`` compute it
        outer = None if obj is None or self.path(obj) is not None else self.expr(obj)
        return CtorCall(-1, node_text(ctor), outer, self.args(node.child_by_field_name("arguments")))

    def _e_object_creation(self, node) -> Expr:
        return self.creation(node)

    def _e_array_creation(self, node) -> Expr:
        dims = []
        for c in node.children_by_field_name("dimensions"):
            if c.type == "dimensions_expr":
                dims.extend(self.expr(x) for x in c.named_children if x.type not in COMMENTS)
        value = node.child_by_field_name("value")
        return NewArray(-1, dims, None if value is None else self.expr(value))

    def _e_array_initializer(self, node) -> Expr:
        return ArrayInit(-1, [self.expr(c) for c in node.named_children if c.type not in COMMENTS])

    def _e_array_access(self, node) -> Expr:
        r = self.r
        array = self.expr(node.child_by_field_name("array"))
        bracket = next(c for c in node.children if c.type == "[")
        return Index(r.tok(bracket), array, self.expr(node.child_by_field_name("index")))

    def _e_cast(self, node) -> Expr:
        return Cast(-1, self.expr(node.child_by_field_name("value")))

    def _e_assignment(self, node) -> Expr:
        target = self.expr(node.child_by_field_name("left"))
        op = node_text(node.child_by_field_name("operator"))
        return Assign(target.tok, target, op, self.expr(node.child_by_field_name("right")))

    def _e_update(self, node) -> Expr:
        (e,) = [c for c in node.named_children if c.type not in COMMENTS]
        sign = next(c for c in node.children if c.type in ("++", "--"))
        op = node_text(sign)
        if sign.start_byte > e.start_byte and e.type in _PREFIXED:
            # tree-sitter-java reads ``(long) i++`` as ``((long) i)++`` and
            # ``-~k++`` as ``(-~k)++``; in Java a postfix operator binds
            # tighter than every cast and prefix operator (JLS 15.14, 15.15):
            # the update goes to the operand under them
            return self._prefixed(e, op, self.r.tok(sign))
        target = self.expr(e)
        return IncDec(target.tok, target, op)

    def _prefixed(self, node, op: str, last: int) -> Expr:
        """The cast or prefix-operator expression ``node`` with the postfix
        ``op`` (its token ``last``) applied to its innermost operand."""
        if node.type == "cast_expression":
            out: Expr = Cast(-1, self._updated(node.child_by_field_name("value"), op, last))
        else:
            operand = self._updated(node.child_by_field_name("operand"), op, last)
            out = Unary(operand.tok, node_text(node.child_by_field_name("operator")), operand)
        out.span = (self.r.tok(node), last)
        return out

    def _updated(self, node, op: str, last: int) -> Expr:
        """``node`` with the postfix ``op`` applied (see :meth:`_prefixed`)."""
        if node.type in _PREFIXED:
            return self._prefixed(node, op, last)
        target = self.expr(node)
        out = IncDec(target.tok, target, op)
        out.span = (target.span[0], last)
        return out

    def _e_unary(self, node) -> Expr:
        operand = self.expr(node.child_by_field_name("operand"))
        return Unary(operand.tok, node_text(node.child_by_field_name("operator")), operand)

    def _e_binary(self, node) -> Expr:
        left = self.expr(node.child_by_field_name("left"))
        return Binary(
            left.tok,
            node_text(node.child_by_field_name("operator")),
            left,
            self.expr(node.child_by_field_name("right")),
        )

    def _e_instanceof(self, node) -> Expr:
        r = self.r
        left = self.expr(node.child_by_field_name("left"))
        name = node.child_by_field_name("name")
        pattern = node.child_by_field_name("pattern")
        if pattern is not None:
            raise self.fail("a record pattern", pattern)
        decl = None
        if name is not None:
            final = any(c.type == "final" for c in node.children)
            kind = self.type_kind(node.child_by_field_name("right"))
            decl = Decl(r.tok(name), node_text(name), "local", kind, final)
        return InstanceOf(left.tok, left, decl)

    def _e_ternary(self, node) -> Expr:
        cond = self.expr(node.child_by_field_name("condition"))
        return Cond(
            cond.tok,
            cond,
            self.expr(node.child_by_field_name("consequence")),
            self.expr(node.child_by_field_name("alternative")),
        )

    def _e_lambda(self, node) -> Expr:
        r = self.r
        params_node = node.child_by_field_name("parameters")
        params = []
        if params_node.type == "identifier":
            params.append(Decl(r.tok(params_node), node_text(params_node), "param", "unknown", bare=True))
        elif params_node.type == "inferred_parameters":
            params.extend(
                Decl(r.tok(c), node_text(c), "param", "unknown")
                for c in params_node.named_children
                if c.type == "identifier"
            )
        else:
            for p in params_node.named_children:
                if p.type in ("formal_parameter", "spread_parameter"):
                    params.append(self.param(p))
                elif p.type not in COMMENTS:
                    raise self.fail(f"lambda parameter {p.type}", p)
        body = node.child_by_field_name("body")
        return Lambda(-1, params, self.block(body) if body.type == "block" else self.expr(body))

    def _e_method_reference(self, node) -> Expr:
        r = self.r
        parts = [c for c in node.children if c.type not in COMMENTS]
        first, last = parts[0], parts[-1]
        if first.type in (
            "identifier",
            "field_access",
            "this",
            "method_invocation",
            "parenthesized_expression",
            "array_access",
            "object_creation_expression",
            "string_literal",
            "cast_expression",
        ):
            obj = self.expr(first)
        else:
            obj = None  # a type, or ``super``
        if last.type == "new":
            return MethodRef(-1, obj, "new")
        return MethodRef(r.tok(last), obj, node_text(last))

    def _e_this(self, node) -> Expr:
        return This(-1, "")

    def _e_parenthesized(self, node) -> Expr:
        (e,) = [c for c in node.named_children if c.type not in COMMENTS]
        return Paren(-1, self.expr(e))

    def _e_literal(self, node) -> Expr:
        r = self.r
        return Literal(r.tok(node))

    def _e_class_literal(self, node) -> Expr:
        r = self.r
        return ClassLit(r.tok(node))

    def _e_switch(self, node) -> Expr:
        r = self.r
        return SwitchExpr(
            r.tok(node), self.cond(node.child_by_field_name("condition")), self.cases(node.child_by_field_name("body"))
        )

    def creation(self, node) -> New:
        children = [c for c in node.children if c.type not in COMMENTS]
        outer, outer_qual = None, ""
        if children[0].type != "new":  # outer.new T(…)
            dotted = self.path(children[0])
            if dotted is not None:
                outer_qual = dotted
            else:
                outer = self.expr(children[0])
        typ = node.child_by_field_name("type")
        while typ.type == "annotated_type":
            typ = typ.named_children[-1]
        if typ.type == "generic_type":
            typ = typ.named_children[0]
        name = ".".join(node_text(c) for c in _type_parts(typ))
        args = self.args(node.child_by_field_name("arguments"))
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        k = self.head(children[0]) if outer_qual else -1
        return New(k, name, outer, outer_qual, args, None if body is None else self.class_body(body))


def _type_parts(typ) -> list:
    """The identifiers of a (scoped) type name, outermost first."""
    if typ.type == "scoped_type_identifier":
        out = []
        for c in typ.named_children:
            if c.type == "generic_type":
                out.extend(_type_parts(c.named_children[0]))
            elif c.type in ("scoped_type_identifier", "type_identifier"):
                out.extend(_type_parts(c))
        return out
    return [typ]


__all__ = [
    "Describer",
    "node_name",
    "node_text",
    "BODIES",
    "COMMENTS",
    "LITERALS",
    "METHODS",
    "TYPE_DECLS",
    "PRIMITIVES",
]


#: tree-sitter's statement types -> how each is described
_STATEMENTS = {
    "labeled_statement": Describer._s_labeled,
    "local_variable_declaration": Describer._s_local_variable_declaration,
    **dict.fromkeys(TYPE_DECLS, Describer._s_type_decl),
    "expression_statement": Describer._s_expression,
    "explicit_constructor_invocation": Describer._s_explicit_constructor_invocation,
    "block": Describer._s_block,
    "constructor_body": Describer._s_block,
    "if_statement": Describer._s_if,
    "while_statement": Describer._s_while,
    "do_statement": Describer._s_do,
    "for_statement": Describer._s_for,
    "enhanced_for_statement": Describer._s_enhanced_for,
    "try_statement": Describer._s_try,
    "try_with_resources_statement": Describer._s_try,
    "synchronized_statement": Describer._s_synchronized,
    "switch_expression": Describer._s_switch,
    "return_statement": Describer._s_return,
    "throw_statement": Describer._s_throw,
    "assert_statement": Describer._s_assert,
    "break_statement": Describer._s_jump,
    "continue_statement": Describer._s_jump,
    "yield_statement": Describer._s_yield,
    ";": Describer._s_empty,
}

#: tree-sitter's expression types -> how each is described
_EXPRESSIONS = {
    "identifier": Describer._e_identifier,
    "field_access": Describer._e_field_access,
    "method_invocation": Describer._e_method_invocation,
    "explicit_constructor_invocation": Describer._e_explicit_constructor_invocation,
    "object_creation_expression": Describer._e_object_creation,
    "array_creation_expression": Describer._e_array_creation,
    "array_initializer": Describer._e_array_initializer,
    "array_access": Describer._e_array_access,
    "cast_expression": Describer._e_cast,
    "assignment_expression": Describer._e_assignment,
    "update_expression": Describer._e_update,
    "unary_expression": Describer._e_unary,
    "binary_expression": Describer._e_binary,
    "instanceof_expression": Describer._e_instanceof,
    "ternary_expression": Describer._e_ternary,
    "lambda_expression": Describer._e_lambda,
    "method_reference": Describer._e_method_reference,
    "this": Describer._e_this,
    "parenthesized_expression": Describer._e_parenthesized,
    **dict.fromkeys(LITERALS, Describer._e_literal),
    "class_literal": Describer._e_class_literal,
    "switch_expression": Describer._e_switch,
}
