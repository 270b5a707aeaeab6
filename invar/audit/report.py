"""The audit's report: the summary computed from the example records, the
JSONL stream, merging shards, and ``--fail-over`` bounds.

The summary is a pure function of the run's settings (the header) and its
example records, taken in example order. So a run split into shards (or
processes) and merged gives exactly the report one run gives, apart from
``run`` (timing, processes, shards), which docs/audit.md excludes from
comparison.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, Sequence

from ..errors import DataError, UsageError, json_problem
from ..files import read_utf8
from .sections import decide, intervals, noise, paired, replies, sensitivity
from .metrics import distinct, histogram, key as prediction_key, quantiles
from .schema import EXAMPLE, SCHEMA, mismatch

#: schemas whose JSONL ``merge`` reads (later schemas only add to the example records)
READS = (1, 2, 3)
#: header fields that must agree for shards to merge (everything but ``shard``)
_SETTINGS = ("variants", "seed", "limit", "tolerance", "oracle", "example")
#: the fields of an example record that the report reads
_RECORD = (
    "index",
    "id",
    "location",
    "label",
    "referents",
    "variants",
    "exhaustive",
    "exact",
    "prediction",
    "violation",
    "distinct",
    "alpha_covariance",
    "range",
    "std",
    "relative_range",
    "metric",
    "most_different",
    "oracle",
    "error",
    "stage",
)
#: how many examples the report shows with their most different variant
WORST = 10


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


def _rate(k: int, n: int) -> float | None:
    return k / n if n else None


def summarize(header: dict, records: Iterable[dict], run: dict | None = None) -> dict:
    """The report (docs/audit.md, "report") of one audit."""
    from ..tasks import get_task

    task = get_task(header["task"])
    config = header.get("config") or {}
    records = decide(sorted(records, key=lambda r: r["index"]), config.get("level", 0.05))
    ok = [r for r in records if r["error"] is None]
    failed = [r for r in records if r["error"] is not None]
    violations = sum(1 for r in ok if r["violation"])
    metric = _metric(task, ok)
    varied = _varied(ok)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "type": "report",
        "invar": header["invar"],
        "model": header["model"],
        "task": {
            "name": task.name,
            "metric": task.metric_name,
            "lower_is_better": task.lower_is_better,
            "discrete": task.discrete,
        },
        "dataset": header["dataset"],
        "transform": header["transform"],
        "task_symmetry": header["task_symmetry"],
        "table": header.get("table"),
        "labels_offered": header.get("labels_offered"),
        "labels_unanswerable": header.get("labels_unanswerable"),
        "settings": {k: header[k] for k in _SETTINGS},
        "examples": len(records),
        "audited": len(ok),
        "errors": sum(1 for r in failed if r["stage"] != "parse"),
        "unparsable": sum(1 for r in failed if r["stage"] == "parse"),
        "predictions": sum(1 + r["variants"] for r in ok),
        "exhaustive": sum(1 for r in ok if r["exhaustive"]),
        "inexact": sum(1 for r in ok if not r["exact"]),
        "violations": violations,
        "violation_rate": _rate(violations, len(ok)),
        "varied": varied,
        "alpha_covariance": _alpha(ok, task),
        "spread": None if task.discrete else _spread(ok),
        "metric": metric,
        "intervals": intervals(ok, task, config),
        "paired": paired(ok, task),
        "noise": noise(ok, config),
        "sensitivity": sensitivity(ok, config),
        "replies": replies(records),
        "trivial": None,
        "oracle": _oracle(ok) if header["oracle"] else None,
        "worst_examples": _worst(ok, task.discrete),
        "failed": [
            {"index": r["index"], "id": r["id"], "location": r["location"], "stage": r["stage"], "error": r["error"]}
            for r in failed
        ],
        "example": _example(ok, task.discrete) if header["example"] is not None else None,
        "run": dict(run or {}),
        "config": header.get("config"),
    }
    report["trivial"] = _trivial(
        ok,
        task,
        header["tolerance"],
        metric,
        varied,
        header["transform"],
        report["sensitivity"],
        _unmeasured_noise(header, config),
        report["replies"],
    )
    fell = fallback_note(header["model"], run)
    if fell is not None:
        report["trivial"]["notes"].append(fell)
    return report


def fallback_note(model: dict, run: dict | None) -> str | None:
    """What to say of the batches a model answered wrongly (the wrong number
    of predictions, an exception, a timeout) and that were therefore asked
    one input at a time (``run["fallbacks"]``), or None when there were none:
    one home for the report's note and the command's standard error."""
    fell = (run or {}).get("fallbacks")
    if not fell:
        return None
    k = fell["batches"]
    return (
        f"{model.get('path') or 'the model'} {fell['first']}; it was called once per program instead "
        f"({k:,} batch{'es' if k != 1 else ''} retried so)"
    )


def merged_fallbacks(runs: Sequence[dict]) -> dict | None:
    """The ``fallbacks`` of several runs (shards, processes) as one: the batches summed, the first reason."""
    fell = [r["fallbacks"] for r in runs if r.get("fallbacks")]
    return {"batches": sum(f["batches"] for f in fell), "first": fell[0]["first"]} if fell else None


def _unmeasured_noise(header: dict, config: dict) -> bool:
    """Whether the model may answer one input differently twice and the
    audit did not ask it twice: a model that samples (HTTP, a callable) at
    one repeat."""
    return header["model"]["kind"] in ("http", "callable") and config.get("repeats", 1) == 1


def _varies(record: dict) -> bool:
    """Whether an example's space holds a variant besides the original
    (``space`` is null when there are too many orders to count; a record
    written before ``varies`` counts a space of one as the original alone)."""
    if record.get("varies") is not None:
        return bool(record["varies"])
    return record["space"] is None or int(record["space"]) > 1


def _varied(ok: list[dict]) -> dict | None:
    """The audited examples that can violate at all, those whose space holds
    a variant besides the original, with the violation rate and mean
    alpha-covariance among them (null for records without ``space``)."""
    if any("space" not in r for r in ok):
        return None
    sub = [r for r in ok if _varies(r)]
    return {
        "examples": len(sub),
        "violation_rate": _rate(sum(1 for r in sub if r["violation"]), len(sub)),
        "alpha_covariance": _mean([a for r in sub if (a := r["alpha_covariance"]) is not None]),
    }


def _alpha(ok: list[dict], task=None) -> dict:
    groups: dict[Any, list[float]] = {}
    for r in ok:
        if r["alpha_covariance"] is not None:
            groups.setdefault(r["referents"], []).append(r["alpha_covariance"])
    every = [a for r in ok if (a := r["alpha_covariance"]) is not None]
    by = []
    for referents in sorted(groups, key=lambda k: (k is None, k or 0)):
        sub = [r for r in ok if r["referents"] == referents]
        group = {
            "referents": referents,
            "examples": len(sub),
            "violation_rate": _rate(sum(1 for r in sub if r["violation"]), len(sub)),
            "alpha_covariance": _mean(groups[referents]),
        }
        if task is not None and task.head == "generate":
            # sequence tasks report their metrics by number of names too (the
            # interchangeable-token paper's tables by AP count)
            rows = [r for r in sub if r["metric"] is not None]
            labels, preds = [r["label"] for r in rows], [r["prediction"] for r in rows]
            group["metric"] = task.metric(preds, labels) if rows else None
            group["extra"] = {name: (m(preds, labels) if rows else None) for name, m in task.extra_metrics.items()}
        by.append(group)
    return {"mean": _mean(every), "by_referents": by}


def _spread(ok: list[dict]) -> dict:
    rel = [r["relative_range"] for r in ok if r["relative_range"] is not None]
    return {
        "range": quantiles([r["range"] for r in ok]),
        "std": quantiles([r["std"] for r in ok]),
        "relative_range": quantiles(rel),
        "histogram": histogram(rel),
    }


def _metric(task, ok: list[dict]) -> dict | None:
    rows = [r for r in ok if r["metric"] is not None]
    if not rows:
        return None
    labels = [r["label"] for r in rows]
    preds = [r["prediction"] for r in rows]
    worst = [r["metric"]["worst_prediction"] for r in rows]
    out = {
        "name": task.metric_name,
        "examples": len(rows),
        "original": task.metric(preds, labels),
        "worst": task.metric(worst, labels),
    }
    if task.discrete or all("variant_predictions" in r["metric"] for r in rows):
        # every variant's answer is listed (discrete tasks; a language model's losses): the metric over them
        from ..tasks.classify import macro_f1

        vp, vl = [], []
        for r in rows:
            for p, n in r["metric"]["variant_predictions"]:
                vp += [p] * n
                vl += [r["label"]] * n
        out["variants"] = task.metric(vp, vl)
        out["f1"] = (
            {"original": macro_f1(preds, labels), "variants": macro_f1(vp, vl), "worst": macro_f1(worst, labels)}
            if task.f1 and task.discrete
            else None
        )
        if task.discrete and task.extra_metrics:
            out["extra"] = {
                name: {"original": m(preds, labels), "variants": m(vp, vl), "worst": m(worst, labels)}
                for name, m in task.extra_metrics.items()
            }
    else:
        # the metric over every (variant, label) pair: each example's mean
        # weighted by its number of variants (exact for mean metrics: MAPE)
        n = sum(r["variants"] for r in rows)
        out["variants"] = math.fsum(r["metric"]["variants"] * r["variants"] for r in rows) / n if n else None
        out["f1"] = None
    out["chance"] = chance(task, labels)
    keys = ("name", "examples", "original", "variants", "worst", "f1", "chance") + (
        ("extra",) if "extra" in out else ()
    )
    return {k: out[k] for k in keys}


def chance(task, labels: Sequence) -> dict | None:
    """The task's chance level on these labels: the metric of predicting one
    value for every example, the most common label (discrete tasks; ties go
    to the first in sorted order) or the mean label (numbers). None for
    sequence tasks (no one output fits every input), for fewer than two
    labels (any model matches one label's mean) and without labels."""
    if task.head == "generate" or len(labels) < 2 or any(label is None for label in labels):
        return None  # (a language model's metric reads no label: no chance level either)
    if task.discrete:
        counts: dict[str, list] = {}
        for label in labels:
            counts.setdefault(prediction_key(label), [label, 0])[1] += 1
        prediction, _n = max((counts[k] for k in sorted(counts)), key=lambda c: c[1])
        rule = "most common label"
    else:
        prediction, rule = math.fsum(labels) / len(labels), "mean label"
    value = task.metric([prediction] * len(labels), list(labels))
    return {"rule": rule, "prediction": prediction, "value": None if _nan(value) else float(value)}


def _nan(x) -> bool:
    return x is None or isinstance(x, float) and math.isnan(x)


def _trivial(
    ok: list[dict],
    task,
    tolerance: float,
    metric: dict | None,
    varied: dict | None = None,
    transform: str = "",
    sensitivity: dict | None = None,
    unmeasured_noise: bool = False,
    replies: dict | None = None,
) -> dict:
    """Whether the model is invariant for want of looking: every prediction
    one value (within the tolerance) over the audited examples, or a metric
    no better than the task's chance level; ``notes`` say so in words, and
    say too when no audited example has a variant besides the original (its
    invariance is then untested, whatever the model), when a model that
    samples was asked once, and when the replies name several served
    models."""
    constant = prediction = None
    if len(ok) >= 2:  # one example agreeing with itself says nothing of the model
        constant = (
            all(r["distinct"] == 1 for r in ok)
            and distinct([r["prediction"] for r in ok], tolerance, task.discrete) == 1
        )
        prediction = ok[0]["prediction"] if constant else None
    at_chance = None
    level = metric["chance"] if metric is not None else None
    if level is not None and not _nan(level["value"]) and not _nan(metric["original"]):
        # "no better" with float rounding's slack: a tie is a tie however the sums fell
        slack = 1e-9 * max(abs(metric["original"]), abs(level["value"]), 1.0)
        at_chance = (
            metric["original"] >= level["value"] - slack
            if task.lower_is_better
            else metric["original"] <= level["value"] + slack
        )
    notes = []
    if constant:
        shown = f"{prediction:.6g}" if isinstance(prediction, float) else json.dumps(prediction)[:60]
        notes.append(
            f"the model predicts {shown} for every program and variant of the {len(ok):,} audited "
            "examples: a constant is invariant whatever it reads, so its invariance says nothing"
        )
    if ok and varied is not None and varied["examples"] == 0:
        notes.append(
            f"none of the {len(ok):,} audited examples has a variant besides the original under "
            f"{transform or 'the audited transform'}, so none can violate: this audit tests no invariance"
        )
    if at_chance:
        unit = f" {task.unit}" if task.unit else ""
        notes.append(
            f"its {metric['name']} on originals, {metric['original']:.4g}{unit}, is no better than chance: "
            f"{level['value']:.4g}{unit} for predicting the {level['rule']} for every example"
        )
    insensitive = sensitivity["insensitive"] if sensitivity is not None else None
    if insensitive:
        notes.append(_insensitive_note(sensitivity))
    if unmeasured_noise and ok:
        notes.append(
            "the model's noise floor was not measured (--repeats 1): a model that samples is counted as "
            "violating wherever it disagrees with itself; --repeats 5 measures it"
        )
    if replies and len(replies.get("served") or {}) > 1:
        notes.append(_served_note(replies["served"], replies["from_cache"]))
    return {
        "constant": constant,
        "prediction": prediction,
        "no_better_than_chance": at_chance,
        "insensitive": insensitive,
        "notes": notes,
    }


def _served_note(served: dict, from_cache: int) -> str:
    """The note for replies that name more than one served model: from the
    reply cache and fresh, or within the run (replicas, a redeploy)."""
    named = ", ".join(f"{name}: {n:,}" for name, n in served.items())
    head = f"the replies name {len(served)} served models ({named})"
    if from_cache:
        return (
            f"{head}: answers kept in the reply cache may come from other weights than the fresh ones, so a "
            "disagreement may be the model's change, not the program's; --no-cache asks every input again"
        )
    return (
        f"{head}, all asked in this run: the endpoint answers from several models or revisions (replicas, "
        "a redeploy), so a disagreement may be the model's change, not the program's; pin one to audit it"
    )


def _insensitive_note(sensitivity: dict) -> str:
    """What an insensitive model reacts to: nothing at all, or only to
    controls the label does not depend on (or whose label is unchecked)."""
    on = "that change the label" if sensitivity["on"] == "label_changed" else "(transforms that change the meaning)"
    said = f"the model changed its answer on {sensitivity['changed']:,} of the {sensitivity['judged']:,} controls {on}"
    elsewhere = sum(k["changed"] for k in sensitivity["by_kind"].values()) - sensitivity["changed"]
    if sensitivity["on"] == "label_changed" and elsewhere:
        others = sensitivity["controls"] - sensitivity["judged"]
        return (
            f"{said}, though on {elsewhere:,} of the {others:,} controls whose label change is unchecked: it "
            "reacts to the code, not to what the label depends on; invariant for want of sensitivity"
        )
    if not elsewhere and not sensitivity["changed"]:
        return (
            f"the model changed its answer on none of the {sensitivity['controls']:,} controls: invariant only "
            "because insensitive"
        )
    return f"{said}: invariant for want of sensitivity"


def _oracle(ok: list[dict]) -> dict:
    recs = [r for r in ok if r["oracle"] is not None]
    good = [r for r in recs if r["oracle"]["error"] is None]
    changed = [r for r in good if r["oracle"]["changed"]]
    weighted = [
        (r["oracle"]["metric_variants"], r["variants"]) for r in good if r["oracle"]["metric_variants"] is not None
    ]
    n = sum(k for _, k in weighted)
    return {
        "examples": len(good),
        "errors": len(recs) - len(good),
        "label_changes": len(changed),
        "label_change_rate": _rate(len(changed), len(good)),
        "relative_range": quantiles([r["oracle"]["relative_range"] for r in good]),
        "metric_variants": math.fsum(m * k for m, k in weighted) / n if n else None,
        "violations_with_label_change": sum(1 for r in changed if r["violation"]),
        "violations_without_label_change": sum(1 for r in good if r["violation"] and not r["oracle"]["changed"]),
    }


def _worst(ok: list[dict], discrete: bool) -> list[dict]:
    bad = [r for r in ok if r["violation"]]
    if discrete:
        bad.sort(key=lambda r: (-r["distinct"], r["index"]))
    else:
        bad.sort(key=lambda r: (-(r["relative_range"] if r["relative_range"] is not None else math.inf), r["index"]))
    keep = (
        "index",
        "id",
        "location",
        "label",
        "prediction",
        "range",
        "relative_range",
        "distinct",
        "variants",
        "most_different",
    )
    return [{k: r[k] for k in keep} for r in bad[:WORST]]


def _example(ok: list[dict], discrete: bool) -> dict | None:
    if not ok or "predictions" not in ok[0]:
        return None
    r = ok[0]
    values = [r["prediction"]] + list(r["predictions"])
    out = {
        "id": r["id"],
        "location": r["location"],
        "label": r["label"],
        "prediction": r["prediction"],
        "variants": r["variants"],
        "distinct": r["distinct"],
    }
    if discrete:
        counts: dict[str, list] = {}
        for v in values:
            counts.setdefault(prediction_key(v), [v, 0])[1] += 1
        out.update(min=None, max=None, mean=None, std=None, histogram=None, counts=[counts[k] for k in sorted(counts)])
    else:
        out.update(
            min=min(values),
            max=max(values),
            mean=_mean(values),
            std=r["std"],
            histogram=histogram(values, 30),
            counts=None,
        )
    return out


# -------------------------------------------------------------------- JSONL
def header_record(header: dict) -> dict:
    return {"schema": SCHEMA, "type": "header", **header}


def jsonl_lines(header: dict, records: Sequence[dict], report: dict) -> Iterable[str]:
    """The JSONL stream: the header, one record per example, the summary."""
    yield json.dumps(header_record(header))
    for r in sorted(records, key=lambda r: r["index"]):
        yield json.dumps(r)
    yield json.dumps({**report, "type": "summary"})


def read_jsonl(path: str) -> tuple[dict, list[dict], dict | None]:
    """(header, example records, summary or None) of one audit's JSONL; a
    record whose fields are not of the schema's types is a DataError at its
    line, before any figure is made of it."""
    header, records, summary, _lines = _read_shard(path)
    return header, records, summary


def _read_shard(path: str) -> tuple[dict, list[dict], dict | None, list[int]]:
    """:func:`read_jsonl`'s answer and the line of each example record (so
    that a record at fault is named where it is)."""
    try:
        text = read_utf8(path)
    except FileNotFoundError:
        raise DataError("no such file", path=path)
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=path)
    header, records, summary, lines = None, [], None, []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as err:
            raise DataError(f"not JSON: {json_problem(err)}", path=path, line=lineno, col=err.colno)
        kind = rec.get("type") if isinstance(rec, dict) else None
        if kind == "header":
            if rec.get("schema") not in READS:
                raise DataError(
                    f"audit schema {rec.get('schema')}, this invar reads {', '.join(map(str, READS))}",
                    path=path,
                    line=lineno,
                    col=1,
                )
            header = rec
        elif kind == "example":
            missing = [k for k in _RECORD if k not in rec]
            if missing:
                raise DataError(f"an example record without {', '.join(missing)}", path=path, line=lineno, col=1)
            if not isinstance(rec["index"], int) or isinstance(rec["index"], bool) or rec["index"] < 0:
                raise DataError(
                    f"an example record whose index is {rec['index']!r}, not a position", path=path, line=lineno, col=1
                )
            wrong = mismatch(rec, EXAMPLE)
            if wrong:
                raise DataError(f"an example record whose {wrong}", path=path, line=lineno, col=1)
            records.append(rec)
            lines.append(lineno)
        elif kind == "summary":
            summary = rec
        else:
            raise DataError(
                "not an audit record (expected type header, example or summary)", path=path, line=lineno, col=1
            )
    if header is None:
        raise DataError("no audit header: write shards with --format jsonl", path=path, line=1, col=1)
    return header, records, summary, lines


