"""Training: a task's dataset × an architecture -> a checkpoint.

    invar.train(task="bhive", data="bhive-haswell", arch="renamer", size="tiny",
                epochs=10, out="renamer.pt")

A run is one value, :class:`~invar.config.TrainConfig`: every setting
declared once (type, default, flags, help), checked when it is made.
``train(config)`` takes it, ``train(**settings)`` makes it (``betas=(b1,
b2)`` standing for ``beta1`` and ``beta2``), ``invar train`` builds its
options from its fields, and the checkpoint stores it (``train``).

The data are encoded once and cached beside the dataset (``DIR/cache``), so
an epoch never parses. AdamW (β 0.9/0.999, weight decay 0.01), batches of 64,
programs of at most 128 tokens (longer ones are skipped and counted), the
model's loss, a linear warm-up then cosine decay of the learning rate, and
validation after every epoch; the best epoch's weights are the checkpoint
``out``. ``schedule="plateau"`` warms up over the first epoch instead, keeps
the learning rate at its peak and halves it each time ``plateau`` epochs in
a row bring no better validation metric (reduce on plateau; a pure function
of the validation history, so a resumed run continues exactly). With
``patience``, a run stops early once that many epochs in a row bring no
better validation metric (``epochs`` is then a cap; the cosine schedule
still spans the cap, so a stopped run is the same run as an unstopped one
up to its stop; without ``patience`` the cosine runs to its end, a tenth of
the peak, as the lexinvariant paper's schedule does). ``time_limit`` (seconds) stops a run after
the first epoch that ends past it, for studies given a wall-clock budget
(its stop depends on the machine's speed, its steps until then do not).
AdamW's ``weight_decay`` and ``beta1``/``beta2`` are settings (the
interchangeable-token paper's authors: 0.1 and (0.9, 0.95)). The training state (weights, optimizer, position in the
epoch) goes to ``<out stem>.resume.pt`` after every epoch and every ``save_every`` steps,
and ``resume=True`` continues from it. A state saved mid-epoch keeps the
losses of the epoch's steps so far, so the resumed epoch's training loss is
the whole epoch's, as if never interrupted (a state without them, saved by
an older invar, gives the loss of the resumed steps only, and says so).
Temporary files that a killed run left beside ``out`` and its state are
removed when a run starts.

Determinism: every random choice derives from ``seed``: the initial weights,
the order of each epoch, and (re-seeded at every step) dropout, random
embeddings and augmentation. So the same seed gives the same weights on the
same platform, and a resumed run continues exactly as the uninterrupted run
would have.

Several processes: under ``torchrun --nproc-per-node N -m invar train …``
each process takes every N-th program of each batch; DistributedDataParallel
averages the gradients (gloo on CPU, nccl on GPU) and process 0 writes.

The kind of model the task's head calls for (:mod:`invar.nn.model`: a
pooled encoder, an encoder-decoder, a causal language model) says how its
data are read, which programs fit, its loss and its validation; the loop
never asks which kind it trains. Sequence tasks (``ltl``, ``copy``) train an
encoder-decoder: their pairs are parsed and encoded in memory (no disk
cache), the vocabulary holds every text of the training split, the
decoder's ``<bos>``/``<eos>`` and, for every architecture but ``vanilla``,
the task's pool of interchangeable names (its first ``pool_size``, a config
field, when that is set). A language model (``lm``) trains on its windows
and validates by perplexity; ``max_len`` defaults to the dataset's sequence
length.

Precision (``precision``): ``fp32`` (the default) computes everything in
float32. ``tf32`` lets CUDA's matrix products and convolutions round their
inputs to TensorFloat-32 for the run (tensor cores; on a CPU it changes
nothing). ``bf16`` runs each training step's forward pass and loss under
bfloat16 autocast, on a GPU or a CPU; the weights, the optimiser,
validation and the checkpoint stay float32.

The module holds the data as training reads them (:func:`prepare_data`,
:func:`prepare_pairs`), the epochs' batches and learning rate, and the loop.
:func:`train` reads as its steps: set-up (the config, processes, splits,
model, optimiser), resume, then each epoch (its steps, validation, the best
checkpoint, the training state) and the end (the draw of random embeddings,
the process group left); a ``_Run`` carries the state between them.

Layer train/audit/alta: it imports errors, program, symmetry, frontends,
encoding, tasks, data, nn, checkpoint, config and interrupts; never audit,
alta or cli.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import random
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import torch

from .checkpoint import load as load_checkpoint, load_model, model_payload, save as save_checkpoint
from .config import PRECISIONS, SCHEDULES, TrainConfig, option_fields
from .encoding import Encoded, Vocab, add_pool, add_specials, encode, load_encoded, save_encoded, vocab_counts
from .errors import DataError, InvarError, ModelError, UsageError
from .nn.adamw import AdamW
from .nn.config import DECODING_FIELDS, ModelConfig, architectures, preset
from .nn.encoder_decoder import augment_into, pool_of
from .nn.model import Model, kind_of, to_device
from .nn.wrapper import augment, checked, take
from .processes import callable_module, torchrun_place
from .tasks import Example, Task, get_task

#: share of the steps spent warming the learning rate up (at most WARMUP_MAX steps)
WARMUP_FRACTION = 0.05
WARMUP_MAX = 1000
#: vocabulary: texts seen fewer times in the training split become <unk:VIEW>
MIN_COUNT = 2
#: programs per bucket when batching by length
BUCKET_BATCHES = 50
#: the names bench/bench_train.py and the tests import the augmentations by
_augment, _augment_into = augment, augment_into


@dataclass
class TrainResult:
    out: str
    arch: str
    size: str
    task: str
    metric_name: str
    best_metric: float
    best_epoch: int
    epochs: int
    n_train: int
    n_valid: int
    #: programs longer than max_len, left out of training and validation
    too_long: int
    history: list = field(default_factory=list)
    resumed_from: tuple | None = None
    #: optimiser steps in an epoch (this process's, the same in every epoch)
    steps_per_epoch: int = 0
    #: early stopping: the epochs without improvement that end a run (None: off)
    patience: int | None = None
    #: the last epoch trained when the patience ran out before ``epochs``, else None
    stopped_at: int | None = None
    schedule: str = "cosine"
    #: the learning rate's halvings that the last epoch trained with (``plateau`` schedule; 0 for cosine)
    halvings: int = 0
    #: what ended the run before ``epochs``: ``patience`` or ``time_limit`` (None: it ran every epoch)
    stopped_by: str | None = None


# ------------------------------------------------------------------------ data
def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def _parse_all(task: Task, examples: Sequence[Example]):
    """Programs of ``examples``; a stored program invar cannot read is a data error."""
    out = []
    for ex in examples:
        try:
            out.append(task.parse(ex.source))
        except InvarError as err:
            raise DataError(f"cannot read the stored program: {err.message}", path=ex.path, line=ex.line, col=1)
    return out


def _counts_worker(args):
    task_name, examples = args
    return vocab_counts(_parse_all(get_task(task_name), examples))


def _encode_worker(args):
    task_name, examples, vocab_dict = args
    vocab, task = Vocab.from_dict(vocab_dict), get_task(task_name)
    return [encode(p, vocab, canonical=_reads_canonical(task.head)) for p in _parse_all(task, examples)]


def _reads_canonical(head: str) -> bool:
    """Whether some architecture for ``head`` reads canonical ids, which the
    cached encodings then hold (none does for a language model)."""
    return any(preset(arch, head=head).canonicalize for arch in architectures(head))


def _map(fn, items: list, jobs: int) -> list:
    if jobs <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    from .interrupts import pool as worker_pool

    with worker_pool(min(jobs, len(items)), method="spawn") as pool:
        return pool.map(fn, items)


def _chunks(seq: Sequence, n: int) -> list:
    size = max(1, math.ceil(len(seq) / n))
    return [seq[i : i + size] for i in range(0, len(seq), size)]


def prepare_data(
    task: Task,
    data: str | os.PathLike,
    *,
    limit: int | None = None,
    jobs: int = 1,
    cache: bool = True,
    splits: Sequence[str] = ("train", "valid"),
    progress: Callable | None = None,
    raw_labels: bool = False,
) -> tuple[Vocab, dict[str, tuple[list[Encoded], np.ndarray]]]:
    """The vocabulary (from the training split) and every split encoded, from
    the cache under ``DIR/cache`` when it holds them. With ``limit``, the
    first ``limit`` training programs and a quarter as many of the others.
    Labels are a float array, or with ``raw_labels`` a list of the labels as
    read (a task that makes its own targets)."""
    data = Path(data)
    examples = {s: task.read_split(data, s) for s in splits}
    if limit is not None:
        examples = {s: ex[: (limit if s == task.splits[0] else max(1, limit // 4))] for s, ex in examples.items()}
    train_split = task.splits[0]
    if not examples[train_split]:
        raise DataError(f"the {train_split} split is empty", path=str(data / f"{train_split}.csv"))
    for s in splits[1:]:
        if not examples[s]:
            raise DataError(f"the {s} split is empty", path=str(data / f"{s}.csv"))
    cache_dir = data / "cache"
    stamp = {s: f"{_hash_file(data / f'{s}.csv')}-{len(examples[s])}" for s in splits}
    vocab = _training_vocab(
        task,
        examples[train_split],
        cache_dir / f"vocab-{stamp[train_split]}.json",
        jobs=jobs,
        cache=cache,
        progress=progress,
    )
    out = {}
    for s in splits:
        path = cache_dir / f"{s}-{stamp[s]}-{vocab.fingerprint()}.npz"
        labels = (
            [ex.label for ex in examples[s]]
            if raw_labels
            else np.asarray([ex.label for ex in examples[s]], dtype=np.float64)
        )
        out[s] = (_encoded_split(task, examples[s], s, vocab, path, jobs=jobs, cache=cache, progress=progress), labels)
    return vocab, out


def _training_vocab(
    task: Task, examples: Sequence[Example], path: Path, *, jobs: int, cache: bool, progress: Callable | None
) -> Vocab:
    """The vocabulary of the training programs (texts seen fewer than
    MIN_COUNT times are unknown), from the cache ``path`` when it holds it."""
    vocab = _read_json_vocab(path) if cache else None
    if vocab is not None:
        return vocab
    if progress:
        progress("encode", split="vocabulary", n=len(examples), cached=cache)
    parts = _map(_counts_worker, [(task.name, c) for c in _chunks(examples, jobs)], jobs)
    counts = parts[0]
    for p in parts[1:]:
        counts.update(p)
    vocab = Vocab.from_counts(counts, min_count=MIN_COUNT)
    if cache:
        _try_write(path, lambda p: p.write_text(json.dumps(vocab.to_dict())))
    return vocab


def _encoded_split(
    task: Task,
    examples: Sequence[Example],
    split: str,
    vocab: Vocab,
    path: Path,
    *,
    jobs: int,
    cache: bool,
    progress: Callable | None,
) -> list[Encoded]:
    """The programs of ``split`` encoded, from the cache ``path`` when it holds them."""
    if cache and path.exists():
        try:
            return load_encoded(path)[0]
        except (ValueError, OSError, KeyError):
            pass
    if progress:
        progress("encode", split=split, n=len(examples), cached=cache)
    parts = _map(_encode_worker, [(task.name, c, vocab.to_dict()) for c in _chunks(examples, jobs)], jobs)
    encoded = [e for part in parts for e in part]
    if cache:
        _try_write(path, lambda p: save_encoded(p, encoded))
    return encoded


def prepare_pairs(
    task: Task,
    data: str | os.PathLike,
    *,
    arch: str,
    tree: bool = False,
    limit: int | None = None,
    splits: Sequence[str] = ("train", "valid"),
    progress: Callable | None = None,
    canonical: bool = False,
    pool_size: int = 0,
) -> tuple[Vocab, dict[str, tuple[list[Encoded], list]]]:
    """A sequence task's vocabulary and splits (encodings and labels),
    parsed and encoded in memory; ``tree``: with tree paths; ``canonical``:
    with canonical ids (a canonicalized model's vocabulary holds the pool, its
    canonical names); ``pool_size``: the vocabulary holds the pool's first
    names only (0: all). With ``limit``, the first ``limit`` training pairs and
    a quarter as many of the others."""
    examples = {s: task.read_split(data, s) for s in splits}
    if limit is not None:
        examples = {s: ex[: (limit if s == splits[0] else max(1, limit // 4))] for s, ex in examples.items()}
    for s in splits:
        if not examples[s]:
            raise DataError(f"the {s} split is empty", path=str(data))
    programs = {}
    for s in splits:
        if progress:
            progress("encode", split=s, n=len(examples[s]), cached=False)
        parsed = _parse_all(task, examples[s])
        programs[s] = [task.prepare(p) for p in parsed] if task.prepare is not None else parsed
    counts = add_specials(vocab_counts(programs[splits[0]]))
    if (arch != "vanilla" or canonical) and task.pool:
        add_pool(counts, pool_of(task, pool_size), task.pool_view)
    vocab = Vocab.from_counts(counts, min_count=1)
    out = {}
    for s in splits:
        encoded = [encode(p, vocab, canonical=canonical) for p in programs[s]]
        if tree and task.tree is not None:
            encoded = [replace(e, tree=task.tree(p)) for e, p in zip(encoded, programs[s])]
        out[s] = (encoded, [ex.label for ex in examples[s]])
    return vocab, out


def _read_json_vocab(path: Path) -> Vocab | None:
    try:
        return Vocab.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError):
        return None


def _try_write(path: Path, write: Callable[[Path], None]) -> None:
    """Cache writes are best effort: a read-only dataset still trains."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    except OSError:
        pass


