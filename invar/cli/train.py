"""``invar train``: train an architecture on a task's dataset.

Its options are :class:`~invar.config.TrainConfig`'s fields
(:func:`~invar.cli.configured.with_config`): declared once, in the library,
with their choices from its registries; the command adds only ``--format``.
"""

from __future__ import annotations

import json
import os

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..config import TrainConfig
from ..errors import UsageError
from .configured import with_config
from .listing import plural
from .console import command, stderr, stdout
from .options import SCHEMA, TableFormat, TableFormatOpt
from .outputs import destination


@command
@with_config(TrainConfig)
def train_command(config: TrainConfig, fmt: TableFormatOpt = TableFormat.table) -> None:
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

    _check_arch(config.task, config.arch)
    destination(config.out, "--out")  # before the training, not after it (missing folders are created at the save)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,  # a log or a pipe gets no bar, and no blank line where it was
    ) as bar:
        result = train(config, progress=_Reporter(bar, f"{config.arch} {config.size}"))
    if int(os.environ.get("RANK", "0")) == 0:
        _summary(result, fmt)


def _check_arch(task_name: str, arch: str) -> None:
    """UsageError at --arch when the task's model cannot be built from the
    architecture's preset, in the CLI's terms: which --arch the task takes,
    and, for an architecture only sequence tasks take, that it is theirs
    (the model config's own reason names its fields, not the options)."""
    from ..config import TRAINABLE_TASKS
    from ..nn.config import ARCHITECTURES, preset
    from ..tasks import get_task

    def takes(task, name: str) -> bool:
        extra = dict(task.arch_config(name)) if task.arch_config is not None else {}
        try:
            preset(name, head=task.head, n_labels=task.n_labels, **extra)
        except ValueError:
            return False
        return True

    task = get_task(task_name)
    if arch not in ARCHITECTURES or takes(task, arch):  # an unknown name is training's to refuse, with suggestions
        return
    fits = [name for name in ARCHITECTURES if takes(task, name)]
    listed = " or ".join(fits) if len(fits) < 3 else ", ".join(fits[:-1]) + " or " + fits[-1]
    others = [get_task(name) for name in TRAINABLE_TASKS if name != task_name]
    takers = [other.name for other in others if takes(other, arch)]
    sequence = {other.name for other in others if other.head == "generate"}
    why = f", which is for sequence tasks: {' and '.join(takers)}" if takers and set(takers) <= sequence else ""
    raise UsageError(f"--task {task_name} takes --arch {listed} (not {arch}{why})", path="--arch")


class _Reporter:
    """Training's progress events, on standard error: a line per event, a bar per epoch."""

    def __init__(self, bar: Progress, model: str) -> None:
        self.bar, self.model = bar, model
        self.task = None
        self.epoch = None

    def __call__(self, event: str, **info) -> None:
        getattr(self, f"_{event}", lambda **_: None)(**info)

    def _encode(self, **info) -> None:
        stderr.print(
            f"encoding {info['split']} ({plural(info['n'], 'program')}"
            + (", once; cached under the data directory)" if info.get("cached") else ")"),
            markup=False,
        )

    def _draws(self, **info) -> None:
        stderr.print(
            f"random vectors: seed {info['chosen']} of {plural(len(info['seeds']), 'draw')} (median validation loss)",
            markup=False,
        )

    def _resume(self, **info) -> None:
        stderr.print(f"resuming at epoch {info['epoch'] + 1}, step {info['step']}", markup=False)

    def _fresh(self, **info) -> None:
        stderr.print(f"note: --resume: no saved state at {info['path']}; training from the start", markup=False)

    def _stop(self, **info) -> None:
        why = (
            f"the time limit of {info['time_limit']:g} s passed"
            if info.get("reason") == "time_limit"
            else f"no better validation in {plural(info['patience'], 'epoch')}"
        )
        stderr.print(f"stopped after epoch {info['epoch']}: {why} (best: epoch {info['best_epoch']})", markup=False)

    def _start(self, **info) -> None:
        stderr.print(
            f"{self.model}: {info['n_train']} training and {plural(info['n_valid'], 'validation program')}"
            f" ({info['too_long']} longer than {plural(info['config'].max_len, 'token')} skipped),"
            f" {plural(info['steps'], 'step')} per epoch"
            + (f", {info['world']} processes" if info["world"] > 1 else ""),
            markup=False,
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
        "out": result.out,
        "task": result.task,
        "arch": result.arch,
        "size": result.size,
        "train": result.n_train,
        "valid": result.n_valid,
        "too_long": result.too_long,
        "best_epoch": result.best_epoch,
        f"valid_{result.metric_name}": round(result.best_metric, 4),
        "epochs_run": len(result.history),
        "stopped_early": result.stopped_at is not None,
        "schedule": result.schedule,
        "lr_halvings": result.halvings,
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
        + (f"; learning rate halved {plural(result.halvings, 'time')}" if result.schedule == "plateau" else ""),
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
