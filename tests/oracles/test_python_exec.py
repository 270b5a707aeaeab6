"""Execution oracle for the Python frontend.

Every sampled permutation and renaming of every fixture function must still
compile and return what the original returns on random arguments. Executing
the fixtures is fine here: they are the project's own code, written to be pure
(see fixtures/python/README.md); the library itself never executes input.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import random
import typing
from pathlib import Path

import pytest

from invar.frontends.python import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from ..conftest import FIXTURES

PY_FIXTURES = sorted((FIXTURES / "python").glob("*.py"))
#: variants of each kind per function, and argument tuples per variant
PERMUTATIONS, RENAMINGS, BOTH, INPUTS = 4, 4, 2, 12


# ------------------------------------------------------- argument generators
def generator(annotation) -> typing.Callable[[random.Random], object]:
    """A random value of the annotated type (the few types fixtures use)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is int:
        return lambda r: r.randint(-30, 30)
    if annotation is float:
        return lambda r: round(r.uniform(-50, 50), 3)
    if annotation is bool:
        return lambda r: r.random() < 0.5
    if annotation is str:
        return lambda r: "".join(r.choice("abcAB ca_(){}[]1") for _ in range(r.randint(0, 10)))
    if origin is list:
        inner = generator(args[0])
        return lambda r: [inner(r) for _ in range(r.randint(0, 7))]
    if origin is set:
        inner = generator(args[0])
        return lambda r: {inner(r) for _ in range(r.randint(0, 6))}
    if origin is tuple:
        inners = [generator(a) for a in args]
        return lambda r: tuple(g(r) for g in inners)
    if origin is dict:
        key, value = generator(args[0]), generator(args[1])
        return lambda r: {key(r)[:2]: value(r) for _ in range(r.randint(0, 5))}
    raise TypeError(f"no generator for {annotation!r}")


def cases() -> list[tuple[Path, str]]:
    out = []
    for path in PY_FIXTURES:
        module = load(path)
        for name, fn in vars(module).items():
            if inspect.isfunction(fn) and fn.__module__ == module.__name__ and callable_with_generated(fn):
                out.append((path, name))
    return out


def callable_with_generated(fn) -> bool:
    params = inspect.signature(fn).parameters.values()
    return all(
        p.annotation is not inspect.Parameter.empty
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


_MODULES: dict[Path, object] = {}


def load(path: Path):
    if path not in _MODULES:
        spec = importlib.util.spec_from_file_location(f"invar_fixture_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[path] = module
    return _MODULES[path]


def outcome(fn, args):
    """What a call gives: ('ok', value) or ('raise', exception type)."""
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except Exception as err:  # the variant must fail the same way
        return ("raise", type(err))


CASES = cases()


def test_enough_fixture_functions():
    assert len(CASES) >= 200


@pytest.mark.parametrize("path,name", CASES, ids=[f"{p.stem}:{n}" for p, n in CASES])
def test_variants_behave_like_the_original(path: Path, name: str):
    module = load(path)
    fn = getattr(module, name)
    hints = typing.get_type_hints(fn)
    params = [
        p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    gens = [generator(hints[p.name]) for p in params]
    rng = random.Random(f"{path.name}:{name}")
    inputs = [tuple(g(rng) for g in gens) for _ in range(INPUTS)]
    expected = [outcome(fn, args) for args in inputs]
    assert all(kind == "ok" for kind, _ in expected), f"fixture {name} is not total: {expected}"

    text = path.read_text()
    (unit,) = [u for u in parse_units(text, str(path)) if u.name == name]
    perms = PermutationSpace(unit)
    names = renaming_space(unit)
    variants = [perms.apply(None, t) for t in perms.sample(PERMUTATIONS, rng)]
    if names.count():
        variants += [names.apply(None, t) for t in names.sample(RENAMINGS, rng)]
        for t in perms.sample(BOTH, rng):
            moved = perms.apply(None, t)
            space = renaming_space(moved)
            variants += [space.apply(None, r) for r in space.sample(1, rng)]
    assert variants
    for variant in variants:
        source = variant.render()
        assert source.count("\n") == unit.render().count("\n")
        namespace = dict(vars(module))
        exec(compile(source, f"<variant of {name}>", "exec"), namespace)
        got = [outcome(namespace[name], args) for args in inputs]
        assert got == expected, f"variant of {name} differs:\n{source}"


def test_the_oracle_notices_dropped_dependencies():
    """Sensitivity: with every dependency deleted, sampled reorderings must
    break some fixture functions, so the test above can fail."""
    from dataclasses import replace

    broken = 0
    rng = random.Random(3)
    for path, name in CASES[:60]:
        module = load(path)
        fn = getattr(module, name)
        hints = typing.get_type_hints(fn)
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        gens = [generator(hints[p.name]) for p in params]
        inputs = [tuple(g(rng) for g in gens) for _ in range(INPUTS)]
        expected = [outcome(fn, args) for args in inputs]
        (unit,) = [u for u in parse_units(path.read_text(), str(path)) if u.name == name]
        free = PermutationSpace(replace(unit, deps=()))
        for t in free.sample(2, rng):
            namespace = dict(vars(module))
            try:
                exec(compile(free.apply(None, t).render(), f"<broken variant of {name}>", "exec"), namespace)
                got = [outcome(namespace[name], args) for args in inputs]
            except Exception:
                got = None
            if got != expected:
                broken += 1
                break
    assert broken >= 10, broken
