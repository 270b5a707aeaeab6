"""Cost near-linear in the input: parsing a straight-line x86 block and
counting its renamings, or building its DLG, at 4,000 instructions costs
at most about ten times what it costs at 400, in work and in peak memory.

The blocks are seeded concatenations of real BHive blocks with no barrier
(no control flow, no rip-relative operand, nothing that reads the world), so
nothing cuts the dependency analysis short. Work is counted as the Python
lines executed (``tests.conftest.lines_executed``) and memory as the peak
that tracemalloc traces, so the test reads the same on a loaded machine as
on an idle one: it never times. A tenfold input costs about 9 times the
lines and at most 10 times the memory; the bound, 15, fails anything
quadratic (about 100, as the last test shows of the counter).
bench/bench_scaling_x86.py measures the seconds at up to 100,000
instructions.
"""

from __future__ import annotations

import gc
import importlib
import random
import tracemalloc

import pytest

from invar.frontends.x86.hexblock import disassemble
from invar.symmetry.dlg import dlg
from invar.symmetry.spaces import renaming_space
from tests.conftest import bhive_blocks, lines_executed

_parse = importlib.import_module("invar.frontends.x86.parse")

SIZES = (400, 4_000)
#: most a tenfold input may multiply the work or the peak memory by
BOUND = 15


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


def _work(text: str) -> dict[str, int]:
    """Lines executed by parse + renaming count and by parse + DLG, each
    parse from a cold instruction cache."""

    def parsed():
        _parse._instruction_cached.cache_clear()
        return _parse.parse(text)

    parse = lines_executed(parsed)
    program = parsed()
    return {
        "work parse + renamings --count": parse + lines_executed(renaming_space(program).count),
        "work parse + dlg": parse + lines_executed(lambda: dlg(program)),
    }


def _memory(text: str) -> dict[str, int]:
    """Peak traced bytes of parse + renaming count and of parse + DLG."""
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
    return {"memory parse + renamings --count": max(parsed, counted), "memory parse + dlg": max(parsed, layered)}


@pytest.fixture(scope="module")
def costs() -> dict[int, dict[str, int]]:
    texts = {n: straight_line(n, seed=n) for n in SIZES}
    _work(texts[SIZES[0]])  # whatever else is cached on first use is filled before either size counts
    return {n: _work(texts[n]) | _memory(texts[n]) for n in SIZES}


@pytest.mark.parametrize(
    "measure",
    ["work parse + renamings --count", "work parse + dlg", "memory parse + renamings --count", "memory parse + dlg"],
)
def test_tenfold_input_costs_at_most_about_tenfold(costs, measure, record_property):
    small, large = (costs[n][measure] for n in SIZES)
    ratio = large / small
    shown = (lambda v: f"{v:,} lines") if measure.startswith("work") else (lambda v: f"{v / 1e6:.1f} MB")
    record_property(
        "oracle",
        f"{measure}: {shown(small)} at {SIZES[0]:,} instructions, {shown(large)} at {SIZES[1]:,}: x{ratio:.1f}",
    )
    assert ratio <= BOUND, (measure, small, large)


def _all_pairs(n: int) -> int:
    """A dependency scan that compares every pair of lines: quadratic."""
    return sum(1 for i in range(n) for j in range(i) if (i ^ j) & 1)


def test_the_counter_fails_a_quadratic_pass():
    """The same bound on the same counter catches work that grows with the
    square of the input."""
    small, large = (lines_executed(lambda n=n: _all_pairs(n)) for n in (40, 400))
    assert large / small > 5 * BOUND
