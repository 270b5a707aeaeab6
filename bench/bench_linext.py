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

Prints a Markdown table (the figures in docs/benchmarks/symmetry.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 80])
    parser.add_argument("--programs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--registers", type=int, default=16)
    parser.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES)
    parser.add_argument("--chain-samples", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(
        "| lines | counted exactly | median count time | max down-sets | median log10(count) "
        "| exact samples/s | too wide: time to refuse | chain samples/s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        times, tables, logs, rates, exact = [], [], [], [], 0
        refuse, chain = [], []
        for _ in range(args.programs):
            program = block(n, args.registers, rng)
            t0 = time.perf_counter()
            space = PermutationSpace(program, max_states=args.max_states)
            if not space.tractable:
                refuse.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                space.sample(args.chain_samples, rng)
                chain.append(args.chain_samples / (time.perf_counter() - t0))
                continue
            count = space.count()
            times.append(time.perf_counter() - t0)
            exact += 1
            # the largest down-set table of a prime part (series and parallel parts need none)
            tables.append(
                max(
                    (len(node.prime.table()) for g in space.groups for node in g.poset.nodes() if node.kind == PRIME),
                    default=1,
                )
            )
            logs.append(len(str(count)) - 1)
            t0 = time.perf_counter()
            space.sample(args.samples, rng)
            rates.append(args.samples / (time.perf_counter() - t0))

        def med(xs: list[float], fmt: str) -> str:
            return fmt.format(statistics.median(xs)) if xs else "–"

        print(
            f"| {n} | {exact}/{args.programs} | {med([1e3 * t for t in times], '{:.1f} ms')} "
            f"| {max(tables) if tables else '–'} | {med(logs, '{:.0f}')} | {med(rates, '{:,.0f}')} "
            f"| {med(refuse, '{:.2f} s')} | {med(chain, '{:.2f}')} |"
        )


if __name__ == "__main__":
    main()
