"""bench/bench_unigram_corpus.py: files of one unigram each, and the Bayes
predictive's loss on the very test windows bench_lm_curves.py scores."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.bench import bench_module


def _module():
    return bench_module("bench_unigram_corpus")


def test_each_file_draws_its_own_characters_from_the_alphabet_and_a_seed_fixes_them():
    bench = _module()
    texts = bench.texts(30, 64, 0.1, seed=3)
    assert len(texts) == 30 and all(len(t) == 64 and set(t) <= set(bench.ALPHABET) for t in texts)
    assert texts == bench.texts(30, 64, 0.1, seed=3) and texts != bench.texts(30, 64, 0.1, seed=4)
    # a small concentration: each file uses few of the 96 characters; a large one, most of them
    assert np.mean([len(set(t)) for t in texts]) < 20
    assert np.mean([len(set(t)) for t in bench.texts(30, 512, 100.0, seed=3)]) > 80


@pytest.mark.parametrize(
    "text, expected",
    [
        # a = 1, K = 3: after "a", a has count 1: (1 + 1) / (1 + 3); b none: (0 + 1) / (2 + 3)
        ("aab", [2 / 4, 1 / 5]),
        ("abab", [1 / 4, 2 / 5, 2 / 6]),
    ],
)
def test_the_bayes_predictive_by_hand(text, expected):
    assert np.exp(-_module().bayes_losses(text, 1.0, size=3)) == pytest.approx(expected)


def test_the_bayes_predictive_is_a_distribution_that_only_counts():
    bench = _module()
    text = bench.texts(1, 80, 0.1, seed=0)[0]
    alphabet = bench.ALPHABET
    mapped = text.translate(str.maketrans(alphabet, alphabet[::-1]))
    assert np.array_equal(bench.bayes_losses(text, 0.1), bench.bayes_losses(mapped, 0.1))
    for t in (1, 9, 79):
        p = [np.exp(-bench.bayes_losses(text[:t] + c, 0.1)[-1]) for c in alphabet]
        assert sum(p) == pytest.approx(1.0)


def test_the_report_scores_the_windows_bench_lm_curves_scores(tmp_path):
    """The Bayes loss is of the test windows of full length that ``invar data lm`` cuts from the corpus,
    in its order: the same texts bench_lm_curves.py scores its models on."""
    from invar.tasks import lm

    bench = _module()
    corpus = tmp_path / "corpus"
    report = bench.main(
        [
            "--out",
            str(corpus),
            "--files",
            "80",
            "--length",
            "40",
            "--test-windows",
            "5",
            "--window",
            "10",
            "--report",
            str(tmp_path / "r.json"),
        ]
    )
    assert sorted(p.name for p in corpus.glob("*.py")) == [bench.name(k) for k in range(80)]
    lm.build(corpus, tmp_path / "data", seq_len=40, jobs=1)
    windows = ["".join(t.text for t in lm.parse(ex.source).tokens) for ex in lm.read_split(tmp_path / "data", "test")]
    scored = windows[:5]
    assert report["scored"]["files"] == 5
    expected = np.mean(np.concatenate([bench.bayes_losses(w, 0.1) for w in scored]))
    assert report["scored"]["loss"] == pytest.approx(expected)
    assert len(report["scored"]["curve"]["loss"]) == 39 - 10 + 1
    assert json.loads((tmp_path / "r.json").read_text())["settings"]["out"] == "DIR"
    assert "| bayes | " in bench.table(report)
