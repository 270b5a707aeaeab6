"""``invar train``: train an architecture on a task's dataset."""

from __future__ import annotations

import enum
import json
import os
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .console import command, stderr, stdout
from .options import SCHEMA, Device, SeedOpt, TableFormat, TableFormatOpt
from .outputs import destination


class TaskName(str, enum.Enum):
    bhive = "bhive"
    ltl = "ltl"
    copy = "copy"
    names = "names"
    bugs = "bugs"
    lm = "lm"


class Size(str, enum.Enum):
    tiny = "tiny"
    mini = "mini"
    small = "small"


class Schedule(str, enum.Enum):
    cosine = "cosine"
    plateau = "plateau"


class PinnedTokens(str, enum.Enum):
    view = "view"
    token = "token"


class Precision(str, enum.Enum):
    fp32 = "fp32"
    tf32 = "tf32"
    bf16 = "bf16"


class EmbedScaling(str, enum.Enum):
    sqrtd = "sqrtd"
    none = "none"


class NormPosition(str, enum.Enum):
    pre = "pre"
    post = "post"


class RandomDraw(str, enum.Enum):
    sequence = "sequence"
    batch = "batch"


class RandomVectors(str, enum.Enum):
    unit = "unit"
    small = "small"


class SymmetryHeads(str, enum.Enum):
    split = "split"
    all = "all"


class Positions(str, enum.Enum):
    absolute = "absolute"
    none = "none"
    line = "line"
    tree = "tree"
    rotary = "rotary"