def merge(paths: Sequence[str]) -> tuple[dict, list[dict], dict]:
    """(header, records, report) of shards' JSONL merged: the report one run
    over the whole dataset gives. Every shard 1..N must be there once, with
    the same settings, and every example of the dataset in exactly one
    record (a DataError names those missing or repeated)."""
    if not paths:
        raise UsageError("name the shards' JSONL files")
    parts = [(p, *_read_shard(p)) for p in paths]
    first_path, first = parts[0][0], parts[0][1]
    base = _unsharded(first)
    shards: dict[int, str] = {}
    total = None
    for path, header, _records, _summary, _lines in parts:
        if _unsharded(header) != base:
            other = _unsharded(header)
            diff = sorted(k for k in set(base) | set(other) if base.get(k) != other.get(k))
            raise DataError(f"audited with other settings than {first_path} ({', '.join(diff)})", path=path)
        shard = header.get("shard") or [1, 1]
        if total is not None and shard[1] != total:
            raise DataError(
                f"shard {shard[0]}/{shard[1]} does not belong with {first_path}'s {total} shards", path=path
            )
        total = shard[1]
        if shard[0] in shards:
            raise DataError(f"shard {shard[0]}/{total} again (also {shards[shard[0]]})", path=path)
        shards[shard[0]] = path
    missing = sorted(set(range(1, total + 1)) - set(shards))
    if missing:  # no file given is at fault: the error is the merge's
        given = ", ".join(f"{path} as {k}/{total}" for k, path in sorted(shards.items()))
        raise DataError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{i}/{total}' for i in missing)} missing "
            f"(given: {given})"
        )
    _check_coverage(base, [(path, records, lines) for path, _header, records, _summary, lines in parts], shards)
    level = (base.get("config") or {}).get("level", 0.05)
    records = decide([r for part in parts for r in part[2]], level)  # a shard decided over itself alone
    runs = [part[3]["run"] for part in parts if part[3] and part[3].get("run")]
    run = {
        "shards": total,
        "processes": sum(r.get("processes", 1) for r in runs) or None,
        "seconds": math.fsum(r.get("seconds", 0.0) for r in runs) or None,
        "fallbacks": merged_fallbacks(runs),
    }
    header = dict(base, shard=None)
    return header, records, summarize(header, records, run)