# -------------------------------------------------------------- distribution
def _mix(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little") & ((1 << 63) - 1)


def _batches(lengths: np.ndarray, batch_size: int, seed: int, epoch: int, world: int) -> list[np.ndarray]:
    """The epoch's batches: a seeded shuffle, cut into buckets of similar
    length (less padding), the batches themselves shuffled again."""
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(lengths))
    batches = []
    span = batch_size * BUCKET_BATCHES
    for start in range(0, len(order), span):
        bucket = order[start : start + span]
        bucket = bucket[np.argsort(lengths[bucket], kind="stable")]
        batches += [bucket[i : i + batch_size] for i in range(0, len(bucket), batch_size)]
    batches = [b for b in batches if len(b) >= world]
    return [batches[i] for i in rng.permutation(len(batches))]


def _lr(step: int, total: int, base: float, schedule: str = "cosine", halvings: int = 0, epoch_steps: int = 0) -> float:
    """The learning rate at ``step`` of ``total``: a linear warm-up, then
    cosine decay to a tenth of ``base`` (``cosine``; the warm-up is 5 % of
    ``total``), or ``base`` halved ``halvings`` times (``plateau``; the
    warm-up is the first epoch of ``epoch_steps``, so the cap changes nothing).
    Both warm-ups last at most WARMUP_MAX steps."""
    if schedule == "plateau":
        warmup = max(1, min(WARMUP_MAX, epoch_steps))
        return base * 0.5**halvings * min(1.0, (step + 1) / warmup)
    warmup = max(1, min(WARMUP_MAX, int(WARMUP_FRACTION * total)))
    if step < warmup:
        return base * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return base * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def plateau_halvings(metrics: Sequence[float], plateau: int, lower_is_better: bool) -> int:
    """How often the ``plateau`` schedule has halved the learning rate after
    validation ``metrics`` (one per epoch): once each time ``plateau`` epochs
    in a row bring no better metric than the best so far, counting afresh
    after each halving and each better epoch (the first epoch is always better)."""
    best, since, halvings = None, 0, 0
    for metric in metrics:
        if best is None or (metric < best if lower_is_better else metric > best):
            best, since = metric, 0
            continue
        since += 1
        if since >= plateau:
            halvings, since = halvings + 1, 0
    return halvings


