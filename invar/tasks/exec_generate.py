"""Programs invar writes for output prediction (``invar data exec --generate``).

Each program is one function ``f`` of one to three parameters (``n``, an
int; ``xs``, a list of ints; ``s``, a string) and a call of it with drawn
arguments. Its body is a seeded sequence of statement templates, each
binding new locals from the parameters and the locals before it, and it
returns a tuple of the results. The templates hold the constructs the
semantics contract covers (docs/semantics.md): comprehensions (list, set,
dict, and a walrus inside one), closures (a nested function reading a local),
``for`` and ``while`` loops, exceptions (``try``/``except``, ``raise``),
classes (a counter built and called), decorators (a wrapping function
applied with ``@``), the walrus operator, and ``match`` (on a value and on a
sequence, with captures), and an iterator advanced by ``next`` (iteration
is a write); and plain arithmetic and string slicing.

Built to vary: every program holds at least two plain statements that read
only the parameters, so it has at least two locals to rename between and
two statements that may swap (more than one renaming and more than one
order, in invar's own spaces, for all but a few). Parameters keep their
names under renaming (they can be passed by keyword), so the variation is in
the locals. The values stay small and every template binds its results on
every path and catches what it may raise, so nearly every call returns.

Everything is seeded: :func:`generate` of one seed is always the same program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

#: the constructs a generated program may hold (the templates' names)
CONSTRUCTS = ("comprehension", "closure", "loop", "exception", "class", "decorator", "walrus", "match", "iterator")
#: the locals' names, drawn without repeats within a program
NAMES = (
    "a",
    "b",
    "c",
    "d",
    "m",
    "t",
    "u",
    "w",
    "acc",
    "out",
    "res",
    "tmp",
    "val",
    "cnt",
    "idx",
    "pos",
    "word",
    "seq",
    "pair",
    "head",
    "tail",
    "total",
    "best",
    "hits",
    "mask",
    "step",
    "key",
    "part",
)
#: comprehension variables (a scope of their own)
_ITEMS = ("y", "z", "e", "q")
_SIGNATURES = (("n",), ("xs",), ("n", "xs"), ("xs", "s"), ("n", "s"), ("n", "xs", "s"))
_TYPES = {"n": "int", "xs": "list", "s": "str"}


@dataclass(frozen=True)
class Generated:
    """One generated program and its call."""

    #: the function's source
    code: str
    #: the call's arguments (``3, [1, 2]``)
    arguments: str
    #: the constructs its templates hold (a subset of :data:`CONSTRUCTS`)
    constructs: tuple[str, ...] = ()
    function: str = "f"


@dataclass
class _Writer:
    rng: random.Random
    #: name -> type (int, list, str, dict, set, obj) of every usable variable
    env: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    constructs: set[str] = field(default_factory=set)
    #: names of nested functions and classes already given
    helpers: set[str] = field(default_factory=set)
    #: variables bound by the statement being written: usable after it
    pending: dict[str, str] = field(default_factory=dict)

    # -------------------------------------------------------------- names
    def fresh(self, kind: str, result: bool = True, usable: bool = True) -> str:
        """A new local: returned by the function (``result``), and read by
        the statements after this one (``usable``: bound on every path)."""
        free = [n for n in NAMES if n not in self.used]
        name = self.rng.choice(free) if free else f"v{len(self.used)}"
        self.used.add(name)
        if usable:
            self.pending[name] = kind
        if result:
            self.results.append(name)
        return name

    def helper(self, *choices: str) -> str:
        free = [c for c in choices if c not in self.helpers] or [f"{choices[0]}{len(self.helpers)}"]
        name = self.rng.choice(free)
        self.helpers.add(name)
        self.used.add(name)
        return name

    def pick(self, kind: str) -> str | None:
        names = [n for n, t in self.env.items() if t == kind]
        return self.rng.choice(names) if names else None

    def emit(self, *lines: str) -> None:
        self.lines += ["    " + line for line in lines]
        self.env.update(self.pending)
        self.pending.clear()

    # -------------------------------------------------------- expressions
    def k(self, lo: int = 1, hi: int = 9) -> int:
        return self.rng.randint(lo, hi)

    def atom(self) -> str:
        """An int: a variable or a small constant."""
        a = self.pick("int")
        if a is not None and self.rng.random() < 0.75:
            return a
        if "xs" in self.env and self.rng.random() < 0.5:
            return "len(xs)"
        return str(self.k(0, 9))

    def int_expr(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return f"{self.atom()} {self.rng.choice('+-*')} {self.atom()}"
        if r < 0.5:
            return f"{self.atom()} * {self.k(2, 5)} + {self.k()}"
        if r < 0.65 and "s" in self.env:
            return f"len(s) + {self.atom()}"
        if r < 0.8 and "xs" in self.env:
            return f"(xs[0] if xs else {self.k()}) + {self.atom()}"
        return f"({self.atom()} + {self.k()}) % {self.k(2, 7)}"

    def iterable(self) -> str:
        return "xs" if "xs" in self.env and self.rng.random() < 0.7 else f"range({self.atom()} % 5 + 1)"

    # ---------------------------------------------------------- templates
    def plain(self) -> None:
        if "s" in self.env and self.rng.random() < 0.3:
            v = self.fresh("str")
            self.emit(
                f"{v} = " + self.rng.choice([f"s[::-1] + str({self.atom()})", "s[1:] + s[:1]", f"s * {self.k(1, 2)}"])
            )
            return
        v = self.fresh("int")
        self.emit(f"{v} = {self.int_expr()}")

    def comprehension(self) -> None:
        y, r = self.rng.choice(_ITEMS), self.rng.random()
        if r < 0.4:
            v = self.fresh("list")
            self.emit(f"{v} = [{y} * {self.k(2, 4)} for {y} in {self.iterable()} if {y} % 2 == {self.k(0, 1)}]")
        elif r < 0.7:
            v = self.fresh("set")
            self.emit(f"{v} = {{{y} % {self.k(2, 4)} for {y} in {self.iterable()}}}")
        else:
            v = self.fresh("dict")
            self.emit(f"{v} = {{{y}: {y} * {y} for {y} in range({self.atom()} % 4 + 1)}}")

    def closure(self) -> None:
        base = self.fresh("int", result=False)
        self.emit(f"{base} = {self.int_expr()}")
        name = self.helper("scale", "shift", "bump", "grow")
        self.emit(f"def {name}(v):", f"    return v * {self.k(2, 3)} + {base}")
        if "xs" in self.env and self.rng.random() < 0.5:
            y = self.rng.choice(_ITEMS)
            self.emit(f"{self.fresh('list')} = [{name}({y}) for {y} in xs]")
        else:
            self.emit(f"{self.fresh('int')} = {name}({self.atom()})")

    def loop(self) -> None:
        if self.rng.random() < 0.6:
            acc, i = self.fresh("int"), self.fresh("int", result=False, usable=False)  # unbound after no turn
            self.emit(
                f"{acc} = {self.atom()}",
                f"for {i} in {self.iterable()}:",
                f"    {acc} = {acc} {self.rng.choice('+-')} {i} * {self.k(1, 3)}",
            )
            return
        c, steps = self.fresh("int"), self.fresh("int")
        self.emit(
            f"{c} = {self.atom()} % {self.k(5, 9)}",
            f"{steps} = 0",
            f"while {c} > 0:",
            f"    {c} -= {self.k(1, 3)}",
            f"    {steps} += 1",
        )

    def exception(self) -> None:
        r = self.rng.random()
        v = self.fresh("int")
        if r < 0.3 and "xs" in self.env:
            self.emit(
                "try:", f"    {v} = xs[{self.atom()} % {self.k(3, 8)}]", "except IndexError:", f"    {v} = -{self.k()}"
            )
        elif r < 0.5 and "s" in self.env:
            self.emit("try:", f"    {v} = int(s)", "except ValueError:", f"    {v} = len(s)")
        elif r < 0.75:
            self.emit(
                "try:",
                f"    {v} = {self.int_expr()} // ({self.atom()} % 3)",
                "except ZeroDivisionError:",
                f"    {v} = {self.k()}",
            )
        else:
            a, limit = self.atom(), self.k(2, 6)
            self.emit(
                "try:",
                f"    if {a} > {limit}:",
                f"        raise ValueError({a})",
                f"    {v} = {a} + 1",
                "except ValueError as err:",
                f"    {v} = err.args[0] * 2",
            )

    def klass(self) -> None:
        name = self.helper("Counter", "Tally", "Box", "Acc")
        obj = self.fresh("obj", result=False)
        self.emit(
            f"class {name}:",
            "    def __init__(self, start):",
            "        self.value = start",
            "    def add(self, k):",
            "        self.value += k",
            "        return self.value",
        )
        self.emit(
            f"{obj} = {name}({self.atom()})",
            f"{obj}.add({self.k()})",
            f"{self.fresh('int')} = {obj}.add({self.atom()})",
        )

    def decorator(self) -> None:
        deco, name = self.helper("twice", "offset", "wrapped"), self.helper("lift", "nudge", "hop")
        op = self.rng.choice(["fn(fn(v))", f"fn(v) + {self.k()}", f"fn(v) * {self.k(2, 3)}"])
        self.emit(
            f"def {deco}(fn):",
            "    def wrapper(v):",
            f"        return {op}",
            "    return wrapper",
            f"@{deco}",
            f"def {name}(v):",
            f"    return v + {self.k()}",
            f"{self.fresh('int')} = {name}({self.atom()})",
        )

    def walrus(self) -> None:
        if "xs" in self.env and self.rng.random() < 0.4:
            y, z = self.rng.choice(_ITEMS), self.fresh("int", result=False, usable=False)  # when an item passes
            self.emit(f"{self.fresh('list')} = [{z} for {y} in xs if ({z} := {y} * 2) > {self.k(0, 6)}]")
            return
        w = self.fresh("int")
        limit = self.k()
        v = self.fresh("int")
        self.emit(
            f"if ({w} := {self.int_expr()}) > {limit}:", f"    {v} = {w} - {limit}", "else:", f"    {v} = {w} + {limit}"
        )

    def match(self) -> None:
        if "xs" in self.env and self.rng.random() < 0.5:
            v = self.fresh("int")
            first, rest = (self.fresh(t, result=False, usable=False) for t in ("int", "list"))  # in some cases only
            self.emit(
                "match xs:",
                "    case []:",
                f"        {v} = {self.k()}",
                f"    case [{first}]:",
                f"        {v} = {first} * {self.k(2, 3)}",
                f"    case [{first}, *{rest}]:",
                f"        {v} = {first} + len({rest})",
            )
            return
        subject, v = self.atom(), self.fresh("str")
        self.emit(
            f"match {subject} % 3:",
            "    case 0:",
            f"        {v} = 'zero'",
            "    case 1:",
            f"        {v} = 'one'",
            "    case _:",
            f"        {v} = 'many'",
        )

    def iterator(self) -> None:
        it = self.fresh("obj", result=False, usable=False)
        self.emit(f"{it} = iter({self.iterable()})")
        self.emit(f"{self.fresh('int')} = next({it}, {self.k()})")
        self.emit(f"{self.fresh('int')} = next({it}, {self.k()}) * {self.k(2, 3)}")


_TEMPLATES = {
    "comprehension": _Writer.comprehension,
    "closure": _Writer.closure,
    "loop": _Writer.loop,
    "exception": _Writer.exception,
    "class": _Writer.klass,
    "decorator": _Writer.decorator,
    "walrus": _Writer.walrus,
    "match": _Writer.match,
    "iterator": _Writer.iterator,
}


def _argument(rng: random.Random, name: str) -> str:
    if name == "n":
        return str(rng.randint(0, 9))
    if name == "xs":
        return repr([rng.randint(-3, 9) for _ in range(rng.randint(0, 6))])
    if rng.random() < 0.25:
        return repr(str(rng.randint(0, 999)))
    return repr("".join(rng.choice("abcxyz") for _ in range(rng.randint(0, 6))))


def generate(seed: int | str) -> Generated:
    """The program of ``seed`` (see the module docstring)."""
    rng = random.Random(f"invar exec generate {seed}")
    w = _Writer(rng)
    params = rng.choice(_SIGNATURES)
    w.env.update({p: _TYPES[p] for p in params})
    w.used.update(params)
    chosen = rng.sample(CONSTRUCTS, rng.randint(2, 4))
    steps = ["plain", "plain"] + chosen + ["plain"] * rng.randint(0, 2)
    rng.shuffle(steps)
    for step in steps:
        if step == "plain":
            w.plain()
        else:
            _TEMPLATES[step](w)
            w.constructs.add(step)
    returned = w.results[-6:]
    w.emit(f"return ({', '.join(returned)}{',' if len(returned) == 1 else ''})")
    code = f"def f({', '.join(params)}):\n" + "\n".join(w.lines) + "\n"
    arguments = ", ".join(_argument(rng, p) for p in params)
    return Generated(code, arguments, tuple(c for c in CONSTRUCTS if c in w.constructs))


__all__ = ["CONSTRUCTS", "Generated", "generate"]
