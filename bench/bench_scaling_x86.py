"""How x86 commands scale with the size of a straight-line block.

    python bench/bench_scaling_x86.py [--sizes 1000 10000 100000] [--before REV]
                                      [--time-limit 300] [--memory-limit 6] [--report scaling-x86.json]

Each size is a seeded concatenation of real BHive blocks that hold no barrier
(no control flow, no rip-relative operand, nothing that reads the world), so
nothing cuts the analysis short. Every measurement runs one command in a
fresh Python process, in-process through the CLI's entry point with its
output thrown away: ``parse --format json``, ``renamings --count``,
``permutations --count``, ``permutations --sample 10`` and
``dlg --format json``. Reported: wall time of the command (the interpreter
start and the imports excluded) and its peak resident memory above what the
process held after its imports (the peak is reset there, through
``/proc/self/clear_refs``). A command that runs past the time limit or
above the memory limit is stopped and reported as over it; larger sizes of
that command are then not run.

With ``--before REV`` the package as it was at git revision ``REV`` runs the
same commands on the same files, each pair back to back, as ``invar_before``
(extracted with ``git archive``, as in bench_dlg_stdlib.py).

Then each block is parsed once more in this process (the library, no CLI):
its seconds, tokens and ``Program.deps`` pairs, and for blocks of at most
``--all-pairs-max`` instructions the count of every conflicting pair by the
all-pairs construction (tests/oracles/x86_deps_reference.py), which the
generating set of ``Program.deps`` stands for. With ``--report`` all of it
is written as JSON with the machine and the load average; :func:`table`
renders that report.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from common import ROOT, bhive_blocks, finish, load_range, machine

COMMANDS = {
    "parse": ["parse", "--format", "json"],
    "renamings --count": ["renamings", "--count"],
    "permutations --count": ["permutations", "--count"],
    "permutations --sample 10": ["permutations", "--sample", "10", "--seed", "1"],
    "dlg": ["dlg", "--format", "json"],
}

#: what each child runs: import the package, then time its CLI on one file
CHILD = r"""
import json, os, resource, sys, time
package, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if package != "invar":
    sys.path.insert(0, os.environ["BEFORE_ROOT"])
app = __import__(package + ".cli.app", fromlist=["main"])
# what the commands import lazily, so that the timing is the work alone
for module in ("frontends.x86.parse", "frontends.x86.rename", "symmetry.spaces",
               "symmetry.permutations", "symmetry.dlg", "symmetry.masks"):
    __import__(f"{package}.{module}")
try:  # older checkouts registered their commands when this was imported
    __import__(f"{package}.cli.commands")
except ModuleNotFoundError:
    pass
def status(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) / 1024
try:  # the peak so far (the imports) is not the command's: reset it
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    reset = True
except OSError:
    reset = False
base = status("VmRSS")
sys.argv = ["invar", *args]
sys.stdout = open(os.devnull, "w")
code = 0
t = time.perf_counter()
try:
    app.main()
except SystemExit as e:
    code = e.code or 0
