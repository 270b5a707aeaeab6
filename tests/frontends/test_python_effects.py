"""What a ``def`` or ``class`` statement runs where it stands (docs/semantics.md).

Each shape is a definition placed after ``n = xs[0]`` (a statement that
reads the heap and writes a local) in four places: a function's body, a
nested function's body, a method's body and a module without functions. A
definition that runs code of anyone's (a decorator applied, a call in a
default, an evaluated annotation, a base or a keyword, a class created with
hooks) writes the heap like any call, so it keeps its order with the read; a
definition that provably runs nothing of the user's may swap with it.
"""

from __future__ import annotations

import ast
import builtins
import textwrap

import pytest

from invar.frontends.python import effects as python_effects
from invar.frontends.python import parse_units
from invar.symmetry.permutations import PermutationSpace

PARAMS = "deco, make, it, xs, Base, Meta, field, pair, staticmethod_, v"

PLACES = {
    "function": ("f", "def f({params}, /):\n    n = xs[0]\n{body}\n    return n\n", 1),
    "nested": (
        "outer.<locals>.f",
        "def outer({params}, /):\n    def f():\n        n = xs[0]\n{body}\n        return n\n    return f\n",
        2,
    ),
    "method": ("C.f", "class C:\n    def f(self, {params}, /):\n        n = xs[0]\n{body}\n        return n\n", 2),
    "module": ("<module>", "n = xs[0]\n{body}\n", 0),
}

# (construct, definition, whether it runs code where it stands)
DEFS = [
    # functions
    ("plain def", "def g(w):\n    return w", False),
    ("constant defaults", "def g(w=1, *, u=(1, 'a'), **kw):\n    return w", False),
    ("a default that names a local", "def g(w=v):\n    return w", False),
    ("async def with constant default", "async def g(w=None):\n    return w", False),
    ("builtin annotations", "def g(w: int = 0, *r: str) -> list:\n    return [w]", False),
    ("staticmethod decorator", "@staticmethod\ndef g():\n    return 1", False),
    ("property decorator", "@property\ndef g(self):\n    return 1", False),
    ("a decorator", "@deco\ndef g():\n    return 1", True),
    ("a decorator factory", "@deco(1)\ndef g():\n    return 1", True),
    ("an attribute decorator", "@xs.append\ndef g():\n    return 1", True),
    ("a wrapping builtin over a decorator", "@staticmethod\n@deco\ndef g():\n    return 1", True),
    ("a shadowed builtin decorator", "@staticmethod_\ndef g():\n    return 1", True),
    ("a decorated async def", "@deco\nasync def g():\n    return 1", True),
    ("a default that calls", "def g(w=make()):\n    return w", True),
    ("a keyword-only default that iterates", "def g(*, w=next(it)):\n    return w", True),
    ("a lambda default that calls", "g = lambda w=make(): w", True),
    ("a parameter annotation that calls", "def g(w: make()):\n    return w", True),
    ("a return annotation that calls", "def g() -> make():\n    return 1", True),
    ("a *args annotation that calls", "def g(*w: make()):\n    return w", True),
]

CLASSES = [
    ("plain class", "class K:\n    pass", False),
    ("builtin base and constants", "class K(object):\n    '''doc'''\n    x = 1\n    y: int = 2\n    z: int", False),
    ("exception base", "class K(ValueError):\n    pass", False),
    ("several builtin bases", "class K(dict, Exception):\n    pass", False),
    (
        "displays and lambdas",
        "class K:\n    items = [1, v]\n    label = f'k{v}'\n    both = (1,) + (2,)\n"
        "    twice = lambda self: 2\n    flag = not v",
        False,
    ),
    (
        "plain methods and wrapped ones",
        "class K:\n    def m(self, w=1):\n        return w\n    @classmethod\n    def c(cls):\n        return cls",
        False,
    ),
    ("a plain nested class", "class K:\n    class Inner(int):\n        x = 1", False),
    ("a decorator", "@deco\nclass K:\n    pass", True),
    ("a wrapping builtin over a class", "@staticmethod\n@deco\nclass K:\n    pass", True),
    ("a user base", "class K(Base):\n    pass", True),
    ("a builtin and a user base", "class K(object, Base):\n    pass", True),
    ("a base that calls", "class K(make()):\n    pass", True),
    ("an attribute base", "class K(xs.__class__):\n    pass", True),
    ("starred bases", "class K(*pair):\n    pass", True),
    ("a metaclass", "class K(metaclass=Meta):\n    pass", True),
    ("a keyword for __init_subclass__", "class K(flag=True):\n    pass", True),
    ("a shadowed builtin base", "class K(staticmethod_):\n    pass", True),
    ("a value that may be a descriptor", "class K:\n    f = field", True),
    ("an annotated value that may be a descriptor", "class K:\n    f: int = field", True),
    ("a constructed value", "class K:\n    f = make()", True),
    ("a subscripted value", "class K:\n    f = pair[0]", True),
    ("a comparison's value", "class K:\n    f = (v,) < (1,)", True),
    ("an unpacked value", "class K:\n    a, b = 1, field", True),
    ("a walrus in a display", "class K:\n    a = [(b := field)]", True),
    ("a walrus in a method default", "class K:\n    def m(self, w=(b := field)):\n        return w", True),
    ("a decorated method", "class K:\n    @deco\n    def m(self):\n        return 1", True),
    ("a nested class with hooks", "class K:\n    class Inner(Base):\n        pass", True),
    ("a loop in the body", "class K:\n    for i in (1, 2):\n        pass", True),
    ("a conditional binding", "class K:\n    if v:\n        f = 1", True),
]

