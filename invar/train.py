"""Training: a task's dataset × an architecture -> a checkpoint.

    invar.train(task="bhive", data="bhive-haswell", arch="renamer", size="tiny",
                epochs=10, out="renamer.pt")

The data are encoded once and cached beside the dataset (``DIR/cache``), so
an epoch never parses. AdamW (β 0.9/0.999, weight decay 0.01), batches of 64,
programs of at most 128 tokens (longer ones are skipped and counted), the
task's loss, a linear warm-up then cosine decay of the learning rate, and
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
AdamW's ``weight_decay`` and ``betas`` are arguments (the
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

Sequence tasks (``ltl``, ``copy``) train an encoder-decoder with teacher
forcing and the network's own loss (cross-entropy, or AdaCos); their pairs
are parsed and encoded in memory (no disk cache), the vocabulary holds every
text of the training split, the decoder's ``<bos>``/``<eos>`` and, for every
architecture but ``vanilla``, the task's pool of interchangeable names
(its first ``pool_size``, a config field, when that is set);
``augmented`` renames each pair into that pool each time it is drawn.
Validation writes the validation split greedily and reports the task's
metric and the teacher-forced loss.

A language model (``lm``) trains on its windows with the network's own
loss (next-token cross-entropy) and validates by perplexity over every
predicted position of the validation split; ``max_len`` defaults to the
dataset's sequence length.

Precision (``precision``): ``fp32`` (the default) computes everything in
float32. ``tf32`` lets CUDA's matrix products and convolutions round their
inputs to TensorFloat-32 for the run (tensor cores; on a CPU it changes
nothing). ``bf16`` runs each training step's forward pass and loss under
bfloat16 autocast, on a GPU or a CPU; the weights, the optimiser,
validation and the checkpoint stay float32.

The module holds the data as training reads them (:func:`prepare_data`,
:func:`prepare_pairs`), the epochs' batches and learning rate, and the loop.
:func:`train` reads as its steps: set-up (arguments, processes, splits,
model, optimiser), resume, then each epoch (its steps, validation, the best
checkpoint, the training state) and the end (the draw of random embeddings,
the process group left); a ``_Run`` carries the state between them.

Layer train/audit/alta: it imports errors, program, symmetry, frontends,
encoding, tasks, data, nn, checkpoint and interrupts; never audit, alta or
cli.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import torch

from .checkpoint import load as load_checkpoint, load_model, model_payload, save as save_checkpoint
from .encoding import (Encoded, Vocab, add_pool, add_specials, encode, load_encoded, renamed, renaming_space_of,
                       save_encoded, vocab_counts)
from .errors import DataError, InvarError, ModelError, UsageError
from .nn.config import ModelConfig, architectures, preset
from .nn.model import Model, build_network, to_device
from .processes import callable_module, torchrun_place
from .tasks import Example, Task, get_task

#: the precisions training computes in (see the module docstring)
PRECISIONS = ("fp32", "tf32", "bf16")

#: share of the steps spent warming the learning rate up (at most WARMUP_MAX steps)
WARMUP_FRACTION = 0.05
WARMUP_MAX = 1000
#: learning-rate schedules: cosine decay over the epoch cap, or halving on plateaus of the validation metric
SCHEDULES = ("cosine", "plateau")
#: vocabulary: texts seen fewer times in the training split become <unk:VIEW>
MIN_COUNT = 2
#: programs per bucket when batching by length
BUCKET_BATCHES = 50


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
    return [seq[i: i + size] for i in range(0, len(seq), size)]


def prepare_data(task: Task, data: str | os.PathLike, *, limit: int | None = None, jobs: int = 1,
                 cache: bool = True, splits: Sequence[str] = ("train", "valid"),
                 progress: Callable | None = None,
                 raw_labels: bool = False) -> tuple[Vocab, dict[str, tuple[list[Encoded], np.ndarray]]]:
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
    vocab = _training_vocab(task, examples[train_split], cache_dir / f"vocab-{stamp[train_split]}.json",
                            jobs=jobs, cache=cache, progress=progress)
    out = {}
    for s in splits:
        path = cache_dir / f"{s}-{stamp[s]}-{vocab.fingerprint()}.npz"
        labels = ([ex.label for ex in examples[s]] if raw_labels
                  else np.asarray([ex.label for ex in examples[s]], dtype=np.float64))
        out[s] = (_encoded_split(task, examples[s], s, vocab, path, jobs=jobs, cache=cache, progress=progress), labels)
    return vocab, out


def _training_vocab(task: Task, examples: Sequence[Example], path: Path, *, jobs: int, cache: bool,
                    progress: Callable | None) -> Vocab:
    """The vocabulary of the training programs (texts seen fewer than
    MIN_COUNT times are unknown), from the cache ``path`` when it holds it."""
    vocab = _read_json_vocab(path) if cache else None
    if vocab is not None:
        return vocab
    if progress:
        progress("encode", split="vocabulary", n=len(examples))
    parts = _map(_counts_worker, [(task.name, c) for c in _chunks(examples, jobs)], jobs)
    counts = parts[0]
    for p in parts[1:]:
        counts.update(p)
    vocab = Vocab.from_counts(counts, min_count=MIN_COUNT)
    if cache:
        _try_write(path, lambda p: p.write_text(json.dumps(vocab.to_dict())))
    return vocab


def _encoded_split(task: Task, examples: Sequence[Example], split: str, vocab: Vocab, path: Path, *, jobs: int,
                   cache: bool, progress: Callable | None) -> list[Encoded]:
    """The programs of ``split`` encoded, from the cache ``path`` when it holds them."""
    if cache and path.exists():
        try:
            return load_encoded(path)[0]
        except (ValueError, OSError, KeyError):
            pass
    if progress:
        progress("encode", split=split, n=len(examples))
    parts = _map(_encode_worker, [(task.name, c, vocab.to_dict()) for c in _chunks(examples, jobs)], jobs)
    encoded = [e for part in parts for e in part]
    if cache:
        _try_write(path, lambda p: save_encoded(p, encoded))
    return encoded


def prepare_pairs(task: Task, data: str | os.PathLike, *, arch: str, tree: bool = False, limit: int | None = None,
                  splits: Sequence[str] = ("train", "valid"), progress: Callable | None = None,
                  canonical: bool = False, pool_size: int = 0) -> tuple[Vocab, dict[str, tuple[list[Encoded], list]]]:
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
            progress("encode", split=s, n=len(examples[s]))
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


def pool_of(task: Task, pool_size: int = 0) -> Sequence[str]:
    """The interchangeable names a model of ``task`` holds beyond its
    training data's: the task's pool, or its first ``pool_size`` (0: all)."""
    return task.pool[: pool_size or None]


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
        bucket = order[start: start + span]
        bucket = bucket[np.argsort(lengths[bucket], kind="stable")]
        batches += [bucket[i: i + batch_size] for i in range(0, len(bucket), batch_size)]
    batches = [b for b in batches if len(b) >= world]
    return [batches[i] for i in rng.permutation(len(batches))]


def _lr(step: int, total: int, base: float, schedule: str = "cosine", halvings: int = 0,
        epoch_steps: int = 0) -> float:
    """The learning rate at ``step`` of ``total``: a linear warm-up, then
    cosine decay to a tenth of ``base`` (``cosine``; the warm-up is 5 % of
    ``total``), or ``base`` halved ``halvings`` times (``plateau``; the
    warm-up is the first epoch of ``epoch_steps``, so the cap changes nothing).
    Both warm-ups last at most WARMUP_MAX steps."""
    if schedule == "plateau":
        warmup = max(1, min(WARMUP_MAX, epoch_steps))
        return base * 0.5 ** halvings * min(1.0, (step + 1) / warmup)
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
    *,
    task: str = "bhive",
    data: str | os.PathLike,
    arch: str,
    size: str = "tiny",
    epochs: int = 10,
    out: str | os.PathLike,
    batch_size: int = 64,
    max_len: int | None = None,
    lr: float = 5e-4,
    weight_decay: float = 0.01,
    betas: tuple[float, float] = (0.9, 0.999),
    seed: int = 0,
    device: str = "cpu",
    limit: int | None = None,
    resume: bool = False,
    threads: int | None = None,
    save_every: int = 0,
    jobs: int | None = None,
    patience: int | None = None,
    schedule: str = "cosine",
    plateau: int = 5,
    precision: str = "fp32",
    time_limit: float | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: Callable[..., None] | None = None,
) -> TrainResult:
    """Train ``arch`` at ``size`` on ``task``'s dataset in ``data`` and write
    the best epoch to ``out`` (see the module docstring). ``overrides`` sets
    any :class:`~invar.nn.config.ModelConfig` field. ``patience`` stops the
    run once that many epochs have passed without a better validation metric
    (early stopping; ``epochs`` is then a cap). ``schedule`` is ``cosine`` or
    ``plateau`` (halve after ``plateau`` epochs without a better metric). ``time_limit``: stop after the
    first epoch that ends that many seconds after the start. ``max_len`` defaults to 128
    tokens, and for ``lm`` to the dataset's sequence length. ``progress(event, **info)``
    hears about encoding, steps, epochs and an early stop (process 0 only)."""
    max_len = max_len if max_len is not None else _default_max_len(task, data)
    args = _Args(task=task, data=data, arch=arch, size=size, epochs=epochs, out=out, batch_size=batch_size,
                 max_len=max_len, lr=lr, weight_decay=weight_decay, betas=betas, seed=seed, device=device,
                 limit=limit, resume=resume, threads=threads, save_every=save_every, jobs=jobs, patience=patience,
                 schedule=schedule, plateau=plateau, precision=precision, time_limit=time_limit,
                 overrides=overrides)
    the_task = get_task(task)
    config = _config(the_task, args)
    _check_arguments(args)
    procs = _join_processes(device)
    torch.set_num_threads(threads or _threads_per_process(procs.world))
    report = progress if (progress and procs.rank == 0) else _silent
    config, splits = _read_splits(the_task, config, args, report)
    run = _set_up(args, the_task, config, splits, procs, report)
    if procs.rank == 0:
        _remove_temporaries(run)
    if resume and run.state_path.exists():
        _resume(run)
    run.ddp = _parallel(run.model.network, procs)
    report("start", n_train=len(splits.train), n_valid=len(splits.valid), too_long=splits.too_long, epochs=epochs,
           steps=run.steps_per_epoch, start_epoch=run.start_epoch, config=config, world=procs.world)
    stopped_at = stopped_by = None
    started = time.monotonic()
    with _matmul_precision(precision):
        for epoch in range(run.start_epoch, epochs):
            stopped_by = _stop_reason(run, epoch, time.monotonic() - started)
            if stopped_by:
                stopped_at = epoch
                report("stop", epoch=epoch, best_epoch=run.best_epoch, patience=patience, reason=stopped_by,
                       time_limit=time_limit)
                break
            _epoch(run, epoch)
    _finish(run)
    _leave_processes(procs)
    return TrainResult(out=str(out), arch=arch, size=size, task=task, metric_name=the_task.metric_name,
                       best_metric=run.best, best_epoch=run.best_epoch, epochs=epochs, n_train=len(splits.train),
                       n_valid=len(splits.valid), too_long=splits.too_long, history=run.history,
                       resumed_from=run.resumed_from, steps_per_epoch=run.steps_per_epoch, patience=patience,
                       stopped_at=stopped_at, schedule=schedule, halvings=_halvings(run, upto=-1),
                       stopped_by=stopped_by)


@dataclass(frozen=True)
class _Args:
    """:func:`train`'s arguments, as its steps read them."""

    task: str
    data: str | os.PathLike
    arch: str
    size: str
    epochs: int
    out: str | os.PathLike
    batch_size: int
    max_len: int
    lr: float
    weight_decay: float
    betas: tuple[float, float]
    seed: int
    device: str
    limit: int | None
    resume: bool
    threads: int | None
    save_every: int
    jobs: int | None
    patience: int | None
    schedule: str
    plateau: int
    precision: str
    time_limit: float | None
    overrides: Mapping[str, Any] | None


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

    args: _Args
    task: Task
    procs: _Processes
    splits: _Splits
    model: Model
    opt: torch.optim.Optimizer
    #: what a saved training state must match to resume
    settings: dict
    state_path: Path
    report: Callable[..., None]
    #: the training programs' lengths, which the epochs' batches are bucketed by
    lengths: np.ndarray
    steps_per_epoch: int
    #: the training split's targets as a tensor (None for sequence tasks, whose targets are in the batch)
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
def _config(the_task: Task, args: _Args) -> ModelConfig:
    """The architecture's preset at its size, with the task's fields and the caller's overrides."""
    task_fields = dict(the_task.arch_config(args.arch)) if the_task.arch_config is not None else {}
    try:
        return preset(args.arch, args.size, max_len=args.max_len, head=the_task.head, n_labels=the_task.n_labels,
                      seed=args.seed, **{**task_fields, **dict(args.overrides or {})})
    except ValueError as err:
        raise ModelError(str(err), path="--arch" if "architecture" in str(err) else "--size" if "size" in str(err) else None)