def resume_path(out: str | os.PathLike) -> Path:
    out = Path(out)
    return out.with_name(out.stem + ".resume.pt")


# ------------------------------------------------------------------- training
def train(
    config: TrainConfig | None = None, /, *, progress: Callable[..., None] | None = None, **settings: Any
) -> TrainResult:
    """Train ``config.arch`` at ``config.size`` on the task's dataset in
    ``config.data`` and write the best epoch to ``config.out`` (see the module
    docstring; every setting: :class:`~invar.config.TrainConfig`).
    ``settings`` make the config, or change the one given (``betas=(b1,
    b2)`` stands for ``beta1`` and ``beta2``). ``progress(event, **info)``
    hears about encoding, steps, epochs and an early stop (process 0 only)."""
    config = TrainConfig.of(config, **settings)
    the_task = get_task(config.task)
    _check_dataset_task(config)
    kind = kind_of(the_task.head)
    if config.max_len is None:  # the kind's default (a language model's: its dataset's windows)
        config = config.replace(max_len=kind.default_max_len(config.data))
    model_config = _model_config(the_task, config)
    _check_device(config.device)
    procs = _join_processes(config.device)
    torch.set_num_threads(config.threads or _threads_per_process(procs.world))
    report = progress if (progress and procs.rank == 0) else _silent
    model_config, splits = _read_splits(the_task, kind, model_config, config, report)
    run = _set_up(config, the_task, model_config, splits, procs, report)
    if procs.rank == 0:
        _remove_temporaries(run)
    if config.resume and run.state_path.exists():
        _resume(run)
    elif config.resume:  # nothing to resume from: said, not started afresh unsaid
        report("fresh", path=str(run.state_path))
    run.ddp = _parallel(run.model.network, procs)
    report(
        "start",
        n_train=len(splits.train),
        n_valid=len(splits.valid),
        too_long=splits.too_long,
        epochs=config.epochs,
        steps=run.steps_per_epoch,
        start_epoch=run.start_epoch,
        config=model_config,
        world=procs.world,
    )
    stopped_at, stopped_by = _epochs(run)
    _finish(run)
    _leave_processes(procs)
    return TrainResult(
        out=config.out,
        arch=config.arch,
        size=config.size,
        task=config.task,
        metric_name=the_task.metric_name,
        best_metric=run.best,
        best_epoch=run.best_epoch,
        epochs=config.epochs,
        n_train=len(splits.train),
        n_valid=len(splits.valid),
        too_long=splits.too_long,
        history=run.history,
        resumed_from=run.resumed_from,
        steps_per_epoch=run.steps_per_epoch,
        patience=config.patience,
        stopped_at=stopped_at,
        schedule=config.schedule,
        halvings=_halvings(run, upto=-1),
        stopped_by=stopped_by,
    )