seconds = time.perf_counter() - t
peak = status("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with open(out, "w") as f:
    json.dump({"seconds": seconds, "peak_mb": peak - base, "status": code}, f)
"""


def straight_line(n: int, seed: int) -> str:
    """``n`` instructions of BHive blocks without a barrier, concatenated."""
    import importlib

    from invar.frontends.x86.hexblock import disassemble

    parse = importlib.import_module("invar.frontends.x86.parse")
    rng = random.Random(seed)
    blocks = bhive_blocks()
    lines: list[str] = []
    while len(lines) < n:
        texts = [text for text, _bytes in disassemble(rng.choice(blocks))]
        if not any(parse._instruction_cached(t)[2].barrier for t in texts):
            lines.extend(texts)
    return "\n".join(lines[:n]) + "\n"


def checkout(rev: str, into: Path) -> None:
    """Extract ``invar/`` at ``rev`` as the package ``invar_before`` under ``into``."""
    data = subprocess.run(["git", "archive", rev, "invar"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    # modules named by string (the frontend registry, the renaming spaces)
    # must load from the old package too
    for path in (into / "invar").rglob("*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"(?<![\w.])invar\.(?=[a-z_])", "invar_before.", text))
    (into / "invar").rename(into / "invar_before")


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
    except (OSError, StopIteration):
        return 0.0


def measure(package: str, args: list[str], env: dict, time_limit: float, memory_limit_mb: float) -> dict:
    """Run one command in a fresh process; stop it past either limit."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, package, out.name, *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        start = time.monotonic()
        over = None
        while child.poll() is None:
            if time.monotonic() - start > time_limit:
                over = f"over {time_limit:.0f} s"
            elif rss_mb(child.pid) > memory_limit_mb:
                over = f"over {memory_limit_mb / 1024:.0f} GiB"
            if over:
                child.kill()
                child.wait()
                return {"over": over}
            time.sleep(0.05)
        err = child.stderr.read().decode(errors="replace").strip()
        if child.returncode != 0 or not Path(out.name).stat().st_size:
            return {"error": err.splitlines()[-1] if err else f"exit {child.returncode}"}
        return json.loads(Path(out.name).read_text())


def shown(result: dict | None) -> str:
    if result is None:
        return "not run (over a limit at a smaller size)"
    if "over" in result:
        return result["over"]
    if "error" in result:
        return f"error: {result['error']}"
    return f"{result['seconds']:.2f} s, {result['peak_mb']:,.0f} MB"


def growth(a: dict | None, b: dict | None, tenfold: float) -> str:
    """Time and memory factors per tenfold input from result ``a`` to ``b``."""
    if not a or not b or "seconds" not in a or "seconds" not in b:
        return "–"
    t = (b["seconds"] / max(a["seconds"], 1e-9)) ** tenfold
    m = (max(b["peak_mb"], 1e-3) / max(a["peak_mb"], 1e-3)) ** tenfold
    return f"×{t:.1f}, ×{m:.1f}"


def library(text: str, all_pairs_max: int) -> dict:
    """The library parse of one block in this process: seconds, tokens and
    dependency pairs (and every conflicting pair when the block holds at most
    ``all_pairs_max`` instructions: tests/oracles/x86_deps_reference.py)."""
    import importlib

    import invar

    importlib.import_module("invar.frontends.x86.parse")._instruction_cached.cache_clear()  # cold, as a fresh process
    t = time.perf_counter()
    program = invar.parse(text, "x86")
    out = {"seconds": time.perf_counter() - t, "tokens": len(program.tokens), "deps": len(program.deps)}
    if len(program.lines) <= all_pairs_max:
        sys.path.insert(0, str(ROOT))
        from tests.oracles.x86_deps_reference import reference

        out["all_pairs"] = len(reference(program))
    return out


def run(args: argparse.Namespace, packages: list[str], files: dict, env: dict) -> list[dict]:
    """Every (size, command, package) run, a smaller size first; a command over a limit is not run larger."""
    rows: list[dict] = []
    done: dict[tuple[str, str, int], dict | None] = {}
    for n in args.sizes:
        for name in args.commands:
            for package in packages:
                r = None
                if all("seconds" in (done.get((package, name, m)) or {}) for m in args.sizes if m < n):
                    cmd = [*COMMANDS[name], str(files[n])]
                    r = measure(package, cmd, env, args.time_limit, args.memory_limit * 1024)
                done[(package, name, n)] = r
                rows.append({"package": package, "command": name, "instructions": n, "result": r})
                print(f"  {n:>7,} {name:<25} {package:<12} {shown(r)}", flush=True)
    return rows


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/frontends.md shows: each
    command's time and peak memory by size, with the growth per tenfold input
    from the size before (time, memory), then the library parse alone."""
    packages = report["packages"]
    labels = {"invar_before": f"before ({report['args']['before']})", "invar": ""}
    by = {(r["package"], r["command"], r["instructions"]): r["result"] for r in report["rows"]}
    sizes = report["args"]["sizes"]
    head = [f"{labels[p]} time, peak memory".strip() for p in packages]
    head += [f"{labels[p]} per tenfold from the size above".strip() for p in packages]
    lines = ["| command | instructions | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    for name in report["args"]["commands"]:
        for k, n in enumerate(sizes):
            cells = [shown(by[(p, name, n)]) for p in packages]
            if k:
                tenfold = 1 / math.log10(n / sizes[k - 1])
                cells += [growth(by[(p, name, sizes[k - 1])], by[(p, name, n)], tenfold) for p in packages]
            else:
                cells += ["" for _ in packages]
            lines.append(f"| {f'`{name}`' if k == 0 else ''} | {n:,} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| library parse, in process | tokens | `Program.deps` pairs | conflicting pairs (all-pairs) | time |",
    ]
    lines.append("|---|---|---|---|---|")
    for n in sizes:
        lib = report["library"][str(n)]
        pairs = f"{lib['all_pairs']:,}" if "all_pairs" in lib else "not computed"
        lines.append(f"| {n:,} instructions | {lib['tokens']:,} | {lib['deps']:,} | {pairs} | {lib['seconds']:.2f} s |")
    lines += ["", f"Load average (1 min) at the start and at the end of the commands: {load_range(report)}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--before", default=None, help="also run the package at this git revision, side by side")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per command")
    ap.add_argument("--memory-limit", type=float, default=6.0, help="GiB of resident memory per command")
    ap.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--all-pairs-max", type=int, default=10_000, help="count every conflicting pair up to this many instructions"
    )
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    env = dict(os.environ)
    packages = ["invar"]
    if args.before:
        checkout(args.before, root / "before")
        env["BEFORE_ROOT"] = str(root / "before")
        packages = ["invar_before", "invar"]
    files = {}
    for n in args.sizes:
        files[n] = root / f"straight{n}.s"
        files[n].write_text(straight_line(n, args.seed + n))
    print(f"machine: {machine()}")
    print(
        f"limits: {args.time_limit:.0f} s and {args.memory_limit:.0f} GiB per command"
        + (f"; before = {args.before}" if args.before else "")
    )
    started = time.time()
    report = {
        "bench": "scaling-x86",
        "machine": machine(),
        "capstone": __import__("capstone").__version__,
        "args": vars(args),
        "packages": packages,
        "load_average_before": os.getloadavg(),
    }
    report["rows"] = run(args, packages, files, env)
    report["load_average_after"] = os.getloadavg()
    report["library"] = {str(n): library(files[n].read_text(), args.all_pairs_max) for n in args.sizes}
    report["wall_seconds"] = time.time() - started
    print()
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
