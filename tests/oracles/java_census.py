"""The Java frontend on the JDK 17 sources: both parser paths on every
``.java`` file of ``src.zip`` (see ``java_corpus``), or every n-th.

For each file: what javalang builds, what tree-sitter builds, and what the
default path (javalang, then tree-sitter for what javalang cannot read)
builds. The census counts files by outcome, failures and skipped methods by
reason, and, on the files both paths read, the methods whose programs
differ (there should be none). bench/bench_java.py runs it with ``--report``
for the table of docs/benchmarks/frontends.md; on its own:

    python -m tests.oracles.java_census            # every file (about an hour on a busy machine)
    python -m tests.oracles.java_census --step 10  # every tenth file
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import zipfile
from collections import Counter

from invar.errors import InvarError
from invar.frontends.java import parse_units

#: not a parse failure: a file whose types declare no method with a body
NO_METHOD = "no method with a body found"


def _parse(text: str, rel: str, parser: str | None):
    try:
        return parse_units(text, rel, parser=parser), None
    except InvarError as err:
        return None, err


def read_both(text: str, rel: str) -> tuple[tuple, tuple, tuple, float, float]:
    """``(units, error)`` on the javalang, tree-sitter and default paths, and
    the seconds javalang and tree-sitter took."""
    t0 = time.perf_counter()
    javalang = _parse(text, rel, "javalang")
    t1 = time.perf_counter()
    tree_sitter = _parse(text, rel, "tree-sitter")
    t2 = time.perf_counter()
    if javalang[0] is not None or NO_METHOD in str(javalang[1]):
        default = javalang
    else:
        default = _parse(text, rel, None)
    return javalang, tree_sitter, default, t1 - t0, t2 - t1


def differences(a, b) -> list[str]:
    """How two paths' units of one file differ (names, programs, skips)."""
    out = []
    if [p.name for p in a] != [p.name for p in b]:
        out.append(f"units {[p.name for p in a]} != {[p.name for p in b]}")
    out += [f"{p.name} differs" for p, q in zip(a, b) if p != q]
    if [str(e) for e in a.skipped] != [str(e) for e in b.skipped]:
        out.append(f"skipped {[str(e) for e in a.skipped]} != {[str(e) for e in b.skipped]}")
    return out


def reason(err: InvarError) -> str:
    """An error's message without what names its place (quoted text, ``(at …)``)."""
    return re.sub(r"\(at .*\)", "", re.sub(r"'[^']*'", "'…'", err.message)).strip()


def census(zf: zipfile.ZipFile, names: list[str], progress=None) -> dict:
    counts: Counter = Counter()
    failures: Counter = Counter()
    skipped: Counter = Counter()
    examples: dict[str, list[str]] = {}
    differ: list[str] = []
    seconds = {"javalang": 0.0, "tree-sitter": 0.0}
    for i, rel in enumerate(names):
        text = zf.read(rel).decode("utf-8")
        (a, _), (b, eb), (units, err), tj, ts = read_both(text, rel)
        seconds["javalang"] += tj
        seconds["tree-sitter"] += ts
        counts["files"] += 1
        if units is None:
            if NO_METHOD in err.message:
                counts["files without a method"] += 1
            else:
                failures[reason(err)] += 1
                examples.setdefault(reason(err), []).append(str(err))
        else:
            via = "javalang" if a is not None else "tree-sitter"
            counts[f"files read by {via}"] += 1
            counts["methods"] += len(units)
            counts[f"methods read by {via}"] += len(units)
            for e in units.skipped:
                key = f"{getattr(e, 'reason', '')}: {reason(e)}"
                skipped[key] += 1
                examples.setdefault(key, []).append(str(e))
        if a is not None and b is not None:
            counts["files both paths read"] += 1
            counts["methods both paths read"] += len(a)
            differ += [f"{rel}: {d}" for d in differences(a, b)]
        elif a is not None:
            counts["files javalang reads and tree-sitter does not"] += 1
            differ.append(f"{rel}: tree-sitter fails: {eb}")
        if progress and i % 500 == 499:
            progress(f"{i + 1} files")
    return {
        "counts": dict(counts),
        "failures": failures,
        "skipped": skipped,
        "examples": examples,
        "differ": differ,
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    from .java_corpus import src_zip

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=int, default=1, help="read every n-th file (sorted by path)")
    ap.add_argument("--prefix", default="", help="only files whose path starts so (java.base/ …)")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10000)
    start = time.perf_counter()
    with zipfile.ZipFile(src_zip()) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".java") and n.startswith(args.prefix))[:: args.step]
        got = census(zf, names, progress=lambda s: print(s, file=sys.stderr, flush=True))
    for key, n in got["counts"].items():
        print(f"{key}: {n}")
    print(f"parse failures: {sum(got['failures'].values())}")
    for why, n in got["failures"].most_common():
        print(f"  {n} {why}: e.g. {got['examples'][why][0]}")
    print(f"methods skipped: {sum(got['skipped'].values())}")
    for why, n in got["skipped"].most_common():
        print(f"  {n} {why}: e.g. {got['examples'][why][0]}")
    print(f"methods or files on which the paths differ: {len(got['differ'])}")
    for d in got["differ"][:20]:
        print(f"  {d}")
    s = got["seconds"]
    print(
        f"seconds: javalang {s['javalang']:.0f}, tree-sitter {s['tree-sitter']:.0f}, "
        f"total {time.perf_counter() - start:.0f}"
    )
    return 1 if got["differ"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
