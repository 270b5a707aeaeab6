"""Benchmark: LTL dataset generation and exact trace checking.

For each setting (max size, APs) the script generates ``--num`` formulas with
satisfying traces in one process (the DeepLTL recipe: sizes spread evenly
from 1 to the max size) and reports formulas with traces per second per core,
the drops (unsatisfiable, over the limits), then re-checks every written pair
and reports checker throughput (pairs per second, one core) and the slowest
pair. The last column compares generation with the interchangeable-token
paper's reported 2 hours 21 minutes (§5.2.3) for 100,000 formulas of exact
length 50 with at most 10 APs on 56 threads (0.21 formulas per second per
thread).

    python bench/bench_ltl.py --settings 35:5 50:10 50:10:2 --num 300 [--report ltl-generate.json]

A setting may name its own per-formula timeout (``50:10:2``). Prints a
Markdown table; with ``--report`` every setting's counts, generation time
and per-pair check times are written as JSON with the machine and the load
average, and :func:`table` renders that report (docs/benchmarks/ltl.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import closed, finish, load_range, machine, opened  # noqa: E402

from invar.frontends.ltl.check import check  # noqa: E402
from invar.frontends.ltl.formula import parse_formula  # noqa: E402
from invar.frontends.ltl.generate import GeneratorConfig, generate_file, read_dataset  # noqa: E402
from invar.frontends.ltl.trace import parse_trace  # noqa: E402

#: the interchangeable-token paper (§5.2.3): 100,000 formulas of exact length 50 in 2 h 21 min on 56 threads
PAPER_PER_THREAD = 100_000 / (2 * 3600 + 21 * 60) / 56


def run(max_size: int, aps: int, num: int, seed: int, timeout: float) -> dict:
    config = GeneratorConfig(num=num, aps=aps, max_size=max_size, seed=seed, timeout=timeout)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ltl.txt"
        start = time.perf_counter()
        stats = generate_file(config, out, jobs=1)
        gen_s = time.perf_counter() - start
        pairs = [(parse_formula(f), parse_trace(t)) for f, t in read_dataset(out.read_text())]
    times = []
    for f, t in pairs:
        t0 = time.perf_counter()
        assert check(f, t).holds
        times.append(time.perf_counter() - t0)
    return {
        "size": max_size,
        "aps": aps,
        "timeout": timeout,
        "written": stats.written,
        "unsat": stats.unsatisfiable,
        "limits": stats.timeouts,
        "generate_seconds": gen_s,
        "check_seconds": times,
    }


def setting(text: str, timeout: float) -> tuple[int, int, float]:
    """``MAX_SIZE:APS`` or ``MAX_SIZE:APS:TIMEOUT`` as (size, APs, timeout)."""
    parts = text.split(":")
    return int(parts[0]), int(parts[1]), float(parts[2]) if len(parts) > 2 else timeout


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/ltl.md shows."""
    lines = [
        "| max size | APs | timeout | written | dropped unsat | dropped over limits | generated/s/core "
        "| vs the paper per thread | checked pairs/s | median check | slowest check |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        rate = r["written"] / r["generate_seconds"]
        checks = r["check_seconds"]
        lines.append(
            f"| {r['size']} | {r['aps']} | {r['timeout']:g} s | {r['written']} | {r['unsat']} | {r['limits']} "
            f"| {rate:,.1f} | {rate / PAPER_PER_THREAD:,.0f}× | {len(checks) / sum(checks):,.0f} "
            f"| {statistics.median(checks) * 1000:.1f} ms | {max(checks) * 1000:,.0f} ms |"
        )
    lines += ["", f"Load average (1 min) at the start and at the end: {load_range(report)}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", nargs="+", default=["35:5", "50:10"], help="MAX_SIZE:APS or MAX_SIZE:APS:TIMEOUT")
    parser.add_argument("--num", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per formula, where a setting names none")
    parser.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = parser.parse_args(argv)
    print(f"{machine()}, one core; {args.num} formulas per setting, seed {args.seed}", flush=True)
    started = time.time()
    report = {**opened(args, "ltl-generate", versions={}), "rows": []}
    for text in args.settings:
        size, aps, timeout = setting(text, args.timeout)
        report["rows"].append(run(size, aps, args.num, args.seed, timeout))
        print(f"  {text}: done", flush=True)
    return finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
