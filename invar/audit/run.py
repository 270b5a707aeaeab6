"""The audit loop: draw each example's variants with the exact samplers, make
the model's inputs, predict in batches, and measure.

Determinism: an example's variants are drawn from a generator seeded by
``(seed, example id)``, so they do not depend on which shard or process
audits the example, nor on the examples around it. Examples are taken in
chunks of :data:`CHUNK` consecutive examples, and every batch is cut from one
chunk's inputs: a shard or a process takes whole chunks, so the batches (and
so the predictions, bit for bit) are the same however the dataset is split.
``--batch-size`` changes how a chunk's inputs are cut, which moves a
prediction by float rounding at most (docs/models.md: about 1e-7 relative),
inside the default tolerance.

Inputs: a checkpoint reads encodings, so a variant is its original's
encoding under an id remap (renamings) and an index remap (permutations):
nothing is rendered or parsed again. Models that read text get the variant
rendered (``RenamingSpace.render``, the fast path, for renamings). A
language model read with its table permuted along (``--lexinvariant-table
along``, :attr:`.models.CheckpointAdapter.pairs`) gets each variant beside
its original, in the variant's line order, so that the ids pair up token by
token.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..errors import InvarError, SpaceError
from ..program import Program
from ..symmetry.permutations import IntractableError, Permutation, PermutationSpace
from ..symmetry.renamings import Renaming, RenamingSpace
from .metrics import alpha_covariance, distinct, key as prediction_key, most_different, same, spread, violates, worst
from .datasets import Example
from .models import Adapter, Failure, _a

#: examples per unit of work (sharding and processes take whole chunks)
CHUNK = 32
#: inputs made and predicted at a time (memory stays flat for 100,000 variants)
SLICE = 4096
TRANSFORMS = ("renamings", "permutations", "both")
#: oracle texts per process of the task's oracle (llvm-mca)
ORACLE_BATCH = 1000


@dataclass(frozen=True)
class Variant:
    """One transform of a program: a renaming, a line order, or both
    (the renaming applied first)."""

    renaming: Renaming | None = None
    permutation: Permutation | None = None

    def describe(self) -> dict:
        out: dict[str, Any] = {}
        if self.renaming is not None:
            out["renaming"] = {r: t for r, t in self.renaming.mapping if r != t}
        if self.permutation is not None:
            out["order"] = list(self.permutation.order)
        return out


@dataclass
class Settings:
    transform: str = "renamings"
    #: K: variants per example (all of them when the space has at most K)
    variants: int = 16
    seed: int = 0
    tolerance: float = 1e-6
    batch_size: int = 64
    oracle: bool = False
    #: keep every prediction in the record (``--example``)
    keep_predictions: bool = False
    #: the names renamings map into, where the model declares the only ones it
    #: reads (a compiled program's symbols); None: each space's own default
    pool: tuple[str, ...] | None = None


def example_seed(seed: int, example_id: str) -> int:
    """The seed of one example's variants: ``seed`` and its id, hashed."""
    return int.from_bytes(hashlib.sha256(f"{seed}\0{example_id}".encode()).digest()[:8], "little")


