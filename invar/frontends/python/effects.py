"""Reads, writes and side effects of Python statements (the dependency pass).

Each statement, with everything nested in it, is summarised as an
:class:`~invar.frontends.effects.Effect` over the resources that
:mod:`invar.frontends.python.scopes` resolved. The rules are deliberately
conservative, since a missed dependency yields a program that means something
else while an extra one only shrinks the space:

- names are scope-resolved; variables captured by a nested scope, globals and
  free variables are also reachable by any call, so reading *or storing* one
  also reads ``heap``, which orders it against every heap writer (every call)
  without ordering two stores to different names;
- a call (other than a known-pure builtin), an attribute or subscript store,
  ``del`` through a reference, ``import``, ``await`` and ``yield`` are side
  effects, and side effects keep their relative order;
- iterating a value may run code (a generator's body, a function ``map``
  applies lazily) and advances it when it is an iterator, which no static
  analysis can rule out for a value of unknown type, so every iteration
  writes ``heap`` like a call: ``for`` loops, comprehensions, unpacking
  (``a, b = it``, ``[*it]``, ``f(*it)``), ``x in it``, and the builtins that
  consume their argument (``list``, ``sum``, ``sorted`` …). Iterating a value
  built right there from constants, displays or ``range`` is exempt, but not
  unpacking its elements (``for a, b in [g]`` iterates ``g``);
- ``sorted``, ``min`` and ``max`` with a ``key``, and ``type`` with three
  arguments (a class's creation), are calls;
- a call that reads the scope by name (``locals()``, ``vars()``, ``dir()``,
  ``eval``, ``exec``, ``globals()``, frame access), however the callee is
  named (:mod:`.reach` finds them: ``lc = locals; lc()``,
  ``builtins.eval(…)``), reads every variable of its scope and every global
  (one resource, ``global:*``, stands for the globals on such a line); once
  such a builtin escaped into the heap, so does
  everything that runs code the analysis cannot name;
- where the module's namespace is reachable as an object
  (``sys.modules[__name__]``, ``f.__globals__``, ``globals()`` passed away …),
  a store to a global is a store through a reference: it writes ``heap``
  (and a store to a closure's variable does where ``__closure__`` is read);
- any operation beyond naming and building literals reads ``heap`` (``a + b``
  reads lists ``a`` and ``b``); augmented assignment writes it (``+=`` mutates
  lists in place);
- ``return``, ``raise``, ``assert``, ``global`` and ``nonlocal`` are barriers;
  ``break``/``continue`` are barriers within their loop;
- a nested ``def`` or ``lambda`` body runs later, when called, so only its
  decorators, defaults and (unless deferred) annotations count where it is
  defined; applying a decorator is a call (:data:`WRAPPING_BUILTINS` aside),
  and so is creating a class unless it provably runs no hook
  (:meth:`StatementEffects.plain_class`): ``__init_subclass__``, a
  metaclass's ``__prepare__``/``__new__``/``__init__``, ``__set_name__``.

The pass is an ``ast.NodeVisitor`` whose :meth:`visit` walks with an explicit
stack (deep expressions must not overflow the interpreter's recursion) and
dispatches on the node's class name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import ClassVar

from ..effects import ALL_GLOBALS, HEAP, Effect
from .reach import LOOKING_BUILTINS, annotations, unpacked
from .scopes import FRAME_ATTRIBUTES, Resolution, child_nodes

#: builtins that only compute a value from their arguments (on builtin
#: types); the lazy ones (``iter``, ``zip``, ``map`` …) build an iterator over
#: their argument without advancing it
PURE_BUILTINS = frozenset(
    """abs ascii bin bool callable chr complex divmod enumerate filter float format hash hex id
    int isinstance issubclass iter len map oct ord pow range repr reversed round slice str type
    zip""".split()
)
#: builtins that iterate (consume) their positional argument: pure with none
CONSUMING_BUILTINS = frozenset("all any bytearray bytes dict frozenset list max min set sorted sum tuple".split())

#: builtins that, applied as a decorator to a function, only wrap it: the
#: object they return has no ``__set_name__`` or a builtin one
WRAPPING_BUILTINS = frozenset({"staticmethod", "classmethod", "property"})
#: builtin classes whose subclasses are created by ``type`` without running any
#: code of anyone's: their metaclass is ``type`` and the only
#: ``__init_subclass__`` they inherit is ``object``'s, which does nothing
HOOK_FREE_BASES = frozenset(
    """object type int float complex str bytes bytearray list tuple dict set frozenset BaseException Exception
    ArithmeticError AssertionError AttributeError IndexError KeyError LookupError NameError NotImplementedError
    OSError RuntimeError StopIteration TypeError ValueError ZeroDivisionError""".split()
)

#: expression nodes that neither read the heap nor can raise
_INERT = (
    ast.Name,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.expr_context,
    ast.keyword,
    ast.Lambda,
    ast.Pass,
    ast.Expr,
    ast.Assign,
    ast.AnnAssign,
)

_ALL_GLOBALS = frozenset({ALL_GLOBALS})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DISPLAYS = (
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Constant,
    ast.JoinedStr,
)
#: builtins that return a new container
_NEW_CONTAINERS = frozenset("range list tuple set frozenset dict sorted bytes bytearray".split())


def fresh(node: ast.AST, res: Resolution) -> bool:
    """Whether iterating ``node`` can only walk a value built right there, so
    that it runs no code of anyone else's and advances nothing shared: a
    display or comprehension (whose own iteration counts where it stands), a
    constant, a slice or an arithmetic result (a new sequence, for builtin
    types), a new container from a builtin (``range``, ``list``, ``sorted`` …;
    the call's own iteration counts where it stands), or a lazy builtin
    (``zip``, ``enumerate``, ``reversed``, ``iter``) over such values."""
    if isinstance(node, _DISPLAYS) or isinstance(node, ast.BinOp):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Slice)
    name = _builtin_of(node, res)
    if name in _NEW_CONTAINERS:
        return True
    if name in ("zip", "enumerate", "reversed", "iter"):
        return all(fresh(a, res) for a in node.args) and not node.keywords
    return False


def _calls_back(node: ast.Call, builtin: str | None, res: Resolution) -> bool:
    """Whether a call of ``builtin`` runs code it was handed, or creates a
    class: ``sorted``, ``min`` and ``max`` call their ``key``; ``type(name,
    bases, namespace)`` may run ``__init_subclass__``, a metaclass's hooks and
    ``__set_name__``, as a ``class`` statement does, unless it provably runs
    none (the rule of :meth:`StatementEffects.plain_class`: bases of
    :data:`HOOK_FREE_BASES`, a namespace of builtin values)."""
    if builtin in ("sorted", "min", "max"):
        return any(k.arg in ("key", None) for k in node.keywords)
    if builtin == "type" and not (len(node.args) == 1 and not node.keywords):
        if len(node.args) != 3 or node.keywords:
            return True
        bases, namespace = node.args[1], node.args[2]
        hook_free = isinstance(bases, ast.Tuple) and all(
            isinstance(b, ast.Name) and b.id in HOOK_FREE_BASES and _is_builtin(b, res) for b in bases.elts
        )
        built = isinstance(namespace, ast.Dict) and all(
            k is not None and built_value(v) for k, v in zip(namespace.keys, namespace.values)
        )
        return not (hook_free and built)
    return False


def _is_builtin(name: ast.Name, res: Resolution) -> bool:
    occs = res.by_node.get(id(name), ())
    return bool(occs) and occs[0].view == "builtin"


def _builtin_of(node: ast.AST, res: Resolution) -> str | None:
    """The builtin that ``node``, a call, calls by its own name, if it does."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and _is_builtin(node.func, res):
        return node.func.id
    return None


def unpack_depth(target: ast.AST) -> int:
    """How many levels deep ``target`` unpacks what is assigned to it: 0 for
    a name (or an attribute, a subscript), 1 for ``a, b``, 2 for ``(a, b), c``."""
    if isinstance(target, ast.Starred):
        return unpack_depth(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return 1 + max((unpack_depth(t) for t in target.elts), default=0)
    return 0


#: builtins whose result, iterated, yields the elements of their first argument
_SAME_ELEMENTS = frozenset("list tuple set frozenset sorted reversed iter".split())


def _elements(node: ast.AST, res: Resolution) -> list[ast.AST] | None:
    """The expressions whose values iterating ``node`` (a value that
    :func:`fresh` accepts) yields, where the source names them: a display's
    items (a dict's keys), a comprehension's element, a constant's or a
    range's (none that unpacking could advance: characters, numbers); None
    where they are not known (an element may then be anything, an iterator
    included)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out: list[ast.AST] = []
        for elt in node.elts:
            inner = _elements(elt.value, res) if isinstance(elt, ast.Starred) else [elt]
            if inner is None:
                return None
            out += inner
        return out
    if isinstance(node, ast.Dict):
        return None if any(k is None for k in node.keys) else list(node.keys)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt]
    if isinstance(node, ast.DictComp):
        return [node.key]
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return []
    if isinstance(node, ast.BinOp):
        left, right = _elements(node.left, res), _elements(node.right, res)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return _elements(node.value, res)
    builtin = _builtin_of(node, res)
    if builtin in ("range", "bytes", "bytearray"):
        return []
    if builtin in _SAME_ELEMENTS and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        return _elements(node.args[0], res)
    return None


_BUILT = (*_DISPLAYS, ast.Lambda)


def built_value(node: ast.AST) -> bool:
    """Whether ``node`` surely evaluates to a value of a builtin type (so one
    without a ``__set_name__``): a constant, an f-string, a display, a
    comprehension, a lambda, or arithmetic and ``and``/``or`` on such values
    (an operator on builtin operands gives a builtin result; ``and``/``or``
    give an operand). A name, a call, a subscript or a comparison may give
    anything."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, _BUILT):
            continue
        if isinstance(n, ast.BinOp):
            stack += (n.left, n.right)
        elif isinstance(n, ast.UnaryOp):
            if not isinstance(n.op, ast.Not):  # ``not x`` is a bool whatever ``x`` is
                stack.append(n.operand)
        elif isinstance(n, ast.BoolOp):
            stack += n.values
        else:
            return False
    return True


class EffectVisitor(ast.NodeVisitor):
    """Adds the effect of the visited expression or simple statement to ``effect``.

    Children are visited in no particular order (an effect is a union), and the
    context and operator leaves are skipped (see
    :func:`~invar.frontends.python.scopes.child_nodes`): an operator's parent
    (``BinOp``, ``Compare`` …) already reads the heap and may raise."""

    #: node class -> the method that visits it, looked up once per class
    _methods: ClassVar[dict[type, Callable[[EffectVisitor, ast.AST], None]]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}

    def __init__(self, resolution: Resolution, effect: Effect, statements: "StatementEffects | None" = None) -> None:
        self.res = resolution
        self.effect = effect
        self.statements = statements if statements is not None else StatementEffects(resolution)
        self._stack: list[ast.AST] = []

    def visit(self, node: ast.AST) -> None:
        stack = self._stack
        stack.append(node)
        methods = self._methods
        while stack:
            n = stack.pop()
            method = methods.get(n.__class__)
            if method is None:
                name = "visit_" + n.__class__.__name__
                method = methods[n.__class__] = getattr(type(self), name, type(self).generic_visit)
            method(self, n)

    def _runs_code(self, node: ast.AST) -> None:
        """``node`` may run code of anyone else's: a call, for the analysis
        (and, once a scope-reading builtin escaped, one that reads the scope)."""
        e = self.effect
        e.reads.add(HEAP)
        e.writes.add(HEAP)
        e.side = e.may_raise = True
        if self.res.escaped:
            self._dynamic(node)

    def _iterates(self, value: ast.AST) -> None:
        """The node iterates ``value`` (see the module docstring)."""
        if not fresh(value, self.res):
            self._runs_code(value)

    def _unpacks(self, value: ast.AST, depth: int) -> None:
        """The node iterates ``value`` and unpacks each of its elements
        ``depth - 1`` levels deep: ``for a, b in [g]`` and ``dict([g])``
        iterate ``g`` too, whose value may be an iterator, though the display
        around it is fresh. An element that is not known, at a depth that
        unpacks it, may be anything."""
        if depth < 1:
            return
        self._iterates(value)
        if depth < 2:
            return
        if _builtin_of(value, self.res) in ("zip", "enumerate"):
            for arg in value.args:  # each element a tuple of theirs: unpacking it reaches their elements
                self._unpacks(arg.value if isinstance(arg, ast.Starred) else arg, depth - 1)
            return
        elements = _elements(value, self.res)
        if elements is None:
            self._runs_code(value)
            return
        for element in elements:
            self._unpacks(element, depth - 1)

    def _dynamic(self, node: ast.AST) -> None:
        """``node`` reads its scope by name: every variable of the scope where
        it stands, and every global the module names."""
        self.effect.reads |= self.statements.scope_read(node)

    def generic_visit(self, node: ast.AST) -> None:
        if not isinstance(node, _INERT):
            self.effect.reads.add(HEAP)
            self.effect.may_raise = True
        self._stack += child_nodes(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        pass  # inert and childless: what generic_visit would do, without the work

    def _hashed(self, node: ast.Set | ast.Dict) -> None:
        # building a set or a dict hashes its elements: an unhashable one raises
        keys = node.elts if isinstance(node, ast.Set) else [k for k in node.keys if k is not None]
        if any(not isinstance(k, ast.Constant) for k in keys):
            self.effect.may_raise = True
        self._stack += child_nodes(node)

    visit_Set = visit_Dict = _hashed

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if not isinstance(node.operand, ast.Constant):  # -1 is a constant the compiler folds
            self.generic_visit(node)

    # ---------------------------------------------------------------- names
    def _name(self, node: ast.AST) -> None:
        e = self.effect
        res = self.res
        for occ in res.by_node.get(id(node), ()):
            r = occ.resource
            cell = r in res.cells
            shared = cell or not r.startswith(("local:", "class:"))
            if occ.ctx == "load":
                e.reads.add(r)
                if shared:
                    e.reads.add(HEAP)
            elif occ.ctx == "decl":
                e.barrier = True
            else:
                e.writes.add(r)
                if occ.ctx == "del":
                    e.reads.add(r)
                    e.may_raise = True
                if shared:
                    # any call may read it: reading the heap orders the store
                    # against every heap writer (calls) without ordering two
                    # stores to different names
                    e.reads.add(HEAP)
                    if (res.exposed and r.startswith("global:")) or (res.cells_exposed and cell):
                        # a namespace reachable as an object: any reference
                        # may read the variable (``sys.modules[__name__].G``)
                        e.writes.add(HEAP)

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node)

    visit_alias = visit_MatchStar = _name

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self._name(node)
        self.effect.reads.add(HEAP)
        self._stack += child_nodes(node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self._name(node)
        self.generic_visit(node)

    # ---------------------------------------------------- references, calls
    def _reference(self, node: ast.Attribute | ast.Subscript) -> None:
        e = self.effect
        e.reads.add(HEAP)
        e.may_raise = True
        if not isinstance(node.ctx, ast.Load):
            e.writes.add(HEAP)
            e.side = True
        elif isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
            self._dynamic(node)
        self._stack += child_nodes(node)

    visit_Attribute = visit_Subscript = _reference

    def visit_Call(self, node: ast.Call) -> None:
        e = self.effect
        e.reads.add(HEAP)
        e.may_raise = True
        builtin = _builtin_of(node, self.res)
        if id(node) in self.res.dynamic_calls or (self.res.escaped and builtin not in LOOKING_BUILTINS):
            self._dynamic(node)  # (an escaped one may be called by ``sorted``, ``map`` … in this frame)
        if _calls_back(node, builtin, self.res):
            self._runs_code(node)
        if builtin in CONSUMING_BUILTINS:
            several = len(node.args) > 1 and not any(isinstance(a, ast.Starred) for a in node.args)
            if not (builtin in ("min", "max") and several):  # min(a, b) compares, it iterates nothing
                # dict() unpacks each element into a key and a value; *xs passes xs's elements, each iterated
                depth = 2 if builtin == "dict" else 1
                for arg in node.args:
                    if isinstance(arg, ast.Starred):
                        self._unpacks(arg.value, depth + 1)
                    else:
                        self._unpacks(arg, depth)
        elif builtin not in PURE_BUILTINS:
            self._runs_code(node)
        self._stack += child_nodes(node)

    def visit_Starred(self, node: ast.Starred) -> None:
        # ``*it`` in a call or a display iterates it; a starred target
        # (``a, *b = …``) is part of the assignment's unpacking
        if isinstance(node.ctx, ast.Load):
            self._iterates(node.value)
        self._stack.append(node.value)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._unpacks(node.iter, 1 + unpack_depth(node.target))
        self._stack += child_nodes(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        e = self.effect
        e.reads.add(HEAP)
        e.may_raise = True
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):  # an iterator has no __contains__: it is consumed
                self._iterates(right)
        self._stack += child_nodes(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._unpacks(node.value, unpack_depth(target))  # unpacking iterates the value
        self._stack += child_nodes(node)

    def _suspend(self, node: ast.AST) -> None:
        self._runs_code(node)
        self._stack += child_nodes(node)

    visit_Await = visit_Yield = visit_YieldFrom = _suspend

    def visit_Lambda(self, node: ast.Lambda) -> None:
        # the body runs when called; only the defaults are evaluated here
        self._stack.extend(node.args.defaults)
        self._stack.extend(d for d in node.args.kw_defaults if d is not None)

    # ----------------------------------------------------- simple statements
    def _barrier(self, node: ast.AST) -> None:
        self.effect.barrier = True
        self._stack += child_nodes(node)

    visit_Return = visit_Raise = visit_Assert = _barrier

    def _jump(self, node: ast.AST) -> None:
        self.effect.jump = True

    visit_Break = visit_Continue = _jump

    def visit_Global(self, node: ast.AST) -> None:
        self._name(node)
        self.effect.barrier = True

    visit_Nonlocal = visit_Global

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self._runs_code(node)
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            self.effect.barrier = True  # a compiler directive: it must open the module
        self._stack.extend(node.names)

    visit_Import = visit_ImportFrom = _import

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        e = self.effect
        e.reads.add(HEAP)
        e.writes.add(HEAP)
        e.may_raise = True
        if isinstance(node.target, ast.Name):
            for occ in self.res.by_node.get(id(node.target), ()):
                e.reads.add(occ.resource)
        self._stack.extend((node.target, node.value))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # a local variable's annotation is never evaluated; a module's or a
        # class's is (unless the module defers annotations)
        occs = self.res.by_node.get(id(node.target), ())
        if occs and occs[0].scope.kind in ("module", "class") and not self.res.deferred_annotations:
            self._stack.append(node.annotation)
        self._stack.append(node.target)
        if node.value is not None:
            self._stack.append(node.value)


class StatementEffects:
    """Effect of every statement, nested statements included, memoised.

    Shared by all the units of one file: an inner function's statements are
    summarised once although they appear in the outer unit too."""

    def __init__(self, resolution: Resolution) -> None:
        self.res = resolution
        self._memo: dict[int, Effect] = {}
        self._scopes: dict[int, frozenset[str]] | None = None
        self._scope_reads: dict[int, frozenset[str]] = {}  # scope_read by the scope's id
        self._globals: frozenset[str] | None = None
        self._deleted: frozenset[str] | None = None
        self._module_bound: frozenset[str] | None = None
        self._unbound_globals: bool | None = None
        self._plain: dict[int, bool] = {}

    def scope_read(self, node: ast.AST) -> frozenset[str]:
        """What a call that reads its scope by name reads where ``node``
        stands: every variable of that scope (and of the scopes around a
        comprehension, which Python 3.12 runs inline) and every global the
        module names (as ``global:*``, :data:`~invar.frontends.effects.ALL_GLOBALS`)."""
        scope = self.scope_at(node)
        key = id(scope)
        got = self._scope_reads.get(key)
        if got is None:
            out = self.scope_resources(scope)
            while scope is not None and scope.kind == "comprehension":
                scope = scope.parent
                out = out | self.scope_resources(scope)
            got = self._scope_reads[key] = frozenset(r for r in out if not r.startswith("global:")) | _ALL_GLOBALS
        return got

    def scope_at(self, node: ast.AST):
        """The scope a node stands in, from the first name found under it
        (None when it names nothing)."""
        for sub in ast.walk(node):
            occs = self.res.by_node.get(id(sub))
            if occs:
                return occs[0].scope
        return None

    def scope_resources(self, scope) -> frozenset[str]:
        """Every variable named in ``scope`` (its own, its free ones); every
        local, cell and global of the module when ``scope`` is unknown."""
        if self._scopes is None:
            by_scope: dict[int, set[str]] = {}
            for occ in self.res.occurrences:
                by_scope.setdefault(id(occ.scope), set()).add(occ.resource)
            self._scopes = {k: frozenset(v) for k, v in by_scope.items()}
        if scope is None:
            return frozenset(o.resource for o in self.res.occurrences)
        return self._scopes.get(id(scope), frozenset())

    def binders(self, stmt: ast.stmt) -> frozenset[str]:
        """Variables a statement binds for sure when it completes: the names
        it assigns (also inside tuple targets), imports, ``def``/``class``
        names and ``with … as`` targets; not loop targets or what a branch binds."""
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets = [stmt.target] if getattr(stmt, "value", None) is not None else []
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            targets = stmt.names
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            targets = [stmt]
        else:
            return frozenset()
        return frozenset(
            o.resource for t in unpacked(targets) for o in self.res.by_node.get(id(t), ()) if o.ctx != "load"
        )

    def deleted(self) -> frozenset[str]:
        """Variables some ``del`` unbinds: never bound for sure."""
        if self._deleted is None:
            self._deleted = frozenset(o.resource for o in self.res.occurrences if o.ctx == "del")
        return self._deleted

    def module_bound(self) -> frozenset[str]:
        """Globals the module binds at its top level (assignments, imports, definitions)."""
        if self._module_bound is None:
            table = self.res.module.table
            self._module_bound = frozenset(
                f"global:{sym.get_name()}" for sym in table.get_symbols() if sym.is_assigned() or sym.is_imported()
            )
        return self._module_bound

    def unbound_globals(self) -> bool:
        """Whether the module names a global it never binds at its top level
        (a builtin, or one bound elsewhere): reading every global may raise."""
        if self._unbound_globals is None:
            self._unbound_globals = not self.global_resources() <= self.module_bound()
        return self._unbound_globals

    def global_resources(self) -> frozenset[str]:
        if self._globals is None:
            self._globals = frozenset(o.resource for o in self.res.occurrences if o.resource.startswith("global:"))
        return self._globals

    def expressions(self, nodes: list[ast.AST]) -> Effect:
        effect = Effect()
        visitor = EffectVisitor(self.res, effect, self)
        for n in nodes:
            if n is not None:
                visitor.visit(n)
        return effect

    def of(self, stmt: ast.stmt) -> Effect:
        got = self._memo.get(id(stmt))
        if got is None:
            got = self._memo[id(stmt)] = self._compute(stmt)
        return got

    def _block(self, effect: Effect, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            effect.absorb(self.of(s))

    def _compute(self, s: ast.stmt) -> Effect:
        if isinstance(s, (ast.If, ast.While)):
            e = self.expressions([s.test])
            e.reads.add(HEAP)
            body = Effect()
            self._block(body, s.body)
            if isinstance(s, ast.While):
                body.jump = False
            e.absorb(body)
            self._block(e, s.orelse)
            return e
        if isinstance(s, (ast.For, ast.AsyncFor)):
            e = self.expressions([s.target, s.iter])
            EffectVisitor(self.res, e, self)._unpacks(s.iter, 1 + unpack_depth(s.target))
            e.reads.add(HEAP)
            e.may_raise = True
            if isinstance(s, ast.AsyncFor) or not fresh(s.iter, self.res):
                e.side = True  # iterating may run code and advance an iterator
                e.writes.add(HEAP)
                if self.res.escaped:
                    e.reads |= self.scope_read(s)
            body = Effect()
            self._block(body, s.body)
            body.jump = False
            e.absorb(body)
            self._block(e, s.orelse)
            return e
        if isinstance(s, (ast.With, ast.AsyncWith)):
            e = self.expressions([x for item in s.items for x in (item.context_expr, item.optional_vars)])
            e.side = e.may_raise = True  # __enter__/__exit__ run
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            if self.res.escaped:
                e.reads |= self.scope_read(s)
            self._block(e, s.body)
            return e
        if isinstance(s, ast.Try) or s.__class__.__name__ == "TryStar":
            e = Effect()
            self._block(e, s.body)
            for h in s.handlers:
                e.absorb(self.expressions([h.type]))
                e.absorb(self._binding(h))
                self._block(e, h.body)
            self._block(e, s.orelse)
            self._block(e, s.finalbody)
            return e
        if isinstance(s, ast.Match):
            e = self.expressions([s.subject])
            e.reads.add(HEAP)
            for case in s.cases:
                e.absorb(self.expressions([case.pattern, case.guard]))
                self._block(e, case.body)
            return e
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            e = self.definition(s)
            e.absorb(self._binding(s))
            if isinstance(s, ast.ClassDef):
                self._block(e, s.body)  # a class body runs where it stands
            return e
        return self.expressions([s])

    # ----------------------------------------------------------- definitions
    def definition(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Effect:
        """What executing a ``def`` or ``class`` statement runs where it
        stands, its body aside: the expressions of its header (decorators,
        defaults, evaluated annotations, bases, keywords) and, when
        :meth:`runs_at_definition`, a call of code that is not the analysis's
        to see (the decorators applied, the class created)."""
        e = self.expressions(self.header_expressions(s))
        if self.runs_at_definition(s):
            e.reads.add(HEAP)
            e.writes.add(HEAP)
            e.side = e.may_raise = True
            if self.res.escaped:
                e.reads |= self.scope_read(s)
        return e

    def header_expressions(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
        """The expressions a definition evaluates where it stands: decorators,
        then defaults and annotations of a function (annotations unless the
        module defers them), or a class's bases and keywords."""
        if isinstance(s, ast.ClassDef):
            return [*s.decorator_list, *s.bases, *s.keywords]
        a = s.args
        parts = [*s.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
        if not self.res.deferred_annotations:
            parts += annotations(s)
        return parts

    def runs_at_definition(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """Whether executing the definition calls code beyond the expressions
        written in it: a decorator other than the wrapping builtins
        (:data:`WRAPPING_BUILTINS`) is applied, or creating the class may run
        hooks (:meth:`plain_class`)."""
        if any(not self._builtin_in(d, WRAPPING_BUILTINS) for d in s.decorator_list):
            return True
        return isinstance(s, ast.ClassDef) and not self.plain_class(s)

    def plain_class(self, s: ast.ClassDef) -> bool:
        """Whether creating the class provably runs no code of anyone's: no
        keywords (no ``metaclass=``, nothing passed to ``__init_subclass__``),
        every base a builtin of :data:`HOOK_FREE_BASES` (so the metaclass is
        ``type`` and the ``__init_subclass__`` called is ``object``'s), and a
        namespace whose every value is provably of a builtin type, so that no
        ``__set_name__`` of a user class is called: the body holds only
        ``pass``, constants (a docstring), assignments of :func:`built_value`
        values to plain names, functions whose decorators are wrapping
        builtins, and classes plain in turn; no walrus binds anything in it."""
        got = self._plain.get(id(s))
        if got is None:
            got = self._plain[id(s)] = self._plain_class(s)
        return got

    def _plain_class(self, s: ast.ClassDef) -> bool:
        if s.keywords or not all(self._builtin_in(b, HOOK_FREE_BASES) for b in s.bases):
            return False
        for x in s.body:
            if isinstance(x, ast.Pass) or (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant)):
                continue
            if isinstance(x, ast.Assign):
                ok = all(isinstance(t, ast.Name) for t in x.targets) and built_value(x.value)
                evaluated = [x.value]
            elif isinstance(x, ast.AnnAssign):
                ok = isinstance(x.target, ast.Name) and (x.value is None or built_value(x.value))
                evaluated = [x.annotation, x.value]
            elif isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                ok = not self.runs_at_definition(x)
                evaluated = self.header_expressions(x)
            else:
                return False
            if not ok or any(isinstance(n, ast.NamedExpr) for v in evaluated if v is not None for n in ast.walk(v)):
                return False
        return True

    def _builtin_in(self, node: ast.AST, names: frozenset[str]) -> bool:
        """Whether ``node`` is a name of ``names`` that means the builtin."""
        return isinstance(node, ast.Name) and node.id in names and _is_builtin(node, self.res)

    def _binding(self, node: ast.AST) -> Effect:
        """The store of a ``def``/``class`` name (carried by the node itself)."""
        e = Effect()
        EffectVisitor(self.res, e, self)._name(node)
        return e


__all__ = [
    "EffectVisitor",
    "StatementEffects",
    "PURE_BUILTINS",
    "CONSUMING_BUILTINS",
    "WRAPPING_BUILTINS",
    "HOOK_FREE_BASES",
    "built_value",
    "fresh",
]