def _check_arguments(args: _Args) -> None:
    """Usage errors that the model's config does not catch."""
    if args.epochs < 1 or args.batch_size < 1:
        raise UsageError("--epochs and --batch-size must be at least 1")
    if args.patience is not None and args.patience < 1:
        raise UsageError(f"--patience {args.patience}: give at least 1 epoch, or leave it out to train every epoch",
                         path="--patience")
    if args.schedule not in SCHEDULES:
        raise UsageError(f"--schedule {args.schedule}: choose from {', '.join(SCHEDULES)}", path="--schedule")
    if args.plateau < 1:
        raise UsageError(f"--plateau {args.plateau}: give at least 1 epoch", path="--plateau")
    if args.schedule == "plateau" and args.patience is not None and args.patience <= args.plateau:
        raise UsageError(f"--patience {args.patience} with --plateau {args.plateau}: the run would stop before "
                         "the learning rate ever halved; give a patience above the plateau", path="--patience")
    if args.time_limit is not None and args.time_limit < 0:
        raise UsageError(f"--time-limit {args.time_limit}: give a number of seconds, at least 0", path="--time-limit")
    if args.precision not in PRECISIONS:
        raise UsageError(f"--precision {args.precision}: choose from {', '.join(PRECISIONS)}", path="--precision")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
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


