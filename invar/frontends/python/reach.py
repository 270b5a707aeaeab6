"""Which calls may read their scope by name, whatever they are called, and
which namespaces the module can reach as objects.

docs/semantics.md: a statement that reads the local scope as a whole reads
every variable it could observe, and every local of its scope keeps its
name. ``locals``, ``vars``, ``dir``, ``eval``, ``exec`` and ``globals`` read
the scope they are called from, but they are values like any other
(``lc = locals; lc()``, ``builtins.locals()``, ``[vars][0]()``). This pass
follows such a value through the file, flow-insensitively (an assignment
anywhere counts everywhere):

- **from** where it is named: one of those builtins used as a value, the
  builtins namespace (``import builtins``, ``__builtins__``,
  ``sys.modules['builtins']``, ``__import__('builtins')``) and what is read
  out of it (any attribute but another builtin's name, an item,
  ``getattr``, ``vars``);
- **through** variables (a local, a closure's variable, a global: every read
  of one is in the file), displays, conditional values, what a ``for``,
  ``with``, ``match`` or unpacking binds from it, and what is read out of it
  (an item, an attribute, what calling it returns). Calling such a value
  reads the scope the call stands in;
- **into the heap**, where any code may get it back: an argument of a call
  (except of a builtin that only looks at its arguments or only returns
  them), a stored attribute or item, a returned or yielded value, a default,
  a decorator, a base, an annotation, a class attribute, a constant string
  run by ``eval``/``exec`` that names one. Once one *escaped*, every call of
  anything but a looking builtin and every iteration may be one (a C function
  such as ``map`` or ``sorted`` calls what it holds in the caller's frame).

What the file cannot see is assumed not to be one of them: a value from
another module or a caller, a string ``eval``/``exec`` get from data, a
module or attribute found by a name computed at run time
(``sys.modules[name]``, ``getattr(obj, name)``).

The same pass finds whether the module's namespace is **exposed**: reachable
as an object, through which a global is read or written without its name
(``sys.modules[__name__].G``, ``f.__globals__['G']``, ``globals()`` passed
away, ``vars(module)``, ``module.__dict__``): ``sys.modules``, ``__import__``,
``importlib.import_module``, an import of the module itself or of
``__main__``, ``__globals__``, frames (``f_globals``, ``sys._getframe`` …),
``inspect.getmodule``, ``gc``'s referrers, ``getattr`` with a computed name,
``globals``, a scope read at module level (``vars()`` there is
``globals()``). Likewise closures' cells (``__closure__``,
``cell_contents``). :mod:`.effects` then makes a store to a global (or a
cell) a store through a reference.

Most modules use none of this but direct calls (``locals()``): the
resolver (:mod:`.scopes`) marks the module *watched* when it sees more, and
only then is the module walked here. Imports :mod:`.scopes` only.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from .scopes import DYNAMIC_BUILTINS, FRAME_ATTRIBUTES, Resolution, Scope, child_nodes

_BUILTIN_NAMES = frozenset(dir(builtins))
#: builtins that only look at their arguments: they call none, keep none, and
#: run none of the program's code in the caller's frame (special methods
#: aside, which docs/semantics.md assumes act on nothing)
LOOKING_BUILTINS = frozenset(
    "abs ascii bin bool callable chr complex divmod float format hasattr hash hex id int isinstance issubclass len "
    "oct ord pow print range repr round slice str type".split()
)
#: builtins whose result may hold their positional arguments or their elements
HOLDING_BUILTINS = frozenset("dict enumerate frozenset iter list max min next reversed set sorted tuple zip".split())
#: attributes that lead to a frame, and so to its ``f_locals`` and ``f_globals``
FRAMES = FRAME_ATTRIBUTES | {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
#: attributes that lead to a module's namespace
EXPOSING_ATTRIBUTES = FRAMES | {
    "__globals__",
    "func_globals",
    "f_globals",
    "getmodule",
    "import_module",
    "get_referrers",
    "get_referents",
    "get_objects",
}
#: attributes that lead to a closure's cells
CELL_ATTRIBUTES = frozenset({"__closure__", "cell_contents", "func_closure"})
#: names that, in a constant string run by ``eval`` or ``exec``, may reach one
_WATCHED_NAMES = DYNAMIC_BUILTINS | {"__builtins__", "builtins", "__import__", "getattr", "sys", "importlib"}
#: modules whose names :meth:`_Pass._dotted` follows
_FOLLOWED = frozenset({"builtins", "sys", "importlib"})

#: kinds of a tainted value: it may be a scope-reading builtin (``DYN``), or the
#: builtins namespace, whose other builtins' names are harmless (``NS``)
DYN, NS = 1, 2


@dataclass(frozen=True, slots=True)
class Reach:
    """What the pass finds in one module."""

    #: ``id`` of every call that may be one of the scope-reading builtins
    calls: frozenset[int]
    #: ``id`` of every scope such a call reads (once one escaped, also every
    #: scope that runs code the analysis cannot name)
    scopes: frozenset[int]
    #: such a builtin escaped into the heap: any call may be one
    escaped: bool
    #: the module's namespace is reachable as an object
    exposed: bool
    #: closures' cells are reachable as objects
    cells_exposed: bool


def find_reach(tree: ast.Module, res: Resolution, module: str | None = None) -> Reach:
    """The :class:`Reach` of ``tree`` (resolved as ``res``); ``module`` is the
    module's own name when known (importing it exposes the namespace)."""
    if not res.watched:
        got = _direct(res)
        if got is not None:
            return got
    return _Pass(tree, res, module).run()


