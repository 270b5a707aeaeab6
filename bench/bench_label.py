"""Labelling throughput: many blocks per llvm-mca process (code regions)
against one llvm-mca process per block, on the same real BHive blocks.

    python bench/bench_label.py [--blocks 2000] [--single 300] [--repeat 3]

Both paths time the IR's text of each block with
``llvm-mca -mcpu=haswell -iterations=100`` in one process on one core (the
parse into the IR is excluded from both); the batched path is what
``invar data bhive`` runs per chunk (it then runs chunks in parallel). The
per-block path labels a prefix of the same blocks (it is slow); both report
blocks per second, alternating, medians.
"""

from __future__ import annotations

import argparse
import random
import subprocess

from common import bhive_blocks, machine, median, repeat

from invar.data.bhive import label_texts, llvm_mca_version
from invar.frontends.x86.hexblock import decode


def one_by_one(texts: list[str]) -> list[int]:
    out = []
    for text in texts:
        run = subprocess.run(
            [
                "llvm-mca",
                "-mcpu=haswell",
                "-iterations=100",
                "--instruction-info=false",
                "--resource-pressure=false",
                "-",
            ],
            input=text + "\n",
            capture_output=True,
            text=True,
        )
        out.append(int(run.stdout.split("Total Cycles:")[1].split()[0]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=2000)
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    hexes = random.Random(0).sample(bhive_blocks(), args.blocks)
    texts = [decode(h).render() for h in hexes]
    batched_cycles = [c for c, _ in label_texts(texts[: args.single])]
    assert batched_cycles == one_by_one(texts[: args.single]), "batched and per-block labels differ"
    t_batched, t_single = [], []
    for _ in range(args.repeat):
        t_batched += repeat(lambda: label_texts(texts), 1)
        t_single += repeat(lambda: one_by_one(texts[: args.single]), 1)
    rb, rs = args.blocks / median(t_batched), args.single / median(t_single)
    print(f"machine: {machine()}; llvm-mca {llvm_mca_version()}")
    print(f"batched (one process, {args.blocks} blocks as code regions): {rb:,.0f} blocks/s")
    print(f"one process per block ({args.single} blocks):               {rs:,.0f} blocks/s")
    print(f"speed-up: {rb / rs:.1f}x (labels identical on the {args.single} blocks both paths timed)")


if __name__ == "__main__":
    main()
