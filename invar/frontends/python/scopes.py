"""Who each Python name refers to: ``symtable`` scopes matched to ``ast`` nodes.

The compiler's symbol tables are the authority on scopes (comprehension
scopes, ``nonlocal``, class bodies that closures skip, implicit globals), but
they carry no source positions. This pass walks the ``ast`` in the order the
compiler's symbol-table pass visits it, so that the n-th scope the walk enters
under a parent is the n-th child table of that parent, and resolves every name
occurrence (``Name``, ``arg``, and the bindings the ``ast`` gives no node of
their own: ``def``/``class`` names, ``except … as``, ``global``/``nonlocal``,
imports, ``match`` captures) to a *resource* (``local:<scope>:<name>``,
``global:<name>`` …) and a *view* (``param``, ``local``, ``import``, ``global``,
``builtin``, ``free``, ``class``, ``name``).

The walk is iterative: expressions nested thousands deep (long ``a + b + …``
chains) must not exhaust Python's recursion limit.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from bisect import bisect_right
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import ClassVar

from ...errors import UnsupportedError

#: builtins whose use makes local names observable by their spelling
DYNAMIC_BUILTINS = frozenset({"locals", "vars", "eval", "exec", "dir", "globals"})
#: attributes through which code reaches a frame and so its locals by name
#: (``sys._getframe().f_locals``, ``inspect.currentframe()``, ``inspect.stack()``)
FRAME_ATTRIBUTES = frozenset({"_getframe", "currentframe", "f_locals", "f_back", "stack", "getouterframes", "trace"})
#: what reaches the frame of a function's caller (``sys._getframe(1)``, ``frame.f_back``,
#: ``inspect.stack()``, ``traceback.walk_stack``): a call anywhere may then read its caller's locals
CALLER_FRAMES = frozenset({"f_back", "getouterframes", "walk_stack", "_current_frames", "stack", "trace", "_getframe"})
#: the modules whose :data:`CALLER_FRAMES` functions reach frames (``.stack`` of another object is no frame)
FRAME_MODULES = frozenset({"sys", "inspect", "traceback"})

_BUILTINS = frozenset(dir(builtins))
#: builtins whose calls by name :mod:`.reach` reads (the scope readers, and
#: the reflective ones that may find a namespace)
WATCHED_CALLS = DYNAMIC_BUILTINS | {"getattr", "__import__"}
#: attributes that may lead to a scope-reading builtin or to a namespace as an
#: object (a module's, a frame's, a cell's): where one is read, :mod:`.reach`
#: looks at the whole module
WATCHED_ATTRIBUTES = (
    DYNAMIC_BUILTINS
    | FRAME_ATTRIBUTES
    | frozenset(
        {
            "modules",
            "__globals__",
            "func_globals",
            "f_globals",
            "tb_frame",
            "gi_frame",
            "cr_frame",
            "ag_frame",
            "getmodule",
            "import_module",
            "get_referrers",
            "get_referents",
            "get_objects",
            "__closure__",
            "cell_contents",
            "func_closure",
            "__builtins__",
        }
    )
)
#: modules whose import :mod:`.reach` must follow (``import builtins``, the
#: module run as ``__main__``), and those whose functions it must follow when
#: imported by name (``from sys import modules``)
WATCHED_MODULES = frozenset({"builtins", "__main__"})
WATCHED_FROM = WATCHED_MODULES | {"sys", "importlib", "inspect", "gc"}

#: fields that never hold a node a pass needs: strings and numbers, and the
#: context and operator singletons (``Load``, ``Add`` …), which carry no name
#: and no effect beyond their parent's; skipping them spares a third of the nodes
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "arg",
        "attr",
        "name",
        "asname",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
        "tag",
        "rest",
        "kwd_attrs",
        "type_ignores",
    }
)
#: nodes whose ``value``/``names`` fields hold constants or strings, not nodes
_LEAF_NODES = (ast.Constant, ast.MatchSingleton, ast.Global, ast.Nonlocal)
_child_fields: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of node class ``cls`` that may hold child nodes, in order."""
    got = _child_fields.get(cls)
    if got is None:
        leaf = issubclass(cls, _LEAF_NODES)
        got = _child_fields[cls] = () if leaf else tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    return got


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes`` as a list, less the leaves of :data:`_LEAF_FIELDS`."""
    fields = _child_fields.get(node.__class__)
    if fields is None:
        fields = child_fields(node.__class__)
    out: list[ast.AST] = []
    for f in fields:
        v = getattr(node, f, None)
        if v.__class__ is list:
            out += [x for x in v if isinstance(x, ast.AST)]
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: what ``[ \t\\\n]`` matches: the blanks allowed between a keyword and a name
_BLANKS = frozenset(" \t\\\n")


def _is_word(ch: str) -> bool:
    """``re``'s ``\\w`` on ``str``: alphanumeric in Unicode's sense, or ``_``."""
    return ch in _ASCII_WORD or ch.isalnum()


def _boundary(text: str, pos: int, end: int) -> bool:
    """``re``'s ``\\b`` at ``pos`` of ``text`` searched up to ``end``."""
    return (pos > 0 and _is_word(text[pos - 1])) != (pos < end and _is_word(text[pos]))


