"""One example's record: what docs/audit.md lists under "example records".

The loop (:mod:`.run`) hands over an example's state: its program, its
variants and controls, and the model's answers to each input, one row per
repeat (``answers[r][j]``: repeat ``r``; input 0 the original, 1..V the
variants, then the controls). Everything here is a pure function of that
state and the settings.

With one repeat, a violation is a variant whose answer is not the
original's. With K repeats, answers to the *same* input may differ (a model
that samples), so an example violates only where its variants' answers
differ from the original's beyond what its own repeats show: the
permutation test of :func:`invar.audit.stats.homogeneity` over the groups
(the original's K answers, each variant's K answers). The record holds that
test's p-value; which examples count as violations is decided over the whole
audit (Benjamini-Hochberg, :func:`invar.audit.report.decide`).
"""

from __future__ import annotations

import collections
import hashlib
import random
from itertools import combinations
from typing import Any

from ..frontends.registry import frontend_of
from ..program import Program
from ..symmetry.renamings import RenamingSpace, map_names
from .metrics import alpha_covariance, categories, distinct, key as prediction_key, most_different, same, spread
from .metrics import violates, worst


def example_seed(seed: int, example_id: str) -> int:
    """The seed of one example's variants: ``seed`` and its id, hashed."""
    return int.from_bytes(hashlib.sha256(f"{seed}\0{example_id}".encode()).digest()[:8], "little")


def _json_int(n: int | None):
    """Counts beyond 2^53 as decimal strings (JSON readers lose them as numbers)."""
    return n if n is None or n < 2**53 else str(n)


def record(s, task, settings) -> dict:
    """The example's record (docs/audit.md, "example records")."""
    ex = s.ex
    rec: dict[str, Any] = {
        "type": "example",
        "index": ex.index,
        "id": ex.id,
        "location": ex.location,
        "label": ex.label,
        "lines": None,
        "tokens": None,
        "referents": s.referents,
        "space": _json_int(s.size),
        "varies": s.varies,
        "variants": len(s.variants),
        "exhaustive": s.exhaustive,
        "exact": s.exact,
        "prediction": None,
        "violation": None,
        "distinct": None,
        "alpha_covariance": None,
        "range": None,
        "std": None,
        "relative_range": None,
        "metric": None,
        "most_different": None,
        "oracle": None,
        "repeats": settings.repeats,
        "noise": None,
        "controls": None,
        "replies": _replies(s.meta),
        "error": s.error,
        "stage": s.stage,
    }
    if s.program is not None:
        rec["lines"], rec["tokens"] = len(s.program.lines), len(s.program.tokens)
    if s.error is not None:
        rec["variants"] = None
        return rec
    tol, discrete = settings.tolerance, task.discrete
    row = s.answers[0]
    p0, back = row[0], mapped_back(s, task, row)
    rec["prediction"] = p0
    differs = violates(p0, back, tol, discrete)
    rec["violation"] = differs
    rec["distinct"] = distinct([p0] + back, tol, discrete)
    rec["alpha_covariance"] = alpha_covariance(1 + len(back), rec["distinct"])
    if not discrete:
        # a prediction within the tolerance of the original's is the original's:
        # float rounding that depends on the batch is not spread
        snapped = [p0 if same(p, p0, tol, False) else p for p in back]
        rec["range"], rec["std"], rec["relative_range"] = spread(p0, [p0] + snapped)
    if (ex.label is not None or label_free(task)) and back:
        rec["metric"] = _metric(task, p0, back, ex.label, example_seed(settings.seed, ex.id))
    if differs:
        j = most_different(p0, back, discrete)
        rec["most_different"] = {
            "variant": j + 1,
            "prediction": back[j],
            **s.variants[j].describe(),
            **_shown(s.program, s.rspace, s.variants[j]),
        }
    if settings.keep_predictions:
        rec["predictions"] = back
    if s.oracle is not None:
        rec["oracle"] = _oracle_record(s, task, back, tol)
    if settings.repeats > 1:
        rec["noise"] = _noise(s, task, settings)
        rec["violation"] = rec["noise"]["p_value"] <= settings.level  # per example; decided over the audit later
    if s.controls:
        rec["controls"] = _controls(s, task, settings)
    return rec


def mapped_back(s, task, row: list) -> list:
    """One repeat's answers to the variants, in the original's names."""
    answers = row[1 : 1 + len(s.variants)]
    if task.undo is not None:  # a sequence task maps its own outputs back
        return [
            task.undo(p, v.renaming.inverse()) if v.renaming is not None else p for p, v in zip(answers, s.variants)
        ]
    return [
        undo(p, s.program, s.rspace, v) if task.discrete and v.renaming is not None else p
        for p, v in zip(answers, s.variants)
    ]


