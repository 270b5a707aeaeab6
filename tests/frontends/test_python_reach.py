"""Scope reads and global accesses that do not spell what they reach
(issue 35, items 1 and 2; docs/semantics.md, "Dynamic scope and class
bodies").

Item 1: ``locals``, ``vars``, ``dir``, ``eval``, ``exec`` and ``globals``
called under another name read the scope the call stands in, as the plain
names do: every local of that scope keeps its name, and no assignment moves
across the call. Item 2: where the module's namespace is reachable as an
object, a store to a global keeps its order with every read through a
reference. Each case is a unit whose one wrong order the analysis used to
allow; the execution oracles (tests/oracles/test_python_generated.py) run
the same constructs.
"""

from __future__ import annotations

import textwrap

import pytest

from invar.frontends.python import parse_units, renaming_space
from invar.frontends.python.scopes import SourceMap, resolve
from invar.symmetry.permutations import PermutationSpace

POOL = ["p", "q", "r", "s", "t", "u", "w"]


def unit(src: str, name: str = "f", path: str = "m.py"):
    return next(u for u in parse_units(textwrap.dedent(src), path) if u.name == name)


def reach(src: str, path: str = "m.py"):
    import ast

    from invar.frontends.python.reach import find_reach

    text = textwrap.dedent(src)
    tree = ast.parse(text)
    return find_reach(tree, resolve(tree, text, SourceMap(text), path), path[:-3])


# -------------------------------------------------- item 1: scope reads
#: (source of ``f``'s module, the scope read) where ``f`` is
#:     def f(a, /):
#:         b = 2
#:         d = <the read>
#:         return d
#: ``b = 2`` must stay before the read and every local keep its name
SCOPE_READS = [
    ("", "lc = locals\nd = sorted(lc())"),
    ("", "vv = vars\nd = sorted(vv())"),
    ("", "ev = eval\nd = ev('b + 1')"),
    ("", "ex = exec\nd = ex('print(b)')"),
    ("", "dd = dir\nd = dd()"),
    ("import builtins", "d = sorted(builtins.locals())"),
    ("import builtins as bi", "d = bi.eval('b')"),
    ("from builtins import vars as v2", "d = sorted(v2())"),
    ("", "d = sorted(__builtins__['locals']() if isinstance(__builtins__, dict) else __builtins__.locals())"),
    ("import builtins", "d = sorted(getattr(builtins, 'locals')())"),
    ("import builtins", "name = 'vars'\nd = sorted(getattr(builtins, name)())"),
    ("import builtins", "d = sorted(builtins.__dict__['locals']())"),
    ("def g():\n    pass", "d = sorted(g.__builtins__['locals']())"),
    ("def g():\n    pass", "d = sorted(getattr(g, '__builtins__')['vars']())"),
    ("import builtins", "d = sorted(vars(builtins)['vars']())"),
    ("import sys", "d = sorted(sys.modules['builtins'].locals())"),
    ("", "d = sorted(__import__('builtins').locals())"),
    ("", "d = sorted([locals, vars][0]())"),
    ("", "d = sorted({'l': locals}['l']())"),
    ("", "d = sorted((locals if a else vars)())"),
    ("", "fs = (locals,)\nd = sorted(fs[0]())"),
    ("", "fs = []\nfs += [locals]\nd = sorted(fs[0]())"),
    ("", "d = sorted((lc := locals)())"),
    ("", "g, h = vars, locals\nd = sorted(h())"),
    ("", "d = sorted([f() for f in [locals]][0])"),
    ("LC = locals", "d = sorted(LC())"),
    ("EV = eval", "d = EV('b')"),
    # escapes into the heap: from there any call may be one
    ("def get():\n    return locals", "d = sorted(get()())"),
    ("box = {}", "box['f'] = locals\nd = sorted(box['f']())"),
    ("", "d = list(map(eval, ['b']))"),
    ("", "d = sorted(['b'], key=eval)"),
    ("import functools", "d = functools.partial(eval, 'b')()"),
    ("def call(g):\n    return g()", "d = call(locals)"),
    ("", "exec('import builtins; G = builtins.locals', globals())\nd = sorted(G())"),
]