def draw(program: Program, transform: str, k: int, rng: random.Random, pool: Sequence[str] | None = None):
    """(variants, space size, exhaustive, exact, renaming space, permutation
    space): K variants drawn uniformly (independently, with replacement), or
    every variant when the space has at most K. The size is None when the
    permutations are too many to count (then drawn by the Markov chain:
    ``exact`` is False). ``pool``: the names renamings map into (see
    :attr:`Settings.pool`)."""
    rspace = pspace = None
    sizes: list[int | None] = []
    streams = []
    exact = True
    if transform in ("renamings", "both"):
        from ..symmetry.spaces import renaming_space

        rspace = renaming_space(program, pool=pool)
        sizes.append(rspace.count())
    if transform in ("permutations", "both"):
        pspace = PermutationSpace(program)
        try:
            sizes.append(pspace.count())
        except IntractableError:  # far too many orders to count: drawn by the Markov chain
            sizes.append(None)
            exact = pspace.exact_sampling
    size = None if None in sizes else math.prod(sizes)
    if size == 0:
        return [], 0, True, True, rspace, pspace
    if size is not None and size <= k:
        parts = [rspace.enumerate() if rspace is not None else [None],
                 pspace.enumerate() if pspace is not None else [None]]
        variants = [Variant(r, p) for r, p in itertools.product(*(list(p) for p in parts))]
        return variants, size, True, True, rspace, pspace
    if rspace is not None:
        streams.append(rspace.samples(rng))
    if pspace is not None:
        streams.append(pspace.samples(rng))
    variants = []
    for _ in range(k):
        r = next(streams[0]) if rspace is not None else None
        p = next(streams[-1]) if pspace is not None else None
        variants.append(Variant(r, p))
    return variants, size, False, exact, rspace, pspace


# ------------------------------------------------------------------- inputs
def _reordered_text(program: Program, order: Sequence[int]) -> str:
    return program.prefix + program.separator.join(program.lines[o].text for o in order) + program.suffix


def variant_text(program: Program, rspace: RenamingSpace | None, v: Variant) -> str:
    """The variant's text (the renaming's render fast path when it only renames)."""
    if v.renaming is not None and v.permutation is None:
        return rspace.render(v.renaming)
    p = rspace.apply(program, v.renaming) if v.renaming is not None else program
    return _reordered_text(p, v.permutation.order) if v.permutation is not None else p.render()


def _encoder(adapter: Adapter, program: Program, rspace, variants: list[Variant]) -> Callable[[int], Any]:
    """j -> the model input of the original (j = 0) or of variant j."""
    if not adapter.encodes:
        text0 = program.render()
        return lambda j: text0 if j == 0 else variant_text(program, rspace, variants[j - 1])
    from ..encoding import permuted, renamed
    from ..errors import ModelError

    model = adapter.model
    if not model.fits(program):
        raise ModelError(f"{len(program.tokens)} tokens; this model takes 1 to {model.max_len}")
    model.check_supported(program)  # a name outside a fixed vocabulary: this example fails, not the audit
    enc0 = model.encode(program)
    by_remap = True
    try:
        from ..encoding import NoIdRemap, speller

        speller(program.lang)
    except NoIdRemap:  # no id-level renaming for this language: encode the renamed program
        by_remap = False

    pairs = getattr(adapter, "pairs", False)  # (original, variant): a table permuted along the renaming

    def make(j: int):
        if j == 0:
            return (enc0, enc0) if pairs else enc0
        v = variants[j - 1]
        if v.permutation is not None and model.config.canonicalize:
            # a reordering changes the canonical form: encode the variant itself
            p = rspace.apply(program, v.renaming) if v.renaming is not None else program
            return model.encode(p.reordered(v.permutation.order))
        e = base = enc0
        if v.renaming is not None:
            e = _renamed_or_none(enc0, v.renaming, model.vocab) if by_remap else None
            if e is None:  # no id remap (NoIdRemap): encode the renamed program
                e = model.encode(rspace.apply(program, v.renaming))
        if v.permutation is not None:
            e, base = permuted(e, v.permutation.order), permuted(base, v.permutation.order)
        return (base, e) if pairs else e  # the original in the variant's order: ids pair up token by token

    return make


def _renamed_or_none(enc, renaming, vocab):
    """``enc`` renamed by id remap, or None where the renaming has none
    (:class:`~invar.encoding.NoIdRemap`)."""
    from ..encoding import NoIdRemap, renamed

    try:
        return renamed(enc, renaming, vocab)
    except NoIdRemap:
        return None