def _read_splits(the_task: Task, config: ModelConfig, args: _Args, report: Callable) -> tuple[ModelConfig, _Splits]:
    """The splits encoded and cut to ``max_len``, and the config completed
    by them: the vocabulary, the dataset's labels and, for a sequence task,
    the longest output."""
    if config.generates:
        if config.pool_size > len(the_task.pool):
            raise ModelError(f"pool_size={config.pool_size}: the {the_task.name} task's pool holds "
                             f"{len(the_task.pool)} names", path="--pool-size")
        vocab, splits = prepare_pairs(the_task, args.data, arch=args.arch, tree=config.positions == "tree",
                                      limit=args.limit, progress=report, canonical=config.canonicalize,
                                      pool_size=config.pool_size)
    else:
        vocab, splits = prepare_data(the_task, args.data, limit=args.limit, jobs=args.jobs or 1, progress=report,
                                     raw_labels=the_task.labels_of is not None or config.head == "lm")
    label_names = None
    if the_task.labels_of is not None:  # the dataset names the labels
        label_names = list(the_task.labels_of(args.data))
        config = replace(config, n_labels=len(label_names))
    config = config.with_vocab(vocab)
    try:
        config.validate()
    except ValueError as err:
        raise ModelError(f"bad model config: {err}")
    kept = _fitting(splits, vocab, label_names, config.generates, args)
    if config.generates and not config.max_output:
        longest = max(len(e) - int((e.lines == 0).sum()) for e in kept.train) + 1
        config = replace(config, max_output=min(args.max_len, 2 * longest))
    return config, kept