@dataclass(frozen=True)
class _Processes:
    """The processes that train together: torchrun's, or this one alone."""

    rank: int
    world: int
    #: where this process trains (``cuda:LOCAL_RANK`` under torchrun on GPUs)
    dev: torch.device
    #: this run started the process group, so it ends it
    owns_group: bool


@dataclass(frozen=True)
class _Splits:
    """The training and validation splits, encoded, without the programs longer than ``max_len``."""

    vocab: Vocab
    train: list[Encoded]
    #: a float array, or the labels as read for a task that makes its own targets
    train_y: Any
    valid: list[Encoded]
    valid_y: Any
    #: programs left out of both splits for their length
    too_long: int
    #: the labels the dataset names (multi-label tasks), else None
    label_names: list[str] | None


@dataclass
class _Run:
    """A training run's state, handed from step to step."""

    config: TrainConfig
    task: Task
    procs: _Processes
    splits: _Splits
    model: Model
    opt: AdamW
    #: what a saved training state must match to resume (:func:`_must_match`)
    settings: dict
    state_path: Path
    report: Callable[..., None]
    #: the training programs' lengths, which the epochs' batches are bucketed by
    lengths: np.ndarray
    steps_per_epoch: int
    #: the training split's targets as the model's loss takes them (None: they are in the batches)
    targets: torch.Tensor | None
    #: the network as a step calls it (wrapped by DistributedDataParallel under torchrun), once resumed
    ddp: torch.nn.Module | None = None
    start_epoch: int = 0
    start_step: int = 0
    #: the losses of the resumed epoch's steps before the resume, when the saved state holds them
    resumed_losses: list[float] | None = None
    resumed_from: tuple | None = None
    history: list = field(default_factory=list)
    best: float = math.nan
    best_epoch: int = 0


def _silent(*args: Any, **kwargs: Any) -> None:
    pass


