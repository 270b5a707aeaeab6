"""Exact counting and sampling of line orders on every BHive block.

For each distinct block of ../shared/data/bhive: decode and parse it, build
its permutation space, and count its orders exactly when the space is
tractable (bounds otherwise); on a seeded sample of the blocks, also draw one
order. Reports the share of blocks counted exactly, the median and total time
per block, and the sampling times. With ``--before REV`` the package as it
was at git revision ``REV`` runs the same blocks in a process of its own,
beside the working tree's.

    python bench/bench_linext_bhive.py [--limit N] [--sample-share 0.02] [--before REV] [--report PATH]

With ``--report`` the settings, the machine, the load average and every
block's seconds (and every draw's) are written as JSON; :func:`table`
renders that report as the table of docs/benchmarks/symmetry.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, bhive_blocks, checkout, closed, finish, load_row, machine

SAMPLE_LIMIT = 30  # seconds one draw may take before it is reported as over the limit


def worker(limit: int | None, share: float) -> dict:
    """Run in a process whose ``invar`` is the version under test."""
    from invar.errors import InvarError
    from invar.frontends.x86.hexblock import decode
    from invar.symmetry.permutations import PermutationSpace

    blocks = bhive_blocks()
    rng = random.Random(20241121)
    if limit:
        blocks = rng.sample(blocks, limit)
    chosen = set(rng.sample(range(len(blocks)), int(share * len(blocks))))
    per_block, exact, failed, sample_times, sample_over = [], 0, 0, [], 0

    def alarm(signum, frame):
        raise TimeoutError

    signal.signal(signal.SIGALRM, alarm)
    for k, hexcode in enumerate(blocks):
        t = time.perf_counter()
        try:
            program = decode(hexcode)
        except InvarError:
            failed += 1
            continue
        space = PermutationSpace(program)
        if space.tractable:
            space.count()
            exact += 1
        else:
            space.bounds()
        per_block.append(time.perf_counter() - t)
        if k in chosen:
            t = time.perf_counter()
            signal.alarm(SAMPLE_LIMIT)
            try:
                space.sample(1, rng=k)
                sample_times.append(time.perf_counter() - t)
            except TimeoutError:
                sample_over += 1
            finally:
                signal.alarm(0)
    return {
        "unparsed": failed,
        "exact": exact,
        "block_seconds": [round(t, 7) for t in per_block],
        "sample_seconds": [round(t, 7) for t in sample_times],
        "sample_over": sample_over,
    }


ROWS = [
    ("blocks (not parsed)", lambda r: f"{len(r['block_seconds']):,} ({r['unparsed']})"),
    ("counted exactly", lambda r: f"{r['exact']:,} ({100 * r['exact'] / len(r['block_seconds']):.2f} %)"),
    ("median time per block (parse + count)", lambda r: f"{1e3 * statistics.median(r['block_seconds']):.2f} ms"),
    ("total time", lambda r: f"{sum(r['block_seconds']):.0f} s"),
    ("slowest block", lambda r: f"{max(r['block_seconds']):.2f} s"),
    ("blocks that drew one order", lambda r: f"{len(r['sample_seconds']) + r['sample_over']}"),
    (
        "median time of one draw",
        lambda r: f"{1e3 * statistics.median(r['sample_seconds']):.2f} ms" if r["sample_seconds"] else "–",
    ),
    ("slowest draw", lambda r: f"{1e3 * max(r['sample_seconds']):.2f} ms" if r["sample_seconds"] else "–"),
    (f"draws over {SAMPLE_LIMIT} s", lambda r: f"{r['sample_over']}"),
]


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/symmetry.md shows."""
    results = report["results"]
    one = len(results) == 1
    lines = ["| measure | " + ("figure" if one else " | ".join(results)) + " |", "|---|" + "---|" * len(results)]
    for label, show in ROWS:
        lines.append(f"| {label} | " + " | ".join(show(r) for r in results.values()) + " |")
    lines.append(load_row(report, len(results) - 1))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict | None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="a seeded sample of N blocks instead of all")
    ap.add_argument("--sample-share", type=float, default=0.02, help="share of blocks that also draw one order")
    ap.add_argument("--before", default=None, help="also run the package at this git revision")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.limit, args.sample_share)))
        return None
    started = time.time()
    versions = {"after": ROOT}
    if args.before:
        versions = {"before": checkout(args.before, Path(tempfile.mkdtemp())), **versions}
    report = {"bench": "linext-bhive", "machine": machine(), "args": vars(args), "load_average_before": os.getloadavg()}
    results = report["results"] = {}
    for name, path in versions.items():
        env = dict(os.environ, PYTHONPATH=f"{path}{os.pathsep}{Path(__file__).parent}")
        cmd = [sys.executable, __file__, "--worker", "--sample-share", str(args.sample_share)]
        if args.limit:
            cmd += ["--limit", str(args.limit)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
    closed(report, started)
    print(report["machine"] + (f"; before = {args.before}" if args.before else ""))
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
