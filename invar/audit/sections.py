"""The report's sections beyond the invariance measures: confidence
intervals, the paired test of originals against variants, the model's noise
floor, its sensitivity on controls, and what became of its requests.

Each is a pure function of the example records (and the audit's config), so
that shards merge into the report one run gives. docs/audit.md defines each
measure, test and interval, and states their assumptions.
"""

from __future__ import annotations

import collections
import math
from typing import Any, Callable

import numpy as np

from .records import most_first
from .stats import benjamini_hochberg, bootstrap_interval, correct, mcnemar, mean_interval

#: a model that changes its answer on fewer than this share of the controls
#: that change the label is called insensitive: invariant for want of reacting
INSENSITIVE = 0.1
#: how many ambiguous replies the report shows
AMBIGUOUS_SHOWN = 5


def decide(records: list[dict], level: float) -> list[dict]:
    """The records with each repeated example's violation decided over the
    whole audit: its test's p-value rejected by the Benjamini-Hochberg
    procedure at false-discovery rate ``level``. Records without repeats
    are returned as they are."""
    tested = [r for r in records if r["error"] is None and (r.get("noise") or {}).get("p_value") is not None]
    if not tested:
        return records
    rejected = benjamini_hochberg([r["noise"]["p_value"] for r in tested], level)
    decided = {r["index"]: bool(x) for r, x in zip(tested, rejected)}
    return [dict(r, violation=decided[r["index"]]) if r["index"] in decided else r for r in records]


# ----------------------------------------------------------------- intervals
def intervals(ok: list[dict], task, config: dict) -> dict | None:
    """Percentile bootstrap intervals over examples (seeded by the audit's
    seed) for the violation rate, alpha-covariance and the metric on
    originals, variants and worst variants; None with ``--bootstrap 0``."""
    resamples, level, seed = config.get("bootstrap", 1000), config.get("confidence", 0.95), config.get("seed", 0)
    if not resamples or not ok:
        return None
    how = {"resamples": resamples, "level": level, "seed": seed}
    alphas = [a for r in ok if (a := r["alpha_covariance"]) is not None]
    out: dict[str, Any] = {
        "confidence": level,
        "resamples": resamples,
        "violation_rate": _pair(mean_interval([float(bool(r["violation"])) for r in ok], **how)),
        "alpha_covariance": _pair(mean_interval(alphas, **how)),
        "metric": None,
    }
    rows = [r for r in ok if r["metric"] is not None]
    if rows:
        out["metric"] = {
            part: _pair(bootstrap_interval(stat, len(rows), **how))
            for part, stat in _metric_statistics(rows, task).items()
        }
    return out


def _pair(interval) -> list[float] | None:
    return None if interval is None else [float(interval[0]), float(interval[1])]


def _metric_statistics(rows: list[dict], task) -> dict[str, Callable[[np.ndarray], float]]:
    """The metric on originals, variants and worst variants as functions of
    resampled example indices. A metric that is the mean of its per-example
    values (MAPE, accuracy …: checked on these examples) is resampled as that
    mean, fast; any other (an F1) is recomputed from the predictions."""
    labels = [r["label"] for r in rows]
    preds = [r["prediction"] for r in rows]
    worst = [r["metric"]["worst_prediction"] for r in rows]
    per_original = np.array([_float(r["metric"]["original"]) for r in rows])
    per_variants = np.array([_float(r["metric"]["variants"]) for r in rows])
    weights = np.array([r["variants"] for r in rows], dtype=np.float64)
    is_mean = math.isclose(_float(task.metric(preds, labels)), float(np.mean(per_original)), rel_tol=1e-9, abs_tol=1e-9)
    if is_mean:
        per_worst = np.array([_float(task.metric([w], [label])) for w, label in zip(worst, labels)])
        return {
            "original": lambda i: float(per_original[i].mean()),
            "variants": lambda i: float((per_variants[i] * weights[i]).sum() / weights[i].sum()),
            "worst": lambda i: float(per_worst[i].mean()),
        }
    pairs = [[(p, r["label"]) for p, n in r["metric"].get("variant_predictions", []) for _ in range(n)] for r in rows]

    def variants(i):
        taken = [pl for k in i for pl in pairs[k]]
        return task.metric([p for p, _ in taken], [label for _, label in taken])

    return {
        "original": lambda i: task.metric([preds[k] for k in i], [labels[k] for k in i]),
        "variants": variants,
        "worst": lambda i: task.metric([worst[k] for k in i], [labels[k] for k in i]),
    }


def _float(x) -> float:
    return float("nan") if x is None else float(x)


# ------------------------------------------------------------- paired test
def paired(ok: list[dict], task) -> dict | None:
    """McNemar's exact test of "right on the original" against "right on a
    variant drawn uniformly" over the labelled examples (tasks whose answers
    are right or wrong); None for others."""
    rows = [r for r in ok if r["metric"] is not None and "paired_prediction" in r["metric"]]
    pairs = [
        (correct(task, r["prediction"], r["label"]), correct(task, r["metric"]["paired_prediction"], r["label"]))
        for r in rows
    ]
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    if not pairs:
        return None
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if y and not x)
    return {
        "examples": len(pairs),
        "original_correct": sum(1 for x, _ in pairs if x),
        "variant_correct": sum(1 for _, y in pairs if y),
        "original_only": b,
        "variant_only": c,
        "p_value": mcnemar(b, c),
    }