def scope_unit(module: str, read: str):
    body = "\n".join(f"    {s}" for s in read.split("\n"))
    src = f"{module}\n\ndef f(a, /):\n    b = 2\n{body}\n    return d\n"
    return unit(src)


@pytest.mark.parametrize("module, read", SCOPE_READS, ids=[r.replace("\n", "; ") for _, r in SCOPE_READS])
def test_a_scope_read_by_any_name_keeps_every_local_and_every_assignment_before_it(module, read):
    program = scope_unit(module, read)
    assert renaming_space(program, pool=POOL).count() == 1  # every local pinned (the empty renaming)
    lines = [ln.text.strip() for ln in program.lines]
    b = lines.index("b = 2")
    call = next(k for k, text in enumerate(lines) if text.startswith("d = "))
    space = PermutationSpace(program)
    for t in space.enumerate():
        assert t.inverse[b] < t.inverse[call], (read, t.order)  # ``b = 2`` never moves after the read


@pytest.mark.parametrize(
    "module, body, pinned",
    [
        # looking at the builtin or naming another one reads no scope
        ("", "print(locals)\n    b = a + 1\n    return b", False),
        ("", "x = locals\n    b = a + 1\n    return b", False),  # never called
        ("import builtins", "b = builtins.len([a])\n    return b", False),
        ("import builtins", "b = getattr(builtins, 'abs')(a)\n    return b", False),
        ("import sys", "b = sys.modules[__name__]\n    return b", False),  # the module itself, not builtins
        ("", "b = locals()\n    return b", True),
    ],
)
def test_only_what_may_be_a_scope_reader_pins(module, body, pinned):
    program = unit(f"{module}\n\ndef f(a, /):\n    {body}\n")
    assert (renaming_space(program, pool=POOL).count() == 1) is pinned


def test_an_escaped_scope_reader_makes_every_unknown_call_read_its_scope():
    src = """
        def get():
            return locals

        def g(a, /):
            b = 2
            c = helper()
            return c

        def h(a, /):
            b = len([a])
            return b
        """
    got = reach(src)
    assert got.escaped and got.exposed
    g, h = unit(src, "g"), unit(src, "h")
    assert renaming_space(g, pool=POOL).count() == 1  # helper() may be ``locals``
    assert PermutationSpace(g).count() == 1
    assert renaming_space(h, pool=POOL).count() > 1  # len calls nothing of anyone's


def test_a_module_that_names_the_builtins_only_to_call_them_is_not_walked():
    direct = "def f(a):\n    return sorted(locals()), eval('a'), vars(a)\n"
    assert not resolve_watched(direct)
    got = reach(direct)
    assert len(got.calls) == 3 and not got.escaped and not got.exposed
    assert resolve_watched("def f(a):\n    g = locals\n    return g()\n")
    assert resolve_watched("import builtins\ndef f(a):\n    return a\n")


def test_the_resolver_watches_every_attribute_the_pass_follows():
    from invar.frontends.python.reach import CELL_ATTRIBUTES, EXPOSING_ATTRIBUTES, FRAMES
    from invar.frontends.python.scopes import DYNAMIC_BUILTINS, WATCHED_ATTRIBUTES

    assert (
        EXPOSING_ATTRIBUTES | CELL_ATTRIBUTES | FRAMES | DYNAMIC_BUILTINS | {"modules", "__builtins__"}
        <= WATCHED_ATTRIBUTES
    )


def resolve_watched(src: str) -> bool:
    import ast

    return resolve(ast.parse(src), src, SourceMap(src), "m.py").watched