def _direct(res: Resolution) -> Reach | None:
    """The reach of a module that names the watched builtins only to call
    them (None when a constant string run by ``eval`` or ``exec`` needs the
    whole walk)."""
    calls: dict[int, Scope] = {}
    exposed = reflective = False
    for call, scope in res.builtin_calls:
        name = call.func.id
        if name in DYNAMIC_BUILTINS:
            calls[id(call)] = scope
            exposed |= name == "globals" or scope.kind == "module"
            if name in ("eval", "exec") and _code_names(call):
                return None
        elif name == "getattr":
            if _attribute_name(call) in DYNAMIC_BUILTINS | {"__builtins__"}:
                return None  # ``getattr(f, "__builtins__")``: the builtins namespace
            reflective |= _computed(call)
        else:  # __import__
            return None
    return Reach(frozenset(calls), frozenset(id(s) for s in calls.values()), False, exposed or reflective, reflective)


def _attribute_name(call: ast.Call) -> str | None:
    """The attribute ``getattr(obj, name)`` reads, when ``name`` is a constant."""
    name = call.args[1] if len(call.args) > 1 else None
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None


def _computed(call: ast.Call) -> bool:
    """Whether ``getattr(obj, name)`` may read a namespace: its name is
    computed, or names one of the attributes that lead to one."""
    name = _attribute_name(call)
    return name is None or name in EXPOSING_ATTRIBUTES | CELL_ATTRIBUTES


def _code_names(call: ast.Call) -> bool:
    """Whether a constant string given to ``eval``/``exec`` (code in the file)
    names one of the watched names."""
    if not call.args or not isinstance(call.args[0], ast.Constant) or not isinstance(call.args[0].value, str):
        return False
    try:
        tree = ast.parse(call.args[0].value)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(
        (isinstance(n, ast.Name) and n.id in _WATCHED_NAMES)
        or (isinstance(n, ast.Attribute) and n.attr in DYNAMIC_BUILTINS | EXPOSING_ATTRIBUTES)
        for n in ast.walk(tree)
    )


def header(node: ast.AST) -> list[ast.AST]:
    """What a ``def``, ``lambda`` or ``class`` evaluates where it stands:
    decorators, defaults, annotations, bases and keywords."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    a = node.args
    out = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        out += node.decorator_list
        out += annotations(node)
    return out


def unpacked(targets: list[ast.AST]) -> list[ast.AST]:
    """The places assignment targets bind, tuples, lists and starred targets unpacked."""
    out, stack = [], list(targets)
    while stack:
        t = stack.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            stack.extend(t.elts)
        elif isinstance(t, ast.Starred):
            stack.append(t.value)
        else:
            out.append(t)
    return out


def annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """A function's annotations: its parameters', in order, then its return's."""
    a = node.args
    out = [
        x.annotation
        for x in (*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg)
        if x is not None and x.annotation is not None
    ]
    return out if node.returns is None else [*out, node.returns]