def _fitting(splits: dict, vocab: Vocab, label_names: list[str] | None, sequences: bool, args: _Args) -> _Splits:
    """The training and validation programs that fit in ``max_len`` tokens, and how many did not."""
    (train_enc, train_y), (valid_enc, valid_y) = splits["train"], splits["valid"]
    fits = _pair_fits if sequences else (lambda e, n: 0 < len(e) <= n)
    keep_t = [i for i, e in enumerate(train_enc) if fits(e, args.max_len)]
    keep_v = [i for i, e in enumerate(valid_enc) if fits(e, args.max_len)]
    if not keep_t or not keep_v:
        raise DataError(f"no program of at most {args.max_len} tokens in the training or validation split",
                        path=str(args.data))
    return _Splits(vocab=vocab, train=[train_enc[i] for i in keep_t], train_y=_take(train_y, keep_t),
                   valid=[valid_enc[i] for i in keep_v], valid_y=_take(valid_y, keep_v),
                   too_long=len(train_enc) - len(keep_t) + len(valid_enc) - len(keep_v), label_names=label_names)


def _set_up(args: _Args, the_task: Task, config: ModelConfig, splits: _Splits, procs: _Processes,
            report: Callable) -> _Run:
    """A new run: the model at its seeded initial weights on its device,
    its optimiser, and the epochs' length."""
    random.seed(args.seed)
    np.random.seed(args.seed % (1 << 32))
    torch.manual_seed(args.seed)
    model = _new_model(args.task, the_task, config, splits)
    model.network.to(procs.dev)
    settings = {"task": args.task, "data": [f"{len(splits.train)}", splits.vocab.fingerprint()],
                "batch_size": args.batch_size, "seed": args.seed, "lr": args.lr, "weight_decay": args.weight_decay,
                "betas": list(args.betas), "max_len": args.max_len, "world": procs.world}
    if args.schedule != "cosine":  # a state saved under another schedule does not resume under this one
        settings["schedule"] = [args.schedule, args.plateau]
    lengths = np.asarray([len(e) for e in splits.train])
    return _Run(args=args, task=the_task, procs=procs, splits=splits, model=model,
                opt=_optimiser(model.network, args), settings=settings, state_path=resume_path(args.out),
                report=report, lengths=lengths,
                steps_per_epoch=len(_batches(lengths, args.batch_size, args.seed, 0, procs.world)),
                targets=_targets(the_task, splits, config.computes_loss),
                best=math.inf if the_task.lower_is_better else -math.inf)


