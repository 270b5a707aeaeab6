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

import decimal
import json
import math
import numbers
import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ..errors import InvarError, SpaceError
from ..program import Program
from ..symmetry.permutations import Permutation, PermutationSpace
from ..symmetry.renamings import Renaming, RenamingSpace
from ..symmetry.space import ProductSpace, Space
from ..symmetry.space import draw as draw_from
from ..symmetry.spaces import renaming_space
from .config import TRANSFORMS
from .datasets import AuditExample
from .models import Adapter, Failure, _a
from .records import example_seed, record

#: examples per unit of work (sharding and processes take whole chunks)
CHUNK = 32
#: inputs made and predicted at a time (memory stays flat for 100,000 variants)
SLICE = 4096
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
    #: answers asked for each input (``--repeats``)
    repeats: int = 1
    #: sensitivity controls drawn per example (``--controls``)
    controls: int = 0
    #: the level of each example's test of its repeats (``--level``)
    level: float = 0.05
    #: resamples of that permutation test (its smallest p-value is 1 / (1 + resamples))
    resamples: int = 9999
    #: an oracle of the model's own (a compiled program's interpreter), which
    #: decides whether a control changes the label
    own_oracle: Callable | None = None


#: the spaces each transform draws from, by the :class:`Variant` field each
#: fills, in the order they are drawn (for ``both``: a renaming, then an order)
FACTORS: dict[str, tuple[str, ...]] = {
    "renamings": ("renaming",),
    "permutations": ("permutation",),
    "both": ("renaming", "permutation"),
}

#: how each field's space is made from a program (``pool``: see :attr:`Settings.pool`)
_SPACES: dict[str, Callable[[Program, Sequence[str] | None], Space]] = {
    "renaming": lambda program, pool: renaming_space(program, pool=pool),
    "permutation": lambda program, pool: PermutationSpace(program),
}


@dataclass(frozen=True)
class Drawing:
    """One example's variants and the spaces they were drawn from."""

    #: K variants drawn uniformly (independently, with replacement), or every variant when there are at most K
    variants: list[Variant]
    #: the number of variants there are; None when too many to count (then drawn by the Markov chain)
    size: int | None
    #: whether ``variants`` is every variant
    exhaustive: bool
    #: whether the draws are exactly uniform (False: the Markov chain's)
    exact: bool
    #: the spaces drawn from, by the :class:`Variant` field each fills
    spaces: dict[str, Space] = field(default_factory=dict)

    @property
    def rspace(self) -> RenamingSpace | None:
        """The renaming space, where the transform renames."""
        return self.spaces.get("renaming")  # type: ignore[return-value]


def draw(program: Program, transform: str, k: int, rng: random.Random, pool: Sequence[str] | None = None) -> Drawing:
    """The variants of ``program`` under ``transform``: K elements of the
    product of its spaces (:data:`FACTORS`), or all of them when there are at
    most K. ``pool``: the names renamings map into (see :attr:`Settings.pool`)."""
    spaces = {name: _SPACES[name](program, pool) for name in FACTORS[transform]}
    got = draw_from(ProductSpace(*spaces.values()), k, rng)
    variants = [Variant(**dict(zip(spaces, t))) for t in got.items]
    return Drawing(variants, got.size, got.exhaustive, got.exact, spaces)


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
    from ..encoding import permuted
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

    def __init__(self, ex: AuditExample) -> None:
        self.ex = ex
        self.program: Program | None = None
        #: its variants, once drawn
        self.drawing = Drawing([], None, True, True)
        self.referents: int | None = None
        self.make: Callable[[int], Any] | None = None
        #: (control, whether the task's oracle says it changes the label: True, or None unchecked)
        self.controls: list[tuple[Any, bool | None]] = []
        self.control_inputs: list = []
        #: controls drawn, before those that keep the label or that the model cannot read were dropped
        self.controls_drawn = 0
        #: answers[r][j]: repeat r, input j (0 the original, 1..V the variants, then the controls)
        self.answers: list[list] = []
        #: what the model said beside each answer (text models: candidates, the segment read, the request's fate)
        self.meta: list[list] = []
        self.error: str | None = None
        self.stage: str | None = None
        self.oracle: list | None = None

    # what the loop and the example's record read of its drawing
    @property
    def variants(self) -> list[Variant]:
        return self.drawing.variants

    @property
    def size(self) -> int | None:
        return self.drawing.size

    @property
    def exhaustive(self) -> bool:
        return self.drawing.exhaustive

    @property
    def exact(self) -> bool:
        return self.drawing.exact

    @property
    def rspace(self) -> RenamingSpace | None:
        return self.drawing.rspace

    @property
    def varies(self) -> bool | None:
        """Whether the space holds a variant besides the original: more than
        one element, or a single one that is not the original (a name the
        original keeps is not always a target: Java's local ``length`` beside
        ``value.length``); None before the variants are drawn."""
        if self.program is None or (self.error is not None and not self.variants):
            return None
        if self.size is None or self.size > 1:
            return True
        original = self.program.render()
        return any(variant_text(self.program, self.rspace, v) != original for v in self.variants)

    @property
    def n(self) -> int:
        """Inputs: the original, its variants and its controls."""
        return 1 + len(self.variants) + len(self.controls)

    def fail(self, stage: str, message: str) -> None:
        if self.error is None:
            self.error, self.stage = message, stage

    def input(self, j: int):
        first = 1 + len(self.variants)
        return self.make(j) if j < first else self.control_inputs[j - first]


