"""Cost near-linear in the input (issue 8): wide but structured line orders
count and sample at once, and sampling streams in constant memory."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
import tracemalloc

import pytest

import invar
from invar.symmetry.permutations import PermutationSpace
from tests.conftest import lines_executed


def independent(n: int) -> str:
    return "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n)) + "    return 0\n"


def test_500_independent_statements_count_exactly_in_linear_work():
    """500 independent statements parse and count exactly (500!), and ten
    times as many lines take at most about ten times the work: the Python
    lines executed, which no other process changes (about 9.5 times;
    bench/bench_scaling_python.py has the seconds of ``permutations
    --count``)."""

    def count(n: int) -> int:
        return PermutationSpace(invar.parse(independent(n), lang="python")).count()

    assert count(500) == math.factorial(500)
    small, large = (lines_executed(lambda n=n: count(n)) for n in (50, 500))
    assert large / small <= 15, (small, large)


def test_structured_orders_of_thousands_of_lines_are_exact():
    """Chains of independent statements in parallel, cut by barriers into
    series: far too wide for a down-set table, exact by decomposition."""
    body = []
    for block in range(20):
        for chain in range(10):
            body += [f"    c{chain} = c{chain} + {k}" for k in range(5)]
        body.append(f"    print({block})")
    text = "def f():\n" + "".join(f"    c{c} = 0\n" for c in range(10)) + "\n".join(body) + "\n    return 0\n"
    space = PermutationSpace(invar.parse(text, lang="python"))
    # the first barrier: each chain's initialisation and its five steps are a
    # chain of six, ten of them interleaved; after that, ten chains of five
    first = math.factorial(60) // math.factorial(6) ** 10
    rest = math.factorial(50) // math.factorial(5) ** 10
    assert space.count() == first * rest**19
    sample = space.sample(2, rng=1)
    assert all(t in space for t in sample)


#: lines read from ``--sample`` before its memory is judged (about four seconds of its work)
STREAMED = 15_000


def test_sampling_streams_in_constant_memory(tmp_path):
    """``--sample 10**7`` writes as it draws: its memory does not grow while
    it writes its first 15,000 lines (a count of lines, not a time, so that
    what other processes take of the machine changes nothing; half the
    30,000 lines this once read, with half the bound on drift, so a leak of
    so much a line fails it as before)."""
    source = tmp_path / "f.py"
    source.write_text(independent(30))
    proc = subprocess.Popen(
        [sys.executable, "-m", "invar", "permutations", str(source), "--sample", str(10**7), "--format", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        rss = []
        lines = 0
        give_up = time.monotonic() + 300  # only a machine too busy to run it at all stops it early
        while proc.poll() is None and lines < STREAMED and time.monotonic() < give_up:
            chunk = proc.stdout.read1(1 << 16)
            lines += chunk.count(b"\n")
            with open(f"/proc/{proc.pid}/status") as f:
                kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            rss.append(kb)
        assert lines >= STREAMED, lines
        settled = rss[len(rss) // 4 :]
        assert max(settled) - min(settled) < 10_000, (min(settled), max(settled))  # under 10 MB of drift
    finally:
        proc.kill()
        proc.wait()


def test_a_thousand_renamable_names_count_and_sample():
    """No recursion over referents: 1,000 locals count (1000!) and sample."""
    text = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(1000))
    text += "    return " + " + ".join(f"v{i}" for i in range(1000)) + "\n"
    program = invar.parse(text, lang="python")
    space = invar.renamings(program)
    assert space.count() == math.factorial(1000)
    drawn = space.sample(2, rng=3)
    renamed = invar.parse(space.render(drawn[0]), lang="python")
    assert invar.renamings(renamed).count() == math.factorial(1000)
    assert len(next(iter(space.enumerate())).mapping) == 1000


# ------------------------------------------------ many referents (issue 15)
#: locals in the bounded-memory tests below: enough that a table of one big number per referent (k! for
#: every k up to N, 33 MB under tracemalloc) overshoots their bound, as test_the_memory_bounds_can_fail shows
#: (10,000 of them took twice the time: the table 71 MB, the spaces 15 MB, the bound 50 MB)
N = 7_000
#: tracemalloc's peak allowed for N referents: the spaces take about 10.5 MB
BOUND = 22 * 2**20
#: pairs of the order that sheds one line per level, and its bound: it takes about 16 MB, where a table of
#: one count per level ((2k-1)!! for every k up to SHED) takes 36 MB (at 10,000 pairs: 25, 77 and 60 MB)
SHED, SHED_BOUND = 7_000, 28 * 2**20


def _locals(n: int) -> str:
    """``n`` locals, each written and then read by the return."""
    return (
        "def f():\n"
        + "".join(f"    v{i} = {i}\n" for i in range(n))
        + "    return ["
        + ", ".join(f"v{i}" for i in range(n))
        + "]\n"
    )


@pytest.fixture(scope="module")
def many_locals():
    (unit,) = invar.parse_units(_locals(N), lang="python")
    return unit


def _peak(build) -> float:
    """tracemalloc's peak, in bytes, while ``build`` runs."""
    tracemalloc.start()
    try:
        build()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _table(n: int, step) -> list[int]:
    """One big number per level: the running product of ``step(k)`` for k = 1 … n."""
    out, x = [], 1
    for k in range(1, n + 1):
        x *= step(k)
        out.append(x)
    return out


