"""Helpers shared by the benchmarks: timing, the machine, the shared data."""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
BHIVE = ROOT.parent / "shared" / "data" / "bhive"


def bhive_blocks() -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(BHIVE.glob("*.csv")):
        with open(path) as f:
            for line in f:
                h = line.split(",", 1)[0].strip()
                if h:
                    seen.setdefault(h, None)
    if not seen:
        raise SystemExit("BHive data not found at ../shared/data/bhive")
    return list(seen)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def finish(report: dict, table: Callable[[dict], str], path: str | Path | None) -> dict:
    """Print ``table(report)``, write the report as JSON to ``path`` when
    one is given (``--report``), and return it."""
    print(table(report))
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
    return report


def portable(args, placeholders: dict[str, str]) -> dict[str, str]:
    """``args`` as strings for a report, the options that name this machine's
    paths given as ``placeholders`` (``{"out": "DIR"}``): a report holds no
    path of the machine that wrote it."""
    return {k: placeholders.get(k, str(v)) for k, v in vars(args).items()}


def opened(
    args, bench: str | None = None, placeholders: dict[str, str] | None = None, versions: dict[str, str] | None = None
) -> dict:
    """A report's opening: its bench's name (when given), the machine, the
    versions of what it measures (torch's unless ``versions`` names others),
    the arguments (as :func:`portable` writes them when ``placeholders`` are
    given) and the load average now."""
    if versions is None:
        import torch

        versions = {"torch": torch.__version__}
    head = {"bench": bench} if bench else {}
    return {
        **head,
        "machine": machine(),
        **versions,
        "args": vars(args) if placeholders is None else portable(args, placeholders),
        "load_average_before": os.getloadavg(),
    }


def so_far(report: dict, path: str | Path | None) -> None:
    """Write ``report`` as it stands to ``path`` (when given), so that a long run cut short keeps what it did."""
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=1)


def closed(report: dict, started: float | None = None) -> dict:
    """``report`` with the load average now, at its end, and, given the
    ``time.time()`` it started at, the wall seconds it took."""
    report["load_average_after"] = os.getloadavg()
    if started is not None:
        report["wall_seconds"] = time.time() - started
    return report


def load_line(report: dict) -> str:
    """A table's closing line: the load average at the report's start and end."""
    return f"Load average (1 min) at the start and at the end: {load_range(report)}."


def load_row(report: dict, empty: int = 0) -> str:
    """A table's row of the load average at the report's start and end,
    followed by ``empty`` blank cells."""
    return f"| load average (1 min), start → end | {load_range(report)} |" + " |" * empty


def load_range(report: dict) -> str:
    """A report's one-minute load average at its start and at its end, as ``a → b``."""
    return f"{report['load_average_before'][0]:.1f} → {report['load_average_after'][0]:.1f}"


def each(report: dict | list[dict]) -> list[dict]:
    """The reports a table is given: one, or several of the same script set side by side (bench/tables.py)."""
    return report if isinstance(report, list) else [report]


def joined(report: dict | list[dict], key: str) -> list:
    """``report[key]``, or the lists of several reports' ``key`` one after another."""
    return [item for one in each(report) for item in one[key]]


def repeat(fn: Callable[[], object], times: int) -> list[float]:
    """Wall-clock seconds of ``times`` runs of ``fn``."""
    out = []
    for _ in range(times):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def mean_sd(xs: list[float], fmt: str = "{:.2f}", unit: str = "") -> str:
    """``mean ± sd`` of ``xs`` in ``fmt`` (sd 0 for one value), then ``unit``; ``–`` for none."""
    if not xs:
        return "–"
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{fmt.format(statistics.mean(xs))} ± {fmt.format(sd)}{unit}"


def spread(xs: list[float], fmt: str = "{:.2f}", unit: str = "") -> str:
    """One value as it is; several as :func:`mean_sd`."""
    return fmt.format(xs[0]) + unit if len(xs) == 1 else mean_sd(xs, fmt, unit)


def seed_group(name: str) -> str:
    """A run's name without its ``-sK`` seed suffix: the runs of one model over seeds share it."""
    return re.sub(r"-s\d+$", "", name)


def checkout(rev: str, into: Path) -> Path:
    """Extract the package ``invar/`` as it was at git revision ``rev`` into
    ``into``; run a command with ``PYTHONPATH=into`` to use it."""
    import io
    import subprocess
    import tarfile

    data = subprocess.run(["git", "archive", rev, "invar"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def wait_until(proc, deadline: float, poll: float = 0.01) -> tuple[bool, int, object]:
    """``(finished, wait status, resource usage)`` of the child ``proc``,
    polled every ``poll`` seconds until it ends or ``time.perf_counter()``
    passes ``deadline``; then it is killed (``finished`` False) and reaped."""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return True, status, usage
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return False, status, usage
        time.sleep(poll)


def measure(
    args: list[str], *, pythonpath: Path | None = None, timeout: float = 600.0, stdout=None
) -> tuple[float | None, int | None]:
    """(wall seconds, peak resident memory in KB) of ``python -c <invar's CLI>
    ARGS`` in a fresh process, the package taken from ``pythonpath`` (the
    working tree when None); ``(None, None)`` when it runs past ``timeout``
    or fails."""
    import subprocess
    import sys

    env = dict(os.environ)
    env["PYTHONPATH"] = str(pythonpath or ROOT)
    code = "import sys; from invar.cli.app import main; sys.argv = ['invar', *sys.argv[1:]]; main()"
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=ROOT,
        stdout=stdout or subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    finished, status, usage = wait_until(proc, start + timeout)
    if not finished:
        return None, None
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        return None, None
    return seconds, usage.ru_maxrss


def counts_before(text) -> tuple:
    """``text`` (a string, or a list of characters) -> (codes (T,), counts (T - 1, K)): each character as the
    index of its kind among the K distinct ones the text holds (in sorted order), and at each position after
    the first, how many of each kind came before it. What a reader that only counts the window sees."""
    import numpy as np

    codes = np.unique(np.asarray(list(text)), return_inverse=True)[1].reshape(-1)
    return codes, np.cumsum(np.eye(codes.max() + 1)[codes], axis=0)[:-1]
