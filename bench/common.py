"""Helpers shared by the benchmarks: timing, the machine, the shared data."""

from __future__ import annotations

import os
import platform
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