def _new_model(task: str, the_task: Task, config: ModelConfig, splits: _Splits) -> Model:
    """A model of freshly drawn weights whose output starts where the labels
    are: at their median (regression), each label at its frequency (multi-label)."""
    model = Model(task, config, splits.vocab, build_network(config, splits.vocab, task), labels=splits.label_names,
                  languages=sorted({e.lang for e in splits.train}))
    net = model.network
    if the_task.head == "regression":
        net.head.init_output(float(np.median(splits.train_y)))
    elif the_task.targets is not None and the_task.head == "multilabel":
        net.head.init_prior(torch.as_tensor(the_task.targets(splits.train_y, splits.label_names)).mean(dim=0))
    return model


def _optimiser(net: torch.nn.Module, args: _Args) -> torch.optim.Optimizer:
    """AdamW; biases and norms (parameters of fewer than 2 dimensions) without weight decay."""
    decay = [p for n, p in net.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in net.named_parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=args.betas)


def _remove_temporaries(run: _Run) -> None:
    """What a killed run left beside the checkpoint and the training state."""
    from .files import remove_temporaries

    for path in (run.args.out, run.state_path):
        remove_temporaries(path)


def _parallel(net: torch.nn.Module, procs: _Processes) -> torch.nn.Module:
    """The network as the steps call it: under torchrun, wrapped so that the gradients are averaged."""
    if procs.world == 1:
        return net
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(net, device_ids=[procs.dev.index] if procs.dev.type == "cuda" else None)


def _targets(the_task: Task, splits: _Splits, in_batches: bool) -> torch.Tensor | None:
    """The training labels as the task's loss takes them (a sequence task's targets are in its batches)."""
    if in_batches:  # a sequence task's or a language model's targets are in its batches
        return None
    if the_task.targets is not None:
        return torch.as_tensor(the_task.targets(splits.train_y, splits.label_names), dtype=torch.float32)
    return torch.as_tensor(splits.train_y, dtype=torch.float32)


# ------------------------------------------------------------------ resume
def _resume(run: _Run) -> None:
    """Continue from the saved training state: weights, optimiser, position
    in the epochs, history, best epoch, and the resumed epoch's losses so far."""
    state = load_checkpoint(run.state_path, kind="resume")
    if _saved_config(state.get("config")) != run.model.config.to_dict() or state.get("settings") != run.settings:
        raise ModelError("the saved training state is for other settings (architecture, data, seed, batch size or "
                         "learning-rate schedule); "
                         "train without --resume to start again", path=str(run.state_path))
    run.model.network.load_state_dict(state["state_dict"])
    run.opt.load_state_dict(state["optimizer"])
    run.start_epoch, run.start_step = int(state["epoch"]), int(state["step"])
    run.history, run.best, run.best_epoch = list(state["history"]), float(state["best"]), int(state["best_epoch"])
    run.resumed_from = (run.start_epoch, run.start_step)
    saved_losses = state.get("epoch_losses")
    if isinstance(saved_losses, list) and len(saved_losses) == run.start_step:
        run.resumed_losses = [float(x) for x in saved_losses]
    run.report("resume", epoch=run.start_epoch, step=run.start_step)


def _save_state(run: _Run, epoch: int, step: int, epoch_losses: list[float]) -> None:
    """The training state at ``step`` of ``epoch``, for ``resume`` (process 0 writes it)."""
    if run.procs.rank != 0:
        return
    net = run.model.network
    save_checkpoint(run.state_path, {
        "epoch_losses": list(epoch_losses),
        "kind": "resume", "task": run.args.task, "config": run.model.config.to_dict(),
        "vocab": run.splits.vocab.to_dict(),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "optimizer": run.opt.state_dict(), "epoch": epoch, "step": step, "history": run.history,
        "best": run.best, "best_epoch": run.best_epoch, "settings": run.settings,
    })


