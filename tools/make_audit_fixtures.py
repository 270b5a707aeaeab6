"""Rebuild the embedded audit defaults: fixtures/blocks (basic blocks of our
own, labelled by llvm-mca) and fixtures/models (tiny renamer and vanilla
checkpoints trained on them by ``invar train``).

    python tools/make_audit_fixtures.py            # blocks, labels and both models
    python tools/make_audit_fixtures.py --blocks   # blocks and labels only

Needs llvm-mc and llvm-mca (the audit itself needs neither: the labels are
stored). The blocks are random x86-64 basic blocks drawn from a fixed table
of instruction forms (integer ALU, multiplies and divides, loads, stores and
read-modify-writes, SSE and AVX arithmetic), with dependency chains made by
reusing recently written registers; none is copied from BHive. A seed fixes
everything: the same LLVM and torch give the same files.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = ROOT / "fixtures" / "blocks"
MODELS = ROOT / "fixtures" / "models"

GPR = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
GPR32 = {
    "rax": "eax",
    "rbx": "ebx",
    "rcx": "ecx",
    "rdx": "edx",
    "rsi": "esi",
    "rdi": "edi",
    "rbp": "ebp",
    **{f"r{i}": f"r{i}d" for i in range(8, 16)},
}
XMM = [f"xmm{i}" for i in range(16)]

# (form, weight): {r}/{s} 64-bit registers (written / read), {e}/{f} their 32-bit
# names, {x}/{y} xmm, {Y}/{Z} ymm, {m} a memory operand, {i} an immediate, {k} a shift
FORMS = [
    ("addq %{s}, %{r}", 6),
    ("subq %{s}, %{r}", 4),
    ("andq %{s}, %{r}", 3),
    ("orq %{s}, %{r}", 3),
    ("xorq %{s}, %{r}", 3),
    ("addl %{f}, %{e}", 3),
    ("imulq %{s}, %{r}", 4),
    ("imull %{f}, %{e}", 2),
    ("leaq {d}(%{s},%{t},{c}), %{r}", 4),
    ("leaq {d}(%{s}), %{r}", 3),
    ("shlq ${k}, %{r}", 3),
    ("sarq ${k}, %{r}", 2),
    ("shrl ${k}, %{e}", 2),
    ("incq %{r}", 2),
    ("decl %{e}", 2),
    ("negq %{r}", 1),
    ("notq %{r}", 1),
    ("movq %{s}, %{r}", 5),
    ("movl %{f}, %{e}", 3),
    ("cmpq %{s}, %{r}", 3),
    ("testl %{f}, %{e}", 2),
    ("cmovgeq %{s}, %{r}", 2),
    ("popcntq %{s}, %{r}", 1),
    ("bswapq %{r}", 1),
    ("addq ${i}, %{r}", 4),
    ("movq ${i}, %{r}", 2),
    ("xorl %{e}, %{e}", 1),
    ("adcq %{s}, %{r}", 1),
    ("movq {m}, %{r}", 8),
    ("movl {m}, %{e}", 3),
    ("movq %{s}, {m}", 6),
    ("addq {m}, %{r}", 3),
    ("addq %{s}, {m}", 2),
    ("cmpq ${i}, {m}", 1),
    ("imulq {m}, %{r}", 1),
    ("divq %{s}", 1),
    ("idivl %{f}", 1),
    ("addps %{y}, %{x}", 3),
    ("mulps %{y}, %{x}", 3),
    ("divps %{y}, %{x}", 1),
    ("sqrtps %{y}, %{x}", 1),
    ("addsd %{y}, %{x}", 2),
    ("mulsd %{y}, %{x}", 2),
    ("divsd %{y}, %{x}", 1),
    ("movaps %{y}, %{x}", 2),
    ("movups {m}, %{x}", 3),
    ("movaps %{y}, {m}", 2),
    ("pxor %{y}, %{x}", 1),
    ("paddd %{y}, %{x}", 2),
    ("pmulld %{y}, %{x}", 1),
    ("cvtsi2sdq %{s}, %{x}", 1),
    ("vaddps %{Y}, %{Z}, %{X}", 2),
    ("vmulps %{Y}, %{Z}, %{X}", 2),
    ("vfmadd231ps %{Y}, %{Z}, %{X}", 2),
    ("vmovups {m}, %{X}", 1),
]


def block(rng: random.Random) -> list[str]:
    """One random block of 2 to 10 instructions over a few registers."""
    gprs = rng.sample(GPR, rng.randint(2, 6))
    xmms = rng.sample(XMM, rng.randint(2, 4))
    written: list[str] = []
    xwritten: list[str] = []
    forms, weights = zip(*FORMS)
    out = []
    for _ in range(rng.randint(2, 10)):
        form = rng.choices(forms, weights)[0]

        def src() -> str:
            return rng.choice(written) if written and rng.random() < 0.6 else rng.choice(gprs)

        def xsrc() -> str:
            return rng.choice(xwritten) if xwritten and rng.random() < 0.6 else rng.choice(xmms)

        r, s, t = rng.choice(gprs), src(), src()
        x, y = rng.choice(xmms), xsrc()
        mem_base = "rsp" if rng.random() < 0.25 else src()
        mem = (
            f"{rng.choice([0, 8, 16, 24, 32, 64, -8])}(%{mem_base})"
            if rng.random() < 0.7
            else f"(%{mem_base},%{src()},{rng.choice([1, 2, 4, 8])})"
        )
        text = form.format(
            r=r,
            s=s,
            t=t,
            e=GPR32[r],
            f=GPR32[s],
            x=x,
            y=y,
            X=x.replace("x", "y", 1),
            Y=y.replace("x", "y", 1),
            Z=xsrc().replace("x", "y", 1),
            m=mem,
            i=rng.choice([1, 2, 3, 7, 8, 16, 255, 4096]),
            k=rng.randint(1, 7),
            d=rng.choice([0, 4, 8, 16, -16]),
            c=rng.choice([1, 2, 4, 8]),
        )
        out.append(text)
        if "{r}" in form or "{e}" in form:
            written.append(r)
        if "{x}" in form or "{X}" in form:
            xwritten.append(x)
    return out


def assemble(blocks: list[list[str]]) -> list[str]:
    """Each block's machine code as hex, through one llvm-mc process."""
    text = "\n".join(line for b in blocks for line in b) + "\n"
    run = subprocess.run(
        ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "-show-encoding"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    codes = [
        bytes(int(b, 16) for b in m.group(1).split(",")).hex()
        for m in re.finditer(r"# encoding: \[([^\]]*)\]", run.stdout)
    ]
    if len(codes) != sum(len(b) for b in blocks):
        raise SystemExit("llvm-mc gave another number of instructions than it was given")
    out, k = [], 0
    for b in blocks:
        out.append("".join(codes[k : k + len(b)]))
        k += len(b)
    return out


def make_blocks(n: int, seed: int) -> None:
    from invar.data.bhive import build

    rng = random.Random(seed)
    blocks = [block(rng) for _ in range(n)]
    hexes = list(dict.fromkeys(assemble(blocks)))
    if BLOCKS.exists():
        shutil.rmtree(BLOCKS)
    BLOCKS.mkdir(parents=True)
    with open(BLOCKS / "source.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([h] for h in hexes)
    # relative paths, so meta.json names no place outside the repository
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        summary = build(["fixtures/blocks/source.csv"], "fixtures/blocks", jobs=1)
    finally:
        os.chdir(cwd)
    print(f"{summary.blocks} blocks: {summary.labelled} labelled {summary.splits}, rejected {summary.rejected}")


def make_models(epochs: int, seed: int) -> None:
    from invar.train import train

    MODELS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "blocks"
        shutil.copytree(BLOCKS, data)  # training caches its encodings beside the data: keep them out of fixtures/
        for arch in ("renamer", "vanilla"):
            out = Path(tmp) / f"{arch}.pt"
            result = train(
                data=data,
                arch=arch,
                size="tiny",
                epochs=epochs,
                out=out,
                batch_size=32,
                seed=seed,
                threads=1,
                progress=None,
            )
            timeless(out, MODELS / f"{arch}.pt")
            print(f"{arch}: best validation MAPE {result.best_metric:.1f}% at epoch {result.best_epoch} of {epochs}")


def timeless(source: Path, target: Path) -> None:
    """Copy a checkpoint without the seconds each epoch took (the one thing a
    rebuild does not reproduce: the weights are the same bit for bit)."""
    from invar import checkpoint

    data = checkpoint.load(source)
    for epoch in data.get("metrics", {}).get("history", []):
        epoch["seconds"] = None
    checkpoint.save(target, {k: v for k, v in data.items() if k not in ("format", "version")})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", action="store_true", help="only the blocks and their labels")
    ap.add_argument("--models", action="store_true", help="only the models (on the blocks there)")
    ap.add_argument("--n", type=int, default=2500, help="blocks to draw")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if not args.models:
        make_blocks(args.n, args.seed)
    if not args.blocks:
        make_models(args.epochs, args.seed)


if __name__ == "__main__":
    main()