# ------------------------------------------------------------------ set-up
def _model_config(the_task: Task, config: TrainConfig) -> ModelConfig:
    """The architecture's preset at its size, with the task's fields and the run's model fields."""
    task_fields = dict(the_task.arch_config(config.arch)) if the_task.arch_config is not None else {}
    try:
        return preset(
            config.arch,
            config.size,
            max_len=config.max_len,
            head=the_task.head,
            n_labels=the_task.n_labels,
            seed=config.seed,
            **{**task_fields, **config.model_fields()},
        )
    except ValueError as err:  # the options do not make a model: a usage error, at the option it names
        message, path = _at_option(str(err))
        raise UsageError(message, path=path) from None


#: words of a model config's refusal that no option's ``model`` field names -> the option it is about
_NAMED_BY = {"architecture": "--arch", "size": "--size"}


def _at_option(message: str) -> tuple[str, str | None]:
    """A model config's refusal in the words of ``invar train``: each model
    field it names spelt as the option that sets it, and the first option it
    names as the place of the error."""
    flags = {  # field names with an underscore: "positions" is also a word of the messages
        f.metadata["model"]: f.metadata["flags"][0].split("/")[0]
        for f in option_fields(TrainConfig)
        if "_" in (f.metadata["model"] or "")
    }
    named = (flags.get(m.group()) or _NAMED_BY.get(m.group()) for m in re.finditer(r"\w+", message))
    spelt = re.sub(r"\w+", lambda m: flags.get(m.group(), m.group()), message)
    return spelt, next((n for n in named if n), None)


def _check_device(device: str) -> None:
    """A CUDA device must be there (a config names one; the machine has it or not)."""
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available", path="--device")


def _join_processes(device: str) -> _Processes:
    """This process's place among torchrun's (joining their group, gloo on
    CPU, nccl on GPU) and the device it trains on."""
    rank, world, local_rank = torchrun_place()
    owns_group = False
    if world > 1:
        import torch.distributed as dist

        backend = "nccl" if device.startswith("cuda") else "gloo"
        if not dist.is_initialized():
            dist.init_process_group(backend)
            owns_group = True
        if device.startswith("cuda"):
            device = f"cuda:{local_rank}"
    return _Processes(rank=rank, world=world, dev=torch.device(device), owns_group=owns_group)


def _threads_per_process(world: int) -> int:
    """The machine's cores shared among the processes on it."""
    return max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", world)))


def _read_programs(
    the_task: Task, kind: type[Model], model_config: ModelConfig, config: TrainConfig, report: Callable
) -> tuple[Vocab, dict]:
    """Programs (a pooled encoder's, a language model's windows), encoded once and cached on disk."""
    return prepare_data(
        the_task,
        config.data,
        limit=config.limit,
        jobs=config.jobs or 1,
        progress=report,
        raw_labels=the_task.labels_of is not None or kind.targets_in_batch,
    )


def _read_pairs(
    the_task: Task, kind: type[Model], model_config: ModelConfig, config: TrainConfig, report: Callable
) -> tuple[Vocab, dict]:
    """An encoder-decoder's pairs, with the task's pool in the vocabulary, encoded in memory."""
    if model_config.pool_size > len(the_task.pool):
        raise ModelError(
            f"pool_size={model_config.pool_size}: the {the_task.name} task's pool holds {len(the_task.pool)} names",
            path="--pool-size",
        )
    return prepare_pairs(
        the_task,
        config.data,
        arch=config.arch,
        tree=model_config.positions == "tree",
        limit=config.limit,
        progress=report,
        canonical=model_config.canonicalize,
        pool_size=model_config.pool_size,
    )


#: what a kind of model reads (:attr:`Model.reads`) -> how its splits are read
_READERS = {"programs": _read_programs, "pairs": _read_pairs}


def _check_dataset_task(config: TrainConfig) -> None:
    """A dataset ``invar data`` wrote for another task is refused by its
    manifest, before its files are misread as this task's rows."""
    from .data import manifest

    found = manifest.read(config.data) if Path(config.data).is_dir() else None
    if found is not None and found.task != config.task:
        raise DataError(
            f"is a {found.task} dataset, not a {config.task} one: train it with --task {found.task}",
            path=str(config.data),
        )


def _read_splits(
    the_task: Task, kind: type[Model], model_config: ModelConfig, config: TrainConfig, report: Callable
) -> tuple[ModelConfig, _Splits]:
    """The splits encoded and cut to ``max_len``, and the model's config
    completed by them: the vocabulary, the dataset's labels and what the
    kind takes from its training split (an encoder-decoder's longest output)."""
    vocab, splits = _READERS[kind.reads](the_task, kind, model_config, config, report)
    label_names = None
    if the_task.labels_of is not None:  # the dataset names the labels
        label_names = list(the_task.labels_of(config.data))
        model_config = replace(model_config, n_labels=len(label_names))
    model_config = checked(model_config.with_vocab(vocab))
    kept = _fitting(splits, vocab, label_names, kind.fits_training, config)
    return kind.completed(model_config, kept.train), kept