def search_binding(
    text: str, name: str, lo: int, hi: int, *, keyword: str = "", word_start: bool = False, min_blanks: int = 1
) -> int:
    """Where ``name`` stands after ``keyword`` in ``text[lo:hi]``, or -1.

    The result is exactly the start of group 1 of ``re.search(P, text, lo, hi)``
    with ``P = (\\b)KEYWORD[ \\t\\\\\\n]{min_blanks,}(NAME)\\b`` (``\\b`` first only
    with ``word_start``), or ``\\b(NAME)\\b`` without a keyword; compiling one
    pattern per name cost more than the rest of the scope pass. A match is the
    leftmost start at which the pattern matches, and since a name never starts
    with a blank, the blank run before it is all blanks there (no backtracking)."""
    end = min(hi, len(text))
    if not keyword:
        keyword, word_start, min_blanks = name, True, 0
        name_offset = 0
    else:
        name_offset = len(keyword)
    p = text.find(keyword, lo, end)
    while p >= 0:
        if not word_start or _boundary(text, p, end):
            q = p + name_offset
            if name_offset:
                while q < end and text[q] in _BLANKS:
                    q += 1
            stop = q + len(name)
            if (
                q - p - name_offset >= min_blanks
                and stop <= end
                and text.startswith(name, q)
                and _boundary(text, stop, end)
            ):
                return q
        p = text.find(keyword, p + 1, end)
    return -1


_COMPREHENSION_NAMES = {
    ast.ListComp: "listcomp",
    ast.SetComp: "setcomp",
    ast.DictComp: "dictcomp",
    ast.GeneratorExp: "genexpr",
}


@dataclass(eq=False, slots=True)
class Scope:
    """One symbol table with its place in the source."""

    #: ``module``, ``function``, ``lambda``, ``class`` or ``comprehension``
    kind: str
    #: a stable id: the ``__qualname__`` of functions and classes, with
    #: ``<lambda>@LINE.COL``-style parts for anonymous scopes
    path: str
    table: symtable.SymbolTable
    parent: "Scope | None"
    node: ast.AST | None
    #: child tables not yet matched to an ast node, by (name, line)
    pending: dict[tuple[str, int], deque] = field(default_factory=dict)
    #: whether a ``match`` statement stands in this scope or a nested one
    has_match: bool = False
    #: name -> (resource, view, binder) as seen from here, memoised
    resolved: dict[str, tuple[str, str, Scope | None]] = field(default_factory=dict)

    def within(self, other: "Scope") -> bool:
        """Whether this scope is ``other`` or nested inside it."""
        s: Scope | None = self
        while s is not None:
            if s is other:
                return True
            s = s.parent
        return False


@dataclass(slots=True)
class Occurrence:
    """One occurrence of a name in the source."""

    name: str
    #: 1-based line and 0-based *character* column; ``col`` is -1 when the
    #: occurrence could not be located exactly (its referent is then pinned)
    line: int
    col: int
    #: what it refers to, scope-resolved (``local:f:x``, ``global:print`` …)
    resource: str
    view: str
    #: the scope that binds it (None for globals, builtins and unknown names)
    binder: Scope | None
    #: ``load``, ``store``, ``del``, ``decl`` (``global``/``nonlocal``),
    #: ``param`` (a parameter no caller can name: positional-only, ``*args``,
    #: ``**kwargs``), ``kwparam`` (one a caller may pass by keyword: part of
    #: the function's interface) or ``defname`` (the name a ``def`` or
    #: ``class`` binds, which its ``__name__`` spells)
    ctx: str
    #: the scope the occurrence stands in
    scope: Scope


