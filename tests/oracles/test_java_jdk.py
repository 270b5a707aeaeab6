"""Compiler oracle on real code: sampled permutations and renamings of JDK 17
methods (``java.base``, see ``java_corpus``) must compile with ``javac``, on
both parser paths: files javalang reads, and files only tree-sitter reads.

Variant ``k`` of a file replaces every method of the file by the ``k``-th
program sampled for it, so one compilation checks one variant of every
method; each variant index is one javac command line, all run in one JVM.
A compile error is traced to the method whose lines hold it.
"""

from __future__ import annotations

import random
import time

import pytest

from invar.errors import ParseError
from invar.frontends.java import parse_units

from .java_corpus import JDK17_FILES, JDK_FILES, jdk_sources
from .java_harness import compile_batches, disjoint, error_lines, file_variants

PERMUTATIONS, RENAMINGS = 1, 1


def check(files: list[str], seed: int, tmp_path) -> dict:
    """Vary every method of ``files``, compile each variant index in one
    javac run; the methods, how many were skipped, and the compile errors."""
    rng = random.Random(seed)
    sources = jdk_sources()
    units_of, skipped, moved = {}, 0, 0
    trees = [tmp_path / f"v{k}" for k in range(PERMUTATIONS + RENAMINGS)]
    for rel in files:
        units = parse_units(sources[rel], rel)
        skipped += len(units.skipped)
        units_of[rel] = disjoint(list(units))
        for k, variant in enumerate(file_variants(sources[rel], rel, rng, PERMUTATIONS, RENAMINGS, units=list(units))):
            moved += variant != sources[rel]
            target = trees[k] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(variant)
    commands = [
        [
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-implicit:none",
            "-proc:none",
            "--patch-module",
            f"java.base={tree}",
            "-d",
            str(tree.parent / f"{tree.name}-out"),
            *(str(tree / rel) for rel in files),
        ]
        for tree in trees
    ]
    results = compile_batches(commands, tmp_path)
    broken = []
    for tree, (rc, diagnostics) in zip(trees, results):
        errors = error_lines(diagnostics)
        assert rc == 0 or errors, diagnostics[-4000:]
        for path, line, message in errors:
            rel = str(path).split(f"{tree.name}/", 1)[-1]
            owner = next(
                (
                    u.name
                    for u in units_of.get(rel, ())
                    if u.lines[0].source_line <= line <= u.lines[0].source_line + u.render().count("\n")
                ),
                "outside every method",
            )
            broken.append(f"{tree.name} {rel}:{line} ({owner}): {message}")
    methods = sum(len(u) for u in units_of.values())
    return {
        "methods": methods,
        "skipped": skipped,
        "moved": moved,
        "variants": len(trees) * len(files),
        "broken": broken,
    }


def report(got: dict, files: list[str], what: str, start: float) -> str:
    return (
        f"{got['methods']} JDK 17 methods from {len(files)} java.base files {what}, "
        f"{len(files) and got['variants'] // len(files)} "
        f"variants each ({PERMUTATIONS} permutations, {RENAMINGS} renamings; {got['moved']} of {got['variants']} "
        f"variant files differ from the original), {got['skipped']} methods skipped by invar, "
        f"{len(got['broken'])} compile errors ({time.perf_counter() - start:.0f}s)"
    )


def test_variants_of_jdk_methods_compile(tmp_path, record_property):
    start = time.perf_counter()
    got = check(JDK_FILES, 17, tmp_path)
    record_property("oracle", report(got, JDK_FILES, "read by javalang", start))
    assert got["methods"] >= 300
    assert not got["broken"], got["broken"][:10]


def test_variants_of_jdk_methods_read_by_tree_sitter_compile(tmp_path, record_property):
    start = time.perf_counter()
    sources = jdk_sources()
    for rel in JDK17_FILES:  # javalang (Java 8) cannot read them
        with pytest.raises(ParseError):
            parse_units(sources[rel], rel, parser="javalang")
    got = check(JDK17_FILES, 19, tmp_path)
    record_property("oracle", report(got, JDK17_FILES, "read by tree-sitter only", start))
    assert got["methods"] >= 150
    assert not got["skipped"]
    assert not got["broken"], got["broken"][:10]
