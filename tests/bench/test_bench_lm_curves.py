"""bench/bench_lm_curves.py end to end on the fixtures: three models trained,
their curves scored on the test split, the table and plot written, and a
rerun that reuses the checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.bench import bench_module
from tests.conftest import FIXTURES, ROOT

SCRIPT = ROOT / "bench" / "bench_lm_curves.py"


def _module():
    return bench_module("bench_lm_curves")


def test_bench_lm_curves_end_to_end(tmp_path):
    bench = _module()
    argv = [
        "--out",
        str(tmp_path / "out"),
        "--source",
        str(FIXTURES),
        "--seq-len",
        "64",
        "--train-windows",
        "64",
        "--test-windows",
        "12",
        "--epochs",
        "1",
        "--window",
        "20",
        "--batch-size",
        "16",
        "--files",
        "0",
    ]
    bench.main([*argv, "--report", str(tmp_path / "report.json")])
    report = json.loads((tmp_path / "out" / "lm-curves.json").read_text())
    assert json.loads((tmp_path / "report.json").read_text()) == report
    assert [r["model"] for r in report["runs"]] == ["learned", "lexinvariant", "regularised"]
    assert report["runs"][2]["overrides"] == {"lexinvariant_p": 0.2}
    for run in report["runs"]:
        curve = run["curve"]
        assert curve["window"] == 20 and curve["sequences"] == report["test_windows"] == 12
        assert len(curve["loss"]) == 63 - 20 + 1 and np.allclose(np.exp(curve["loss"]), curve["perplexity"])
        assert run["train_seconds"] is not None
    assert (tmp_path / "out" / "lm-curves.md").read_text() == bench.table(report) + "\n"
    curves, runs = bench.table(report).split("\n\n")[1:]
    rows = curves.splitlines()
    assert len(rows) == 2 + 3 and rows[3].startswith("| lexinvariant | ") and "×)" in rows[3]
    assert [r.split(" | ")[:2] for r in runs.splitlines()[2:]] == [
        ["| learned", "0"],
        ["| lexinvariant", "0"],
        ["| regularised", "0"],
    ]
    assert (tmp_path / "out" / "lm-curves.png").stat().st_size > 0
    bench.main(argv)  # the checkpoints are there: nothing is trained again, the same curves come out
    again = json.loads((tmp_path / "out" / "lm-curves.json").read_text())
    assert all(r["train_seconds"] is None for r in again["runs"])
    assert [r["curve"]["loss"] for r in again["runs"]] == [r["curve"]["loss"] for r in report["runs"]]


def test_patience_stops_each_model_at_its_best_epoch(tmp_path):
    bench = _module()
    argv = [
        "--out",
        str(tmp_path / "out"),
        "--source",
        str(FIXTURES),
        "--seq-len",
        "64",
        "--train-windows",
        "32",
        "--test-windows",
        "4",
        "--epochs",
        "40",
        "--patience",
        "1",
        "--window",
        "20",
        "--batch-size",
        "16",
        "--files",
        "0",
        "--lr",
        "3e-2",
        "--models",
        "learned",
    ]
    bench.main(argv)
    run = json.loads((tmp_path / "out" / "lm-curves.json").read_text())["runs"][0]
    # a learning rate this high stops improving long before the cap: one epoch past the best
    assert run["epochs_run"] == run["best_epoch"] + 1 < 40 and run["stopped_early"]
    history = bench.invar.load_model(tmp_path / "out" / "learned-s0.pt").metrics["history"]
    assert run["valid_perplexity"] == min(h["valid_perplexity"] for h in history)


@pytest.mark.parametrize(
    "ran, best, patience, cap, stopped, cut",
    [
        (5, 2, 3, 30, True, False),  # three epochs past the best: patience ended it
        (5, 4, 3, 30, False, True),  # short of both: cut (a time budget, a kill)
        (30, 30, 3, 30, False, False),  # at the cap
        (5, 5, None, 30, False, True),  # no patience: only the cap ends a run
    ],
)
def test_a_run_gathered_from_its_resume_file_says_how_it_ended(tmp_path, ran, best, patience, cap, stopped, cut):
    import argparse

    import torch

    bench = _module()
    history = [{"epoch": e + 1, "valid_perplexity": 10.0 - e} for e in range(ran)]
    torch.save({"history": history, "best_epoch": best}, tmp_path / "m.resume.pt")
    got = bench.resumed(tmp_path / "m.pt", argparse.Namespace(epochs=cap, patience=patience))
    assert got == {"epochs_run": ran, "stopped_early": stopped, "cut": cut}


def _run(model: str, seed: int, ppl: list[float], **kw) -> dict:
    curve = {"context": list(range(1, len(ppl) + 1)), "perplexity": ppl}
    return {
        "model": model,
        "seed": seed,
        "curve": curve,
        "valid_perplexity": ppl[-1],
        "best_epoch": 3,
        "epochs_run": 4,
        "stopped_early": False,
        "test_loss": 1.5,
        "train_seconds": 1234.0,
        **kw,
    }


def test_table_reads_the_curves_at_each_point_and_sums_up_the_seeds():
    bench = _module()
    ppl = [10.0 - i / 100 for i in range(412)]
    runs = [
        _run("learned", 0, ppl, valid_history=[10.0, 9.0, 8.0, 8.5, 8.2, 8.1, 8.0]),
        _run("learned", 1, [p + 2 for p in ppl], cut=True, valid_history=[9.0, 8.0]),
        _run("lexinvariant", 0, [4 * p for p in ppl], stopped_early=True, train_seconds=None),
    ]
    text = bench.table({"runs": runs, "load_average_before": [2.0, 0, 0], "load_average_after": [3.5, 0, 0]})
    load, curves, table = text.split("\n\n")
    assert load == "Load average (1 min) at the start and at the end: 2.0 → 3.5."
    head, _, learned, lexinvariant = curves.splitlines()
    # the decades and the last context the curves reach (412), nothing past it
    points = (1, 10, 25, 50, 100, 150, 200, 300, 400)
    assert head.split(" | ")[1:] == [f"context {c}" for c in points] + ["context 412 |"]
    assert learned.split(" | ")[1] == "11.00"  # the mean of the two seeds at context 1
    assert lexinvariant.split(" | ")[1] == "40.00 (3.64×)"
    rows = table.splitlines()[2:]
    assert rows[0].endswith("| 3 | 4 | at the cap | -11.1 % | 1.500 | 1,234 s |")
    assert rows[1].endswith("| cut | – | 1.500 | 1,234 s |")
    assert rows[2] == "| **learned** | 2 seeds | **6.89 ± 1.41** | | | | | 1.500 ± 0.000 | |"
    assert rows[3].endswith("| early | – | 1.500 | – |")


def test_summary_gives_the_ratio_at_each_decade_of_context_and_the_last():
    ppl = [10.0] * 412
    runs = [_run("learned", 0, ppl), _run("learned", 1, ppl), _run("lexinvariant", 0, [30.0] * 411 + [20.0])]
    head, _, learned, lexinvariant = _module().summary({"runs": runs}).splitlines()
    assert head.split(" | ")[3:] == [f"ratio to learned, context {c}" for c in (1, 10, 100)] + [
        "ratio to learned, context 412 |"
    ]
    assert learned == "| learned | 2 | 10.00 ± 0.00 | 1.00× | 1.00× | 1.00× | 1.00× |"
    assert lexinvariant == "| lexinvariant | 1 | 20.00 ± 0.00 | 3.00× | 3.00× | 3.00× | 2.00× |"
    # a model run later, in a report of its own, beside the learned model of another
    regularised = [_run("regularised", s, [15.0] * 412) for s in (0, 1)]
    together = _module().summary([{"runs": runs}, {"runs": regularised}]).splitlines()
    assert together[:4] == [head, _, learned, lexinvariant]
    assert together[4] == "| regularised | 2 | 15.00 ± 0.00 | 1.50× | 1.50× | 1.50× | 1.50× |"


def test_by_rate_names_each_model_with_its_rate_and_divides_by_the_learned_model_at_it_or_the_first_reports():
    ppl = [10.0] * 412
    first = {"settings": {"lr": "0.001"}, "runs": [_run("learned", 0, ppl), _run("lexinvariant", 0, [40.0] * 412)]}
    counted = {**_run("frequency", 0, [30.0] * 412), "counted": True}
    second = {"settings": {"lr": "0.01"}, "runs": [_run("lexinvariant", 0, [20.0] * 412), counted]}
    rows = _module().by_rate([first, second, {**second, "runs": [counted]}]).splitlines()[2:]
    assert [r.split(" | ")[:2] for r in rows] == [
        ["| learned, lr 0.001", "10.00"],
        ["| lexinvariant, lr 0.001", "40.00 (4.00×)"],
        ["| lexinvariant, lr 0.01", "20.00 (2.00×)"],
        ["| frequency", "30.00 (3.00×)"],  # a counting reference once, whatever its reports
    ]
    # a learned model at the second rate: the models trained at it are divided by it
    second["runs"].insert(0, _run("learned", 0, [5.0] * 412))
    rows = _module().by_rate([first, second]).splitlines()[2:]
    assert [r.split(" | ")[:2] for r in rows] == [
        ["| learned, lr 0.001", "10.00"],
        ["| lexinvariant, lr 0.001", "40.00 (4.00×)"],
        ["| learned, lr 0.01", "5.00 (0.50×)"],
        ["| lexinvariant, lr 0.01", "20.00 (4.00×)"],
        ["| frequency", "30.00 (3.00×)"],
    ]


def test_the_data_report_measures_the_test_windows_against_a_unigram_model(tmp_path):
    """``--prepare-only --report``: the splits, and over the scored test windows
    the character entropy, a unigram model's perplexity (never below the
    entropy's exponent: the unigram is fitted on other windows) and the shares."""
    bench = _module()
    argv = ["--out", str(tmp_path / "out"), "--source", str(FIXTURES), "--seq-len", "64", "--files", "0"]
    bench.main(
        [*argv, "--train-windows", "40", "--test-windows", "12", "--prepare-only", "--report", str(tmp_path / "r.json")]
    )
    report = json.loads((tmp_path / "r.json").read_text())
    s = report["statistics"]
    assert s["test_windows"] == 12 and s["test_characters"] == 12 * 64 and s["training_windows_fitted"] == 40
    assert s["splits"]["test"] >= 12 and s["files"] > 0
    assert 0 < s["character_entropy_nats"] < np.log(256)
    assert s["unigram_perplexity"] >= np.exp(s["character_entropy_nats"]) - 1e-9
    assert 0 < s["space_share"] < 1 and 0 < s["letter_share"] < 1 and s["space_share"] + s["letter_share"] <= 1
    table = bench.data_table(report)
    assert f"| a unigram model's perplexity on them | {s['unigram_perplexity']:.1f} |" in table
    assert not (tmp_path / "out" / "lm-curves.json").exists()  # nothing trained


