"""Random-program oracle for the Java frontend.

``java_generate`` writes seeded classes whose constructors and methods
exercise what the dependency and renaming rules must get right. Every sampled
permutation and renaming of every unit must compile with ``javac``, and its
class's driver must print the same as the original's in every case where the
original completes normally (docs/semantics.md). With the analysis weakened
(field writes unseen, copy constructors not reading their source, names free
to move across declarations, statements in try bodies free to move across
what may raise), the same check must fail on the orders it then allows.
"""

from __future__ import annotations

import importlib
import random
import time

import pytest

from invar.frontends.java import effects as java_effects, syntax as js
from invar.frontends.effects import HEAP

from .java_generate import SUPPORT, generate_class
from invar.symmetry.permutations import PermutationSpace

from .java_harness import compile_sets, differences, failing_files, file_variants, rename_class, run_all, splice

#: the module (the package's ``parse`` names its function of that name)
java_frontend = importlib.import_module("invar.frontends.java.parse")

#: classes generated (four units each) and variants sampled per unit
CLASSES, PERMUTATIONS, RENAMINGS = 30, 2, 2
#: classes with Java 17 statements and a record (six units each), read by tree-sitter
MODERN_CLASSES = 8


def generated(classes: range, seed: int, perms: int, renamings: int, modern: bool = False) -> dict:
    """Generate and vary: every source to compile, the variants with their originals, the unit count."""
    rng = random.Random(seed)
    sources = dict(SUPPORT)
    pairs, units = [], 0
    for k in classes:
        cls = f"G{k}"
        source, names = generate_class(cls, seed * 100003 + k, modern)
        units += len(names)
        sources[cls] = source
        for v, variant in enumerate(file_variants(source, f"{cls}.java", rng, perms, renamings)):
            name = f"{cls}_v{v}"
            sources[name] = rename_class(variant, cls, name)
            pairs.append((name, cls))
    return {"sources": sources, "pairs": pairs, "originals": [f"G{k}" for k in classes], "units": units}


def check(gen: dict, done, where) -> dict:
    """Compiled (``done``, into ``where/out``) and run; what went wrong, with counts."""
    pairs, originals = gen["pairs"], gen["originals"]
    broken = failing_files(done.stderr)
    report = {"units": gen["units"], "variants": len(pairs), "broken": broken, "stderr": done.stderr, "differ": {}}
    assert broken or done.returncode == 0, done.stderr[-4000:]
    assert not broken & (set(originals) | set(SUPPORT)), done.stderr[-4000:]  # the originals compile
    if broken:
        return report
    printed = run_all(originals + [name for name, _ in pairs], where)
    report["cases"] = sum(
        line.startswith("= ") for name, text in printed.items() if "_v" not in name for line in text.split("\n")
    )
    for name, cls in pairs:
        diff = differences(printed[cls], printed[name])
        if diff:
            report["differ"][name] = diff
    return report


def _record_and_check(got: dict, version: str, start: float, at_least: int, record_property) -> None:
    """Reports what :func:`check` found, then: at least ``at_least`` units, every variant compiling and printing
    what its original prints."""
    record_property(
        "oracle",
        f"{got['units']} generated {version} units, {got['variants']} variant classes, "
        f"{got.get('cases', 0)} cases where the original completes, "
        f"{len(got['broken'])} not compiling, {len(got['differ'])} printing differently "
        f"({time.perf_counter() - start:.0f}s)",
    )
    assert got["units"] >= at_least
    assert not got["broken"], got["stderr"][-4000:]
    assert not got["differ"], list(got["differ"].items())[:5]


def test_every_variant_of_generated_units_compiles_and_prints_the_same(compiled, record_property):
    start = time.perf_counter()
    gen, done, where = compiled["java"]
    got = check(gen, done, where)
    _record_and_check(got, "Java", start, 110, record_property)


def test_generated_java17_units_vary_soundly_on_the_tree_sitter_path(compiled, record_property):
    start = time.perf_counter()
    gen, done, where = compiled["java17"]
    got = check(gen, done, where)
    source, _ = generate_class("G0", 17 * 100003, True)
    with pytest.raises(java_frontend.ParseError):  # switch expressions, text blocks, records: not Java 8
        java_frontend.parse_units(source, "G0.java", parser="javalang")
    _record_and_check(got, "Java 17", start, 48, record_property)


def _no_field_writes(self, e, target):
    while isinstance(target, js.Paren):
        target = target.expr
    ref = self.local(target.tok) if isinstance(target, js.Name) else None
    if ref is not None:
        e.writes.add(ref)


