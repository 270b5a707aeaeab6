"""The audit's statistics: intervals over examples, exact tests, and tests
that compare two models on the same examples, as pure functions.

* :func:`bootstrap_interval`, :func:`mean_interval`: percentile bootstrap
  intervals over examples (an audit's examples are its unit of sampling);
* :func:`paired_bootstrap`: the difference of two models' statistic over the
  same examples, resampled together, so that what the examples share
  (hard examples are hard for both models) cancels;
* :func:`mcnemar`: the exact McNemar test on paired booleans (violated under
  one model only, right under one model only);
* :func:`homogeneity`: whether a sampling model's answers to an original and
  to its variants come from one distribution (a permutation test);
* :func:`benjamini_hochberg`: which of many such tests to believe at a false
  discovery rate;
* :func:`correct`: whether one prediction of a discrete task is right, the
  boolean McNemar compares.

Every random choice takes a seed and draws from one numpy ``Generator``: the
same seed gives the same numbers. Only numpy is needed (scipy checks these
in tests/audit/test_stats.py). docs/audit.md states what each test assumes.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Hashable, Iterator, Sequence

import numpy as np

from ..errors import UsageError

#: indices drawn (and counted) at a time: resamples are drawn in blocks of
#: whole rows so that memory stays near 32 MB however many examples; the rows
#: of a Generator's draws do not depend on how they are cut into blocks
BLOCK = 1 << 22
#: up to this many discordant pairs McNemar sums exact integers; beyond, the
#: binomial terms in logarithms (relative error about 1e-10)
EXACT_PAIRS = 1000


# ------------------------------------------------------------------ bootstrap
def _check(resamples: int, level: float) -> None:
    if resamples < 0:
        raise UsageError(f"{resamples} resamples: give 0 or more")
    if not 0.0 < level < 1.0:
        raise UsageError(f"level {level}: give a confidence level between 0 and 1, such as 0.95")


def _draws(rng: np.random.Generator, n: int, resamples: int) -> Iterator[np.ndarray]:
    """The (resamples, n) bootstrap indices, in blocks of rows (see :data:`BLOCK`):
    row b is the examples of resample b, drawn with replacement."""
    rows = max(1, BLOCK // max(n, 1))
    for start in range(0, resamples, rows):
        yield rng.integers(0, n, size=(min(rows, resamples - start), n))


def _finite(values: Sequence[Any]) -> np.ndarray:
    """The replicates a statistic gave, without None and NaN (ignored)."""
    if isinstance(values, np.ndarray):
        out = values.astype(np.float64)
    else:
        out = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return out[np.isfinite(out)]


def _percentiles(replicates: np.ndarray, level: float) -> tuple[float, float] | None:
    if not replicates.size:
        return None
    lo, hi = np.quantile(replicates, [(1.0 - level) / 2, (1.0 + level) / 2])
    return float(lo), float(hi)


def _replicates(statistic: Callable[[np.ndarray], Any], n: int, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return _finite([statistic(row) for block in _draws(rng, n, resamples) for row in block])


def _mean_replicates(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # numpy's mean along a row sums as np.mean of that row alone does: these
    # are bit for bit the replicates _replicates gives for np.mean(values[i])
    parts = [values[block].mean(axis=1) for block in _draws(rng, len(values), resamples)]
    return np.concatenate(parts) if parts else np.empty(0)


def bootstrap_interval(
    statistic: Callable[[np.ndarray], Any], n: int, *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """The percentile bootstrap interval of a statistic over ``n`` examples.

    ``statistic(indices)`` gets an array of ``n`` example positions drawn
    with replacement and returns the statistic of those examples (a float;
    None or NaN, say for a resample without a labelled example, is left
    out). The interval is the ``(1 - level) / 2`` and ``(1 + level) / 2``
    quantiles of ``resamples`` such replicates. None when there is nothing
    to resample (``n`` or ``resamples`` is 0) or no replicate is a number.

    It assumes the examples are independent draws from the population the
    statistic describes; it says nothing of other datasets, and for a
    handful of examples, or a rate near 0 or 1, it is too narrow (a rate
    with no violation among n examples gets the interval [0, 0]).
    """
    _check(resamples, level)
    if n <= 0 or resamples == 0:
        return None
    return _percentiles(_replicates(statistic, n, resamples, seed), level)


def mean_interval(
    values: Sequence[float], *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """:func:`bootstrap_interval` of the mean of ``values`` (per example:
    booleans for a rate), vectorised: the same interval, to the bit, as
    ``bootstrap_interval(lambda i: np.mean(values[i]), len(values))`` with
    the same seed, without a Python call per resample."""
    _check(resamples, level)
    x = np.asarray(values, dtype=np.float64)
    if not x.size or resamples == 0:
        return None
    return _percentiles(_finite(_mean_replicates(x, resamples, seed)), level)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    statistic: Callable = np.mean,
    *,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict:
    """The difference ``statistic(a) - statistic(b)`` of two models measured
    on the same examples (``a[i]`` and ``b[i]`` on example i), with its
    percentile bootstrap interval and a two-sided bootstrap p-value.

    Each resample draws examples with replacement and takes the *same*
    examples for both models, so the variation the examples share cancels:
    a paired design sees a small, steady difference that a comparison of two
    separately resampled means misses. The p-value is twice the smaller
    share of resampled differences on either side of 0 (ties with 0 count on
    both sides), capped at 1: a bootstrap approximation, not an exact test;
    0 means no resample fell on the other side (read it as below 2 /
    ``resamples``). Returns ``value``, ``interval`` (``[low, high]``), ``p``
    and ``examples``; the first three are None without examples.
    """
    _check(resamples, level)
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise UsageError(f"paired measures need one value per example for each model: {x.shape} and {y.shape}")
    n = len(x)
    out: dict[str, Any] = {"value": None, "interval": None, "p": None, "examples": n}
    if n == 0:
        return out
    out["value"] = float(statistic(x)) - float(statistic(y))
    if resamples == 0:
        return out
    if statistic is np.mean:  # one seed, so both draws pick the same examples: the pairing
        reps = _finite(_mean_replicates(x, resamples, seed) - _mean_replicates(y, resamples, seed))
    else:
        reps = _replicates(lambda i: _difference(statistic, x[i], y[i]), n, resamples, seed)
    interval = _percentiles(reps, level)
    out["interval"] = list(interval) if interval is not None else None
    if reps.size:
        out["p"] = min(1.0, 2.0 * min(float(np.mean(reps <= 0)), float(np.mean(reps >= 0))))
    return out


def _difference(statistic: Callable, x: np.ndarray, y: np.ndarray) -> float:
    sx, sy = statistic(x), statistic(y)
    return math.nan if sx is None or sy is None else float(sx) - float(sy)


# --------------------------------------------------------------- exact tests
def mcnemar(b: int, c: int) -> float:
    """The exact two-sided McNemar test of paired booleans.

    ``b`` and ``c`` are the discordant pairs (true under the first model
    only, under the second only); the pairs where both agree say nothing of
    which is more often true. Under the null each discordant pair falls
    either way with probability 1/2, so ``b`` is Binomial(b + c, 1/2); the
    p-value is twice the smaller tail, capped at 1 (1 when ``b + c`` is 0).
    It assumes independent examples, not equal rates of the two models.

    >>> mcnemar(9, 1)  # 10 discordant pairs, 9 one way: 2 * 11 / 1024
    0.021484375
    >>> mcnemar(3, 3)
    1.0
    """
    if b < 0 or c < 0 or int(b) != b or int(c) != c:
        raise UsageError(f"McNemar counts b={b}, c={c}: give whole numbers of at least 0")
    n, k = int(b) + int(c), min(int(b), int(c))
    if 2 * k >= n:  # b == c (or no pair at all): the tails overlap, nothing is seen
        return 1.0
    if n <= EXACT_PAIRS:
        tail, term = 0, 1
        for i in range(k + 1):  # comb(n, i), exactly
            tail += term
            term = term * (n - i) // (i + 1)
        return min(1.0, (2 * tail) / (1 << n))  # an int quotient: correctly rounded
    logs = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(k + 1)])
    top = float(logs.max())
    return min(1.0, 2.0 * math.exp(top + math.log(float(np.exp(logs - top).sum())) - n * math.log(2.0)))


def homogeneity(groups: Sequence[Sequence[Hashable]], *, resamples: int = 9999, seed: int = 0) -> float:
    """Whether several groups of answers come from one distribution: a Monte
    Carlo permutation test, for models that sample.

    ``groups[0]`` holds the K answers a model gave to the original program
    (K repeats), ``groups[j]`` its K answers to variant j, each answer
    already reduced to a hashable category. The null hypothesis is
    invariance *in distribution*: every answer of every group is an
    independent draw from one distribution, so the group labels are
    exchangeable. The statistic is the within-group agreement
    ``T = sum over groups g and categories c of n_gc ** 2``: with the
    category totals and group sizes fixed, it grows as the groups differ.
    The p-value is ``(1 + #{T_b >= T}) / (1 + resamples)`` over
    ``resamples`` random reassignments of the answers to the groups, which
    keeps its level exactly at any number of resamples; its smallest value
    is therefore ``1 / (1 + resamples)`` (1e-4 with the default), however
    different the groups. 1.0 at once when every answer is one category (or
    there are fewer than two groups).

    It assumes the repeats are independent (a cache or a fixed sampling
    seed makes a sampling model look deterministic); it does not say how
    the distributions differ, nor that they are equal when the test does not
    reject (K repeats see only large differences).
    """
    if resamples < 0:
        raise UsageError(f"{resamples} resamples: give 0 or more")
    sizes = [len(g) for g in groups]
    ids: dict[Hashable, int] = {}
    answers = np.array([ids.setdefault(x, len(ids)) for g in groups for x in g], dtype=np.int64)
    if len(groups) < 2 or len(ids) < 2:
        return 1.0
    owner = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
    cells = len(groups) * len(ids)
    observed = _agreement(owner * len(ids) + answers[None, :], cells)[0]
    rng = np.random.default_rng(seed)
    at_least, rows = 0, max(1, BLOCK // max(len(answers), cells))
    for start in range(0, resamples, rows):
        shuffled = rng.permuted(np.broadcast_to(answers, (min(rows, resamples - start), len(answers))), axis=1)
        at_least += int(np.count_nonzero(_agreement(owner * len(ids) + shuffled, cells) >= observed))
    return (1 + at_least) / (1 + resamples)


def _agreement(cell: np.ndarray, cells: int) -> np.ndarray:
    """T of each row: ``cell[r, i]`` is answer i's (group, category) cell in
    row r; counted for every row with one bincount."""
    r = cell.shape[0]
    flat = (cell + cells * np.arange(r, dtype=np.int64)[:, None]).ravel()
    counts = np.bincount(flat, minlength=r * cells).reshape(r, cells)
    return (counts * counts).sum(axis=1)


def benjamini_hochberg(pvalues: Sequence[float | None], level: float) -> list[bool | None]:
    """Which hypotheses the Benjamini-Hochberg step-up procedure rejects at
    false discovery rate ``level``: with the m p-values sorted, the largest
    k with ``p_(k) <= k / m * level``, and every p-value up to ``p_(k)``.
    None (a test not made; NaN likewise) stays None and does not count in
    m. It controls the expected share of false rejections for independent
    (or positively dependent) tests, not the chance of any.

    >>> benjamini_hochberg([0.01, 0.04, None, 0.03, 0.5], 0.05)  # m = 4: 0.01 <= 1/4 * 0.05; 0.03 > 2/4 * 0.05
    [True, False, None, False, False]
    """
    if not 0.0 < level <= 1.0:
        raise UsageError(f"false discovery rate {level}: give a level in (0, 1], such as 0.05")
    tested = [(p, i) for i, p in enumerate(pvalues) if p is not None and not math.isnan(p)]
    m = len(tested)
    cut = -math.inf
    for k, (p, _i) in enumerate(sorted(tested), start=1):
        if p <= k / m * level:
            cut = p
    out: list[bool | None] = [None] * len(pvalues)
    for p, i in tested:
        out[i] = p <= cut
    return out


# ------------------------------------------------------------------ correct
def correct(task, prediction: Any, label: Any) -> bool | None:
    """Whether one prediction of a discrete task is right (what McNemar
    compares between two models): ``classify`` and ``bugs``, equal as their
    accuracy compares them; ``names``, the same set of subtokens (an exact
    match, not the F1 the metric averages); ``ltl``, the task's own trace
    checker; ``alta`` and ``copy``, equal once both are normalised as the
    task reads a text answer. None for numeric tasks (``bhive``, ``lm``),
    for a task not listed, and when the label is None. ``task``: a
    :class:`~invar.tasks.Task` or its name."""
    from ..tasks import get_task

    task = get_task(task) if isinstance(task, str) else task
    if not task.discrete or label is None:
        return None
    check = _CORRECT.get(task.name)
    return None if check is None else bool(check(task, prediction, label))


def _same_label(_task, prediction, label) -> bool:
    from .metrics import key

    return key(prediction) == key(label)


def _same_bug(_task, prediction, label) -> bool:
    try:
        return int(prediction) == int(label)
    except (TypeError, ValueError):  # an answer that reads as no 0 or 1 is wrong
        return False


def _same_subtokens(_task, prediction, label) -> bool:
    from ..tasks.names import _subtokens_of

    return set(_subtokens_of(prediction)) == set(_subtokens_of(label))


def _trace_holds(_task, prediction, label) -> bool:
    from ..tasks.ltl import is_correct

    return is_correct(prediction, label)


def _same_text(task, prediction, label) -> bool:
    return isinstance(prediction, str) and _normal(task, prediction) == _normal(task, str(label))


def _normal(task, text: str) -> str:
    """A text output as the task reads an answer; an output its reader
    refuses (an empty one: a model may write nothing) as it is, stripped."""
    try:
        return task.answer(text)
    except ValueError:
        return text.strip()


_CORRECT = {
    "classify": _same_label,
    "bugs": _same_bug,
    "names": _same_subtokens,
    "ltl": _trace_holds,
    "alta": _same_text,
    "copy": _same_text,
}


__all__ = [
    "bootstrap_interval",
    "mean_interval",
    "paired_bootstrap",
    "mcnemar",
    "homogeneity",
    "benjamini_hochberg",
    "correct",
]
