"""Execution oracle on real code: functions of the running Python's standard
library (docs/semantics.md).

Candidates are the module-level functions of a seeded half of a list of
standard-library modules. A *sandboxed trial* decides which can be called
safely: each is called on arguments drawn from a pool of plain values, in a
subprocess where any file, process, network, environment or sleep access
makes the call fail; calls that complete normally and give the same outcome
twice are kept as inputs, and a function with at least one such input is
callable safely.

Each callable function's text is taken from its module with invar's own
frontend, and its sampled permutations and renamings are run beside it in the
module's namespace on the kept inputs: wherever the original completes
normally, every variant must return the same, leave its arguments in the same
state and print the same. The count of functions checked is printed in every
run's summary.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import random
from itertools import product

import pytest

from invar.frontends.python import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from .python_harness import Job, disagreements, run_jobs

MODULES = """textwrap string colorsys heapq bisect difflib html shlex posixpath ntpath fnmatch calendar base64
    quopri urllib.parse ipaddress statistics json.encoder json.decoder reprlib pprint copy _pydecimal _strptime
    stringprep codecs gettext email.utils email.quoprimime email.base64mime email._parseaddr email.header
    tokenize locale ast dis inspect datetime plistlib http.cookies http.cookiejar xml.sax.saxutils
    xml.dom.minidom wsgiref.util platform optparse getopt""".split()

#: the plain values arguments are drawn from
VALUES = [
    "0",
    "1",
    "3",
    "-2",
    "17",
    "0.5",
    "2.0",
    "None",
    "True",
    "''",
    "'abc'",
    "'Hello World'",
    "'a,b;c d'",
    "'3.14'",
    "'/usr/lib/python3/x.py'",
    "\"<a href='x'>&amp; b</a>\"",
    "'  two  spaces  '",
    "'key=value; k2=v2'",
    "'user@example.com'",
    "'192.168.0.1'",
    "b'abc'",
    "b''",
    "[]",
    "[3, 1, 2]",
    "['b', 'a']",
    "(1, 2)",
    "{'a': 1}",
    "[[1, 2], [3]]",
    "'line one\\nline two\\n'",
    "'%d items'",
]
TRIALS = 24  # argument tuples tried per function
KEEP = 6  # inputs kept per function
PERMUTATIONS, RENAMINGS = 3, 3
POOL = ["a", "b", "s", "i", "n", "len", "str", "q0", "q1", "q2", "q3", "q4", "q5", "q6"]
SEED = 20241121
#: the modules whose functions are checked: a seeded half of the list (parsing them costs most)
SAMPLED_MODULES = sorted(random.Random(SEED).sample(MODULES, len(MODULES) // 2), key=MODULES.index)


def candidates(modules=MODULES) -> list[tuple[str, str, int, str]]:
    """(module, function, required positional parameters, module source) for
    every module-level ``def`` of the listed modules."""
    out = []
    for name in modules:
        module = importlib.import_module(name)
        source = inspect.getsource(module)
        for node in ast.parse(source).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            a = node.args
            if a.kwonlyargs and any(d is None for d in a.kw_defaults):
                continue  # needs a keyword-only argument
            required = len(a.posonlyargs) + len(a.args) - len(a.defaults)
            if required <= 3:
                out.append((name, node.name, required, source))
    return out


def namespace_source(module: str, function_text: str, own_name: bool = False) -> str:
    """A module whose namespace is ``module``'s, with ``function_text`` defined
    in it. ``own_name``: keep this module's own ``__name__``, so that
    ``sys.modules[__name__]`` is the namespace the function's globals live in."""
    update = "{k: v for k, v in vars(_m).items() if k != '__name__'}" if own_name else "vars(_m)"
    return f"import {module} as _m\nglobals().update({update})\n{function_text}\n"


def trial_inputs(rng: random.Random, required: int, trials: int = TRIALS) -> list[str]:
    combos = list(product(range(len(VALUES)), repeat=required)) if required <= 2 else None
    picks = (
        rng.sample(combos, min(trials, len(combos)))
        if combos
        else [tuple(rng.randrange(len(VALUES)) for _ in range(required)) for _ in range(trials)]
    )
    return [f"(({', '.join(VALUES[k] for k in pick)}{',' if pick else ''}), {{}})" for pick in picks]


@pytest.fixture(scope="module")
def callable_functions():
    return find_callable(SAMPLED_MODULES)


