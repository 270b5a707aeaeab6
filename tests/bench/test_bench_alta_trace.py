"""bench/bench_alta_trace.py: its two tables from a tiny report, the paper's
rows as docs/benchmarks/alta.md quotes them, and the script end to end
(its ``main`` in-process)."""

from __future__ import annotations

import json

from tests.bench import bench_module
from tests.conftest import ROOT

SCRIPT = ROOT / "bench" / "bench_alta_trace.py"
LOAD = {"load_average_before": [0.5, 0.4, 0.3], "load_average_after": [1.5, 1.0, 0.5]}


def _result(program: str, config: dict, share: float) -> dict:
    cells = {"Length ≤ 20": [1.0, 338], "Length > 20": [share, 1660], "Ones > 20": [share, 965]}
    return {
        "program": program,
        "config": config,
        "pairs": 520582,
        "pairs_seconds": 3.46,
        "train_seconds": 1623.4,
        "loss_first": 0.26,
        "loss_last": 0.0001,
        "trained": cells,
        "minimal": cells,
        "compiled": {k: [1.0, n] for k, (_, n) in cells.items()},
        "rules": 1722,
        "minimal_rules": 51,
    }


def test_the_table_shows_accuracy_beside_the_paper_and_the_training():
    bench = bench_module("bench_alta_trace")
    relative = {"hidden": [128, 128], "steps": 50000, "lr": 0.01, "optimizer": "adafactor"}
    count = {"hidden": [512] * 4, "steps": 100000, "lr": 1e-4, "optimizer": "adam"}
    results = [_result("parity-relative", relative, 1.0), _result("parity-sum-count", count, 0.71)]
    args = {"train": 2000, "test": 2000, "threads": 2}
    text = bench.table({"args": args, "torch": "2.13.0", "results": results, **LOAD})
    assert "| parity-relative | trace supervision here | 100% (338) | 100% (1660) | 100% (965) |" in text
    assert "| parity-sum-count | minimal program, compiled | 100% (338) | 71% (1660) | 71% (965) |" in text
    assert "| parity-sum-count | full program, compiled | 100% (338) | 100% (1660) | 100% (965) |" in text
    assert (
        "| parity-relative | 2 × 128, Adafactor 0.01, 50,000 steps | 520,582 | 3.5 s | 1,623 s "
        "| 0.26 → 0.00010 | 1,722 → 51 |" in text
    )
    assert "| parity-sum-count | 4 × 512, Adam 0.0001, 100,000 steps |" in text
    assert "2,000 training inputs of lengths 0–20, 2,000 test inputs of lengths 0–40; torch 2.13.0, 2 threads." in text
    assert "Load average (1 min) at the start and at the end: 0.5 → 1.5." in text


def test_the_papers_rows_are_those_the_page_quotes():
    bench = bench_module("bench_alta_trace")
    page = (ROOT / "docs" / "benchmarks" / "alta.md").read_text()
    cells = {s: [1.0, 1] for s in ("Length ≤ 20", "Length > 20", "Ones > 20")}
    results = [{"program": name, "trained": cells, "minimal": cells, "compiled": cells} for name in bench.PAPER_TABLE_2]
    rows = [line for line in bench.accuracy_table(results).splitlines() if "| paper, " in line]
    assert len(rows) == 4
    for row in rows:
        assert row + "\n" in page, row


def test_the_script_writes_a_report_whose_table_renders(tmp_path, monkeypatch, capsys):
    report_path = tmp_path / "alta-trace.json"
    argv = [
        "--programs",
        "parity-relative",
        "parity-sum-mod",
        "--train",
        "30",
        "--test",
        "30",
        "--hidden",
        "parity-relative=8x1",
        "parity-sum-mod=8x1",
        "--steps",
        "parity-relative=3",
        "parity-sum-mod=3",
        "--threads",
        "1",
        "--report",
        str(report_path),
    ]
    monkeypatch.chdir(SCRIPT.parent)
    bench = bench_module("bench_alta_trace")
    bench.main(argv)
    stdout = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    assert [r["program"] for r in report["results"]] == ["parity-relative", "parity-sum-mod"]
    assert report["args"]["steps"] == ["parity-relative=3", "parity-sum-mod=3"]
    assert {"machine", "torch", "load_average_before", "load_average_after"} <= set(report)
    text = bench.table(report)
    assert text in stdout
    assert "| parity-sum-mod | 1 × 8, Adam 0.0001, 3 steps |" in text
