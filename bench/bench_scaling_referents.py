"""Scaling in the number of referents: one Python function with 1,000,
10,000 and 100,000 locals.

Each local is written once and read by the function's return
(``v0 = 0`` … ``return [v0, v1, …]``), so all of them are interchangeable:
the renamings number n! (every local may take every other's name) and so do
the line orders (the writes are independent; the return comes last). With
``--shape zipper`` each local is printed instead, in order, so print i
needs write i and print i-1: (2n-1)!! orders, whose decomposition sheds one
line per level (``permutations --count`` only).
``renamings --count``, ``renamings --sample 10`` and ``permutations --count``
run in a fresh process each, and their wall time and peak resident memory
are recorded (the median of ``--repeat`` runs, or one run where it takes
longer than ``--once-over`` seconds). With ``--before REV`` the
package as it was at git revision ``REV`` runs the same commands on the same
files, side by side, under an address-space cap (``--cap-gb``) and a time
limit (``--limit``): a run that hits either is reported as such.

    python bench/bench_scaling_referents.py [--shape locals|zipper] [--sizes 1000 10000 100000] [--before REV]
        [--repeat 3] [--once-over 30] [--limit 300] [--cap-gb 8] [--report PATH]

With ``--report`` the settings, the machine, the load average and every
run's outcome, seconds and peak memory are written as JSON; :func:`table`
renders that report as the table of docs/benchmarks/symmetry.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, checkout, closed, finish, load_row, machine, wait_until

COMMANDS = {
    "renamings --count": ["renamings", "--count"],
    "renamings --sample 10": ["renamings", "--sample", "10", "--format", "jsonl"],
    "permutations --count": ["permutations", "--count"],
}


def source(n: int, into: Path, shape: str = "locals") -> Path:
    text = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n))
    if shape == "locals":
        text += "    return [" + ", ".join(f"v{i}" for i in range(n)) + "]\n"
    else:  # zipper: each local printed, in order
        text += "".join(f"    print(v{i})\n" for i in range(n))
    out = into / f"{shape}{n}.py"
    out.write_text(text)
    return out


def run(args: list[str], pythonpath: Path, limit: float, cap_bytes: int) -> tuple[str, float, int]:
    """(outcome, wall seconds, peak resident KB) of one CLI run in a fresh
    process: outcome is "ok", "memory" (it hit the cap) or "time"."""
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    code = "import sys; from invar.cli.app import main; sys.argv = ['invar', *sys.argv[1:]]; main()"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    start = time.perf_counter()
    # run outside the checkout: `python -c` puts its working directory first on
    # the path, which would shadow PYTHONPATH with the working tree
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=pythonpath.parent,
        preexec_fn=cap,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    finished, status, usage = wait_until(proc, start + limit, poll=0.02)
    if not finished:
        return "time", time.perf_counter() - start, usage.ru_maxrss
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        if "MemoryError" in err or "memory" in err.lower() or code in (-9, 137):
            return "memory", seconds, usage.ru_maxrss
        raise SystemExit(f"invar {' '.join(args)} failed ({code}): {err[-500:]}")
    return "ok", seconds, usage.ru_maxrss


def measure(args: argparse.Namespace, versions: dict[str, Path], files: dict[int, Path]) -> list[dict]:
    """Every cell's runs: ``[outcome, seconds, peak KB]`` per run and version."""
    cap = int(args.cap_gb * 2**30)
    commands = COMMANDS if args.shape == "locals" else {"permutations --count": COMMANDS["permutations --count"]}
    rows = []
    for name, cmd in commands.items():
        for n, path in files.items():
            row: dict = {"command": name, "size": n, "runs": {}}
            for version, pythonpath in versions.items():
                runs = row["runs"][version] = []
                for _ in range(args.repeat):
                    outcome, seconds, kb = run([*cmd, str(path)], pythonpath, args.limit, cap)
                    runs.append([outcome, seconds, kb])
                    if outcome != "ok" or seconds > args.once_over:
                        break  # a run that hits the cap or the limit, or a long one, is not repeated
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def _cell(runs: list[list], cap_gb: float) -> tuple[str, tuple[float, float] | None]:
    """A version's cell (time | memory) and its medians, None when a run failed."""
    failed = next((r for r in runs if r[0] != "ok"), None)
    if failed is not None:
        outcome, seconds, kb = failed
        what = f"out of memory at the {cap_gb:g} GB cap" if outcome == "memory" else "over the limit"
        return f"{what} after {seconds:.0f} s | {kb / 2**20:.1f} GB resident", None
    t = statistics.median(r[1] for r in runs)
    m = statistics.median(r[2] for r in runs)
    return f"{t:.2f} s | {m / 1024:,.0f} MB", (t, m)


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/symmetry.md shows."""
    versions, args = report["versions"], report["args"]
    size = "pairs" if args["shape"] == "zipper" else "locals"
    two = len(versions) == 2
    head = ["time", "peak memory"] if not two else [f"{v} {w}" for v in versions for w in ("time", "peak memory")]
    head += ["time ratio", "memory ratio"] if two else []
    lines = [f"| command | {size} | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    for row in report["rows"]:
        cells, medians = [], []
        for version in versions:
            cell, med = _cell(row["runs"][version], args["cap_gb"])
            cells.append(cell)
            medians.append(med)
        if two:
            if None in medians:
                cells.append("– | –")
            else:
                (t0, m0), (t1, m1) = medians
                cells.append(f"×{t0 / t1:.1f} | ×{m0 / m1:.1f}")
        lines.append(f"| {row['command']} | {row['size']:,} | " + " | ".join(cells) + " |")
    lines.append(load_row(report, len(head)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument(
        "--shape",
        choices=("locals", "zipper"),
        default="locals",
        help="locals read by the return, or each printed in order (permutations only)",
    )
    ap.add_argument("--before", default=None, help="also run the package at this git revision")
    ap.add_argument("--repeat", type=int, default=3, help="runs per cell (the median is shown)")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds one run may take")
    ap.add_argument("--once-over", type=float, default=30.0, help="a run longer than this is not repeated")
    ap.add_argument("--cap-gb", type=float, default=8.0, help="address space one run may take")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    started = time.time()
    tmp = Path(tempfile.mkdtemp())
    versions: dict[str, Path] = {"after": ROOT}
    if args.before:
        versions = {"before": checkout(args.before, tmp / "before"), **versions}
    files = {n: source(n, tmp, args.shape) for n in args.sizes}
    report = {
        "bench": f"scaling-referents-{args.shape}",
        "machine": machine(),
        "args": vars(args),
        "versions": list(versions),
        "load_average_before": os.getloadavg(),
    }
    report["rows"] = measure(args, versions, files)
    closed(report, started)
    print(
        f"{report['machine']}; {args.shape}; median of {args.repeat} runs (one past {args.once_over:g} s); cap "
        f"{args.cap_gb:g} GB, limit {args.limit:g} s" + (f"; before = {args.before}" if args.before else "")
    )
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