def _fitting(
    splits: dict, vocab: Vocab, label_names: list[str] | None, fits: Callable[[Encoded, int], bool], config: TrainConfig
) -> _Splits:
    """The training and validation programs that ``fits`` in ``max_len`` tokens, and how many did not."""
    (train_enc, train_y), (valid_enc, valid_y) = splits["train"], splits["valid"]
    keep_t = [i for i, e in enumerate(train_enc) if fits(e, config.max_len)]
    keep_v = [i for i, e in enumerate(valid_enc) if fits(e, config.max_len)]
    if not keep_t or not keep_v:
        raise DataError(
            f"no program of at most {config.max_len} tokens in the training or validation split", path=config.data
        )
    return _Splits(
        vocab=vocab,
        train=[train_enc[i] for i in keep_t],
        train_y=take(train_y, keep_t),
        valid=[valid_enc[i] for i in keep_v],
        valid_y=take(valid_y, keep_v),
        too_long=len(train_enc) - len(keep_t) + len(valid_enc) - len(keep_v),
        label_names=label_names,
    )


def _set_up(
    config: TrainConfig, the_task: Task, model_config: ModelConfig, splits: _Splits, procs: _Processes, report: Callable
) -> _Run:
    """A new run: the model at its seeded initial weights on its device,
    its output started where the labels are, its optimiser, and the epochs' length."""
    random.seed(config.seed)
    np.random.seed(config.seed % (1 << 32))
    torch.manual_seed(config.seed)
    model = Model(
        config.task,
        model_config,
        splits.vocab,
        labels=splits.label_names,
        languages=sorted({e.lang for e in splits.train}),
    )
    model.init_output(splits.train_y, splits.label_names)
    model.network.to(procs.dev)
    lengths = np.asarray([len(e) for e in splits.train])
    return _Run(
        config=config,
        task=the_task,
        procs=procs,
        splits=splits,
        model=model,
        opt=_optimiser(model.network, config),
        settings=_must_match(config, splits, procs),
        state_path=resume_path(config.out),
        report=report,
        lengths=lengths,
        steps_per_epoch=len(_batches(lengths, config.batch_size, config.seed, 0, procs.world)),
        targets=model.targets(splits.train_y, splits.label_names),
        best=math.inf if the_task.lower_is_better else -math.inf,
    )


def _must_match(config: TrainConfig, splits: _Splits, procs: _Processes) -> dict:
    """What a saved training state must match to resume: the data (as
    encoded), the processes, and the settings a step depends on, in the form
    states have always been saved in (a state saved by an older invar
    resumes). The schedule only when it is not the cosine one (a state saved
    before the schedule existed was a cosine one)."""
    settings = {
        "task": config.task,
        "data": [f"{len(splits.train)}", splits.vocab.fingerprint()],
        "batch_size": config.batch_size,
        "seed": config.seed,
        "lr": config.lr,
        "weight_decay": config.weight_decay,
        "betas": list(config.betas),
        "max_len": config.max_len,
        "world": procs.world,
    }
    if config.schedule != "cosine":
        settings["schedule"] = [config.schedule, config.plateau_epochs]
    return settings


