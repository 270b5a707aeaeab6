"""The Java frontend's units, lines, blocks and tokens, built from the
neutral description (:mod:`.syntax`) that either parser adapter gives (the
rules are in :mod:`invar.frontends.java`).

Imports only the frontend level below it (``..effects``, ``..units``,
``..locals``), its own modules, and ``errors``/``program``; never
``encoding`` or anything above.
"""

from __future__ import annotations

import textwrap

from bisect import bisect_right
from collections import Counter
from typing import Sequence

from ...errors import InvarError, NoUnitError, ParseError, UnsupportedError
from ...program import Line, Program, Token
from .javalang_parser import read as read_javalang
from .treesitter_parser import read as read_treesitter
from .syntax import Block, Do, For, ForEach, If, LocalClass, LocalVars, Method, Stmt, Sync, Tokens, Try, While, deepest
from ..effects import Effect, LineItem, block_deps
from ..registry import JAVA
from ..units import Units, check_size
from .effects import StatementEffects
from .lexer import Lexemes
from .scopes import Resolver


# ------------------------------------------------------------------ entry
def parse_units(text: str, path: str | None = None, *, parser: str | None = None) -> Units:
    """Every method of ``text`` as a :class:`Program`; see the module docstring.

    ``parser`` picks one path (``"javalang"`` or ``"tree-sitter"``); by
    default javalang reads the file and tree-sitter reads what javalang
    cannot."""
    check_size(text, path)
    if parser not in (None, "javalang", "tree-sitter"):
        raise ValueError(f"unknown Java parser {parser!r}")
    if parser == "tree-sitter":
        ix, methods = read_treesitter(text, path)
    else:
        try:
            ix, methods = read_javalang(text, path)
        except ParseError as err:
            if parser == "javalang":
                raise
            ix, methods = read_treesitter(text, path, fallback=err)
    if not methods:
        raise NoUnitError("no method with a body found", path=path, line=1, col=1)
    return build_units(ix, methods, path)


def build_units(ix: Tokens, methods, path: str | None) -> Units:
    """The programs of described ``methods`` (``(names, line, col,
    describe)`` each), skipping, with a located error, each one that cannot
    be described or built."""
    counts = Counter(".".join(names) for names, *_ in methods)
    on_line = Counter((".".join(names), line) for names, line, *_ in methods)
    units, skipped = [], []
    lexemes = Lexemes(ix.lines)
    for names, line, col, describe in methods:
        name = ".".join(names)
        if counts[name] > 1:  # overloads: named by their line, and column where they share one
            name += f"@{line}" if on_line[name, line] == 1 else f"@{line}.{col}"
        try:
            units.append(_UnitBuilder(ix, describe(), name, lexemes).build())
        except InvarError as err:
            syntax = isinstance(err, ParseError) and not isinstance(err, UnsupportedError)
            err.reason = "syntax error" if syntax else "unsupported construct"  # type: ignore[attr-defined]
            skipped.append(err.located(path))
        except (RecursionError, MemoryError):
            where = _method_span(ix, line, col)
            at = deepest(ix.values[where], ix.line_of[where], ix.col_of[where]) if where else (line, col)
            err = ParseError(
                f"method {name!r} is nested too deeply",
                path=path,
                line=at[0],
                col=at[1],
                source_line=ix.lines[at[0] - 1] if 0 < at[0] <= len(ix.lines) else None,
            )
            err.reason = "nesting too deep"  # type: ignore[attr-defined]
            skipped.append(err)
    if not units and skipped:
        raise skipped[0]
    return Units(units, skipped)


def _method_span(ix: Tokens, line: int, col: int) -> slice | None:
    """The tokens of the method declared at ``line``:``col`` (1-based), to
    the end of its body."""
    start = next((k for k in range(len(ix.values)) if (ix.line_of[k], ix.col_of[k] + 1) >= (line, col)), None)
    if start is None:
        return None
    body = next((k for k in range(start, len(ix.values)) if ix.values[k] == "{"), None)
    if body is None:
        return None
    return slice(start, ix.match.get(body, len(ix.values) - 1) + 1)


def _child_lists(s: Stmt) -> list[list[Stmt]] | None:
    """The statement lists of a compound statement's braced bodies, in order,
    or None when a body is not a braced block."""
    if isinstance(s, Block):
        return [s.body]
    if isinstance(s, If):
        if not isinstance(s.then, Block):
            return None
        out = [s.then.body]
        e = s.other
        if e is None:
            return out
        rest = _child_lists(e) if isinstance(e, (If, Block)) else None
        return None if rest is None else out + rest
    if isinstance(s, (For, ForEach, While, Do)):
        return [s.body.body] if isinstance(s.body, Block) else None
    if isinstance(s, Try):
        out = [s.body] + [c.body for c in s.catches]
        if s.final is not None:
            out.append(s.final)
        return out
    if isinstance(s, Sync):
        return [s.body]
    return None


