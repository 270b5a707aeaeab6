"""The Java frontend: methods as programs of statements.

Read with ``javalang`` (its parser for structure, its tokenizer for exact
positions); nothing is ever compiled or run.

**Units.** Every method and constructor with a body declared in a class,
interface or enum (nested types included), named ``Outer.Inner.method``; an
overloaded name gets ``@LINE`` appended. Methods of anonymous and local
classes stay inside the statement that declares them.

**Lines.** As for Python: a line is a statement with the comment and blank
lines before it, as whole physical lines, so a unit renders to its source
exactly. Line 0 is the method header up to the body's ``{`` (block -1). A
statement whose bodies are braced blocks that open at the end of a line and
close at the start of one (``if``/``else``, ``for``, ``while``, ``do``,
``try``/``catch``/``finally``, ``synchronized``, a bare block) is one line at
its level with one block per body; the closing lines (``} else {``,
``} catch (E e) {``, ``}``, ``} while (c);``) never move (block -1) and sit one
level deeper, so they travel with their statement. Anything else (a
``switch``, a body on the header's line) is a single line.

**Tokens.** One per identifier in the unit. Parameters and locals (block
scoped: a declaration reaches to the end of its block, a ``for``/``catch``/
resource variable to the end of its statement, a lambda parameter to the end
of its lambda) have the views ``param``/``local`` and the referent
``local:<unit>:<line>.<col>:<name>`` of their declaration; every other
identifier (fields, types, methods, labels) has the view ``name`` and no
referent, and is never a renaming target.

**Dependencies** (docs/formats.md lists them; docs/semantics.md is the
contract): per block, by the shared rule of :mod:`.effects`, from each
statement's effect; a statement also reads ``name:x`` for every simple name
``x`` it spells and a declaration of ``x`` writes it, so declarations never
move across statements whose names they would hide or clash with. These
``name:`` resources order lines but are not shown as a line's reads.

**Parsing** uses javalang with two repairs: its tokenizer keeps ``\\uXXXX``
escapes as written (so columns stay true), and its parser keeps
parenthesized expressions whole (:class:`Parenthesized`). Labels, members
after ``.``/``::``, method names and annotation elements are never variables;
locals named inside an anonymous or local class body declared outside it are
pinned (the body may inherit a member of that name).

**Skipped units**: a method whose statements ``javalang`` leaves without
positions, or nested too deeply, is left out and reported in ``skipped``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterable, Sequence

import javalang
from javalang import tree as jt

from ..errors import InvarError, ParseError, UnsupportedError
from ..program import Line, Program, Token
from ..symmetry.renamings import RenamingSpace
from .effects import HEAP, Effect, LineItem, block_deps
from .python import MAX_CHARS, canonical_space as _canonical_space, local_renaming_space
from .units import Units

#: reserved words and literals no variable may be named
JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while true false null var yield
    record sealed permits _""".split()
)
#: static methods of these classes only compute a value (they may read their
#: arguments, arrays included), except those in :data:`IMPURE_STATICS`
PURE_QUALIFIERS = frozenset({"Math", "Integer", "Long", "Double", "Float", "Character", "Boolean", "String", "StrictMath"})
#: static methods of the classes above that act on state: ``random`` advances a
#: shared generator, ``toChars``/``getChars`` fill an array argument
IMPURE_STATICS = frozenset({"random", "toChars", "getChars"})
#: constructing these has no effect beyond the new object; a copy constructor
#: (``new ArrayList<>(xs)``, ``new String(cs)``) still reads its arguments
ALLOCATORS = frozenset(
    """ArrayList LinkedList HashMap TreeMap LinkedHashMap HashSet TreeSet LinkedHashSet ArrayDeque
    StringBuilder String Integer Long Double Object int long double char boolean byte short float""".split()
)
#: reference types whose values unbox (and so may throw NullPointerException)
BOXED = frozenset({"Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float", "Double"})

_TYPES = (jt.ClassDeclaration, jt.InterfaceDeclaration, jt.EnumDeclaration)
_LOOPS = (jt.ForStatement, jt.WhileStatement, jt.DoStatement)
_OPEN = {"(": ")", "[": "]", "{": "}"}


# ----------------------------------------------------------------- parser
class Parenthesized(jt.Primary):
    """``( expression )`` followed by selectors or operators: ``(this.n)++``,
    ``(a[i]).x``. javalang's own parser drops what is written on either side
    of the parentheses and, worse, overwrites the inner expression's
    selectors and operators (``(this.n++)`` becomes a bare ``this``)."""

    attrs = ("expression",)


class _Tokenizer(javalang.tokenizer.JavaTokenizer):
    """javalang's tokenizer without its first step, which replaces every
    ``\\uXXXX`` escape by its character before tokenizing, so that every
    position after an escape (``'\\u3002'``) pointed to the wrong column of
    the source. Escapes stay as written: literals keep them, and an escape
    outside a literal or comment (rare) is a lexical error."""

    def pre_tokenize(self):
        self.data = self.decode_data()
        self.length = len(self.data)


