"""Cost near-linear in the input: parsing a straight-line x86 block and
counting its renamings, or building its DLG, at 4,000 instructions costs
at most about ten times what it costs at 400, in time and in peak memory.

The blocks are seeded concatenations of real BHive blocks with no barrier
(no control flow, no rip-relative operand, nothing that reads the world), so
nothing cuts the dependency analysis short. Each timing is the minimum of a
few runs, in CPU time, with the instruction cache cleared, which keeps a
loaded machine from failing the test; the bound (20 for a tenfold input) leaves room for
noise and still fails anything quadratic (about 100). bench/bench_scaling_x86.py
measures the same at up to 100,000 instructions.
"""

from __future__ import annotations

import gc
import importlib
import random
import time
import tracemalloc

import pytest

from invar.frontends.x86.hexblock import disassemble
from invar.symmetry.dlg import dlg
from invar.symmetry.spaces import renaming_space
from tests.conftest import bhive_blocks

_parse = importlib.import_module("invar.frontends.x86.parse")

SIZES = (400, 4_000)  # (500 and 5,000 took a fifth more: the peak memory, traced, is most of the cost)
#: timed runs per size (the minimum counts; the small size is the noisier)
REPEAT = {400: 5, 4_000: 2}
#: most a tenfold input may multiply time or peak memory by
BOUND = 20


def straight_line(n: int, seed: int) -> str:
    """``n`` instructions of BHive blocks that hold no barrier, concatenated."""
    rng = random.Random(seed)
    blocks = bhive_blocks()
    lines: list[str] = []
    while len(lines) < n:
        texts = [text for text, _bytes in disassemble(rng.choice(blocks))]
        if not any(_parse._instruction_cached(t)[2].barrier for t in texts):
            lines.extend(texts)
    return "\n".join(lines[:n])


def _costs(text: str, repeat: int) -> dict[str, float]:
    """CPU seconds (best of ``repeat``) and peak traced bytes of parse + renaming
    count and of parse + DLG."""
    best = {"parse": float("inf"), "count": float("inf"), "dlg": float("inf")}
    for _ in range(repeat):
        _parse._instruction_cached.cache_clear()
        gc.collect()
        gc.freeze()  # full collections walk what the runs allocate, not the test session
        try:
            t0 = time.process_time()
            program = _parse.parse(text)
            t1 = time.process_time()
            renaming_space(program).count()
            t2 = time.process_time()
            dlg(program)
            t3 = time.process_time()
        finally:
            del program
            gc.unfreeze()
        for key, seconds in (("parse", t1 - t0), ("count", t2 - t1), ("dlg", t3 - t2)):
            best[key] = min(best[key], seconds)
    _parse._instruction_cached.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        program = _parse.parse(text)
        parsed = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        renaming_space(program).count()
        counted = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        dlg(program)
        layered = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return {
        "time parse + renamings --count": best["parse"] + best["count"],
        "time parse + dlg": best["parse"] + best["dlg"],
        "memory parse + renamings --count": max(parsed, counted),
        "memory parse + dlg": max(parsed, layered),
    }


@pytest.fixture(scope="module")
def costs() -> dict[int, dict[str, float]]:
    texts = {n: straight_line(n, seed=n) for n in SIZES}
    return {n: _costs(texts[n], REPEAT[n]) for n in SIZES}


@pytest.mark.parametrize(
    "measure",
    ["time parse + renamings --count", "time parse + dlg", "memory parse + renamings --count", "memory parse + dlg"],
)
def test_tenfold_input_costs_at_most_about_tenfold(costs, measure, record_property):
    small, large = (costs[n][measure] for n in SIZES)
    ratio = large / small
    shown = (lambda v: f"{v:.2f} s") if measure.startswith("time") else (lambda v: f"{v / 1e6:.1f} MB")
    record_property(
        "oracle",
        f"{measure}: {shown(small)} at {SIZES[0]:,} instructions, {shown(large)} at {SIZES[1]:,}: x{ratio:.1f}",
    )
    assert ratio <= BOUND, (measure, small, large)