# ------------------------------------------------------------------- epochs
def _epoch(run: _Run, epoch: int) -> None:
    """One epoch: its steps, validation, the checkpoint if it is the best
    so far, and the training state."""
    batches = _batches(run.lengths, run.args.batch_size, run.args.seed, epoch, run.procs.world)
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
    run.report("epoch", epoch=epoch + 1, epochs=run.args.epochs, train_loss=entry["train_loss"], metric=metric,
               lr=entry["lr"],
               best=run.best, best_epoch=run.best_epoch, improved=improved, seconds=seconds,
               resumed_at=first or None, loss_steps=entry.get("train_loss_steps"), steps=len(batches))


def _train_steps(run: _Run, epoch: int, batches: list[np.ndarray], first: int) -> list[float]:
    """The epoch's steps from ``first`` on, saving the training state every
    ``save_every`` steps; the losses of the epoch's steps."""
    run.model.network.train()
    losses = list(run.resumed_losses or []) if first else []
    save_every = run.args.save_every
    for step in range(first, len(batches)):
        losses.append(_step(run, epoch, step, batches[step]))
        run.report("step", epoch=epoch, step=step + 1, steps=len(batches), loss=losses[-1])
        if save_every and (step + 1) % save_every == 0 and step + 1 < len(batches):
            _save_state(run, epoch, step + 1, losses)
    return losses


def _step(run: _Run, epoch: int, step: int, batch_indices: np.ndarray) -> float:
    """One optimiser step on this process's share of the batch (dropout and
    random embeddings seeded by the step); its loss."""
    args, procs, net = run.args, run.procs, run.model.network
    idx = batch_indices[procs.rank::procs.world]
    torch.manual_seed(_mix(args.seed, epoch, step, procs.rank))
    batch = to_device(run.model.collate(_batch_programs(run, epoch, idx)), procs.dev)
    lr = _lr(epoch * run.steps_per_epoch + step, run.steps_per_epoch * args.epochs, args.lr, args.schedule,
             _halvings(run), run.steps_per_epoch)
    for group in run.opt.param_groups:
        group["lr"] = lr
    with _autocast(args.precision, procs.dev):
        if run.model.config.computes_loss:
            loss = net.loss(run.ddp(batch), batch)
        else:
            out = run.ddp(batch)
            out = out.float() if torch.is_tensor(out) else out
            loss = run.task.loss(out, run.targets[torch.as_tensor(idx)].to(procs.dev))
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
    """The training programs ``idx``, each renamed at random (seeded by the
    epoch and the program) for an ``augmented`` model."""
    items = [run.splits.train[i] for i in idx]
    config, vocab, seed = run.model.config, run.splits.vocab, run.args.seed
    pool = pool_of(run.task, config.pool_size)
    if config.augment and config.generates and pool:
        return [_augment_into(e, vocab, pool, _mix(seed, epoch, int(i))) for e, i in zip(items, idx)]
    if config.augment:
        return [_augment(e, vocab, _mix(seed, epoch, int(i))) for e, i in zip(items, idx)]
    return items


def _validate(run: _Run) -> tuple[float, float | None]:
    """The task's metric on the validation split, and for a sequence task the teacher-forced loss."""
    splits, procs = run.splits, run.procs
    if run.model.config.head == "lm":
        return _lm_validate(run.model, splits.valid, procs.dev, procs.rank, procs.world)
    if run.model.config.generates:
        return _evaluate_pairs(run.model, splits.valid, splits.valid_y, run.task, procs.dev, procs.rank, procs.world)
    return _evaluate(run.model, splits.valid, splits.valid_y, run.task, procs.dev, procs.rank, procs.world), None


def _halvings(run: _Run, upto: int | None = None) -> int:
    """The ``plateau`` schedule's halvings after the first ``upto`` epochs
    (default: all so far); 0 under ``cosine``."""
    if run.args.schedule != "plateau":
        return 0
    key = f"valid_{run.task.metric_name}"
    return plateau_halvings([h[key] for h in run.history[:upto]], run.args.plateau, run.task.lower_is_better)


def _stop_reason(run: _Run, epoch: int, seconds: float) -> str | None:
    """Why the run stops before ``epoch`` (``patience`` or ``time_limit``),
    or None; a call trains at least one epoch whatever its time limit."""
    if _out_of_patience(run):
        return "patience"
    limit = run.args.time_limit
    if limit is not None and epoch > run.start_epoch and seconds >= limit:
        return "time_limit"
    return None