# ------------------------------------------------------------------- noise
def noise(ok: list[dict], config: dict) -> dict | None:
    """The model's noise floor over the repeated examples: how often two
    answers to one original differ, how often an original's and a variant's
    answers differ, and how many examples' tests reject before and after
    the correction for testing many; None without repeats."""
    recs = [r for r in ok if r.get("noise")]
    if not recs:
        return None
    level = config.get("level", 0.05)
    how = {
        "resamples": config.get("bootstrap", 1000),
        "level": config.get("confidence", 0.95),
        "seed": config.get("seed", 0),
    }
    selfs = [x for r in recs if (x := r["noise"]["self_disagreement"]) is not None]
    cross = [x for r in recs if (x := r["noise"]["cross_disagreement"]) is not None]
    return {
        "repeats": config.get("repeats"),
        "examples": len(recs),
        "self_disagreement": _mean(selfs),
        "self_disagreement_interval": _pair(mean_interval(selfs, **how)),
        "cross_disagreement": _mean(cross),
        "cross_disagreement_interval": _pair(mean_interval(cross, **how)),
        "test": "permutation",
        "level": level,
        "correction": "benjamini-hochberg",
        "uncorrected": sum(1 for r in recs if r["noise"]["p_value"] <= level),
        "violations": sum(1 for r in recs if r["violation"]),
    }


def _mean(xs: list[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


# -------------------------------------------------------------- sensitivity
def sensitivity(ok: list[dict], config: dict) -> dict | None:
    """How often the model changes its answer on controls (transforms that
    change the meaning; docs/audit.md), over all of them and by kind, and
    whether it is insensitive; None when no control was drawn."""
    recs = [r for r in ok if r.get("controls")]
    if not recs:
        return None
    items = [i for r in recs for i in r["controls"]["items"]]
    checked = [i for i in items if i["label_changed"] is True]
    judged = checked or items  # the controls whose label change is known, when there are any
    by_kind: dict[str, dict] = {}
    for i in items:
        k = by_kind.setdefault(i["kind"], {"controls": 0, "changed": 0, "label_changed": 0})
        k["controls"] += 1
        k["changed"] += bool(i["changed"])
        k["label_changed"] += i["label_changed"] is True
    for k in by_kind.values():
        k["change_rate"] = k["changed"] / k["controls"]
    # the interval resamples examples: each one's share of its judged controls that changed the answer
    mine = [[i for i in r["controls"]["items"] if i["label_changed"] is True or not checked] for r in recs]
    shares = [sum(bool(i["changed"]) for i in its) / len(its) for its in mine if its]
    how = {
        "resamples": config.get("bootstrap", 1000),
        "level": config.get("confidence", 0.95),
        "seed": config.get("seed", 0),
    }
    rate = sum(bool(i["changed"]) for i in judged) / len(judged) if judged else None
    return {
        "drawn": sum(r["controls"]["drawn"] for r in recs),
        "controls": len(items),
        "examples": len(shares),
        "label_changed": len(checked),
        "unchecked": sum(1 for i in items if i["label_changed"] is None),
        "on": "label_changed" if checked else "all",
        "judged": len(judged),
        "changed": sum(bool(i["changed"]) for i in judged),
        "change_rate": rate,
        "change_rate_interval": _pair(mean_interval(shares, **how)) if shares else None,
        "by_kind": dict(sorted(by_kind.items())),
        "insensitive": None if rate is None else rate < INSENSITIVE,
    }


# ------------------------------------------------------------------ replies
def replies(records: list[dict]) -> dict | None:
    """What became of a text model's requests over the audit (sent, from the
    cache, rate-limited, waited), the models the replies say answered, and
    the replies that held more than one candidate answer, with a few of
    them; None for other models."""
    recs = [r for r in records if r.get("replies")]
    if not recs:
        return None
    total = {
        k: sum(r["replies"][k] for r in recs) for k in ("inputs", "sent", "from_cache", "rate_limited", "ambiguous")
    }
    total["waited"] = round(math.fsum(r["replies"]["waited"] for r in recs), 3)
    served: collections.Counter = collections.Counter()
    for r in recs:  # records written before replies said their model have no "served"
        served.update(r["replies"].get("served") or {})
    total["served"] = most_first(served)
    total["ambiguous_examples"] = [
        {"id": r["id"], **r["replies"]["ambiguous_example"]} for r in recs if r["replies"]["ambiguous_example"]
    ][:AMBIGUOUS_SHOWN]
    return total


__all__ = ["decide", "intervals", "paired", "noise", "sensitivity", "replies", "INSENSITIVE"]
