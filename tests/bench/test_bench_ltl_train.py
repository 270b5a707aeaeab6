"""bench/bench_ltl_train.py end to end on a small generated dataset (its
``main`` run in-process, as the command line would run it): each run
trains to its early stop or its cap, is audited, and records how it
stopped."""

from __future__ import annotations

import json
import sys

import pytest

from tests.bench import bench_module
from tests.conftest import ROOT

SCRIPT = ROOT / "bench" / "bench_ltl_train.py"


def _main(argv: list[str], monkeypatch, capsys) -> tuple[str, str]:
    """``python bench/bench_ltl_train.py ARGV`` from bench/, in-process (its
    ``main`` reads ``sys.argv``): what it printed on stdout and stderr."""
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
    monkeypatch.chdir(SCRIPT.parent)
    bench_module("bench_ltl_train").main()
    return capsys.readouterr()


def test_runs_stop_at_their_patience_and_record_it(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    argv = [
        "--out",
        str(out),
        "--num",
        "120",
        "--max-size",
        "5",
        "--general",
        "1",
        "--epochs",
        "4",
        "--patience",
        "1",
        "--lr",
        "0",
        "--batch-size",
        "16",
        "--audit",
        "8",
        "--variants",
        "2",
        "--seeds",
        "0",
        "1",
        "--archs",
        "vanilla",
        "canonicalized+dualpart",
    ]
    stdout, _ = _main(argv, monkeypatch, capsys)
    for name in ("vanilla", "vanilla-s1", "canonicalized+dualpart", "canonicalized+dualpart-s1"):
        r = json.loads((out / f"{name}.json").read_text())
        # learning rate 0: no epoch improves on the first, so patience 1 stops after the second
        assert (r["best_epoch"], r["epochs_run"], r["stopped_early"]) == (1, 2, True), name
        assert (r["patience"], r["max_epochs"], len(r["valid_history"])) == (1, 4, 2)
        assert len(r["train_loss_history"]) == 2 and all(loss > 0 for loss in r["train_loss_history"])
        assert r["test"]["examples"] == 8
        # the formulas of 6 to 10 APs, each file audited whole (no split of a file)
        assert sorted(r["general"], key=int) == ["6", "7", "8", "9", "10"], name
    canonical = json.loads((out / "canonicalized+dualpart.json").read_text())
    assert canonical["test"]["alpha_covariance"] == 1.0  # exactly alpha-covariant by construction
    assert "| canonicalized+dualpart | 2 |" in stdout
    assert "| vanilla | 2, 2 | 1, 1 | 2 of 2 |" in stdout  # epochs run, best epochs, stopped early


def test_unique_splits_hold_each_formula_once(tmp_path):
    """Sizes are spread evenly, so the 80 formulas of size 1 over 3 APs are
    a, b and c again and again; --unique keeps one pair of each, in the
    split its formula hashes to, and drops nothing else."""
    bench = bench_module("bench_ltl_train")
    plain = bench.prepare(tmp_path / "plain", 240, 3, 0, 1, aps=3)
    unique = bench.prepare(tmp_path / "unique", 240, 3, 0, 1, aps=3, unique=True)
    total_plain = total_unique = 0
    for split in ("train", "valid", "test"):
        pairs = (plain / f"{split}.txt").read_text().splitlines()
        formulas = pairs[0::2]
        kept = (unique / f"{split}.txt").read_text().splitlines()
        assert kept[0::2] == list(dict.fromkeys(formulas)), split  # first of each, in order
        total_plain, total_unique = total_plain + len(formulas), total_unique + len(kept) // 2
    assert total_plain == 240 and total_unique < 240 - 70  # size 1 alone repeats 77 times


def test_the_report_names_each_runs_schedule():
    schedule = bench_module("bench_ltl_train")._schedule
    cases = [
        ([{}, {"schedule": "cosine"}], "cosine"),  # result files from before --schedule were cosine
        ([{"schedule": "plateau", "lr_halvings": 5}, {"schedule": "plateau", "lr_halvings": 6}], "plateau (5, 6)"),
        ([{"schedule": "plateau", "lr_halvings": 5}, {}], "cosine, plateau"),
    ]
    for runs, expected in cases:
        assert schedule(runs) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("n_head=8", ("n_head", 8)),
        ("adacos=false", ("adacos", False)),
        ("lexinvariant_p=none", ("lexinvariant_p", None)),
        ("embed_scaling=none", ("embed_scaling", "none")),  # a value of its own: no scaling
        ("positions=none", ("positions", "none")),
        ("norm_position=post", ("norm_position", "post")),
    ],
)
def test_set_reads_each_value_as_its_field_means_it(text, expected):
    assert bench_module("bench_ltl_train").setting(text) == expected


