"""Execution oracle on generated Python units (docs/semantics.md).

500 seeded units from :mod:`tests.oracles.python_generate`, each with
sampled permutations, renamings and both, run with the original in a
subprocess on the same inputs (positional and keyword calls): wherever the
original completes normally, every variant must return the same, leave every
argument, iterator and global in the same state and print the same, in order.
Sensitivity: with each part of the analysis weakened in turn (definition-time
effects included: decorators applied and class hooks dropped, class hooks
alone, or a definition's whole header ignored; scope reads under other names
than the builtins' own ignored; the module's namespace reached as an object
ignored), the same oracle finds variants that change behaviour.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, replace

import pytest

from invar.frontends.python import effects as python_effects
from invar.frontends.python import parse_units, renaming_space
from invar.frontends.python.scopes import DYNAMIC_BUILTINS
from invar.symmetry.permutations import PermutationSpace

from .python_generate import GLOBALS, unit
from .python_harness import Job, disagreements, run_jobs

#: the module (the package's ``parse`` names its function of that name)
py = importlib.import_module("invar.frontends.python.parse")

UNITS = 300
SHARDS = 4
PERMUTATIONS, RENAMINGS, BOTH = 3, 2, 1
#: weakened analyses: generated units checked a batch at a time (seeds from 5000) until one
#: fails, at most WEAKENED_UNITS (each is caught within 80 units, most in the first batch)
BATCH, WEAKENED_UNITS = 20, 1000
#: a pool that overlaps the generator's own names and the builtins it calls,
#: so renamings have to avoid capture
POOL = ["a", "b", "xs", "it", "v", "k", "len", "print", "sum", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]


@dataclass
class Checked:
    units: int = 0
    variants: int = 0
    normal_runs: int = 0
    failures: list = None


def variants_of(seed: int, rng: random.Random):
    """(generated unit, its Program, variant module sources with a label)."""
    u = unit(seed)
    program = next(p for p in parse_units(u.source, f"gen{seed}.py") if p.name == "unit")
    lines = u.source.split("\n")
    before, after = lines[: u.first_line - 1], lines[u.first_line - 1 + program.render().count("\n") + 1 :]
    assert "\n".join(lines[u.first_line - 1 : len(lines) - len(after)]) == program.render()
    out = []
    perms = PermutationSpace(program)
    if perms.count() > 1:
        out += [("permutation", perms.apply(None, t)) for t in perms.sample(PERMUTATIONS, rng)]
    for pool in (None, POOL):
        names = renaming_space(program, pool=pool)
        if names.count() > 1:
            out += [("renaming", names.apply(None, r)) for r in names.sample(RENAMINGS // 2 or 1, rng)]
    names = renaming_space(program, pool=POOL)
    if names.count() > 1:
        for t in perms.sample(BOTH, rng):
            moved = perms.apply(None, t)
            space = renaming_space(moved, pool=POOL)
            out += [("both", space.apply(None, r)) for r in space.sample(1, rng)]
    sources = [(label, "\n".join(before + v.render().split("\n") + after)) for label, v in out]
    return u, program, sources


def check(seeds) -> Checked:
    rng = random.Random(f"generated:{seeds[0]}")
    jobs, owners = [], []
    for seed in seeds:
        u, _program, sources = variants_of(seed, rng)
        jobs.append(Job(u.source, "unit", u.inputs, GLOBALS))
        owners.append((seed, None, u.source))
        for label, source in sources:
            jobs.append(Job(source, "unit", u.inputs, GLOBALS))
            owners.append((seed, label, source))
    outcomes = run_jobs(jobs, call_limit=0.25)
    # a call that hit the time limit on a busy machine gets a second, longer chance
    slow = [k for k, got in enumerate(outcomes) if any(o == ["raise", "Timeout"] for o in got)]
    if slow:
        again = run_jobs([jobs[k] for k in slow], call_limit=5.0)
        for k, got in zip(slow, again):
            outcomes[k] = got
    result = Checked(units=len(seeds), failures=[])
    original = None
    for (seed, label, source), got in zip(owners, outcomes):
        if label is None:
            original = got
            result.normal_runs += sum(o[0] == "ok" for o in got)
            continue
        result.variants += 1
        bad = disagreements(original, got)
        if bad:
            result.failures.append((seed, label, bad[0], original[bad[0]], got[bad[0]], source))
    return result


@pytest.mark.parametrize("shard", range(SHARDS))
def test_generated_units_keep_their_meaning(shard, record_property):
    seeds = list(range(shard, UNITS, SHARDS))
    result = check(seeds)
    report = (
        f"shard {shard}: {result.units} generated units, {result.variants} variants, "
        f"{result.normal_runs} normal runs of the originals, {len(result.failures)} failures"
    )
    record_property("oracle", report)
    assert result.variants > 2 * result.units
    assert result.normal_runs > 0.6 * 6 * result.units
    for seed, label, k, want, got, source in result.failures[:3]:
        print(f"seed {seed} {label} input {k}:\nwant {want}\ngot  {got}\n{source[source.index('def unit') :]}")
    assert not result.failures


def _weaken_iteration(monkeypatch):
    """Builtins and iteration treated as pure again (the defect the issue saw)."""
    monkeypatch.setattr(python_effects, "fresh", lambda node, res: True)
    monkeypatch.setattr(
        python_effects, "PURE_BUILTINS", python_effects.PURE_BUILTINS | python_effects.CONSUMING_BUILTINS | {"next"}
    )
    monkeypatch.setattr(python_effects, "CONSUMING_BUILTINS", frozenset())


def _weaken_dynamic(monkeypatch):
    """``locals()``, ``eval`` … read nothing."""
    monkeypatch.setattr(python_effects.EffectVisitor, "_dynamic", lambda self, node: None)


def _weaken_aliased_scope_reads(monkeypatch):
    """Only a call that spells ``locals``, ``eval`` … reads its scope, as
    before issue 35: an alias, an attribute of ``builtins``, an element of a
    container or a returned value is an ordinary call again."""
    found = py.find_reach

    def direct_only(tree, res, module=None):
        got = found(tree, res, module)
        direct = {id(call): scope for call, scope in res.builtin_calls if call.func.id in DYNAMIC_BUILTINS}
        return replace(got, calls=frozenset(direct), scopes=frozenset(id(s) for s in direct.values()), escaped=False)

    monkeypatch.setattr(py, "find_reach", direct_only)


def _weaken_module_object(monkeypatch):
    """A store to a global is not ordered against reads through the module
    object (``sys.modules[__name__].G``, ``f.__globals__``), as before issue 35."""
    found = py.find_reach
    monkeypatch.setattr(
        py,
        "find_reach",
        lambda tree, res, module=None: replace(found(tree, res, module), exposed=False, cells_exposed=False),
    )


def _weaken_interface(monkeypatch):
    """Keyword parameters and ``def`` names renamable again."""
    monkeypatch.setattr(py, "_INTERFACE", frozenset())


def _weaken_spelling(monkeypatch):
    """Names in ``f"{x=}"`` renamable again."""
    original = py._UnitBuilder._program

    def program(self, *args):
        self.res.spelled.clear()
        return original(self, *args)

    monkeypatch.setattr(py._UnitBuilder, "_program", program)


def _weaken_unbound(monkeypatch):
    """A read of a maybe-unbound variable inside ``try`` cannot raise, again."""
    monkeypatch.setattr(py._UnitBuilder, "_unbound", lambda self, effect: False)


def _weaken_class_bodies(monkeypatch):
    """Class bodies reordered freely again."""
    original = py._UnitBuilder._block

    def block(self, *args, ordered=False, **kwargs):
        return original(self, *args, **kwargs)

    monkeypatch.setattr(py._UnitBuilder, "_block", block)


def _weaken_definitions(monkeypatch):
    """A ``def`` or ``class`` statement runs nothing where it stands again:
    no decorator applied, no class hook (the defect the issue saw)."""
    monkeypatch.setattr(python_effects.StatementEffects, "runs_at_definition", lambda self, s: False)


def _weaken_class_hooks(monkeypatch):
    """Creating any class runs no hook again (``__init_subclass__``,
    metaclasses, ``__set_name__``); decorators still count."""
    monkeypatch.setattr(python_effects.StatementEffects, "plain_class", lambda self, s: True)


def _weaken_definition_headers(monkeypatch):
    """Decorators, defaults, annotations and bases evaluated by no one, and
    nothing applied or created: a definition only binds its name."""
    monkeypatch.setattr(python_effects.StatementEffects, "header_expressions", lambda self, s: [])
    monkeypatch.setattr(python_effects.StatementEffects, "runs_at_definition", lambda self, s: False)


@pytest.mark.parametrize(
    "weaken",
    [
        _weaken_iteration,
        _weaken_dynamic,
        _weaken_interface,
        _weaken_spelling,
        _weaken_class_bodies,
        _weaken_unbound,
        _weaken_definitions,
        _weaken_class_hooks,
        _weaken_definition_headers,
        _weaken_aliased_scope_reads,
        _weaken_module_object,
    ],
    ids=lambda f: f.__name__.removeprefix("_weaken_"),
)
def test_the_oracle_notices_a_weakened_analysis(weaken, monkeypatch, record_property):
    weaken(monkeypatch)
    found = 0
    checked = 0
    for start in range(0, WEAKENED_UNITS, BATCH):
        result = check(list(range(5000 + start, 5000 + start + BATCH)))
        checked += result.units
        found += len(result.failures)
        if found:
            break
    record_property(
        "oracle",
        f"weakened {weaken.__name__.removeprefix('_weaken_')}: {found} failing variants in {checked} generated units",
    )
    assert found > 0
