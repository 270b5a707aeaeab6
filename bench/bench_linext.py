"""Benchmark: exact counting and uniform sampling of linear extensions.

Programs are synthetic straight-line blocks of N lines over R registers: each
line reads two random registers and writes one, and dependencies are the
read/write conflicts (RAW, WAR, WAW), as a basic-block frontend would give.
For each size the script builds ``--programs`` blocks and reports the median
time of one exact count (a fresh space each time, so the down-set tables
are built), the largest table of a prime part and samples per second of exact ``sample``
(unranking); for blocks too wide to count within ``--max-states`` down-sets,
the time until the count is refused and samples per second of the
Bubley–Dyer chain (``--chain-samples`` draws).

    python bench/bench_linext.py --sizes 20 40 80 --programs 10 --samples 200

Prints a Markdown table. With ``--report`` the settings, the machine, the
load average and every block's measurements are written as JSON;
:func:`table` renders that report as the table of
docs/benchmarks/symmetry.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from common import closed, finish, load_row, machine

from invar.program import Line, Program
from invar.symmetry.permutations import DEFAULT_MAX_STATES, PermutationSpace
from invar.symmetry.posets import PRIME


def block(n: int, registers: int, rng: random.Random) -> Program:
    """A random block of ``n`` lines with read/write-conflict dependencies."""
    regs = [f"r{i}" for i in range(registers)]
    lines = []
    for _ in range(n):
        reads = frozenset(rng.sample(regs, 2))
        writes = frozenset([rng.choice(regs)])
        lines.append(Line(f"op {','.join(sorted(reads))} -> {next(iter(writes))}", reads=reads, writes=writes))
    deps = tuple(
        (i, j)
        for j in range(n)
        for i in range(j)
        if lines[i].writes & (lines[j].reads | lines[j].writes) or lines[j].writes & lines[i].reads
    )
    return Program("bench", tuple(lines), (), deps=deps, name=f"n{n}")


def measure(n: int, args: argparse.Namespace, rng: random.Random) -> list[dict]:
    """One record per block of ``n`` lines: its exact count's time, table, digits
    and sampling time, or the time until it was refused and the chain's."""
    out = []
    for _ in range(args.programs):
        program = block(n, args.registers, rng)
        t0 = time.perf_counter()
        space = PermutationSpace(program, max_states=args.max_states)
        if not space.tractable:
            refuse = time.perf_counter() - t0
            t0 = time.perf_counter()
            space.sample(args.chain_samples, rng)
            out.append({"refuse_seconds": refuse, "chain_seconds": time.perf_counter() - t0})
            continue
        count = space.count()
        seconds = time.perf_counter() - t0
        # the largest down-set table of a prime part (series and parallel parts need none)
        downsets = max(
            (len(node.prime.table()) for g in space.groups for node in g.poset.nodes() if node.kind == PRIME), default=1
        )
        t0 = time.perf_counter()
        space.sample(args.samples, rng)
        out.append(
            {
                "count_seconds": seconds,
                "downsets": downsets,
                "digits": len(str(count)),
                "sample_seconds": time.perf_counter() - t0,
            }
        )
    return out


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/symmetry.md shows."""
    args = report["args"]

    def med(xs: list[float], fmt: str) -> str:
        return fmt.format(statistics.median(xs)) if xs else "–"

    lines = [
        "| lines | counted exactly | median count time | max down-sets | median log10(count) "
        "| exact samples/s | too wide: time to refuse | chain samples/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        exact = [b for b in row["blocks"] if "count_seconds" in b]
        wide = [b for b in row["blocks"] if "refuse_seconds" in b]
        times = [1e3 * b["count_seconds"] for b in exact]
        logs = [b["digits"] - 1 for b in exact]
        rates = [args["samples"] / b["sample_seconds"] for b in exact]
        refuse = [b["refuse_seconds"] for b in wide]
        chain = [args["chain_samples"] / b["chain_seconds"] for b in wide]
        downsets = f"{max(b['downsets'] for b in exact):,}" if exact else "–"
        lines.append(
            f"| {row['lines']} | {len(exact)}/{len(row['blocks'])} | {med(times, '{:.1f} ms')} "
            f"| {downsets} | {med(logs, '{:.0f}')} | {med(rates, '{:,.0f}')} "
            f"| {med(refuse, '{:.2f} s')} | {med(chain, '{:.2f}')} |"
        )
    lines.append(load_row(report, 6))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 80])
    parser.add_argument("--programs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--registers", type=int, default=16)
    parser.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES)
    parser.add_argument("--chain-samples", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = parser.parse_args(argv)
    started = time.time()
    rng = random.Random(args.seed)
    report = {"bench": "linext", "machine": machine(), "args": vars(args), "load_average_before": os.getloadavg()}
    report["rows"] = [{"lines": n, "blocks": measure(n, args, rng)} for n in args.sizes]
    return finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
