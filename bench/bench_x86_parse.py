"""Parse throughput over every shared BHive block, against bare capstone decoding.

    python bench/bench_x86_parse.py [--repeat 3] [--report x86-parse.json]

Runs the two side by side, alternating, and reports medians. Every block
must parse: a failure aborts the benchmark. The instruction cache is cleared
before each invar run. With ``--report`` the settings, the machine, the load
average and every run's seconds are written as JSON; :func:`table` renders
that report as the table of docs/benchmarks/frontends.md.
"""

from __future__ import annotations

import argparse
import importlib
import time

import capstone
from common import bhive_blocks, closed, finish, load_row, median, opened, repeat

from invar.frontends.x86.hexblock import decode

parse_module = importlib.import_module("invar.frontends.x86.parse")


def measure(blocks: list[str], times: int) -> dict:
    """Seconds of ``times`` alternating runs of capstone alone and of invar's parse."""
    raw = [bytes.fromhex(h) for h in blocks]
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT

    def bare() -> None:
        for code in raw:
            for _ in md.disasm_lite(code, 0):
                pass

    tokens = 0

    def ours() -> None:
        nonlocal tokens
        parse_module._instruction_cached.cache_clear()  # cold: no help from earlier runs
        tokens = sum(len(decode(h).tokens) for h in blocks)

    capstone_s, invar_s = [], []
    for _ in range(times):
        capstone_s += repeat(bare, 1)
        invar_s += repeat(ours, 1)
    return {"blocks": len(blocks), "tokens": tokens, "capstone_seconds": capstone_s, "invar_seconds": invar_s}


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/frontends.md shows."""
    n = report["blocks"]
    mb, mo = median(report["capstone_seconds"]), median(report["invar_seconds"])
    return "\n".join(
        [
            f"| {n:,} blocks ({report['tokens']:,} tokens), {len(report['invar_seconds'])} runs each "
            "| median time | blocks/s |",
            "|---|---|---|",
            f"| capstone decode only | {mb:.2f} s | {n / mb:,.0f} |",
            f"| invar parse (decode + IR + semantics + dependencies) | {mo:.2f} s | {n / mo:,.0f} |",
            f"| ratio (invar / capstone) | {mo / mb:.1f}× | |",
            load_row(report, 1),
        ]
    )


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    started = time.time()
    report = opened(args, "x86-parse", versions={"capstone": capstone.__version__})
    report.update(measure(bhive_blocks(), args.repeat))
    return finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