@pytest.mark.parametrize(
    "name, a, b",
    [
        *(("counting", alpha, beta) for alpha in (0.5, 8.0) for beta in (None, 0.5, 4.0)),
        *(("frequency", slope, seen) for slope in (1.0, 11.3) for seen in (0.0, 2.5)),
    ],
)
def test_counting_predicts_a_distribution_from_the_window_alone_whatever_the_characters_are(name, a, b):
    """The counted references are lexinvariant by construction: mapping the characters one to one leaves
    every loss as it is (bit for bit for the counts; within rounding for the frequencies, whose sums run in
    the order of the window's distinct characters); and at each position their probabilities over the
    alphabet sum to 1."""
    bench = _module()
    losses_of = bench.counting_losses if name == "counting" else bench.frequency_losses
    alphabet = "abcdefgh"
    rng = np.random.default_rng(0)
    text = "".join(rng.choice(list(alphabet[:5]), size=60))
    mapped = text.translate(str.maketrans(alphabet, "hgfedcba"))
    losses = losses_of(text, len(alphabet), a, b)
    assert losses.shape == (59,) and losses_of(mapped, len(alphabet), a, b) == pytest.approx(losses, rel=1e-12)
    for t in (1, 7, 59):  # every character the alphabet holds, as the one after text[:t]
        p = [np.exp(-losses_of(text[:t] + c, len(alphabet), a, b)[-1]) for c in alphabet]
        assert sum(p) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "text, beta, expected",
    [
        ("aab", None, [1 / 2, 1 / 3 / 2]),  # a seen once of 1 (+ alpha 1); b unseen: alpha / 3, over 2 unseen
        ("abab", None, [1 / 2 / 2, 1 / 3, 1 / 4]),
        ("abab", 1.0, [1 / 2 / 2, 1 / 3, (1 + 1 / 4) / 2]),  # b after a once before: (1 + beta p) / (1 + beta)
    ],
)
def test_counting_by_hand(text, beta, expected):
    got = np.exp(-_module().counting_losses(text, 3, 1.0, beta))
    assert got == pytest.approx(expected)


