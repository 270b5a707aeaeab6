"""The audit's measures on predictions whose answers are worked out by hand."""

from __future__ import annotations

import math

import pytest

from invar.audit import metrics


@pytest.mark.parametrize(
    "a, b, tol, expected",
    [
        (1.0, 1.0, 0.0, True),
        (1.0, 1.0 + 1e-9, 1e-6, True),
        (1.0, 1.001, 1e-6, False),
        (100.0, 100.00005, 1e-6, True),  # relative: 5e-7 of 100
        (0.0, 0.0, 1e-6, True),
        (0.0, 1e-12, 1e-6, False),
    ],
)
def test_numbers_are_the_same_within_a_relative_tolerance(a, b, tol, expected):
    assert metrics.same(a, b, tol, False) is expected
    assert metrics.violates(a, [a, b], tol, False) is (not expected)


def test_discrete_predictions_compare_by_value():
    assert metrics.same(["x", 1], ["x", 1], 0.5, True)
    assert not metrics.same("1", 1, 0.5, True)
    assert metrics.violates("a", ["a", "b"], 0.0, True)
    assert not metrics.violates("a", ["a", "a"], 0.0, True)


@pytest.mark.parametrize(
    "preds, tol, u, alpha",
    [
        ([2.0, 2.0, 2.0, 2.0], 0.0, 1, 1.0),          # all agree
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.0, 5, 0.0),     # all differ
        ([1.0, 1.0, 2.0, 2.0, 3.0], 0.0, 3, 0.5),     # (5 - 3) / 4
        ([1.0, 1.0 + 1e-8, 1.0 - 1e-8], 1e-6, 1, 1.0),
        ([1.0, 1.5, 1.5 + 1e-9], 1e-6, 2, 0.5),
    ],
)
def test_alpha_covariance(preds, tol, u, alpha):
    assert metrics.distinct(preds, tol, False) == u
    assert metrics.alpha_covariance(len(preds), u) == alpha


def test_alpha_covariance_of_discrete_predictions_and_of_one_prediction():
    assert metrics.distinct(["a", "b", "a", ["a"]], 0, True) == 3
    assert metrics.alpha_covariance(4, 3) == pytest.approx(1 / 3)
    assert metrics.alpha_covariance(1, 1) is None


def test_distinct_cuts_runs_at_the_tolerance_of_their_first_value():
    # 1.0, 1.0000008 and 1.0000016: each within 1e-6 of its neighbour, the
    # last not within 1e-6 of the first, so two runs
    assert metrics.distinct([1.0, 1.0000008, 1.0000016], 1e-6, False) == 2


def test_spread():
    rng, std, rel = metrics.spread(2.0, [2.0, 1.0, 3.0])
    assert (rng, rel) == (2.0, 1.0)
    assert std == pytest.approx(math.sqrt(2 / 3))
    assert metrics.spread(0.0, [0.0, 0.0]) == (0.0, 0.0, 0.0)
    assert metrics.spread(0.0, [0.0, 1.0])[2] is None


def test_most_different_and_worst():
    assert metrics.most_different(2.0, [2.1, 1.5, 2.4], False) == 1
    assert metrics.worst([2.1, 1.5, 2.4], 2.3, False) == 1
    assert metrics.most_different("a", ["a", "b", "c"], True) == 1
    assert metrics.worst(["a", "b"], "a", True) == 1
    assert metrics.worst(["a", "a"], "a", True) == 0
    assert metrics.worst([], 1.0, False) is None


def test_quantiles_and_histogram():
    q = metrics.quantiles([0.0, 1.0, 2.0, 3.0, None])
    assert (q["mean"], q["median"], q["max"]) == (1.5, 1.5, 3.0)
    assert metrics.quantiles([])["mean"] is None
    h = metrics.histogram([0.0, 0.0, 1.0, 2.0], bins=2)
    assert h == {"edges": [0.0, 1.0, 2.0], "counts": [2, 2]}
    assert metrics.histogram([5.0, 5.0]) == {"edges": [5.0, 5.0], "counts": [2]}