def undo(prediction: Any, program: Program, rspace: RenamingSpace, v) -> Any:
    """A prediction made on a renamed variant in the original's names: what
    :meth:`RenamingSpace.undo` maps (referents), and also the surface
    spellings of renamed tokens (a model answers ``%r10d``, not ``gpr:r10``),
    in one pass so that swapped names are not mapped twice."""
    back = v.renaming.inverse()
    renamed = rspace.apply(program, v.renaming)
    sigil = frontend_of(program.lang).sigil  # x86's ``%``, which an answer may leave out
    for old, new in zip(program.tokens, renamed.tokens):
        if old.text != new.text:
            back.setdefault(new.text, old.text)
            if sigil and new.text.startswith(sigil) and old.text.startswith(sigil):
                back.setdefault(new.text[len(sigil) :], old.text[len(sigil) :])
    return map_names(prediction, back)


def label_free(task) -> bool:
    """Whether the task's metric reads the predictions alone: a language
    model's prediction is its loss on the window, whose label is the window
    itself, so its perplexity is measured on unlabelled windows."""
    return task.head == "lm"


def _metric(task, p0, back: list, label, seed: int) -> dict:
    if task.score is not None or label_free(task):  # the variant the task's own metric scores worst
        scores = (
            [task.score(p, label) for p in back]
            if task.score is not None
            else [task.metric([p], [label]) for p in back]
        )
        w = scores.index(max(scores) if task.lower_is_better else min(scores))
    else:
        w = worst(back, label, task.discrete)
    out = {
        "original": task.metric([p0], [label]),
        "variants": task.metric(back, [label] * len(back)),
        "worst": task.metric([back[w]], [label]),
        "worst_prediction": back[w],
        # one variant drawn uniformly (seeded), paired with the original in the
        # report's McNemar test: the worst variant would bias it, a maximum over K
        "paired_prediction": back[random.Random(seed).randrange(len(back))],
    }
    if task.discrete or label_free(task):  # every variant's answer: metrics that are no mean need them all
        counts: dict[str, list] = {}
        for p in back:
            k = prediction_key(p)
            counts.setdefault(k, [p, 0])[1] += 1
        out["variant_predictions"] = [counts[k] for k in sorted(counts)]
    return out


def _shown(program: Program, rspace, v) -> dict:
    """The original's lines and the variant's, with the spans a renaming
    respelled (``changed``: [line, start, end] in the variant) and the lines a
    permutation moved (``moved``: positions in the variant)."""
    renamed = rspace.apply(program, v.renaming) if v.renaming is not None else program
    moved_refs = {r for r, t in v.renaming.mapping if r != t} if v.renaming is not None else set()
    spans = [
        (tok.line, new.start, new.end) for tok, new in zip(program.tokens, renamed.tokens) if tok.referent in moved_refs
    ]
    order = list(v.permutation.order) if v.permutation is not None else list(range(len(program.lines)))
    new_of = {old: new for new, old in enumerate(order)}
    return {
        "lines": [line.text for line in program.lines],
        "variant_lines": [renamed.lines[o].text for o in order],
        "changed": sorted([new_of[li], a, b] for li, a, b in spans),
        "moved": [new for new, old in enumerate(order) if new != old],
    }


def _oracle_record(s, task, back: list, tol: float) -> dict:
    bad = next(((j, reason) for j, (label, reason) in enumerate(s.oracle) if label is None), None)
    if bad is not None:
        j, reason = bad
        return {
            "label": None,
            "changed": None,
            "distinct": None,
            "range": None,
            "relative_range": None,
            "metric_variants": None,
            "error": f"{'original' if j == 0 else f'variant {j}'}: {reason}",
        }
    labels = [label for label, _ in s.oracle]
    l0, rest = labels[0], labels[1:]
    if task.undo is not None:  # an equivariant task's labels, like its predictions, in the original's names
        rest = [
            task.undo(label, v.renaming.inverse()) if v.renaming is not None else label
            for label, v in zip(rest, s.variants)
        ]
        labels = [l0, *rest]
    out = {
        "label": l0,
        "changed": violates(l0, rest, tol, task.discrete),
        "distinct": distinct(labels, tol, task.discrete),
        "range": None,
        "relative_range": None,
        "metric_variants": task.metric(back, rest) if rest else None,
        "error": None,
    }
    if not task.discrete:
        out["range"], _, out["relative_range"] = spread(l0, labels)
    return out