# ---------------------------------------------------------------- examples
class _State:
    """One example on its way through the loop."""

    def __init__(self, ex: Example) -> None:
        self.ex = ex
        self.program: Program | None = None
        self.rspace = self.pspace = None
        self.variants: list[Variant] = []
        self.size = None
        self.exhaustive = self.exact = True
        self.referents: int | None = None
        self.make: Callable[[int], Any] | None = None
        self.preds: list = []
        self.error: str | None = None
        self.stage: str | None = None
        self.oracle: list | None = None

    @property
    def n(self) -> int:
        return 1 + len(self.variants)

    def fail(self, stage: str, message: str) -> None:
        if self.error is None:
            self.error, self.stage = message, stage


def _prepare(ex: Example, adapter: Adapter, settings: Settings, task=None) -> _State:
    s = _State(ex)
    if ex.error is not None:
        s.fail("parse", str(ex.error))
        return s
    try:
        s.program = ex.parse()
    except InvarError as err:
        s.fail("parse", str(err.located(ex.path)))
        return s
    if ex.label is None and task is not None and task.label_of is not None:
        try:
            ex.label = task.label_of(s.program)
        except InvarError as err:
            s.fail("parse", str(err.located(ex.path)))
            return s
    try:
        (s.variants, s.size, s.exhaustive, s.exact, s.rspace,
         s.pspace) = draw(s.program, settings.transform, settings.variants,
                          random.Random(example_seed(settings.seed, ex.id)), settings.pool)
        space = s.rspace
        if space is None:
            from ..symmetry.spaces import renaming_space

            space = renaming_space(s.program)
        s.referents = len(space.referents)
    except SpaceError as err:
        s.fail("space", err.message)
        return s
    try:
        s.make = _encoder(adapter, s.program, s.rspace, s.variants)
    except InvarError as err:
        s.fail("model", err.message)
        return s
    s.preds = [None] * s.n
    return s


def _value(o: Any, discrete: bool):
    """A model's output as a prediction, or a Failure (NaN, not a number, not
    a JSON value …): whatever the model returned, never an exception."""
    if isinstance(o, Failure):
        return o
    if isinstance(o, InvarError):  # a checkpoint's error for this input alone (nn/canonical.py: Unmapped)
        return Failure(o.message)
    try:
        if hasattr(o, "item") and getattr(o, "ndim", None) == 0:  # a numpy or torch scalar
            o = o.item()
        if discrete:
            if o is None:
                return Failure("returned None")
            # the prediction is written in the report: it must be JSON, and finite
            json.dumps(o, allow_nan=False)
            return o
        if isinstance(o, bool) or not isinstance(o, (int, float)):
            o = float(o)
        o = float(o)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return Failure(f"returned {_shown_value(o)}, not a {'JSON value' if discrete else 'number'}")
    except Exception as err:  # noqa: BLE001 - the model's own object failed to convert
        return Failure(f"returned {_shown_value(o)}, which failed to convert ({type(err).__name__})")
    return o if math.isfinite(o) else Failure(f"returned {o}")


def _shown_value(o: Any) -> str:
    """A model's output as a message shows it: short, and safe to take."""
    try:
        if not isinstance(o, (str, int, float, complex, list, tuple, dict)):
            return _a(o)
        text = repr(o)
        return text if len(text) <= 60 else text[:57] + "..."
    except Exception:  # noqa: BLE001 - an int too long to write, a broken __repr__
        return _a(o)


def _predict_all(states: list[_State], adapter: Adapter, settings: Settings, discrete: bool) -> None:
    jobs = [(s, j) for s in states if s.error is None for j in range(s.n)]
    for lo in range(0, len(jobs), SLICE):
        part = jobs[lo: lo + SLICE]
        outs = adapter.predict([s.make(j) for s, j in part], settings.batch_size)
        for (s, j), o in zip(part, outs):
            v = _value(o, discrete)
            if isinstance(v, Failure):
                s.fail("model", f"{'original' if j == 0 else f'variant {j}'}: {v.message}")
            else:
                s.preds[j] = v


