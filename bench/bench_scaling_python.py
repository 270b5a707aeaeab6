"""Scaling of the commands on Python sources of growing size.

Inputs of each size (1 KB, 100 KB, 5 MB by default) come in two shapes:
``stdlib``, the running interpreter's standard-library modules concatenated
and cut at a top-level ``def``; ``flat``, one module of top-level statements
(a script), each reading earlier ones at random, with a call now and then,
so the whole file is one unit with one block.
Each command runs in a fresh process (``parse``, ``renamings --count``,
``permutations --count``, ``permutations --sample 10``, ``dlg``) and its wall
time and peak resident memory are recorded; one that runs past the time limit
is reported as such. With ``--before REV`` the package as it was at git
revision ``REV`` runs the same commands on the same files, each command timed
with both in turn.

    python bench/bench_scaling_python.py [--shape stdlib|flat] [--sizes 1000 100000 5000000] [--before REV]
        [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import sysconfig
import tempfile
from pathlib import Path

from common import checkout, machine, measure

COMMANDS = {
    "parse": ["parse", "--format", "json"],
    "renamings --count": ["renamings", "--count"],
    "permutations --count": ["permutations", "--count"],
    "permutations --sample 10": ["permutations", "--sample", "10", "--format", "jsonl"],
    "dlg": ["dlg"],
}


def source_of_size(size: int, into: Path) -> Path:
    """A valid Python file of about ``size`` characters from the standard library."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, total = [], 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "from __future__" in text:
            continue  # must open its module: cannot be concatenated
        try:
            compile(text, str(path), "exec")
        except SyntaxError:
            continue
        parts.append(text)
        total += len(text)
        if total > size:
            break
    text = "\n".join(parts)
    cut = text.find("\ndef ", size) if len(text) > size else -1
    text = text[: cut + 1] if cut > 0 else text
    out = into / f"src{size}.py"
    out.write_text(text)
    return out


def flat_source(size: int, into: Path) -> Path:
    """One module of top-level statements of about ``size`` characters."""
    import random

    rng = random.Random(size)
    lines, total, i = [], 0, 0
    while total < size:
        if i and rng.random() < 0.05:
            line = f"print(v{rng.randrange(i)})"
        elif i:
            line = f"v{i} = v{rng.randrange(max(0, i - 50), i)} + {rng.randint(0, 9)}"
            i += 1
        else:
            line, i = "v0 = 0", 1
        lines.append(line)
        total += len(line) + 1
    out = into / f"flat{size}.py"
    out.write_text("\n".join(lines) + "\n")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000, 5_000_000])
    ap.add_argument("--shape", choices=("stdlib", "flat"), default="stdlib")
    ap.add_argument("--before", default=None, help="also run the package at this git revision")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds one command may run")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    versions = {"after": None}
    if args.before:
        versions = {"before": checkout(args.before, tmp / "before"), **versions}
    make = source_of_size if args.shape == "stdlib" else flat_source
    files = {size: make(size, tmp) for size in args.sizes}
    print(f"{machine()}; {args.shape} sources" + (f"; before = {args.before}" if args.before else ""))
    print("| command | size | " + " | ".join(f"{v} time | {v} peak memory" for v in versions) + " |")
    print("|---|---|" + "---|---|" * len(versions))
    results: dict[tuple[str, str, int], tuple[float | None, int | None]] = {}
    for name, cmd in COMMANDS.items():
        for size, path in files.items():
            row = []
            for version, pythonpath in versions.items():
                seconds, kb = measure([*cmd, str(path)], pythonpath=pythonpath, timeout=args.limit)
                results[(name, version, size)] = (seconds, kb)
                row.append("over the limit | –" if seconds is None else f"{seconds:.2f} s | {kb / 1024:.0f} MB")
            print(f"| {name} | {path.stat().st_size / 1000:.0f} KB | " + " | ".join(row) + " |", flush=True)
    print("\ngrowth per tenfold input (time, then memory), between the two largest sizes:")
    small, large = sorted(args.sizes)[-2:]
    decades = max(1e-9, __import__("math").log10(large / small))
    for name in COMMANDS:
        cells = []
        for version in versions:
            (t0, m0), (t1, m1) = results[(name, version, small)], results[(name, version, large)]
            if None in (t0, t1):
                cells.append(f"{version}: –")
            else:
                cells.append(
                    f"{version}: ×{(t1 / t0) ** (1 / decades):.1f} time, ×{(m1 / m0) ** (1 / decades):.1f} memory"
                )
        print(f"- {name}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
