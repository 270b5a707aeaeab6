"""Random Python units that hunt for what a dependency analysis can miss.

Each generated unit is a module (a fixed prelude plus one function ``unit``)
and the inputs to call it with. The statements aim on purpose at the
constructs of docs/semantics.md: locals and parameters of every kind
(positional-only, keyword), lists, dicts, sets and objects mutated in place
and copied into new values, iterators and generators advanced by ``next``,
``for`` loops, comprehensions, unpacking, ``in`` and the builtins that consume
them (``list``, ``sum``, ``zip`` …), aliases, closures with ``nonlocal``,
lambdas, comprehension scopes that shadow locals, nested classes whose body
order is meaning (plain, dataclass, ``Enum``, ``__slots__``, shadowing
``def``), definitions that run code where they stand (decorators that print
or append, defaults and annotations that call, subclasses of a base with
``__init_subclass__``, metaclasses, descriptors with ``__set_name__``,
computed bases, each named directly or through a local) and plain ones that
may move, self-documenting f-strings, dynamic scope access (``locals()``,
``vars()``, ``eval``, ``exec``, ``"%(x)s" % locals()``) and the same builtins
reached under other names (aliases in the unit or at module level,
``builtins.locals``, ``__builtins__["vars"]``, ``getattr(builtins, …)``, an
element of a container, a value a nested function returns, ``eval`` handed to
``map``), globals and the module's namespace reached as an object
(``sys.modules[__name__].G0``, a module-level ``THIS`` alias of it,
``f.__globals__``, ``vars(module)``, ``module.__dict__``, ``globals()``
passed to a function), ``try`` and ``with`` bodies, early returns, output
with ``print``, and generators.

Everything is seeded: ``unit(seed)`` always returns the same unit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

PRELUDE = '''\
import builtins
import contextlib
import dataclasses
import enum
import itertools
import sys

G0 = 0
G1 = []


class Box:
    def __init__(self, a=0, b=0):
        self.a = a
        self.b = b

    def bump(self, k):
        self.a += k
        return self.a


def gen(n):
    for i in range(n):
        print("gen", i)
        yield i * 3


# what definitions run where they stand; lambdas rather than functions, so
# that the prelude adds no units to parse for every generated program
note = lambda k: print("note", k) or k  # noqa: E731
logged = lambda obj: print("decorate", obj.__name__) or G1.append(obj.__name__) or obj  # noqa: E731
tagged = lambda label: print("tag", label) or (  # noqa: E731
    lambda obj: G1.append(label) or setattr(obj, "label", label) or obj)
pick = lambda k: print("base", k) or (dict if k % 2 else list)  # noqa: E731


class Hooked:
    __init_subclass__ = lambda cls, tag=None: print("subclass", cls.__name__, tag) or G1.append(cls.__name__)


class Meta(type):
    __prepare__ = classmethod(lambda mcs, name, bases: print("prepare", name) or {})
    __new__ = lambda mcs, name, bases, ns: print("meta new", name) or type.__new__(mcs, name, bases, ns)
    __init__ = lambda cls, name, bases, ns: print("meta init", name)


class Field:
    __set_name__ = lambda self, owner, name: print("set_name", owner.__name__, name) or G1.append(name)


peek = lambda ns: ns["G0"]  # noqa: E731  (a namespace handed to a function)
'''

#: module-level lines a unit may need before it (``extra`` below): aliases of
#: the scope-reading builtins and of the module itself, as globals
MODULE_LINES = {"LC": "LC = locals", "EV": "EV = eval", "THIS": "THIS = sys.modules[__name__]"}

#: module globals whose final state the oracle compares
GLOBALS = ("G0", "G1")

INT, STR, LIST, DICT, SET, ITER, OBJ = "int", "str", "list", "dict", "set", "iter", "obj"

NAMES = {
    INT: ["a", "b", "c", "n", "k", "acc", "total", "x"],
    STR: ["s", "t", "label"],
    LIST: ["xs", "ys", "zs", "out"],
    DICT: ["d", "seen"],
    SET: ["st", "bag"],
    ITER: ["it", "src", "stream"],
    OBJ: ["box", "rec"],
}


@dataclass
class Unit:
    """One generated module and the inputs to call its ``unit`` with."""

    seed: int
    source: str
    inputs: list[str]
    #: line of the module where the function starts (1-based)
    first_line: int


class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.env: dict[str, str] = {}
        self.lines: list[str] = []
        self.helpers: list[str] = []  # names of nested functions taking one int
        self.generator = False
        self.used_global = False
        #: names the unit always returns (their final value is what a check needs)
        self.observed: list[str] = []
        #: keys of MODULE_LINES the unit uses
        self.module_lines: set[str] = set()

    # --------------------------------------------------------------- helpers
    def pick(self, *types: str) -> str | None:
        names = [n for n, t in self.env.items() if t in types]
        return self.rng.choice(names) if names else None

    def new_name(self, t: str) -> str:
        free = [n for n in NAMES[t] if n not in self.env]
        name = self.rng.choice(free) if free else self.rng.choice(NAMES[t])
        return name

    def emit(self, depth: int, text: str) -> None:
        for line in text.split("\n"):
            self.lines.append("    " * depth + line)

    # ----------------------------------------------------------- expressions
    def int_expr(self, depth: int = 0) -> str:
        r = self.rng
        a = self.pick(INT)
        lst = self.pick(LIST)
        it = self.pick(ITER)
        options: list[tuple[float, callable]] = [
            (2, lambda: str(r.randint(-3, 9))),
            (4, lambda: a) if a else (0, None),
            (3, lambda: f"{self.int_expr(depth + 1)} {r.choice('+-*')} {self.int_expr(depth + 1)}")
            if depth < 2
            else (0, None),
            (2, lambda: f"len({self.pick(LIST, DICT, SET, STR)})") if self.pick(LIST, DICT, SET, STR) else (0, None),
            (2, lambda: f"sum({lst})") if lst else (0, None),
            (2, lambda: f"sum({it})") if it else (0, None),
            (2, lambda: f"next({it}, -1)") if it else (0, None),
            (1, lambda: f"max({self.pick(LIST, SET, ITER)}, default=0)") if self.pick(LIST, SET, ITER) else (0, None),
            (1, lambda: f"min({lst}, default=0)") if lst else (0, None),
            (2, lambda: f"({lst}[{self.int_expr(depth + 1)} % len({lst})] if {lst} else 0)")
            if lst and depth < 2
            else (0, None),
            (2, lambda: f"({lst}.pop() if {lst} else -1)") if lst else (0, None),
            (1, lambda: f"{self.pick(DICT)}.get({self.str_key()}, 0)") if self.pick(DICT) else (0, None),
            (1, lambda: f"{self.pick(DICT)}.pop({self.str_key()}, 0)") if self.pick(DICT) else (0, None),
            (2, lambda: f"{self.pick(OBJ)}.a") if self.pick(OBJ) else (0, None),
            (1, lambda: f"{self.pick(OBJ)}.bump({r.randint(1, 3)})") if self.pick(OBJ) else (0, None),
            (1, lambda: f"{a} // {self.int_expr(depth + 1)}") if a and depth < 2 else (0, None),
            (1, lambda: "G0"),
            (1, lambda: f"sum(1 for _ in {it})") if it else (0, None),
            (2, lambda: self.count_above(lst, depth)) if lst and depth < 2 else (0, None),
            (1, lambda: f"({a} if {a} > {self.int_expr(depth + 1)} else {self.int_expr(depth + 1)})")
            if a and depth < 2
            else (0, None),
            (1, lambda: f"abs({self.int_expr(depth + 1)})") if depth < 2 else (0, None),
            (2, lambda: f"{r.choice(self.helpers)}({self.int_expr(depth + 1)})")
            if self.helpers and depth < 2
            else (0, None),
            (1, lambda: f'eval("{a} + 1")') if a else (0, None),
            (1, lambda: f"({self.int_expr(depth + 1)} in {self.pick(LIST, SET, ITER)})")
            if self.pick(LIST, SET, ITER) and depth < 2
            else (0, None),
            (1, lambda: f"len(list({it}))") if it else (0, None),
        ]
        return self._choose(options)

    def count_above(self, lst: str, depth: int) -> str:
        """A comprehension whose variable may shadow a local of the unit."""
        v = self.rng.choice(["v", "x", "a"])
        return f"len([{v} for {v} in {lst} if {v} > {self.int_expr(depth + 1)}])"

    def _choose(self, options) -> str:
        options = [(w, f) for w, f in options if w > 0]
        total = sum(w for w, _ in options)
        x = self.rng.random() * total
        for w, f in options:
            x -= w
            if x <= 0:
                return f()
        return options[-1][1]()

    def drained(self, name: str | None) -> str | None:
        """``name``, or ``list(name)`` for an iterator: extending a list by a
        lazy iterator over that same list never ends, inside C code that no
        time limit interrupts."""
        if name is not None and self.env.get(name) == ITER:
            return f"list({name})"
        return name

    def str_key(self) -> str:
        return repr(self.rng.choice(["a", "b", "c"]))

    def str_expr(self) -> str:
        r = self.rng
        s = self.pick(STR)
        a = self.pick(INT)
        lst = self.pick(LIST)
        options = [
            (2, lambda: repr(r.choice(["", "ab", "x-y", "42"]))),
            (3, lambda: s) if s else (0, None),
            (2, lambda: f"{s} + {repr(r.choice('xyz'))}") if s else (0, None),
            (2, lambda: f"str({self.int_expr(1)})"),
            (2, lambda: f'f"{{{a}}}-{{{s}}}"') if a and s else (0, None),
            (2, lambda: f'f"{{{a}=}}"') if a else (0, None),
            (1, lambda: f'f"{{{a} = }}"') if a else (0, None),
            (1, lambda: f"{s}.upper()") if s else (0, None),
            (2, lambda: f'",".join(map(str, {self.pick(LIST, ITER)}))') if self.pick(LIST, ITER) else (0, None),
            (1, lambda: f'"%({a})s" % locals()') if a else (0, None),
            (1, lambda: f"repr({lst})") if lst else (0, None),
        ]
        return self._choose(options)

    def list_expr(self) -> str:
        r = self.rng
        lst = self.pick(LIST)
        it = self.pick(ITER)
        v = r.choice(["v", "x", "a", "n"])
        options = [
            (2, lambda: f"[{self.int_expr(1)}, {self.int_expr(1)}]"),
            (2, lambda: "[]"),
            (2, lambda: f"list({self.pick(LIST, ITER, SET)})") if self.pick(LIST, ITER, SET) else (0, None),
            (2, lambda: f"sorted({self.pick(LIST, ITER, SET)})") if self.pick(LIST, ITER, SET) else (0, None),
            (2, lambda: f"[{v} * 2 for {v} in {self.pick(LIST, ITER)}]") if self.pick(LIST, ITER) else (0, None),
            (2, lambda: f"[*{self.pick(ITER, LIST)}]") if self.pick(ITER, LIST) else (0, None),
            (1, lambda: f"{lst} + [{self.int_expr(1)}]") if lst else (0, None),
            (2, lambda: f"{lst}") if lst else (0, None),  # an alias
            (1, lambda: f"{lst}[:]") if lst else (0, None),
            (1, lambda: f"[p + q for p, q in zip({it}, {lst})]") if it and lst else (0, None),
            (1, lambda: f"list(map(abs, {self.pick(ITER, LIST)}))") if self.pick(ITER, LIST) else (0, None),
            (1, lambda: f"list(range({self.int_expr(1)} % 4))"),
            (1, lambda: f"list({self.pick(DICT)}.values())") if self.pick(DICT) else (0, None),
        ]
        return self._choose(options)

    def dict_expr(self) -> str:
        d = self.pick(DICT)
        options = [
            (2, lambda: "{}"),
            (2, lambda: f"{{{self.str_key()}: {self.int_expr(1)}}}"),
            (2, lambda: f"dict({d})") if d else (0, None),
            (1, lambda: f"{{k: v + 1 for k, v in {d}.items()}}") if d else (0, None),
            (2, lambda: d) if d else (0, None),
        ]
        return self._choose(options)

    def set_expr(self) -> str:
        options = [
            (2, lambda: f"{{{self.int_expr(1)}, {self.int_expr(1)}}}"),
            (2, lambda: f"set({self.pick(LIST, ITER)})") if self.pick(LIST, ITER) else (0, None),
            (1, lambda: "set()"),
        ]
        return self._choose(options)

    def iter_expr(self) -> str:
        r = self.rng
        lst = self.pick(LIST)
        options = [
            (3, lambda: f"iter({lst})") if lst else (0, None),
            (2, lambda: f"iter([{self.int_expr(1)}, {self.int_expr(1)}, {self.int_expr(1)}])"),
            (2, lambda: f"gen({r.randint(0, 4)})"),
            (1, lambda: f"map(abs, {lst})") if lst else (0, None),
            (1, lambda: f"filter(None, {self.pick(LIST, ITER)})") if self.pick(LIST, ITER) else (0, None),
            (1, lambda: f"(v + 1 for v in {self.pick(LIST, ITER)})") if self.pick(LIST, ITER) else (0, None),
            (1, lambda: f"reversed({lst})") if lst else (0, None),
        ]
        return self._choose(options)

    def expr(self, t: str) -> str:
        return {
            INT: self.int_expr,
            STR: self.str_expr,
            LIST: self.list_expr,
            DICT: self.dict_expr,
            SET: self.set_expr,
            ITER: self.iter_expr,
            OBJ: lambda: f"Box({self.int_expr(1)})",
        }[t]()

    # ------------------------------------------------------------ statements
    def statement(self, depth: int, budget: int, in_loop: bool = False) -> None:
        r = self.rng
        roll = r.random()
        if depth < 3 and budget > 2 and roll < 0.16:
            return self.compound(depth, budget, in_loop)
        if roll < 0.20 and depth < 3 and budget > 3:
            return self.nested_scope(depth)
        if 0.20 <= roll < 0.26 and depth < 3:
            return self.definition(depth)
        choices = [
            (9, self.assign),
            (3, self.mutate),
            (2, self.output),
            (1, self.unpack),
            (0.6, self.dynamic),
            (0.6, self.global_write),
            (1, self.augment),
            (0.5, self.aliased_scope_read),
            (0.6, self.module_global),
            (0.6, self.hands_code),
        ]
        if self.generator:
            choices.append((1, lambda d: self.emit(d, f"yield {self.int_expr()}")))
        if in_loop:
            choices.append(
                (1, lambda d: self.emit(d, f"if {self.int_expr(1)} > 3:\n    {r.choice(['break', 'continue'])}"))
            )
        if depth > 1:
            choices.append((1, lambda d: self.emit(d, f"if {self.int_expr(1)} > 5:\n    return {self.int_expr(1)}")))
        total = sum(w for w, _ in choices)
        x = r.random() * total
        for w, f in choices:
            x -= w
            if x <= 0:
                return f(depth)

    def assign(self, depth: int) -> None:
        r = self.rng
        t = r.choice([INT, INT, INT, STR, LIST, LIST, DICT, SET, ITER, ITER, OBJ])
        name = self.pick(t) if r.random() < 0.4 else None
        name = name or self.new_name(t)
        if name in self.env and self.env[name] != t:
            name = self.new_name(t) + "2"
        value = self.expr(t)
        self.env[name] = t
        self.emit(depth, f"{name} = {value}")

    def augment(self, depth: int) -> None:
        a = self.pick(INT)
        lst = self.pick(LIST)
        if lst and self.rng.random() < 0.4:
            src = self.pick(ITER, LIST, SET)
            self.emit(depth, f"{lst} += {self.drained(src)}" if src else f"{lst} += [1]")
        elif a:
            self.emit(depth, f"{a} {self.rng.choice(['+=', '-=', '*='])} {self.int_expr(1)}")
        else:
            self.assign(depth)

    def unpack(self, depth: int) -> None:
        r = self.rng
        a, b = self.pick(INT), self.pick(INT)
        it = self.pick(ITER, LIST)
        if a and b and a != b and r.random() < 0.4:
            self.emit(depth, f"{a}, {b} = {b}, {a}")
        elif it and r.random() < 0.6:
            p = r.choice(NAMES[INT])
            rest = self.new_name(LIST)
            self.env[p] = INT
            self.env[rest] = LIST
            self.emit(depth, f"{p}, *{rest} = [*{it}, 0]")
        else:
            x = self.new_name(INT)
            y = self.new_name(INT)
            if x == y:
                y = "b2"
            self.env[x] = self.env[y] = INT
            self.emit(depth, f"{x}, {y} = divmod({self.int_expr(1)}, 3)")

    def hands_code(self, depth: int) -> None:
        """A builtin that runs what it is handed (``sorted``'s and ``max``'s
        key, ``type``'s class hooks), or unpacking that reaches the elements
        of a display built right there (``for *r, in [it]``)."""
        r = self.rng
        lst, a, b, it = self.pick(LIST), self.pick(INT), self.pick(INT), self.pick(ITER)
        key = f"lambda v: {lst}.append(v) or -v" if lst and r.random() < 0.6 else "lambda v: print('key', v) or v"
        options = [(LIST, f"sorted({self.list_expr()}, key={key})")]
        if a and b:
            options.append((INT, f"max({a}, {b}, key={key})"))
        if it:
            options += [(INT, f"max(*[{it}], default=0)"), (LIST, None)]
        options.append((None, None))
        t, value = r.choice(options)
        if t is None:
            k = r.randint(0, 9)
            self.emit(depth, f"K{k} = type('K{k}', (Hooked,), {{}})")
        elif value is None:
            rest = self.new_name(LIST)
            self.env[rest] = LIST
            self.emit(depth, f"for *{rest}, in [{it}]:\n    pass")
        else:
            name = self.new_name(t)
            self.env[name] = t
            self.emit(depth, f"{name} = {value}")

    def mutate(self, depth: int) -> None:
        r = self.rng
        lst, d, st, obj = self.pick(LIST), self.pick(DICT), self.pick(SET), self.pick(OBJ)
        it = self.pick(ITER)
        options = []
        if lst:
            options += [
                f"{lst}.append({self.int_expr(1)})",
                f"{lst}.extend({self.drained(self.pick(ITER, LIST)) or '[1]'})",
                f"{lst}.insert(0, {self.int_expr(1)})",
                f"{lst}.sort()",
                f"{lst}.reverse()",
                f"if {lst}:\n    del {lst}[0]",
                f"if {lst}:\n    {lst}[0] = {self.int_expr(1)}",
                f"{lst}[:] = {self.list_expr()}",
            ]
        if d:
            options += [
                f"{d}[{self.str_key()}] = {self.int_expr(1)}",
                f"{d}.setdefault({self.str_key()}, {self.int_expr(1)})",
                f"{d}.update({self.dict_expr()})",
            ]
        if st:
            options += [f"{st}.add({self.int_expr(1)})", f"{st}.discard({self.int_expr(1)})"]
        if obj:
            options += [f"{obj}.a = {self.int_expr(1)}", f"{obj}.bump({r.randint(1, 3)})", f"{obj}.b += 1"]
        if it:
            options += [f"next({it}, None)"]
        options.append(f"G1.append({self.int_expr(1)})")
        self.emit(depth, r.choice(options))

    def output(self, depth: int) -> None:
        r = self.rng
        a = self.pick(INT)
        options = [f"print({self.int_expr()})", f"print({self.str_expr()})"]
        if a:
            options += [f'print(f"{{{a}=}}")', f'print("%({a})s" % locals())']
        if self.pick(LIST, ITER):
            options.append(f"print(*{self.pick(LIST, ITER)})")
        self.emit(depth, r.choice(options))

    def dynamic(self, depth: int) -> None:
        r = self.rng
        a = self.pick(INT)
        options = ["names = sorted(locals())", "print(sorted(vars()))", "print(len(dir()))"]
        if a:
            options += [f'{a} = eval("{a} * 2 + 1")', f'exec("print({a})")']
        line = r.choice(options)
        if line.startswith("names"):
            self.env["names"] = LIST
        self.emit(depth, line)

    def aliased_scope_read(self, depth: int) -> None:
        """A call of ``locals``, ``vars``, ``eval`` … by another name: an alias
        (in the unit or at module level), an attribute of the builtins
        namespace, an element of a container, a value returned by a nested
        function, ``eval`` applied by ``map``."""
        r = self.rng
        a = self.pick(INT)
        k = len(self.lines) % 5
        kind = r.choice(["alias", "alias", "module", "builtins", "container", "returned", "mapped"])
        if kind == "alias":
            name, builtin = r.choice([(f"lc{k}", "locals"), (f"vv{k}", "vars"), (f"ev{k}", "eval")])
            self.emit(depth, f"{name} = {builtin}")
            call = (
                f'{name}("{a} * 2 + 1")'
                if builtin == "eval" and a
                else f"sorted({name}())"
                if builtin != "eval"
                else f'{name}("len(dir())")'
            )
        elif kind == "module":
            name = r.choice(["LC", "EV"])
            self.module_lines.add(name)
            call = (
                f'EV("{a} + 1")'
                if name == "EV" and a
                else "EV(\"sorted(locals())\")"
                if name == "EV"
                else "sorted(LC())"
            )
        elif kind == "builtins":
            call = r.choice(
                ["sorted(builtins.locals())", 'sorted(getattr(builtins, "vars")())', 'sorted(__builtins__["locals"]())']
                + ([f'builtins.eval("{a} - 1")'] if a else [])
            )
        elif kind == "container":
            self.emit(depth, f"fs{k} = [locals, vars]")
            call = f"sorted(fs{k}[{r.randint(0, 1)}]())"
        elif kind == "returned":
            self.emit(depth, f"def give{k}():\n    return locals")
            call = f"sorted(give{k}()())"
        else:
            call = f'list(map(eval, ["{a}", "{a} + 1"]))' if a else 'list(map(eval, ["len(dir())"]))'
        if r.random() < 0.5:
            self.emit(depth, f"print({call})")
        else:
            name = self.new_name(LIST)
            self.env[name] = LIST
            self.observed.append(name)
            self.emit(depth, f"{name} = [{call}]")

    def module_global(self, depth: int) -> None:
        """A read or write of ``G0`` through the module's namespace as an object,
        next to a store of the global by name, which must not cross it (a
        plain read calls nothing: only the store's dependencies order them)."""
        r = self.rng
        reads = [
            "sys.modules[__name__].G0",
            "THIS.G0",
            'unit.__globals__["G0"]',
            'gen.__globals__["G0"]',
            'vars(sys.modules[__name__])["G0"]',
            'sys.modules[__name__].__dict__["G0"]',
            "peek(globals())",
        ]
        writes = ["sys.modules[__name__].G0 = {}", "THIS.G0 += {}", 'globals()["G0"] = {}']
        store = f"G0 = G0 + {self.int_expr(1)}"
        self.used_global = True
        if r.random() < 0.25:
            line = r.choice(writes).format(self.int_expr(1))
        else:
            name = f"g{len(self.lines) % 7}"
            self.env[name] = INT
            self.observed.append(name)
            line = f"{name} = {r.choice(reads)}"
        if "THIS" in line:
            self.module_lines.add("THIS")
        for text in (store, line) if r.random() < 0.5 else (line, store):
            self.emit(depth, text)

    def global_write(self, depth: int) -> None:
        if depth == 1 and not self.used_global:
            return self.assign(depth)  # a ``global`` statement is emitted at the top when used
        self.used_global = True
        self.emit(depth, f"G0 = G0 + {self.int_expr(1)}")

    def compound(self, depth: int, budget: int, in_loop: bool) -> None:
        r = self.rng
        kind = r.choice(["if", "if", "for", "forit", "while", "try", "with", "maybe"])
        inner = r.randint(1, max(1, min(4, budget - 1)))
        saved = dict(self.env)
        if kind == "if":
            self.emit(depth, f"if {self.int_expr(1)} > {r.randint(-2, 5)}:")
            self.block(depth + 1, inner, in_loop)
            if r.random() < 0.5:
                self.env = dict(saved) | {k: v for k, v in self.env.items() if saved.get(k) == v}
                self.emit(depth, "else:")
                self.block(depth + 1, inner, in_loop)
        elif kind in ("for", "forit"):
            src = self.pick(ITER, LIST) if kind == "forit" else None
            if src is not None and self.env[src] == LIST:
                src = f"itertools.islice({src}, 6)"  # the body may grow the list
            src = src or f"range({r.randint(0, 4)})"
            var = r.choice(["i", "v", "x", "n"])
            if var in self.env and self.env[var] != INT:
                var = "i"
            self.env[var] = INT
            self.emit(depth, f"for {var} in {src}:")
            self.block(depth + 1, inner, True)
        elif kind == "while":
            w = "w" + str(depth)
            self.emit(depth, f"{w} = 0")
            self.emit(depth, f"while {w} < {r.randint(1, 3)}:")
            self.emit(depth + 1, f"{w} += 1")
            self.block(depth + 1, inner, True)
        elif kind == "maybe":
            # a name bound on one path only, read inside try where the handler
            # catches the NameError, next to statements that may move
            name = r.choice(["late", "opt"])
            self.emit(depth, f"if {self.int_expr(1)} > {r.randint(0, 4)}:\n    {name} = {self.int_expr(1)}")
            at = len(self.lines)
            self.emit(depth, "try:")
            target = self.new_name(INT)
            self.emit(depth + 1, f"{target} = {name}")  # a bare load: only the name can raise
            self.env.pop(target, None)
            flag = self.new_name(INT)
            # a statement that cannot raise either: only the load orders it. The flag is
            # bound before the try, so the original completes whether the load raised or
            # not, and the flag's value says whether the store ran before the load
            self.lines.insert(at, "    " * depth + f"{flag} = -1")
            self.emit(depth + 1, f"{flag} = {r.randint(0, 9)}")
            self.block(depth + 1, inner, in_loop)
            self.env[target] = self.env[flag] = INT
            self.observed.append(flag)
            self.emit(depth, "except NameError:\n    pass")
        elif kind == "try":
            self.emit(depth, "try:")
            self.block(depth + 1, inner, in_loop)
            self.emit(
                depth,
                "except (ZeroDivisionError, IndexError, KeyError, ValueError, TypeError, StopIteration, NameError):",
            )
            self.block(depth + 1, max(1, inner // 2), in_loop)
        else:
            self.emit(depth, "with contextlib.suppress(ZeroDivisionError, IndexError, StopIteration):")
            self.block(depth + 1, inner, in_loop)
        # names bound inside may be unbound afterwards: keep only what was bound before
        # or what every path bound (simply: forget the new ones half of the time)
        if r.random() < 0.5:
            self.env = {k: v for k, v in self.env.items() if k in saved}

    def block(self, depth: int, size: int, in_loop: bool = False) -> None:
        for _ in range(size):
            self.statement(depth, size, in_loop)

    def nested_scope(self, depth: int) -> None:
        r = self.rng
        kind = r.choice(["closure", "nonlocal", "lambda", "class", "dataclass", "enum", "slots", "comprehension"])
        a = self.pick(INT)
        if kind == "closure":
            name = r.choice(["helper", "twice", "shift"])
            self.emit(depth, f"def {name}(v):\n    return v * 2 + {a or 1}")
            self.helpers.append(name)
        elif kind == "nonlocal" and a:
            name = r.choice(["add", "grow"])
            self.emit(depth, f"def {name}(delta):\n    nonlocal {a}\n    {a} += delta\n    return {a}")
            self.helpers.append(name)
        elif kind == "lambda":
            name = r.choice(["lam", "f1"])
            self.emit(depth, f"{name} = lambda v: v - {a or 2}")
            self.helpers.append(name)
        elif kind == "class":
            v = a or "1"
            self.emit(
                depth,
                f"class K:\n    first = {v}\n    second = first + 1\n    def m(self):\n        return 1\n"
                f"    def m(self):\n        return 2\n    third = second * 2",
            )
            self.env["kk"] = OBJ
            self.emit(depth, "kk = K()\nkk.a = K.third + kk.m()\nkk.b = K.first")
        elif kind == "dataclass":
            self.emit(depth, f"@dataclasses.dataclass\nclass P:\n    u: int = {a or 0}\n    w: int = 1\n    z: int = 2")
            self.emit(depth, f"print(P({self.int_expr(1)}, 5))")
        elif kind == "enum":
            self.emit(depth, "class Color(enum.Enum):\n    RED = 1\n    GREEN = 2\n    BLUE = 3")
            self.emit(depth, "print([c.name for c in Color])")
        elif kind == "slots":
            self.emit(
                depth,
                "class Q:\n    __slots__ = ('u', 'w')\n    def __init__(self):\n        self.u = 1\n        self.w = 2",
            )
            self.emit(depth, "print(Q.__slots__)")
        else:
            lst = self.pick(LIST)
            if lst and a:
                self.emit(depth, f"{a} = sum([{a} * 2 for {a} in {lst}])")
            else:
                self.assign(depth)

    # ------------------------------------------------ code a definition runs
    def local_alias(self, depth: int, value: str, stem: str) -> str:
        """``value`` itself, or (half of the time) a local bound to it just
        before: a definition that names only locals reads no global."""
        if self.rng.random() < 0.5:
            return value
        name = f"{stem}{len(self.lines) % 7}"
        self.emit(depth, f"{name} = {value}")
        return name

    def decorator(self, depth: int) -> str:
        """A decorator expression whose application prints or appends."""
        r = self.rng
        lst = self.pick(LIST)
        kind = r.choice(["logged", "tagged", "closure", "closure"] if lst else ["logged", "tagged"])
        if kind == "logged":
            return self.local_alias(depth, "logged", "deco")
        if kind == "tagged":
            return self.local_alias(depth, f"tagged({self.int_expr(1)})", "deco")
        # a closure over a local list: applying it appends to that list
        name = r.choice(["reg", "mark"])
        self.emit(
            depth, f"def {name}(obj):\n    {lst}.append(len({lst}))\n    print('{name}', obj.__name__)\n    return obj"
        )
        return name

    def helper(self, depth: int, name: str) -> None:
        """Call ``name`` later, where it is surely bound (a function defined
        at the top level of the unit's body)."""
        if depth == 1:
            self.helpers.append(name)

    def definition(self, depth: int) -> None:
        """A ``def`` or ``class`` statement that runs code where it stands
        (docs/semantics.md): decorators, defaults and annotations that call,
        bases with ``__init_subclass__``, metaclasses, descriptors with
        ``__set_name__``, computed bases; or a plain one that may move."""
        r = self.rng
        kind = r.choice(
            ["decorated", "decorated", "hook", "metaclass", "descriptor", "default", "annotation", "base", "plain"]
        )
        k = len(self.lines) % 5
        a = self.pick(INT)
        if kind == "decorated":
            deco = self.decorator(depth)
            if r.random() < 0.5:
                self.emit(depth, f"@{deco}\ndef h{k}(v):\n    return v + 1")
                self.helper(depth, f"h{k}")
            else:
                self.emit(depth, f"@{deco}\nclass C{k}:\n    size = {a or 1}")
            if r.random() < 0.5:  # a second one: the two keep their order
                self.emit(depth, f"@{self.decorator(depth)}\ndef g{k}(v):\n    return v - 1")
                self.helper(depth, f"g{k}")
        elif kind == "hook":
            base = self.local_alias(depth, "Hooked", "base")
            keyword = f", tag={self.int_expr(1)}" if r.random() < 0.4 else ""
            for name in [f"S{k}", f"T{k}"][: r.randint(1, 2)]:
                self.emit(depth, f"class {name}({base}{keyword}):\n    pass")
        elif kind == "metaclass":
            meta = self.local_alias(depth, "Meta", "meta")
            self.emit(depth, f"class M{k}(metaclass={meta}):\n    x = {a or 1}")
            if r.random() < 0.5:
                self.emit(depth, f"class N{k}(M{k}):\n    y = 2")
        elif kind == "descriptor":
            if r.random() < 0.5:
                self.emit(depth, f"fd{k} = Field()\nclass D{k}:\n    first = fd{k}\n    second = fd{k}")
            else:
                self.emit(depth, f"class D{k}:\n    value = Field()")
        elif kind in ("default", "annotation"):
            it, obj, lst = self.pick(ITER), self.pick(OBJ), self.pick(LIST)
            calls = [f"note({self.int_expr(1)})"]
            calls += [f"next({it}, 0)"] if it else []
            calls += [f"{obj}.bump(1)"] if obj else []
            calls += [f"({lst}.pop() if {lst} else 0)"] if lst else []
            call = r.choice(calls)
            if kind == "default":
                self.emit(depth, f"def h{k}(v, w={call}):\n    return v + w")
            else:
                self.emit(depth, f"def h{k}(v: {call} = 0) -> note('return'):\n    return v * 2")
            self.helper(depth, f"h{k}")
        elif kind == "base":
            self.emit(depth, f"class B{k}(pick({self.int_expr(1)})):\n    pass")
        else:
            self.emit(depth, f"def p{k}(v, w=2):\n    return v * w")
            self.helper(depth, f"p{k}")
            if r.random() < 0.5:
                self.emit(depth, f"class P{k}:\n    size = 2\n    def m(self):\n        return 3")
        # a witness right after: what the hooks append to, read, or an output
        roll = r.random()
        if roll < 0.3:
            if depth == 1:
                self.env[f"ng{k}"] = INT
            self.emit(depth, f"ng{k} = len(G1)")
        elif roll < 0.6:
            self.emit(depth, f"print('defined', {self.int_expr(1)})")


def unit(seed: int) -> Unit:
    """The generated unit of ``seed``."""
    rng = random.Random(seed)
    g = _Gen(rng)
    kinds = rng.sample([INT, INT, STR, LIST, LIST, DICT, SET, ITER, ITER, OBJ], rng.randint(1, 4))
    params = []
    for t in kinds:
        name = g.new_name(t)
        if name in g.env:
            continue
        g.env[name] = t
        params.append(name)
    positional = rng.randint(0, len(params))
    signature = ", ".join(params[:positional]) + (", /" if positional else "")
    if params[positional:]:
        signature += (", " if positional else "") + ", ".join(params[positional:])
    g.generator = rng.random() < 0.08
    body_start = len(g.lines)
    g.block(1, rng.randint(4, 10))
    uses_global = any("G0 =" in line for line in g.lines[body_start:])
    if g.generator and not any("yield" in line for line in g.lines):
        g.emit(1, "yield 0")
    returned = list(dict.fromkeys(g.observed + [n for n in g.env if rng.random() < 0.6]))[:6]
    g.emit(1, f"return ({', '.join(returned)}{',' if returned else ''})" if not g.generator else "return")
    header = [f"def unit({signature}):"] + (["    global G0"] if uses_global else [])
    extra = "".join(MODULE_LINES[k] + "\n" for k in sorted(g.module_lines))
    before = PRELUDE + extra + "\n\n"
    source = before + "\n".join(header + g.lines) + "\n"
    inputs = [_input(rng, params, positional, [g.env.get(p) for p in params]) for _ in range(6)]
    return Unit(seed, source, inputs, before.count("\n") + 1)


def _value(rng: random.Random, t: str) -> str:
    ints = lambda: ", ".join(str(rng.randint(-4, 9)) for _ in range(rng.randint(0, 5)))  # noqa: E731
    if t == INT:
        return str(rng.randint(-3, 9))
    if t == STR:
        return repr(rng.choice(["", "ab", "7", "x y", "hello"]))
    if t == LIST:
        return f"[{ints()}]"
    if t == DICT:
        return "{" + ", ".join(f"{k!r}: {rng.randint(0, 9)}" for k in rng.sample("abc", rng.randint(0, 3))) + "}"
    if t == SET:
        return "{" + (ints() or "0") + "}"
    if t == ITER:
        return rng.choice([f"iter([{ints()}])", f"gen({rng.randint(0, 4)})"])
    return f"Box({rng.randint(0, 5)}, {rng.randint(0, 5)})"


def _input(rng: random.Random, params: list[str], positional: int, types: list[str | None]) -> str:
    """An input expression: positional-only parameters by position, the rest
    by position or, half of the time, by keyword (the interface a renaming
    must keep)."""
    args, kwargs = [], []
    by_keyword = rng.random() < 0.5
    for k, (p, t) in enumerate(zip(params, types)):
        value = _value(rng, t or INT)
        if k >= positional and by_keyword:
            kwargs.append(f"{p!r}: {value}")
        else:
            args.append(value)
    return f"(({', '.join(args)}{',' if args else ''}), {{{', '.join(kwargs)}}})"


__all__ = ["PRELUDE", "MODULE_LINES", "GLOBALS", "Unit", "unit"]
