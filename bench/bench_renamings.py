"""Draw and render 100,000 uniformly sampled renamings of the Renamer paper's
Figure 1(a) block (its Appendix B experiment), against a naive loop.

    python bench/bench_renamings.py [--n 100000] [--repeat 5]

The naive loop is what one writes by hand: pick three distinct 64-bit register
names and ``str.replace`` the 64- and 32-bit spellings. It is not exact (it
knows nothing of views, pins or encodability, and replaces substrings), but it
is the speed to beat.
"""

from __future__ import annotations

import argparse
import random

from common import ROOT, machine, median, repeat

from invar.frontends.x86 import parse, renaming_space

REGS64 = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"] + [f"r{i}" for i in range(8, 16)]
REGS32 = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"] + [f"r{i}d" for i in range(8, 16)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    text = (ROOT / "fixtures" / "x86" / "figure1a.s").read_text()
    program = parse(text)
    space = renaming_space(program)
    used = [REGS64.index(r) for r in ("rsp", "rax", "rbp")]

    def ours() -> None:
        rng = random.Random(0)
        for r in space.sample(args.n, rng):
            space.render(r)

    def naive() -> None:
        rng = random.Random(0)
        for _ in range(args.n):
            targets = rng.sample(range(16), 3)
            out = text
            for src, dst in zip(used, targets):
                out = out.replace("%" + REGS64[src], "%" + REGS64[dst]).replace("%" + REGS32[src], "%" + REGS32[dst])

    t_ours, t_naive = [], []
    for _ in range(args.repeat):
        t_ours += repeat(ours, 1)
        t_naive += repeat(naive, 1)
    mo, mn = median(t_ours), median(t_naive)
    print(f"machine: {machine()}")
    print(f"space: {space.count()} renamings; {args.n} samples, {args.repeat} runs each, alternating")
    print(f"invar exact uniform sample + render: median {mo:.3f} s ({args.n / mo:,.0f} renamings/s)")
    print(f"naive random.sample + str.replace:   median {mn:.3f} s ({args.n / mn:,.0f} renamings/s)")
    print(f"ratio invar / naive time: {mo / mn:.2f}x")


if __name__ == "__main__":
    main()