def _unsharded(header: dict) -> dict:
    """A header's settings apart from which shard it audited (the header's
    ``shard``, and its config's) and its schema."""
    out = {k: v for k, v in header.items() if k not in ("shard", "schema")}
    if isinstance(out.get("config"), dict):
        out["config"] = dict(out["config"], shard=None)
    return out


def _check_coverage(header: dict, parts: list[tuple[str, list[dict], list[int]]], shards: dict[int, str]) -> None:
    """Every example of the audited dataset in exactly one record of the
    shards (with ``--example``: that one example, once); DataError naming
    the examples missing, duplicated or beyond the dataset otherwise,
    located at the shard at fault: for an example missing, the shard that
    audits it (``shards``: shard number -> file); for one repeated or
    beyond the dataset, the record (file and line) that should not be
    there."""
    places: dict[int, list[tuple[str, int]]] = {}  # index -> (file, line) of each of its records
    for path, records, lines in parts:
        for r, line in zip(records, lines):
            places.setdefault(r["index"], []).append((path, line))
    if header.get("example") is not None:
        _check_one_example(header["example"], parts, places, shards)
        return
    dataset = header.get("dataset")
    n = dataset.get("examples") if isinstance(dataset, dict) else None
    if not isinstance(n, int) or isinstance(n, bool):
        raise DataError("the header does not say how many examples the dataset holds", path=shards[min(shards)])
    missing = [i for i in range(n) if i not in places]
    beyond = sorted(i for i in places if not 0 <= i < n)
    twice = sorted(i for i, ps in places.items() if len(ps) > 1)
    if not (missing or beyond or twice):
        return
    total, problems, culprits = max(shards), [], []
    if missing:
        owners = sorted({_owner(i, total) for i in missing})
        problems.append(
            f"{len(missing):,} missing (positions from 0: {ranges(missing)}), {_audited_by(owners, total, shards)}"
        )
        culprits.append((shards[owners[0]], 0))
    if twice:
        files = sorted({p for i in twice for p, _ in places[i]})
        problems.append(
            f"{len(twice):,} in more than one record (positions {ranges(twice)}; in "
            f"{', '.join(files[:4])}{' …' if len(files) > 4 else ''})"
        )
        culprits.append(_extra_record(places[twice[0]], shards.get(_owner(twice[0], total))))
    if beyond:
        problems.append(f"{len(beyond):,} beyond the dataset's {n:,} (positions {ranges(beyond)})")
        culprits.append(places[beyond[0]][0])
    held = sum(1 for i in places if 0 <= i < n)
    path, line = culprits[0]
    raise DataError(
        f"the shards hold {held:,} of the dataset's {n:,} examples: {'; '.join(problems)}", path=path, line=line
    )


def _check_one_example(example, parts, places: dict, shards: dict[int, str]) -> None:
    """With ``--example``: that one example in one record of the shards
    (shard 1 audits it: it is the whole of the dataset audited)."""
    ids = [r["id"] for _, records, _ in parts for r in records]
    if ids == [example]:
        return
    if not ids:
        raise DataError(f"no shard holds the audited example {example} (shard 1 audits it)", path=shards[1])
    for path, records, lines in parts:  # a record of another example: named where it is
        for r, line in zip(records, lines):
            if r["id"] != example:
                raise DataError(f"a record of {r['id']}, not of the audited example {example}", path=path, line=line)
    here = [place for ps in places.values() for place in ps]
    path, line = _extra_record(here, shards[1])
    raise DataError(
        f"the shards hold {len(ids)} records of one audited example ({example}): "
        "audit it once, or merge the shard that has it",
        path=path,
        line=line,
    )


def _owner(index: int, total: int) -> int:
    """The shard (1-based, of ``total``) that audits the example at ``index``:
    shards take turns at whole chunks (``orchestrate``'s ``_my_chunks``)."""
    from .run import CHUNK

    return index // CHUNK % total + 1


def _audited_by(owners: list[int], total: int, shards: dict[int, str]) -> str:
    """Which shards should have held examples: ``which shard 2/3 audits``,
    ``which shards 1/3 and 2/3 audit (s1.jsonl, s2.jsonl)``."""
    named = [f"{k}/{total}" for k in owners]
    if len(named) == 1:
        return f"which shard {named[0]} audits"
    files = ", ".join(shards[k] for k in owners[:4]) + (" …" if len(owners) > 4 else "")
    return f"which shards {', '.join(named[:-1])} and {named[-1]} audit ({files})"


