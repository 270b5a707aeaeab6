"""The dataset generator: every trace checks, sizes are flat, seeds reproduce."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from invar.errors import DataError, UsageError
from invar.frontends.ltl.check import check
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.generate import (
    GeneratorConfig,
    generate_file,
    generate_record,
    random_formula,
    read_dataset,
    size_of_record,
)
from invar.frontends.ltl.trace import parse_trace


def test_random_formula_has_the_requested_size() -> None:
    rng = random.Random(0)
    for size in range(1, 60):
        f = random_formula(rng, size, "abcde")
        assert f.size == size
        assert set(f.aps()) <= set("abcde")


def test_sizes_are_spread_exactly_evenly_per_block() -> None:
    config = GeneratorConfig(num=0, max_size=35, seed=4)
    sizes = [size_of_record(config, i) for i in range(35 * 4)]
    assert Counter(sizes) == {s: 4 for s in range(1, 36)}
    assert sizes[:35] != sorted(sizes[:35])  # shuffled, not sorted


def test_generated_file_checks_is_flat_and_reproducible(tmp_path) -> None:
    config = GeneratorConfig(num=140, aps=5, max_size=35, seed=3)
    out = tmp_path / "ltl.txt"
    stats = generate_file(config, out, jobs=2)
    assert stats.written == 140 and stats.abandoned == 0
    pairs = list(read_dataset(out.read_text()))
    assert len(pairs) == 140
    sizes = Counter()
    for formula, trace in pairs:
        f = parse_formula(formula)
        assert check(f, parse_trace(trace)).holds, (formula, trace)
        assert set(f.aps()) <= set("abcde")
        sizes[f.size] += 1
    # 140 records = 4 full blocks of sizes 1..35: perfectly flat
    assert sizes == {s: 4 for s in range(1, 36)}
    assert sum(stats.sizes.values()) == 140
    again = tmp_path / "again.txt"
    generate_file(config, again, jobs=1)
    assert again.read_bytes() == out.read_bytes()


def test_resume_gives_the_same_bytes(tmp_path) -> None:
    full = tmp_path / "full.jsonl"
    generate_file(GeneratorConfig(num=90, max_size=20, seed=8), full, fmt="jsonl", jobs=1)
    part = tmp_path / "part.jsonl"
    generate_file(GeneratorConfig(num=70, max_size=20, seed=8), part, fmt="jsonl", jobs=1)
    with open(part, "ab") as f:
        f.write(b'{"formula": "torn')  # an interrupted write past the checkpoint
    generate_file(GeneratorConfig(num=90, max_size=20, seed=8), part, fmt="jsonl", jobs=2)
    assert part.read_bytes() == full.read_bytes()
    records = [json.loads(line) for line in full.read_text().splitlines()]
    assert all(set(r) == {"formula", "trace", "size"} for r in records)
    with pytest.raises(DataError):
        generate_file(GeneratorConfig(num=90, max_size=20, seed=9), part, fmt="jsonl", jobs=1)
    # fewer than the file holds: resuming would keep them all, so it is refused and the file kept
    with pytest.raises(DataError, match="holds 90 records, more than --num 60"):
        generate_file(GeneratorConfig(num=60, max_size=20, seed=8), part, fmt="jsonl", jobs=1)
    assert part.read_bytes() == full.read_bytes()
    generate_file(GeneratorConfig(num=90, max_size=20, seed=8), part, fmt="jsonl", jobs=1)  # as many: done
    assert part.read_bytes() == full.read_bytes()


def test_unsatisfiable_formulas_are_dropped_and_counted() -> None:
    # one AP and only & and ! make many contradictions (a & !a)
    config = GeneratorConfig(num=0, aps=1, max_size=6, min_size=4, ops=("!", "&"), seed=1)
    total_unsat = 0
    for i in range(30):
        record, stats = generate_record(config, i)
        total_unsat += stats.unsatisfiable
        assert record is not None
        assert check(parse_formula(record["formula"]), parse_trace(record["trace"])).holds
    assert total_unsat > 0


def test_timeouts_are_dropped_and_counted() -> None:
    config = GeneratorConfig(num=0, aps=5, max_size=30, min_size=30, seed=2, max_states=1, max_attempts=3)
    record, stats = generate_record(config, 0)
    assert record is None and stats.timeouts == 3 and stats.abandoned == 1


def test_bad_settings() -> None:
    with pytest.raises(UsageError):
        GeneratorConfig(num=1, aps=27)
    with pytest.raises(UsageError):
        GeneratorConfig(num=1, ops=("!", "Q"))
    with pytest.raises(UsageError):
        GeneratorConfig(num=1, min_size=5, max_size=3)
    for bad in (
        dict(timeout=0),
        dict(timeout=-1.0),
        dict(timeout=float("nan")),
        dict(max_states=0),
        dict(num=-1),
        dict(max_attempts=0),
        dict(ops=("&",)),
        dict(ops=("&", "U"), min_size=4, max_size=4),
        dict(ops=(), max_size=2),
    ):
        with pytest.raises(UsageError):
            GeneratorConfig(**{"num": 1, **bad})
    # what can be built is accepted: odd sizes from binary operators alone, size 1 from none
    GeneratorConfig(num=1, ops=("&", "U"), min_size=9, max_size=9)
    GeneratorConfig(num=1, ops=(), max_size=1)
    GeneratorConfig(num=1, timeout=None, max_states=None)


def test_binary_operators_alone_build_odd_sizes() -> None:
    rng = random.Random(3)
    for size in range(1, 40, 2):
        assert random_formula(rng, size, "ab", ("U", "&")).size == size
    with pytest.raises(UsageError):
        random_formula(rng, 4, "ab", ("U", "&"))


def test_the_time_limit_holds_per_formula() -> None:
    """Solving and checking one formula share its time limit; a nest of
    until and release over 20 APs never finishes in 0.2 s."""
    import time

    config = GeneratorConfig(
        num=1,
        aps=20,
        min_size=61,
        max_size=61,
        ops=("U", "R", "!"),
        seed=1,
        timeout=0.2,
        max_states=None,
        max_attempts=3,
    )
    start = time.perf_counter()
    record, stats = generate_record(config, 0)
    elapsed = time.perf_counter() - start
    assert record is None and stats.timeouts == 3 and stats.abandoned == 1
    assert 0.6 <= elapsed < 30, elapsed  # three attempts of 0.2 s; unchecked, one never ends (room for a busy machine)


# ------------------------------------------------------- exactly k distinct APs
DISTINCT_CASES = [
    # (k, aps, min_size, max_size, ops)
    (1, 3, None, 6, None),
    (2, 2, None, 6, None),
    (2, 5, 3, 12, None),
    (3, 5, None, 5, None),  # only the smallest size: three leaves, two binary operators
    (4, 10, None, 20, None),
    (5, 5, 11, 11, ("&", "U", "|")),  # binary operators alone build one odd size
    (7, 10, None, 15, ("!", "X", "&", "U")),
]


@pytest.mark.parametrize("k,aps,min_size,max_size,ops", DISTINCT_CASES)
def test_distinct_aps_exactly_k_per_formula_reproducible_and_checked(tmp_path, k, aps, min_size, max_size, ops) -> None:
    extra = {"ops": ops} if ops else {}
    config = GeneratorConfig(
        num=24, aps=aps, min_size=min_size, max_size=max_size, seed=k, distinct_aps=k, timeout=None, **extra
    )
    assert config.min_size == (min_size if min_size is not None else 2 * k - 1 if k > 1 else 1)
    out = tmp_path / "k.txt"
    stats = generate_file(config, out, jobs=1)
    assert stats.written == 24 and stats.abandoned == 0
    names = {chr(ord("a") + j) for j in range(aps)}
    seen: set[str] = set()
    for formula, trace in read_dataset(out.read_text()):
        f = parse_formula(formula)
        assert len(set(f.aps())) == k, formula
        assert set(f.aps()) <= names
        assert config.min_size <= f.size <= max_size
        assert check(f, parse_trace(trace)).holds, (formula, trace)
        seen |= set(f.aps())
    if k < aps:
        assert len(seen) > k  # the k APs are drawn per formula, not fixed
    again = tmp_path / "again.txt"
    generate_file(config, again, jobs=2)
    assert again.read_bytes() == out.read_bytes()
    other = tmp_path / "other.txt"
    generate_file(GeneratorConfig(**{**config.__dict__, "seed": config.seed + 100}), other, jobs=1)
    assert other.read_bytes() != out.read_bytes()


def test_random_formula_with_k_distinct_aps_at_every_size() -> None:
    rng = random.Random(5)
    for k in (1, 2, 3, 6):
        for size in range(2 * k - 1, 2 * k + 12):
            for _ in range(5):
                f = random_formula(rng, size, "abcdefgh", distinct=k)
                assert f.size == size and len(set(f.aps())) == k


def test_distinct_aps_leaves_the_default_stream_alone(tmp_path) -> None:
    """Without the option the records are those of before it existed: the
    settings a resumed file was written with carry no new key."""
    config = GeneratorConfig(num=6, max_size=10, seed=2)
    assert config.min_size == 1
    out = tmp_path / "d.txt"
    generate_file(config, out, jobs=1)
    meta = json.loads((tmp_path / "d.txt.meta.json").read_text())
    assert "distinct_aps" not in meta["params"] and meta["params"]["min_size"] == 1


@pytest.mark.parametrize(
    "settings,message",
    [
        (dict(distinct_aps=6, aps=5), "--distinct-aps must be between 1 and --aps (5)"),
        (dict(distinct_aps=0), "--distinct-aps must be between 1"),
        (dict(distinct_aps=3, max_size=4), "--max-size must be at least 5"),
        (dict(distinct_aps=3, min_size=3, max_size=20), "--min-size (or leave it out) must be at least 5"),
        (dict(distinct_aps=2, ops=("!", "X")), "needs a binary operator"),
    ],
)
def test_distinct_aps_bad_settings(settings, message) -> None:
    with pytest.raises(UsageError) as err:
        GeneratorConfig(num=1, **settings)
    assert message in str(err.value) and "\n" not in str(err.value)
