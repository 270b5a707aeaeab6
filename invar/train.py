"""Training: a task's dataset × an architecture -> a checkpoint.

    invar.train(task="bhive", data="bhive-haswell", arch="renamer", size="tiny",
                epochs=10, out="renamer.pt")

The data are encoded once and cached beside the dataset (``DIR/cache``), so
an epoch never parses. AdamW (β 0.9/0.999, weight decay 0.01), batches of 64,
programs of at most 128 tokens (longer ones are skipped and counted), the
task's loss, a linear warm-up then cosine decay of the learning rate, and
validation after every epoch; the best epoch's weights are the checkpoint
``out``. The training state (weights, optimizer, position in the epoch) goes
to ``<out stem>.resume.pt`` after every epoch and every ``save_every`` steps,
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
architecture but ``vanilla``, the task's pool of interchangeable names;
``augmented`` renames each pair into that pool each time it is drawn.
Validation writes the validation split greedily and reports the task's
metric and the teacher-forced loss.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import torch

from . import checkpoint
from .encoding import (Encoded, Vocab, add_pool, add_specials, encode, load_encoded, renamed, renaming_space_of,
                       save_encoded, vocab_counts)
from .errors import DataError, InvarError, ModelError, UsageError
from .nn.config import ModelConfig, preset
from .nn.model import Model, build_network, to_device
from .tasks import Example, Task, get_task

#: share of the steps spent warming the learning rate up (at most WARMUP_MAX steps)
WARMUP_FRACTION = 0.05
WARMUP_MAX = 1000
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
    vocab = Vocab.from_dict(vocab_dict)
    return [encode(p, vocab, canonical=True) for p in _parse_all(get_task(task_name), examples)]


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
    vocab_path = cache_dir / f"vocab-{stamp[train_split]}.json"
    vocab = _read_json_vocab(vocab_path) if cache else None
    if vocab is None:
        if progress:
            progress("encode", split="vocabulary", n=len(examples[train_split]))
        parts = _map(_counts_worker, [(task.name, c) for c in _chunks(examples[train_split], jobs)], jobs)
        counts = parts[0]
        for p in parts[1:]:
            counts.update(p)
        vocab = Vocab.from_counts(counts, min_count=MIN_COUNT)
        if cache:
            _try_write(vocab_path, lambda p: p.write_text(json.dumps(vocab.to_dict())))
    out = {}
    for s in splits:
        path = cache_dir / f"{s}-{stamp[s]}-{vocab.fingerprint()}.npz"
        labels = ([ex.label for ex in examples[s]] if raw_labels
                  else np.asarray([ex.label for ex in examples[s]], dtype=np.float64))
        encoded = None
        if cache and path.exists():
            try:
                encoded, _ = load_encoded(path)
            except (ValueError, OSError, KeyError):
                encoded = None
        if encoded is None:
            if progress:
                progress("encode", split=s, n=len(examples[s]))
            parts = _map(_encode_worker, [(task.name, c, vocab.to_dict()) for c in _chunks(examples[s], jobs)], jobs)
            encoded = [e for part in parts for e in part]
            if cache:
                _try_write(path, lambda p: save_encoded(p, encoded))
        out[s] = (encoded, labels)
    return vocab, out


def prepare_pairs(task: Task, data: str | os.PathLike, *, arch: str, tree: bool = False, limit: int | None = None,
                  splits: Sequence[str] = ("train", "valid"),
                  progress: Callable | None = None) -> tuple[Vocab, dict[str, tuple[list[Encoded], list]]]:
    """A sequence task's vocabulary and splits (encodings and labels),
    parsed and encoded in memory; ``tree``: with tree paths. With ``limit``,
    the first ``limit`` training pairs and a quarter as many of the others."""
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
    if arch != "vanilla" and task.pool:
        add_pool(counts, task.pool, task.pool_view)
    vocab = Vocab.from_counts(counts, min_count=1)
    out = {}
    for s in splits:
        encoded = [encode(p, vocab) for p in programs[s]]
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
def _dist() -> tuple[int, int, int]:
    """(rank, world size, local rank) from torchrun's environment."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return int(os.environ.get("RANK", "0")), world, int(os.environ.get("LOCAL_RANK", "0"))


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