def _extra_record(places: list[tuple[str, int]], owner: str | None) -> tuple[str, int]:
    """Of the records of one example (file, line), one that should not be
    there: the first outside the shard that audits it (``owner``'s file),
    else, where that shard holds them all, its second."""
    outside = [place for place in places if place[0] != owner]
    return outside[0] if outside else places[1]


def ranges(indices: Sequence[int], most: int = 8) -> str:
    """Sorted integers as ranges: ``3, 40-51, 97`` (the first ``most``
    ranges, then how many more)."""
    runs: list[list[int]] = []
    for i in sorted(set(indices)):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs[:most])
    return shown + (f" and {len(runs) - most:,} more ranges" if len(runs) > most else "")


# ------------------------------------------------------------------- bounds
def resolve(report: dict, name: str):
    """The number at dotted path ``name`` in the report (``alpha_covariance``
    means its mean)."""
    value: Any = report
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise UsageError(
                f"no measure {name!r} in the report (for example violation_rate, "
                "alpha_covariance, metric.worst, spread.relative_range.max, errors)",
                path="--fail-over",
            )
        value = value[part]
    if isinstance(value, dict) and "mean" in value:
        value = value["mean"]
    if isinstance(value, bool) or (value is not None and not isinstance(value, (int, float))):
        raise UsageError(f"{name} is not a number in the report", path="--fail-over")
    return value


