"""One case per defect class of docs/semantics.md, with exact counts, and
every variant of every case through the execution oracle.

Each row is a module defining ``f``, the exact number of permutations and of
renamings (default pool) of ``f``, and the inputs to call it on. Every
permutation (all of them) and every renaming (all of them, also over a pool
that overlaps the names and builtins the case uses) must behave like the
original wherever the original completes normally.
"""

from __future__ import annotations

import textwrap

import pytest

from invar.frontends.python import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from .python_harness import Job, disagreements, run_jobs

POOL = ["a", "b", "x", "it", "xs", "len", "print", "sum", "next", "q0", "q1", "q2", "q3", "q4", "__k", "_C__a"]

CASES = [
    # --- builtins that consume or mutate an argument -------------------------------------
    (
        "next then list advance one iterator",
        """
        def f(it, /):
            a = next(it)
            b = list(it)
            return a, b
     """,
        1,
        2,
        ["((iter([1, 2, 3]),), {})", "((iter([]),), {})"],
    ),
    (
        "two sums of one argument",
        """
        def f(xs, /):
            s1 = sum(xs)
            s2 = sum(xs)
            return s1, s2
     """,
        1,
        2,
        ["((iter([1, 2]),), {})", "(([1, 2],), {})"],
    ),
    (
        "zip advances its iterator when consumed",
        """
        def f(it, ys, /):
            pairs = list(zip(it, ys))
            rest = list(it)
            return pairs, rest
     """,
        1,
        4,
        ["((iter([1, 2, 3]), [9]), {})"],
    ),
    (
        "two for loops over one iterator",
        """
        def f(it, /):
            first = -1
            for v in it:
                first = v
                break
            second = -1
            for w in it:
                second = w
                break
            return first, second
     """,
        3,
        24,
        ["((iter([4, 5, 6]),), {})"],
    ),
    (
        "membership consumes an iterator",
        """
        def f(it, /):
            a = 2 in it
            b = list(it)
            return a, b
     """,
        1,
        2,
        ["((iter([1, 2, 3]),), {})"],
    ),
    (
        "unpacking consumes an iterator",
        """
        def f(it, /):
            a, *b = it
            c = list(it)
            return a, b, c
     """,
        1,
        6,
        ["((iter([1, 2, 3]),), {})"],
    ),
    (
        "a comprehension consumes, then a generator expression",
        """
        def f(it, /):
            evens = [v for v in it if v % 2 == 0]
            total = sum(v for v in it)
            return evens, total
     """,
        1,
        24,
        ["((iter([1, 2, 3, 4]),), {})"],
    ),
    (
        "a copy reads the list it copies",
        """
        def f(xs, /):
            ys = list(xs)
            xs.append(1)
            zs = sorted(xs)
            return ys, zs
     """,
        1,
        2,
        ["(([3, 1],), {})"],
    ),
    (
        "iterating a value built right there runs nothing",
        """
        def f(n, /):
            total = 0
            for i in range(n):
                total = total + i
            k = min(n, 3)
            m = max(n, 1)
            return total, k, m
     """,
        12,
        24,
        ["((4,), {})"],
    ),
    (
        "a generator argument prints when iterated",
        """
        def f(g, /):
            first = next(g)
            print("after")
            return first
     """,
        1,
        1,
        ["((gen(),), {})"],
    ),
    # --- dynamic scope --------------------------------------------------------------------
    (
        "eval reads every local",
        """
        def f():
            x = 1
            y = 2
            z = eval("x + y")
            x = 5
            return z, x
     """,
        2,
        1,
        ["((), {})"],
    ),
    (
        "locals() keys are names",
        """
        def f(n, /):
            a = n + 1
            b = n * 2
            return sorted(locals().items())
     """,
        2,
        1,
        ["((3,), {})"],
    ),
    (
        "%-formatting with locals()",
        """
        def f(n, /):
            a = n + 1
            text = "%(a)s" % locals()
            a = 0
            return text, a
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "frame access reads the locals",
        """
        import sys
        def f(n, /):
            a = n
            seen = dict(sys._getframe().f_locals)
            a = 7
            return sorted(seen), a
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "vars() and dir()",
        """
        def f(n, /):
            names = dir()
            b = n
            return names, b
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    # --- statements that may raise where the unit catches it -----------------------------
    (
        "an unbound local read inside try",
        """
        def f(flag, /):
            result = 0
            if flag:
                value = 1
            try:
                t = value
                result = 5
            except UnboundLocalError:
                pass
            return result
     """,
        2,
        6,
        ["((True,), {})", "((False,), {})"],
    ),
    (
        "a bound local read inside try may move",
        """
        def f(flag, /):
            value = 0
            result = 0
            try:
                t = value
                result = 5
            except UnboundLocalError:
                pass
            return result
     """,
        4,
        6,
        ["((True,), {})"],
    ),
    (
        "a division inside try",
        """
        def f(n, /):
            done = []
            try:
                q = 10 // n
                done.append(1)
            except ZeroDivisionError:
                q = -1
            return q, done
     """,
        1,
        2,
        ["((0,), {})", "((5,), {})"],
    ),
    (
        "building a set hashes its elements",
        """
        def f(item, /):
            seen = 0
            try:
                bag = {item}
                seen = 1
            except TypeError:
                bag = set()
            return seen, bag
     """,
        1,
        2,
        ["(([1],), {})", "((3,), {})"],
    ),
    # --- class bodies ---------------------------------------------------------------------
    (
        "dataclass fields keep their order",
        """
        import dataclasses
        def f(n, /):
            @dataclasses.dataclass
            class P:
                u: int = 0
                w: int = 1
                z: int = 2
            return repr(P(n))
     """,
        1,
        1,
        ["((5,), {})"],
    ),
    (
        "Enum members keep their order",
        """
        import enum
        def f():
            class Color(enum.Enum):
                RED = 1
                GREEN = 2
            return [c.name for c in Color]
     """,
        1,
        1,
        ["((), {})"],
    ),
    (
        "a later def shadows an earlier one",
        """
        def f():
            class K:
                def m(self):
                    return 1
                def m(self):
                    return 2
                __slots__ = ()
            return K().m(), list(vars(K))
     """,
        1,
        1,
        ["((), {})"],
    ),
    # --- names observable as strings -------------------------------------------------------
    (
        "f-string with = prints the name",
        """
        def f(n, /):
            value = n + 1
            other = n - 1
            print(f"{value=}")
            return other
     """,
        2,
        1,
        ["((3,), {})"],
    ),
    (
        "a nested def's __name__",
        """
        def f(n, /):
            def helper(v):
                return v + n
            return helper.__name__, helper(1)
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "keyword parameters are the interface, positional-only ones are not",
        """
        def f(a, /, b, *rest, c=1, **kw):
            t = a + b + c
            return t, rest, kw
     """,
        1,
        6,
        ["((1, 2), {})", "((1,), {'b': 2, 'c': 3, 'd': 4})", "((1, 2, 3), {})"],
    ),
    (
        "lambda parameters may be passed by keyword",
        """
        def f(n, /):
            add = lambda v, w=1: v + w
            return add(v=n), add(n, w=2)
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "keyword argument at a call site of a nested function",
        """
        def f(n, /):
            def scale(value, factor=2):
                return value * factor
            return scale(value=n), scale(n, factor=3)
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "nonlocal in a nested function renames with its binding",
        """
        def f(n, /):
            count = 0
            def bump():
                nonlocal count
                count += n
            bump()
            bump()
            return count
     """,
        2,
        1,
        ["((3,), {})"],
    ),
    (
        "a global declared in the unit",
        """
        G = 0
        def f(n, /):
            global G
            G = G + n
            t = n * 2
            return G, t
     """,
        2,
        1,
        ["((3,), {})"],
    ),
    # --- code a def or class statement runs --------------------------------------------------
    (
        "two decorated definitions register in order",
        """
        def f():
            log = []
            def reg(fn):
                log.append(fn.__name__)
                return fn
            @reg
            def a():
                return 1
            @reg
            def b():
                return 2
            return log, a(), b()
     """,
        2,
        1,
        ["((), {})"],
    ),
    (
        "a decorated definition stays below the list its decorator appends to",
        """
        def f(n, /):
            log = []
            def reg(fn):
                log.append(fn.__name__)
                return fn
            k = n
            @reg
            def a():
                return 1
            return log, k
     """,
        8,
        2,
        ["((3,), {})"],
    ),
    (
        "a decorator factory reads a local that changes",
        """
        def f(n, /):
            @tag(n)
            def a():
                return 1
            n = n * 2
            @tag(n)
            class K:
                pass
            return n, a(), K.tag
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "a decorator passed in, on a class, and a print",
        """
        def f(reg, /):
            print("start")
            @reg
            class K:
                x = 1
            size = 2
            return size, K.x
     """,
        3,
        1,
        ["((register,), {})"],
    ),
    (
        "two subclasses of a base with __init_subclass__",
        """
        def f():
            class A(Hooked):
                pass
            class B(Hooked):
                pass
            return Hooked.created[-2:]
     """,
        1,
        1,
        ["((), {})"],
    ),
    (
        "a base passed in, with a keyword for its __init_subclass__",
        """
        def f(base, n, /):
            class A(base, tag=n):
                pass
            print("after")
            return A.tag
     """,
        1,
        2,
        ["((Hooked, 3), {})"],
    ),
    (
        "metaclass __prepare__, __new__ and __init__",
        """
        def f(meta, /):
            print("first")
            class A(metaclass=meta):
                x = 1
            class B(A):
                y = 2
            return A.x, B.y
     """,
        1,
        1,
        ["((Meta,), {})"],
    ),
    (
        "a descriptor's __set_name__",
        """
        def f():
            fld = Field()
            class K:
                value = fld
            snapshot = fld.names[:]
            return K.value.names, snapshot
     """,
        1,
        2,
        ["((), {})"],
    ),
    (
        "a default that advances an iterator",
        """
        def f(it, /):
            def g(v=next(it)):
                return v
            rest = list(it)
            return g(), rest
     """,
        1,
        1,
        ["((iter([1, 2, 3]),), {})"],
    ),
    (
        "annotations that print",
        """
        def f(n, /):
            print("before")
            def g(v: note("param") = 0) -> note("return"):
                return v
            k = n
            return g(k)
     """,
        3,
        1,
        ["((3,), {})"],
    ),
    (
        "a base that is computed by a call",
        """
        def f(n, /):
            print("before")
            class K(pick_base(n)):
                pass
            return K.__mro__[1].__name__
     """,
        1,
        1,
        ["((3,), {})"],
    ),
    (
        "plain definitions move freely",
        """
        def f(n, /):
            print("before")
            def g(v, w=1):
                return v + w
            class K:
                size = 2
                def m(self):
                    return 3
            k = n + 1
            return g(k), K.size, K().m()
     """,
        12,
        1,
        ["((3,), {})"],
    ),
    # --- rendering ----------------------------------------------------------------------------
    (
        "elif and else with one-line bodies",
        """
        def f(x, /):
            if x:
                y = 1
                q = 2
            elif x > 2: y = 2
            else: y = 3
            z = 5
            return y + z + q
     """,
        2,
        6,
        ["((1,), {})", "((0,), {})"],
    ),
    # --- builtins that run code they are handed -------------------------------------------
    (
        "sorted calls its key (which appends to a closure's list)",
        """
        def f(xs, /):
            log = []
            def key(v):
                log.append(v)
                return -v
            r = sorted([1, 2, 3], key=key)
            n = len(log)
            return r, n
     """,
        2,
        6,
        ["(([],), {})"],
    ),
    (
        "max and sorted call a key that prints",
        """
        def f(a, b, /):
            def key(v):
                print("key", v)
                return v
            r = max(a, b, key=key)
            s = sorted([b, a, 0], key=key)
            return r, s
     """,
        1,
        4,
        ["((1, 2), {})"],
    ),
    (
        "type with three arguments creates a class (its hooks run)",
        """
        def f(n, /):
            A = type("A", (Hooked,), {})
            B = type("B", (Hooked,), {})
            return n, A.tag, B.tag
     """,
        1,
        2,
        ["((0,), {})"],
    ),
    (
        "unpacking the elements of a fresh display advances them",
        """
        def f(g1, g2, g3, /):
            for a, b, c in [g1]:
                pass
            (x, y, z), w = [g2, 5]
            q = [i + j + k for i, j, k in (g3,)]
            return a, x, w, q
     """,
        1,
        239500800,
        ["((gen(), gen(), gen()), {})"],
    ),
    # --- private names, which a class mangles ---------------------------------------------
    (
        "a private local is another name inside a class (never a target)",
        """
        def f(n, /):
            __k = n + 1
            m = n * 2
            class C:
                def get(self):
                    return m
            return C().get() + __k
     """,
        6,
        1,
        ["((3,), {})"],
    ),
    (
        "two spellings of one private variable in a method",
        """
        def f(v, /):
            class C:
                def m(self, w, /):
                    __a = w
                    _C__a = w * 10
                    return __a
            return C().m(v)
     """,
        1,
        6,
        ["((3,), {})"],
    ),
    # --- a caller's frame ----------------------------------------------------------------
    (
        "a helper that reads its caller's frame reads the caller's locals",
        """
        import sys


        def peek(name):
            return sys._getframe(1).f_locals[name]


        def f(n, /):
            x = n + 1
            y = n * 2
            r = peek("x")
            x = 0
            return r, x, y
     """,
        2,
        1,
        ["((3,), {})"],
    ),
]

PRELUDE = '''
def gen():
    for i in range(3):
        print("gen", i)
        yield i


def register(cls):
    print("register", cls.__name__)
    return cls


def tag(label):
    print("tag", label)

    def apply(obj):
        obj.tag = label
        return obj
    return apply


def note(label):
    print("annotation", label)
    return int


def pick_base(k):
    print("base", k)
    return dict if k % 2 else list


class Hooked:
    created = []

    def __init_subclass__(cls, tag=None, **kwargs):
        super().__init_subclass__(**kwargs)
        print("subclass", cls.__name__, tag)
        Hooked.created.append(cls.__name__)
        cls.tag = tag


class Meta(type):
    @classmethod
    def __prepare__(mcs, name, bases, **kwargs):
        print("prepare", name)
        return {}

    def __new__(mcs, name, bases, namespace, **kwargs):
        print("new", name)
        return super().__new__(mcs, name, bases, namespace)

    def __init__(cls, name, bases, namespace, **kwargs):
        print("init", name)
        super().__init__(name, bases, namespace)


class Field:
    def __init__(self):
        self.names = []
        self.seen = None

    def __set_name__(self, owner, name):
        print("set_name", owner.__name__, name, self.seen)
        self.names.append(name)
'''


def _module(body: str) -> str:
    return PRELUDE + textwrap.dedent(body)


def _variants(program):
    perms = PermutationSpace(program)
    out = [perms.apply(None, t) for t in perms.enumerate(limit=200)]
    for pool in (None, POOL):
        space = renaming_space(program, pool=pool)
        out += [space.apply(None, r) for r in space.enumerate(limit=200)]
    return perms.count(), renaming_space(program).count(), out


@pytest.mark.parametrize("title, body, orders, renamings, inputs", CASES, ids=[c[0] for c in CASES])
def test_case(title, body, orders, renamings, inputs):
    source = _module(body)
    (program,) = [u for u in parse_units(source, "case.py") if u.name == "f"]
    assert program.render() in source
    n_orders, n_renamings, variants = _variants(program)
    assert (n_orders, n_renamings) == (orders, renamings)
    jobs = [Job(source, "f", inputs, ("G",))]
    jobs += [Job(source.replace(program.render(), v.render()), "f", inputs, ("G",)) for v in variants]
    outcomes = run_jobs(jobs)
    original = outcomes[0]
    assert any(o[0] == "ok" for o in original), original
    for v, got in zip(variants, outcomes[1:]):
        assert not disagreements(original, got), f"variant behaves differently:\n{v.render()}\n{got}\n{original}"


#: modules without functions (so one ``<module>`` unit each) whose classes
#: run code as they are defined, with their exact permutation counts
MODULE_CASES = [
    (
        "decorators at module level",
        """
        log = []
        reg = lambda cls: log.append(cls.__name__) or cls
        @reg
        class A:
            pass
        @reg
        class B:
            pass
     """,
        2,
    ),
    (
        "subclasses of a base with __init_subclass__",
        """
        log = []
        Base = type("Base", (), {"__init_subclass__": classmethod(lambda cls: log.append(cls.__name__))})
        class A(Base):
            pass
        class B(Base):
            x = 1
     """,
        1,
    ),
    (
        "a metaclass",
        """
        log = []
        Meta = type("Meta", (type,), {"__new__": lambda m, n, b, ns: log.append(n) or type.__new__(m, n, b, ns)})
        class A(metaclass=Meta):
            pass
        class B(metaclass=Meta):
            pass
     """,
        2,
    ),
    (
        "descriptors named in two classes",
        """
        log = []
        Field = type("Field", (), {"__set_name__": lambda self, owner, name: log.append(name)})
        fld = Field()
        class A:
            x = fld
        class B:
            y = fld
     """,
        2,
    ),
    (
        "plain classes swap",
        """
        log = []
        class A:
            x = 1
        class B:
            y = (1, 2)
     """,
        6,
    ),
]

#: runs a module's text and shows every global it leaves (by name: the order
#: in which a module binds its globals is not part of its state)
_MODULE_RUNNER = """
def f():
    namespace = {"__name__": "m"}
    exec(SOURCE, namespace)
    return {k: namespace[k] for k in sorted(namespace) if not k.startswith("__")}
"""


@pytest.mark.parametrize("title, body, orders", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_module_case(title, body, orders):
    source = textwrap.dedent(body)
    (program,) = parse_units(source, "case.py")
    assert program.name == "<module>"
    space = PermutationSpace(program)
    assert space.count() == orders
    texts = [source] + [space.apply(None, t).render() + "\n" for t in space.enumerate(limit=200)]
    jobs = [Job(f"SOURCE = {text!r}\n" + _MODULE_RUNNER, "f", ["((), {})"]) for text in texts]
    outcomes = run_jobs(jobs)
    assert outcomes[0][0][0] == "ok", outcomes[0]
    for text, got in zip(texts[1:], outcomes[1:]):
        assert not disagreements(outcomes[0], got), f"variant behaves differently:\n{text}\n{got}\n{outcomes[0]}"


def test_order_zero_renders_the_source():
    """The first order is the original, and it renders the function's own
    text exactly (one-line clause bodies included)."""
    for _title, body, *_ in CASES:
        source = _module(body)
        (program,) = [u for u in parse_units(source, "case.py") if u.name == "f"]
        space = PermutationSpace(program)
        first = next(space.enumerate())
        assert first.is_identity
        text = source[source.index("def f") :].rstrip("\n")
        assert space.apply(None, first).render() == program.render() == text