def _oracle_all(states: list[_State], oracle: Callable, settings: Settings) -> None:
    jobs = []
    for s in states:
        if s.error is None:
            texts = [s.program.render()] + [variant_text(s.program, s.rspace, v) for v in s.variants]
            s.oracle = [None] * len(texts)
            jobs += [(s, j, t) for j, t in enumerate(texts)]
    for lo in range(0, len(jobs), ORACLE_BATCH):
        part = jobs[lo: lo + ORACLE_BATCH]
        for (s, j, _t), got in zip(part, oracle([t for _, _, t in part])):
            s.oracle[j] = got


def run_chunk(examples: Sequence[Example], adapter: Adapter, task, settings: Settings) -> list[dict]:
    """Audit a chunk of examples: one record per example (see docs/audit.md)."""
    states = [_prepare(ex, adapter, settings, task) for ex in examples]
    _predict_all(states, adapter, settings, task.discrete)
    if settings.oracle:
        _oracle_all(states, task.oracle, settings)
    return [record(s, task, settings) for s in states]


# ------------------------------------------------------------------ records
def _json_int(n: int | None):
    """Counts beyond 2^53 as decimal strings (JSON readers lose them as numbers)."""
    return n if n is None or n < 2 ** 53 else str(n)


def record(s: _State, task, settings: Settings) -> dict:
    """The example's record: what docs/audit.md lists under "example records"."""
    ex = s.ex
    rec: dict[str, Any] = {
        "type": "example", "index": ex.index, "id": ex.id, "location": ex.location, "label": ex.label,
        "lines": None, "tokens": None, "referents": s.referents, "space": _json_int(s.size),
        "variants": len(s.variants), "exhaustive": s.exhaustive, "exact": s.exact,
        "prediction": None, "violation": None, "distinct": None, "alpha_covariance": None,
        "range": None, "std": None, "relative_range": None, "metric": None, "most_different": None,
        "oracle": None, "error": s.error, "stage": s.stage,
    }
    if s.program is not None:
        rec["lines"], rec["tokens"] = len(s.program.lines), len(s.program.tokens)
    if s.error is not None:
        rec["variants"] = None
        return rec
    tol, discrete = settings.tolerance, task.discrete
    p0 = s.preds[0]
    if task.undo is not None:  # a sequence task maps its own outputs back
        back = [task.undo(p, v.renaming.inverse()) if v.renaming is not None else p
                for p, v in zip(s.preds[1:], s.variants)]
    else:
        back = [undo(p, s.program, s.rspace, v) if discrete and v.renaming is not None else p
                for p, v in zip(s.preds[1:], s.variants)]
    rec["prediction"] = p0
    rec["violation"] = violates(p0, back, tol, discrete)
    rec["distinct"] = distinct([p0] + back, tol, discrete)
    rec["alpha_covariance"] = alpha_covariance(s.n, rec["distinct"])
    if not discrete:
        # a prediction within the tolerance of the original's is the original's:
        # float rounding that depends on the batch is not spread
        snapped = [p0 if same(p, p0, tol, False) else p for p in back]
        rec["range"], rec["std"], rec["relative_range"] = spread(p0, [p0] + snapped)
    if ex.label is not None and back:
        rec["metric"] = _metric(task, p0, back, ex.label)
    if rec["violation"]:
        j = most_different(p0, back, discrete)
        rec["most_different"] = {"variant": j + 1, "prediction": back[j], **s.variants[j].describe(),
                                 **_shown(s.program, s.rspace, s.variants[j])}
    if settings.keep_predictions:
        rec["predictions"] = back
    if s.oracle is not None:
        rec["oracle"] = _oracle_record(s, task, back, tol)
    return rec


