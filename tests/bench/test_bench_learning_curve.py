"""bench/bench_learning_curve.py end to end on the fixture blocks (its
``main`` run in-process, as the command line would run it): every run
trains to its early stop, the report writes its table and plot, and a
rerun skips what is done."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from tests.bench import bench_module
from tests.conftest import FIXTURES, ROOT

SCRIPT = ROOT / "bench" / "bench_learning_curve.py"


def _module():
    return bench_module("bench_learning_curve")


def _main(argv: list[str], monkeypatch, capsys) -> str:
    """``python bench/bench_learning_curve.py ARGV`` from bench/, in-process
    (its ``main`` reads ``sys.argv``): what it printed."""
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
    monkeypatch.chdir(SCRIPT.parent)
    _module().main()
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("views=vanilla:embedding=view", ("views", "vanilla", {"embedding": "view"})),
        (
            "mask=vanilla:attention=referent,mask_layers=1",
            ("mask", "vanilla", {"attention": "referent", "mask_layers": 1}),
        ),
        ("slow=renamer:dropout=0.2,augment=true", ("slow", "renamer", {"dropout": 0.2, "augment": True})),
        ("plain=renamer", ("plain", "renamer", {})),
    ],
)
def test_variants_parse(spec, expected):
    assert _module().parse_variant(spec) == expected


@pytest.mark.parametrize("spec", ["=vanilla", "name", "name=:x=1"])
def test_a_bad_variant_is_refused(spec):
    with pytest.raises(SystemExit, match="NAME=ARCH"):
        _module().parse_variant(spec)


def test_the_study_runs_on_fixtures_and_writes_its_table_and_plot(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "blocks", data)
    out = tmp_path / "out"
    argv = [
        "--data",
        str(data),
        "--out",
        str(out),
        "--sizes",
        "24",
        "48",
        "--seeds",
        "0",
        "1",
        "--archs",
        "vanilla",
        "renamer",
        "--variant",
        "views=vanilla:embedding=view",
        "--max-epochs",
        "2",
        "--patience",
        "1",
        "--batch-size",
        "8",
        "--test-limit",
        "20",
    ]
    _main(argv, monkeypatch, capsys)
    runs = sorted(p.name for p in (out / "runs").glob("*.json"))
    assert runs == sorted(
        f"{m}-{n}-s{s}.json" for m in ("vanilla", "renamer", "views") for n in (24, 48) for s in (0, 1)
    )
    for path in (out / "runs").glob("*.json"):
        r = json.loads(path.read_text())
        assert r["train_programs"] <= r["train_size"] and 1 <= r["best_epoch"] <= r["epochs_run"] <= 2
        assert len(r["valid_history"]) == r["epochs_run"]
        if r["stopped_early"]:
            assert r["epochs_run"] == r["best_epoch"] + 1  # patience 1
        if r["name"] == "renamer":  # invariant by construction: a renaming changes nothing
            assert r["test_MAPE"] == pytest.approx(r["test_MAPE_renamed"], abs=1e-3)
    table = (out / "learning-curve.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| 24 |") or line.startswith("| 48 |")]
    assert len(rows) == 6 and all("±" in row for row in rows)
    assert (out / "learning-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    written = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    assert _main(argv, monkeypatch, capsys).count("| 24 |") == 3
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == written  # nothing trained again
    path = tmp_path / "curve.json"
    only = ["--data", str(data), "--out", str(out), "--report-only", "--report", str(path)]
    report = _main(only, monkeypatch, capsys)
    assert report.count("| 48 |") == 3
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == written
    _check_the_json_report(json.loads(path.read_text()), table)


def _check_the_json_report(report: dict, page: str) -> None:
    """The JSON report holds every run and renders the page's table, a row
    per run by seed, and the summary by size."""
    module = _module()
    assert len(report["records"]) == 12 and report["bench"] == "bench_learning_curve"
    assert str(ROOT.parent) not in json.dumps(report)  # no path of this machine
    assert module.table(report) in page
    by_seed = module.by_seed(report).splitlines()
    assert by_seed[0] == "| model | seed 0 | seed 1 |" and len(by_seed) == 2 + 6
    assert [row.split(" | ")[0] for row in by_seed[2:5]] == ["| vanilla, 24", "| renamer, 24", "| views, 24"]
    run = next(r for r in report["records"] if (r["name"], r["train_size"], r["seed"]) == ("renamer", 48, 1))
    cell = next(row for row in by_seed if row.startswith("| renamer, 48 |")).split(" | ")[2]
    assert cell.startswith(f"{run['test_MAPE']:.2f} / {run['test_MAPE_renamed']:.2f} %; ")
    summary = module.summary([report, report]).splitlines()
    assert [line.split(" | ")[0] for line in summary[2:4]] == ["| 24", "| 48"]
    assert summary[-1].startswith("| *paper") and "± " in summary[2]


def test_the_plateau_schedule_runs_to_its_patience_and_reports_its_halvings(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "blocks", data)
    out = tmp_path / "out"
    argv = [
        "--data",
        str(data),
        "--out",
        str(out),
        "--sizes",
        "24",
        "--seeds",
        "0",
        "--archs",
        "vanilla",
        "--max-epochs",
        "30",
        "--patience",
        "3",
        "--schedule",
        "plateau",
        "--plateau",
        "1",
        "--batch-size",
        "8",
        "--test-limit",
        "10",
        "--lr",
        "1e-2",
    ]
    _main(argv, monkeypatch, capsys)
    r = json.loads((out / "runs" / "vanilla-24-s0.json").read_text())
    assert (r["schedule"], r["plateau"], r["stopped_early"]) == ("plateau", 1, True)
    # patience 3 with a plateau of 1: two halvings after the best epoch, and the third epoch stops the run
    assert r["epochs_run"] == r["best_epoch"] + 3 < 30 and r["lr_halvings"] >= 2
    header, _, row = (out / "learning-curve.md").read_text().split("\n")[2:5]
    assert header.endswith("learning-rate halvings |") and row.endswith(f" {r['lr_halvings']} |")
    cosine = argv[: argv.index("--schedule")] + argv[argv.index("--plateau") + 2 :]
    with pytest.raises(SystemExit, match="was trained with --schedule plateau, not cosine"):
        _main(cosine, monkeypatch, capsys)