def _out_of_patience(run: _Run) -> bool:
    """Whether ``patience`` epochs have passed since the best one (a resumed
    run that had already stopped stops again at once)."""
    patience = run.args.patience
    return bool(patience and run.history and run.history[-1]["epoch"] - run.best_epoch >= patience)


def _record(run: _Run, epoch: int, metric: float, valid_loss: float | None, losses: list[float], seconds: float,
            first: int, steps: int) -> bool:
    """The epoch in the history, and whether it is the best so far (the first epoch always is)."""
    lower = run.task.lower_is_better
    improved = run.best_epoch == 0 or (metric < run.best if lower else metric > run.best)
    if improved:
        run.best, run.best_epoch = metric, epoch + 1
    entry = {"epoch": epoch + 1, "train_loss": float(np.mean(losses)) if losses else None,
             f"valid_{run.task.metric_name}": metric, "lr": run.opt.param_groups[0]["lr"],
             "seconds": round(seconds, 3)}
    if first and run.resumed_losses is None:  # the steps before the resume are not in train_loss
        entry["train_loss_steps"] = [first + 1, steps]
    if valid_loss is not None:
        entry["valid_loss"] = valid_loss
    run.history.append(entry)
    return improved


def _save_best(run: _Run) -> None:
    """The checkpoint ``out``: the model with its metrics and how it was trained."""
    args = run.args
    metrics = _metrics(run.task, run.best, run.best_epoch, run.history, len(run.splits.train))
    save_checkpoint(args.out, model_payload(
        run.model, metrics, train=dict(run.settings, arch=args.arch, size=args.size, epochs=args.epochs)))


# --------------------------------------------------------------------- end
def _finish(run: _Run) -> None:
    """Process 0's last word: a run resumed after its last epoch is an error
    (it kept nothing new); random embeddings choose their draw."""
    if run.procs.rank != 0:
        return
    if not Path(run.args.out).exists():
        raise ModelError("the saved training state has no epoch left; raise --epochs to train on",
                         path=str(run.state_path))
    if run.model.config.generates and run.model.config.random_draws > 1:
        _choose_draw(run.args.out, run.splits.valid, run.procs.dev, run.report)


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


def _metrics(task: Task, best: float, best_epoch: int, history: list, n_train: int) -> dict:
    return {f"valid_{task.metric_name}": best, "best_epoch": best_epoch, "history": history, "n_train": n_train}


def _pair_fits(enc: Encoded, max_len: int) -> bool:
    """A pair whose source and target (with ``<eos>``) fit in ``max_len`` tokens."""
    source = int((enc.lines == 0).sum())
    return 0 < source <= max_len and len(enc) - source + 1 <= max_len


def _take(labels, keep: list[int]):
    return labels[keep] if isinstance(labels, np.ndarray) else [labels[i] for i in keep]


def _augment_into(enc: Encoded, vocab: Vocab, pool: Sequence[str], seed: int) -> Encoded:
    """``enc`` under a uniformly drawn injective map of its renamable names
    into ``pool`` (the ``augmented`` baseline of sequence tasks)."""
    names = [vocab.referents[r] for r in enc.rename_refs]
    if not names or len(names) > len(pool):
        return enc
    targets = random.Random(seed).sample(list(pool), len(names))
    return renamed(enc, dict(zip(names, targets)), vocab)


def _augment(enc: Encoded, vocab: Vocab, seed: int) -> Encoded:
    """``enc`` under a uniformly sampled renaming (the ``augmented`` baseline)."""
    if not len(enc.rename_refs):
        return enc
    space = renaming_space_of(enc, vocab)
    if space.count() == 0:
        return enc
    return renamed(enc, space.sample(1, random.Random(seed))[0], vocab)


@torch.no_grad()
def _evaluate(model: Model, encoded: list[Encoded], labels: np.ndarray, task: Task, dev, rank: int, world: int) -> float:
    """The task's metric on ``encoded``; each process scores its share and
    the shares are combined."""
    mine = list(range(rank, len(encoded), world))
    preds = model.predict_encoded([encoded[i] for i in mine], batch_size=256, device=str(dev)) if mine else []
    if world == 1:
        return task.metric(preds, _take(labels, mine))
    import torch.distributed as dist

    gathered: list = [None] * world
    dist.all_gather_object(gathered, (mine, preds))
    all_preds: list = [None] * len(encoded)
    for idx, p in gathered:
        for i, y in zip(idx, p):
            all_preds[i] = y
    return task.metric(all_preds if isinstance(labels, list) else np.asarray(all_preds, dtype=np.float64), labels)