def _optimiser(net: torch.nn.Module, config: TrainConfig) -> AdamW:
    """AdamW (invar's: torch's arithmetic, see `invar.nn.adamw`); biases and
    norms (parameters of fewer than 2 dimensions) without weight decay."""
    decay = [p for n, p in net.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in net.named_parameters() if p.dim() < 2]
    return AdamW(
        [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=config.lr,
        betas=config.betas,
    )


def _remove_temporaries(run: _Run) -> None:
    """What a killed run left beside the checkpoint and the training state."""
    from .files import remove_temporaries

    for path in (run.config.out, run.state_path):
        remove_temporaries(path)


def _parallel(net: torch.nn.Module, procs: _Processes) -> torch.nn.Module:
    """The network as the steps call it: under torchrun, wrapped so that the gradients are averaged."""
    if procs.world == 1:
        return net
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(net, device_ids=[procs.dev.index] if procs.dev.type == "cuda" else None)


# ------------------------------------------------------------------ resume
def _resume(run: _Run) -> None:
    """Continue from the saved training state: weights, optimiser, position
    in the epochs, history, best epoch, and the resumed epoch's losses so far."""
    state = load_checkpoint(run.state_path, kind="resume")
    if (
        _trained(_saved_config(state.get("config"))) != _trained(run.model.config.to_dict())
        or state.get("settings") != run.settings
    ):
        raise ModelError(
            "the saved training state is for other settings (architecture, data, seed, batch size or "
            "learning-rate schedule); "
            "train without --resume to start again",
            path=str(run.state_path),
        )
    run.model.network.load_state_dict(state["state_dict"])
    run.opt.load_state_dict(state["optimizer"])
    run.start_epoch, run.start_step = int(state["epoch"]), int(state["step"])
    run.history, run.best, run.best_epoch = list(state["history"]), float(state["best"]), int(state["best_epoch"])
    run.resumed_from = (run.start_epoch, run.start_step)
    saved_losses = state.get("epoch_losses")
    if isinstance(saved_losses, list) and len(saved_losses) == run.start_step:
        run.resumed_losses = [float(x) for x in saved_losses]
    run.report("resume", epoch=run.start_epoch, step=run.start_step)


def _trained(config: dict | None) -> dict | None:
    """A config's fields that training reads (not how the model decodes)."""
    return None if config is None else {k: v for k, v in config.items() if k not in DECODING_FIELDS}


def _saved_config(saved) -> dict | None:
    """A saved config with the fields added since it was written at what
    they meant then (:meth:`ModelConfig.from_dict`), so a state saved before
    them still resumes (and one whose model a new default would change does
    not: a dual-part state from before ``embed_scaling``)."""
    try:
        return ModelConfig.from_dict(saved).to_dict()
    except (TypeError, ValueError):
        return None


def _save_state(run: _Run, epoch: int, step: int, epoch_losses: list[float]) -> None:
    """The training state at ``step`` of ``epoch``, for ``resume`` (process 0 writes it)."""
    if run.procs.rank != 0:
        return
    net = run.model.network
    save_checkpoint(
        run.state_path,
        {
            "epoch_losses": list(epoch_losses),
            "kind": "resume",
            "task": run.config.task,
            "config": run.model.config.to_dict(),
            "vocab": run.splits.vocab.to_dict(),
            "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
            "optimizer": run.opt.state_dict(),
            "epoch": epoch,
            "step": step,
            "history": run.history,
            "best": run.best,
            "best_epoch": run.best_epoch,
            "settings": run.settings,
            "train": run.config.as_dict(),
        },
    )


# ------------------------------------------------------------------- epochs
def _epochs(run: _Run) -> tuple[int | None, str | None]:
    """Every epoch from the resumed one to the cap, unless the run stops
    first: (the epoch it stopped before, why), or (None, None)."""
    config = run.config
    started = time.monotonic()
    with _matmul_precision(config.precision):
        for epoch in range(run.start_epoch, config.epochs):
            reason = _stop_reason(run, epoch, time.monotonic() - started)
            if reason:
                run.report(
                    "stop",
                    epoch=epoch,
                    best_epoch=run.best_epoch,
                    patience=config.patience,
                    reason=reason,
                    time_limit=config.time_limit,
                )
                return epoch, reason
            _epoch(run, epoch)
    return None, None


def _epoch(run: _Run, epoch: int) -> None:
    """One epoch: its steps, validation, the checkpoint if it is the best
    so far, and the training state."""
    batches = _batches(run.lengths, run.config.batch_size, run.config.seed, epoch, run.procs.world)
    first = run.start_step if epoch == run.start_epoch else 0
    t0 = time.perf_counter()
    losses = _train_steps(run, epoch, batches, first)
    metric, valid_loss = _validate(run)
    seconds = time.perf_counter() - t0
    improved = _record(run, epoch, metric, valid_loss, losses, seconds, first, len(batches))
    if improved and run.procs.rank == 0:
        _save_best(run)
    _save_state(run, epoch + 1, 0, [])
    entry = run.history[-1]
    run.report(
        "epoch",
        epoch=epoch + 1,
        epochs=run.config.epochs,
        train_loss=entry["train_loss"],
        metric=metric,
        lr=entry["lr"],
        best=run.best,
        best_epoch=run.best_epoch,
        improved=improved,
        seconds=seconds,
        resumed_at=first or None,
        loss_steps=entry.get("train_loss_steps"),
        steps=len(batches),
    )


def _train_steps(run: _Run, epoch: int, batches: list[np.ndarray], first: int) -> list[float]:
    """The epoch's steps from ``first`` on, saving the training state every
    ``save_every`` steps; the losses of the epoch's steps."""
    run.model.network.train()
    losses = list(run.resumed_losses or []) if first else []
    save_every = run.config.save_every
    for step in range(first, len(batches)):
        losses.append(_step(run, epoch, step, batches[step]))
        run.report("step", epoch=epoch, step=step + 1, steps=len(batches), loss=losses[-1])
        if save_every and (step + 1) % save_every == 0 and step + 1 < len(batches):
            _save_state(run, epoch, step + 1, losses)
    return losses


def _step(run: _Run, epoch: int, step: int, batch_indices: np.ndarray) -> float:
    """One optimiser step on this process's share of the batch (dropout and
    random embeddings seeded by the step); its loss."""
    config, procs, net = run.config, run.procs, run.model.network
    idx = batch_indices[procs.rank :: procs.world]
    torch.manual_seed(_mix(config.seed, epoch, step, procs.rank))
    batch = to_device(run.model.collate(_batch_programs(run, epoch, idx)), procs.dev)
    lr = _lr(
        epoch * run.steps_per_epoch + step,
        run.steps_per_epoch * config.epochs,
        config.lr,
        config.schedule,
        _halvings(run),
        run.steps_per_epoch,
    )
    for group in run.opt.param_groups:
        group["lr"] = lr
    targets = None if run.targets is None else run.targets[torch.as_tensor(idx)].to(procs.dev)
    with _autocast(config.precision, procs.dev):
        loss = run.model.loss(run.ddp, batch, targets)
    run.opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    run.opt.step()
    return float(loss.detach())


def _autocast(precision: str, dev: torch.device) -> contextlib.AbstractContextManager:
    """bfloat16 autocast on ``dev`` for ``bf16``; nothing otherwise."""
    if precision == "bf16":
        return torch.autocast(device_type=dev.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _matmul_precision(precision: str) -> Iterator[None]:
    """TensorFloat-32 matrix products and convolutions on CUDA for ``tf32``,
    for the block; the previous settings after it."""
    if precision != "tf32":
        yield
        return
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def _batch_programs(run: _Run, epoch: int, idx: np.ndarray) -> list[Encoded]:
    """The training programs ``idx`` as the model reads them in this step
    (an ``augmented`` model: each renamed at random, seeded by the epoch and the program)."""
    items = [run.splits.train[i] for i in idx]
    return run.model.augmented(items, lambda k: _mix(run.config.seed, epoch, int(idx[k])))


def _validate(run: _Run) -> tuple[float, float | None]:
    """The task's metric on the validation split, and the model's loss there (a sequence task's, a language model's)."""
    splits, procs = run.splits, run.procs
    return run.model.validate(splits.valid, splits.valid_y, procs.dev, procs.rank, procs.world)


def _halvings(run: _Run, upto: int | None = None) -> int:
    """The ``plateau`` schedule's halvings after the first ``upto`` epochs
    (default: all so far); 0 under ``cosine``."""
    if run.config.schedule != "plateau":
        return 0
    key = f"valid_{run.task.metric_name}"
    return plateau_halvings([h[key] for h in run.history[:upto]], run.config.plateau_epochs, run.task.lower_is_better)


def _stop_reason(run: _Run, epoch: int, seconds: float) -> str | None:
    """Why the run stops before ``epoch`` (``patience`` or ``time_limit``),
    or None; a call trains at least one epoch whatever its time limit."""
    if _out_of_patience(run):
        return "patience"
    limit = run.config.time_limit
    if limit is not None and epoch > run.start_epoch and seconds >= limit:
        return "time_limit"
    return None


def _out_of_patience(run: _Run) -> bool:
    """Whether ``patience`` epochs have passed since the best one (a resumed
    run that had already stopped stops again at once)."""
    patience = run.config.patience
    return bool(patience and run.history and run.history[-1]["epoch"] - run.best_epoch >= patience)


def _record(
    run: _Run,
    epoch: int,
    metric: float,
    valid_loss: float | None,
    losses: list[float],
    seconds: float,
    first: int,
    steps: int,
) -> bool:
    """The epoch in the history, and whether it is the best so far (the first epoch always is)."""
    lower = run.task.lower_is_better
    improved = run.best_epoch == 0 or (metric < run.best if lower else metric > run.best)
    if improved:
        run.best, run.best_epoch = metric, epoch + 1
    entry = {
        "epoch": epoch + 1,
        "train_loss": float(np.mean(losses)) if losses else None,
        f"valid_{run.task.metric_name}": metric,
        "lr": run.opt.param_groups[0]["lr"],
        "seconds": round(seconds, 3),
    }
    if first and run.resumed_losses is None:  # the steps before the resume are not in train_loss
        entry["train_loss_steps"] = [first + 1, steps]
    if valid_loss is not None:
        entry["valid_loss"] = valid_loss
    run.history.append(entry)
    return improved


def _save_best(run: _Run) -> None:
    """The checkpoint ``out``: the model with its metrics and how it was trained (the config)."""
    metrics = _metrics(run.task, run.best, run.best_epoch, run.history, len(run.splits.train))
    save_checkpoint(run.config.out, model_payload(run.model, metrics, train=run.config.as_dict()))


def _metrics(task: Task, best: float, best_epoch: int, history: list, n_train: int) -> dict:
    return {f"valid_{task.metric_name}": best, "best_epoch": best_epoch, "history": history, "n_train": n_train}


# --------------------------------------------------------------------- end
def _finish(run: _Run) -> None:
    """Process 0's last word: a run resumed after its last epoch is an error
    (it kept nothing new); a model of several tables of random vectors keeps one."""
    if run.procs.rank != 0:
        return
    if not Path(run.config.out).exists():
        raise ModelError(
            "the saved training state has no epoch left; raise --epochs to train on", path=str(run.state_path)
        )
    if run.model.config.random_draws > 1:
        _choose_draw(run)


def _choose_draw(run: _Run) -> None:
    """The best epoch's model keeps the table of median validation loss
    (:meth:`~invar.nn.encoder_decoder.EncoderDecoder.choose_draw`); the
    checkpoint then names its seed."""
    out = run.config.out
    model = load_model(out)
    draws = model.choose_draw(run.splits.valid, run.procs.dev)
    save_checkpoint(out, model_payload(model, train=load_checkpoint(out).get("train")))
    run.report("draws", seeds=draws["seeds"], losses=draws["valid_losses"], chosen=draws["chosen"])


def _leave_processes(procs: _Processes) -> None:
    """Wait for every process to finish, and end the process group this run started."""
    if procs.world == 1:
        return
    import torch.distributed as dist

    dist.barrier()
    if procs.owns_group:
        # a process that exits with gloo's threads alive can abort
        # ("terminate called without an active exception")
        dist.destroy_process_group()


__all__ = [
    "train",
    "TrainConfig",
    "TrainResult",
    "prepare_data",
    "prepare_pairs",
    "pool_of",
    "resume_path",
    "PRECISIONS",
    "SCHEDULES",
]

callable_module(__name__, train)
