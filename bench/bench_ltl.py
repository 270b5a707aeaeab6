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

    python bench/bench_ltl.py --settings 35:5 50:10 --num 1000

Prints a Markdown table (the figures in docs/benchmarks/ltl.md).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from invar.frontends.ltl.check import check
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.generate import GeneratorConfig, generate_file, read_dataset
from invar.frontends.ltl.trace import parse_trace

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
    start = time.perf_counter()
    for f, t in pairs:
        t0 = time.perf_counter()
        assert check(f, t).holds
        times.append(time.perf_counter() - t0)
    check_s = time.perf_counter() - start
    gen_rate = stats.written / gen_s
    return {
        "size": max_size,
        "aps": aps,
        "written": stats.written,
        "unsat": stats.unsatisfiable,
        "limits": stats.timeouts,
        "gen_rate": gen_rate,
        "check_rate": len(pairs) / check_s,
        "slowest": max(times),
        "ratio": gen_rate / PAPER_PER_THREAD,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", nargs="+", default=["35:5", "50:10"], help="MAX_SIZE:APS pairs")
    parser.add_argument("--num", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, one core; {args.num} formulas per setting, seed {args.seed}\n")
    print(
        "| max size | APs | written | dropped unsat | dropped over limits | generated/s/core | vs the paper per "
        "thread | checked pairs/s | slowest check |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for setting in args.settings:
        size, aps = (int(x) for x in setting.split(":"))
        r = run(size, aps, args.num, args.seed, args.timeout)
        print(
            f"| {r['size']} | {r['aps']} | {r['written']} | {r['unsat']} | {r['limits']} | {r['gen_rate']:.1f} | "
            f"{r['ratio']:.0f}x | {r['check_rate']:.0f} | {r['slowest'] * 1000:.0f} ms |",
            flush=True,
        )


if __name__ == "__main__":
    main()