@pytest.mark.parametrize(
    "result, expected",
    [
        ({"settings": {}, "batch_size": 64, "weight_decay": 0.01, "beta2": 0.999}, {}),
        ({"settings": {"embed_scaling": "sqrtd"}}, {"embed_scaling": "sqrtd"}),  # older files: no optimiser keys
        (
            {"settings": {"norm_position": "post"}, "batch_size": 64, "weight_decay": 0.1, "beta2": 0.95},
            {"norm_position": "post", "weight_decay": 0.1, "beta2": 0.95},
        ),
        ({"settings": {}, "batch_size": 768, "weight_decay": 0.01, "beta2": 0.999}, {"batch_size": 768}),
    ],
)
def test_a_run_records_what_it_changed_from_the_defaults(result, expected):
    assert bench_module("bench_ltl_train").changes(result) == expected


def test_the_ablation_view_gives_each_arm_its_changes_and_its_mean():
    bench = bench_module("bench_ltl_train")

    def run(seed, correct, changes):
        return {
            "seed": seed,
            "correct": correct,
            "exact": correct - 10,
            "alpha_covariance_by_aps": {"2": 0.5},
            "general_correct": {"6": 10.0, "7": None},
            "best_epoch": 40,
            "minutes": 30.0,
            "changes": changes,
        }

    report = {"runs": {"dualpart-a": [run(0, 90.0, {}), run(1, 94.0, {})], "dualpart-b": [run(0, 80.0, {"n_head": 8})]}}
    rows = bench.ablation(report).splitlines()
    assert rows[2] == (
        "| dualpart-a | none | 2 | 92.0 ± 2.8 % | 82.0 ± 2.8 % | 50.0 ± 0.0 % | 10.0 ± 0.0 % | 40 ± 0 | 30.0 |"
    )
    assert rows[3].startswith("| dualpart-b | `n_head=8` | 1 | 80.0 % | 70.0 % |")  # one seed: no spread


def _record(seed, general, history, alpha=None):
    """A run's record in a report: 60 % correct, general formulas as given (None: refused)."""
    return {
        "seed": seed,
        "correct": 60.0,
        "exact": 40.0,
        "correct_by_aps": {"1": 95.0, "2": 50.0, "3": 25.0},
        "alpha_covariance": 0.6,
        "alpha_covariance_by_aps": {"1": 1.0, "2": 0.5, "3": 0.25},
        "general_correct": general,
        "general_alpha_covariance": alpha or {k: None for k in general},
        "valid_correct": max(history),
        "valid_history": history,
        "best_epoch": 1 + history.index(max(history)),
        "epochs_run": len(history),
        "lr_halvings": 2,
        "minutes": 10.0,
        "changes": {},
    }


def test_views_say_refused_where_a_model_refuses_every_formula_of_new_aps():
    bench = bench_module("bench_ltl_train")
    refused = {"6": None, "7": None}
    report = {
        "runs": {
            "vanilla-x": [_record(0, refused, [50.0, 60.0]), _record(1, refused, [55.0, 58.0])],
            "dualpart-x": [_record(0, {"6": 10.0, "7": 0.0}, [60.0], {"6": 0.5, "7": 0.25})],
        }
    }
    table = bench.table(report).splitlines()
    assert "| refused | 2 / 2 |" in table[2] and "| 0.0–10.0 % | 1 / 1 |" in table[5]
    assert "| refused |" in bench.ablation(report).splitlines()[2]
    by_aps = bench.by_aps(report).splitlines()
    assert by_aps[0] == "| run | seeds | alpha-cov. 2 APs | 3 APs | 6 APs | 7 APs |"
    assert by_aps[2] == "| vanilla-x | 2 | 50.0 ± 0.0 % | 25.0 ± 0.0 % | refused | refused |"
    assert by_aps[3] == "| dualpart-x | 1 | 50.0 % | 25.0 % | 10.0 / 50.0 % | 0.0 / 25.0 % |"


def test_with_loss_gives_each_arms_last_training_losses_as_a_range():
    bench = bench_module("bench_ltl_train")
    plain = [{**_record(s, {}, [60.0]), "train_loss_history": [1.2, loss]} for s, loss in ((0, 0.354), (1, 0.35))]
    older = {**_record(0, {}, [60.0]), "changes": {"adacos": True}}  # from before losses were recorded
    rows = bench.with_loss({"runs": {"dualpart-plain": plain, "dualpart-adacos": [older]}}).splitlines()
    assert rows[2] == (
        "| dualpart-plain | none | 2 | 60.0 ± 0.0 % | 40.0 ± 0.0 % | 60.0 ± 0.0 % | 60.0 ± 0.0 % | 0.350–0.354 | 10.0 |"
    )
    assert rows[3] == (
        "| dualpart-adacos | `adacos=True` | 1 | 60.0 % | 40.0 % | 60.0 % | 60.0 % | not recorded | 10.0 |"
    )