class _Parser(javalang.parser.Parser):
    """javalang's parser with parenthesized primaries kept whole (see
    :class:`Parenthesized`), and ``(a.b) + 1`` read as a sum (only a cast to a
    primitive type may precede a unary ``+``/``-``; javalang reads a cast)."""

    def parse_expression_3(self):
        prefix_operators = []
        while self.tokens.look().value in javalang.tokenizer.Operator.PREFIX:
            prefix_operators.append(self.tokens.next().value)
        if self.would_accept("("):
            try:
                with self.tokens:
                    lambda_exp = self.parse_lambda_expression()
                    if lambda_exp:
                        return lambda_exp
            except javalang.parser.JavaSyntaxError:
                pass
            try:
                with self.tokens:
                    self.accept("(")
                    cast_target = self.parse_type()
                    self.accept(")")
                    if not isinstance(cast_target, jt.BasicType) and self.tokens.look().value in ("+", "-", "++", "--"):
                        raise javalang.parser.JavaSyntaxError("not a cast")
                    expression = self.parse_expression_3()
                    return jt.Cast(type=cast_target, expression=expression)
            except javalang.parser.JavaSyntaxError:
                pass
        parenthesized = self.would_accept("(")
        primary = self.parse_primary()
        if parenthesized:
            primary = Parenthesized(expression=primary)
        primary.prefix_operators = prefix_operators
        primary.selectors = []
        primary.postfix_operators = []
        token = self.tokens.look()
        while token.value in "[.":
            selector = self.parse_selector()
            selector._position = token.position
            primary.selectors.append(selector)
            token = self.tokens.look()
        while token.value in javalang.tokenizer.Operator.POSTFIX:
            primary.postfix_operators.append(self.tokens.next().value)
            token = self.tokens.look()
        return primary


# ------------------------------------------------------------------ entry
def parse_units(text: str, path: str | None = None) -> Units:
    """Every method of ``text`` as a :class:`Program`; see the module docstring."""
    if len(text) > MAX_CHARS:
        raise ParseError(
            f"input too large ({len(text) / 1e6:.1f} MB; the limit is {MAX_CHARS / 1e6:.1f} MB)",
            path=path, line=1, col=1,
        )
    lines = text.split("\n")
    try:
        tokens = list(_Tokenizer(text).tokenize())
        tree = _Parser(tokens).parse()
        methods = [
            (p, n) for p, n in tree
            if isinstance(n, (jt.MethodDeclaration, jt.ConstructorDeclaration)) and n.body is not None
            and all(isinstance(a, (list, tuple, jt.CompilationUnit) + _TYPES) for a in p)
        ]
    except javalang.tokenizer.LexerError as err:
        m = re.search(r"line (\d+)", str(err))
        raise ParseError(str(err).split(",")[0], path=path, line=int(m.group(1)) if m else 1, col=1) from None
    except javalang.parser.JavaSyntaxError as err:
        pos = getattr(err.at, "position", None)
        line, col = (pos.line, pos.column) if pos else (len(lines), 1)
        got = getattr(err.at, "value", "end of input")
        raise ParseError(
            f"{err.description} (at {got!r})", path=path, line=line, col=col,
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
        ) from None
    except (RecursionError, MemoryError):
        raise ParseError("nesting too deep to parse", path=path, line=1, col=1) from None
    if not methods:
        raise ParseError("no method with a body found", path=path, line=1, col=1)
    index = _Index(text, lines, tokens)
    names: dict[str, int] = {}
    for p, n in methods:
        base = ".".join([a.name for a in p if isinstance(a, _TYPES)] + [n.name])
        names[base] = names.get(base, 0) + 1
    units, skipped = [], []
    for p, n in methods:
        name = ".".join([a.name for a in p if isinstance(a, _TYPES)] + [n.name])
        if names[name] > 1:
            name += f"@{n.position.line if n.position else 0}"
        try:
            units.append(_UnitBuilder(index, n, name).build())
        except InvarError as err:
            err.reason = "unsupported construct"  # type: ignore[attr-defined]
            skipped.append(err.located(path))
        except (RecursionError, MemoryError):
            pos = n.position
            err = ParseError(f"method {name!r} is nested too deeply", path=path,
                             line=pos.line if pos else 0, col=pos.column if pos else 0)
            err.reason = "nesting too deep"  # type: ignore[attr-defined]
            skipped.append(err)
    if not units and skipped:
        raise skipped[0]
    return Units(units, skipped)