@command
def train_command(
    data: Annotated[str, typer.Option("--data", help="The dataset: a directory from invar data bhive, invar data copy, invar data names, invar data bugs or invar data lm, or a file from invar data ltl.")],
    arch: Annotated[str, typer.Option("--arch", help="Architecture: vanilla, augmented, canonicalized, renamer, spe, renamer+spe, dualpart, lexinvariant; for ltl and copy also canonicalized+dualpart and canonicalized+lexinvariant (renamer and spe do not generate).")],
    out: Annotated[str, typer.Option("--out", "-o", help="Checkpoint to write (the best epoch).")],
    task: Annotated[TaskName, typer.Option("--task", help="The task.")] = TaskName.bhive,
    size: Annotated[Size, typer.Option("--size", help="Model size (layers/width/heads: tiny 2/128/2, mini 4/256/4, small 4/512/8).")] = Size.tiny,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Passes over the training split.")] = 10,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Programs per step.")] = 64,
    max_len: Annotated[Optional[int], typer.Option("--max-len", min=1, help="Longest program in tokens; longer ones are skipped and counted (default: 128; lm: the dataset's sequence length).")] = None,
    lr: Annotated[float, typer.Option("--lr", min=0, help="Peak learning rate (linear warm-up, then the --schedule).")] = 5e-4,
    weight_decay: Annotated[float, typer.Option("--weight-decay", min=0, help="AdamW weight decay.")] = 0.01,
    beta1: Annotated[float, typer.Option("--beta1", min=0, max=1, help="AdamW beta 1.")] = 0.9,
    beta2: Annotated[float, typer.Option("--beta2", min=0, max=1, help="AdamW beta 2.")] = 0.999,
    seed: SeedOpt = 0,
    device: Annotated[Device, typer.Option("--device", help="Where to train.")] = Device.cpu,
    precision: Annotated[Precision, typer.Option("--precision", help="fp32; tf32: CUDA matrix products in TensorFloat-32; bf16: each step's forward pass and loss under bfloat16 autocast (weights, validation and the checkpoint stay float32).")] = Precision.fp32,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="Train on the first N programs (and validate on N/4), for quick runs.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from the saved training state beside --out.")] = False,
    save_every: Annotated[int, typer.Option("--save-every", min=0, help="Also save the training state every N steps (0: after each epoch only).")] = 0,
    threads: Annotated[Optional[int], typer.Option("--threads", min=1, help="Torch threads per process (default: half the cores).")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes that encode the dataset the first time (default: 1).")] = None,
    patience: Annotated[Optional[int], typer.Option("--patience", min=1, help="Stop early once N epochs in a row bring no better validation metric (--epochs is then a cap).")] = None,
    schedule: Annotated[Schedule, typer.Option("--schedule", help="After the warm-up: cosine decay over --epochs to a tenth of --lr, or plateau: --lr, halved each time --plateau epochs in a row bring no better validation metric (with a --patience above --plateau, training then runs until it stops improving).")] = Schedule.cosine,
    plateau: Annotated[int, typer.Option("--plateau", min=1, help="With --schedule plateau: epochs without a better validation metric before the learning rate halves.")] = 5,
    random_draws: Annotated[int, typer.Option("--random-draws", min=1, help="ltl, copy with dualpart or lexinvariant: try N seeded tables of random vectors on the validation split at the end and keep the median by loss.")] = 1,
    lexinvariant_p: Annotated[Optional[float], typer.Option("--lexinvariant-p", min=0, max=1, help="With --arch lexinvariant: the regularised variant, a learned table whose tokens are remapped through a random permutation with probability P in training (the lexinvariant paper's B_p).")] = None,
    pinned_tokens: Annotated[PinnedTokens, typer.Option("--pinned-tokens", help="With --arch renamer or renamer+spe (view embeddings): embed a token outside its program's renaming space (%rsp under push, %rax and %rdx under mul; a Python or Java name that keeps its spelling) by its view like any other, or by its own learned vector (still exactly invariant).")] = PinnedTokens.view,
    heads: Annotated[Optional[int], typer.Option("--heads", min=1, help="Attention heads, in place of the size's (the width must divide by them).")] = None,
    embed_scaling: Annotated[Optional[EmbedScaling], typer.Option("--embed-scaling", help="sqrtd: the token vectors the blocks read are multiplied by the square root of the width (not a tied output's rows); none: as they are (default: sqrtd for dualpart, none for the others).")] = None,
    norm_position: Annotated[NormPosition, typer.Option("--norm-position", help="pre: LayerNorm before each sublayer and after the last block; post: after each residual add (fairseq's post-LN blocks), no final one.")] = NormPosition.pre,
    random_draw: Annotated[RandomDraw, typer.Option("--random-draw", help="ltl, copy, lm with dualpart or lexinvariant: training draws a table of random vectors per sequence, or one per batch (the interchangeable-token paper's code).")] = RandomDraw.sequence,
    random_vectors: Annotated[Optional[RandomVectors], typer.Option("--random-vectors", help="With --arch lexinvariant (not --lexinvariant-p): unit, the lexinvariant paper's Gaussian vectors, read at unit variance (a learned scale from 1, and a bias) and written through E/sqrt(width) as T5's tied read-out; small: read and written at a learned scale from 0.02 (default: unit where every token is random, as for --task lm; small beside learned vectors).")] = None,
    pool_size: Annotated[Optional[int], typer.Option("--pool-size", min=1, help="ltl, copy: the first N interchangeable names of the task's pool (APs a-z; symbols a-z A-Z) in the vocabulary, augmented's renaming targets (default: all).")] = None,
    positions: Annotated[Optional[Positions], typer.Option("--positions", help="Positions, in place of the architecture's: absolute, none, line (reset at each line, SPE), tree (ltl), rotary (lm).")] = None,
    symmetry_heads: Annotated[SymmetryHeads, typer.Option("--symmetry-heads", help="With the SPE symmetry mask: the SPE paper's split of the heads (the mask, its transpose, none: 6/3/3 of 12), or the mask on all of them (its Table 3 ablation).")] = SymmetryHeads.split,
    time_limit: Annotated[Optional[float], typer.Option("--time-limit", min=0, help="Stop after the first epoch that ends this many seconds after the start (--epochs is then a cap).")] = None,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Train an architecture on a task's dataset; the best validation epoch is the checkpoint.

    Data are encoded once and cached under DATA/cache. Progress goes to
    standard error; a summary to standard output. The training state is kept
    beside the checkpoint (OUT stem + .resume.pt) for --resume. Several
    processes: torchrun --nproc-per-node N -m invar train … .

    Sequence tasks train an encoder-decoder: --task ltl on a file from invar
    data ltl (split 80/10/10 by a hash of each formula) or a directory of
    split files, --task copy on a directory from invar data copy.

    --task lm trains a decoder-only causal language model on the windows of
    invar data lm (validation: perplexity); --arch vanilla (learned
    embeddings) or lexinvariant (a fresh random table per sequence, or with
    --lexinvariant-p the regularised variant).

    Example: invar train --task bhive --data bhive-haswell --arch renamer --size tiny --epochs 10 --out renamer.pt
    """
    from ..train import train

    destination(out, "--out")  # before the training, not after it (missing folders are created at the save)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(), TimeRemainingColumn(), console=stderr, transient=True,
    ) as bar:
        reporter = _Reporter(bar, f"{arch} {size.value}", cached=task in (TaskName.bhive, TaskName.lm))
        result = train(
            task=task.value, data=data, arch=arch, size=size.value, epochs=epochs, out=out, batch_size=batch_size,
            max_len=max_len, lr=lr, weight_decay=weight_decay, betas=(beta1, beta2), seed=seed, device=device.value,
            limit=limit, resume=resume, threads=threads, save_every=save_every, jobs=jobs, patience=patience,
            schedule=schedule.value, plateau=plateau, precision=precision.value, time_limit=time_limit,
            progress=reporter,
            overrides=_overrides(random_draws=random_draws, lexinvariant_p=lexinvariant_p, pinned_tokens=pinned_tokens,
                                 n_head=heads, embed_scaling=embed_scaling, norm_position=norm_position,
                                 random_draw=random_draw, random_vectors=random_vectors, pool_size=pool_size,
                                 positions=positions, symmetry_heads=symmetry_heads),
        )
    if int(os.environ.get("RANK", "0")) == 0:
        _summary(result, fmt)


#: config field -> the value its option has when not given (the preset's is then kept)
_UNSET = {"random_draws": 1, "pinned_tokens": "view", "norm_position": "pre", "random_draw": "sequence",
          "symmetry_heads": "split"}


def _overrides(**options) -> dict | None:
    """The config fields the options set beyond the architecture's preset
    (an option left at its default sets nothing); choices as their values."""
    values = {name: getattr(value, "value", value) for name, value in options.items()}
    out = {name: value for name, value in values.items() if value is not None and value != _UNSET.get(name)}
    return out or None


class _Reporter:
    """Training's progress events, on standard error: a line per event, a bar per epoch."""

    def __init__(self, bar: Progress, model: str, cached: bool) -> None:
        self.bar, self.model, self.cached = bar, model, cached
        self.task = None
        self.epoch = None

    def __call__(self, event: str, **info) -> None:
        getattr(self, f"_{event}", lambda **_: None)(**info)

    def _encode(self, **info) -> None:
        stderr.print(f"encoding {info['split']} ({info['n']} programs"
                     + (", once; cached under the data directory)" if self.cached else ")"), markup=False)

    def _draws(self, **info) -> None:
        stderr.print(f"random vectors: seed {info['chosen']} of {len(info['seeds'])} draws "
                     "(median validation loss)", markup=False)

    def _resume(self, **info) -> None:
        stderr.print(f"resuming at epoch {info['epoch'] + 1}, step {info['step']}", markup=False)

    def _stop(self, **info) -> None:
        why = (f"the time limit of {info['time_limit']:g} s passed" if info.get("reason") == "time_limit"
               else f"no better validation in {info['patience']} epochs")
        stderr.print(f"stopped after epoch {info['epoch']}: {why} (best: epoch {info['best_epoch']})", markup=False)

    def _start(self, **info) -> None:
        stderr.print(
            f"{self.model}: {info['n_train']} training and {info['n_valid']} validation programs"
            f" ({info['too_long']} longer than {info['config'].max_len} tokens skipped), {info['steps']} steps per epoch"
            + (f", {info['world']} processes" if info["world"] > 1 else ""), markup=False,
        )

    def _step(self, **info) -> None:
        if self.task is None or info["step"] == 1 or self.epoch != info["epoch"]:
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.epoch = info["epoch"]
            self.task = self.bar.add_task(f"epoch {info['epoch'] + 1}", total=info["steps"], info="")
        self.bar.update(self.task, completed=info["step"], info=f"loss {info['loss']:.4f}")

    def _epoch(self, **info) -> None:
        stderr.print(
            f"epoch {info['epoch']}/{info['epochs']}: train loss {_loss(info)}, "
            f"validation {info['metric']:.2f}, lr {info['lr']:.3g}{'  (best, saved)' if info['improved'] else ''}",
            markup=False,
        )


def _summary(result, fmt: TableFormat) -> None:
    """The run's summary on standard output."""
    from ..tasks import get_task

    summary = {
        "out": result.out, "task": result.task, "arch": result.arch, "size": result.size,
        "train": result.n_train, "valid": result.n_valid, "too_long": result.too_long,
        "best_epoch": result.best_epoch, f"valid_{result.metric_name}": round(result.best_metric, 4),
        "epochs_run": len(result.history), "stopped_early": result.stopped_at is not None,
        "schedule": result.schedule, "lr_halvings": result.halvings,
        "final_lr": result.history[-1]["lr"] if result.history else None,
    }
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, **summary}, indent=2), markup=False, highlight=False)
        return
    stdout.print(
        f"wrote {result.out}: {result.arch} {result.size} on {result.task}, {result.n_train} training programs, "
        f"best validation {result.metric_name} {result.best_metric:.1f}{get_task(result.task).unit} at epoch "
        f"{result.best_epoch} of {result.epochs}"
        + (f" (stopped early after epoch {result.stopped_at})" if result.stopped_at is not None else "")
        + (f"; learning rate halved {result.halvings} time{'s' if result.halvings != 1 else ''}"
           if result.schedule == "plateau" else ""),
        markup=False,
    )


def _loss(info: dict) -> str:
    """An epoch's training loss, with the steps it covers when a resume cut the epoch."""
    loss = f"{info['train_loss']:.4f}"
    if info.get("loss_steps"):
        first, last = info["loss_steps"]
        return f"{loss} over steps {first}-{last} of {last} only (resumed; the state held no earlier losses)"
    if info.get("resumed_at"):
        return f"{loss} over all {info['steps']} steps ({info['resumed_at']} of them before the resume)"
    return loss
