"""A run's settings, declared once: the field helpers that both runs' configs
use, and :class:`TrainConfig`, every setting of a training run.

A setting is a dataclass field made by :func:`option`: its type (a
``Literal`` where the choices are fixed, or a registry's choices, such as the
tasks or the sizes, named in the field), its default, its command-line flags
and a one-line help, and inclusive bounds. A config checks its fields in
``__post_init__`` (:func:`check_field`); the command line builds one option
per field (:mod:`invar.cli.configured`), and the docs' option tables are
generated from the fields (:mod:`invar.cli.reference`), so that neither can
drift from the library. The audit's settings are
:class:`~invar.audit.config.AuditConfig`; a training run's are
:class:`TrainConfig` here, so that the command line reads them without
importing torch (``invar.train`` does).

Layer ``config``: above nn (whose registries name the choices), below
train, audit and cli, which import it. Imports errors and nn.config only.
"""

from __future__ import annotations

import math
import os
import typing
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
from typing import Any, Callable, Literal, Mapping

from .errors import UsageError
from .nn.config import (
    ARCHITECTURES,
    EMBED_SCALINGS,
    NORM_POSITIONS,
    PINNED_TOKENS,
    POSITIONS,
    RANDOM_DRAW,
    RANDOM_VECTORS,
    SIZES,
    SYMMETRY_HEADS,
    ModelConfig,
    preset,
)


# ----------------------------------------------------------------- fields
def option(
    default: Any,
    *flags: str,
    help: str,
    min: float | None = None,
    max: float | None = None,
    below: float | None = None,
    choices: Any = None,
    metavar: str | None = None,
    read_file: bool = False,
    model: str | None = None,
) -> Any:
    """A field of a run's config with what its command-line option needs:
    ``flags`` (the long one first), ``help`` (one line), inclusive bounds
    (``min``, ``max``) and an exclusive one (``below``), ``choices`` (a
    function returning them, for choices a registry decides),
    ``read_file`` (the option names a file whose text is the value) and
    ``model`` (the :class:`~invar.nn.config.ModelConfig` field a training
    option sets). ``default=MISSING`` makes the option required."""
    meta = {
        "flags": flags,
        "help": help,
        "min": min,
        "max": max,
        "below": below,
        "choices": choices,
        "metavar": metavar,
        "read_file": read_file,
        "model": model,
    }
    return field(metadata=meta) if default is MISSING else field(default=default, metadata=meta)


def option_fields(cls: type) -> list[Field]:
    """The fields of ``cls`` that are command-line options (a field made
    without :func:`option`, such as :attr:`TrainConfig.overrides`, is set
    from Python only)."""
    return [f for f in fields(cls) if "flags" in f.metadata]


def field_types(cls: type) -> dict[str, Any]:
    """A config's field types, resolved (the modules postpone annotations)."""
    return typing.get_type_hints(cls)


def choices_of(f: Field, cls: type) -> tuple[str, ...] | None:
    """A field's choices: its metadata's (a registry's), else its ``Literal``
    type's (also inside ``| None``); None for a field without choices."""
    if f.metadata.get("choices") is not None:
        return tuple(f.metadata["choices"]())
    annotation = field_types(cls)[f.name]
    for part in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(part) is Literal:
            return tuple(typing.get_args(part))
    return None


def check_field(f: Field, value: Any, cls: type, *, registry: bool = True) -> None:
    """The field's bounds and choices, with the option's name in the message
    (``registry=False``: a registry's choices are left to the registry,
    which checks them where it is read, with its own message)."""
    meta, flag = f.metadata, f.metadata["flags"][0].split("/")[0]
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        choices = choices_of(f, cls) if registry or meta.get("choices") is None else None
        if choices is not None and value not in choices:
            raise UsageError(f"{value!r}: choose from {', '.join(choices)}", path=flag)
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{value}: give a finite number", path=flag)
    for kind, bound in (("ge", meta["min"]), ("le", meta["max"]), ("lt", meta.get("below"))):
        if bound is not None and not _BOUNDS[kind][0](value, bound):
            raise UsageError(out_of_bounds(f"{value:g}", kind, bound), path=flag)


