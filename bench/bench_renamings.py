"""Draw and render 100,000 uniformly sampled renamings of the Renamer paper's
Figure 1(a) block (its Appendix B experiment), against a naive loop.

    python bench/bench_renamings.py [--n 100000] [--repeat 5] [--report PATH]

The naive loop is what one writes by hand: pick three distinct 64-bit register
names and ``str.replace`` the 64- and 32-bit spellings. It is not exact (it
knows nothing of views, pins or encodability, and replaces substrings), but it
is the speed to beat. With ``--report`` the settings, the machine, the load
average and every run's seconds are written as JSON; :func:`table` renders
that report as the table of docs/benchmarks/symmetry.md.
"""

from __future__ import annotations

import argparse
import random
import time

from common import ROOT, closed, finish, load_row, median, opened, repeat

from invar.frontends.x86 import parse, renaming_space

REGS64 = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"] + [f"r{i}" for i in range(8, 16)]
REGS32 = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"] + [f"r{i}d" for i in range(8, 16)]


def measure(n: int, times: int) -> dict:
    """Seconds of ``times`` alternating runs of ``n`` draws and renders by invar and by the naive loop."""
    text = (ROOT / "fixtures" / "x86" / "figure1a.s").read_text()
    program = parse(text)
    space = renaming_space(program)
    used = [REGS64.index(r) for r in ("rsp", "rax", "rbp")]

    def ours() -> None:
        rng = random.Random(0)
        for r in space.sample(n, rng):
            space.render(r)

    def naive() -> None:
        rng = random.Random(0)
        for _ in range(n):
            targets = rng.sample(range(16), 3)
            out = text
            for src, dst in zip(used, targets):
                out = out.replace("%" + REGS64[src], "%" + REGS64[dst]).replace("%" + REGS32[src], "%" + REGS32[dst])

    t_ours, t_naive = [], []
    for _ in range(times):
        t_ours += repeat(ours, 1)
        t_naive += repeat(naive, 1)
    return {"space": space.count(), "invar_seconds": t_ours, "naive_seconds": t_naive}


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/symmetry.md shows."""
    n, runs = report["args"]["n"], len(report["invar_seconds"])
    mo, mn = median(report["invar_seconds"]), median(report["naive_seconds"])
    return "\n".join(
        [
            f"| {report['space']:,} renamings, {n:,} draws, {runs} runs each | median time | renamings/s |",
            "|---|---|---|",
            f"| invar: exact uniform sample + render | {mo:.3f} s | {n / mo:,.0f} |",
            f"| naive `random.sample` + `str.replace` | {mn:.3f} s | {n / mn:,.0f} |",
            f"| ratio (invar / naive) | {mo / mn:.2f}× | |",
            load_row(report, 1),
        ]
    )


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    started = time.time()
    report = opened(args, "renamings", versions={})
    report.update(measure(args.n, args.repeat))
    closed(report, started)
    print(f"machine: {report['machine']}")
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
