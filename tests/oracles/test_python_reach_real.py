"""Execution oracle on real code that reads scopes or globals without naming
them (issue 35, items 1 and 2; docs/semantics.md).

The standard-library harness (:mod:`.test_python_stdlib`) samples functions
at large, and few of them read a scope as a whole or reach their module's
namespace as an object. This harness takes, from other standard-library
modules, exactly the module-level functions that do: a call that may be
``locals``, ``vars``, ``dir``, ``eval``, ``exec`` or ``globals`` (by that
name or another), ``sys.modules``, a function's ``__globals__``, a frame,
a closure's cells. The same sandboxed trial keeps those callable safely, and
their sampled permutations and renamings run beside them in a namespace that
is their module's, registered as ``sys.modules[__name__]`` (so that reaching
"this module" reaches the namespace the function's globals live in):
wherever the original completes normally, every variant must return the
same, leave its arguments in the same state and print the same.
"""

from __future__ import annotations

import ast
import importlib
import warnings

from invar.frontends.python.reach import CELL_ATTRIBUTES, EXPOSING_ATTRIBUTES, find_reach
from invar.frontends.python.scopes import SourceMap, module_name, resolve

from .test_python_stdlib import find_callable, run_variants

#: standard-library modules whose functions read scopes or reach namespaces
#: (not ``runpy`` or ``doctest``: their functions run whole modules or test
#: suites, tens of seconds a batch)
MODULES = """collections gettext inspect pkgutil sysconfig traceback typing importlib rlcompleter subprocess
    pickle unittest.mock dataclasses enum warnings linecache bdb cgitb locale platform code codeop timeit
    functools string""".split()

#: argument tuples tried per function (the stdlib harness tries 24; these are few)
TRIALS = 10

_reaches: dict[str, tuple[ast.Module, object]] = {}


def holds_the_constructs(module: str, name: str, source: str) -> bool:
    """Whether module-level function ``name`` of ``module`` (its text
    ``source``) holds a call that may read its scope, or reaches a namespace
    as an object."""
    if module not in _reaches:
        tree = ast.parse(source)
        res = resolve(tree, source, SourceMap(source), f"{module.replace('.', '/')}.py")
        _reaches[module] = (tree, res, find_reach(tree, res, module_name(f"{module.replace('.', '/')}.py")))
    tree, res, reach = _reaches[module]
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if node is None:
        return False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and id(sub) in reach.calls:
            return True
        if isinstance(sub, ast.Attribute) and (
            sub.attr in EXPOSING_ATTRIBUTES | CELL_ATTRIBUTES or sub.attr == "modules"
        ):
            return True
        if isinstance(sub, ast.Name) and sub.id == "globals":
            return True
    return False


def test_real_functions_that_read_scopes_or_namespaces_keep_their_meaning(record_property):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated modules still import
        modules = [m for m in MODULES if importlib.import_module(m)]
    chosen = find_callable(modules, keep=holds_the_constructs, own_name=True, trials=TRIALS)
    report, failures, functions = run_variants(chosen, own_name=True)
    record_property("oracle", f"scope and namespace readers: {report}")
    for module, name, text, want, got in failures[:3]:
        print(f"{module}.{name}:\nwant {want}\ngot  {got}\n{text}")
    assert not failures
    assert len(chosen) >= 15, [(m, n) for m, n, _, _ in chosen]
    assert len(functions) >= 8, sorted(functions)