# ------------------------------------ item 2: the module's namespace as an object
#: (module source before ``f``, a statement of ``f`` that reads ``G`` through an object)
MODULE_READS = [
    ("import sys", "x = sys.modules[__name__].G"),
    ("import sys\nthis = sys.modules[__name__]", "x = this.G"),
    ("import sys", "x = sys.modules.get(__name__).G"),
    ("from sys import modules", "x = modules[__name__].G"),
    ("", "x = f.__globals__['G']"),
    ("import sys", "x = vars(sys.modules[__name__])['G']"),
    ("import sys", "x = sys.modules[__name__].__dict__['G']"),
    ("NS = globals()", "x = NS['G']"),
    ("def keep(ns):\n    return ns", "x = keep(globals())['G']"),
    ("import importlib", "x = importlib.import_module(__name__).G"),
    ("", "x = __import__(__name__).G"),
    ("import m", "x = m.G"),  # the module imports itself (its file is m.py)
    ("import sys", "x = sys._getframe().f_globals['G']"),
    ("import inspect", "x = inspect.currentframe().f_globals['G']"),
    ("", "x = getattr(f, '__globals__')['G']"),
    ("", "name = '__globals__'\nx = getattr(f, name)['G']"),
    ("import inspect", "x = inspect.getmodule(f).G"),
]


@pytest.mark.parametrize("module, read", MODULE_READS, ids=[r.replace("\n", "; ") for _, r in MODULE_READS])
@pytest.mark.parametrize("store_first", [True, False], ids=["store-read", "read-store"])
def test_a_global_store_keeps_its_order_with_reads_through_the_module_object(module, read, store_first):
    lines = ["global G", *read.split("\n")]
    store = "G = a"
    lines = lines[:1] + ([store] + lines[1:] if store_first else lines[1:] + [store])
    src = f"{module}\nG = 0\n\ndef f(a, /):\n" + "".join(f"    {s}\n" for s in lines) + "    return x\n"
    program = unit(src)
    texts = [ln.text.strip() for ln in program.lines]
    i, j = texts.index(store), next(k for k, t in enumerate(texts) if t.startswith("x = "))
    for t in PermutationSpace(program).enumerate():
        assert (t.inverse[i] < t.inverse[j]) is store_first, (read, t.order)


def test_a_closure_variable_keeps_its_order_with_reads_through_its_cell():
    src = """
        def outer():
            c = 0
            def g():
                return c
            def f():
                nonlocal c
                x = g.__closure__[0].cell_contents
                c = 5
                return x
            return f
        """
    program = unit(src, "outer.<locals>.f")
    assert PermutationSpace(program).count() == 1


@pytest.mark.parametrize(
    "src, orders",
    [
        # nothing reaches the namespace as an object: the store and a heap
        # read are free to swap, as before
        ("G = 0\ndef f(a, /, *, o):\n    global G\n    G = a\n    x = o.G\n    return x\n", 2),
        ("import sys\nG = 0\ndef f(a, /, *, o):\n    global G\n    G = a\n    x = o.G\n    return x\n", 2),
        (
            "import sys\nG = 0\ndef f(a, /, *, o):\n    global G\n    G = a\n    x = sys.modules[__name__].G\n"
            "    return x\n",
            1,
        ),
    ],
)
def test_only_an_exposed_namespace_orders_global_stores_with_reads(src, orders):
    assert PermutationSpace(unit(src)).count() == orders


@pytest.mark.parametrize("n", [200, 800])
def test_an_escaped_scope_reader_names_the_globals_once_a_line(n):
    """Once a scope reader escaped, every call reads every global the module
    names: each such line holds ``global:*`` for them, not the module's n
    globals again (n functions each calling another: n² entries spelled
    out). tests/frontends/test_effects.py checks that ``global:*`` orders as
    the globals spelled out would."""
    src = "def get():\n    return locals\n"
    src += "".join(f"def f{i}(a):\n    b = f{i - 1}(a)\n    return b\n" for i in range(1, n + 1))
    units = parse_units(src)
    assert reach(src).escaped
    assert sum(len(line.reads) for u in units for line in u.lines) < 8 * n  # spelled out: over n²/2
    call = unit(src, "f7").lines[1]
    assert "global:*" in call.reads
    assert {r for r in call.reads if r.startswith("global:f")} == {"global:f6"}  # the one it names