@torch.no_grad()
def _pair_loss(model: Model, encoded: list[Encoded], dev, batch_size: int = 256) -> float:
    """The teacher-forced loss over ``encoded``, averaged over target tokens."""
    net = model.network
    was = net.training
    net.eval()
    total = tokens = 0.0
    try:
        for lo in range(0, len(encoded), batch_size):
            batch = to_device(model.collate(encoded[lo: lo + batch_size]), dev)
            n = float((batch["dec_out"] > 0).sum())
            total += float(net.loss(net(batch), batch)) * n
            tokens += n
    finally:
        net.train(was)
    return total / tokens if tokens else float("nan")


@torch.no_grad()
def _evaluate_pairs(model: Model, encoded: list[Encoded], labels: list, task: Task, dev, rank: int,
                    world: int) -> tuple[float, float]:
    """(the task's metric of greedy predictions, the teacher-forced loss) on
    the validation split; each process takes its share."""
    mine = list(range(rank, len(encoded), world))
    items = [encoded[i] for i in mine]
    preds = model.predict_encoded(items, batch_size=256, device=str(dev), beam=1) if mine else []
    loss = _pair_loss(model, items, dev) if mine else float("nan")
    if world == 1:
        return task.metric(preds, [labels[i] for i in mine]), loss
    import torch.distributed as dist

    gathered: list = [None] * world
    dist.all_gather_object(gathered, (mine, preds, loss))
    all_preds: list = [None] * len(encoded)
    for idx, p, _ in gathered:
        for i, y in zip(idx, p):
            all_preds[i] = y
    losses = [x for _, _, x in gathered if not math.isnan(x)]
    return task.metric(all_preds, labels), float(np.mean(losses)) if losses else float("nan")


# --------------------------------------------------------- language models
def _default_max_len(task: str, data) -> int:
    """128 tokens; a language model's windows: its dataset's sequence length."""
    if task != "lm":
        return 128
    from .tasks.lm import meta_of

    return int(meta_of(data)["seq_len"])


@torch.no_grad()
def _lm_validate(model: Model, encoded: list[Encoded], dev, rank: int, world: int) -> tuple[float, float]:
    """(perplexity, mean loss) over every predicted position of ``encoded``;
    each process takes its share."""
    from .nn.lm import position_losses

    mine = [encoded[i] for i in range(rank, len(encoded), world)]
    losses = position_losses(model.network, mine, batch_size=64, device=dev)
    total, count = float(sum(x.sum() for x in losses)), float(sum(len(x) for x in losses))
    if world > 1:
        import torch.distributed as dist

        both = torch.tensor([total, count], dtype=torch.float64, device=dev)
        dist.all_reduce(both)
        total, count = float(both[0]), float(both[1])
    loss = total / count if count else float("nan")
    return math.exp(loss), loss


def _saved_config(saved) -> dict | None:
    """A saved config with the fields added since it was written at what
    they meant then (:meth:`ModelConfig.from_dict`), so a state saved before
    them still resumes (and one whose model a new default would change does
    not: a dual-part state from before ``embed_scaling``)."""
    try:
        return ModelConfig.from_dict(saved).to_dict()
    except (TypeError, ValueError):
        return None


def _choose_draw(out: str | os.PathLike, valid_enc: list[Encoded], dev, report) -> None:
    """The interchangeable-token paper's heuristic for random embeddings:
    try the tables of ``random_draws`` seeds on the validation split and keep
    the one of median loss; the checkpoint then names its seed."""
    model = load_model(out)
    model.network.to(dev)
    config = model.config
    seeds = [config.seed + k for k in range(config.random_draws)]
    losses = []
    for s in seeds:
        model.network.encoder.embed.reseed(s)
        losses.append(_pair_loss(model, valid_enc, dev))
    order = sorted(range(len(seeds)), key=lambda k: (losses[k], seeds[k]))
    chosen = seeds[order[(len(order) - 1) // 2]]
    model.network.encoder.embed.reseed(chosen)
    model.config = replace(config, seed=chosen)
    model.metrics["random_draws"] = {"seeds": seeds, "valid_losses": losses, "chosen": chosen}
    data = load_checkpoint(out)
    save_checkpoint(out, model_payload(model, train=data.get("train")))
    report("draws", seeds=seeds, losses=losses, chosen=chosen)


__all__ = ["train", "TrainResult", "prepare_data", "prepare_pairs", "pool_of", "resume_path", "PRECISIONS"]

callable_module(__name__, train)
