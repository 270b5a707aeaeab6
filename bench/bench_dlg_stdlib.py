"""DLG construction per function over the running interpreter's standard library.

For every ``.py`` file of the standard library (``sysconfig``'s ``stdlib``
path, ``test``/``idlelib``/``lib2to3`` data excluded) this times ``ast.parse``
of the file, then the frontend (scopes, statements, dependencies) and the DLG
of every function, and reports medians per function and per file and the ratio
of frontend-plus-DLG time to parse time.

    python bench/bench_dlg_stdlib.py [--limit N]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from invar.errors import InvarError
from invar.frontends.python import parse_units

try:
    from invar.symmetry.dlg import dlg
except ImportError:  # dependency analysis alone
    dlg = None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="at most N files")
    args = ap.parse_args()
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py")
                   if not {"test", "tests", "idlelib", "lib2to3", "site-packages"} & set(p.relative_to(root).parts))
    files = files[: args.limit] if args.limit else files
    per_function, per_file, parse_times, ratios = [], [], [], []
    functions = skipped = failed = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            failed += 1
            continue
        t0 = time.perf_counter()
        try:
            ast.parse(text)
        except SyntaxError:
            failed += 1
            continue
        t1 = time.perf_counter()
        try:
            units = parse_units(text, str(path))
            for u in units:
                if dlg is not None:
                    dlg(u)
        except InvarError:
            failed += 1
            continue
        t2 = time.perf_counter()
        if not units:
            continue
        functions += len(units)
        skipped += len(units.skipped)
        parse_times.append(t1 - t0)
        per_file.append(t2 - t1)
        per_function.append((t2 - t1) / len(units))
        ratios.append((t2 - t1) / max(t1 - t0, 1e-9))
    print(f"python {sys.version.split()[0]}  files {len(per_file)}  functions {functions}  "
          f"skipped {skipped}  unreadable {failed}  dlg {'yes' if dlg else 'no'}")
    print(f"median per function   {statistics.median(per_function) * 1e3:.3f} ms")
    print(f"median per file       {statistics.median(per_file) * 1e3:.3f} ms  (SPE paper: 55.4 ms per file)")
    print(f"median ast.parse      {statistics.median(parse_times) * 1e3:.3f} ms per file")
    print(f"median ratio (frontend+DLG) / ast.parse   {statistics.median(ratios):.2f}")
    print(f"total ratio                               {sum(per_file) / sum(parse_times):.2f}")


if __name__ == "__main__":
    main()
