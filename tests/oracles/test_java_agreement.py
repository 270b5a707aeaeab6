"""The two Java parser paths on real code: a seeded sample of the JDK 17
sources (every module of ``src.zip``, see ``java_corpus``).

- **Agreement**: on every sampled file that both javalang and tree-sitter
  read, the two paths build identical programs (units, names, lines, blocks,
  tokens with their views, referents and positions, dependencies, pins) and
  skip the same methods with the same errors.
- **Coverage**: on the default path (javalang, then tree-sitter for what it
  cannot read) fewer than 1% of the files fail to parse, each failure with
  its file, line and column. A file that declares no method with a body (an
  interface of abstract methods, ``package-info.java``) is not a failure.

docs/benchmarks/frontends.md gives the same figures for every file of ``src.zip``
(``python -m tests.oracles.java_census``).
"""

from __future__ import annotations

import random
import time
import zipfile
from functools import lru_cache

from .java_census import NO_METHOD, differences, read_both
from .java_corpus import src_zip

SAMPLE = 80


@lru_cache(maxsize=1)
def results() -> dict:
    """Each sampled file's ``(units, error)`` on the javalang, tree-sitter and
    default paths."""
    start = time.perf_counter()
    with zipfile.ZipFile(src_zip()) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".java"))
        files = {
            rel: read_both(zf.read(rel).decode("utf-8"), rel)[:3] for rel in random.Random(8).sample(names, SAMPLE)
        }
    return {"files": files, "seconds": time.perf_counter() - start}


def test_both_parser_paths_build_identical_programs(record_property):
    files = results()["files"]
    both = only_tree_sitter = methods = 0
    differ = []
    for rel, ((a, ea), (b, eb), _) in files.items():
        if a is None:
            only_tree_sitter += b is not None
            continue
        assert b is not None, f"{rel}: javalang reads it, tree-sitter does not: {eb}"
        both += 1
        methods += len(a)
        differ += [f"{rel}: {d}" for d in differences(a, b)]
    record_property(
        "oracle",
        f"{SAMPLE} sampled JDK 17 files: {both} read by both paths ({methods} methods, "
        f"{len(differ)} differences), {only_tree_sitter} by tree-sitter only "
        f"({results()['seconds']:.0f}s)",
    )
    assert both >= SAMPLE // 2 and only_tree_sitter >= 3
    assert not differ, differ[:10]


def test_fewer_than_one_percent_of_files_fail_to_parse(record_property):
    files = results()["files"]
    failed, empty, methods, skipped = [], 0, 0, 0
    for rel, (_, _, (units, err)) in files.items():
        if units is not None:
            methods += len(units)
            skipped += len(units.skipped)
            for e in units.skipped:
                assert e.path == rel and e.line and e.col, e
        elif NO_METHOD in err.message:
            empty += 1
        else:
            failed.append(err)
            assert err.path == rel and err.line and err.col, err
            assert str(err).startswith(f"{rel}:{err.line}:{err.col}: error: ")
    record_property(
        "oracle",
        f"{SAMPLE} sampled JDK 17 files: {len(failed)} fail to parse, {empty} declare no "
        f"method with a body; {methods} methods, {skipped} skipped",
    )
    assert len(failed) < SAMPLE / 100, [str(e) for e in failed]
    assert methods >= 900