def test_beside_paper_puts_each_papers_row_above_its_model():
    bench = bench_module("bench_ltl_train")
    report = {
        "runs": {
            "vanilla-x": [_record(0, {}, [60.0]), _record(1, {}, [60.0])],
            "canonicalized+dualpart-x": [_record(0, {}, [60.0])],
            "dualpart-x": [_record(0, {}, [60.0])],
        }
    }
    rows = bench.beside_paper(report).splitlines()
    assert rows[2:] == [
        "| *paper: Normal, Baseline* | *98.23%* | *83.23%* | | *96.87%* |",
        "| `vanilla-x` (2 seeds) | 60.0 ± 0.0 % | 40.0 ± 0.0 % | 50.0 ± 0.0 % | 25.0 ± 0.0 % |",
        "| `canonicalized+dualpart-x` (1 seed) | 60.0 % | 40.0 % | 50.0 % | 25.0 % |",
        "| *paper: Perturbed, Proposed* | *95.94%* | *76.45%* | | *97.66%* |",
        "| `dualpart-x` (1 seed) | 60.0 % | 40.0 % | 50.0 % | 25.0 % |",
    ]


def test_results_merges_reports_best_first_with_what_each_run_changed():
    bench = bench_module("bench_ltl_train")
    low = {**_record(0, {"6": None}, [60.0]), "arch": "vanilla"}
    high = {**_record(0, {"6": 5.0, "7": 20.0}, [90.0]), "arch": "dualpart", "correct": 90.0}
    high["changes"] = {"embed_scaling": "none"}
    rows = bench.results([{"runs": {"vanilla-x": [low]}}, {"runs": {"dualpart-y": [high]}}]).splitlines()
    assert rows[2] == "| `dualpart`, `embed_scaling=none` | 1 | 90.0 % | 40.0 % | 50.0 % | 5.0–20.0 % |"
    assert rows[3] == "| `vanilla` | 1 | 60.0 % | 40.0 % | 50.0 % | refused |"
    assert rows[4].startswith("| *paper: Normal, Baseline* | | *98.23%* |") and len(rows) == 7


@pytest.mark.parametrize(
    "history, want",
    [
        ([50.0, 81.0, 89.9, 90.0, 96.0], "| 2 | 4 | 5 | 96.0 % (5) |"),
        ([50.0, 79.9, 60.0], "| never | never | never | 79.9 % (2) |"),
        ([95.0], "| 1 | 1 | 1 | 95.0 % (1) |"),
    ],
)
def test_epochs_to_gives_the_first_epoch_at_each_milestone(history, want):
    bench = bench_module("bench_ltl_train")
    rows = bench.epochs_to({"runs": {"a": [_record(0, {}, history)]}}).splitlines()
    assert rows[2] == "| a | 0 " + want


def test_training_takes_one_label(monkeypatch, capsys):
    with pytest.raises(SystemExit) as exited:
        _main(["--out", "x", "--label", "a", "b"], monkeypatch, capsys)
    assert exited.value.code == 2 and "one label for the runs it trains" in capsys.readouterr().err


def test_the_table_of_a_study_of_one_ap_count_without_new_aps_shows_dashes():
    bench = bench_module("bench_ltl_train")
    record = {**_record(0, {}, [60.0]), "correct_by_aps": {"2": 60.0}}
    rows = bench.table({"runs": {"dualpart-plain": [record]}}).splitlines()
    assert "| – / 60.0 / – |" in rows[2] and "| – | 1 / 1 |" in rows[2]
    assert "| – / 60.0 ± 0.0 / – |" in rows[3]


def test_the_table_of_a_three_ap_study_shows_a_dash_for_two_aps_and_with_loss_skips_empty_epochs():
    bench = bench_module("bench_ltl_train")
    record = {**_record(0, {}, [60.0]), "correct_by_aps": {"3": 60.0}, "alpha_covariance_by_aps": {"3": 0.4}}
    rows = bench.table({"runs": {"x": [record]}}).splitlines()
    assert "| 60.0 % | – | – |" in rows[2] and "| 60.0 ± 0.0 % | – | |" in rows[3]
    record["train_loss_history"] = [0.5, None]  # an epoch without a batch
    assert "| not recorded |" in bench.with_loss({"runs": {"x": [{**_record(0, {}, [60.0]), **record}]}})


def test_beside_table_3_puts_the_papers_alpha_covariance_under_the_same_columns():
    bench = bench_module("bench_ltl_train")
    report = {"runs": {"dualpart-x": [_record(0, {"6": 10.0, "8": 0.0}, [60.0], {"6": 0.5, "8": 0.25})]}}
    rows = bench.beside_table_3(report).splitlines()
    assert rows[0] == "| run | seeds | alpha-cov. 2 APs | 3 APs | 6 APs | 8 APs |"
    assert rows[-2:] == [
        "| *paper Table 3: Alpha-Renaming (alpha-cov.)* | | | *50.64%* | *37.49%* | *30.30%* |",
        "| *paper Table 3: Proposed (alpha-cov.)* | | | *54.30%* | *41.88%* | *35.29%* |",
    ]