# ---------------------------------------------------------------- builder
class _UnitBuilder:
    def __init__(self, index: Tokens, method: Method, name: str, lexemes: Lexemes | None = None) -> None:
        self.ix = index
        self.lexemes = lexemes or Lexemes(index.lines)
        self.method = method
        self.name = name
        self.items: list[LineItem] = []
        self.deps: list[tuple[int, int]] = []
        self.blocks = 0

    def tok(self, node) -> int:
        if node.tok < 0:
            raise UnsupportedError(f"{type(node).__name__} without a source position", line=0, col=0)
        return node.tok

    # --------------------------------------------------------------- layout
    def _add(self, code_end: int, block: int, depth: int, source_line: int, effect: Effect | None) -> None:
        self.items.append(LineItem(code_end, block, depth, source_line, effect))

    def _groups(self, s: int, e: int) -> list[tuple[int, int]]:
        """Brace groups at the top level of tokens ``s..e``."""
        ix, out, k = self.ix, [], s
        while k <= e:
            v = ix.values[k]
            if v in ("(", "["):
                k = ix.match.get(k, e) + 1
                continue
            if v == "{":
                out.append((k, ix.match[k]))
                k = ix.match[k] + 1
                continue
            k += 1
        return out

    def _splittable_group(self, o: int, c: int) -> bool:
        return self.ix.last_on_line(o) and self.ix.first_on_line(c) and self.ix.line_of[c] > self.ix.line_of[o]

    def _block(self, stmts: Sequence[Stmt], depth: int, protected: bool, close: int) -> None:
        if not stmts:
            return
        ix = self.ix
        block = self.blocks
        self.blocks += 1
        starts = [self._statement_start(self.tok(s)) for s in stmts]
        ends = [k - 1 for k in starts[1:]] + [close - 1]
        runs: list[list[int]] = []
        for i in range(len(stmts)):
            if runs and ix.line_of[starts[i]] == ix.line_of[ends[i - 1]]:
                runs[-1].append(i)
            else:
                runs.append([i])
        members: list[tuple[int, Effect]] = []
        for run in runs:
            i = run[0]
            idx = len(self.items)
            effect = Effect()
            for r in run:
                effect.absorb(self.effects.effect(stmts[r]))
            span = range(starts[i], ends[run[-1]] + 1)
            # every local named anywhere in the statement is read (receivers of
            # calls, lambda captures), whatever node the parser put it under
            ref_of = self.scopes.ref_of
            effect.reads.update(ref_of[k] for k in span if k in ref_of)
            if not (len(run) == 1 and self._compound(stmts[i], starts[i], ends[i], block, depth, protected)):
                self._add(ix.line_of[ends[run[-1]]], block, depth, ix.line_of[starts[i]], effect)
            else:
                self.items[idx].effect = effect
            members.append((idx, self._scoped(effect, [stmts[r] for r in run], span)))
        self.deps += block_deps(members, protected=protected)

    def _statement_start(self, k: int) -> int:
        """The first token of the statement anchored at token ``k``: its
        annotations, modifiers and labels included, found by walking back to
        the previous statement's end."""
        ix = self.ix
        while k > 0:
            v = ix.values[k - 1]
            if v in (";", "{", "}"):
                break
            k = ix.match[k - 1] if v in (")", "]") and k - 1 in ix.match else k - 1
        return k

    def _scoped(self, effect: Effect, stmts: Sequence[Stmt], span: range) -> Effect:
        """``effect`` with what keeps names meaning the same for the dependency
        rule (not shown as the line's reads and writes): the statement reads
        ``name:x`` for every simple name ``x`` it spells, and a declaration of
        local ``x`` at this block's level writes it. So a declaration never
        moves across a statement that spells its name: where that name is a
        field (its meaning would change), or is declared again in a nested
        block, a ``for``, a ``catch`` or a lambda (Java forbids the shadowing)."""
        ix, sc = self.ix, self.scopes
        out = Effect(set(effect.reads), set(effect.writes), effect.side, effect.barrier, effect.jump, effect.may_raise)
        for k in span:
            if ix.identifier[k] and k not in sc.not_a_name:
                out.reads.add(f"name:{ix.values[k]}")
                if sc.ref_of.get(k) in sc.unboxes and k not in sc.decl_toks:
                    out.may_raise = True
        for s in stmts:
            if isinstance(s, LocalVars):
                out.writes.update(f"name:{d.name}" for d in s.decls)
            elif isinstance(s, LocalClass):
                out.writes.add(f"name:{s.name}")
            for ref in sc.escaping.get(id(s), ()):
                out.writes.add(f"name:{ref.rsplit(':', 1)[1]}")
        return out

    def _compound(self, stmt: Stmt, s: int, e: int, block: int, depth: int, protected: bool) -> bool:
        lists = _child_lists(stmt)
        if not lists:
            return False
        groups = self._groups(s, e)
        if len(groups) != len(lists) or not all(self._splittable_group(o, c) for o, c in groups):
            return False
        ix = self.ix
        for (o, c), stmts in zip(groups, lists):
            if stmts and not (o < self.tok(stmts[0]) and self.tok(stmts[-1]) < c):
                return False
        inner = protected or isinstance(stmt, Try)
        self._add(ix.line_of[groups[0][0]], block, depth, ix.line_of[s], self.effects.effect(stmt))
        for g, ((o, c), stmts) in enumerate(zip(groups, lists)):
            self._block(stmts, depth + 1, inner, c)
            end = ix.line_of[groups[g + 1][0]] if g + 1 < len(groups) else ix.line_of[e]
            self._add(end, -1, depth + 1, ix.line_of[c], None)
        return True

    # ---------------------------------------------------------------- build
    def build(self) -> Program:
        ix, m = self.ix, self.method
        k = self.tok(m)
        start = k
        while start > 0 and ix.values[start - 1] not in (";", "{", "}"):
            start -= 1
        open_ = k
        while ix.values[open_] != "{":
            if ix.values[open_] in ("(", "["):
                open_ = ix.match[open_]
            open_ += 1
        close = ix.match[open_]
        self.start_tok, self.close_tok = start, close
        self.scopes = Resolver(ix, m, self.name, start, close).resolve()
        self.effects = StatementEffects(self.scopes, ix)
        self.base = ix.line_of[start] - 1
        body = m.body or []
        if self._splittable_group(open_, close) and body:
            self._add(ix.line_of[open_], -1, 0, ix.line_of[start], None)
            self._block(body, 1, False, close)
            self._add(ix.line_of[close], -1, 1, ix.line_of[close], None)
        else:
            self._add(ix.line_of[close], -1, 0, ix.line_of[start], None)
        return self._program()

    def _tokens(self, first_lines: list[int], lengths: list[int]) -> list[Token]:
        """Every token of the unit's lines, in order: the identifiers of the
        method (its parameters and locals with their views and referents, the
        rest with the view ``name``), and around them the file's other
        lexemes (:mod:`.lexer`) on those lines, each with its own text as
        view and no referent."""
        ix, sc, lex = self.ix, self.scopes, self.lexemes
        # offset in the file of each line's first character (lines are the file's, 1-based)
        line_start = lex.line_starts
        base = [line_start[f - 1] for f in first_lines]
        names: list[tuple[int, Token]] = []
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k]:
                continue
            at = line_start[ix.line_of[k] - 1] + ix.col_of[k]
            li = bisect_right(base, at) - 1
            ref = sc.ref_of.get(k)
            if k in sc.keywords:  # ``var x``, ``yield x;``: no name a renaming could capture
                text = ix.values[k]
                names.append((at, Token(text, "keyword", text, None, li, at - base[li])))
                continue
            view = sc.view_of.get(ref, "name") if ref else "name"
            names.append((at, Token(ix.values[k], "name", view, ref, li, at - base[li])))
        end = base[-1] + lengths[-1]
        out: list[Token] = []
        n = 0
        for at, text, kind in lex.between(base[0], end):
            while n < len(names) and names[n][0] + len(names[n][1].text) <= at:
                out.append(names[n][1])
                n += 1
            if n < len(names) and names[n][0] < at + len(text):
                continue  # the name itself, read by the parser
            li = bisect_right(base, at) - 1
            off = at - base[li]
            if off + len(text) <= lengths[li]:  # never past its line (a text block cut by the layout)
                out.append(Token(text, kind, text, None, li, off))
        out += (t for _, t in names[n:])
        return out

    def _program(self) -> Program:
        ix, sc = self.ix, self.scopes
        lines, first_lines = [], []
        prev = self.base
        for it in self.items:
            first_lines.append(prev + 1)
            e = it.effect
            lines.append(
                Line(
                    text="\n".join(ix.lines[prev : it.code_end]),
                    reads=frozenset(e.reads) if e else frozenset(),
                    writes=frozenset(e.writes) if e else frozenset(),
                    block=it.block,
                    depth=it.depth,
                    source_line=it.source_line,
                )
            )
            prev = it.code_end
        tokens = self._tokens(first_lines, [len(line.text) for line in lines])
        return Program(
            lang=JAVA.name,
            lines=tuple(lines),
            tokens=tuple(tokens),
            deps=tuple(sorted(set(self.deps))),
            pinned=sc.pinned,
            name=self.name,
            separator="\n",
        )


def parse(text: str, path: str | None = None) -> Program:
    """The single method of ``text``."""
    units = parse_units(text, path)
    if len(units) != 1:
        raise ParseError(f"expected one method, found {len(units)}", path=path, line=1, col=1)
    return units[0]


def standalone(text: str, holder: str) -> str:
    """A method's ``text`` as a file that holds it alone: inside ``class
    holder { … }``, indented, since Java has no method outside a class."""
    return f"class {holder} {{\n{textwrap.indent(text, '    ')}}}\n"


__all__ = ["parse_units", "parse", "build_units", "standalone"]
