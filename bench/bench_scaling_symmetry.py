"""Scaling of the symmetry layer and the Python frontend, before and after, side by side.

Four dimensions, one report each (``--dimension``):

* ``depth``: one seeded draw of a line order of a *zipper* of ``n`` pairs
  (``n`` writes, then ``n`` prints of them in order: print i needs write i and
  print i-1), whose decomposition is a tree ``2n`` deep; and the count.
* ``width``: a renaming space whose levels have many states: two classes of
  ``n`` referents over pools of their own plus ``shared`` targets both may take
  (the states per level grow as ``shared²/2``): count, unrank and rank of one
  index, and the first 1,000 renamings enumerated.
* ``rank``: unranking the index ``count // 3`` of the zipper of ``n`` pairs,
  and ranking the extension it gives back (the lexicographic bijection of
  docs/formats.md).
* ``python``: the Python frontend (``invar.parse_units``) on one function of
  ``n`` locals (``v0 = 0`` … ``return [v0, …]``): wall time, the share spent
  in the cyclic garbage collector, and peak resident memory.

Every cell runs in a fresh process, once with the package of ``--before``
(a checkout of the previous code: a directory or a git revision) and once
with this working tree, so both are measured in one run on one machine;
a run past ``--limit`` seconds is reported as such. With ``--repeat k`` each
cell runs k times, before and after in turn, and each measure is the median
of its k runs (the runs are kept in the report), for a machine other work
shares.

    python bench/bench_scaling_symmetry.py --dimension depth --before /tmp/before \\
        --report docs/benchmarks/reports/scaling-depth.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, checkout, machine

SIZES = {
    "depth": [2_000, 5_000, 20_000],
    "width": [[4_000, 4], [4_000, 8], [12_000, 8], [36_000, 8]],
    "python": [10_000, 30_000, 100_000],
    "rank": [500, 2_000],
}
WHAT = {
    "depth": ["sample", "count"],
    "width": ["count", "unrank", "rank", "enumerate 1,000"],
    "python": ["parse", "gc", "peak MB"],
    "rank": ["unrank", "rank"],
}


# ----------------------------------------------------------- in the worker
def _depth(n: int) -> dict:
    import random
    import time

    from invar.symmetry.posets import Poset

    edges = [(i, n + i) for i in range(n)] + [(n + i - 1, n + i) for i in range(1, n)]
    poset = Poset(2 * n, edges)
    t = time.perf_counter()
    draw = poset.sample(random.Random(0))
    sample = time.perf_counter() - t
    at = [0] * (2 * n)
    for pos, u in enumerate(draw):
        at[u] = pos
    assert all(at[u] < at[v] for u, v in edges), "not a linear extension"
    t = time.perf_counter()
    poset.count()
    return {"sample": sample, "count": time.perf_counter() - t}


def _rank(n: int) -> dict:
    import time

    from invar.symmetry.posets import Poset

    edges = [(i, n + i) for i in range(n)] + [(n + i - 1, n + i) for i in range(1, n)]
    poset = Poset(2 * n, edges)
    index = poset.count() // 3
    t = time.perf_counter()
    extension = poset.unrank(index)
    unrank = time.perf_counter() - t
    t = time.perf_counter()
    if hasattr(poset, "rank"):
        assert poset.rank(extension) == index
    else:  # the previous code ranks only through a walker
        walk, got = poset.walker(), 0
        for target in extension:
            for u, ways in walk.options():
                if u == target:
                    break
                got += ways
            walk.place(target)
        assert got == index
    return {"unrank": unrank, "rank": time.perf_counter() - t}


def _width(n: int, shared: int) -> dict:
    import time
    from itertools import islice

    from invar.program import Line, Program, Token
    from invar.symmetry.renamings import RenamingSpace

    own_a, own_b = [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]
    common = [f"s{i}" for i in range(shared)]
    list_a = own_a[: n // 3] + common + own_a[n // 3 :]
    list_b = common[::-1] + own_b
    referents = [f"r{i}" for i in range(2 * n)]
    tokens, pos = [], 0
    for r in referents:
        tokens.append(Token(r, "name", "name", r, 0, pos))
        pos += len(r) + 1
    program = Program("test", (Line(" ".join(referents)),), tuple(tokens))
    space = RenamingSpace(
        program, referents, [list_a if i % 2 == 0 else list_b for i in range(2 * n)], lambda tok, t: t
    )
    out = {}
    t = time.perf_counter()
    total = space.count()
    out["count"] = time.perf_counter() - t
    t = time.perf_counter()
    renaming = space.unrank(total // 3)
    out["unrank"] = time.perf_counter() - t
    t = time.perf_counter()
    assert space.rank(renaming) == total // 3
    out["rank"] = time.perf_counter() - t
    t = time.perf_counter()
    list(islice(space.enumerate(), 1000))
    out["enumerate 1,000"] = time.perf_counter() - t
    out["states"] = max(map(len, space._states()))
    return out


def _python(n: int) -> dict:
    import gc
    import resource
    import time

    import invar

    text = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n))
    text += "    return [" + ", ".join(f"v{i}" for i in range(n)) + "]\n"
    spent, started = [0.0], [0.0]

    def clock(phase: str, _info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - started[0]

    invar.parse_units("def g():\n    return 1\n", "python")  # imports done before the clock starts
    gc.callbacks.append(clock)
    t = time.perf_counter()
    units = invar.parse_units(text, "python")
    parse = time.perf_counter() - t
    assert len(units[0].lines) == n + 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"parse": parse, "gc": spent[0], "peak MB": peak}


def worker(dimension: str, size) -> dict:
    if dimension == "depth":
        return _depth(size)
    if dimension == "width":
        return _width(*size)
    if dimension == "rank":
        return _rank(size)
    return _python(size)


# ----------------------------------------------------------- in the driver
def run(dimension: str, size, root: Path, limit: float) -> dict | None:
    """One cell in a fresh process with ``root`` first on the path; None past ``limit``."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]); "
        "import bench_scaling_symmetry as b; print(json.dumps(b.worker(sys.argv[3], json.loads(sys.argv[4]))))"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "bench"), str(root), dimension, json.dumps(size)],
            capture_output=True,
            text=True,
            timeout=limit,
            cwd=tempfile.gettempdir(),
        )
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        raise SystemExit(f"{dimension} {size} under {root} failed: {proc.stderr[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(dimension: str, size, roots: tuple[Path, Path], limit: float, repeat: int) -> dict:
    """One row: ``size`` under both roots (before, after) in turn, ``repeat``
    times; each side's measures are their medians (None once a run is past
    ``limit``, and that side is not run again)."""
    runs: dict[str, list[dict | None]] = {"before": [], "after": []}
    for _ in range(repeat):
        for side, root in zip(runs, roots):
            if None not in runs[side]:
                runs[side].append(run(dimension, size, root, limit))
    row = {"size": size}
    for side, got in runs.items():
        row[side] = None if None in got else {k: _median([r[k] for r in got]) for k in got[0]}
    if repeat > 1:
        row["runs"] = runs
    return row


def _median(values: list) -> float:
    """The median; of counts (the states) one of them."""
    return statistics.median_low(values) if all(isinstance(v, int) for v in values) else statistics.median(values)


def _cell(what: str, value: float | None) -> str:
    if value is None:
        return "over the limit"
    return f"{value:,.0f} MB" if what == "peak MB" else f"{value:.2f} s"


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/symmetry.md shows."""
    dim, rows = report["dimension"], report["rows"]
    size = {"depth": "pairs", "rank": "pairs", "width": "referents, shared targets", "python": "locals"}[dim]
    lines = [f"| {size} | measure | before | after | ratio |", "|---|---|---|---|---|"]
    for row in rows:
        label = f"{row['size'][0]:,} × 2, {row['size'][1]}" if dim == "width" else f"{row['size']:,}"
        if dim == "width":
            label += f" ({row['after']['states']} states)"
        before, after = row["before"], row["after"]
        for what in WHAT[dim]:
            b = None if before is None else before[what]
            a = after[what]
            ratio = "–" if b is None or not a or what == "gc" else f"×{b / a:.1f}"
            if b is None:
                ratio = f"> ×{report['args']['limit'] / a:.0f}" if a else "–"
            lines.append(f"| {label} | {what} | {_cell(what, b)} | {_cell(what, a)} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dimension", choices=sorted(SIZES), required=True)
    ap.add_argument("--before", required=True, help="the previous code: a checkout's directory or a git revision")
    ap.add_argument("--limit", type=float, default=400.0, help="seconds one cell may take")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each cell; the table shows their medians")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    before = Path(args.before)
    if not before.is_dir():
        before = checkout(args.before, Path(tempfile.mkdtemp()) / "before")
    rows = []
    for size in SIZES[args.dimension]:
        row = measure(args.dimension, size, (before, ROOT), args.limit, args.repeat)
        rows.append(row)
        print(json.dumps(row), flush=True)
    commit = subprocess.run(
        ["git", "-C", str(before), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    settings = {"dimension": args.dimension, "limit": args.limit, "repeat": args.repeat}
    report = {"dimension": args.dimension, "machine": machine(), "before": commit, "args": settings, "rows": rows}
    print(table(report))
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