def test_the_memory_bounds_can_fail():
    """The sizes below are large enough for their bounds to catch a quadratic
    construction: a table of one big number per referent, or per level."""
    assert _peak(lambda: _table(N, lambda k: k)) > BOUND
    assert _peak(lambda: _table(SHED, lambda k: 2 * k - 1)) > SHED_BOUND


def test_7000_locals_rename_exactly_in_bounded_memory(many_locals):
    """Count, rank, unrank and sample of 7,000 interchangeable locals: exact
    (7000! renamings), and the space's memory stays a few megabytes where a
    table of one big number per referent needs tens (tracemalloc's peak:
    a bound on work, not a timing)."""
    from invar.symmetry.spaces import renaming_space

    total = math.factorial(N)
    tracemalloc.start()
    try:
        space = renaming_space(many_locals)
        assert space.count() == total
        drawn = space.sample(1, rng=5)[0]
        assert 0 <= space.rank(drawn) < total
        assert sorted(t for _, t in drawn.mapping) == sorted(f"v{i}" for i in range(N))
        first = next(space.enumerate())
        assert space.rank(first) == 0 and [t for _, t in first.mapping] == [f"v{i}" for i in range(N)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < BOUND, f"{peak / 2**20:.0f} MB"


def test_7000_locals_permute_exactly_in_bounded_memory(many_locals):
    """The 7,000 writes are independent and the return reads them all: 7000! orders."""
    total = math.factorial(N)
    tracemalloc.start()
    try:
        space = PermutationSpace(many_locals)
        assert space.count() == total
        (drawn,) = space.sample(1, rng=5)
        assert drawn in space and not drawn.is_identity
        assert space.render(drawn) == space.apply(None, drawn).render()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < BOUND, f"{peak / 2**20:.0f} MB"


@pytest.mark.parametrize("command", ["renamings", "permutations"])
def test_2000_locals_count_and_sample_through_the_cli(tmp_path, command):
    """``--count`` prints every digit of 2000! (5,736 of them; Python's
    own conversion refuses past 4,300), and ``--sample 10``
    prints ten variants, each a renaming or reordering of the source."""
    from typer.testing import CliRunner

    from invar.cli.app import app

    source = tmp_path / "f.py"
    source.write_text(_locals(2000))
    runner = CliRunner()
    expected = math.factorial(2000)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        text = runner.invoke(app, [command, str(source), "--count"])
        assert text.exit_code == 0, text.output
        assert int(text.stdout) == expected
        sampled = runner.invoke(app, [command, str(source), "--sample", "10", "--format", "jsonl"])
        assert sampled.exit_code == 0, sampled.output
    finally:
        sys.set_int_max_str_digits(old)
    records = [json.loads(line) for line in sampled.stdout.splitlines()]
    assert len(records) == 10
    original = sorted(source.read_text().splitlines())
    for r in records:
        lines = r["text"].splitlines()
        assert len(lines) == len(original)
        if command == "permutations":
            assert sorted(lines) == original
        else:
            assert 0 <= r["index"] < expected and len(set(r["referents"].values())) == 2000


def test_an_order_that_sheds_one_line_per_level_decomposes_in_linear_time():
    """n writes, then n prints of them in order: print i needs write i and
    print i-1, so the decomposition sheds one line per level (a series node
    over a parallel node over a series node …, 2n deep). Peeling splits each
    level in time proportional to its edges and the count is kept as one
    product of per-node factors, not a number per node: 7,000 pairs count
    exactly, (2n-1)!! orders, within a bounded memory (tracemalloc's peak).
    (Sampling such a tree still copies each level's draw: quadratic.)"""
    n = SHED
    text = (
        "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(n)) + "".join(f"    print(v{i})\n" for i in range(n))
    )
    (unit,) = invar.parse_units(text, lang="python")
    tracemalloc.start()
    try:
        space = PermutationSpace(unit)
        assert space.count() == math.prod(range(1, 2 * n, 2))
        assert space.bounds() == (space.count(), space.count())
        assert tuple(range(len(unit.lines))) in space
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < SHED_BOUND, f"{peak / 2**20:.0f} MB"