def _scope_children(node: ast.AST, scope: Scope, inner: Scope) -> list[tuple[ast.AST, Scope]]:
    """The children of a node that opens a scope, each with the scope it is
    evaluated in (a header in the enclosing one, a body in its own)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        body = [node.body] if isinstance(node, ast.Lambda) else node.body
        return [(c, scope) for c in header(node)] + [(c, inner) for c in body]
    gens = node.generators
    out = [(gens[0].iter, scope), (gens[0].target, inner)] + [(c, inner) for c in gens[0].ifs]
    for g in gens[1:]:
        out += [(g.target, inner), (g.iter, inner)] + [(c, inner) for c in g.ifs]
    if isinstance(node, ast.DictComp):
        out += [(node.key, inner), (node.value, inner)]
    else:
        out.append((node.elt, inner))
    return out


_SCOPE_NODES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
_SKIPPED = (ast.arguments, ast.arg, ast.comprehension)


def _post_order(tree: ast.Module, res: Resolution) -> list[tuple[ast.AST, Scope]]:
    """Every node with the scope it is evaluated in, children before parents
    (``keyword``, ``comprehension``, ``arguments`` and ``arg`` left out: their
    parts are visited for them)."""
    out: list[tuple[ast.AST, Scope]] = []
    stack: list[tuple[ast.AST, Scope, bool]] = [(s, res.module, False) for s in reversed(tree.body)]
    scope_of = res.scope_of
    while stack:
        node, scope, done = stack.pop()
        if done:
            out.append((node, scope))
            continue
        stack.append((node, scope, True))
        if isinstance(node, _SCOPE_NODES):
            children = _scope_children(node, scope, scope_of.get(id(node), scope))
        else:
            children = [
                (c.value if isinstance(c, ast.keyword) else c, scope)
                for c in child_nodes(node)
                if not isinstance(c, _SKIPPED)
            ]
        stack.extend((c, s, False) for c, s in reversed(children))
    return out


class _Pass:
    """The walk and its fixpoint over the tainted variables."""

    def __init__(self, tree: ast.Module, res: Resolution, module: str | None) -> None:
        self.tree = tree
        self.res = res
        self.module = module
        #: variable resource -> kinds of tainted value it may hold
        self.taint: dict[str, int] = {}
        #: variable resource -> the dotted name an import of :data:`_FOLLOWED` binds to it
        self.imported: dict[str, str] = {}
        #: ``id`` of node -> kinds of tainted value it may evaluate to
        self.kinds: dict[int, int] = {}
        self.calls: dict[int, Scope] = {}
        self.escaped = self.exposed = self.cells_exposed = False
        #: frames are reachable (their ``f_locals`` hold every local)
        self.frames = False

    def run(self) -> Reach:
        order = _post_order(self.tree, self.res)
        self._imports(order)
        handlers = _HANDLERS
        while True:
            before = dict(self.taint)
            self.kinds = kinds = {}
            for node, scope in order:
                handler = handlers.get(node.__class__)
                got = handler(self, node, scope) if handler is not None else self._other(node)
                if got:
                    kinds[id(node)] = got
            if self.taint == before:
                break
        # a tainted variable read back through an object: a global through the
        # module, a closure's variable through its cell, any local through a frame;
        # or any call may be of a function that reads its caller's frame
        if self.res.caller_frames or (
            (self.frames and self.taint)
            or (self.exposed and any(r.startswith("global:") for r in self.taint))
            or (self.cells_exposed and any(r in self.res.cells for r in self.taint))
        ):
            self.escaped = True
        # a tainted value may be ``globals``; an escaped one may be anything
        self.exposed = self.exposed or bool(self.taint) or self.escaped
        scopes = {id(s) for s in self.calls.values()}
        if self.escaped:
            scopes |= {id(s) for node, s in order if self._runs_code(node)}
        return Reach(frozenset(self.calls), frozenset(scopes), self.escaped, self.exposed, self.cells_exposed)

    def _imports(self, order: list[tuple[ast.AST, Scope]]) -> None:
        """What imports bind: ``import a.b as c`` binds ``a.b`` to ``c``,
        ``import a.b`` binds ``a``, ``from a import b`` binds ``a.b``."""
        for node, _ in order:
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for alias in node.names:
                if isinstance(node, ast.Import):
                    dotted = alias.name if alias.asname else alias.name.split(".")[0]
                    parts = alias.name.split(".")
                elif alias.name == "*":
                    continue
                else:
                    dotted = f"{node.module}.{alias.name}" if node.module and not node.level else alias.name
                    parts = [*(node.module or "").split("."), alias.name]
                if "__main__" in parts or (self.module is not None and self.module in parts):
                    self.exposed = True  # the module itself, by another name
                if dotted.split(".")[0] in _FOLLOWED:
                    for occ in self.res.by_node.get(id(alias), ()):
                        self.imported[occ.resource] = dotted

    def _runs_code(self, node: ast.AST) -> bool:
        """Whether ``node`` may run code the analysis cannot name in the frame
        it stands in: a call of anything but a looking builtin, an iteration,
        a context manager, a decorator, a class's creation."""
        if isinstance(node, ast.Call):
            return self._builtin(node.func) not in LOOKING_BUILTINS
        if isinstance(
            node,
            (
                ast.For,
                ast.AsyncFor,
                ast.With,
                ast.AsyncWith,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
                ast.Await,
                ast.YieldFrom,
                ast.ClassDef,
            ),
        ):
            return True
        if isinstance(node, ast.Starred):
            return isinstance(node.ctx, ast.Load)
        if isinstance(node, ast.Compare):
            return any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)
        if isinstance(node, ast.Assign):
            return any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return bool(node.decorator_list)
        return False

    # -------------------------------------------------------------- helpers
    def _of(self, node: ast.AST | None) -> int:
        return 0 if node is None else self.kinds.get(id(node), 0)

    def _escape(self, *nodes: ast.AST | None) -> None:
        if self.kinds and any(self._of(n) for n in nodes):
            self.escaped = True

    def _builtin(self, node: ast.AST) -> str | None:
        """The builtin a name means, if it means one."""
        if isinstance(node, ast.Name):
            occs = self.res.by_node.get(id(node), ())
            if occs and occs[0].view == "builtin":
                return node.id
        return None

    def _dotted(self, node: ast.AST) -> str | None:
        """``a.b.c`` for an attribute chain rooted at a name imported from
        :data:`_FOLLOWED` (its dotted name in place of the root) or at a
        builtin (``builtins.NAME``); None for any other."""
        attrs = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        occs = self.res.by_node.get(id(node), ())
        root = self.imported.get(occs[0].resource) if occs else None
        if root is None and occs and occs[0].view == "builtin":
            root = f"builtins.{node.id}"
        if root is None:
            return None
        return ".".join([root, *reversed(attrs)])

    def _dotted_kinds(self, dotted: str) -> int:
        """What a dotted name may be: ``builtins`` itself, one of the
        scope-reading builtins, or harmless (another builtin's, anything under
        ``sys`` but ``sys.modules``)."""
        if dotted == "builtins":
            return NS
        if dotted.startswith("builtins."):
            first = dotted.split(".", 2)[1]  # ``builtins.bytes.maketrans`` is bytes's
            return 0 if first in _BUILTIN_NAMES and first not in DYNAMIC_BUILTINS else DYN
        if dotted == "sys.modules" or dotted.startswith("sys.modules."):
            self.exposed = True
        return 0

    def _bind(self, target: ast.AST | None, kinds: int) -> None:
        """``target`` is assigned a value of ``kinds``."""
        if not kinds or target is None:
            return
        for t in unpacked([target]):
            if isinstance(t, ast.Name):
                for occ in self.res.by_node.get(id(t), ()):
                    if occ.resource.startswith(("local:", "global:")):
                        self.taint[occ.resource] = self.taint.get(occ.resource, 0) | kinds
                    else:  # a class attribute, read back as ``C.x``
                        self.escaped = True
            else:  # an attribute or an item: the heap
                self.escaped = True

    def _scope_taint(self, scope: Scope) -> bool:
        """Whether a variable of ``scope``, or a global, may hold a tainted value."""
        own = f"local:{scope.path}:"
        return any(r.startswith((own, "global:")) for r in self.taint)

    # ------------------------------------------------------------ handlers
    def _other(self, node: ast.AST) -> int:
        """A node no handler knows: a tainted part escapes."""
        if self.kinds:
            self._escape(*child_nodes(node))
        return 0

    def _quiet(self, node: ast.AST, scope: Scope) -> int:
        """Nodes that use their parts' values without keeping them."""
        return 0

    def _name(self, node: ast.Name, scope: Scope) -> int:
        if not isinstance(node.ctx, ast.Load):
            return 0
        if node.id == "__builtins__":
            return NS
        occs = self.res.by_node.get(id(node), ())
        if not occs:
            return 0
        resource = occs[0].resource
        if occs[0].view == "builtin" and node.id in DYNAMIC_BUILTINS:
            self.exposed |= node.id == "globals"
            return DYN
        got = self.taint.get(resource, 0)
        dotted = self.imported.get(resource)
        if dotted is not None:
            got |= self._dotted_kinds(dotted)
        return got

    def _attribute(self, node: ast.Attribute, scope: Scope) -> int:
        attr = node.attr
        if attr in EXPOSING_ATTRIBUTES:
            self.exposed = True
            self.frames |= attr in FRAMES
        if attr in CELL_ATTRIBUTES:
            self.cells_exposed = True
        if not isinstance(node.ctx, ast.Load):
            return 0
        if attr == "__builtins__":
            return NS  # a function's builtins (Python 3.10)
        base = self._of(node.value)
        got = 0
        if base:
            harmless = attr in _BUILTIN_NAMES and attr not in DYNAMIC_BUILTINS
            got = 0 if base == NS and harmless else DYN
        dotted = self._dotted(node)
        if dotted is not None:
            got |= self._dotted_kinds(dotted)
        return got

    def _subscript(self, node: ast.Subscript, scope: Scope) -> int:
        if not isinstance(node.ctx, ast.Load):
            self._escape(node.slice)  # a key stored in a container
            return 0
        got = DYN if self._of(node.value) else 0
        if _is_builtins(node.slice) and self._dotted(node.value) == "sys.modules":
            got |= NS
        return got

    def _call(self, node: ast.Call, scope: Scope) -> int:
        func = node.func
        args = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        values = [k.value for k in node.keywords]
        name = self._builtin(func)
        if name in DYNAMIC_BUILTINS or self._of(func):
            return self._scope_read(node, scope, name if name in DYNAMIC_BUILTINS else None, args, values)
        dotted = self._dotted(func) if name is None else f"builtins.{name}"
        last = dotted.rsplit(".", 1)[-1] if dotted is not None else None
        if last in ("import_module", "__import__") or (dotted or "").startswith("sys.modules."):
            self.exposed = True  # what finds a module may find this one, or builtins
            self._escape(*args, *values)
            return NS if args and _is_builtins(args[0]) else 0
        if name == "getattr":
            return self._getattr(node, args, values)
        if name in LOOKING_BUILTINS:
            return 0
        if name in HOLDING_BUILTINS:
            if any(k.arg == "key" for k in node.keywords):
                self._escape(*args, *values)  # the key function is called with the elements
            elif name != "dict":
                self._escape(*values)
            return DYN if any(self._of(a) for a in (*args, *values)) else 0
        self._escape(*args, *values)
        return 0

    def _scope_read(self, node: ast.Call, scope: Scope, name: str | None, args: list, values: list) -> int:
        """A call of a scope-reading builtin by its name, or (``name`` None)
        of a value that may be one; what it returns."""
        self.calls[id(node)] = scope
        if name in (None, "globals") or scope.kind == "module":
            self.exposed = True  # it may return the module's namespace
        if name in (None, "eval", "exec") and _code_names(node):
            self.escaped = self.exposed = True
        if name == "vars" and args:
            return DYN if self._of(args[0]) else 0  # an object's ``__dict__``
        self._escape(*args, *values)
        if name in ("dir", "exec"):
            return 0  # names, or None
        # a namespace, or what ``eval`` reads in one, may hold a tainted value
        return DYN if self._scope_taint(scope) else 0

    def _getattr(self, node: ast.Call, args: list, values: list) -> int:
        name = _attribute_name(node)
        if _computed(node):
            self.exposed = self.cells_exposed = True
            self.frames |= name in FRAMES
        self._escape(*values)
        base = self._of(args[0]) if args else 0
        got = self._of(args[2]) if len(args) > 2 else 0
        if name == "__builtins__":
            return NS | got
        if base:
            harmless = name in _BUILTIN_NAMES and name not in DYNAMIC_BUILTINS
            got |= 0 if base == NS and harmless else DYN
        return DYN if got else 0

    def _union(self, node: ast.AST, scope: Scope) -> int:
        """Displays, conditional values, operators that may return an operand."""
        if isinstance(node, ast.IfExp):
            parts = [node.body, node.orelse]
        elif isinstance(node, ast.Dict):
            parts = [*node.keys, *node.values]
        elif isinstance(node, ast.BoolOp):
            parts = node.values
        elif isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, (ast.Starred, ast.Await)):
            parts = [node.value]
        elif isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return 0  # a target: what it binds is the assignment's to say
        else:
            parts = node.elts
        return DYN if any(self._of(p) for p in parts) else 0

    def _named(self, node: ast.NamedExpr, scope: Scope) -> int:
        got = self._of(node.value)
        self._bind(node.target, got)
        return got

    def _comprehension(self, node: ast.AST, scope: Scope) -> int:
        for g in node.generators:
            self._bind(g.target, DYN if self._of(g.iter) else 0)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return DYN if any(self._of(p) for p in parts) else 0

    def _lambda(self, node: ast.Lambda, scope: Scope) -> int:
        self._escape(node.body, *header(node))  # it returns its body when called
        return 0

    def _definition(self, node: ast.AST, scope: Scope) -> int:
        self._escape(*header(node))  # a decorator is called; defaults, annotations and bases are kept
        return 0

    # ----------------------------------------------------------- statements
    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope) -> int:
        kinds = self._of(node.value)
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            self._bind(t, kinds)
        if isinstance(node, ast.AnnAssign):
            self._escape(node.annotation)  # kept in ``__annotations__`` where it is evaluated
        return 0

    def _for(self, node: ast.For | ast.AsyncFor, scope: Scope) -> int:
        self._bind(node.target, DYN if self._of(node.iter) else 0)
        return 0

    def _with(self, node: ast.With | ast.AsyncWith, scope: Scope) -> int:
        for item in node.items:
            self._bind(item.optional_vars, DYN if self._of(item.context_expr) else 0)
        return 0

    def _match(self, node: ast.Match, scope: Scope) -> int:
        if self._of(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    for occ in self.res.by_node.get(id(sub), ()):
                        if occ.resource.startswith(("local:", "global:")):
                            self.taint[occ.resource] = self.taint.get(occ.resource, 0) | DYN
        return 0

    def _leaves(self, node: ast.AST, scope: Scope) -> int:
        """``return``, ``yield``, ``raise``, ``assert``: the value leaves the frame."""
        self._escape(*child_nodes(node))
        return 0


def _is_builtins(key: ast.AST) -> bool:
    """Whether a module found by the name ``key`` is ``builtins`` (by a
    constant; a computed name is assumed not to be, docs/semantics.md)."""
    return isinstance(key, ast.Constant) and key.value == "builtins"


_HANDLERS = {
    ast.Name: _Pass._name,
    ast.Attribute: _Pass._attribute,
    ast.Subscript: _Pass._subscript,
    ast.Call: _Pass._call,
    ast.NamedExpr: _Pass._named,
    ast.Lambda: _Pass._lambda,
    ast.List: _Pass._union,
    ast.Tuple: _Pass._union,
    ast.Set: _Pass._union,
    ast.Dict: _Pass._union,
    ast.IfExp: _Pass._union,
    ast.BoolOp: _Pass._union,
    ast.BinOp: _Pass._union,
    ast.Starred: _Pass._union,
    ast.Await: _Pass._union,
    ast.ListComp: _Pass._comprehension,
    ast.SetComp: _Pass._comprehension,
    ast.DictComp: _Pass._comprehension,
    ast.GeneratorExp: _Pass._comprehension,
    ast.FunctionDef: _Pass._definition,
    ast.AsyncFunctionDef: _Pass._definition,
    ast.ClassDef: _Pass._definition,
    ast.Assign: _Pass._assign,
    ast.AnnAssign: _Pass._assign,
    ast.AugAssign: _Pass._assign,
    ast.For: _Pass._for,
    ast.AsyncFor: _Pass._for,
    ast.With: _Pass._with,
    ast.AsyncWith: _Pass._with,
    ast.Match: _Pass._match,
    ast.Return: _Pass._leaves,
    ast.Yield: _Pass._leaves,
    ast.YieldFrom: _Pass._leaves,
    ast.Raise: _Pass._leaves,
    ast.Assert: _Pass._leaves,
    ast.Constant: _Pass._quiet,
    ast.JoinedStr: _Pass._quiet,
    ast.FormattedValue: _Pass._quiet,
    ast.Compare: _Pass._quiet,
    ast.UnaryOp: _Pass._quiet,
    ast.Slice: _Pass._quiet,
    ast.Expr: _Pass._quiet,
    ast.If: _Pass._quiet,
    ast.While: _Pass._quiet,
    ast.Delete: _Pass._quiet,
}


__all__ = [
    "Reach",
    "find_reach",
    "header",
    "annotations",
    "unpacked",
    "LOOKING_BUILTINS",
    "HOLDING_BUILTINS",
    "EXPOSING_ATTRIBUTES",
    "CELL_ATTRIBUTES",
    "FRAMES",
]