def undo(prediction: Any, program: Program, rspace: RenamingSpace, v: Variant) -> Any:
    """A prediction made on a renamed variant in the original's names: what
    :meth:`RenamingSpace.undo` maps (referents), and also the surface
    spellings of renamed tokens (a model answers ``%r10d``, not ``gpr:r10``),
    in one pass so that swapped names are not mapped twice."""
    back = v.renaming.inverse()
    renamed = rspace.apply(program, v.renaming)
    for old, new in zip(program.tokens, renamed.tokens):
        if old.text != new.text:
            back.setdefault(new.text, old.text)
            if new.text.startswith("%") and old.text.startswith("%"):
                back.setdefault(new.text[1:], old.text[1:])

    def walk(x):
        if isinstance(x, str):
            return back.get(x, x)
        if isinstance(x, (list, tuple)):
            return type(x)(walk(y) for y in x)
        if isinstance(x, dict):
            return {walk(k): walk(y) for k, y in x.items()}
        return x

    return walk(prediction)


def _metric(task, p0, back: list, label) -> dict:
    if task.score is not None:  # the variant the task's own metric scores worst
        scores = [task.score(p, label) for p in back]
        w = scores.index(max(scores) if task.lower_is_better else min(scores))
    else:
        w = worst(back, label, task.discrete)
    out = {
        "original": task.metric([p0], [label]),
        "variants": task.metric(back, [label] * len(back)),
        "worst": task.metric([back[w]], [label]),
        "worst_prediction": back[w],
    }
    if task.discrete:
        counts: dict[str, list] = {}
        for p in back:
            k = prediction_key(p)
            counts.setdefault(k, [p, 0])[1] += 1
        out["variant_predictions"] = [counts[k] for k in sorted(counts)]
    return out


def _shown(program: Program, rspace, v: Variant) -> dict:
    """The original's lines and the variant's, with the spans a renaming
    respelled (``changed``: [line, start, end] in the variant) and the lines a
    permutation moved (``moved``: positions in the variant)."""
    renamed = rspace.apply(program, v.renaming) if v.renaming is not None else program
    moved_refs = {r for r, t in v.renaming.mapping if r != t} if v.renaming is not None else set()
    spans = [(tok.line, new.start, new.end) for tok, new in zip(program.tokens, renamed.tokens)
             if tok.referent in moved_refs]
    order = list(v.permutation.order) if v.permutation is not None else list(range(len(program.lines)))
    new_of = {old: new for new, old in enumerate(order)}
    return {
        "lines": [line.text for line in program.lines],
        "variant_lines": [renamed.lines[o].text for o in order],
        "changed": sorted([new_of[li], a, b] for li, a, b in spans),
        "moved": [new for new, old in enumerate(order) if new != old],
    }


def _oracle_record(s: _State, task, back: list, tol: float) -> dict:
    bad = next(((j, reason) for j, (label, reason) in enumerate(s.oracle) if label is None), None)
    if bad is not None:
        j, reason = bad
        return {"label": None, "changed": None, "distinct": None, "range": None, "relative_range": None,
                "metric_variants": None, "error": f"{'original' if j == 0 else f'variant {j}'}: {reason}"}
    labels = [label for label, _ in s.oracle]
    l0, rest = labels[0], labels[1:]
    if task.undo is not None:  # an equivariant task's labels, like its predictions, in the original's names
        rest = [task.undo(label, v.renaming.inverse()) if v.renaming is not None else label
                for label, v in zip(rest, s.variants)]
        labels = [l0, *rest]
    out = {"label": l0, "changed": violates(l0, rest, tol, task.discrete),
           "distinct": distinct(labels, tol, task.discrete), "range": None, "relative_range": None,
           "metric_variants": task.metric(back, rest) if rest else None, "error": None}
    if not task.discrete:
        out["range"], _, out["relative_range"] = spread(l0, labels)
    return out


__all__ = ["CHUNK", "SLICE", "TRANSFORMS", "Variant", "Settings", "draw", "example_seed", "run_chunk", "record",
           "variant_text", "undo"]
