"""Compiler oracle on real code: sampled permutations and renamings of JDK 17
methods (``java.base``, see ``java_corpus``) must compile with ``javac``, on
both parser paths: files javalang reads, and files only tree-sitter reads.

Variant ``k`` of a file replaces every method of the file by the ``k``-th
program sampled for it, so one compilation checks one variant of every
method; each variant index is one javac command line, all of both tests run
in one JVM (a module fixture).
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


def varied(files: list[str], seed: int, where) -> tuple[dict, list[list[str]]]:
    """Vary every method of ``files`` into one tree per variant index: the methods, how many were
    skipped and moved, and one javac command line per tree."""
    rng = random.Random(seed)
    sources = jdk_sources()
    units_of, skipped, moved = {}, 0, 0
    trees = [where / f"v{k}" for k in range(PERMUTATIONS + RENAMINGS)]
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
    state = {"files": files, "trees": trees, "units_of": units_of, "skipped": skipped, "moved": moved}
    return state, commands


def judged(state: dict, results: list[tuple[int, str]]) -> dict:
    """The compile errors of each tree, traced to the method whose lines hold them."""
    broken = []
    units_of = state["units_of"]
    for tree, (rc, diagnostics) in zip(state["trees"], results):
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
        "skipped": state["skipped"],
        "moved": state["moved"],
        "variants": len(state["trees"]) * len(state["files"]),
        "broken": broken,
    }


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict:
    """Both tests' variants (javalang's files, seed 17; tree-sitter's, seed 19), every tree's javac
    command line run in one JVM (javac warms up once): :func:`judged` by parser path."""
    where = tmp_path_factory.mktemp("jdk")
    states, commands = {}, []
    for path, files, seed in (("javalang", JDK_FILES, 17), ("tree-sitter", JDK17_FILES, 19)):
        states[path], more = varied(files, seed, where / path)
        commands.append(more)
    results = compile_batches([c for more in commands for c in more], where)
    out, k = {}, 0
    for (path, state), more in zip(states.items(), commands):
        out[path] = judged(state, results[k : k + len(more)])
        k += len(more)
    return out


def report(got: dict, files: list[str], what: str, start: float) -> str:
    return (
        f"{got['methods']} JDK 17 methods from {len(files)} java.base files {what}, "
        f"{len(files) and got['variants'] // len(files)} "
        f"variants each ({PERMUTATIONS} permutations, {RENAMINGS} renamings; {got['moved']} of {got['variants']} "
        f"variant files differ from the original), {got['skipped']} methods skipped by invar, "
        f"{len(got['broken'])} compile errors ({time.perf_counter() - start:.0f}s)"
    )


def test_variants_of_jdk_methods_compile(checked, record_property):
    start = time.perf_counter()
    got = checked["javalang"]
    record_property("oracle", report(got, JDK_FILES, "read by javalang", start))
    assert got["methods"] >= 300
    assert not got["broken"], got["broken"][:10]


def test_variants_of_jdk_methods_read_by_tree_sitter_compile(checked, record_property):
    start = time.perf_counter()
    sources = jdk_sources()
    for rel in JDK17_FILES:  # javalang (Java 8) cannot read them
        with pytest.raises(ParseError):
            parse_units(sources[rel], rel, parser="javalang")
    got = checked["tree-sitter"]
    record_property("oracle", report(got, JDK17_FILES, "read by tree-sitter only", start))
    assert got["methods"] >= 150
    assert not got["skipped"]
    assert not got["broken"], got["broken"][:10]