def find_callable(modules=MODULES, keep=None, own_name: bool = False, trials: int = TRIALS) -> list:
    """The functions the sandboxed trial finds callable safely, each with the
    program invar builds for it and its kept inputs; ``keep(module, name,
    source)`` chooses among the candidates (all by default), ``trials``
    argument tuples are tried for each."""
    rng = random.Random(SEED)
    units_of: dict[str, dict[str, object]] = {}
    jobs, meta = [], []
    for module, name, required, source in candidates(modules):
        if keep is not None and not keep(module, name, source):
            continue
        if module not in units_of:
            units_of[module] = {u.name: u for u in parse_units(source, f"{module.replace('.', '/')}.py")}
        program = units_of[module].get(name)
        if program is None:
            continue
        inputs = trial_inputs(rng, required, trials)
        text = namespace_source(module, program.render(), own_name)
        for _ in range(2):  # twice: keep what is deterministic
            jobs.append(Job(text, name, inputs, sandbox=True))
        meta.append((module, name, program, inputs))
    outcomes = run_jobs(jobs, call_limit=0.2)
    chosen = []
    for k, (module, name, program, inputs) in enumerate(meta):
        first, second = outcomes[2 * k], outcomes[2 * k + 1]
        kept = [inp for inp, a, b in zip(inputs, first, second) if a[0] == "ok" and a == b]
        if kept:
            chosen.append((module, name, program, kept[:KEEP]))
    return chosen


def variants(program, rng: random.Random):
    perms = PermutationSpace(program)
    out = []
    if perms.tractable and perms.count() > 1:
        out += [perms.apply(None, t) for t in perms.sample(PERMUTATIONS, rng)]
    for pool in (None, POOL):
        space = renaming_space(program, pool=pool)
        if space.count() > 1:
            out += [space.apply(None, r) for r in space.sample(RENAMINGS, rng)]
    return [v for v in out if v.render() != program.render()]


def test_standard_library_functions_keep_their_meaning(callable_functions, record_property):
    report, failures, functions = run_variants(callable_functions)
    record_property("oracle", report)
    for module, name, text, want, got in failures[:3]:
        print(f"{module}.{name}:\nwant {want}\ngot  {got}\n{text}")
    assert not failures
    assert len(functions) >= 75


def run_variants(callable_functions, seed: int = SEED, own_name: bool = False):
    """Run sampled variants of every function beside it: (report, failures,
    functions that had variants)."""
    rng = random.Random(seed)
    jobs, owners = [], []
    for module, name, program, inputs in callable_functions:
        found = variants(program, rng)
        if not found:
            continue
        jobs.append(Job(namespace_source(module, program.render(), own_name), name, inputs, sandbox=True))
        owners.append((module, name, None))
        for v in found:
            jobs.append(Job(namespace_source(module, v.render(), own_name), name, inputs, sandbox=True))
            owners.append((module, name, v.render()))
    outcomes = run_jobs(jobs, call_limit=0.2)
    failures, original, functions, checked = [], None, set(), 0
    for (module, name, text), got in zip(owners, outcomes):
        if text is None:
            original = got
            continue
        bad = disagreements(original, got)
        if bad:
            failures.append((module, name, text, original[bad[0]], got[bad[0]]))
        functions.add((module, name))
        checked += 1
    report = (
        f"{len(callable_functions)} standard-library functions callable safely, {len(functions)} with "
        f"variants; {checked} variants run, {len(failures)} failures"
    )
    return report, failures, functions


def test_the_oracle_notices_dropped_dependencies(callable_functions, record_property):
    """Sensitivity: with every dependency dropped, sampled reorderings of the
    same real functions must change what some of them do."""
    from dataclasses import replace

    rng = random.Random(SEED + 1)
    jobs, owners = [], []
    for module, name, program, inputs in callable_functions:
        free = PermutationSpace(replace(program, deps=()))
        if not free.tractable or free.count() < 2:
            continue
        moved = [free.apply(None, t).render() for t in free.sample(2, rng)]
        jobs.append(Job(namespace_source(module, program.render()), name, inputs, sandbox=True))
        owners.append(None)
        for text in moved:
            jobs.append(Job(namespace_source(module, text), name, inputs, sandbox=True))
            owners.append(text)
    outcomes = run_jobs(jobs, call_limit=0.2)
    broken, original = 0, None
    for text, got in zip(owners, outcomes):
        if text is None:
            original = got
        elif disagreements(original, got):
            broken += 1
    moved = sum(text is not None for text in owners)
    record_property("oracle", f"dependencies dropped: {broken} of {moved} standard-library variants differ")
    assert broken >= 20