E = np.e


@pytest.mark.parametrize(
    "text, seen, expected",
    [
        # after a: a's frequency 1 (logit 2), b and the unseen c logit 0
        ("aab", 0.0, [E**2 / (E**2 + 2), 1 / (E**2 + 2)]),
        ("abab", 0.0, [1 / (E**2 + 2), E / (2 * E + 1), E ** (2 / 3) / (E ** (4 / 3) + E ** (2 / 3) + 1)]),
        ("aab", 1.0, [E**3 / (E**3 + 2), 1 / (E**3 + 2)]),  # a seen: + 1
        ("abab", 1.0, [1 / (E**3 + 2), E**2 / (2 * E**2 + 1), E ** (5 / 3) / (E ** (7 / 3) + E ** (5 / 3) + 1)]),
    ],
)
def test_the_frequency_reader_by_hand(text, seen, expected):
    """Logits: slope (2) times each character's frequency so far, plus ``seen`` once seen; alphabet abc."""
    got = np.exp(-_module().frequency_losses(text, 3, 2.0, seen))
    assert got == pytest.approx(expected)


def test_the_frequency_reader_of_a_short_window_predicts_nothing():
    assert _module().frequency_losses("a", 3, 2.0).shape == (0,)


def test_the_counting_references_are_scored_once_with_smoothing_chosen_on_validation(tmp_path):
    bench = _module()
    argv = ["--out", str(tmp_path / "out"), "--source", str(FIXTURES), "--seq-len", "64", "--files", "0"]
    argv += ["--train-windows", "40", "--test-windows", "12", "--window", "20", "--seeds", "0", "1"]
    models = ["counting-unigram", "counting-bigram", "frequency", "frequency-seen"]
    bench.main([*argv, "--models", *models, "--report", str(tmp_path / "r.json")])
    runs = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert [r["model"] for r in runs] == models  # once, whatever the seeds
    unigram, bigram, frequency, seen = runs
    assert unigram["smoothing"]["alpha"] in bench.ALPHAS and unigram["smoothing"]["beta"] is None
    assert bigram["smoothing"]["beta"] in bench.BETAS
    assert frequency["smoothing"] == {"slope": frequency["smoothing"]["slope"], "seen": None}
    assert seen["smoothing"]["slope"] in bench.SLOPES and seen["smoothing"]["seen"] in bench.SEEN
    assert seen["valid_perplexity"] <= frequency["valid_perplexity"]  # its grid holds the frequency reader's
    assert len(bigram["curve"]["loss"]) == 63 - 20 + 1 and bigram["curve"]["sequences"] == 12
    assert not list((tmp_path / "out").glob("*.pt"))  # nothing trained
    text = bench.table({"runs": runs})
    assert "| counting-unigram | " in text.split("\n\n")[0] and text.split("\n\n")[1].startswith("| reference |")
    summary = bench.summary({"runs": runs}).splitlines()
    assert summary[2].startswith("| counting-unigram | counted | ") and summary[2].endswith("| – | – | – |")
