"""Two models audited on the same examples, compared: each model's measures
(from its summary) and the paired differences over the examples both
audited, with seeded intervals and paired tests (:mod:`.stats`).

Pairing is what makes a comparison sharp: the examples one model finds hard
the other mostly finds hard too, and a paired test removes that shared
variation where an unpaired one counts it as noise. So both audits must
have measured the same examples with the same variants: the same task,
dataset, transform, number of variants, seed, limit and tolerance (the
variants of an example are drawn from ``(seed, id)``), and the same example
ids. They must be JSONL (``--format jsonl``): the per-example records are
what is paired. Examples that failed in either audit are left out of the
pairing and counted.

The result is a JSON-compatible dict (``type`` ``comparison``, ``schema``
:data:`SCHEMA`, JSON Schema :data:`COMPARISON`); :func:`render` shows it as
tables. docs/audit.md says what each test assumes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import DataError
from ..version import __version__
from .report import read_jsonl, summarize
from .schema import DATASET, INT, METRIC, MODEL, NUM, TASK, TRANSFORM, _obj
from .stats import correct, mcnemar, paired_bootstrap

#: version of the comparison's JSON (bump on any change of meaning)
SCHEMA = 1
#: header fields that must agree for two audits to be paired
_SETTINGS = ("task", "transform", "variants", "seed", "limit", "tolerance")
#: settings of the config that change what a violation is, with their value in audits written before there was one
_DEFAULTS = {"repeats": 1, "level": 0.05}
#: the dataset's fields that must agree (``labelled`` may differ: ``--oracle`` labels)
_DATASET = ("name", "split", "examples")
#: per-example fields that must agree where both audits have them: the same
#: examples parse to the same sizes (two lists of programs both named
#: ``<programs>`` with ids ``#0``, ``#1`` … would pass the header's checks)
_SIZES = ("lines", "tokens")


@dataclass(frozen=True)
class _Audit:
    """One audit's JSONL, as read."""

    path: str
    header: dict
    #: example records, in example order
    records: list
    summary: dict


def _read(path: str) -> _Audit:
    """An audit's JSONL; a located DataError for anything else (a ``--format
    json`` report, which has no example records to pair, says so)."""
    try:
        header, records, summary = read_jsonl(path)
    except DataError:
        if _is_report(path):
            raise DataError(
                "an audit report (--format json) holds no example records to pair: write both audits "
                "with --format jsonl to compare them",
                path=path,
            ) from None
        raise
    if not records:
        raise DataError("no example records to pair: write both audits with --format jsonl to compare them", path=path)
    records = sorted(records, key=lambda r: r["index"])
    return _Audit(path, header, records, summary if summary is not None else summarize(header, records))


