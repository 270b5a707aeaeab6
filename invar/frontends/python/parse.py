"""The Python frontend's units, lines, blocks and tokens, built from ``ast``
and ``symtable`` (the rules are in :mod:`invar.frontends.python`).

Imports only the frontend level below it (``..effects``, ``..units``,
``..nesting``), its own ``scopes`` and ``effects``, and ``errors``/``program``;
never ``encoding`` or anything above.
"""

from __future__ import annotations

import ast
import gc
import io
import keyword
import tokenize
import warnings
from bisect import bisect_right
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from typing import Sequence

from ...errors import InvarError, ParseError, UnsupportedError
from ...program import Line, Program, Token
from .. import nesting
from ..effects import ALL_GLOBALS, Effect, LineItem, block_deps
from ..registry import PYTHON
from ..units import Units, check_size
from .effects import StatementEffects
from .reach import find_reach
from .scopes import Resolution, Scope, SourceMap, module_name, private, resolve

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
_PROTECTING = (ast.Try, ast.With, ast.AsyncWith) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
#: occurrence contexts whose name is part of an interface: a parameter a
#: caller may pass by keyword, the name a ``def``/``class`` gives its object
_INTERFACE = frozenset({"kwparam", "defname"})


# ------------------------------------------------------------------ entry
def parse_units(text: str, path: str | None = None) -> Units:
    """Every function of ``text`` as a :class:`Program`; see the module docstring."""
    with _no_cyclic_collection():
        return _parse_units(text, path)


