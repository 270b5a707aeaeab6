"""The audit's statistics against scipy, hand-computed tables, exact
enumeration and seeded simulations: exact tests give scipy's p-values,
bootstrap intervals cover the truth as often as they claim, the permutation
test keeps its level and finds a deterministic change, and a paired design
finds what an unpaired one misses."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binomtest, false_discovery_control

from invar.audit import stats
from invar.audit.stats import (
    benjamini_hochberg,
    bootstrap_interval,
    correct,
    homogeneity,
    mcnemar,
    mean_interval,
    paired_bootstrap,
)
from invar.errors import UsageError


# -------------------------------------------------------------------- McNemar
@pytest.mark.parametrize(
    "b, c",
    [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (0, 5),
        (5, 0),
        (3, 3),
        (2, 9),
        (9, 2),
        (10, 30),
        (0, 12),
        (7, 8),
        (120, 80),
        (499, 501),
        # beyond EXACT_PAIRS discordant pairs: the sum in logarithms
        (500, 520),
        (400, 700),
        (1200, 1350),
        (3000, 3300),
        (0, 2000),
        (5, 4000),
    ],
)
def test_mcnemar_is_scipys_exact_binomial_test(b, c):
    expected = binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
    assert mcnemar(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert mcnemar(b, c) == mcnemar(c, b)  # two-sided


def test_mcnemar_is_exact_for_small_counts():
    # 2 * P(X <= 1), X ~ Binomial(10, 1/2) = 2 * 11 / 1024
    assert mcnemar(1, 9) == 22 / 1024
    assert mcnemar(0, 6) == 2 / 64


@pytest.mark.parametrize("b, c", [(-1, 3), (2, -4), (1.5, 2)])
def test_mcnemar_refuses_counts_that_are_no_counts(b, c):
    with pytest.raises(UsageError):
        mcnemar(b, c)


# ------------------------------------------------------------------ bootstrap
@pytest.mark.parametrize(
    "n, seed, kind", [(1, 0, "normal"), (9, 3, "normal"), (200, 0, "normal"), (1000, 7, "bool"), (57, 1, "bool")]
)
def test_mean_interval_is_the_general_bootstrap_to_the_bit(n, seed, kind):
    rng = np.random.default_rng(100 + n)
    values = rng.normal(size=n) if kind == "normal" else rng.random(n) < 0.2
    fast = mean_interval(values, resamples=500, level=0.9, seed=seed)
    slow = bootstrap_interval(lambda i: np.mean(values[i]), n, resamples=500, level=0.9, seed=seed)
    assert fast == slow
    assert fast[0] <= np.mean(values) <= fast[1] or n == 1


def test_cutting_the_draws_into_blocks_changes_nothing(monkeypatch):
    values = np.random.default_rng(5).normal(size=300)
    whole = mean_interval(values, resamples=777, seed=2)
    general = bootstrap_interval(lambda i: np.mean(values[i]), 300, resamples=777, seed=2)
    monkeypatch.setattr(stats, "BLOCK", 1000)  # 3 rows a block
    assert mean_interval(values, resamples=777, seed=2) == whole
    assert bootstrap_interval(lambda i: np.mean(values[i]), 300, resamples=777, seed=2) == general == whole


def test_the_interval_is_the_percentiles_of_the_replicates():
    values = np.arange(10, dtype=float)
    rng = np.random.default_rng(4)
    reps = np.array([np.mean(values[row]) for row in rng.integers(0, 10, size=(300, 10))])
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert mean_interval(values, resamples=300, seed=4) == (lo, hi)


def test_replicates_without_a_value_are_left_out():
    values = np.array([1.0, 2.0, 3.0, 4.0])

    def mean_if_any_large(i):
        sub = values[i]
        return None if not (sub > 2).any() else (math.nan if (sub > 3).all() else float(sub.mean()))

    rng = np.random.default_rng(0)
    kept = [
        m
        for row in rng.integers(0, 4, size=(400, 4))
        if (m := mean_if_any_large(row)) is not None and not math.isnan(m)
    ]
    assert len(kept) < 400
    assert bootstrap_interval(mean_if_any_large, 4, resamples=400) == tuple(np.quantile(kept, [0.025, 0.975]))
    assert bootstrap_interval(lambda i: None, 4) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda: mean_interval([]),
        lambda: mean_interval([1.0, 2.0], resamples=0),
        lambda: bootstrap_interval(np.mean, 0),
        lambda: bootstrap_interval(np.mean, 5, resamples=0),
    ],
)
def test_nothing_to_resample_is_no_interval(call):
    assert call() is None


@pytest.mark.parametrize("kwargs", [{"level": 0.0}, {"level": 1.0}, {"level": 95}, {"resamples": -1}])
def test_bad_settings_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        mean_interval([1.0, 2.0], **kwargs)


def test_intervals_depend_on_the_seed_only():
    values = np.random.default_rng(0).normal(size=50)
    assert mean_interval(values, seed=11) == mean_interval(values, seed=11)
    assert mean_interval(values, seed=11) != mean_interval(values, seed=12)


# ------------------------------------------------------------------- coverage
SIMULATIONS = 200


@pytest.mark.parametrize("n, p", [(200, 0.1), (100, 0.3), (400, 0.05)])
def test_the_violation_rates_interval_covers_the_true_rate(n, p):
    rng = np.random.default_rng(1000 * n + int(100 * p))
    covered = 0
    for s in range(SIMULATIONS):
        violations = rng.random(n) < p  # one simulated audit: each example violates with probability p
        lo, hi = mean_interval(violations, resamples=1000, level=0.95, seed=s)
        covered += lo <= p <= hi
    assert covered >= 0.9 * SIMULATIONS


@pytest.mark.parametrize("n, measure", [(100, "alpha"), (200, "alpha"), (400, "spread"), (200, "spread")])
def test_the_interval_of_a_continuous_measure_covers_its_mean(n, measure):
    rng = np.random.default_rng(n + len(measure))
    if measure == "alpha":  # alpha-covariance-like: in [0, 1], mean 5/7
        draw, truth = (lambda: rng.beta(5.0, 2.0, size=n)), 5 / 7
    else:  # a relative range: skewed, mean 0.2
        draw, truth = (lambda: rng.exponential(0.2, size=n)), 0.2
    covered = sum(lo <= truth <= hi for lo, hi in (mean_interval(draw(), seed=s) for s in range(SIMULATIONS)))
    assert covered >= 0.9 * SIMULATIONS


# --------------------------------------------------------------- homogeneity
def _deterministic_change(k: int = 5, variants: int = 8, changed: int = 3) -> list[list[str]]:
    """A deterministic model: the same answer to the original and every
    variant, but another to one variant, on each of k repeats."""
    return [["B" if j == changed else "A"] * k for j in range(1 + variants)]


def test_homogeneity_finds_a_deterministic_change_on_one_variant():
    groups = _deterministic_change()
    p = homogeneity(groups)
    assert p <= 1e-3
    # only the 9 of C(45, 5) arrangements with every B in one group reach T: p is at its floor
    assert p == pytest.approx(1 / 10000, abs=2 / 10000)
    assert homogeneity(_deterministic_change(changed=0)) <= 1e-3  # the original itself answers otherwise


def test_the_smallest_p_value_is_one_over_one_plus_resamples():
    assert homogeneity(_deterministic_change(), resamples=99) == pytest.approx(1 / 100)


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("probabilities", [(0.9, 0.1), (0.5, 0.5), (0.4, 0.3, 0.2, 0.1)])
def test_homogeneity_keeps_its_level_under_the_null(k, probabilities):
    rng = np.random.default_rng(k * 100 + len(probabilities) * 10 + int(10 * probabilities[0]))
    simulations, rejected = 400, 0
    for s in range(simulations):
        # a model invariant in distribution: every answer an independent draw from one distribution
        answers = rng.choice(len(probabilities), size=(9, k), p=probabilities)
        rejected += homogeneity(answers.tolist(), resamples=199, seed=s) <= 0.05
    slack = 3 * math.sqrt(0.05 * 0.95 / simulations)  # Monte Carlo error of the simulated rate
    assert rejected / simulations <= 0.05 + slack


def test_homogeneity_agrees_with_exact_enumeration():
    groups = [["a", "a", "b"], ["b", "b", "b"], ["a", "b"]]
    flat = [x for g in groups for x in g]
    cuts = np.cumsum([0] + [len(g) for g in groups])

    def agreement(xs):
        return sum(xs[cuts[g] : cuts[g + 1]].count(c) ** 2 for g in range(len(groups)) for c in "ab")

    observed = agreement(flat)
    every = [agreement(list(p)) for p in itertools.permutations(flat)]  # 8! equally likely assignments
    exact = sum(t >= observed for t in every) / len(every)
    assert 0.05 < exact < 0.9  # a case where the Monte Carlo p-value is not at a bound
    assert homogeneity(groups, resamples=49999, seed=1) == pytest.approx(exact, abs=0.01)


def test_homogeneity_is_reproducible_with_a_seed():
    groups = [["x", "y", "x"], ["y", "y", "x"], ["x", "x", "x"], ["y", "y", "y"]]
    p = homogeneity(groups, resamples=999, seed=42)
    assert homogeneity(groups, resamples=999, seed=42) == p
    assert {homogeneity(groups, resamples=999, seed=s) for s in range(5)} != {p}  # the draws do depend on it


@pytest.mark.parametrize("groups", [[["A"] * 5] * 9, [["A", "B", "A"]], [], [[], []]])
def test_nothing_to_tell_apart_is_p_one(groups):
    assert homogeneity(groups) == 1.0


def test_answers_are_any_hashable_categories():
    groups = [[(1, "a")] * 4] * 5 + [[None] * 4]
    assert homogeneity(groups, resamples=999) == pytest.approx(1 / 1000, abs=2 / 1000)


# ------------------------------------------------------- Benjamini-Hochberg
@pytest.mark.parametrize(
    "pvalues, level, expected",
    [
        # sorted: .005 .01 .03 .04 .2 against .01 .02 .03 .04 .05: the first four
        ([0.01, 0.04, 0.03, None, 0.2, 0.005], 0.05, [True, True, True, None, False, True]),
        # step-up: .02 misses its own bound (.0167) but .035 meets .05, so all three
        ([0.02, 0.03, 0.035], 0.05, [True, True, True]),
        ([0.5, 0.04], 0.05, [False, False]),  # .04 > .025, .5 > .05
        ([0.01, 0.01, 0.01, 0.9], 0.05, [True, True, True, False]),  # ties: .01 <= 3/4 * .05
        ([0.03, float("nan"), 0.2], 0.1, [True, None, False]),  # NaN: not a test; m = 2, .03 <= .05
        ([0.049], 0.05, [True]),
        ([0.051], 0.05, [False]),
        ([None, None], 0.05, [None, None]),
        ([], 0.05, []),
    ],
)
def test_benjamini_hochberg_rejects_the_hand_computed_hypotheses(pvalues, level, expected):
    assert benjamini_hochberg(pvalues, level) == expected


def test_benjamini_hochberg_agrees_with_scipys_adjusted_p_values():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = np.concatenate([rng.random(20), rng.random(10) * 0.01])
        adjusted = false_discovery_control(p)
        assert benjamini_hochberg(p.tolist(), 0.1) == (adjusted <= 0.1).tolist()


def test_benjamini_hochberg_refuses_a_level_outside_zero_to_one():
    with pytest.raises(UsageError):
        benjamini_hochberg([0.1], 0.0)


# --------------------------------------------------------- paired bootstrap
def _paired_design(n: int = 100, seed: int = 0):
    """Two models on the same examples: how hard an example is (sd 1) moves
    both; model A is better by 0.1 on each, give or take 0.05."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=n)
    return difficulty + 0.1 + rng.normal(scale=0.05, size=n), difficulty