def _lr(step: int, total: int, base: float) -> float:
    warmup = max(1, min(WARMUP_MAX, int(WARMUP_FRACTION * total)))
    if step < warmup:
        return base * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return base * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


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
    max_len: int = 128,
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
    overrides: Mapping[str, Any] | None = None,
    progress: Callable[..., None] | None = None,
) -> TrainResult:
    """Train ``arch`` at ``size`` on ``task``'s dataset in ``data`` and write
    the best epoch to ``out`` (see the module docstring). ``overrides`` sets
    any :class:`~invar.nn.config.ModelConfig` field. ``progress(event, **info)``
    hears about encoding, steps and epochs (process 0 only)."""
    the_task = get_task(task)
    task_fields = dict(the_task.arch_config(arch)) if the_task.arch_config is not None else {}
    try:
        config = preset(arch, size, max_len=max_len, head=the_task.head, n_labels=the_task.n_labels,
                        seed=seed, **{**task_fields, **dict(overrides or {})})
    except ValueError as err:
        raise ModelError(str(err), path="--arch" if "architecture" in str(err) else "--size" if "size" in str(err) else None)
    if epochs < 1 or batch_size < 1:
        raise UsageError("--epochs and --batch-size must be at least 1")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available", path="--device")

    rank, world, local_rank = _dist()
    distributed = world > 1
    owns_group = False
    if distributed:
        import torch.distributed as dist

        backend = "nccl" if device.startswith("cuda") else "gloo"
        if not dist.is_initialized():
            dist.init_process_group(backend)
            owns_group = True
        if device.startswith("cuda"):
            device = f"cuda:{local_rank}"
    dev = torch.device(device)
    torch.set_num_threads(threads or max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", world))))
    report = progress if (progress and rank == 0) else (lambda *a, **k: None)

    sequences = config.generates
    if sequences:
        vocab, splits = prepare_pairs(the_task, data, arch=arch, tree=config.positions == "tree", limit=limit,
                                      progress=report)
    else:
        vocab, splits = prepare_data(the_task, data, limit=limit, jobs=jobs or 1, progress=report,
                                     raw_labels=the_task.labels_of is not None)
    label_names = None
    if the_task.labels_of is not None:  # the dataset names the labels
        label_names = list(the_task.labels_of(data))
        config = replace(config, n_labels=len(label_names))
    config = config.with_vocab(vocab)
    try:
        config.validate()
    except ValueError as err:
        raise ModelError(f"bad model config: {err}")
    (train_enc, train_y), (valid_enc, valid_y) = splits["train"], splits["valid"]
    fits = _pair_fits if sequences else (lambda e, n: 0 < len(e) <= n)
    keep_t = [i for i, e in enumerate(train_enc) if fits(e, max_len)]
    keep_v = [i for i, e in enumerate(valid_enc) if fits(e, max_len)]
    too_long = len(train_enc) - len(keep_t) + len(valid_enc) - len(keep_v)
    train_enc, train_y = [train_enc[i] for i in keep_t], _take(train_y, keep_t)
    valid_enc, valid_y = [valid_enc[i] for i in keep_v], _take(valid_y, keep_v)
    if not train_enc or not valid_enc:
        raise DataError(f"no program of at most {max_len} tokens in the training or validation split", path=str(data))
    if sequences and not config.max_output:
        longest = max(len(e) - int((e.lines == 0).sum()) for e in train_enc) + 1
        config = replace(config, max_output=min(max_len, 2 * longest))

    random.seed(seed)
    np.random.seed(seed % (1 << 32))
    torch.manual_seed(seed)
    model = Model(task, config, vocab, build_network(config, vocab, task), labels=label_names,
                  languages=sorted({e.lang for e in train_enc}))
    net = model.network
    if the_task.head == "regression":
        net.head.init_output(float(np.median(train_y)))
    elif the_task.targets is not None and the_task.head == "multilabel":  # each label starts at its frequency
        net.head.init_prior(torch.as_tensor(the_task.targets(train_y, label_names)).mean(dim=0))
    net.to(dev)
    decay = [p for n, p in net.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in net.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=betas)
    settings = {"task": task, "data": [f"{len(train_enc)}", vocab.fingerprint()], "batch_size": batch_size,
                "seed": seed, "lr": lr, "weight_decay": weight_decay, "betas": list(betas), "max_len": max_len,
                "world": world}

    lengths = np.asarray([len(e) for e in train_enc])
    steps_per_epoch = len(_batches(lengths, batch_size, seed, 0, world))
    total_steps = steps_per_epoch * epochs
    start_epoch, start_step, history = 0, 0, []
    best = math.inf if the_task.lower_is_better else -math.inf
    best_epoch, resumed_from = 0, None
    state_path = resume_path(out)
    if rank == 0:
        from .data.files import remove_temporaries

        for path in (out, state_path):
            remove_temporaries(path)
    resumed_losses: list[float] | None = None
    if resume and state_path.exists():
        state = checkpoint.load(state_path, kind="resume")
        if _saved_config(state.get("config")) != config.to_dict() or state.get("settings") != settings:
            raise ModelError("the saved training state is for other settings (architecture, data, seed or batch size); "
                             "train without --resume to start again", path=str(state_path))
        net.load_state_dict(state["state_dict"])
        opt.load_state_dict(state["optimizer"])
        start_epoch, start_step = int(state["epoch"]), int(state["step"])
        history, best, best_epoch = list(state["history"]), float(state["best"]), int(state["best_epoch"])
        resumed_from = (start_epoch, start_step)
        saved_losses = state.get("epoch_losses")
        if isinstance(saved_losses, list) and len(saved_losses) == start_step:
            resumed_losses = [float(x) for x in saved_losses]
        report("resume", epoch=start_epoch, step=start_step)

    ddp = net
    if distributed:
        from torch.nn.parallel import DistributedDataParallel

        ddp = DistributedDataParallel(net, device_ids=[dev.index] if dev.type == "cuda" else None)

    def save_state(epoch: int, step: int, epoch_losses: list[float]) -> None:
        if rank != 0:
            return
        checkpoint.save(state_path, {
            "epoch_losses": list(epoch_losses),
            "kind": "resume", "task": task, "config": config.to_dict(), "vocab": vocab.to_dict(),
            "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
            "optimizer": opt.state_dict(), "epoch": epoch, "step": step, "history": history,
            "best": best, "best_epoch": best_epoch, "settings": settings,
        })

    report("start", n_train=len(train_enc), n_valid=len(valid_enc), too_long=too_long, epochs=epochs,
           steps=steps_per_epoch, start_epoch=start_epoch, config=config, world=world)
    if sequences:
        targets = None
    elif the_task.targets is not None:
        targets = torch.as_tensor(the_task.targets(train_y, label_names), dtype=torch.float32)
    else:
        targets = torch.as_tensor(train_y, dtype=torch.float32)
    for epoch in range(start_epoch, epochs):
        batches = _batches(lengths, batch_size, seed, epoch, world)
        net.train()
        losses, t0 = [], time.perf_counter()
        first = start_step if epoch == start_epoch else 0
        if first:
            losses = list(resumed_losses or [])
        for step in range(first, len(batches)):
            idx = batches[step][rank::world]
            torch.manual_seed(_mix(seed, epoch, step, rank))
            items = [train_enc[i] for i in idx]
            if config.augment and sequences and the_task.pool:
                items = [_augment_into(e, vocab, the_task.pool, _mix(seed, epoch, int(i))) for e, i in zip(items, idx)]
            elif config.augment:
                items = [_augment(e, vocab, _mix(seed, epoch, int(i))) for e, i in zip(items, idx)]
            batch = to_device(model.collate(items), dev)
            for group in opt.param_groups:
                group["lr"] = _lr(epoch * steps_per_epoch + step, total_steps, lr)
            if sequences:
                loss = net.loss(ddp(batch), batch)
            else:
                loss = the_task.loss(ddp(batch), targets[torch.as_tensor(idx)].to(dev))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
            report("step", epoch=epoch, step=step + 1, steps=len(batches), loss=losses[-1])
            if save_every and (step + 1) % save_every == 0 and step + 1 < len(batches):
                save_state(epoch, step + 1, losses)
        valid_loss = None
        if sequences:
            metric, valid_loss = _evaluate_pairs(model, valid_enc, valid_y, the_task, dev, rank, world)
        else:
            metric = _evaluate(model, valid_enc, valid_y, the_task, dev, rank, world)
        seconds = time.perf_counter() - t0
        improved = best_epoch == 0 or (metric < best if the_task.lower_is_better else metric > best)
        if improved:
            best, best_epoch = metric, epoch + 1
        history.append({"epoch": epoch + 1, "train_loss": float(np.mean(losses)) if losses else None,
                        f"valid_{the_task.metric_name}": metric, "seconds": round(seconds, 3)})
        if first and resumed_losses is None:  # the steps before the resume are not in train_loss
            history[-1]["train_loss_steps"] = [first + 1, len(batches)]
        if valid_loss is not None:
            history[-1]["valid_loss"] = valid_loss
        if improved and rank == 0:
            checkpoint.save(out, checkpoint.model_payload(model, _metrics(the_task, best, best_epoch, history, len(train_enc)),
                                                          train=dict(settings, arch=arch, size=size, epochs=epochs)))
        save_state(epoch + 1, 0, [])
        report("epoch", epoch=epoch + 1, epochs=epochs, train_loss=history[-1]["train_loss"], metric=metric,
               best=best, best_epoch=best_epoch, improved=improved, seconds=seconds,
               resumed_at=first or None, loss_steps=history[-1].get("train_loss_steps"), steps=len(batches))
    if rank == 0 and not Path(out).exists():  # resumed after the last epoch: nothing new to keep
        raise ModelError("the saved training state has no epoch left; raise --epochs to train on", path=str(state_path))
    if rank == 0 and sequences and config.random_draws > 1:
        _choose_draw(out, valid_enc, dev, report)
    if distributed:
        import torch.distributed as dist

        dist.barrier()
        if owns_group:
            # a process that exits with gloo's threads alive can abort
            # ("terminate called without an active exception")
            dist.destroy_process_group()
    return TrainResult(out=str(out), arch=arch, size=size, task=task, metric_name=the_task.metric_name,
                       best_metric=best, best_epoch=best_epoch, epochs=epochs, n_train=len(train_enc),
                       n_valid=len(valid_enc), too_long=too_long, history=history, resumed_from=resumed_from)


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


def _saved_config(saved) -> dict | None:
    """A saved config with the fields added since it was written at their
    defaults (each new field defaults to what every earlier config meant),
    so a state saved before them still resumes."""
    try:
        return ModelConfig.from_dict(saved).to_dict()
    except (TypeError, ValueError):
        return None


def _choose_draw(out: str | os.PathLike, valid_enc: list[Encoded], dev, report) -> None:
    """The interchangeable-token paper's heuristic for random embeddings:
    try the tables of ``random_draws`` seeds on the validation split and keep
    the one of median loss; the checkpoint then names its seed."""
    model = checkpoint.load_model(out)
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
    data = checkpoint.load(out)
    checkpoint.save(out, checkpoint.model_payload(model, train=data.get("train")))
    report("draws", seeds=seeds, losses=losses, chosen=chosen)


__all__ = ["train", "TrainResult", "prepare_data", "prepare_pairs", "resume_path"]


class _CallableModule(type(os)):
    """Importing ``invar.train`` rebinds the package's ``train`` attribute
    from the public function to this module; calling the module trains, so
    ``invar.train(...)`` works either way."""

    def __call__(self, **kwargs: Any) -> TrainResult:
        return train(**kwargs)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule
