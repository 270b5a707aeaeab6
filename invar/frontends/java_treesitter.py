"""The tree-sitter path: Java 17 source into the neutral description.

Files ``javalang`` cannot read (``var``, switch expressions and ``yield``,
records, text blocks, ``instanceof`` patterns, sealed classes, intersection
casts …) are parsed with ``tree-sitter-java`` into the same
:class:`~.java_syntax.Tokens` and :class:`~.java_syntax.Method` descriptions
that :mod:`.java_javalang` produces from a file it can read, with the same
anchors, so one builder makes the same programs from either.

tree-sitter recovers from syntax errors instead of stopping at the first:
a method whose text holds an error is skipped alone, with the error's
location; an error outside every method fails the file.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Callable

from ..errors import ParseError, UnsupportedError
from . import java_syntax as js

#: named nodes that are one token: literals (text blocks included) keep
#: their inside (escapes, quotes, words) out of the token stream
_LITERALS = frozenset({
    "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal",
    "decimal_floating_point_literal", "hex_floating_point_literal", "character_literal", "string_literal",
    "null_literal", "true", "false",
})
_COMMENTS = frozenset({"line_comment", "block_comment"})
_TYPE_DECLS = frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
                         "annotation_type_declaration"})
_METHODS = frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration"})
#: class bodies: their blocks are initializers, their fields name what they hold
_BODIES = frozenset({"class_body", "interface_body", "enum_body_declarations", "annotation_type_body"})
_PRIMITIVES = frozenset({"integral_type", "floating_point_type", "boolean_type"})
_STATEMENTS_WITH_PARENS = frozenset({"if_statement", "while_statement", "do_statement", "switch_expression",
                                     "synchronized_statement"})


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_java

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))


def _is_identifier(text: str) -> bool:
    return (text[:1].isalpha() or text[:1] in "_$") and all(c.isalnum() or c in "_$" for c in text)


# -------------------------------------------------------------------- read
def read(text: str, path: str | None = None, fallback: ParseError | None = None):
    """The tokens of ``text`` and its methods with bodies, as
    :func:`.java_javalang.read` returns them. ``fallback`` is javalang's error
    on the same text: where tree-sitter finds an error outside every method,
    that error is raised (its message says what was expected); inside a
    method it names the error when it falls in that method."""
    data = text.encode("utf-8")
    tree = _parser().parse(data)
    reader = _Reader(text, data, tree.root_node)
    units = reader.units(tree.root_node)
    if tree.root_node.has_error:
        bad = reader.first_error(tree.root_node, {_key(n) for _, n, _ in units})
        if bad is not None:
            if fallback is not None:
                raise fallback
            raise reader.error(bad, path)
    out = []
    for names, node, _ in units:
        k = reader.anchor(node)
        line, col = reader.ix.line_of[k], reader.ix.col_of[k] + 1
        if node.has_error:
            describe = reader.failing(node, path, fallback)
        else:
            describe = (lambda node=node: _Describer(reader).method(node))
        out.append((names, line, col, describe))
    return reader.ix, out


class _Reader:
    """The file's tokens, with the map from a node's start to its token."""

    def __init__(self, text: str, data: bytes, root) -> None:
        self.text = text
        self.data = data
        lines = text.split("\n")
        starts = [0]
        for raw in data.split(b"\n")[:-1]:
            starts.append(starts[-1] + len(raw) + 1)
        self.line_starts = starts  # byte offset of each line
        values, kinds, line_of, col_of = [], [], [], []
        self.at: dict[int, int] = {}  # start byte -> token index
        stack = [root]
        while stack:
            node = stack.pop()
            t = node.type
            if t in _COMMENTS:
                continue
            if node.child_count == 0 or t in _LITERALS:
                if node.start_byte == node.end_byte:
                    continue  # a token tree-sitter supplied (MISSING)
                value = data[node.start_byte:node.end_byte].decode("utf-8")
                self.at[node.start_byte] = len(values)
                values.append(value)
                row, col = node.start_point
                line = lines[row]
                if not line.isascii():
                    col = len(data[starts[row]:starts[row] + col].decode("utf-8", "replace"))
                line_of.append(row + 1)
                col_of.append(col)
                if t in _LITERALS:
                    kinds.append(js.LITERAL)
                elif value in js.BASIC_TYPES:
                    kinds.append(js.BASIC)
                elif value in js.KEYWORDS:
                    kinds.append(js.KEYWORD)
                elif _is_identifier(value):
                    kinds.append(js.IDENT)
                else:
                    kinds.append(js.OP)
                continue
            stack.extend(reversed(node.children))
        self.ix = js.Tokens(lines, values, kinds, line_of, col_of)
        #: start byte of every token, in order
        self.starts = sorted(self.at)

    def tok(self, node) -> int:
        """The token a node starts at."""
        k = self.at.get(node.start_byte)
        if k is None:  # a comment first: the node's first token after it
            k = bisect_left(self.starts, node.start_byte)
            if k >= len(self.starts) or self.starts[k] >= node.end_byte:
                raise UnsupportedError(f"no token in {node.type}", line=node.start_point[0] + 1,
                                       col=node.start_point[1] + 1)
        return k

    def anchor(self, node) -> int:
        """The first token after a declaration's modifiers (javalang's position
        of a member or a local declaration)."""
        for c in node.children:
            if c.type != "modifiers" and c.type not in _COMMENTS:
                return self.tok(c)
        return self.tok(node)

    # ----------------------------------------------------------------- units
    def units(self, root) -> list[tuple[tuple[str, ...], object, str]]:
        """Every method with a body declared in a named type, an enum
        constant's body, or a class body that stands outside every method
        (an anonymous class in a field's initializer): ``(names, node,
        kind)``, in source order."""
        out: list = []
        stack: list[tuple[object, tuple[str, ...]]] = [(root, ())]
        while stack:
            node, names = stack.pop()
            found = []
            members = node.type in _BODIES
            for c in node.children:
                t = c.type
                if t in _METHODS:
                    if c.child_by_field_name("body") is not None:
                        out.append((names + (_name(c),), c, t))
                elif t in _TYPE_DECLS or t == "enum_constant":
                    found.append((c, names + (_name(c),)))
                elif members and t in ("field_declaration", "constant_declaration"):
                    for d in c.children:
                        if d.type == "variable_declarator":
                            found.append((d, names + (_name(d),)))
                elif members and t == "static_initializer":
                    found.append((c, names + ("<clinit>",)))
                elif members and t == "block":
                    found.append((c, names + ("<init>",)))
                elif c.child_count:
                    found.append((c, names))
            stack.extend(reversed(found))
        out.sort(key=lambda u: u[1].start_byte)
        return out

    def first_error(self, root, units: set[int]):
        """The first syntax error outside every unit, or None."""
        stack = [root]
        while stack:
            node = stack.pop()
            if _key(node) in units:
                continue
            if node.is_error or node.is_missing:
                return node
            stack.extend(c for c in reversed(node.children) if c.has_error or c.is_missing)
        return None

    def error(self, node, path: str | None) -> ParseError:
        line, col = node.start_point[0] + 1, node.start_point[1] + 1
        if node.is_missing:
            what = f"expected {node.type!r}"
        else:
            got = self.data[node.start_byte:node.end_byte].decode("utf-8", "replace").split()
            what = f"unexpected {got[0][:40]!r}" if got else "unexpected input"
        lines = self.ix.lines
        return ParseError(f"syntax error: {what}", path=path, line=line, col=col,
                          source_line=lines[line - 1] if 0 < line <= len(lines) else None)

    def failing(self, unit, path: str | None, fallback: ParseError | None) -> Callable[[], js.Method]:
        """A describer for a unit whose text holds a syntax error: it raises
        that error (javalang's, when javalang stopped inside this unit)."""
        first, last = unit.start_point[0] + 1, unit.end_point[0] + 1

        def fail():
            if fallback is not None and fallback.line is not None and first <= fallback.line <= last:
                raise fallback
            raise self.error(self.first_error(unit, set()) or unit, path)

        return fail


def _key(node) -> tuple[int, int, str]:
    """A node's identity (tree-sitter makes a new wrapper on every access)."""
    return node.start_byte, node.end_byte, node.type


def _name(node) -> str:
    n = node.child_by_field_name("name")
    return n.text.decode("utf-8") if n is not None else "?"


def _text(node) -> str:
    return node.text.decode("utf-8")


# ---------------------------------------------------------------- describe
class _Describer:
    """Converts one tree-sitter method into the neutral description."""

    def __init__(self, reader: _Reader) -> None:
        self.r = reader
        self.ix = reader.ix

    def fail(self, what: str, node) -> UnsupportedError:
        return UnsupportedError(what, line=node.start_point[0] + 1, col=node.start_point[1] + 1)

    # -------------------------------------------------------------- members
    def method(self, node) -> js.Method:
        mods, annotations = self.modifiers(node)
        params = []
        plist = node.child_by_field_name("parameters")
        if plist is not None:
            for p in plist.named_children:
                if p.type in ("formal_parameter", "spread_parameter"):
                    params.append(self.param(p))
                elif p.type == "receiver_parameter":
                    pass  # ``Outer this``: not a variable
                elif p.type not in _COMMENTS:
                    raise self.fail(f"parameter {p.type}", p)
        body = node.child_by_field_name("body")
        stmts = None if body is None else self.block(body)
        return js.Method(self.r.anchor(node), _name(node), mods, params, stmts,
                         compact=node.type == "compact_constructor_declaration", annotations=annotations)

    def modifiers(self, node) -> tuple[frozenset[str], list[js.Expr]]:
        mods: set[str] = set()
        annotations: list[js.Expr] = []
        for c in node.children:
            if c.type == "modifiers":
                for m in c.children:
                    if m.type in ("annotation", "marker_annotation"):
                        self.annotation(m, annotations)
                    elif m.type not in _COMMENTS:
                        mods.add(_text(m))
        return frozenset(mods), annotations

    def annotation(self, node, out: list) -> None:
        args = node.child_by_field_name("arguments")
        if args is not None:
            for c in args.named_children:
                self.element(c, out)

    def element(self, node, out: list) -> None:
        t = node.type
        if t in _COMMENTS:
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

    def param(self, p) -> js.Decl:
        mods, annotations = self.modifiers(p)
        if p.type == "spread_parameter":
            decl = next(c for c in p.named_children if c.type == "variable_declarator")
            name = decl.child_by_field_name("name")
            return js.Decl(self.r.tok(name), _text(name), "param", "array", "final" in mods, annotations=annotations)
        name = p.child_by_field_name("name")
        dims = p.child_by_field_name("dimensions")
        kind = self.type_kind(p.child_by_field_name("type"), dims is not None)
        return js.Decl(self.r.tok(name), _text(name), "param", kind, "final" in mods, annotations=annotations)

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
        if t in _PRIMITIVES:
            return "primitive"
        if t == "generic_type":
            typ = typ.named_children[0]
            t = typ.type
        if t == "scoped_type_identifier":
            typ = [c for c in typ.named_children if c.type == "type_identifier"][-1]
        return js.type_kind(dims=0, basic=False, name=_text(typ))

    def class_body(self, node) -> js.ClassBody:
        members = []
        for c in node.named_children:
            t = c.type
            if t in _COMMENTS:
                continue
            if t in _METHODS:
                members.append(self.method(c))
            elif t in ("field_declaration", "constant_declaration"):
                mods, annotations = self.modifiers(c)
                inits = [self.expr(d.child_by_field_name("value")) for d in c.named_children
                         if d.type == "variable_declarator" and d.child_by_field_name("value") is not None]
                members.append(js.Field(self.r.anchor(c), inits, annotations=annotations))
            elif t in _TYPE_DECLS:
                members.append(self.type_decl(c))
            elif t == "block":
                members.append(js.Initializer(-1, self.block(c)))
            elif t == "static_initializer":
                members.append(js.Initializer(-1, self.block(c.named_children[-1])))
            elif t == "enum_body_declarations":
                members.extend(self.class_body(c).members)
            elif t == "enum_constant":
                _, notes = self.modifiers(c)
                args = c.child_by_field_name("arguments")
                body = c.child_by_field_name("body")
                members.append(js.EnumConstant(-1, _name(c), [] if args is None else self.args(args),
                                               None if body is None else self.class_body(body), annotations=notes))
            elif t == "annotation_type_element_declaration":
                value = c.child_by_field_name("value")
                if value is not None:
                    out: list = []
                    self.element(value, out)
                    members.append(js.Field(self.r.anchor(c), out))
            else:
                raise self.fail(f"{t} in a class body", c)
        brace = self.r.tok(node) if members else -1
        return js.ClassBody(brace, members)

    def type_decl(self, node) -> js.LocalClass:
        _, annotations = self.modifiers(node)
        body = node.child_by_field_name("body")
        return js.LocalClass(self.r.anchor(node), _name(node), self.class_body(body), annotations)

    # ----------------------------------------------------------- statements
    def block(self, node) -> list[js.Stmt]:
        """The statements of a block, an empty one (``;``) included."""
        return [self.stmt(c) for c in node.children if (c.is_named or c.type == ";") and c.type not in _COMMENTS]

    def stmt(self, node, labels: tuple[int, ...] = ()) -> js.Stmt:
        t = node.type
        k = self.r.tok(node)
        if labels:
            k = labels[0]
        if t == "labeled_statement":
            label = node.named_children[0]
            inner = [c for c in node.named_children[1:] if c.type not in _COMMENTS]
            return self.stmt(inner[0], labels + (self.r.tok(label),))
        if t == "local_variable_declaration":
            mods, annotations = self.modifiers(node)
            k = labels[0] if labels else self.r.anchor(node)
            return js.LocalVars(k, self.declarators(node, "final" in mods), annotations, labels=labels)
        if t in _TYPE_DECLS:
            decl = self.type_decl(node)
            decl.labels = labels
            if labels:
                decl.tok = labels[0]
            return decl
        if t == "expression_statement":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.ExprStmt(k, self.expr(e), labels=labels)
        if t == "explicit_constructor_invocation":
            return js.ExprStmt(k, self.expr(node), labels=labels)
        if t in ("block", "constructor_body"):
            return js.Block(k, self.block(node), labels=labels)
        if t == "if_statement":
            other = node.child_by_field_name("alternative")
            return js.If(k, self.cond(node.child_by_field_name("condition")),
                         self.stmt(node.child_by_field_name("consequence")),
                         None if other is None else self.stmt(other), labels=labels)
        if t == "while_statement":
            return js.While(k, self.cond(node.child_by_field_name("condition")),
                            self.stmt(node.child_by_field_name("body")), labels=labels)
        if t == "do_statement":
            body = self.stmt(node.child_by_field_name("body"))
            return js.Do(k, body, self.cond(node.child_by_field_name("condition")), labels=labels)
        if t == "for_statement":
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
            return js.For(k, init, None if cond is None else self.expr(cond), update,
                          self.stmt(node.child_by_field_name("body")), labels=labels)
        if t == "enhanced_for_statement":
            mods, annotations = self.modifiers(node)
            name = node.child_by_field_name("name")
            dims = node.child_by_field_name("dimensions")
            var = js.Decl(self.r.tok(name), _text(name), "local",
                          self.type_kind(node.child_by_field_name("type"), dims is not None), "final" in mods,
                          annotations=annotations)
            iterable = self.expr(node.child_by_field_name("value"))
            return js.ForEach(k, var, iterable, self.stmt(node.child_by_field_name("body")), labels=labels)
        if t in ("try_statement", "try_with_resources_statement"):
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
                    param = js.Decl(self.r.tok(name), _text(name), "local", "reference", "final" in mods,
                                    annotations=annotations)
                    catches.append(js.Catch(-1, param, self.block(c.child_by_field_name("body"))))
                elif c.type == "finally_clause":
                    final = self.block(c.named_children[-1])
            return js.Try(k, resources, body, catches, final, labels=labels)
        if t == "synchronized_statement":
            lock = next(c for c in node.named_children if c.type == "parenthesized_expression")
            return js.Sync(k, self.cond(lock), self.block(node.child_by_field_name("body")), labels=labels)
        if t == "switch_expression":
            return js.Switch(k, self.cond(node.child_by_field_name("condition")),
                             self.cases(node.child_by_field_name("body")), labels=labels)
        if t == "return_statement":
            e = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.Return(k, self.expr(e[0]) if e else None, labels=labels)
        if t == "throw_statement":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.Throw(k, self.expr(e), labels=labels)
        if t == "assert_statement":
            e = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.Assert(k, self.expr(e[0]), self.expr(e[1]) if len(e) > 1 else None, labels=labels)
        if t in ("break_statement", "continue_statement"):
            label = [c for c in node.named_children if c.type == "identifier"]
            return js.Jump(k, t.split("_")[0], _text(label[0]) if label else None, labels=labels)
        if t == "yield_statement":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.Yield(k, self.expr(e), labels=labels)
        if t == ";":
            return js.Empty(k, labels=labels)
        raise self.fail(f"statement {t}", node)

    def cond(self, node) -> js.Expr:
        """The expression inside a statement's parentheses (javalang keeps no
        node for them)."""
        if node.type == "parenthesized_expression":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            return self.expr(e)
        return self.expr(node)

    def declarators(self, node, final: bool) -> list[js.Decl]:
        typ = node.child_by_field_name("type")
        out = []
        for d in node.children_by_field_name("declarator"):
            name = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            kind = self.type_kind(typ, d.child_by_field_name("dimensions") is not None)
            out.append(js.Decl(self.r.tok(name), _text(name), "local", kind, final,
                               None if value is None else self.expr(value)))
        return out

    def resource(self, r) -> js.Decl | js.Expr:
        name = r.child_by_field_name("name")
        if name is None:  # ``try (existing)``: a variable or field named, not declared
            (e,) = [c for c in r.named_children if c.type not in _COMMENTS]
            return self.expr(e)
        mods, annotations = self.modifiers(r)
        dims = r.child_by_field_name("dimensions")
        return js.Decl(self.r.tok(name), _text(name), "local", self.type_kind(r.child_by_field_name("type"),
                       dims is not None), "final" in mods, self.expr(r.child_by_field_name("value")),
                       annotations=annotations)

    def cases(self, block) -> list[js.Case]:
        out = []
        for c in block.named_children:
            if c.type in _COMMENTS:
                continue
            values: list[js.Expr] = []
            body: list[js.Stmt] = []
            for x in c.children:
                if x.type == "switch_label":
                    for v in x.named_children:
                        if v.type in _COMMENTS:
                            continue
                        if v.type in ("pattern", "type_pattern", "record_pattern", "guard", "underscore_pattern"):
                            raise self.fail("a pattern in a switch label", v)
                        if v.type != "identifier":  # an enum constant names no value
                            values.append(self.expr(v))
                elif (x.is_named or x.type == ";") and x.type not in _COMMENTS:
                    body.append(self.stmt(x))
            out.append(js.Case(-1, values, body, arrow=c.type == "switch_rule"))
        return out

    # ---------------------------------------------------------- expressions
    def args(self, node) -> list[js.Expr]:
        return [self.expr(c) for c in node.named_children if c.type not in _COMMENTS]

    def path(self, node) -> str | None:
        """``a.b.c`` when ``node`` is a dotted name (identifiers only)."""
        parts = []
        while node.type == "field_access":
            field = node.child_by_field_name("field")
            if field.type != "identifier":
                return None
            parts.append(_text(field))
            node = node.child_by_field_name("object")
        if node.type != "identifier":
            return None
        parts.append(_text(node))
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

    def expr(self, node) -> js.Expr:
        e = self._expr(node)
        r = self.r
        e.span = (r.tok(node), bisect_left(r.starts, node.end_byte) - 1)
        return e

    def _expr(self, node) -> js.Expr:
        t = node.type
        r = self.r
        if t == "identifier":
            return js.Name(r.tok(node), _text(node))
        if t == "field_access":
            dotted = self.path(node)
            if dotted is not None:
                return js.Path(self.head(node), dotted)
            obj = node.child_by_field_name("object")
            field = node.child_by_field_name("field")
            if field.type == "this":  # Outer.this
                q = self.path(obj)
                if q is None:
                    raise self.fail("a qualified this", node)
                return js.This(self.head(obj), q)
            if obj.type == "super":
                return js.SuperRef(-1, None, _text(field), False, [])
            if any(c.type == "super" for c in node.children[1:]):  # X.super.f
                return js.SuperRef(self.dot(node), self.expr(obj), _text(field), False, [])
            return js.Select(self.dot(node), self.expr(obj), _text(field))
        if t == "method_invocation":
            obj = node.child_by_field_name("object")
            name = _text(node.child_by_field_name("name"))
            args = self.args(node.child_by_field_name("arguments"))
            if obj is None:
                return js.Call(r.tok(node), None, "", name, args)
            if obj.type == "super":
                return js.SuperRef(-1, None, name, True, args)
            if any(c.type == "super" for c in node.children[1:]):  # X.super.m(…)
                return js.SuperRef(self.dot(node), self.expr(obj), name, True, args)
            dotted = self.path(obj)
            if dotted is not None:
                return js.Call(self.head(obj), None, dotted, name, args)
            return js.Call(self.dot(node), self.expr(obj), "", name, args)
        if t == "explicit_constructor_invocation":
            ctor = node.child_by_field_name("constructor")
            return js.CtorCall(-1, _text(ctor), None, self.args(node.child_by_field_name("arguments")))
        if t == "object_creation_expression":
            return self.creation(node)
        if t == "array_creation_expression":
            dims = []
            for c in node.children_by_field_name("dimensions"):
                if c.type == "dimensions_expr":
                    dims.extend(self.expr(x) for x in c.named_children if x.type not in _COMMENTS)
            value = node.child_by_field_name("value")
            return js.NewArray(-1, dims, None if value is None else self.expr(value))
        if t == "array_initializer":
            return js.ArrayInit(-1, [self.expr(c) for c in node.named_children if c.type not in _COMMENTS])
        if t == "array_access":
            array = self.expr(node.child_by_field_name("array"))
            bracket = next(c for c in node.children if c.type == "[")
            return js.Index(r.tok(bracket), array, self.expr(node.child_by_field_name("index")))
        if t == "cast_expression":
            return js.Cast(-1, self.expr(node.child_by_field_name("value")))
        if t == "assignment_expression":
            target = self.expr(node.child_by_field_name("left"))
            op = _text(node.child_by_field_name("operator"))
            return js.Assign(target.tok, target, op, self.expr(node.child_by_field_name("right")))
        if t == "update_expression":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            op = next(_text(c) for c in node.children if c.type in ("++", "--"))
            target = self.expr(e)
            return js.IncDec(target.tok, target, op)
        if t == "unary_expression":
            operand = self.expr(node.child_by_field_name("operand"))
            return js.Unary(operand.tok, _text(node.child_by_field_name("operator")), operand)
        if t == "binary_expression":
            left = self.expr(node.child_by_field_name("left"))
            return js.Binary(left.tok, _text(node.child_by_field_name("operator")), left,
                             self.expr(node.child_by_field_name("right")))
        if t == "instanceof_expression":
            left = self.expr(node.child_by_field_name("left"))
            name = node.child_by_field_name("name")
            pattern = node.child_by_field_name("pattern")
            if pattern is not None:
                raise self.fail("a record pattern", pattern)
            decl = None
            if name is not None:
                final = any(c.type == "final" for c in node.children)
                kind = self.type_kind(node.child_by_field_name("right"))
                decl = js.Decl(r.tok(name), _text(name), "local", kind, final)
            return js.InstanceOf(left.tok, left, decl)
        if t == "ternary_expression":
            cond = self.expr(node.child_by_field_name("condition"))
            return js.Cond(cond.tok, cond, self.expr(node.child_by_field_name("consequence")),
                           self.expr(node.child_by_field_name("alternative")))
        if t == "lambda_expression":
            params_node = node.child_by_field_name("parameters")
            params = []
            if params_node.type == "identifier":
                params.append(js.Decl(r.tok(params_node), _text(params_node), "param", "unknown", bare=True))
            elif params_node.type == "inferred_parameters":
                params.extend(js.Decl(r.tok(c), _text(c), "param", "unknown")
                              for c in params_node.named_children if c.type == "identifier")
            else:
                for p in params_node.named_children:
                    if p.type in ("formal_parameter", "spread_parameter"):
                        params.append(self.param(p))
                    elif p.type not in _COMMENTS:
                        raise self.fail(f"lambda parameter {p.type}", p)
            body = node.child_by_field_name("body")
            return js.Lambda(-1, params, self.block(body) if body.type == "block" else self.expr(body))
        if t == "method_reference":
            parts = [c for c in node.children if c.type not in _COMMENTS]
            first, last = parts[0], parts[-1]
            if first.type in ("identifier", "field_access", "this", "method_invocation", "parenthesized_expression",
                              "array_access", "object_creation_expression", "string_literal", "cast_expression"):
                obj = self.expr(first)
            else:
                obj = None  # a type, or ``super``
            if last.type == "new":
                return js.MethodRef(-1, obj, "new")
            return js.MethodRef(r.tok(last), obj, _text(last))
        if t == "this":
            return js.This(-1, "")
        if t == "parenthesized_expression":
            (e,) = [c for c in node.named_children if c.type not in _COMMENTS]
            return js.Paren(-1, self.expr(e))
        if t in _LITERALS:
            return js.Literal(r.tok(node))
        if t == "class_literal":
            return js.ClassLit(r.tok(node))
        if t == "switch_expression":
            return js.SwitchExpr(r.tok(node), self.cond(node.child_by_field_name("condition")),
                                 self.cases(node.child_by_field_name("body")))
        raise self.fail(f"expression {t}", node)

    def creation(self, node) -> js.New:
        children = [c for c in node.children if c.type not in _COMMENTS]
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
        name = ".".join(_text(c) for c in _type_parts(typ))
        args = self.args(node.child_by_field_name("arguments"))
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        k = self.head(children[0]) if outer_qual else -1
        return js.New(k, name, outer, outer_qual, args, None if body is None else self.class_body(body))


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


__all__ = ["read"]
