"""DLG construction per function over the running interpreter's standard library.

For every ``.py`` file of the standard library (``sysconfig``'s ``stdlib``
path, ``test``/``idlelib``/``lib2to3`` data excluded) this times ``ast.parse``
of the file, then the frontend (scopes, statements, dependencies) and the DLG
of every function, and reports medians per function and per file and the ratio
of frontend-plus-DLG time to parse time.

With ``--before REV`` the frontend as it was at git revision ``REV`` runs in
the same process on the same files, each file timed with both in turn (the
order alternating from file to file), so the two columns share the machine's
state and their ratio is meaningful on a noisy machine.

    python bench/bench_dlg_stdlib.py [--limit N] [--before REV] [--repeat 1] [--report dlg-stdlib.json]

With ``--repeat N`` each file is timed N times (parse and frontend in
turn) and the medians per file are used. With ``--report`` every file's
times are written as JSON, with the machine and the load average;
:func:`table` renders that report.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import os
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

from common import ROOT, closed, finish, load_row, machine

from invar.errors import InvarError

#: the SPE paper's DLG time per file of Python 150K (its Table 2), in seconds
SPE_PER_FILE = 55.4e-3


def implementation(package: str):
    """(parse_units, dlg, InvarError) of the package named ``package``."""
    python = importlib.import_module(f"{package}.frontends.python")
    dlg = importlib.import_module(f"{package}.symmetry.dlg").dlg
    errors = importlib.import_module(f"{package}.errors")
    return python.parse_units, dlg, errors.InvarError


def checkout(rev: str, into: Path) -> str:
    """Extract ``invar/`` at ``rev`` as the package ``invar_before`` under ``into``."""
    data = subprocess.run(["git", "archive", rev, "invar"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    (into / "invar").rename(into / "invar_before")
    sys.path.insert(0, str(into))
    return "invar_before"


def time_frontend(impl, text: str, path: str) -> tuple[float, int, int] | None:
    parse_units, dlg, error = impl
    t = time.perf_counter()
    try:
        units = parse_units(text, path)
        for u in units:
            dlg(u)
    except (error, InvarError):
        return None
    return time.perf_counter() - t, len(units), len(getattr(units, "skipped", ()))


def measure(files: list[Path], root: Path, impls: dict, times: int = 1) -> dict:
    """Per file, ``times`` passes in turn: ``ast.parse`` seconds, then (seconds, functions,
    skipped) of each implementation; the rows hold the medians and every pass's seconds."""
    rows, failed = [], 0
    for k, path in enumerate(files):
        try:
            text = path.read_text(encoding="utf-8")
            ast.parse(text)
        except (UnicodeDecodeError, OSError, SyntaxError):
            failed += 1
            continue
        parses, runs = [], {name: [] for name in impls}
        for r in range(times):
            t0 = time.perf_counter()
            ast.parse(text)
            parses.append(time.perf_counter() - t0)
            names = list(impls) if (k + r) % 2 == 0 else list(impls)[::-1]
            for name in names:
                runs[name].append(time_frontend(impls[name], text, str(path)))
        if any(g is None or g[1] == 0 for got in runs.values() for g in got):
            failed += 1
            continue
        row = {"path": str(path.relative_to(root)), "parse": statistics.median(parses), "parse_runs": parses}
        for name, got in runs.items():
            seconds = [g[0] for g in got]
            row[name] = [statistics.median(seconds), got[0][1], got[0][2]]
            row[f"{name}_runs"] = seconds
        rows.append(row)
    return {"left_out": failed, "files": rows}


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/frontends.md shows (a column per implementation)."""
    files, impls = report["files"], report["implementations"]
    parse = [f["parse"] for f in files]

    def column(name: str) -> list[str]:
        seconds = [f[name][0] for f in files]
        per_function = [f[name][0] / f[name][1] for f in files]
        ratios = [f[name][0] / max(f["parse"], 1e-9) for f in files]
        return [
            f"{sum(f[name][1] for f in files):,} ({sum(f[name][2] for f in files)})",
            f"{statistics.median(per_function) * 1e3:.3f} ms",
            f"{statistics.median(seconds) * 1e3:.2f} ms",
            f"{statistics.median(parse) * 1e3:.2f} ms",
            f"{statistics.median(ratios):.2f}",
            f"{sum(seconds) / sum(parse):.2f}",
            f"{SPE_PER_FILE / statistics.median(seconds):.0f}×",
        ]

    labels = [
        f"functions (skipped) in {len(files)} files ({report['left_out']} left out)",
        "median per function",
        "median per file",
        "median `ast.parse` per file",
        "(frontend + DLG) / `ast.parse`, median per file",
        "(frontend + DLG) / `ast.parse`, in total",
        "the SPE paper's 55.4 ms per file / median per file",
    ]
    columns = {name: column(name) for name in impls}
    heads = impls if len(impls) > 1 else ["figure"]
    lines = ["| measure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(impls)]
    lines += [f"| {label} | " + " | ".join(columns[n][k] for n in impls) + " |" for k, label in enumerate(labels)]
    if "before" in impls:
        after, before = (sum(f[n][0] for f in files) for n in ("after", "before"))
        lines.append(f"| after / before, in total | {after / before:.2f} | |")
    lines.append(load_row(report, len(impls) - 1))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="at most N files")
    ap.add_argument("--before", default=None, help="also time the frontend at this git revision, side by side")
    ap.add_argument("--repeat", type=int, default=1, help="time each file this many times; medians per file")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        p
        for p in root.rglob("*.py")
        if not {"test", "tests", "idlelib", "lib2to3", "site-packages"} & set(p.relative_to(root).parts)
    )
    files = files[: args.limit] if args.limit else files
    impls = {"after": implementation("invar")}
    tmp = None
    if args.before:
        tmp = tempfile.TemporaryDirectory()
        impls = {"before": implementation(checkout(args.before, Path(tmp.name))), **impls}
    started = time.time()
    report = {
        "bench": "dlg-stdlib",
        "machine": machine(),
        "args": vars(args),
        "implementations": list(impls),
        "load_average_before": os.getloadavg(),
    }
    report.update(measure(files, root, impls, args.repeat))
    closed(report, started)
    print(f"{machine()}" + (f"; before = {args.before}" if args.before else ""))
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