CASES = [(c, d, r, where) for c, d, r in DEFS for where in ("function", "nested", "method")]
# a module with a function is no unit of its own: only method-less classes there
CASES += [(c, d, r, where) for c, d, r in CLASSES for where in PLACES if where != "module" or "def " not in d]


def program(definition: str, where: str):
    name, template, depth = PLACES[where]
    body = textwrap.indent(definition, "    " * depth)
    source = template.format(params=PARAMS, body=body)
    (unit,) = [u for u in parse_units(source, "t.py") if u.name == name]
    return unit


@pytest.mark.parametrize("construct, definition, runs, where", CASES, ids=[f"{w}: {c}" for c, _d, _r, w in CASES])
def test_a_definition_orders_as_a_call_exactly_when_it_runs_code(construct, definition, runs, where):
    unit = program(definition, where)
    orders = PermutationSpace(unit).count()
    assert orders == (1 if runs else 2), construct


@pytest.mark.parametrize("definition", [d for _c, d, runs in DEFS + CLASSES if runs])
def test_code_a_definition_runs_keeps_its_order_with_output(definition):
    """Next to a ``print`` too (not only next to a heap read)."""
    body = textwrap.indent("print('before')\n" + definition, "    ")
    unit = parse_units(f"def f({PARAMS}, /):\n{body}\n    return 0\n", "t.py")[0]
    assert PermutationSpace(unit).count() == 1


@pytest.mark.parametrize(
    "definition",
    [
        "def g(w=1):\n    return w",
        "class K:\n    x = 1\n    def m(self):\n        return 2",
        "class K:\n    \"\"\"doc\"\"\"\n    x = [1, 2]\n    twice = lambda self: 2",
    ],
)
def test_a_plain_definition_swaps_with_output(definition):
    """(One that names a builtin, ``@staticmethod`` or ``class K(object)``,
    reads the heap, where ``builtins`` may be written, so it stays after a
    call: it swaps only with reads, as in the table above.)"""
    body = textwrap.indent("print('before')\n" + definition, "    ")
    unit = parse_units(f"def f({PARAMS}, /):\n{body}\n    return 0\n", "t.py")[0]
    assert PermutationSpace(unit).count() == 2


@pytest.mark.parametrize("deferred, orders", [(False, 1), (True, 2)])
def test_function_annotations_run_unless_deferred(deferred, orders):
    head = "from __future__ import annotations\n" if deferred else ""
    source = head + "def f(make, /):\n    print('a')\n    def g(w: make()) -> make():\n        return w\n    return g\n"
    (unit,) = [u for u in parse_units(source, "t.py") if u.name == "f"]
    assert PermutationSpace(unit).count() == orders


def test_hook_free_bases_are_builtin_classes_without_hooks():
    """The table the class rule trusts, checked against the interpreter:
    each is a builtin class created by ``type`` whose ``__init_subclass__`` is
    ``object``'s, so creating a subclass of it calls nothing of anyone's."""
    for name in python_effects.HOOK_FREE_BASES:
        cls = getattr(builtins, name)
        assert isinstance(cls, type) and type(cls) is type, name
        assert all("__init_subclass__" not in vars(k) for k in cls.__mro__ if k is not object), name
        type("Sub", (cls,), {})  # subclassable


def test_wrapping_builtins_leave_no_hook_of_the_user():
    for name in python_effects.WRAPPING_BUILTINS:
        wrapped = getattr(builtins, name)(lambda self: 1)
        hook = getattr(type(wrapped), "__set_name__", None)
        assert hook is None or type(hook).__name__ in ("method_descriptor", "wrapper_descriptor"), name


@pytest.mark.parametrize(
    "text, built",
    [
        ("1", True),
        ("'a' 'b'", True),
        ("f'{x}'", True),
        ("[x, y]", True),
        ("{x: y}", True),
        ("(x,)", True),
        ("{x}", True),
        ("[v for v in x]", True),
        ("(v for v in x)", True),
        ("lambda: x", True),
        ("(1,) + (x,)", True),
        ("-1", True),
        ("not x", True),
        ("1 or 2", True),
        ("x", False),
        ("x()", False),
        ("x[0]", False),
        ("x.y", False),
        ("x + 1", False),
        ("-x", False),
        ("(x,) < (1,)", False),
        ("1 or x", False),
        ("x if y else 1", False),
        ("(x := 1)", False),
    ],
)
def test_built_values(text, built):
    assert python_effects.built_value(ast.parse(text, mode="eval").body) is built


def test_a_long_arithmetic_value_does_not_recurse():
    node: ast.expr = ast.Constant(1)
    for _ in range(100_000):
        node = ast.BinOp(node, ast.Add(), ast.Constant(1))
    assert python_effects.built_value(node)
