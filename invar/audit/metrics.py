"""The audit's measures, as pure functions over one example's predictions.

Every function takes the prediction on the original and the predictions on
its variants (already mapped back to the original's names by
:meth:`~invar.symmetry.renamings.RenamingSpace.undo`), and a tolerance:

* numbers are **the same** when ``|a - b| <= tolerance * max(|a|, |b|)``
  (relative; ``tolerance=0`` asks for equal floats);
* discrete predictions (strings, lists, labels) are the same when equal.

docs/audit.md defines each measure; tests/audit/test_metrics.py checks them
against values computed by hand.
"""

from __future__ import annotations

import json
import math
from typing import Any, Sequence

import numpy as np


def key(x: Any) -> str:
    """A discrete prediction as a hashable value: equal predictions, equal keys."""
    return json.dumps(x, sort_keys=True, default=str)


def same(a: Any, b: Any, tolerance: float, discrete: bool) -> bool:
    """Whether two predictions count as the same (see the module docstring)."""
    if discrete:
        return key(a) == key(b)
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


def violates(original: Any, variants: Sequence[Any], tolerance: float, discrete: bool) -> bool:
    """Whether some variant's prediction differs from the original's."""
    if discrete:
        k = key(original)
        return any(key(v) != k for v in variants)
    if not len(variants):
        return False
    v = np.asarray(variants, dtype=np.float64)
    return bool(np.any(np.abs(v - original) > tolerance * np.maximum(np.abs(v), abs(original))))


def distinct(predictions: Sequence[Any], tolerance: float, discrete: bool) -> int:
    """U: how many distinct predictions (:func:`categories`: the first
    prediction, the original's, anchors its class)."""
    return len(set(categories(predictions, tolerance, discrete)))


def categories(predictions: Sequence[Any], tolerance: float, discrete: bool) -> list[int]:
    """Each prediction's class of sameness, numbered from 0 in order of first
    appearance. Discrete predictions: equal ones share a class. Numbers: the
    first prediction (the original's) anchors class 0, which holds every
    prediction :func:`same` as it, the rule :func:`violates` uses, so that an
    example without a violation has one class; the others are sorted and cut
    into runs that stay within the tolerance of their run's smallest value
    (a greedy clustering: sameness within a tolerance is not transitive)."""
    if discrete:
        keys = [key(p) for p in predictions]
    else:
        values = np.asarray(predictions, dtype=np.float64)
        keys = [0] * len(values)
        if len(values):
            anchor = values[0]
            # the exact expression of violates(), so that the two agree to the last bit
            near = np.abs(values - anchor) <= tolerance * np.maximum(np.abs(values), abs(anchor))
            run, start = 0, None
            for i in np.argsort(values, kind="stable"):
                if near[i]:
                    continue
                v = values[i]
                if start is None or not abs(v - start) <= tolerance * max(abs(v), abs(start)):
                    run, start = run + 1, v
                keys[i] = run
    first: dict[Any, int] = {}
    return [first.setdefault(k, len(first)) for k in keys]


def alpha_covariance(n: int, u: int) -> float | None:
    """(N - U) / (N - 1): 1 when all N predictions agree, 0 when all differ;
    None for a single prediction."""
    return None if n < 2 else (n - u) / (n - 1)


def spread(original: float, predictions: Sequence[float]) -> tuple[float, float, float | None]:
    """(range, standard deviation, relative range) of ``predictions`` (the
    original's and its variants'); the relative range is the range over
    ``|original|`` (None when the original is 0 and the range is not)."""
    v = np.asarray(predictions, dtype=np.float64)
    rng = float(v.max() - v.min())
    std = float(v.std())
    if original == 0:
        return rng, std, (0.0 if rng == 0 else None)
    return rng, std, rng / abs(original)


def most_different(original: Any, variants: Sequence[Any], discrete: bool) -> int | None:
    """Index of the variant whose prediction is farthest from the original's
    (the first differing one for discrete predictions); None without variants."""
    if not len(variants):
        return None
    if discrete:
        k = key(original)
        return next((i for i, v in enumerate(variants) if key(v) != k), 0)
    return int(np.argmax(np.abs(np.asarray(variants, dtype=np.float64) - original)))


def worst(variants: Sequence[Any], label: Any, discrete: bool) -> int | None:
    """Index of the variant whose prediction is worst for ``label``: farthest
    from it for numbers, the first wrong one for discrete predictions (the
    first variant when all are right); None without variants. The variant
    farthest from the label is the one :func:`most_different` finds with the
    label in the original's place."""
    return most_different(label, variants, discrete)


def quantiles(values: Sequence[float]) -> dict[str, float | None]:
    """mean, median, 90th and 99th percentiles, max (None for no values)."""
    v = np.asarray([x for x in values if x is not None], dtype=np.float64)
    if not len(v):
        return {"mean": None, "median": None, "p90": None, "p99": None, "max": None}
    return {
        "mean": float(v.mean()),
        "median": float(np.quantile(v, 0.5)),
        "p90": float(np.quantile(v, 0.9)),
        "p99": float(np.quantile(v, 0.99)),
        "max": float(v.max()),
    }


def histogram(values: Sequence[float], bins: int = 20) -> dict[str, list]:
    """Counts of ``values`` in ``bins`` equal bins from their min to their max
    (``edges`` has one more entry than ``counts``)."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=np.float64)
    if not len(v):
        return {"edges": [], "counts": []}
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        return {"edges": [lo, hi], "counts": [int(len(v))]}
    counts, edges = np.histogram(v, bins=bins, range=(lo, hi))
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


__all__ = [
    "key",
    "same",
    "violates",
    "distinct",
    "categories",
    "alpha_covariance",
    "spread",
    "most_different",
    "worst",
    "quantiles",
    "histogram",
]
