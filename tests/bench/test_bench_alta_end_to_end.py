"""bench/bench_alta_end_to_end.py: its table from a tiny report (mean ± sd
over seeds per grid cell), the paper's Table 3 as docs/benchmarks/alta.md
quotes it, and the script end to end (its ``main`` in-process)."""

from __future__ import annotations

import json

from tests.bench import bench_module
from tests.conftest import ROOT

SCRIPT = ROOT / "bench" / "bench_alta_end_to_end.py"
LOAD = {"load_average_before": [0.5, 0.4, 0.3], "load_average_after": [1.5, 1.0, 0.5]}
ARGS = {"width": 64, "heads": 4, "hidden": 256, "lr": 1e-3, "batch_size": 256, "train": 50000, "eval_every": 250}
ARGS.update({"patience": 6, "steps": 3000, "test": 4000, "device": "cpu", "threads": 1})


def _run(sharing: bool, seed: int, short: float, best: int) -> dict:
    cell = {"layers": 2, "sharing": sharing, "positions": "relative", "seed": seed, "best_step": best}
    return {**cell, "seconds": 480.0, "Length ≤ 20": short, "Length > 20": 0.5, "Ones > 20": 0.55}


def test_the_table_shows_each_grid_cell_as_mean_and_sd_over_seeds():
    bench = bench_module("bench_alta_end_to_end")
    results = [_run(False, 0, 0.9, 3000), _run(False, 1, 0.8, 2000), _run(True, 0, 0.808, 2000)]
    text = bench.table({"args": ARGS, "torch": "2.13.0", "results": results, **LOAD})
    assert (
        "| layers | weight sharing | positions | Length ≤ 20 | Length > 20 | Ones > 20 | best step (of 3,000) |" in text
    )
    assert "| 2 | no | relative | 85.0 ± 7.1 % | 50.0 ± 0.0 % | 55.0 ± 0.0 % | 2,500 ± 707 | 8.0 ± 0.0 |" in text
    assert "| 2 | yes | relative | 80.8 % | 50.0 % | 55.0 % | 2,000 | 8.0 |" in text  # one seed: no sd
    assert "mean ± sd over seeds 0, 1" in text
    assert "at most 3,000 steps" in text and "(still improving): 1 of 3" in text
    assert "Load average (1 min) at the start and at the end: 0.5 → 1.5." in text


def test_the_papers_table_3_is_the_one_the_page_quotes():
    table3 = bench_module("bench_alta_end_to_end").paper_table()
    assert table3.count("\n") == 9
    assert table3 + "\n" in (ROOT / "docs" / "benchmarks" / "alta.md").read_text()


def test_the_script_writes_a_report_whose_table_renders(tmp_path, monkeypatch, capsys):
    report_path = tmp_path / "alta-end-to-end.json"
    tiny = ["--layers", "1", "--width", "8", "--hidden", "16", "--heads", "2", "--batch-size", "16", "--train", "100"]
    grid = ["--sharing", "no", "yes", "--positions", "relative", "absolute", "--seeds", "0", "1"]
    steps = ["--steps", "4", "--eval-every", "2", "--patience", "1", "--test", "60", "--threads", "1"]
    monkeypatch.chdir(SCRIPT.parent)
    bench = bench_module("bench_alta_end_to_end")
    bench.main([*tiny, *grid, *steps, "--report", str(report_path)])
    stdout = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    assert len(report["results"]) == 8  # 2 sharings × 2 positions × 2 seeds
    assert report["args"]["seeds"] == [0, 1]
    assert {"machine", "torch", "load_average_before", "load_average_after"} <= set(report)
    text = bench.table(report)
    assert text in stdout
    rows = [line for line in text.splitlines() if line.startswith("| 1 |")]
    assert [row.split(" | ")[1:3] for row in rows] == [
        ["no", "relative"],
        ["yes", "relative"],
        ["no", "absolute"],
        ["yes", "absolute"],
    ]
    assert all(" ± " in row for row in rows)
