"""The analysis benchmarks' ``table(report)`` on tiny reports: each renders
the figures it is given (bench/tables.py puts them in the methods pages)."""

from __future__ import annotations

from tests.bench import bench_module

LOAD = {"load_average_before": [0.5, 0.4, 0.3], "load_average_after": [1.5, 1.0, 0.5]}


def test_x86_parse_table_shows_medians_rates_and_their_ratio():
    bench = bench_module("bench_x86_parse")
    report = {"blocks": 1000, "tokens": 5000, "capstone_seconds": [0.1, 0.3, 0.2], "invar_seconds": [4.0, 2.0, 3.0]}
    text = bench.table({**report, **LOAD})
    assert "| capstone decode only | 0.20 s | 5,000 |" in text
    assert "| invar parse (decode + IR + semantics + dependencies) | 3.00 s | 333 |" in text
    assert "| ratio (invar / capstone) | 15.0× | |" in text
    assert "0.5 → 1.5" in text