@contextmanager
def _no_cyclic_collection():
    """Automatic cyclic garbage collection off while a file is parsed.

    A parse allocates some 25 container objects per line of source (the
    ``ast`` tree, the resolution's occurrences, lexemes, effects, the
    program) and frees almost none before it returns, so every collection the
    allocations trigger scans a heap that only grows and finds nothing: on a
    function of 100,000 locals that was half the parse's time. What the parse
    leaves in cycles (scopes and their tree) is collected as usual after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse_units(text: str, path: str | None) -> Units:
    shown = path or "<input>"
    check_size(text, path)
    lone_cr = text.find("\r")
    while lone_cr >= 0 and text.startswith("\r\n", lone_cr):
        lone_cr = text.find("\r", lone_cr + 2)
    if lone_cr >= 0:
        line = text.count("\n", 0, lone_cr) + 1
        raise UnsupportedError(
            "carriage return without line feed (old Mac line endings)",
            path=path,
            line=line,
            col=lone_cr - text.rfind("\n", 0, lone_cr),
        )
    src = SourceMap(text)
    try:
        tree = ast.parse(text, filename=shown)
        _compiles(text, shown, src)
        resolution = resolve(tree, text, src, shown)
    except SyntaxError as err:
        line = err.lineno or 0
        raise ParseError(
            err.msg,
            path=path,
            line=line,
            col=err.offset or 0,
            source_line=src.lines[line - 1] if 0 < line <= len(src.lines) else None,
        ) from None
    except (RecursionError, MemoryError):
        line, col = _deepest(text)
        raise ParseError(
            "nesting too deep to parse",
            path=path,
            line=line,
            col=col,
            source_line=src.lines[line - 1] if 0 < line <= len(src.lines) else None,
        ) from None
    except ValueError as err:  # NUL bytes and similar
        raise ParseError(str(err), path=path, line=1, col=1) from None
    _reach(tree, resolution, path)
    effects = StatementEffects(resolution)
    lexemes = _lexemes(text)
    # every function opens a scope, so the resolver has already found them all
    defs = sorted(
        (s.node for s in resolution.scope_of.values() if isinstance(s.node, _FUNCTIONS)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    # redefinitions share a path: named by their line (two defs never share one)
    paths = Counter(resolution.scope_of[id(node)].path for node in defs)
    units, skipped = [], []
    for node in defs or ([tree] if tree.body else []):
        try:
            unit = _UnitBuilder(src, resolution, effects, node, lexemes).build()
            units.append(replace(unit, name=f"{unit.name}@{node.lineno}") if paths[unit.name] > 1 else unit)
        except InvarError as err:
            err.reason = "unsupported construct"  # type: ignore[attr-defined]
            skipped.append(err.located(path))
        except (RecursionError, MemoryError):
            err = ParseError(
                f"function {getattr(node, 'name', '?')!r} is nested too deeply",
                path=path,
                line=node.lineno,
                col=node.col_offset + 1,
            )
            err.reason = "nesting too deep"  # type: ignore[attr-defined]
            skipped.append(err)
    if not units and skipped:
        raise skipped[0]
    return Units(units, skipped)


def _reach(tree: ast.Module, res: Resolution, path: str | None) -> None:
    """Add what :mod:`.reach` finds to ``res``: the calls that may read their
    scope whatever they are called, the scopes they read (whose locals keep
    their names), and which namespaces are reachable as objects."""
    reach = find_reach(tree, res, module_name(path))
    res.dynamic_calls = reach.calls
    res.dynamic |= reach.scopes
    res.escaped, res.exposed, res.cells_exposed = reach.escaped, reach.exposed, reach.cells_exposed


def parse(text: str, path: str | None = None) -> Program:
    """The single unit of ``text`` (a file holding exactly one function)."""
    units = parse_units(text, path)
    if len(units) != 1:
        raise ParseError(f"expected one function, found {len(units)}", path=path, line=1, col=1)
    return units[0]


# ------------------------------------------------------------------ lexemes
#: operators and keywords that add a level to the expression they are part of
_LEVELS = frozenset(
    "+ - * / // % ** @ << >> & | ^ ~ < > <= >= == != . := not and or if else lambda await in is yield".split()
)


def _deepest(text: str) -> tuple[int, int]:
    """(line, column) where ``text`` is nested most deeply (see
    :mod:`invar.frontends.nesting`), read from its tokens; the tokens
    before a lexical error when there is one."""

    def tokens():
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type in (tokenize.NEWLINE, tokenize.OP, tokenize.NAME):
                    yield nesting.Token(
                        tok.string,
                        tok.start[0],
                        tok.start[1] + 1,
                        ends=tok.type == tokenize.NEWLINE or tok.string == ";",
                        level=tok.string in _LEVELS,
                    )
        except (tokenize.TokenError, SyntaxError):
            return

    return nesting.deepest(tokens())


_SKIPPED = frozenset({"COMMENT", "NL", "NEWLINE", "INDENT", "DEDENT", "ENCODING", "ENDMARKER", "TYPE_COMMENT"})
_KINDS = {
    "OP": "operator",
    "NUMBER": "number",
    "STRING": "string",
    "FSTRING_START": "string",
    "FSTRING_MIDDLE": "string",
    "FSTRING_END": "string",
}


def _lexemes(text: str) -> list[tuple[int, int, int, int, str, str]]:
    """Every lexical token of a file that ``ast`` accepted, in order:
    (line, column, end line, end column, kind, text); kinds ``keyword``,
    ``identifier``, ``operator``, ``number``, ``string``. Empty when
    ``tokenize`` disagrees with the parser (units then hold their names only)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            name = tokenize.tok_name[tok.exact_type if tok.type == tokenize.OP else tok.type]
            name = "OP" if tok.type == tokenize.OP else name
            if name in _SKIPPED:
                continue
            if name == "NAME":
                kind = "keyword" if keyword.iskeyword(tok.string) else "identifier"
            else:
                kind = _KINDS.get(name, "other")
            out.append((tok.start[0], tok.start[1], tok.end[0], tok.end[1], kind, tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return out


# ----------------------------------------------------------------- layout
#: the one empty set every line without reads (or writes) shares: each
#: ``frozenset()`` is an object of its own, 216 bytes a line
_NOTHING: frozenset[str] = frozenset()


def _copy_effect(e: Effect) -> Effect:
    return Effect(set(e.reads), set(e.writes), e.side, e.barrier, e.jump, e.may_raise)


def _anchor(stmt: ast.stmt) -> int:
    """First physical line of a statement, decorators included."""
    decorators = getattr(stmt, "decorator_list", None)
    return min(d.lineno for d in decorators) if decorators else stmt.lineno


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _header_nodes(s: ast.stmt) -> list[ast.AST]:
    """The expressions written in a compound statement's header."""
    if isinstance(s, (ast.If, ast.While)):
        return [s.test]
    if isinstance(s, (ast.For, ast.AsyncFor)):
        return [s.target, s.iter]
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return [x for item in s.items for x in (item.context_expr, item.optional_vars) if x is not None]
    if isinstance(s, ast.Match):
        return [s.subject]
    if isinstance(s, _FUNCTIONS):
        a = s.args
        out: list[ast.AST] = [*s.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
        out += [x for x in (*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg) if x is not None]
        if s.returns is not None:
            out.append(s.returns)
        return out
    if isinstance(s, ast.ClassDef):
        return [*s.decorator_list, *s.bases, *s.keywords]
    return []


def _bodies(s: ast.stmt) -> list[list[ast.stmt]]:
    """Every statement list of a compound statement (elif chains included)."""
    if isinstance(s, ast.Match):
        return [c.body for c in s.cases]
    out = [s.body]
    for h in getattr(s, "handlers", ()):
        out.append(h.body)
    for name in ("orelse", "finalbody"):
        if getattr(s, name, None):
            out.append(getattr(s, name))
    return out


class _UnitBuilder:
    """Builds one unit's Program; see the module docstring for the layout."""

    def __init__(
        self,
        src: SourceMap,
        res: Resolution,
        effects: StatementEffects,
        node: ast.AST,
        lexemes: list[tuple] | None = None,
    ) -> None:
        self.src = src
        self.res = res
        self.effects = effects
        self.node = node
        self.lexemes = lexemes or []
        self.items: list[LineItem] = []
        self.deps: list[tuple[int, int]] = []
        self.blocks = 0
        #: the physical line before the unit's first line
        self.base = 0
        #: resource prefix of the function whose body is being laid out, and
        #: the variables bound for sure at the current statement (see _unbound)
        self._fn = "global:"
        self._bound: set[str] = set()

    # ---------------------------------------------------------- line tests
    def _own_line(self, stmt: ast.stmt) -> bool:
        """Whether ``stmt`` starts its physical line (decorated ones always do)."""
        if getattr(stmt, "decorator_list", None):
            return True
        text = self.src.lines[stmt.lineno - 1]
        return not text[: self.src.char_col(stmt.lineno, stmt.col_offset)].strip()

    def _splittable(self, s: ast.stmt) -> bool:
        """Whether every body of ``s`` starts on a line of its own (an
        ``elif`` chain is walked: its bodies are bodies of ``s``)."""
        bodies = _bodies(s)
        cur = s
        while (
            isinstance(cur, ast.If)
            and len(cur.orelse) == 1
            and isinstance(cur.orelse[0], ast.If)
            and self._is_elif(cur.orelse[0])
        ):
            cur = cur.orelse[0]
            bodies += _bodies(cur)
        return all(self._own_line(body[0]) for body in bodies if body)

    def _last_code_line(self, lo: int, hi: int) -> int:
        """The last line in ``lo..hi`` holding more than blanks and a comment."""
        lines = self.src.lines
        for ln in range(hi, lo - 1, -1):
            t = lines[ln - 1].strip()
            if t and not t.startswith("#"):
                return ln
        return lo

    @property
    def _prev_end(self) -> int:
        return self.items[-1].code_end if self.items else self.base

    # ------------------------------------------------------------ emitting
    def _add(self, code_end: int, block: int, depth: int, source_line: int, effect: Effect | None) -> int:
        self.items.append(LineItem(code_end, block, depth, source_line, effect))
        return len(self.items) - 1

    def _clause(self, lo: int, first: ast.stmt, depth: int) -> None:
        """A fixed clause line (``else:``, ``except E:`` …) ending before ``first``."""
        lo = max(lo, self._prev_end + 1)
        self._add(self._last_code_line(lo, _anchor(first) - 1), -1, depth, lo, None)

    def _block(
        self, stmts: Sequence[ast.stmt], depth: int, protected: bool, docstring: bool = False, ordered: bool = False
    ) -> None:
        """Lines for ``stmts``, a block of their own; ``ordered`` keeps them in
        source order (a class body, whose namespace order is meaning)."""
        if docstring and stmts and _is_docstring(stmts[0]) and len(stmts) > 1 and self._own_line(stmts[1]):
            s = stmts[0]
            self._add(s.end_lineno, -1, depth, s.lineno, self.effects.of(s))
            stmts = stmts[1:]
        if not stmts:
            return
        block = self.blocks
        self.blocks += 1
        outer_bound = set(self._bound)
        members: list[tuple[int, Effect]] = []
        runs: list[list[ast.stmt]] = []
        for s in stmts:
            if runs and not self._own_line(s):
                runs[-1].append(s)
            else:
                runs.append([s])
        for run in runs:
            s = run[0]
            if len(run) == 1 and isinstance(s, _COMPOUND) and self._splittable(s):
                idx = self._compound(s, block, depth, protected)
                effect = self.effects.of(s)
            else:
                effect = Effect()
                for x in run:
                    effect.absorb(self.effects.of(x))
                idx = self._add(max(x.end_lineno for x in run), block, depth, _anchor(s), effect)
            if protected and not effect.may_raise and self._unbound(effect):
                effect = _copy_effect(effect)
                effect.may_raise = True
                self.items[idx].effect = effect
            members.append((idx, effect))
            for x in run:
                self._bound |= self.effects.binders(x)
        self._bound = outer_bound
        self.deps += block_deps(members, protected=protected)
        if ordered:
            self.deps += [(a, b) for (a, _), (b, _) in zip(members, members[1:])]

    def _compound(self, s: ast.stmt, block: int, depth: int, protected: bool) -> int:
        inner = protected or isinstance(s, _PROTECTING)
        lo = max([s.lineno] + [n.end_lineno for n in _header_nodes(s)])
        first = s.cases[0].body[0] if isinstance(s, ast.Match) else s.body[0]
        if isinstance(s, ast.Match):
            first_anchor = s.cases[0].pattern.lineno
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _is_docstring(first):
            first_anchor = first.lineno
        else:
            first_anchor = _anchor(first)
        idx = self._add(self._last_code_line(lo, first_anchor - 1), block, depth, _anchor(s), self.effects.of(s))
        d = depth + 1
        if isinstance(s, ast.If):
            self._block(s.body, d, inner)
            cur = s
            while cur.orelse:
                nxt = cur.orelse[0]
                if len(cur.orelse) == 1 and isinstance(nxt, ast.If) and self._is_elif(nxt):
                    self._clause(nxt.test.end_lineno, nxt.body[0], d)
                    self._block(nxt.body, d, inner)
                    cur = nxt
                    continue
                self._clause(self._prev_end + 1, nxt, d)
                self._block(cur.orelse, d, inner)
                break
        elif isinstance(s, ast.Match):
            for case in s.cases:
                ends = [case.pattern.end_lineno] + ([case.guard.end_lineno] if case.guard is not None else [])
                self._clause(max(ends), case.body[0], d)
                self._block(case.body, d + 1, inner)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            outer = self._fn, self._bound
            self._enter_function(s)
            self._block(s.body, d, False, docstring=True)
            self._fn, self._bound = outer
        elif isinstance(s, ast.ClassDef):
            self._block(s.body, d, inner, docstring=True, ordered=True)
        else:
            self._block(s.body, d, inner)
            for h in getattr(s, "handlers", ()):
                ends = [h.lineno] + ([h.type.end_lineno] if h.type is not None else [])
                self._clause(max(ends), h.body[0], d)
                self._block(h.body, d, inner)
            for name in ("orelse", "finalbody"):
                body = getattr(s, name, None)
                if body:
                    self._clause(self._prev_end + 1, body[0], d)
                    self._block(body, d, inner)
        return idx

    # ------------------------------------------------- definite assignment
    # -------------------------------------------------------------- tokens
    def _with_lexemes(self, names: list[Token], first_lines: list[int], start: int, end: int) -> list[Token]:
        """Every token of the unit's lines: the name tokens (variables, with
        their views and referents) and, around them, keywords, operators,
        literals and other identifiers (attributes, keyword-argument names,
        modules), each with its own text as view and no referent. A string
        that holds names (an f-string) is cut into pieces around them."""
        src = self.src
        at_name = {(t.line, t.start): t for t in names}
        lo = bisect_right(self.lexemes, (start, -1), key=lambda x: (x[0], x[1]))
        hi = bisect_right(self.lexemes, (end, 1 << 60), key=lambda x: (x[0], x[1]))
        out: list[Token] = list(names)
        base = [src.starts[f - 1] for f in first_lines]

        def place(row: int, col: int) -> tuple[int, int]:
            li = bisect_right(first_lines, row) - 1
            return li, src.starts[row - 1] + col - base[li]

        names_by_line: dict[int, list[Token]] = {}
        for t in names:
            names_by_line.setdefault(t.line, []).append(t)
        for row, col, end_row, end_col, kind, text in self.lexemes[lo:hi]:
            li, off = place(row, col)
            if (li, off) in at_name:
                continue
            if kind != "string":
                out.append(Token(text, kind, text, None, li, off))
                continue
            inside = sorted(t.start for t in names_by_line.get(li, ()) if off <= t.start < off + len(text))
            pos = 0
            for n_start in inside:
                name = at_name[(li, n_start)]
                if n_start - off > pos:
                    piece = text[pos : n_start - off]
                    out.append(Token(piece, "string", piece, None, li, off + pos))
                pos = n_start - off + len(name.text)
            if pos < len(text):
                out.append(Token(text[pos:], "string", text[pos:], None, li, off + pos))
        out.sort(key=lambda t: (t.line, t.start))
        return out

    def _enter_function(self, node: ast.AST) -> None:
        """Start laying out a function body: only its parameters are bound."""
        scope = self.res.scope_of[id(node)]
        self._fn = f"local:{scope.path}:"
        a = node.args
        self._bound = {
            f"{self._fn}{x.arg}" for x in (*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg) if x is not None
        }

    def _unbound(self, effect: Effect) -> bool:
        """Whether the statement may read a variable that is not bound for sure
        at its place (so it may raise NameError/UnboundLocalError): a local of
        the function not bound by a statement that surely ran before it, or a
        global the module never binds. Matters where a handler can catch it."""
        deleted = self.effects.deleted()
        for r in effect.reads:
            if r.startswith(self._fn):
                if r not in self._bound or r in deleted:
                    return True
            elif r == ALL_GLOBALS:
                if self.effects.unbound_globals():
                    return True
            elif r.startswith("global:") and r not in self.effects.module_bound():
                return True
        return False

    def _is_elif(self, node: ast.If) -> bool:
        text = self.src.lines[node.lineno - 1]
        return text.startswith("elif", self.src.char_col(node.lineno, node.col_offset))

    # ---------------------------------------------------------------- build
    def build(self) -> Program:
        node = self.node
        if isinstance(node, ast.Module):
            name, scope = "<module>", self.res.module
            start = _anchor(node.body[0])
            self.base = start - 1
            self._block(node.body, 0, False, docstring=True)  # the docstring stays first: it is __doc__
        else:
            scope = self.res.scope_of[id(node)]
            name = scope.path
            start = _anchor(node)
            self.base = start - 1
            self._enter_function(node)
            if self._splittable(node):
                lo = max([node.lineno] + [n.end_lineno for n in _header_nodes(node)])
                first = node.body[0]
                first_anchor = first.lineno if _is_docstring(first) else _anchor(first)
                self._add(self._last_code_line(lo, first_anchor - 1), -1, 0, start, None)
                self._block(node.body, 1, False, docstring=True)
            else:
                self._add(node.end_lineno, -1, 0, start, None)
        return self._program(name, scope, start)

    def _program(self, name: str, scope: Scope, start: int) -> Program:
        src = self.src
        lines: list[Line] = []
        first_lines: list[int] = []
        prev = start - 1
        for it in self.items:
            first_lines.append(prev + 1)
            text = "\n".join(src.lines[prev : it.code_end])
            e = it.effect
            lines.append(
                Line(
                    text=text,
                    reads=frozenset(e.reads) if e and e.reads else _NOTHING,
                    writes=frozenset(e.writes) if e and e.writes else _NOTHING,
                    block=it.block,
                    depth=it.depth,
                    source_line=it.source_line,
                )
            )
            prev = it.code_end
        end = prev
        occs = self.res.occurrences
        lo = bisect_right(occs, (start, -2), key=lambda o: (o.line, o.col))
        hi = bisect_right(occs, (end, 1 << 60), key=lambda o: (o.line, o.col))
        tokens: list[Token] = []
        pinned: set[str] = set()
        unit = scope if scope.kind != "module" else None
        dynamic = False
        spelled = self.res.spelled
        for occ in occs[lo:hi]:
            renamable = (
                unit is not None
                and occ.binder is not None
                and occ.view in ("param", "local")
                and occ.binder.kind != "class"
                and occ.binder.within(unit)
            )
            referent = occ.resource if renamable else None
            if id(occ.scope) in self.res.dynamic:
                dynamic = True
            if referent is not None and (occ.ctx in _INTERFACE or (occ.line, occ.col) in spelled or private(occ.name)):
                # observable by its spelling (docs/semantics.md), or private: a class mangles it, so that a
                # renaming into or out of it would change which variable a token inside a class names
                pinned.add(referent)
            if occ.col < 0:
                pinned.add(referent if referent is not None else f"name:{occ.name}")
                continue
            view = occ.view
            if not renamable and view in ("param", "local") and unit is not None and occ.binder is not None:
                view = "free"  # bound by an enclosing function outside the unit
            li = bisect_right(first_lines, occ.line) - 1
            start_off = src.starts[occ.line - 1] - src.starts[first_lines[li] - 1] + occ.col
            tokens.append(Token(occ.name, "name", view, referent, li, start_off))
        referents = {t.referent for t in tokens if t.referent is not None}
        if dynamic:
            pinned |= referents
        tokens = self._with_lexemes(tokens, first_lines, start, end)
        if scope.has_match:  # a ``match`` anywhere in the unit, nested scopes included
            pinned.add("name:_")  # ``_`` in a pattern is a wildcard, not a capture
        return Program(
            lang=PYTHON.name,
            lines=tuple(lines),
            tokens=tuple(tokens),
            deps=tuple(sorted(set(self.deps))),
            pinned=frozenset(pinned),
            name=name,
            separator="\n",
        )


__all__ = ["parse_units", "parse"]


def _compiles(text: str, shown: str, src: SourceMap) -> None:
    """The compiler's own checks of a parsed file ('break' outside a loop,
    'return' outside a function, 'await' outside async): the text is compiled
    to code that never runs, its warnings (``x is 1``) silenced. The text,
    not the tree: a tree handed back to the compiler is walked in Python's
    recursion limit, and a sum of a thousand terms would not compile. Its
    errors give a UTF-8 byte offset; the SyntaxError raised gives the column."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, shown, "exec", dont_inherit=True)
    except SyntaxError as err:
        line = err.lineno or 0
        if err.offset and 0 < line <= len(src.lines):
            err.offset = src.char_col(line, err.offset - 1) + 1
        raise
