"""bench/bench_alta_tracr.py: invar's side answers each function right, and
without Tracr the script says so instead of failing."""

from __future__ import annotations

import importlib.util
import random

import pytest

from tests.bench import bench_module

bench = bench_module("bench_alta_tracr")


@pytest.mark.parametrize("name", sorted(bench.FUNCTIONS))
def test_alta_side_answers_the_function(name):
    inputs = bench.random_inputs(name, "abcd", 8, 30, random.Random(1))
    side = bench.alta_side(name, "abcd", 8, inputs)
    assert side["answers"] == [bench.expected(name, x) for x in inputs]
    assert side["layers"] >= 1 and side["width"] > 0 and side["params"] > 0


@pytest.mark.parametrize(
    "name, x, want",
    [
        ("sort", list("cab"), list("abc")),
        ("reverse", list("abb"), list("bba")),
        ("histogram", list("abab"), [2, 2, 2, 2]),
    ],
)
def test_expected_is_the_function(name, x, want):
    assert bench.expected(name, x) == want


@pytest.mark.skipif(importlib.util.find_spec("tracr") is not None, reason="Tracr is installed here")
def test_without_tracr_only_invars_side_is_shown(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench_alta_tracr.py", "--inputs", "3", "--max-length", "6"])
    bench.main()
    out = capsys.readouterr().out
    assert "Tracr is not installed" in out and "| Tracr |" not in out and out.count("| invar ALTA |") == 3