#: a bound's kind (pydantic's names: typer checks an option's ``min`` and ``max`` with it) -> (the test a
#: value must pass, how a value that fails it is refused)
_BOUNDS = {
    "ge": (lambda v, b: v >= b, "{} is below the least allowed, {}"),
    "le": (lambda v, b: v <= b, "{} is above the most allowed, {}"),
    "gt": (lambda v, b: v > b, "{}: give a number above {}"),
    "lt": (lambda v, b: v < b, "{}: give a number below {}"),
}


def out_of_bounds(shown: str, kind: str, bound: float) -> str:
    """How a value (as the user wrote it) outside a bound of ``kind`` is refused
    (a whole-number bound written whole, however large)."""
    return _BOUNDS[kind][1].format(shown, bound if isinstance(bound, int) else f"{bound:g}")


# ------------------------------------------------------------ registries
#: the tasks invar trains models for, in the task registry's order (the
#: others audit models invar does not train, such as ``classify``, or compiled
#: ones, ``alta``; a task is not trained until it is listed here)
TRAINABLE_TASKS = ("bhive", "ltl", "copy", "names", "bugs", "lm")
#: what training computes in (docs/models.md, Training)
Precision = Literal["fp32", "tf32", "bf16"]
PRECISIONS: tuple[str, ...] = typing.get_args(Precision)
#: learning-rate schedules: cosine decay over the epoch cap, or halving on plateaus of the validation metric
Schedule = Literal["cosine", "plateau"]
SCHEDULES: tuple[str, ...] = typing.get_args(Schedule)


def _registry(values: Any) -> Callable[[], tuple[str, ...]]:
    """A field's ``choices``: the names of a registry of the library (read when asked)."""
    return lambda: tuple(values)


def _model_default(name: str) -> Any:
    """A model option's default: the :class:`ModelConfig` field's, which keeps the preset's value."""
    return next(f.default for f in fields(ModelConfig) if f.name == name)


def _takes(arch: str, head: str, **fields_: Any) -> bool:
    """Whether ``head`` takes the preset of ``arch`` with ``fields_``."""
    try:
        preset(arch, head=head, **fields_)
    except ValueError:
        return False
    return True


def _architectures_help() -> str:
    """``--arch``'s help, from the registry: which architectures each kind of model takes (a language
    model's task gives it rotary positions, which only it takes)."""
    pooled, seq, lm = (
        [a for a in ARCHITECTURES if _takes(a, head, **extra)]
        for head, extra in (("regression", {}), ("generate", {}), ("lm", {"positions": "rotary"}))
    )
    only_seq = [a for a in seq if a not in pooled]
    no_seq = [a for a in pooled if a not in seq]
    return (
        f"Architecture: {', '.join(pooled)}; a sequence task also takes {' and '.join(only_seq)} and not "
        f"{', '.join(no_seq)} (they do not generate); lm takes {' or '.join(lm)}."
    )


def _sizes_help() -> str:
    shapes = ", ".join(f"{name} {'/'.join(map(str, shape))}" for name, shape in SIZES.items())
    return f"Model size (layers/width/heads: {shapes})."