# -------------------------------------------------------- repeats and noise
def _disagreement(pairs: list[tuple[int, int]]) -> float | None:
    """The share of pairs of answers that are not the same (None for no pairs)."""
    return sum(a != b for a, b in pairs) / len(pairs) if pairs else None


def _noise(s, task, settings) -> dict:
    """The example's repeats: the original's answers, how often two answers
    to the original differ (``self_disagreement``), how often an answer to
    the original and one to a variant differ (``cross_disagreement``), and
    the p-value of the test that every group of answers (the original's,
    each variant's) comes from one distribution."""
    from .stats import homogeneity

    k, v = settings.repeats, len(s.variants)
    originals = [s.answers[r][0] for r in range(k)]
    backs = [mapped_back(s, task, s.answers[r]) for r in range(k)]
    flat = originals + [backs[r][j] for j in range(v) for r in range(k)]
    # classes anchored at the original's first answer, as distinct() and the violation anchor theirs
    cats = categories(flat, settings.tolerance, task.discrete)
    groups = [cats[:k]] + [cats[k + j * k : k + (j + 1) * k] for j in range(v)]
    p = homogeneity(groups, resamples=settings.resamples, seed=example_seed(settings.seed, s.ex.id))
    return {
        "answers": originals,
        "self_disagreement": _disagreement(list(combinations(groups[0], 2))),
        "cross_disagreement": _disagreement([(a, b) for a in groups[0] for g in groups[1:] for b in g]),
        "p_value": p,
    }


# ------------------------------------------------------------------ controls
def _controls(s, task, settings) -> dict:
    """Each control's answer beside the original's: changed or not (with
    repeats, by the same test as the variants, at the per-example level)."""
    from .stats import homogeneity

    k, first = settings.repeats, 1 + len(s.variants)
    originals = [s.answers[r][0] for r in range(k)]
    items = []
    for c, (control, label_changed) in enumerate(s.controls):
        if control is None:  # dropped: the model could not read it (its reason is in label_changed)
            continue
        answers = [s.answers[r][first + c] for r in range(k)]
        if any(a is None for a in answers):
            continue
        item = {
            "kind": control.kind,
            "change": control.change,
            "label_changed": label_changed,
            "prediction": answers[0],
            "changed": None,
            "p_value": None,
        }
        if k == 1:
            item["changed"] = not same(answers[0], originals[0], settings.tolerance, task.discrete)
        else:
            cats = categories(originals + answers, settings.tolerance, task.discrete)
            item["p_value"] = homogeneity(
                [cats[:k], cats[k:]],
                resamples=settings.resamples,
                seed=example_seed(settings.seed, f"{s.ex.id}\0control {c}"),
            )
            item["changed"] = item["p_value"] <= settings.level
        items.append(item)
    return {"drawn": s.controls_drawn, "items": items}


# ------------------------------------------------------------------- replies
def _replies(meta: list[list] | None) -> dict | None:
    """What became of the requests of a model that answers in text (HTTP):
    how many were sent, came from the cache, were rate-limited, how long was
    waited, and how many replies held more than one candidate answer (with
    the first such reply's segment); None for models that do not."""
    infos = [m for row in meta or () for m in row if m is not None]
    if not infos:
        return None
    fates = [m["fate"] for m in infos if m.get("fate") is not None]
    ambiguous = [m for m in infos if m.get("candidates", 1) > 1]
    return {
        "inputs": len(infos),
        "sent": sum(f.tries for f in fates),
        "from_cache": sum(1 for f in fates if f.cached),
        "rate_limited": sum(f.rate_limited for f in fates),
        "waited": round(sum(f.waited for f in fates), 3),
        "served": _served(fates),
        "ambiguous": len(ambiguous),
        "ambiguous_example": (
            {"segment": ambiguous[0].get("segment"), "candidates": ambiguous[0]["candidates"]} if ambiguous else None
        ),
    }


def _served(fates: list) -> dict[str, int]:
    """How many of ``fates``' replies each served model gave (by the name and
    fingerprint the replies say), most first."""
    return most_first(collections.Counter(f.served for f in fates if f.served is not None))


def most_first(counts: collections.Counter) -> dict[str, int]:
    """``counts`` as a dict, the largest count first (ties by name)."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


__all__ = ["record", "undo", "mapped_back", "example_seed", "label_free", "most_first"]