# ------------------------------------------------------------------ index
class _Index:
    """The file's tokens with the lookups every unit needs."""

    def __init__(self, text: str, lines: list[str], tokens: list) -> None:
        self.lines = lines
        self.tokens = tokens
        self.values = [t.value for t in tokens]
        self.line_of = [t.position.line for t in tokens]
        self.col_of = [t.position.column - 1 for t in tokens]
        self.at = {(t.position.line, t.position.column): k for k, t in enumerate(tokens)}
        #: matching bracket of every bracket token, and each token's innermost open bracket
        self.match: dict[int, int] = {}
        self.enclosing: list[int] = [-1] * len(tokens)
        stack: list[int] = []
        for k, v in enumerate(self.values):
            self.enclosing[k] = stack[-1] if stack else -1
            if v in _OPEN:
                stack.append(k)
            elif v in (")", "]", "}") and stack:
                o = stack.pop()
                self.match[o] = k
                self.match[k] = o
        self.identifier = [isinstance(t, javalang.tokenizer.Identifier) for t in tokens]

    def tok(self, node) -> int:
        pos = getattr(node, "position", None)
        if pos is None or (pos.line, pos.column) not in self.at:
            raise UnsupportedError(f"{type(node).__name__} without a source position",
                                   line=pos.line if pos else 0, col=pos.column if pos else 0)
        return self.at[(pos.line, pos.column)]

    def first_on_line(self, k: int) -> bool:
        return k == 0 or self.line_of[k - 1] < self.line_of[k]

    def last_on_line(self, k: int) -> bool:
        return k + 1 >= len(self.values) or self.line_of[k + 1] > self.line_of[k]


def _child_lists(s) -> list[list] | None:
    """The statement lists of a compound statement's braced bodies, in order,
    or None when a body is not a braced block."""
    if isinstance(s, jt.BlockStatement):
        return [s.statements or []]
    if isinstance(s, jt.IfStatement):
        if not isinstance(s.then_statement, jt.BlockStatement):
            return None
        out = [s.then_statement.statements or []]
        e = s.else_statement
        if e is None:
            return out
        rest = _child_lists(e) if isinstance(e, (jt.IfStatement, jt.BlockStatement)) else None
        return None if rest is None else out + rest
    if isinstance(s, _LOOPS):
        return [s.body.statements or []] if isinstance(s.body, jt.BlockStatement) else None
    if isinstance(s, jt.TryStatement):
        out = [s.block or []] + [c.block or [] for c in (s.catches or [])]
        if s.finally_block is not None:
            out.append(s.finally_block)
        return out
    if isinstance(s, jt.SynchronizedStatement):
        return [s.block or []]
    return None


#: statements whose effect depends on where they run (jumps, barriers)
_CONTROL = (jt.ReturnStatement, jt.ThrowStatement, jt.AssertStatement, jt.BreakStatement,
            jt.ContinueStatement, jt.ClassDeclaration, jt.SynchronizedStatement)
#: bodies that do not run where they are written
_BODIES = (jt.LambdaExpression, jt.ClassCreator, jt.MethodDeclaration, jt.ConstructorDeclaration,
           jt.ClassDeclaration)


def _in_body(path) -> bool:
    """Whether a walk's ancestors put a node inside a lambda or a class body:
    code there does not run where it is written, so its reads and writes
    still count (conservatively) but its jumps and barriers do not."""
    return any(isinstance(a, _BODIES) for a in path)


def _for_of_header(path):
    """The ``for`` statement whose header (control) holds the node at the end
    of ``path``, if its nearest statement ancestor is one."""
    for i in range(len(path) - 1, -1, -1):
        a = path[i]
        if isinstance(a, jt.ForStatement):
            return a if i + 1 < len(path) and path[i + 1] is a.control else None
        if isinstance(a, (jt.Statement, jt.LambdaExpression, jt.ClassCreator, jt.MethodDeclaration,
                          jt.ConstructorDeclaration)):
            return None
    return None


def _parent(path) -> object:
    """The nearest node (not list) among a walk's ancestors."""
    for a in reversed(path):
        if not isinstance(a, (list, tuple)):
            return a
    return None


def _declared_kind(node, parent) -> str:
    """``primitive``, ``array``, ``boxed``, ``reference`` or ``unknown``: the
    declared type of a parameter or local, as far as unboxing and iteration care."""
    if isinstance(node, jt.VariableDeclarator):
        typ = getattr(parent, "type", None)
        if node.dimensions:
            return "array"
    elif isinstance(node, (jt.FormalParameter, jt.TryResource)):
        typ = node.type
        if getattr(node, "varargs", False):
            return "array"
    elif isinstance(node, jt.CatchClauseParameter):
        return "reference"
    else:
        return "unknown"
    if typ is None:
        return "unknown"
    if typ.dimensions:
        return "array"
    if isinstance(typ, jt.BasicType):
        return "primitive"
    while getattr(typ, "sub_type", None) is not None:  # java.lang.Integer
        typ = typ.sub_type
    return "boxed" if typ.name in BOXED else "reference"


