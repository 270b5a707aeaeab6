"""The Java frontend on the JDK sources: both parser paths on every n-th
``.java`` file of the JDK's ``src.zip`` (tests/oracles/java_census.py).

    python bench/bench_java.py [--step 10] [--prefix java.base/] [--report java.json]

Each file goes through javalang, through tree-sitter-java and through the
default path (javalang, then tree-sitter for what javalang cannot read); the
census counts files and methods by outcome, parse failures and skipped
methods by reason, the methods on which the two paths differ, and each
parser's seconds. With ``--report`` all of it is written as JSON with the
machine, the JDK's release and the load average; :func:`table` renders that
report as the table of docs/benchmarks/frontends.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zipfile

from common import ROOT, finish, load_range, machine


def jdk_release(path) -> str:
    """The ``JAVA_VERSION`` of the JDK that holds ``path`` (its ``release`` file), or ``unknown``."""
    release = path.parents[1] / "release"
    try:
        for line in release.read_text().splitlines():
            if line.startswith("JAVA_VERSION="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return "unknown"


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/frontends.md shows."""
    c = report["counts"]
    s = report["seconds"]
    failures, skipped = sum(report["failures"].values()), sum(report["skipped"].values())
    rows = [
        ("files", f"{c.get('files', 0):,}"),
        (
            "files without a method with a body (interfaces, annotations, constants)",
            f"{c.get('files without a method', 0):,}",
        ),
        (
            "files javalang reads (methods)",
            f"{c.get('files read by javalang', 0):,} ({c.get('methods read by javalang', 0):,})",
        ),
        (
            "files only tree-sitter reads (methods)",
            f"{c.get('files read by tree-sitter', 0):,} ({c.get('methods read by tree-sitter', 0):,})",
        ),
        ("parse failures", f"{failures:,}"),
        ("methods skipped", f"{skipped:,}"),
        (
            "methods or files on which the two paths differ",
            f"{len(report['differ']):,} (of {c.get('methods both paths read', 0):,} methods both read)",
        ),
        (
            "seconds: javalang, tree-sitter, whole census",
            f"{s['javalang']:.0f}, {s['tree-sitter']:.0f}, {report['census_seconds']:.0f}",
        ),
        ("load average (1 min), start → end", load_range(report)),
    ]
    step = report["args"]["step"]
    which = "every file" if step == 1 else f"every {step}th file"
    lines = [f"| JDK {report['jdk']}, {which} | figure |", "|---|---|"]
    return "\n".join(lines + [f"| {what} | {figure} |" for what, figure in rows])


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=int, default=10, help="read every n-th file (sorted by path)")
    ap.add_argument("--prefix", default="", help="only files whose path starts so (java.base/ …)")
    ap.add_argument("--report", default=None, help="write the census to this JSON file")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.oracles.java_census import census
    from tests.oracles.java_corpus import src_zip

    sys.setrecursionlimit(10000)
    path = src_zip()
    report = {
        "bench": "java",
        "machine": machine(),
        "jdk": jdk_release(path),
        "args": vars(args),
        "load_average_before": os.getloadavg(),
    }
    start = time.perf_counter()
    with zipfile.ZipFile(path) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".java") and n.startswith(args.prefix))[:: args.step]
        got = census(zf, names, progress=lambda s: print(s, file=sys.stderr, flush=True))
    report["census_seconds"] = time.perf_counter() - start
    report["load_average_after"] = os.getloadavg()
    report.update({k: got[k] for k in ("counts", "failures", "skipped", "differ", "seconds")})
    report["examples"] = {k: v[:3] for k, v in got["examples"].items()}
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
