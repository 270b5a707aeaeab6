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

    python bench/bench_dlg_stdlib.py [--limit N] [--before REV]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

from common import ROOT, machine

from invar.errors import InvarError


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="at most N files")
    ap.add_argument("--before", default=None, help="also time the frontend at this git revision, side by side")
    args = ap.parse_args()
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
    stats = {name: {"file": [], "function": [], "ratio": [], "functions": 0, "skipped": 0} for name in impls}
    parse_times = []
    failed = 0
    for k, path in enumerate(files):
        try:
            text = path.read_text(encoding="utf-8")
            t0 = time.perf_counter()
            ast.parse(text)
            parse = time.perf_counter() - t0
        except (UnicodeDecodeError, OSError, SyntaxError):
            failed += 1
            continue
        names = list(impls) if k % 2 == 0 else list(impls)[::-1]
        got = {name: time_frontend(impls[name], text, str(path)) for name in names}
        if any(g is None or g[1] == 0 for g in got.values()):
            failed += 1
            continue
        parse_times.append(parse)
        for name, (seconds, units, skipped) in got.items():
            s = stats[name]
            s["file"].append(seconds)
            s["function"].append(seconds / units)
            s["ratio"].append(seconds / max(parse, 1e-9))
            s["functions"] += units
            s["skipped"] += skipped
    print(
        f"{machine()}; files {len(parse_times)} (left out {failed})"
        + (f"; before = {args.before}" if args.before else "")
    )
    print(f"median ast.parse per file: {statistics.median(parse_times) * 1e3:.3f} ms")
    print("| measure | " + " | ".join(impls) + " |")
    print("|---|" + "---|" * len(impls))
    rows = [
        ("functions (skipped)", lambda s: f"{s['functions']} ({s['skipped']})"),
        ("median per function", lambda s: f"{statistics.median(s['function']) * 1e3:.3f} ms"),
        ("median per file", lambda s: f"{statistics.median(s['file']) * 1e3:.3f} ms"),
        ("(frontend + DLG) / ast.parse, median per file", lambda s: f"{statistics.median(s['ratio']):.2f}"),
        ("(frontend + DLG) / ast.parse, in total", lambda s: f"{sum(s['file']) / sum(parse_times):.2f}"),
        ("against the SPE paper's 55.4 ms per file", lambda s: f"{55.4e-3 / statistics.median(s['file']):.0f}x faster"),
    ]
    for label, show in rows:
        print(f"| {label} | " + " | ".join(show(stats[name]) for name in impls) + " |")
    if "before" in stats:
        print(f"after / before, in total: {sum(stats['after']['file']) / sum(stats['before']['file']):.2f}")


if __name__ == "__main__":
    main()