# ---------------------------------------------------------------- builder
class _UnitBuilder:
    def __init__(self, index: _Index, method, name: str) -> None:
        self.ix = index
        self.method = method
        self.name = name
        self.items: list[LineItem] = []
        self.deps: list[tuple[int, int]] = []
        self.blocks = 0
        self.memo: dict[int, Effect] = {}

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

    def _block(self, stmts: Sequence, depth: int, protected: bool, close: int) -> None:
        if not stmts:
            return
        ix = self.ix
        block = self.blocks
        self.blocks += 1
        starts = [self._statement_start(ix.tok(s)) for s in stmts]
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
                effect.absorb(self.effect(stmts[r]))
            span = range(starts[i], ends[run[-1]] + 1)
            # every local named anywhere in the statement is read (receivers of
            # calls, lambda captures), whatever node the parser put it under
            effect.reads.update(self.ref_of[k] for k in span if k in self.ref_of)
            if not (len(run) == 1 and self._compound(stmts[i], starts[i], ends[i], block, depth, protected)):
                self._add(ix.line_of[ends[run[-1]]], block, depth, ix.line_of[starts[i]], effect)
            else:
                self.items[idx].effect = effect
            members.append((idx, self._scoped(effect, [stmts[r] for r in run], span)))
        self.deps += block_deps(members, protected=protected)

    def _statement_start(self, k: int) -> int:
        """The first token of the statement ``javalang`` places at token ``k``:
        its annotations, modifiers and labels included (the parser puts a local
        declaration at its type), found by walking back to the previous
        statement's end."""
        ix = self.ix
        while k > 0:
            v = ix.values[k - 1]
            if v in (";", "{", "}"):
                break
            k = ix.match[k - 1] if v in (")", "]") and k - 1 in ix.match else k - 1
        return k

    def _scoped(self, effect: Effect, stmts: Sequence, span: range) -> Effect:
        """``effect`` with what keeps names meaning the same for the dependency
        rule (not shown as the line's reads and writes): the statement reads
        ``name:x`` for every simple name ``x`` it spells, and a declaration of
        local ``x`` at this block's level writes it. So a declaration never
        moves across a statement that spells its name: where that name is a
        field (its meaning would change), or is declared again in a nested
        block, a ``for``, a ``catch`` or a lambda (Java forbids the shadowing)."""
        ix = self.ix
        out = Effect(set(effect.reads), set(effect.writes), effect.side, effect.barrier, effect.jump,
                     effect.may_raise)
        for k in span:
            if ix.identifier[k] and k not in self.not_a_name:
                out.reads.add(f"name:{ix.values[k]}")
                if self.ref_of.get(k) in self.unboxes and k not in self.decl_toks:
                    out.may_raise = True
        for s in stmts:
            if isinstance(s, jt.LocalVariableDeclaration):
                out.writes.update(f"name:{d.name}" for d in s.declarators)
            elif isinstance(s, jt.ClassDeclaration):
                out.writes.add(f"name:{s.name}")
        return out

    def _compound(self, stmt, s: int, e: int, block: int, depth: int, protected: bool) -> bool:
        lists = _child_lists(stmt)
        if not lists:
            return False
        groups = self._groups(s, e)
        if len(groups) != len(lists) or not all(self._splittable_group(o, c) for o, c in groups):
            return False
        ix = self.ix
        for (o, c), stmts in zip(groups, lists):
            if stmts and not (o < ix.tok(stmts[0]) and ix.tok(stmts[-1]) < c):
                return False
        inner = protected or isinstance(stmt, jt.TryStatement)
        self._add(ix.line_of[groups[0][0]], block, depth, ix.line_of[s], self.effect(stmt))
        for g, ((o, c), stmts) in enumerate(zip(groups, lists)):
            self._block(stmts, depth + 1, inner, c)
            end = ix.line_of[groups[g + 1][0]] if g + 1 < len(groups) else ix.line_of[e]
            self._add(end, -1, depth + 1, ix.line_of[c], None)
        return True

    # ---------------------------------------------------------------- build
    def build(self) -> Program:
        ix, m = self.ix, self.method
        k = ix.tok(m)
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
        self._flatten()
        self._declarations()
        self.base = ix.line_of[start] - 1
        body = m.body or []
        if self._splittable_group(open_, close) and body:
            self._add(ix.line_of[open_], -1, 0, ix.line_of[start], None)
            self._block(body, 1, False, close)
            self._add(ix.line_of[close], -1, 1, ix.line_of[close], None)
        else:
            self._add(ix.line_of[close], -1, 0, ix.line_of[start], None)
        return self._program()

    def _program(self) -> Program:
        ix = self.ix
        lines, first_lines = [], []
        prev = self.base
        for it in self.items:
            first_lines.append(prev + 1)
            e = it.effect
            lines.append(Line(
                text="\n".join(ix.lines[prev : it.code_end]),
                reads=frozenset(e.reads) if e else frozenset(),
                writes=frozenset(e.writes) if e else frozenset(),
                block=it.block, depth=it.depth, source_line=it.source_line,
            ))
            prev = it.code_end
        tokens: list[Token] = []
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k]:
                continue
            line = ix.line_of[k]
            li = bisect_right(first_lines, line) - 1
            off = sum(len(ix.lines[x - 1]) + 1 for x in range(first_lines[li], line)) + ix.col_of[k]
            ref = self.ref_of.get(k)
            view = self.view_of.get(ref, "name") if ref else "name"
            tokens.append(Token(ix.values[k], "name", view, ref, li, off))
        return Program(
            lang="java", lines=tuple(lines), tokens=tuple(tokens),
            deps=tuple(sorted(set(self.deps))), pinned=self.pinned, name=self.name, separator="\n",
        )

    # ---------------------------------------------------------- scoping
    def _scope_end(self, k: int) -> int:
        """Last token a declaration at token ``k`` reaches."""
        ix = self.ix
        nxt = ix.values[k + 1] if k + 1 < len(ix.values) else ""
        if nxt == "->":
            return self._lambda_end(k + 1)
        o = ix.enclosing[k]
        if o >= 0 and ix.values[o] == "(":
            c = ix.match[o]
            after = ix.values[c + 1] if c + 1 < len(ix.values) else ""
            if after == "->":
                return self._lambda_end(c + 1)
            if after == "{":
                return ix.match[c + 1]
            j = c + 1
            while j < self.close_tok and ix.values[j] != ";":
                j = ix.match.get(j, j) + 1 if ix.values[j] in _OPEN else j + 1
            return j
        return ix.match[o] if o >= 0 and ix.values[o] == "{" else self.close_tok

    def _stmt_end(self, s) -> int:
        """The last token of statement ``s`` (javalang gives only starts):
        an unbraced body ends where its own last statement ends, an
        ``if``/``else`` chain at its last branch."""
        ix = self.ix
        if isinstance(s, jt.IfStatement):
            return self._stmt_end(s.else_statement if s.else_statement is not None else s.then_statement)
        if isinstance(s, (jt.ForStatement, jt.WhileStatement)):
            return self._stmt_end(s.body)
        k = ix.tok(s)
        if isinstance(s, jt.DoStatement):
            k = self._stmt_end(s.body) + 1  # while ( … ) ;
            return ix.match[k + 1] + 1
        braced = isinstance(s, (jt.BlockStatement, jt.SwitchStatement, jt.SynchronizedStatement, jt.TryStatement,
                                jt.ClassDeclaration))
        while k < self.close_tok:
            v = ix.values[k]
            if v == "{" and braced:
                k = ix.match[k]
                if not (isinstance(s, jt.TryStatement) and ix.values[k + 1] in ("catch", "finally")):
                    return k
            elif v in _OPEN:
                k = ix.match.get(k, k)
            elif v == ";" and not braced:
                return k
            k += 1
        return self.close_tok

    def _lambda_end(self, arrow: int) -> int:
        ix = self.ix
        j = arrow + 1
        if j < len(ix.values) and ix.values[j] == "{":
            return ix.match[j]
        while j < self.close_tok:
            v = ix.values[j]
            if v in _OPEN:
                j = ix.match.get(j, j) + 1
                continue
            if v in (")", "]", "}", ";", ","):
                return j
            j += 1
        return j

    def _flatten(self) -> None:
        """Walk the method once: ``nodes`` lists ``(node, ancestors)`` in
        pre-order (ancestors as a tuple of nodes, root first), and
        ``subtree[id(node)]`` is the slice of ``nodes`` under a node, so a
        statement's effect reads its slice instead of walking it again."""
        self.nodes: list[tuple[object, tuple]] = []
        self.subtree: dict[int, tuple[int, int]] = {}
        nodes, subtree = self.nodes, self.subtree

        def visit(node, ancestors: tuple) -> None:
            i = len(nodes)
            nodes.append((node, ancestors))
            inner = ancestors + (node,)
            for child in node.children:
                visit_value(child, inner)
            subtree[id(node)] = (i, len(nodes))

        def visit_value(value, ancestors: tuple) -> None:
            if isinstance(value, javalang.ast.Node):
                visit(value, ancestors)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    visit_value(v, ancestors)

        visit(self.method, ())

    def _declarations(self) -> None:
        """Find every parameter and local, resolve every identifier token."""
        ix = self.ix
        decls: list[tuple[int, int, str, str]] = []  # (token, scope end, name, view)
        self.decl_tok: dict[int, int] = {}
        cursor = self.start_tok
        arrays: set[int] = set()  # declarations of array type
        unboxes: set[int] = set()  # declarations whose reads may unbox (boxed or inferred type)
        finals: set[int] = set()  # declared final
        for node, path in self.nodes:
            pos = getattr(node, "position", None)
            if pos is not None and (pos.line, pos.column) in ix.at:
                cursor = max(cursor, ix.at[(pos.line, pos.column)])
            name = None
            if isinstance(node, jt.VariableDeclarator) and isinstance(_parent(path), (jt.FieldDeclaration, jt.ConstantDeclaration)):
                continue  # a field of an anonymous or local class: a member, not a local
            if isinstance(node, (jt.VariableDeclarator, jt.CatchClauseParameter, jt.InferredFormalParameter, jt.TryResource)):
                name = node.name
            elif isinstance(node, jt.FormalParameter):
                name = node.name
            elif isinstance(node, jt.LambdaExpression):
                for p in node.parameters or []:
                    if isinstance(p, jt.MemberReference) and p.position is not None:
                        k = ix.at.get((p.position.line, p.position.column))
                        if k is not None:
                            decls.append((k, self._scope_end(k), p.member, "param"))
                            self.decl_tok[id(p)] = k
                            unboxes.add(k)  # its type is inferred
                continue
            if name is None:
                continue
            k = self._find_decl(name, cursor, inferred=isinstance(node, jt.InferredFormalParameter))
            if k is None:
                raise UnsupportedError(f"cannot locate the declaration of {name!r}",
                                       line=ix.line_of[cursor], col=ix.col_of[cursor] + 1)
            view = "param" if isinstance(node, (jt.FormalParameter, jt.InferredFormalParameter)) else "local"
            loop = _for_of_header(path)
            if isinstance(node, jt.FormalParameter) and any(node is p for p in self.method.parameters):
                end = self.close_tok
            elif loop is not None:  # a for variable reaches the end of its loop, braced or not
                end = self._stmt_end(loop)
            else:
                end = self._scope_end(k)
            decls.append((k, end, name, view))
            self.decl_tok[id(node)] = k
            kind = _declared_kind(node, _parent(path))
            if "final" in (getattr(_parent(path), "modifiers", None) or getattr(node, "modifiers", None) or ()):
                finals.add(k)
            if kind == "array":
                arrays.add(k)
            elif kind in ("boxed", "unknown"):
                unboxes.add(k)
            cursor = k + 1
        self.not_a_name = self._not_names()
        self.ref_of: dict[int, str] = {}
        self.view_of: dict[str, str] = {}
        by_name: dict[str, list[tuple[int, int, str]]] = {}
        for k, end, name, view in decls:
            ref = f"local:{self.name}:{ix.line_of[k]}.{ix.col_of[k] + 1}:{name}"
            by_name.setdefault(name, []).append((k, end, ref))
            self.view_of[ref] = view
            self.ref_of[k] = ref
        self.decl_toks = frozenset(self.ref_of)
        self.arrays = frozenset(self.ref_of[k] for k in arrays)
        self.unboxes = frozenset(self.ref_of[k] for k in unboxes)
        self.finals = frozenset(self.ref_of[k] for k in finals)
        for cands in by_name.values():
            cands.sort()
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k] or k in self.ref_of or k in self.not_a_name:
                continue
            cands = by_name.get(ix.values[k])
            if not cands:
                continue
            best = None
            for d, end, ref in cands:
                if d <= k <= end:
                    best = ref
            if best is not None:
                self.ref_of[k] = best
        self.pinned = self._captured_by_classes()

    def _not_names(self) -> set[int]:
        """Identifier tokens that cannot name a variable: members after ``.``
        or ``::``, method names before ``(``, labels and ``break``/``continue``
        targets (a label may share a local's name)."""
        ix = self.ix
        out = set()
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k]:
                continue
            before = ix.values[k - 1]
            if before in (".", "::", "break", "continue") or ix.values[k + 1] == "(":
                out.add(k)
            elif before in ("(", ",") and ix.values[k + 1] == "=" and self._in_annotation(k):
                out.add(k)  # an annotation element: @SuppressWarnings(value = "x")
        for node, _ in self.nodes:
            if isinstance(node, jt.Statement) and node.label and node.position is not None:
                k = ix.at.get((node.position.line, node.position.column))
                # nested labels (``a: b: for …``) share the outer one's position
                while k is not None and ix.identifier[k] and ix.values[k + 1] == ":":
                    out.add(k)
                    k += 2
        return out

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

    def _captured_by_classes(self) -> frozenset[str]:
        """Locals declared outside an anonymous or local class body and named
        inside it: there a simple name may mean a member the class inherits
        (which invar cannot see), so these keep their names."""
        ix = self.ix
        bodies = []
        for node, _ in self.nodes:
            members = node.body if isinstance(node, jt.ClassCreator) else (
                node.body if isinstance(node, jt.ClassDeclaration) and node is not self.method else None)
            if not members:
                continue
            for member in members:
                pos = getattr(member, "position", None)
                k = ix.at.get((pos.line, pos.column)) if pos is not None else None
                if k is not None and ix.enclosing[k] >= 0:
                    o = ix.enclosing[k]
                    bodies.append((o, ix.match.get(o, self.close_tok)))
                    break
            else:
                pos = self.method.position
                raise UnsupportedError("a class body whose members have no source position",
                                       line=pos.line if pos else 0, col=pos.column if pos else 0)
        pinned = set()
        decl_of = {ref: k for k, ref in self.ref_of.items() if k in self.decl_toks}
        for k, ref in self.ref_of.items():
            d = decl_of[ref]
            if any(o < k < c and not o < d < c for o, c in bodies):
                pinned.add(ref)
        return frozenset(pinned)

    def _find_decl(self, name: str, cursor: int, inferred: bool = False) -> int | None:
        """The token declaring ``name`` at or after ``cursor``: the name right
        after its type (``,`` too, for a second declarator), before what may
        follow a declarator; ``inferred`` lambda parameters have no type. Never
        a use: ``this.n)``, ``f(a, n)``, ``(n)`` declare nothing."""
        ix = self.ix
        for k in range(cursor, self.close_tok + 1):
            if ix.identifier[k] and ix.values[k] == name and ix.values[k + 1] in ("=", ",", ";", "[", ")", ":", "->"):
                before = ix.values[k - 1]
                if inferred:
                    if before in ("(", ",") or ix.values[k + 1] == "->":
                        return k
                elif ix.identifier[k - 1] or isinstance(ix.tokens[k - 1], javalang.tokenizer.BasicType) \
                        or before in (">", ">>", ">>>", "]", "...") \
                        or (before == "," and ix.values[k + 1] in ("=", ",", ";", "[")):
                    return k
        return None

    # ------------------------------------------------------------- effects
    def effect(self, stmt) -> Effect:
        got = self.memo.get(id(stmt))
        if got is None:
            got = self.memo[id(stmt)] = self._effect(stmt)
        return got

    def _local(self, node) -> str | None:
        pos = getattr(node, "position", None)
        if pos is None:
            return None
        return self.ref_of.get(self.ix.at.get((pos.line, pos.column), -1))

    def _effect(self, stmt) -> Effect:
        e = Effect()
        start, end = self.subtree[id(stmt)]
        below = len(self.nodes[start][1])  # ancestors of stmt: not part of its walk's paths
        for node, ancestors in self.nodes[start:end]:
            path = ancestors[below:]
            ops = set(getattr(node, "prefix_operators", None) or ()) | set(getattr(node, "postfix_operators", None) or ())
            if ops & {"++", "--"}:
                self._store(e, node)  # x++, this.n++, a[i]--, ++obj.f
            if isinstance(node, jt.MemberReference):
                ref = self._local(node)
                if ref is not None:
                    e.reads.add(ref)
                else:
                    e.reads.add(HEAP)
                    e.may_raise = True  # a field may unbox
                    if not node.qualifier:
                        e.reads.add(f"field:{node.member}")
                if node.qualifier or node.selectors:
                    e.reads.add(HEAP)
                    e.may_raise = True
            elif isinstance(node, jt.Assignment):
                self._store(e, node.expressionl)
                if node.type in ("/=", "%="):
                    e.may_raise = True
            elif isinstance(node, (jt.VariableDeclarator, jt.CatchClauseParameter, jt.TryResource,
                                   jt.FormalParameter, jt.InferredFormalParameter)):
                k = self.decl_tok.get(id(node))
                if k is not None:
                    e.writes.add(self.ref_of[k])
            elif isinstance(node, jt.MethodInvocation):
                e.reads.add(HEAP)
                e.may_raise = True
                if not self._pure_call(node):
                    e.writes.add(HEAP)
                    e.side = True
            elif isinstance(node, (jt.SuperMethodInvocation, jt.SuperMemberReference)):
                e.reads.add(HEAP)
                e.may_raise = True
                if isinstance(node, jt.SuperMethodInvocation):
                    e.writes.add(HEAP)
                    e.side = True
            elif isinstance(node, (jt.ExplicitConstructorInvocation, jt.SuperConstructorInvocation)):
                # this(…) / super(…) must stay the constructor's first statement
                e.reads.add(HEAP)
                e.writes.add(HEAP)
                e.side = e.may_raise = e.barrier = True
            elif isinstance(node, jt.ClassCreator):
                self._creation(e, node)
            elif isinstance(node, jt.ArrayCreator):
                e.may_raise = True  # a negative size
            elif isinstance(node, (jt.ArraySelector, jt.Cast)):
                e.reads.add(HEAP)
                e.may_raise = True
            elif isinstance(node, jt.This):
                if node.selectors:
                    e.reads.add(HEAP)
            elif isinstance(node, jt.BinaryOperation) and node.operator in ("/", "%"):
                e.may_raise = True
            elif isinstance(node, jt.EnhancedForControl):
                # iterating reads the elements; over anything but an array it
                # calls iterator(), hasNext() and next()
                e.reads.add(HEAP)
                e.may_raise = True
                it = node.iterable
                if not (isinstance(it, jt.MemberReference) and not it.qualifier and not it.selectors
                        and self._local(it) in self.arrays):
                    e.writes.add(HEAP)
                    e.side = True
            elif isinstance(node, jt.TryStatement) and node.resources:
                # the resources are closed on the way out: close() is a call
                e.reads.add(HEAP)
                e.writes.add(HEAP)
                e.side = e.may_raise = True
            elif isinstance(node, jt.SwitchStatement):
                e.may_raise = True  # a null string, enum or boxed value
            elif not isinstance(node, _CONTROL) or _in_body(path):
                pass
            elif isinstance(node, (jt.ReturnStatement, jt.ThrowStatement, jt.AssertStatement)):
                e.barrier = True
            elif isinstance(node, (jt.BreakStatement, jt.ContinueStatement)):
                loops = _LOOPS if isinstance(node, jt.ContinueStatement) else _LOOPS + (jt.SwitchStatement,)
                if node.goto or not any(isinstance(a, loops) for a in path):
                    e.barrier = e.barrier or bool(node.goto)
                    e.jump = e.jump or not node.goto
            elif isinstance(node, (jt.ClassDeclaration, jt.SynchronizedStatement)):
                e.barrier = True
            if isinstance(node, _LOOPS) and not _in_body(path) and self._maybe_endless(node):
                # a loop that the compiler may judge endless: what follows it is
                # unreachable, so nothing may move after it
                e.barrier = True
        return e

    def _creation(self, e: Effect, node) -> None:
        """``new T(…)``: an allocation reads its arguments (a copy constructor
        reads its source); unless ``T`` is a known allocator, it is a call."""
        e.may_raise = True
        if node.arguments:
            e.reads.add(HEAP)
        if isinstance(node, jt.InnerClassCreator) or node.qualifier or node.body \
                or node.type.name not in ALLOCATORS or node.type.sub_type is not None:
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = True

    def _pure_call(self, node) -> bool:
        """Whether a method invocation only computes a value (see PURE_QUALIFIERS)."""
        q = node.qualifier
        if q not in PURE_QUALIFIERS or node.member in IMPURE_STATICS:
            return False
        # a local of that name takes precedence over the class
        pos = node.position
        k = self.ix.at.get((pos.line, pos.column)) if pos is not None else None
        return k is None or k not in self.ref_of

    def _maybe_endless(self, loop) -> bool:
        """Whether a loop's condition may be a constant expression (``true``,
        ``for (;;)``, a constant field): none of its names is a local that is
        not declared ``final``, and it calls, allocates and indexes nothing."""
        if isinstance(loop, jt.ForStatement):
            control = loop.control
            if isinstance(control, jt.EnhancedForControl):
                return False
            cond = control.condition
        else:
            cond = loop.condition
        if cond is None:
            return True
        for _, n in cond:
            if isinstance(n, (jt.MethodInvocation, jt.ClassCreator, jt.ArrayCreator, jt.ArraySelector,
                              jt.Assignment, jt.LambdaExpression, jt.This, jt.SuperMethodInvocation)):
                return False
            if isinstance(n, jt.MemberReference):
                ref = self._local(n)
                if ref is not None and ref not in self.finals:
                    return False
        return True

    def _store(self, e: Effect, target) -> None:
        while isinstance(target, Parenthesized) and not target.selectors:
            target = target.expression
        ref = self._local(target) if isinstance(target, jt.MemberReference) and not target.qualifier and not target.selectors else None
        if ref is not None:
            e.writes.add(ref)
        else:
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = e.may_raise = True


# -------------------------------------------------------------- renamings
def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()) -> RenamingSpace:
    """All renamings of a method's parameters and locals that capture nothing:
    no target is a Java keyword or any identifier the method uses otherwise
    (fields, types, methods, labels). Pool and pins as for Python."""
    return local_renaming_space(program, pool=pool, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


def canonical_space(program: Program, *, pins: Iterable[str] = ()) -> RenamingSpace:
    """Renamings onto the fixed pool ``v0, v1, …``; the first is the canonical form."""
    return _canonical_space(program, pins=pins, is_keyword=lambda w: w in JAVA_KEYWORDS)


def parse(text: str, path: str | None = None) -> Program:
    """The single method of ``text``."""
    units = parse_units(text, path)
    if len(units) != 1:
        raise ParseError(f"expected one method, found {len(units)}", path=path, line=1, col=1)
    return units[0]


__all__ = ["parse_units", "parse", "renaming_space", "canonical_space", "JAVA_KEYWORDS"]
