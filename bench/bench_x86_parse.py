"""Parse throughput over every shared BHive block, against bare capstone decoding.

    python bench/bench_x86_parse.py [--repeat 3]

Runs the two side by side, alternating, and reports medians. Every block
must parse: a failure aborts the benchmark.
"""

from __future__ import annotations

import argparse

import importlib

import capstone
from common import bhive_blocks, machine, median, repeat

from invar.frontends.x86.hexblock import decode

parse_module = importlib.import_module("invar.frontends.x86.parse")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    blocks = bhive_blocks()
    raw = [bytes.fromhex(h) for h in blocks]
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT

    def bare() -> None:
        for code in raw:
            for _ in md.disasm_lite(code, 0):
                pass

    def ours() -> None:
        parse_module._instruction_cached.cache_clear()  # cold: no help from earlier runs
        for h in blocks:
            decode(h)

    t_bare, t_ours = [], []
    for _ in range(args.repeat):
        t_bare += repeat(bare, 1)
        t_ours += repeat(ours, 1)
    mb, mo = median(t_bare), median(t_ours)
    n = len(blocks)
    print(f"machine: {machine()}")
    print(f"blocks: {n} (all parsed, none failed)")
    print(f"capstone decode only: median {mb:.2f} s  -> {n / mb:,.0f} blocks/s")
    print(f"invar parse (decode + IR + semantics + dependencies): median {mo:.2f} s  -> {n / mo:,.0f} blocks/s")
    print(f"ratio invar / capstone time: {mo / mb:.1f}x")


if __name__ == "__main__":
    main()
