"""bench/bench_audit.py: its throughput and Figure 2 tables from a tiny
report, and the script end to end (its ``main`` in-process; Figure 2's
audits in fresh processes, as always) on a few BHive blocks (a sample of
../shared's) with the fixture checkpoint."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from tests.bench import bench_module
from tests.conftest import BHIVE, FIXTURES, ROOT

SCRIPT = ROOT / "bench" / "bench_audit.py"
LOAD = {"load_average_before": [0.5, 0.4, 0.3], "load_average_after": [1.5, 1.0, 0.5]}
ARGS = {"variants": 16, "naive": 32, "repeat": 3, "threads": 1, "figure2": 100000}


def _throughput() -> dict:
    rows = [
        {"model": "vanilla", "predictions": 4352, "batched": 884.2, "naive": 176.0, "outside": 0.14},
        {"model": "renamer", "predictions": 4352, "batched": 880.0, "naive": 163.0, "outside": 0.13},
    ]
    return {"blocks_audited": 256, "throughput": rows, "llvm_mca_per_s": 812.0, "llvm_mca_variants": 2000}


def _figure2() -> dict:
    row = {"block": "Figure 1(a)", "model": "vanilla", "seconds": 9.6, "rss_mb": 422.4, "cycles": 1.68}
    row.update({"predictions": 3361, "min": 1.32, "max": 1.53, "distinct": 3255})
    failed = {**row, "model": "renamer", "seconds": None}
    return {"figure2": [row, failed]}


def test_the_table_shows_the_throughput_and_figure_2_that_the_report_holds():
    bench = bench_module("bench_audit")
    report = {"args": ARGS, "torch": "2.13.0", "llvm_mca": "14.0.6", **LOAD}
    both = bench.table({**report, **_throughput(), **_figure2()})
    assert "| vanilla | 884 | 176 | 5.0× | 1.1× | 14 % |" in both
    assert "| renamer | 880 | 163 | 5.4× | 1.1× | 13 % |" in both
    assert "| llvm-mca 14.0.6, batched (2,000 variants) | 812 | | | | |" in both
    assert "256 BHive blocks × (1 + 16 renamings), 4,352 predictions; the naive loop on the first 32 blocks" in both
    assert "medians of 3 runs, the models taking turns; torch 2.13.0, 1 thread." in both
    assert "| Figure 1(a) (1.68) | vanilla | 3,361 | 9.6 s | 1.32 to 1.53 | 3,255 | 422 MB |" in both
    assert "| Figure 1(a) (1.68) | renamer | failed | | | | |" in both
    assert both.endswith("Load average (1 min) at the start and at the end: 0.5 → 1.5.")
    throughput = bench.table({**report, **_throughput()})
    assert "Figure 2" not in throughput and "| vanilla | 884 |" in throughput
    figure2 = bench.table({**report, **_figure2()})
    assert "batched audit" not in figure2 and "100,000 renamings of one block" in figure2


def _bhive_sample(directory: Path) -> Path:
    """The first 100 rows of each of BHive's CSVs (../shared), in ``directory``: the script
    reads every block of its BHive directory (twice) before it takes the first few in hash
    order, and all of BHive would be most of the test's work."""
    directory.mkdir()
    files = sorted(BHIVE.glob("*.csv"))
    assert files, "BHive data not found at ../shared/data/bhive"
    for path in files:
        with open(path) as f:
            (directory / path.name).write_text("".join(itertools.islice(f, 100)))
    return directory


def test_the_script_writes_a_report_whose_table_renders(tmp_path, monkeypatch, capsys):
    report_path = tmp_path / "audit.json"
    model = f"vanilla={FIXTURES / 'models' / 'vanilla.pt'}"
    sizes = ["--blocks", "3", "--variants", "2", "--naive", "2", "--mca", "8", "--figure2", "10", "--repeat", "1"]
    monkeypatch.chdir(SCRIPT.parent)
    bench = bench_module("bench_audit")
    monkeypatch.setattr(bench, "BHIVE", _bhive_sample(tmp_path / "bhive"))
    bench.main(["--models", model, *sizes, "--threads", "1", "--report", str(report_path)])
    stdout = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    assert report["blocks_audited"] == 3 and report["llvm_mca_variants"] == 8
    assert [r["model"] for r in report["throughput"]] == ["vanilla"]
    assert [r["predictions"] for r in report["figure2"]] == [11, 11]  # the original and 10 renamings
    assert {"machine", "torch", "llvm_mca", "load_average_before", "load_average_after"} <= set(report)
    text = bench.table(report)
    assert text in stdout
    assert "| vanilla |" in text and "| llvm-mca " in text and "| Figure 1(a) (1.68) | vanilla | 11 |" in text