# ---------------------------------------------------------------- training
#: the epochs without improvement per halving of ``--schedule plateau`` (TrainConfig.plateau's default)
_PLATEAU = 5


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a training run (docs/models.md, Training, explains
    each). ``data`` and ``out`` may be given as paths; they are kept as text.
    The options marked as model options set the :class:`ModelConfig` field
    they name beyond the architecture's preset, unless left at their default
    (the preset's value is then kept); ``overrides`` sets any field, from
    Python."""

    # ---------------------------------------------------------- what is trained
    data: str = option(
        MISSING,
        "--data",
        help="The dataset: a directory from invar data bhive, invar data copy, invar data names, invar data bugs "
        "or invar data lm, or a file from invar data ltl.",
    )
    arch: str = option(MISSING, "--arch", help=_architectures_help())
    out: str = option(MISSING, "--out", "-o", help="Checkpoint to write (the best epoch).")
    task: str = option("bhive", "--task", choices=_registry(TRAINABLE_TASKS), help="The task.")
    size: str = option("tiny", "--size", choices=_registry(SIZES), help=_sizes_help())
    # ---------------------------------------------------------------- the run
    epochs: int = option(10, "--epochs", min=1, help="Passes over the training split.")
    batch_size: int = option(64, "--batch-size", min=1, help="Programs per step.")
    max_len: int | None = option(
        None,
        "--max-len",
        min=1,
        help="Longest program in tokens; longer ones are skipped and counted (default: 128; lm: the dataset's "
        "sequence length).",
    )
    lr: float = option(5e-4, "--lr", min=0, help="Peak learning rate (linear warm-up, then the --schedule).")
    weight_decay: float = option(0.01, "--weight-decay", min=0, help="AdamW weight decay.")
    beta1: float = option(0.9, "--beta1", min=0, below=1, help="AdamW beta 1.")
    beta2: float = option(0.999, "--beta2", min=0, below=1, help="AdamW beta 2.")
    seed: int = option(0, "--seed", help="Seed for every random choice.")
    #: the command line offers cpu and cuda; from Python any torch device (``cuda:1``), as before
    device: str = option("cpu", "--device", choices=_registry(("cpu", "cuda")), help="Where to train.")
    precision: Precision = option(
        "fp32",
        "--precision",
        help="fp32; tf32: CUDA matrix products in TensorFloat-32; bf16: each step's forward pass and loss under "
        "bfloat16 autocast (weights, validation and the checkpoint stay float32).",
    )
    limit: int | None = option(
        None, "--limit", min=1, help="Train on the first N programs (and validate on N/4), for quick runs."
    )
    resume: bool = option(False, "--resume", help="Continue from the saved training state beside --out.")
    save_every: int = option(
        0, "--save-every", min=0, help="Also save the training state every N steps (0: after each epoch only)."
    )
    threads: int | None = option(None, "--threads", min=1, help="Torch threads per process (default: half the cores).")
    jobs: int | None = option(
        None, "--jobs", "-j", min=1, help="Processes that encode the dataset the first time (default: 1)."
    )
    patience: int | None = option(
        None,
        "--patience",
        min=1,
        help="Stop early once N epochs in a row bring no better validation metric (--epochs is then a cap).",
    )
    schedule: Schedule = option(
        "cosine",
        "--schedule",
        help="After the warm-up: cosine decay over --epochs to a tenth of --lr, or plateau: --lr, halved each time "
        "--plateau epochs in a row bring no better validation metric (with a --patience above --plateau, "
        "training then runs until it stops improving).",
    )
    plateau: int | None = option(
        None,
        "--plateau",
        min=1,
        help=f"With --schedule plateau: epochs without a better validation metric before the learning rate halves "
        f"(default {_PLATEAU}).",
    )
    time_limit: float | None = option(
        None,
        "--time-limit",
        min=0,
        help="Stop after the first epoch that ends this many seconds after the start (--epochs is then a cap).",
    )
    # ---------------------------------------------------------- model options
    random_draws: int = option(
        _model_default("random_draws"),
        "--random-draws",
        min=1,
        model="random_draws",
        help="ltl, copy with dualpart or lexinvariant: try N seeded tables of random vectors on the validation "
        "split at the end and keep the median by loss.",
    )
    lexinvariant_p: float | None = option(
        None,
        "--lexinvariant-p",
        min=0,
        max=1,
        model="lexinvariant_p",
        help="With --arch lexinvariant: the regularised variant, a learned table whose tokens are remapped through "
        "a random permutation with probability P in training (the lexinvariant paper's B_p).",
    )
    pinned_tokens: str = option(
        _model_default("pinned_tokens"),
        "--pinned-tokens",
        choices=_registry(PINNED_TOKENS),
        model="pinned_tokens",
        help="With --arch renamer or renamer+spe (view embeddings): embed a token outside its program's renaming "
        "space (%rsp under push, %rax and %rdx under mul; a Python or Java name that keeps its spelling) by "
        "its view like any other, or by its own learned vector (still exactly invariant).",
    )
    heads: int | None = option(
        None,
        "--heads",
        min=1,
        model="n_head",
        help="Attention heads, in place of the size's (the width must divide by them).",
    )
    embed_scaling: str | None = option(
        None,
        "--embed-scaling",
        choices=_registry(EMBED_SCALINGS),
        model="embed_scaling",
        help="sqrtd: the token vectors the blocks read are multiplied by the square root of the width (not a tied "
        "output's rows); none: as they are (default: sqrtd for dualpart, none for the others).",
    )
    norm_position: str = option(
        _model_default("norm_position"),
        "--norm-position",
        choices=_registry(NORM_POSITIONS),
        model="norm_position",
        help="pre: LayerNorm before each sublayer and after the last block; post: after each residual add "
        "(fairseq's post-LN blocks), no final one.",
    )
    random_draw: str = option(
        _model_default("random_draw"),
        "--random-draw",
        choices=_registry(RANDOM_DRAW),
        model="random_draw",
        help="ltl, copy, lm with dualpart or lexinvariant: training draws a table of random vectors per sequence, "
        "or one per batch (the interchangeable-token paper's code).",
    )
    random_vectors: str | None = option(
        None,
        "--random-vectors",
        choices=_registry(RANDOM_VECTORS),
        model="random_vectors",
        help="With --arch lexinvariant (not --lexinvariant-p): unit, the lexinvariant paper's Gaussian vectors, "
        "read at unit variance (a learned scale from 1, and a bias) and written through E/sqrt(width) as "
        "T5's tied read-out; small: read and written at a learned scale from 0.02 (default: small; the paper's "
        "unit vectors trained worse at equal steps, docs/models.md).",
    )
    pool_size: int | None = option(
        None,
        "--pool-size",
        min=1,
        model="pool_size",
        help="ltl, copy: the first N interchangeable names of the task's pool (APs a-z; symbols a-z A-Z) in the "
        "vocabulary, augmented's renaming targets (default: all).",
    )
    positions: str | None = option(
        None,
        "--positions",
        choices=_registry(POSITIONS),
        model="positions",
        help="Positions, in place of the architecture's: absolute, none, line (reset at each line, SPE), tree "
        "(ltl), rotary (lm).",
    )
    symmetry_heads: str = option(
        _model_default("symmetry_heads"),
        "--symmetry-heads",
        choices=_registry(SYMMETRY_HEADS),
        model="symmetry_heads",
        help="With the SPE symmetry mask: the SPE paper's split of the heads (the mask, its transpose, none: 6/3/3 "
        "of 12), or the mask on all of them (its Table 3 ablation).",
    )
    #: set from Python only, so it has no flags
    overrides: Mapping[str, Any] | None = field(
        default=None,
        metadata={"help": "Any field of the model's config, after the model options: e.g. {\"d_model\": 64}."},
    )

    def __post_init__(self) -> None:
        for name in ("data", "out"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, os.fspath(getattr(self, name)))
        if self.overrides is not None:
            object.__setattr__(self, "overrides", dict(self.overrides))
        self._check_run()
        for f in option_fields(type(self)):
            check_field(f, getattr(self, f.name), type(self), registry=False)

    def _check_run(self) -> None:
        """The run's own checks, with the messages training always gave
        (before the fields' bounds: these say more)."""
        if self.epochs < 1 or self.batch_size < 1:
            raise UsageError("--epochs and --batch-size must be at least 1")
        if self.patience is not None and self.patience < 1:
            raise UsageError(
                f"--patience {self.patience}: give at least 1 epoch, or leave it out to train every epoch",
                path="--patience",
            )
        if self.schedule not in SCHEDULES:
            raise UsageError(f"--schedule {self.schedule}: choose from {', '.join(SCHEDULES)}", path="--schedule")
        if self.plateau is not None and self.plateau < 1:
            raise UsageError(f"--plateau {self.plateau}: give at least 1 epoch", path="--plateau")
        if self.schedule != "plateau" and self.plateau is not None:
            raise UsageError(
                f"--plateau {self.plateau} applies to --schedule plateau, not {self.schedule}", path="--plateau"
            )
        if self.schedule == "plateau" and self.patience is not None and self.patience <= self.plateau_epochs:
            raise UsageError(
                f"--patience {self.patience} with --plateau {self.plateau_epochs}: the run would stop before "
                "the learning rate ever halved; give a patience above the plateau",
                path="--patience",
            )
        if self.time_limit is not None and self.time_limit < 0:
            raise UsageError(
                f"--time-limit {self.time_limit}: give a number of seconds, at least 0", path="--time-limit"
            )
        if self.precision not in PRECISIONS:
            raise UsageError(f"--precision {self.precision}: choose from {', '.join(PRECISIONS)}", path="--precision")

    # -------------------------------------------------------------- derived
    @property
    def plateau_epochs(self) -> int:
        """The epochs without improvement per halving under ``--schedule
        plateau``: ``plateau``, or its default when not given."""
        return _PLATEAU if self.plateau is None else self.plateau

    @property
    def betas(self) -> tuple[float, float]:
        """AdamW's betas."""
        return self.beta1, self.beta2

    def model_fields(self) -> dict[str, Any]:
        """The :class:`ModelConfig` fields this run sets beyond the
        architecture's preset: each model option not at its default, then
        ``overrides``."""
        chosen = {
            f.metadata["model"]: getattr(self, f.name)
            for f in option_fields(type(self))
            if f.metadata["model"] and getattr(self, f.name) != f.default
        }
        return {**chosen, **(self.overrides or {})}

    # ------------------------------------------------------------ JSON form
    def as_dict(self) -> dict[str, Any]:
        """The settings as JSON (what a checkpoint stores as ``train``)."""
        return asdict(self)

    @classmethod
    def stored(cls, data: Mapping[str, Any]) -> "TrainConfig":
        """The config a checkpoint's ``train`` holds (:meth:`as_dict`). A
        config stored when ``--plateau`` defaulted to 5 holds that 5 under
        any schedule; under cosine it meant nothing and is read as not given."""
        data = dict(data)
        if data.get("schedule") != "plateau" and data.get("plateau") == _PLATEAU:
            data["plateau"] = None
        return cls(**data)

    def replace(self, **changes: Any) -> "TrainConfig":
        return type(self)(**{**asdict(self), **changes})

    @classmethod
    def of(cls, config: "TrainConfig | None" = None, **options: Any) -> "TrainConfig":
        """``config`` with ``options`` changed, or a new config of
        ``options`` (keyword names as the long options, ``-`` as ``_``;
        ``betas=(b1, b2)`` stands for ``beta1`` and ``beta2``, as
        ``invar.train`` has always taken them); an unknown name is a UsageError."""
        if "betas" in options:
            options["beta1"], options["beta2"] = options.pop("betas")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise UsageError(
                f"no training setting {', '.join(map(repr, unknown))} (settings: {', '.join(sorted(known))})"
            )
        if config is None:
            return cls(**options)
        return config.replace(**options) if options else config


__all__ = [
    "option",
    "option_fields",
    "field_types",
    "choices_of",
    "check_field",
    "TrainConfig",
    "PRECISIONS",
    "SCHEDULES",
    "Precision",
    "Schedule",
    "TRAINABLE_TASKS",
]