@dataclass(slots=True)
class Resolution:
    """Every name occurrence of a module, and what the effect pass needs."""

    occurrences: list[Occurrence]
    #: ``id(node)`` -> the occurrences that node carries
    by_node: dict[int, list[Occurrence]]
    #: ``id(scope node)`` -> its scope
    scope_of: dict[int, Scope]
    #: resources of variables captured by a nested scope (read and written
    #: behind the enclosing function's back, so treated as heap)
    cells: set[str]
    module: Scope
    #: (line, name) of every keyword argument ``f(name=…)``, sorted
    keywords: list[tuple[int, str]]
    #: (line, column) of every name occurrence whose spelling the program
    #: observes (inside a self-documenting f-string, ``f"{x=}"``)
    spelled: set[tuple[int, int]]
    #: scopes that read their variables by name (frame access here; the calls
    #: of ``locals``, ``eval`` … however named are added by :mod:`.reach`), by
    #: ``id`` of the scope
    dynamic: set[int]
    #: the module has ``from __future__ import annotations``: no annotation runs
    deferred_annotations: bool = False
    #: the module reaches a caller's frame (:data:`CALLER_FRAMES`): any call may read its caller's scope
    caller_frames: bool = False
    #: what :mod:`.reach` finds (set by the parser after this pass): ``id`` of
    #: every call that may read its scope by name, whatever it is called;
    #: whether such a builtin escaped into the heap (then any call may be one);
    #: whether the module's namespace, and closures' cells, are reachable as objects
    dynamic_calls: frozenset[int] = frozenset()
    escaped: bool = False
    exposed: bool = False
    cells_exposed: bool = False
    #: calls of the builtins of :data:`WATCHED_CALLS` by their names, with the
    #: scope each stands in (what :mod:`.reach` needs when nothing is watched)
    builtin_calls: list[tuple[ast.Call, "Scope"]] = field(default_factory=list)
    #: the module names a scope-reading builtin other than as a call's callee,
    #: imports :data:`WATCHED_MODULES` or itself, or reads an attribute of
    #: :data:`WATCHED_ATTRIBUTES`: :mod:`.reach` must follow values through it
    watched: bool = False


def private(name: str) -> bool:
    """Whether ``name`` is private (``__x``, no dunder): inside a class the
    compiler mangles it with the class's name."""
    return name.startswith("__") and not name.endswith("__")


def compiled_name(scope: "Scope", name: str) -> str:
    """``name`` as the compiler spells it in ``scope``: a private name in a
    class body, or in a function nested in one, mangled with the nearest
    class's name (``__a`` in class ``C`` is ``_C__a``)."""
    if not private(name):
        return name
    s: Scope | None = scope
    while s is not None:
        if s.kind == "class":
            stripped = s.table.get_name().lstrip("_")
            return f"_{stripped}{name}" if stripped else name
        s = s.parent
    return name


class SourceMap:
    """Offsets in the source: byte columns to characters, lines to offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        #: ``starts[k]``: offset of line ``k + 1``
        self.starts = [0, *accumulate(len(ln) + 1 for ln in self.lines)]

    def char_col(self, line: int, byte_col: int) -> int:
        s = self.lines[line - 1]
        if s.isascii():
            return byte_col
        return len(s.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def offset(self, line: int, byte_col: int) -> int:
        return self.starts[line - 1] + self.char_col(line, byte_col)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, character column) of an absolute offset."""
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1]


def _table_children(table: symtable.SymbolTable) -> dict[tuple[str, int], deque]:
    out: dict[tuple[str, int], deque] = defaultdict(deque)
    for child in table.get_children():
        if child.get_name() == "_annotation":  # future-annotations blocks hold no names
            continue
        out[(child.get_name(), child.get_lineno())].append(child)
    return out


def module_name(filename: str | None) -> str | None:
    """The name a file's module is imported by (``pkg/mod.py`` is ``mod``,
    ``pkg/__init__.py`` is ``pkg``), or None without a file name."""
    if not filename or filename.startswith("<"):
        return None
    parts = filename.replace("\\", "/").rsplit("/", 2)
    stem = parts[-1].rsplit(".", 1)[0]
    return parts[-2] if stem == "__init__" and len(parts) > 1 else stem