def _is_report(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            whole = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(whole, dict) and whole.get("type") in ("report", "summary")


def _check_same(a: _Audit, b: _Audit) -> None:
    """DataError, located at ``b``, when the two audits did not measure the
    same examples with the same variants."""
    da, db = a.header.get("dataset") or {}, b.header.get("dataset") or {}
    differ = [(k, a.header.get(k), b.header.get(k)) for k in _SETTINGS if a.header.get(k) != b.header.get(k)]
    differ += [(f"dataset {k}", da.get(k), db.get(k)) for k in _DATASET if da.get(k) != db.get(k)]
    # violations with repeats are decided by a test at a level: other repeats or levels, other violations
    ca, cb = a.header.get("config") or {}, b.header.get("config") or {}
    differ += [
        (k, ca.get(k, _DEFAULTS[k]), cb.get(k, _DEFAULTS[k]))
        for k in _DEFAULTS
        if ca.get(k, _DEFAULTS[k]) != cb.get(k, _DEFAULTS[k])
    ]
    if differ:
        shown = "; ".join(f"{name} {json.dumps(vb)} here, {json.dumps(va)} there" for name, va, vb in differ)
        raise DataError(
            f"not audited as {a.path} was, so its examples cannot be paired: {shown}", path=b.path, line=1, col=1
        )
    ids_a = [(r["index"], r["id"]) for r in a.records]
    ids_b = [(r["index"], r["id"]) for r in b.records]
    if ids_a != ids_b:
        where = next((k for k, (x, y) in enumerate(zip(ids_a, ids_b)) if x != y), min(len(ids_a), len(ids_b)))
        got = ids_b[where][1] if where < len(ids_b) else "nothing"
        want = ids_a[where][1] if where < len(ids_a) else "nothing"
        raise DataError(
            f"other examples than {a.path}: {len(ids_b):,} records here, {len(ids_a):,} there; "
            f"record {where + 1} is {got} here, {want} there",
            path=b.path,
        )
    for ra, rb in zip(a.records, b.records):
        for k in _SIZES:
            if ra.get(k) is not None and rb.get(k) is not None and ra[k] != rb[k]:
                raise DataError(
                    f"other examples than {a.path}: example {rb['id']} has {rb[k]} {k} here, {ra[k]} there", path=b.path
                )
        if ra["label"] is not None and rb["label"] is not None and ra["label"] != rb["label"]:
            raise DataError(
                f"other labels than {a.path}: example {rb['id']} is labelled "
                f"{json.dumps(rb['label'])[:40]} here, {json.dumps(ra['label'])[:40]} there",
                path=b.path,
            )


def compare(a_path: str, b_path: str, *, resamples: int = 1000, level: float = 0.95, seed: int = 0) -> dict:
    """Compare two models audited on the same examples (two JSONL audits):
    each model's measures and the paired differences A - B over the examples
    both audited (see the module docstring; docs/audit.md lists the fields).
    A located DataError when the two cannot be paired."""
    a, b = _read(a_path), _read(b_path)
    _check_same(a, b)
    from ..tasks import get_task

    task = get_task(a.header["task"])
    pairs = [(ra, rb) for ra, rb in zip(a.records, b.records) if ra["error"] is None and rb["error"] is None]
    failed_a = sum(1 for ra, rb in zip(a.records, b.records) if ra["error"] is not None and rb["error"] is None)
    failed_b = sum(1 for ra, rb in zip(a.records, b.records) if ra["error"] is None and rb["error"] is not None)
    how = {"resamples": resamples, "level": level, "seed": seed}
    paired = {
        "examples": len(pairs),
        "left_out": {"a": failed_a, "b": failed_b, "both": len(a.records) - len(pairs) - failed_a - failed_b},
        "violation_rate": _mcnemar_row([(ra["violation"], rb["violation"]) for ra, rb in pairs], how),
        "alpha_covariance": _bootstrap_row(_both(pairs, lambda r: r["alpha_covariance"]), how),
        "metric": None,
        "correct": None,
    }
    scored = _both(pairs, lambda r: r["metric"]["original"] if r["metric"] is not None else None)
    if scored:
        paired["metric"] = {
            "name": task.metric_name,
            "lower_is_better": task.lower_is_better,
            **_bootstrap_row(scored, how),
        }
    if task.discrete:
        right = _both(pairs, lambda r: correct(task, r["prediction"], r["label"]))
        paired["correct"] = _mcnemar_row(right, how) if right else None
    return {
        "schema": SCHEMA,
        "type": "comparison",
        "invar": __version__,
        "task": {
            "name": task.name,
            "metric": task.metric_name,
            "lower_is_better": task.lower_is_better,
            "discrete": task.discrete,
        },
        "dataset": a.header["dataset"],
        "transform": a.header["transform"],
        "settings": {k: a.header[k] for k in ("variants", "seed", "limit", "tolerance")},
        "statistics": {"level": level, "resamples": resamples, "seed": seed},
        "a": _model(a),
        "b": _model(b),
        "paired": paired,
    }


def _both(pairs: Sequence[tuple[dict, dict]], value) -> list[tuple[Any, Any]]:
    """(A's value, B's value) of the pairs where both are measured (not None,
    and finite for numbers)."""
    out = []
    for ra, rb in pairs:
        x, y = value(ra), value(rb)
        if _measured(x) and _measured(y):
            out.append((x, y))
    return out


def _measured(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and not math.isfinite(x))


def _model(audit: _Audit) -> dict:
    """One model's own measures, from its summary (over the examples it
    audited, which may be more than the pairs)."""
    s = audit.summary
    metric = s.get("metric")
    return {
        "path": audit.path,
        "model": audit.header["model"],
        "examples": s["examples"],
        "audited": s["audited"],
        "errors": s["errors"],
        "unparsable": s["unparsable"],
        "violation_rate": s["violation_rate"],
        "alpha_covariance": (s.get("alpha_covariance") or {}).get("mean"),
        "metric": None
        if metric is None
        else {k: metric[k] for k in ("name", "examples", "original", "variants", "worst")},
    }


def _bootstrap_row(values: list[tuple[float, float]], how: dict) -> dict:
    """A paired bootstrap of the mean of per-example values."""
    x = np.array([v for v, _ in values], dtype=np.float64)
    y = np.array([v for _, v in values], dtype=np.float64)
    boot = paired_bootstrap(x, y, **how)
    return {
        "test": "paired bootstrap",
        "examples": len(values),
        "a": _mean(x),
        "b": _mean(y),
        "difference": boot["value"],
        "interval": boot["interval"],
        "p": boot["p"],
    }


def _mcnemar_row(values: list[tuple[bool, bool]], how: dict) -> dict:
    """McNemar's exact test on paired booleans, with a paired bootstrap
    interval of the difference of the two rates."""
    x = np.array([bool(v) for v, _ in values], dtype=bool)
    y = np.array([bool(v) for _, v in values], dtype=bool)
    a_only, b_only = int(np.count_nonzero(x & ~y)), int(np.count_nonzero(~x & y))
    boot = paired_bootstrap(x.astype(np.float64), y.astype(np.float64), **how)
    return {
        "test": "mcnemar",
        "examples": len(values),
        "a": _mean(x),
        "b": _mean(y),
        "difference": boot["value"],
        "interval": boot["interval"],
        "a_only": a_only,
        "b_only": b_only,
        "p": mcnemar(a_only, b_only) if len(values) else None,
    }


def _mean(x: np.ndarray) -> float | None:
    return float(np.mean(x)) if x.size else None


# -------------------------------------------------------------------- schema
_INTERVAL = {"oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}]}
_P = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_ROW = {
    "test": {"const": "paired bootstrap"},
    "examples": {"type": "integer"},
    "a": NUM,
    "b": NUM,
    "difference": NUM,
    "interval": _INTERVAL,
    "p": _P,
}
_BOOTSTRAP = _obj(_ROW)
_MCNEMAR = _obj({**_ROW, "test": {"const": "mcnemar"}, "a_only": {"type": "integer"}, "b_only": {"type": "integer"}})
_METRIC = _obj({"name": {"type": "string"}, "lower_is_better": {"type": "boolean"}, **_ROW})
_SIDE = _obj(
    {
        "path": {"type": "string"},
        "model": MODEL,
        "examples": {"type": "integer"},
        "audited": {"type": "integer"},
        "errors": {"type": "integer"},
        "unparsable": {"type": "integer"},
        "violation_rate": NUM,
        "alpha_covariance": NUM,
        "metric": {"oneOf": [{"type": "null"}, _obj(METRIC)]},
    }
)

#: JSON Schema (draft 2020-12) of :func:`compare`'s result, version :data:`SCHEMA`
COMPARISON = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj(
        {
            "schema": {"const": SCHEMA},
            "type": {"const": "comparison"},
            "invar": {"type": "string"},
            "task": TASK,
            "dataset": DATASET,
            "transform": TRANSFORM,
            "settings": _obj(
                {
                    "variants": {"type": "integer"},
                    "seed": {"type": "integer"},
                    "limit": INT,
                    "tolerance": {"type": "number"},
                }
            ),
            "statistics": _obj(
                {
                    "level": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                    "resamples": {"type": "integer", "minimum": 0},
                    "seed": {"type": "integer"},
                }
            ),
            "a": _SIDE,
            "b": _SIDE,
            "paired": _obj(
                {
                    "examples": {"type": "integer"},
                    "left_out": _obj({"a": {"type": "integer"}, "b": {"type": "integer"}, "both": {"type": "integer"}}),
                    "violation_rate": _MCNEMAR,
                    "alpha_covariance": _BOOTSTRAP,
                    "metric": {"oneOf": [{"type": "null"}, _METRIC]},
                    "correct": {"oneOf": [{"type": "null"}, _MCNEMAR]},
                }
            ),
        }
    ),
}


# -------------------------------------------------------------------- render
def render(result: dict, console) -> None:
    """The comparison as rich tables on ``console``: each model's own
    measures, then the paired differences with their intervals and tests."""
    from rich.table import Table

    from .render import _PERCENT, _num, _pct, _share

    for line in _headline(result):
        console.print(line, markup=False, highlight=False)
    a, b = result["a"], result["b"]
    metric = a["metric"] or b["metric"]
    fmt = _pct if metric is not None and metric["name"] in _PERCENT else _num
    own = Table(show_header=True, title="each model, over every example it audited")
    for col in ("measure", "A", "B"):
        own.add_column(col)
    own.add_row("examples audited", f"{a['audited']:,} of {a['examples']:,}", f"{b['audited']:,} of {b['examples']:,}")
    own.add_row("violation rate", _share(a["violation_rate"]), _share(b["violation_rate"]))
    own.add_row("alpha-covariance", _share(a["alpha_covariance"]), _share(b["alpha_covariance"]))
    if metric is not None:
        for key, words in (("original", "on originals"), ("variants", "on variants"), ("worst", "worst variant")):
            own.add_row(f"{metric['name']} {words}", *(fmt(m["metric"][key]) if m["metric"] else "-" for m in (a, b)))
    console.print(own)
    console.print(_paired_table(result, fmt, _num, _share))
    for line in _notes(result):
        console.print(line, markup=False, highlight=False)


def _headline(result: dict) -> list[str]:
    d, p = result["dataset"], result["paired"]
    left = sum(p["left_out"].values())
    s = result["statistics"]
    return [
        f"A: {_who(result['a'])}",
        f"B: {_who(result['b'])}",
        f"on {d['name']}"
        + (f", {d['split']} split" if d.get("split") else "")
        + f"; {result['transform']}, up to {result['settings']['variants']:,} variants, seed "
        f"{result['settings']['seed']}",
        "paired over the examples both audited"
        + (
            f" ({left:,} left out: failed in A {p['left_out']['a']:,}, in B {p['left_out']['b']:,}, in both "
            f"{p['left_out']['both']:,})"
            if left
            else ""
        )
        + f"; {100 * s['level']:g}% intervals from {s['resamples']:,} resamples, seed {s['seed']}",
    ]


def _who(side: dict) -> str:
    m = side["model"]
    what = m.get("path") or "a model in memory"
    return f"{side['path']} ({m['kind']} {what})"


def _paired_table(result: dict, fmt, num, share):
    from rich.table import Table

    p = result["paired"]
    table = Table(show_header=True, title=f"paired: A - B over the {p['examples']:,} examples both audited")
    for col in ("measure", "A", "B", "A - B", f"{100 * result['statistics']['level']:g}% interval", "p", "test"):
        table.add_column(col)
    rows = [("violation rate", p["violation_rate"], share), ("alpha-covariance", p["alpha_covariance"], share)]
    if p["metric"] is not None:
        rows.append((f"{p['metric']['name']} on originals", p["metric"], fmt))
    if p["correct"] is not None:
        rows.append(("correct on originals", p["correct"], share))
    for name, row, show in rows:
        interval = "-" if row["interval"] is None else f"{show(row['interval'][0])}, {show(row['interval'][1])}"
        # McNemar's discordant pairs: the examples true under A only, and under B only
        test = {"mcnemar": "McNemar", "paired bootstrap": "bootstrap"}.get(row["test"], row["test"])
        if "a_only" in row:
            test += f" {row['a_only']:,}/{row['b_only']:,}"
        table.add_row(
            name,
            show(row["a"]),
            show(row["b"]),
            show(row["difference"]),
            interval,
            _p_shown(row, result["statistics"]["resamples"]),
            test,
        )
    return table


def _p_shown(row: dict, resamples: int) -> str:
    """A row's p-value as the table shows it: a bootstrap's 0 means no resample
    fell on the other side of 0, so below 2 / ``resamples``, never 0."""
    if row["p"] is None:
        return "-"
    if row["p"] == 0 and row["test"] == "paired bootstrap" and resamples:
        return f"< {2 / resamples:.3g}"
    return f"{row['p']:.3g}"


def _notes(result: dict) -> list[str]:
    p = result["paired"]
    out = []
    if p["metric"] is not None and result["task"]["name"] == "names":
        out.append(
            "note: the paired F1 is the mean of each example's F1; the summaries' F1 is micro-averaged over subtokens"
        )
    if p["examples"] == 0:
        out.append("note: no example was audited by both models: nothing is paired")
    return out


__all__ = ["SCHEMA", "COMPARISON", "compare", "render"]
