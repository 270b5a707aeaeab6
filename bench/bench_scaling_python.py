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
        [--limit SECONDS] [--report scaling.json]

With ``--report`` the inputs (bytes, lines), every run's seconds and peak
memory, the machine and the load average are written as JSON;
:func:`table` renders that report, with the growth per tenfold input
between consecutive sizes.
"""

from __future__ import annotations

import argparse
import math
import os
import sysconfig
import tempfile
import time
from pathlib import Path

from common import checkout, closed, finish, load_range, machine, measure

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


def cell(result: dict) -> str:
    return (
        "over the limit" if result["seconds"] is None else f"{result['seconds']:.2f} s, {result['kb'] / 1024:,.0f} MB"
    )


def growth(a: dict, b: dict, decades: float) -> str:
    """Time and memory factors per tenfold input from result ``a`` to ``b``."""
    if None in (a["seconds"], b["seconds"]):
        return "–"
    return f"×{(b['seconds'] / a['seconds']) ** (1 / decades):.1f}, ×{(b['kb'] / a['kb']) ** (1 / decades):.1f}"


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/frontends.md shows: each
    command's time and peak memory by input size, and the growth per tenfold
    input from the size above (time, memory; normalised by the sizes' ratio)."""
    versions, inputs = report["versions"], report["inputs"]
    by = {(r["command"], r["version"], r["size"]): r for r in report["rows"]}
    tag = {"before": "before: ", "after": ""} if len(versions) > 1 else {"after": ""}
    head = [f"{tag[v]}time, peak memory" for v in versions] + [
        f"{tag[v]}per tenfold from the size above" for v in versions
    ]
    lines = ["| command | size (lines) | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    for name in report["commands"]:
        for k, inp in enumerate(inputs):
            cells = [cell(by[(name, v, inp["size"])]) for v in versions]
            if k:
                prev = inputs[k - 1]
                decades = math.log10(inp["bytes"] / prev["bytes"])
                cells += [growth(by[(name, v, prev["size"])], by[(name, v, inp["size"])], decades) for v in versions]
            else:
                cells += ["" for _ in versions]
            size = f"{inp['bytes'] / 1000:,.0f} KB ({inp['lines']:,})"
            lines.append(f"| {f'`{name}`' if k == 0 else ''} | {size} | " + " | ".join(cells) + " |")
    lines += ["", f"Load average (1 min) at the start and at the end: {load_range(report)}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000, 5_000_000])
    ap.add_argument("--shape", choices=("stdlib", "flat"), default="stdlib")
    ap.add_argument("--before", default=None, help="also run the package at this git revision")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds one command may run")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    versions = {"after": None}
    if args.before:
        versions = {"before": checkout(args.before, tmp / "before"), **versions}
    make = source_of_size if args.shape == "stdlib" else flat_source
    files = {size: make(size, tmp) for size in sorted(args.sizes)}
    print(f"{machine()}; {args.shape} sources" + (f"; before = {args.before}" if args.before else ""), flush=True)
    started = time.time()
    report = {
        "bench": f"scaling-python-{args.shape}",
        "machine": machine(),
        "args": vars(args),
        "versions": list(versions),
        "commands": list(COMMANDS),
        "inputs": [
            {"size": size, "bytes": path.stat().st_size, "lines": len(path.read_text().splitlines())}
            for size, path in files.items()
        ],
        "load_average_before": os.getloadavg(),
        "rows": [],
    }
    for name, cmd in COMMANDS.items():
        for size, path in files.items():
            for version, pythonpath in versions.items():
                seconds, kb = measure([*cmd, str(path)], pythonpath=pythonpath, timeout=args.limit)
                report["rows"].append({"command": name, "version": version, "size": size, "seconds": seconds, "kb": kb})
                print(f"  {name:<25} {size:>9,} {version:<6} {cell(report['rows'][-1])}", flush=True)
    return finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