class _Resolver:
    """The walk itself; see the module docstring."""

    def __init__(self, tree: ast.Module, text: str, src: SourceMap, filename: str) -> None:
        self.src = src
        top = symtable.symtable(text, filename, "exec")
        self.module = Scope("module", "", top, None, tree, _table_children(top))
        self.occurrences: list[Occurrence] = []
        #: the module's own name: importing it is watched
        self.own = module_name(filename)
        self.builtin_calls: list[tuple[ast.Call, Scope]] = []
        #: ``id`` of the scope-reading builtins' names read, and of every call's callee name
        self.dynamic_names: list[int] = []
        self.callees: set[int] = set()
        self.watched = False
        self.by_node: dict[int, list[Occurrence]] = {}
        self.scope_of: dict[int, Scope] = {id(tree): self.module}
        self.cells: set[str] = set()
        self.keywords: list[tuple[int, str]] = []
        self.spelled: set[tuple[int, int]] = set()
        #: ``from __future__ import annotations``: a signature's annotations are kept as their text
        self.deferred = any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )
        self.dynamic: set[int] = set()
        self.caller_frames = False
        self.tree = tree

    # ----------------------------------------------------------- resolution
    def _symbol(self, scope: Scope, name: str) -> symtable.Symbol | None:
        """The symbol of ``name``, spelled as the compiler spells it in ``scope``."""
        try:
            return scope.table.lookup(name)
        except KeyError:
            pass
        compiled = compiled_name(scope, name)
        if compiled != name:
            try:
                return scope.table.lookup(compiled)
            except KeyError:
                pass
        return None

    def _global(self, name: str, declared: bool) -> tuple[str, str, Scope | None]:
        if not declared and name in _BUILTINS:
            try:
                bound = self.module.table.lookup(name).is_assigned()
            except KeyError:
                bound = False
            if not bound:
                return f"builtin:{name}", "builtin", None
        return f"global:{name}", "global", None

    def resolve(self, scope: Scope, name: str) -> tuple[str, str, Scope | None]:
        """(resource, view, binder) of ``name`` as seen from ``scope``."""
        got = scope.resolved.get(name)
        if got is None:
            got = scope.resolved[name] = self._resolve(scope, name)
        return got

    def _resolve(self, scope: Scope, spelled: str) -> tuple[str, str, Scope | None]:
        # a private name inside a class is another name (``__a`` in class C is ``_C__a``, as is ``_C__a``):
        # the resource is the compiled name, so the two spellings are one variable and ``__a`` outside is another
        name = compiled_name(scope, spelled)
        sym = self._symbol(scope, name)
        if scope.kind == "module":
            return self._global(name, False)
        if sym is None:
            return f"name:{name}", "name", None
        if sym.is_declared_global():
            return self._global(name, True)
        if sym.is_free():
            s = scope.parent
            while s is not None and s.kind != "module":
                if s.kind != "class":
                    outer = self._symbol(s, name)
                    if outer is not None and outer.is_local() and not outer.is_global():
                        resource, view, binder = self._local(s, name, outer)
                        self.cells.add(resource)
                        return resource, view, binder
                s = s.parent
            return f"free:{name}", "free", None
        if sym.is_global():
            return self._global(name, False)
        if sym.is_local():
            return self._local(scope, name, sym)
        return f"name:{name}", "name", None

    def _local(self, scope: Scope, name: str, sym: symtable.Symbol) -> tuple[str, str, Scope | None]:
        if scope.kind == "class":
            return f"class:{scope.path}:{name}", "class", scope
        if sym.is_imported():
            return f"local:{scope.path}:{name}", "import", scope
        view = "param" if sym.is_parameter() else "local"
        return f"local:{scope.path}:{name}", view, scope

    # ----------------------------------------------------------- recording
    def record(self, node: ast.AST, scope: Scope, name: str, line: int, col: int, ctx: str) -> None:
        got = scope.resolved.get(name)
        resource, view, binder = got if got is not None else self.resolve(scope, name)
        if col >= 0:
            text = self.src.lines[line - 1]
            end = col + len(name)
            if not text.startswith(name, col) or (end < len(text) and (text[end].isalnum() or text[end] == "_")):
                col = -1
        occ = Occurrence(name, line, col, resource, view, binder, ctx, scope)
        if name in DYNAMIC_BUILTINS and view == "builtin":
            self.dynamic_names.append(id(node))
        elif name == "__builtins__":
            self.watched = True
        self.occurrences.append(occ)
        got = self.by_node.get(id(node))
        if got is None:
            self.by_node[id(node)] = [occ]
        else:
            got.append(occ)

    def record_at(self, node: ast.AST, scope: Scope, name: str, line: int, byte_col: int, ctx: str) -> None:
        self.record(node, scope, name, line, self.src.char_col(line, byte_col), ctx)

    def record_search(self, node: ast.AST, scope: Scope, name: str, lo: int, hi: int, ctx: str, **pattern) -> None:
        """Record ``name`` found by :func:`search_binding` with ``pattern`` in
        the source between absolute offsets ``lo`` and ``hi``."""
        at = search_binding(self.src.text, name, lo, hi, **pattern)
        if at < 0:
            self.record(node, scope, name, getattr(node, "lineno", 1), -1, ctx)
            return
        line, col = self.src.position(at)
        self.record(node, scope, name, line, col, ctx)

    def _start(self, node: ast.AST) -> int:
        return self.src.offset(node.lineno, node.col_offset)

    def _end(self, node: ast.AST) -> int:
        return self.src.offset(node.end_lineno, node.end_col_offset)

    # ------------------------------------------------------------------ walk
    def _enter(self, node: ast.AST, parent: Scope) -> Scope:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind, key, label = "function", node.name, node.name
        elif isinstance(node, ast.ClassDef):
            kind, key, label = "class", node.name, node.name
        elif isinstance(node, ast.Lambda):
            kind, key = "lambda", "lambda"
            label = f"<lambda>@{node.lineno}.{node.col_offset}"
        else:
            kind, key = "comprehension", _COMPREHENSION_NAMES[type(node)]
            label = f"<{key}>@{node.lineno}.{node.col_offset}"
        queue = parent.pending.get((key, node.lineno))
        if not queue:
            raise UnsupportedError(
                f"cannot match scope {label!r} to the symbol table", line=node.lineno, col=node.col_offset + 1
            )
        table = queue.popleft()
        if parent.kind == "module":
            path = label
        elif parent.kind == "class":
            path = f"{parent.path}.{label}"
        else:
            path = f"{parent.path}.<locals>.{label}" if kind in ("function", "class") else f"{parent.path}.{label}"
        scope = Scope(kind, path, table, parent, node, _table_children(table))
        self.scope_of[id(node)] = scope
        return scope

    def run(self) -> Resolution:
        enter = object()
        outside = self._OUTSIDE
        record_at = self.record_at
        stack: list[tuple] = [(child, self.module) for child in reversed(self.tree.body)]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            item = pop()
            node = item[0]
            if node is enter:
                _, node, parent = item
                scope = self._enter(node, parent)
                extend([(c, scope) for c in reversed(self._inside(node, scope))])
                continue
            scope = item[1]
            cls = node.__class__
            if cls is ast.Name:  # with constants, half of the nodes: no dispatch
                ctx = (
                    "load" if node.ctx.__class__ is ast.Load else "store" if node.ctx.__class__ is ast.Store else "del"
                )
                record_at(node, scope, node.id, node.lineno, node.col_offset, ctx)
                continue
            if cls is ast.Constant:
                continue
            handler = outside.get(cls)
            if handler is None:
                before, enters = child_nodes(node), False
            else:
                before, enters = handler(self, node, scope)
            if enters:
                push((enter, node, scope))
            if before:
                extend([(c, scope) for c in reversed(before)])
        self.occurrences.sort(key=lambda o: (o.line, o.col))
        self.keywords.sort()
        deferred = self.deferred
        watched = self.watched or any(k not in self.callees for k in self.dynamic_names)
        return Resolution(
            self.occurrences,
            self.by_node,
            self.scope_of,
            self.cells,
            self.module,
            self.keywords,
            self.spelled,
            self.dynamic,
            deferred,
            self.caller_frames,
            builtin_calls=self.builtin_calls,
            watched=watched,
        )

    def _params(self, args: ast.arguments, scope: Scope) -> None:
        for a in (*args.posonlyargs, args.vararg, args.kwarg):
            if a is not None:  # no caller can name these
                self.record_at(a, scope, a.arg, a.lineno, a.col_offset, "param")
        for a in (*args.args, *args.kwonlyargs):  # a caller may pass these by name
            self.record_at(a, scope, a.arg, a.lineno, a.col_offset, "kwparam")

    def _inside(self, node: ast.AST, scope: Scope) -> list[ast.AST]:
        """What a scope node evaluates in its own scope, in compiler order."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._params(node.args, scope)
            return list(node.body)
        if isinstance(node, ast.Lambda):
            self._params(node.args, scope)
            return [node.body]
        if isinstance(node, ast.ClassDef):
            return list(node.body)
        gens = node.generators
        out: list[ast.AST] = [gens[0].target, *gens[0].ifs]
        for g in gens[1:]:
            out += [g.target, g.iter, *g.ifs]
        if isinstance(node, ast.DictComp):
            out += [node.value, node.key]
        else:
            out.append(node.elt)
        return out

    # What a node evaluates in the scope it stands in (in compiler order), and
    # whether it opens a scope of its own after that: one method per node
    # class that binds or declares names; every other node just evaluates its
    # children (``Name`` is handled inline in :meth:`run`).
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> tuple[list[ast.AST], bool]:
        a = node.args
        annotations = [
            x.annotation
            for x in (*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg)
            if x is not None and x.annotation is not None
        ]
        if node.returns is not None:
            annotations.append(node.returns)
        if self.deferred:  # each annotation is kept as its text (``g.__annotations__``): its names are spelled
            for sub in (n for a in annotations for n in ast.walk(a)):
                if isinstance(sub, ast.Name):
                    self.spelled.add((sub.lineno, self.src.char_col(sub.lineno, sub.col_offset)))
        before = [*a.defaults, *(d for d in a.kw_defaults if d is not None), *annotations, *node.decorator_list]
        # ``async def`` needs no pattern of its own: the name is the one after ``def``
        lo = self._start(node)
        self.record_search(node, scope, node.name, lo, lo + 400, "defname", keyword="def")
        return before, True

    def _class(self, node: ast.ClassDef, scope: Scope) -> tuple[list[ast.AST], bool]:
        lo = self._start(node)
        self.record_search(node, scope, node.name, lo, lo + 400, "defname", keyword="class")
        return [*node.bases, *node.keywords, *node.decorator_list], True

    def _lambda(self, node: ast.Lambda, scope: Scope) -> tuple[list[ast.AST], bool]:
        a = node.args
        return [*a.defaults, *(d for d in a.kw_defaults if d is not None)], True

    def _comprehension(self, node: ast.AST, scope: Scope) -> tuple[list[ast.AST], bool]:
        return [node.generators[0].iter], True

    def _declaration(self, node: ast.Global | ast.Nonlocal, scope: Scope) -> tuple[list[ast.AST], bool]:
        lo, hi = self._start(node), self._end(node)
        lo += 6 if isinstance(node, ast.Global) else 8
        for name in node.names:
            at = search_binding(self.src.text, name, lo, hi)
            if at < 0:
                self.record(node, scope, name, node.lineno, -1, "decl")
                continue
            line, col = self.src.position(at)
            self.record(node, scope, name, line, col, "decl")
            lo = at + len(name)
        return [], False

    def _alias(self, node: ast.alias, scope: Scope) -> tuple[list[ast.AST], bool]:
        parts = node.name.split(".")
        if self.own in parts or not WATCHED_MODULES.isdisjoint(parts):
            self.watched = True
        if node.name == "*":
            return [], False
        bound = node.asname or node.name.split(".")[0]
        if node.asname:
            self.record_search(
                node, scope, bound, self._start(node), self._end(node), "store", keyword="as", word_start=True
            )
        else:
            self.record_at(node, scope, bound, node.lineno, node.col_offset, "store")
        return [], False

    def _except(self, node: ast.ExceptHandler, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.name is not None:
            lo = self._end(node.type) if node.type is not None else self._start(node)
            hi = self._start(node.body[0]) if node.body else lo + 400
            self.record_search(node, scope, node.name, lo, hi, "store", keyword="as", word_start=True)
        return child_nodes(node), False

    def _match(self, node: ast.Match, scope: Scope) -> tuple[list[ast.AST], bool]:
        s: Scope | None = scope
        while s is not None and not s.has_match:
            s.has_match = True
            s = s.parent
        return child_nodes(node), False

    def _match_as(self, node: ast.MatchAs, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.name is not None:
            if node.pattern is None:
                self.record_at(node, scope, node.name, node.lineno, node.col_offset, "store")
            else:
                self.record_search(
                    node,
                    scope,
                    node.name,
                    self._end(node.pattern),
                    self._end(node),
                    "store",
                    keyword="as",
                    word_start=True,
                )
        return child_nodes(node), False

    def _match_star(self, node: ast.MatchStar, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.name is not None:
            self.record_search(
                node, scope, node.name, self._start(node), self._end(node), "store", keyword="*", min_blanks=0
            )
        return child_nodes(node), False

    def _match_mapping(self, node: ast.MatchMapping, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.rest is not None:
            lo = self._end(node.patterns[-1]) if node.patterns else self._start(node)
            self.record_search(node, scope, node.rest, lo, self._end(node), "store", keyword="**", min_blanks=0)
        return child_nodes(node), False

    def _attribute(self, node: ast.Attribute, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.attr in WATCHED_ATTRIBUTES:
            self.watched = True
            if node.attr in FRAME_ATTRIBUTES:
                self.dynamic.add(id(scope))
        if node.attr in CALLER_FRAMES and (
            node.attr == "f_back" or (isinstance(node.value, ast.Name) and node.value.id in FRAME_MODULES)
        ):
            self.caller_frames = self.watched = True
        return [node.value], False

    def _import_from(self, node: ast.ImportFrom, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.level or (node.module or "").split(".")[0] in WATCHED_FROM:
            self.watched = True  # a relative import may name the module itself
        if node.module in FRAME_MODULES and any(a.name in CALLER_FRAMES or a.name == "*" for a in node.names):
            self.caller_frames = self.watched = True
        return list(node.names), False

    def _call(self, node: ast.Call, scope: Scope) -> tuple[list[ast.AST], bool]:
        func = node.func
        if func.__class__ is ast.Name:
            self.callees.add(id(func))
            if func.id in WATCHED_CALLS and self.resolve(scope, func.id)[1] == "builtin":
                self.builtin_calls.append((node, scope))
        return child_nodes(node), False

    def _formatted(self, node: ast.FormattedValue, scope: Scope) -> tuple[list[ast.AST], bool]:
        # f"{x=}" prints the expression's text: the next character after the
        # expression (blanks aside) is "=", where f"x={x}" has "}"
        value = node.value
        if getattr(value, "end_lineno", None) is not None:
            text, at = self.src.text, self._end(value)
            while at < len(text) and text[at] in " \t":
                at += 1
            if text.startswith("=", at) and not text.startswith("==", at):
                for sub in ast.walk(value):
                    if isinstance(sub, ast.Name):
                        self.spelled.add((sub.lineno, self.src.char_col(sub.lineno, sub.col_offset)))
        return child_nodes(node), False

    def _keyword(self, node: ast.keyword, scope: Scope) -> tuple[list[ast.AST], bool]:
        if node.arg is not None:
            self.keywords.append((node.lineno, node.arg))
        return child_nodes(node), False

    _OUTSIDE: ClassVar[dict[type, Callable[..., tuple[list[ast.AST], bool]]]] = {
        ast.FunctionDef: _function,
        ast.AsyncFunctionDef: _function,
        ast.ClassDef: _class,
        ast.Lambda: _lambda,
        ast.ListComp: _comprehension,
        ast.SetComp: _comprehension,
        ast.DictComp: _comprehension,
        ast.GeneratorExp: _comprehension,
        ast.Global: _declaration,
        ast.Nonlocal: _declaration,
        ast.alias: _alias,
        ast.ExceptHandler: _except,
        ast.Match: _match,
        ast.MatchAs: _match_as,
        ast.MatchStar: _match_star,
        ast.MatchMapping: _match_mapping,
        ast.keyword: _keyword,
        ast.Attribute: _attribute,
        ast.ImportFrom: _import_from,
        ast.Call: _call,
        ast.FormattedValue: _formatted,
    }


def resolve(tree: ast.Module, text: str, src: SourceMap, filename: str = "<input>") -> Resolution:
    """Resolve every name of ``tree`` (parsed from ``text``); see the module docstring.

    Raises SyntaxError/RecursionError from ``symtable`` for the caller to locate."""
    return _Resolver(tree, text, src, filename).run()


__all__ = [
    "Scope",
    "Occurrence",
    "Resolution",
    "SourceMap",
    "resolve",
    "DYNAMIC_BUILTINS",
    "FRAME_ATTRIBUTES",
    "WATCHED_CALLS",
    "WATCHED_ATTRIBUTES",
    "WATCHED_MODULES",
    "WATCHED_FROM",
    "module_name",
    "child_nodes",
    "search_binding",
]