def parse_bound(text: str, option: str) -> tuple[str, float]:
    """``METRIC=VALUE`` -> (METRIC, VALUE). Whether METRIC names a number of
    the report is :func:`invar.audit.config.check_measure`'s to say, before
    the audit."""
    name, eq, value = text.partition("=")
    try:
        if not eq or not name.strip():
            raise ValueError
        bound = float(value)
    except ValueError:
        raise UsageError(f"{text!r}: write METRIC=VALUE, e.g. violation_rate=0", path=option) from None
    if not math.isfinite(bound):  # a NaN bound never fails: a gate that would pass everything
        raise UsageError(f"{text!r}: the bound is {value.strip()}, not a finite number", path=option)
    return name.strip(), bound


#: the measures of invariance alone (a constant model meets any bound on them)
INVARIANCE = ("violation_rate", "violations", "varied", "alpha_covariance", "spread")


def caveats(report: dict, over: Sequence[tuple[str, float]], under: Sequence[tuple[str, float]] = ()) -> list[str]:
    """A message per note of ``report["trivial"]`` when a bound is set on a
    measure of invariance alone: that bound cannot tell this model's
    invariance from a constant's (or a chance-level model's); and one when
    bounds are judged over fewer than half the examples, the others failed,
    and no bound is set on the failures."""
    bounds = [
        (option, name, bound)
        for given, option in ((over, "--fail-over"), (under, "--fail-under"))
        for name, bound in given
    ]
    out = []
    fell = fallback_note(report.get("model") or {}, report.get("run"))  # said on its own: no caveat of invariance
    notes = [note for note in (report.get("trivial") or {}).get("notes") or [] if note != fell]
    named = [f"{option} {name}={bound:g}" for option, name, bound in bounds if name.split(".")[0] in INVARIANCE]
    if named:
        out += [f"{', '.join(named)}: {note}" for note in notes]
    failed = (report.get("errors") or 0) + (report.get("unparsable") or 0)
    judged = [f"{option} {name}={bound:g}" for option, name, bound in bounds if name not in _FAILURES]
    if judged and failed > report.get("audited", 0) and not any(name in _FAILURES for _, name, _ in bounds):
        out.append(
            f"{', '.join(judged)}: judged over {report['audited']:,} of the {report['examples']:,} examples "
            f"({failed:,} failed); --fail-over errors=0 makes the failures fail the run"
        )
    return out