def _unpaired_interval(a, b, resamples=1000, seed=0):
    """The difference of means with each model's examples resampled on their
    own, as if the two had been measured on different examples."""
    rng = np.random.default_rng(seed)
    n = len(a)
    resampled_a = a[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    diffs = resampled_a - b[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    return tuple(np.quantile(diffs, [0.025, 0.975])), min(1.0, 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0)))


def test_a_paired_design_finds_the_difference_an_unpaired_bootstrap_misses():
    a, b = _paired_design()
    paired = paired_bootstrap(a, b, seed=0)
    (lo, hi), unpaired_p = _unpaired_interval(a, b)
    assert paired["value"] == pytest.approx(np.mean(a) - np.mean(b))
    assert 0 < paired["interval"][0] < 0.1 < paired["interval"][1] and paired["p"] < 0.01
    assert lo < 0 < hi and unpaired_p > 0.2, "the examples' own spread hides it when unpaired"
    assert paired["examples"] == 100


def test_the_mean_fast_path_is_the_general_statistic():
    a, b = _paired_design(n=60, seed=4)
    fast = paired_bootstrap(a, b, resamples=400, seed=9)
    general = paired_bootstrap(a, b, lambda v: float(np.mean(v)), resamples=400, seed=9)
    assert fast == general


def test_the_p_value_is_twice_the_smaller_share_on_either_side_of_zero():
    a = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    b = np.array([0.0, 0.0, 1.0, 0.0, 1.0])
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 5, size=(200, 5))
    diffs = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    expected = min(1.0, 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0)))
    assert paired_bootstrap(a, b, resamples=200)["p"] == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ([], [], {"value": None, "interval": None, "p": None, "examples": 0}),
        ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], {"value": 0.0, "interval": [0.0, 0.0], "p": 1.0, "examples": 3}),
        ([2.0, 3.0], [1.0, 1.0], {"value": 1.5, "interval": [1.0, 2.0], "p": 0.0, "examples": 2}),
    ],
)
def test_paired_bootstrap_at_its_edges(a, b, expected):
    assert paired_bootstrap(a, b) == expected


