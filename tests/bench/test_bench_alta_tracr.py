"""bench/bench_alta_tracr.py: invar's side answers each function right, and
without Tracr the script says so instead of failing; its report renders one
table per ``mlp_exactness``."""

from __future__ import annotations

import importlib.util
import json
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
def test_without_tracr_only_invars_side_is_shown(capsys, tmp_path):
    path = tmp_path / "r.json"
    report = bench.main(["--inputs", "3", "--max-length", "6", "--mlp-exactness", "100", "1000", "--report", str(path)])
    out = capsys.readouterr().out
    assert "Tracr is not installed" in out and "| Tracr |" not in out and out.count("| invar ALTA |") == 6
    assert json.loads(path.read_text()) == json.loads(json.dumps(report))
    assert report["tracr"] is None and sorted(report["rows"]) == ["100", "1000"]


def test_table_shows_each_exactness_and_the_agreement():
    row = {"layers": 2, "heads": 1, "width": 25, "mlp": "12 hidden", "params": 3091, "inputs": 100}
    report = {
        "machine": "M",
        "torch": "T",
        "tracr": "jax J",
        "rows": {
            "100": [
                {**row, "function": "sort", "compiler": "invar ALTA", "right": 100, "agree": 52},
                {**row, "function": "sort", "compiler": "Tracr", "right": 52, "agree": 52},
            ],
            "1000": [{**row, "function": "sort", "compiler": "invar ALTA", "right": 100, "agree": None}],
        },
    }
    text = bench.table(report)
    assert "`mlp_exactness` 100:" in text and "`mlp_exactness` 1000:" in text
    assert "| sort | Tracr | 2 | 1 | 25 | 12 hidden | 3,091 | 52/100 | 52/100 |" in text
    assert "| sort | invar ALTA | 2 | 1 | 25 | 12 hidden | 3,091 | 100/100 | — |" in text
    assert text.endswith("M; torch T; jax J.")