def _copies_read_nothing(self, e, node, path):
    if (node.body is not None and node.body.members) or node.type not in java_effects.ALLOCATORS:
        e.writes.add(HEAP)
        e.reads.add(HEAP)
        e.side = True


_block_deps = java_frontend.block_deps

#: (where, name, replacement): a weakened piece of the analysis
WEAKENINGS = {
    "field writes unseen": (java_effects.StatementEffects, "store", _no_field_writes),
    "copies read nothing": (java_effects.StatementEffects, "visit_New", _copies_read_nothing),
    "names cross declarations": (java_frontend._UnitBuilder, "_scoped", lambda self, effect, stmts, span: effect),
    "try bodies unprotected": (java_frontend, "block_deps", lambda members, protected=False: _block_deps(members)),
}

#: classes generated (seed 2) for each weakening: enough that the check catches variants of two
#: or more of them, and no more (javac's time is most of this module's): of the first 30, copies
#: read nothing is caught in G1 and G11 only, try bodies unprotected in G11, G21, G24 and G27
WEAKENED_CLASSES = {
    "field writes unseen": range(7),
    "copies read nothing": range(12),
    "names cross declarations": range(6),
    "try bodies unprotected": range(11, 22),
}


def weakened_variants(classes: range, seed: int, weakening: tuple, monkeypatch) -> dict[str, str]:
    """For every generated unit whose dependencies the weakening drops, up to
    three permutations that the weakened analysis allows and the real one
    forbids (of a few dozen samples, those breaking the most real
    dependencies), each as a variant of its class: what the check above must
    catch."""
    rng = random.Random(seed)
    sources = dict(SUPPORT)
    for k in classes:
        cls = f"G{k}"
        source, _ = generate_class(cls, seed * 100003 + k)
        real = {u.lines[0].source_line: set(u.deps) for u in java_frontend.parse_units(source, cls)}
        with monkeypatch.context() as m:
            m.setattr(*weakening)
            weak = list(java_frontend.parse_units(source, cls))
        sources[cls] = source
        for unit in weak:
            deps = real[unit.lines[0].source_line]
            if deps <= set(unit.deps):
                continue
            space = PermutationSpace(unit)
            # the samples that break the most real dependencies, up to three
            scored = sorted(
                {t.order: sum(t.inverse[i] > t.inverse[j] for i, j in deps) for t in space.sample(40, rng)}.items(),
                key=lambda kv: -kv[1],
            )
            for order, broken in scored[:3]:
                if broken:
                    name = f"{cls}_w{len(sources)}"
                    variant = unit.reordered(order)
                    sources[name] = rename_class(splice(source.split("\n"), [(unit, variant)]), cls, name)
    return sources


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict:
    """Every source set of this module's tests (the generated classes and their variants, the Java 17
    ones, each weakening's variants), each compiled by its own javac command line, all in one JVM
    (javac's start-up and warm-up cost more than most sets): ``(what was generated, javac's result,
    the set's directory)`` by set."""
    where = tmp_path_factory.mktemp("generated")
    gens = {
        "java": generated(range(CLASSES), 1, PERMUTATIONS, RENAMINGS),
        "java17": generated(range(MODERN_CLASSES), 17, PERMUTATIONS, RENAMINGS, modern=True),
    }
    with pytest.MonkeyPatch.context() as monkeypatch:
        for weakening in sorted(WEAKENINGS):
            gens[weakening] = {
                "sources": weakened_variants(WEAKENED_CLASSES[weakening], 2, WEAKENINGS[weakening], monkeypatch)
            }
    keys = {name: name.replace(" ", "-") for name in gens}
    done = compile_sets({keys[name]: gen["sources"] for name, gen in gens.items()}, where)
    return {name: (gen, done[keys[name]], where / keys[name]) for name, gen in gens.items()}


@pytest.mark.parametrize("weakening", sorted(WEAKENINGS))
def test_the_generated_oracle_notices_a_weakened_analysis(weakening, compiled):
    gen, done, where = compiled[weakening]
    sources = gen["sources"]
    variants = [name for name in sources if "_w" in name]
    assert variants, f"{weakening} changes no generated unit"
    broken = failing_files(done.stderr)
    assert not broken & {name for name in sources if "_w" not in name}, done.stderr[-4000:]
    if broken:
        return
    printed = run_all([name for name in sources if "_w" not in name and name not in SUPPORT] + variants, where)
    assert any(differences(printed[name.split("_w")[0]], printed[name]) for name in variants), (
        f"{weakening}: none of {len(variants)} variants it allows is caught"
    )