def test_paired_bootstrap_needs_one_value_per_example_for_each_model():
    with pytest.raises(UsageError, match="one value per example"):
        paired_bootstrap([1.0, 2.0], [1.0])


def test_a_median_is_compared_too():
    a, b = _paired_design(n=80, seed=2)
    out = paired_bootstrap(a, b, np.median, resamples=300)
    assert out["value"] == pytest.approx(np.median(a) - np.median(b))
    assert out["interval"][0] <= out["value"] <= out["interval"][1]


# ------------------------------------------------------------------- correct
LTL = {"formula": "&aXb", "trace": "a;b;{1}"}


@pytest.mark.parametrize(
    "task, prediction, label, expected",
    [
        ("classify", "yes", "yes", True),
        ("classify", "yes", "no", False),
        ("classify", ["a", 1], ["a", 1], True),
        ("classify", "1", 1, False),  # compared as accuracy compares them: a string is not a number
        ("bugs", 1, 1, True),
        ("bugs", 0, 1, False),
        ("bugs", "1", 1, True),
        ("bugs", "maybe", 1, False),
        ("names", ["get", "value"], ["value", "get"], True),
        ("names", ["get"], ["get", "value"], False),
        ("names", "get value", ["get", "value"], True),
        ("names", None, ["get"], False),
        ("ltl", "a;b;{1}", LTL, True),
        ("ltl", "{a;b}", LTL, True),  # any trace the checker accepts
        ("ltl", "b;a;{1}", LTL, False),
        ("ltl", "nonsense", LTL, False),
        ("alta", "a  b c", "a b c", True),
        ("alta", "a b", "a b c", False),
        ("alta", 3, "3", False),
        ("copy", "ab c", "abc", True),
        ("copy", "abd", "abc", False),
        ("bhive", 1.5, 1.5, None),
        ("lm", 2.0, 2.0, None),  # numbers: no right or wrong
        ("classify", "yes", None, None),
        ("names", ["get"], None, None),  # no label
    ],
)
def test_correct(task, prediction, label, expected):
    assert correct(task, prediction, label) is expected


def test_correct_takes_a_task_too():
    from invar.tasks import get_task

    assert correct(get_task("bugs"), 1, 0) is False
