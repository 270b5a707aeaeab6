"""Rebuild ``fixtures/x86/gcc-blocks.s``: the basic blocks gcc writes for the
C sources in ``fixtures/x86/gcc/`` (written for invar, not copied from
anywhere), for the x86 oracles (tests/oracles/test_x86_compiled.py).

    python tools/make_x86_corpus.py            # gcc on PATH
    python tools/make_x86_corpus.py --cc gcc-12

Every source is compiled to assembly (``gcc -S``) under every configuration
of :data:`CONFIGURATIONS`: the optimisation levels -O1, -O2, -O3 and -Os,
position-independent (Debian's default, ``-fpie``) and not (``-fno-pie``:
absolute ``sym(,%rcx,8)`` and ``-16+sym(%rbx)`` addresses), for the baseline
x86-64, haswell (AVX2, FMA, BMI) and skylake-avx512 (EVEX, masks). The
output is cut into basic blocks as every invar command reads a compiler's
listing (docs/formats.md): a label starts a new block and a branch, call or
return ends one (it stays in the block, as in BHive); directives are dropped. Each distinct block is written once, in
the order first met, after a comment naming the source, the flags and the
function it comes from, and blocks are separated by blank lines (the layout
``invar audit`` reads as one block per group).

The file written first records the compiler's version in its header; gcc
12.2.0 (Debian 12.2.0-14) wrote the committed one. Another gcc writes other
blocks: the tests read the committed file, and check only that a fresh
compile with whatever gcc is installed parses (tests/oracles/test_x86_compiled.py).
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from invar.frontends.x86.listing import LABEL, listing_blocks

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "fixtures" / "x86" / "gcc"
OUT = ROOT / "fixtures" / "x86" / "gcc-blocks.s"

LEVELS = ("-O1", "-O2", "-O3", "-Os")
#: (flags) per configuration; every level is combined with every entry
TARGETS = (
    ("-fpie",),
    ("-fno-pie",),
    ("-fpie", "-march=haswell"),
    ("-fno-pie", "-march=haswell"),
    ("-fpie", "-march=skylake-avx512"),
)
CONFIGURATIONS = tuple((level, *target) for target in TARGETS for level in LEVELS)


def split_blocks(assembly: str) -> list[tuple[str, list[str]]]:
    """(function, instructions) of every basic block of ``gcc -S`` output,
    in order, as every invar command reads a compiler's listing
    (:mod:`invar.frontends.x86.listing`). The function is the last label
    without a ``.L`` prefix above the block."""
    lines = assembly.splitlines()
    out = []
    for first, body in listing_blocks(lines):
        labels = [m[0][:-1] for raw in lines[: first - 1] if (m := LABEL.match(raw.strip()))]
        function = next((label for label in reversed(labels) if not label.startswith(".L")), "")
        instructions = []
        for raw in body.splitlines():
            text = raw.split("#", 1)[0].strip()
            if text:
                mnemonic, _, operands = text.replace("\t", " ").partition(" ")
                instructions.append(f"{mnemonic} {operands.strip()}".strip())
        out.append((function, instructions))
    return out


def compile_blocks(source: Path, flags: tuple[str, ...], cc: str = "gcc") -> list[tuple[str, list[str]]]:
    """The basic blocks of ``source`` compiled with ``flags``."""
    run = subprocess.run([cc, "-S", "-o", "-", *flags, str(source)], capture_output=True, text=True, check=True)
    return split_blocks(run.stdout)


def corpus(cc: str = "gcc") -> tuple[str, list[tuple[str, list[str]]]]:
    """(compiler version, [(origin comment, instructions)]) of every distinct block."""
    version = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    seen: set[tuple[str, ...]] = set()
    out = []
    for source in sorted(SOURCES.glob("*.c")):
        for flags in CONFIGURATIONS:
            for function, lines in compile_blocks(source, flags, cc):
                if tuple(lines) in seen:
                    continue
                seen.add(tuple(lines))
                out.append((f"{source.name} {' '.join(flags)} {function}", lines))
    return version, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="gcc", help="the C compiler (gcc or a compatible one)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    version, blocks = corpus(args.cc)
    header = [
        "# Basic blocks of gcc -S output for fixtures/x86/gcc/*.c, one per blank-line-separated group;",
        "# written by tools/make_x86_corpus.py (do not edit): every source at -O1 -O2 -O3 -Os, -fpie and",
        "# -fno-pie, for x86-64, -march=haswell and -march=skylake-avx512; each distinct block once.",
        f"# compiler: {version}",
    ]
    body = ["\n".join([f"# {origin}", *lines]) for origin, lines in blocks]
    args.out.write_text("\n".join(header) + "\n\n" + "\n\n".join(body) + "\n")
    print(f"{args.out}: {len(blocks)} blocks")


if __name__ == "__main__":
    main()