def _prepare(ex: AuditExample, adapter: Adapter, settings: Settings, task=None) -> _State:
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
        s.drawing = draw(
            s.program,
            settings.transform,
            settings.variants,
            random.Random(example_seed(settings.seed, ex.id)),
            settings.pool,
        )
        rspace = s.rspace if s.rspace is not None else renaming_space(s.program)
        s.referents = len(rspace.referents)
    except SpaceError as err:
        s.fail("space", err.message)
        return s
    try:
        s.make = _encoder(adapter, s.program, s.rspace, s.variants)
    except InvarError as err:
        s.fail("model", err.message)
        return s
    return s


def _draw_controls(s: _State, task, settings: Settings) -> tuple[list, list]:
    """The example's controls, drawn: the task's own, whose label changes by
    the task's definition (bugs: its injections, checked as they are drawn),
    take up to half the places; the generic kinds the rest."""
    from .controls import control_kinds, draw_controls, task_controls

    rng = random.Random(example_seed(settings.seed, f"controls\0{s.ex.id}"))
    own = task_controls(task, s.program, s.ex.label, (settings.controls + 1) // 2, rng)
    texts = {c.text for c in own}
    generic = draw_controls(s.program, settings.controls, rng, control_kinds(task), parse=task.parse)
    generic = [c for c in generic if c.text not in texts][: settings.controls - len(own)]
    s.controls_drawn = len(own) + len(generic)
    return own, generic


def _keep_controls(
    states: list[_State], drawn: list[tuple[list, list]], adapter: Adapter, task, settings: Settings
) -> None:
    """Each example's controls that the task's oracle does not say keep the
    label (one oracle call for the chunk), with the model's input of each; a
    control the model cannot read is dropped, not the example's error."""
    from .controls import label_changes_many

    jobs = [(s.program, s.ex.label, generic) for s, (_own, generic) in zip(states, drawn)]
    if getattr(task, "runs_code", False) and not settings.oracle:  # code runs only when the user asks: --oracle
        task = replace(task, oracle=None)
    checked = label_changes_many(task, jobs, oracle=settings.own_oracle)
    for s, (own, generic), changes in zip(states, drawn, checked):
        for control, changed in zip(own + generic, [True] * len(own) + changes):
            if changed is False:  # the oracle says the label is the same: not a control
                continue
            try:
                made = _control_input(adapter, control)
            except InvarError:
                continue
            s.controls.append((control, changed))
            s.control_inputs.append(made)


def _control_input(adapter: Adapter, control):
    """The model's input of a control: its text, or for a checkpoint its
    encoding (a control is another program: it is encoded, not remapped)."""
    if not adapter.encodes:
        return control.text
    from ..errors import ModelError

    model = adapter.model
    if not model.fits(control.program):
        raise ModelError(f"{len(control.program.tokens)} tokens; this model takes 1 to {model.max_len}")
    model.check_supported(control.program)
    enc = model.encode(control.program)
    return (enc, enc) if getattr(adapter, "pairs", False) else enc


def _value(o: Any, discrete: bool, check: Callable[[Any], Any] | None = None) -> tuple[Any, dict | None]:
    """A model's output as a prediction, or a Failure (NaN, not a number, not
    a JSON value …): whatever the model returned, never an exception; and
    what a text model said beside it (a :class:`~.models.Reply`'s
    candidates, segment and fate), else None."""
    meta = None
    if hasattr(o, "fate") and not isinstance(o, InvarError):  # a Reply or a Failure of a text model
        meta = {"candidates": getattr(o, "candidates", 1), "segment": getattr(o, "segment", None), "fate": o.fate}
        if not isinstance(o, Failure):
            o = o.value
    return _prediction(o, discrete, check), meta


def _prediction(o: Any, discrete: bool, check: Callable[[Any], Any] | None = None):
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
            if check is None:
                return o
            try:
                return check(o)
            except ValueError as err:
                return Failure(f"returned {_shown_value(o)}, not one of the task's answers ({err})")
        # a real number of any type (Fraction, Decimal, NumPy's); text that spells one, bytes or a
        # truth value is not a prediction of a number, and float() would read each as one
        if isinstance(o, bool) or not isinstance(o, (numbers.Real, decimal.Decimal)):
            raise TypeError(type(o).__name__)
        o = float(o)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return Failure(f"returned {_shown_value(o)}, not a {'JSON value' if discrete else 'number'}")
    except Exception as err:  # noqa: BLE001 - the model's own object failed to convert
        return Failure(f"returned {_shown_value(o)}, which failed to convert ({type(err).__name__})")
    return o if math.isfinite(o) else Failure(f"returned {o}")


def _shown_value(o: Any) -> str:
    """A model's output as a message shows it: short, and safe to take."""
    try:
        if not isinstance(o, (str, bytes, int, float, complex, list, tuple, dict)):
            return _a(o)
        text = repr(o)
        return text if len(text) <= 60 else text[:57] + "..."
    except Exception:  # noqa: BLE001 - an int too long to write, a broken __repr__
        return _a(o)


def _what(s: _State, j: int) -> str:
    """Input ``j`` of an example, in words."""
    return "original" if j == 0 else f"variant {j}" if j <= len(s.variants) else f"control {j - len(s.variants)}"


def _predict_all(states: list[_State], adapter: Adapter, settings: Settings, task) -> None:
    """Every input's answer, ``settings.repeats`` times; a model that runs in
    this process from a checkpoint is deterministic, so its one answer
    stands for every repeat. A failed control is dropped (its answer None);
    any other failure is the example's error."""
    jobs = [(s, j) for s in states if s.error is None for j in range(s.n)]
    for s in states:
        s.answers = [[None] * s.n for _ in range(settings.repeats)]
        s.meta = [[None] * s.n for _ in range(settings.repeats)]
    rounds = 1 if adapter.kind == "checkpoint" else settings.repeats
    for r in range(rounds):
        for lo in range(0, len(jobs), SLICE):
            part = jobs[lo : lo + SLICE]
            outs = adapter.predict([s.input(j) for s, j in part], settings.batch_size, repeat=r)
            for (s, j), o in zip(part, outs):
                v, s.meta[r][j] = _value(o, task.discrete, task.prediction)
                if not isinstance(v, Failure):
                    s.answers[r][j] = v
                elif j <= len(s.variants):
                    s.fail("model", f"{_what(s, j)}{f' (repeat {r + 1})' if rounds > 1 else ''}: {v.message}")
    for s in states:
        for r in range(rounds, settings.repeats):
            s.answers[r] = list(s.answers[0])


def _oracle_all(states: list[_State], oracle: Callable, settings: Settings) -> None:
    jobs = []
    for s in states:
        if s.error is None:
            texts = [s.program.render()] + [variant_text(s.program, s.rspace, v) for v in s.variants]
            s.oracle = [None] * len(texts)
            jobs += [(s, j, t) for j, t in enumerate(texts)]
    for lo in range(0, len(jobs), ORACLE_BATCH):
        part = jobs[lo : lo + ORACLE_BATCH]
        for (s, j, _t), got in zip(part, oracle([t for _, _, t in part])):
            s.oracle[j] = got


def run_chunk(examples: Sequence[AuditExample], adapter: Adapter, task, settings: Settings) -> list[dict]:
    """Audit a chunk of examples: one record per example (see docs/audit.md)."""
    states = [_prepare(ex, adapter, settings, task) for ex in examples]
    if settings.controls:
        ready = [s for s in states if s.error is None]
        _keep_controls(ready, [_draw_controls(s, task, settings) for s in ready], adapter, task, settings)
    _predict_all(states, adapter, settings, task)
    if settings.oracle:
        _oracle_all(states, task.oracle, settings)
    return [record(s, task, settings) for s in states]


__all__ = [
    "CHUNK",
    "SLICE",
    "TRANSFORMS",
    "FACTORS",
    "Variant",
    "Drawing",
    "Settings",
    "draw",
    "example_seed",
    "run_chunk",
    "record",
    "variant_text",
]
