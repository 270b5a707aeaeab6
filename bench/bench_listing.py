"""Compiler listings of real C, read as basic blocks, against GNU as.

Every ``.c`` file under the given directories that gcc compiles on its own
(no include path beyond the system's) is compiled to a listing (``gcc -S``)
at each setting of ``--settings``; invar reads each listing as basic blocks
(docs/formats.md) and the oracle of tests/oracles/x86_listing_oracle.py
compares them with what GNU as placed for every line, decoded by capstone:
instructions lost, bytes the processor runs left out of a block, blocks
that run on past a control transfer or across a label. The report counts
files, listings, blocks, blocks invar refused and why, and every problem.

    python bench/bench_listing.py [DIR ...] [--report listing-c.json]

searches /usr/share/doc, /usr/include and the running Python's
site-packages when no directory is given.

C sources that a Debian system ships with its -dev packages' examples and
headers, and Python packages' extension sources, were written by their
projects, not here; which files a machine holds differs, and the report
lists them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import ROOT, closed, finish, load_line, machine

sys.path.insert(0, str(ROOT))

from tests.oracles.x86_listing_oracle import assembled, problems  # noqa: E402

#: the settings each file is compiled at
SETTINGS = ("-O2", "-O0 -g", "-O3 -march=haswell -fPIC", "-Os -fno-pie -ffunction-sections")


def sweep(roots: list[Path], settings: tuple[str, ...], limit: int | None) -> dict:
    from invar.errors import ParseError
    from invar.frontends.x86 import parse_units

    # each file named from its root's name down (``doc/zlib1g-dev/examples/gun.c``): no machine's paths
    named = {p.resolve(): f"{root.name}/{p.relative_to(root)}" for root in roots for p in root.rglob("*.c")}
    files = sorted(p for p in named if p.is_file())
    version = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    totals, refused, found, compiled = Counter(), Counter(), [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for path in files:
            if limit is not None and len(compiled) >= limit:
                break
            listings = 0
            for setting in settings:
                out = work / "listing.s"
                run = subprocess.run(
                    ["gcc", "-S", "-w", *setting.split(), "-o", str(out), str(path)], capture_output=True, timeout=300
                )
                if run.returncode:
                    break
                text = out.read_text(errors="replace")
                try:
                    at = assembled(out, work)
                except subprocess.CalledProcessError:  # gcc wrote what its own as refuses (another target's asm)
                    totals["listings GNU as refuses"] += 1
                    continue
                said, counts = problems(text, *at)
                totals.update(counts)
                totals["listings"] += 1
                listings += 1
                found += [f"{named[path]} {setting}: {p}" for p in said]
                try:
                    refused.update(e.message for e in parse_units(text, path=path.name).skipped)
                except ParseError as err:  # no block at all: a file of declarations
                    refused[err.message] += 1
            if listings:
                compiled.append(named[path])
    return {
        "compiler": version,
        "settings": list(settings),
        "files_found": len(files),
        "files": compiled,
        "totals": dict(totals),
        "refused": dict(refused.most_common()),
        "problems": found,
    }


def table(report: dict) -> str:
    t = report["totals"]
    rows = [
        "| measure | count |",
        "|---|---|",
        f"| C files found / compiled on their own | {report['files_found']:,} / {len(report['files']):,} |",
        f"| listings (files × settings) | {t.get('listings', 0):,} |",
        f"| basic blocks | {t.get('blocks', 0):,} |",
        f"| blocks invar reads | {t.get('accepted', 0):,} |",
        f"| instructions in them | {t.get('instructions', 0):,} |",
        f"| **disagreements with GNU as** | **{len(report['problems']):,}** |",
    ]
    why = ["", "| blocks or files refused, by reason | count |", "|---|---|"]
    why += [f"| {reason.split(' (')[0]} | {n:,} |" for reason, n in report["refused"].items()]
    tail = [
        "",
        f"{report['compiler']}, settings {', '.join(f'`{s}`' for s in report['settings'])}; "
        f"{machine_line(report)}. {load_line(report)}",
    ]
    return "\n".join(rows + why + tail)


def machine_line(report: dict) -> str:
    return f"{report['machine']}, {report['wall_seconds']:.0f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "roots",
        nargs="*",
        type=Path,
        help="directories searched for .c files (default: /usr/share/doc, /usr/include and the running "
        "Python's site-packages)",
    )
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), help="gcc flags, one quoted string per setting")
    ap.add_argument("--limit", type=int, help="stop after this many files compiled")
    ap.add_argument("--report", help="write the report as JSON here")
    args = ap.parse_args()
    import os

    started = time.time()
    report = {"machine": machine(), "load_average_before": os.getloadavg()}
    roots = args.roots or [Path("/usr/share/doc"), Path("/usr/include"), Path(sysconfig.get_paths()["purelib"])]
    report.update(sweep(roots, tuple(args.settings), args.limit))
    finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