#: the report's counts of failed examples, which a bound may gate on
_FAILURES = ("errors", "unparsable")


def unaudited(report: dict) -> str | None:
    """Why an audit measured nothing, when every example failed (the model
    or the dataset could not be read at all: an endpoint down, a wrong
    address, a key refused), in words; None when any example was audited."""
    if report["audited"] or not report["examples"]:
        return None
    failed = report.get("failed") or []
    where, said = (failed[0]["location"], failed[0]["error"]) if failed else ("", "")
    # an error read from the input already names its place in the file (``FILE:LINE:COL: error: …``,
    # the unit's line or another): said once
    file = re.sub(r"(:\d+){1,2}$", "", where)
    first = "" if not failed else f" (first: {said})" if said.startswith(f"{file}:") else f" (first: {where}: {said})"
    if report["errors"]:
        where = "in the model" if not report["unparsable"] else "in the model or in parsing"
        return f"no example was audited: all {report['examples']:,} failed {where}{first}"
    return f"no example was audited: none of the {report['examples']:,} could be parsed{first}"


def exceeded(report: dict, over: Sequence[tuple[str, float]], under: Sequence[tuple[str, float]] = ()) -> list[str]:
    """A message per bound that does not hold (``over``: the measure must not
    exceed the bound; ``under``: it must not fall below it)."""
    out = []
    for bounds, option, worse in (
        (over, "--fail-over", lambda v, b: v > b),
        (under, "--fail-under", lambda v, b: v < b),
    ):
        for name, bound in bounds:
            value = resolve(report, name)
            if value is None:
                raise UsageError(
                    f"{name} was not measured in this audit (no labels, no variants or no examples)", path=option
                )
            if worse(value, bound):
                word = "over" if option == "--fail-over" else "under"
                out.append(f"{name} is {value:.6g}, {word} the bound {bound:g} ({option} {name}={bound:g})")
    return out


__all__ = [
    "SCHEMA",
    "READS",
    "summarize",
    "fallback_note",
    "merged_fallbacks",
    "chance",
    "caveats",
    "ranges",
    "jsonl_lines",
    "read_jsonl",
    "merge",
    "header_record",
    "resolve",
    "parse_bound",
    "exceeded",
    "unaudited",
]
