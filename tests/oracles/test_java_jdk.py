"""Compiler oracle on real code: sampled permutations and renamings of JDK 17
methods (``java.base``, see ``java_corpus``) must compile with ``javac``.

Variant ``k`` of a file replaces every method of the file by the ``k``-th
program sampled for it, so one compilation checks one variant of every
method; each variant index is one javac command line, all run in one JVM.
A compile error is traced to the method whose lines hold it.
"""

from __future__ import annotations

import random
import time

from invar.frontends.java import parse_units

from .java_corpus import JDK_FILES, jdk_sources
from .java_harness import compile_batches, error_lines, file_variants

PERMUTATIONS, RENAMINGS = 2, 2


def test_variants_of_jdk_methods_compile(tmp_path, record_property):
    start = time.perf_counter()
    rng = random.Random(17)
    sources = jdk_sources()
    units_of, skipped, moved = {}, 0, 0
    trees = [tmp_path / f"v{k}" for k in range(PERMUTATIONS + RENAMINGS)]
    for rel in JDK_FILES:
        units = parse_units(sources[rel], rel)
        skipped += len(units.skipped)
        units_of[rel] = list(units)
        for k, variant in enumerate(file_variants(sources[rel], rel, rng, PERMUTATIONS, RENAMINGS, units=list(units))):
            moved += variant != sources[rel]
            target = trees[k] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(variant)
    commands = [
        ["-nowarn", "-encoding", "UTF-8", "-implicit:none", "-proc:none", "--patch-module", f"java.base={tree}",
         "-d", str(tree.parent / f"{tree.name}-out"), *(str(tree / rel) for rel in JDK_FILES)]
        for tree in trees
    ]
    results = compile_batches(commands, tmp_path)
    broken = []
    for tree, (rc, diagnostics) in zip(trees, results):
        errors = error_lines(diagnostics)
        assert rc == 0 or errors, diagnostics[-4000:]
        for path, line, message in errors:
            rel = str(path).split(f"{tree.name}/", 1)[-1]
            owner = next((u.name for u in units_of.get(rel, ()) if u.lines[0].source_line <= line
                          <= u.lines[0].source_line + u.render().count("\n")), "outside every method")
            broken.append(f"{tree.name} {rel}:{line} ({owner}): {message}")
    methods = sum(len(u) for u in units_of.values())
    record_property("oracle", f"{methods} JDK 17 methods from {len(JDK_FILES)} java.base files, "
                              f"{len(trees)} variants each ({PERMUTATIONS} permutations, {RENAMINGS} renamings; "
                              f"{moved} of {len(trees) * len(JDK_FILES)} variant files differ from the original), "
                              f"{skipped} methods skipped by invar, {len(broken)} compile errors "
                              f"({time.perf_counter() - start:.0f}s)")
    assert methods >= 300
    assert not broken, broken[:10]
