"""The tree-sitter path: Java 17 source into the neutral description.

Files ``javalang`` cannot read (``var``, switch expressions and ``yield``,
records, text blocks, ``instanceof`` patterns, sealed classes, intersection
casts …) are parsed with ``tree-sitter-java`` into the same
:class:`~.syntax.Tokens` and :class:`~.syntax.Method` descriptions
that :mod:`.javalang_parser` produces from a file it can read, with the same
anchors, so one builder makes the same programs from either.

tree-sitter recovers from syntax errors instead of stopping at the first:
a method whose text holds an error is skipped alone, with the error's
location; an error outside every method fails the file.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Callable

from ...errors import ParseError, UnsupportedError
from .syntax import BASIC, BASIC_TYPES, IDENT, KEYWORD, KEYWORDS, LITERAL, Method, OP, Tokens
from .treesitter_nodes import BODIES, COMMENTS, LITERALS, METHODS, TYPE_DECLS, Describer, node_name


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
    :func:`.javalang_parser.read` returns them. ``fallback`` is javalang's error
    on the same text: where tree-sitter finds an error outside every method,
    that error is raised (its message says what was expected); inside a
    method it names the error when it falls in that method."""
    data = text.encode("utf-8")
    tree = _parser().parse(data)
    reader = Reader(text, data, tree.root_node)
    units = reader.units(tree.root_node)
    if tree.root_node.has_error:
        bad = reader.first_error(tree.root_node, {_key(n) for _, n in units})
        if bad is not None:
            if fallback is not None:
                raise fallback
            raise reader.error(bad, path)
    out = []
    for names, node in units:
        k = reader.anchor(node)
        line, col = reader.ix.line_of[k], reader.ix.col_of[k] + 1
        if node.has_error:
            describe = reader.failing(node, path, fallback)
        else:
            describe = lambda node=node: Describer(reader).unit(node)
        out.append((names, line, col, describe))
    return reader.ix, out


class Reader:
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
        self.lines = lines
        self.at: dict[int, int] = {}  # start byte -> token index
        stack = [root]
        while stack:
            node = stack.pop()
            t = node.type
            if t in COMMENTS:
                continue
            if node.child_count == 0 or t in LITERALS:
                if node.start_byte == node.end_byte:
                    continue  # a token tree-sitter supplied (MISSING)
                value = data[node.start_byte : node.end_byte].decode("utf-8")
                self.at[node.start_byte] = len(values)
                values.append(value)
                line, col = self.position(node)
                line_of.append(line)
                col_of.append(col - 1)
                if t in LITERALS:
                    kinds.append(LITERAL)
                elif value in BASIC_TYPES:
                    kinds.append(BASIC)
                elif value in KEYWORDS:
                    kinds.append(KEYWORD)
                elif _is_identifier(value):
                    kinds.append(IDENT)
                else:
                    kinds.append(OP)
                continue
            stack.extend(reversed(node.children))
        self.ix = Tokens(lines, values, kinds, line_of, col_of)
        #: start byte of every token, in order
        self.starts = sorted(self.at)

    def position(self, node) -> tuple[int, int]:
        """1-based line and column (in characters, not bytes) of a node's start."""
        row, col = node.start_point
        if not self.lines[row].isascii():
            start = self.line_starts[row]
            col = len(self.data[start : start + col].decode("utf-8", "replace"))
        return row + 1, col + 1

    def tok(self, node) -> int:
        """The token a node starts at."""
        k = self.at.get(node.start_byte)
        if k is None:  # a comment first: the node's first token after it
            k = bisect_left(self.starts, node.start_byte)
            if k >= len(self.starts) or self.starts[k] >= node.end_byte:
                line, col = self.position(node)
                raise UnsupportedError(f"no token in {node.type}", line=line, col=col)
        return k

    def anchor(self, node) -> int:
        """The first token after a declaration's modifiers (javalang's position
        of a member or a local declaration)."""
        for c in node.children:
            if c.type != "modifiers" and c.type not in COMMENTS:
                return self.tok(c)
        return self.tok(node)

    # ----------------------------------------------------------------- units
    def units(self, root) -> list[tuple[tuple[str, ...], object]]:
        """Every method with a body declared in a named type, an enum
        constant's body, or a class body that stands outside every method
        (an anonymous class in a field's initializer): ``(names, node)``, in
        source order, named as :func:`.javalang_parser.read` names them."""
        out: list = []
        stack: list[tuple[object, tuple[str, ...]]] = [(root, ())]
        while stack:
            node, names = stack.pop()
            found = []
            members = node.type in BODIES
            for c in node.children:
                t = c.type
                if t in METHODS:
                    if c.child_by_field_name("body") is not None:
                        out.append((names + (node_name(c),), c))
                elif t in TYPE_DECLS or t == "enum_constant":
                    found.append((c, names + (node_name(c),)))
                elif members and t in ("field_declaration", "constant_declaration"):
                    for d in c.children:
                        if d.type == "variable_declarator":
                            found.append((d, names + (node_name(d),)))
                elif members and t == "static_initializer":
                    found.append((c, names + ("<clinit>",)))
                elif members and t == "block":
                    found.append((c, names + ("<init>",)))
                elif c.child_count:
                    found.append((c, names))
            stack.extend(reversed(found))
        out.sort(key=lambda u: u[1].start_byte)
        return out

    def first_error(self, root, units: set[tuple[int, int, str]]):
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
        """A located syntax error at ``node`` (an error or a missing token)."""
        line, col = self.position(node)
        if node.is_missing:
            what = f"expected {node.type!r}"
        else:
            got = self.data[node.start_byte : node.end_byte].decode("utf-8", "replace").split()
            what = f"unexpected {got[0][:40]!r}" if got else "unexpected input"
        lines = self.ix.lines
        return ParseError(
            f"syntax error: {what}",
            path=path,
            line=line,
            col=col,
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
        )

    def failing(self, unit, path: str | None, fallback: ParseError | None) -> Callable[[], Method]:
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


__all__ = ["read"]
