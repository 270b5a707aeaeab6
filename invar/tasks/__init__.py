"""Tasks: what a model predicts, how it is scored, and which transforms keep its label.

A task names its head (regression or classification), its loss and metric,
how its stored examples become programs, and which transformation spaces are
*task symmetries*: transforms that keep the label, not only the program's
meaning (shared/DESIGN.md). The audit reads :attr:`Task.invariances`, and
for models it cannot load itself, how to read a label or an answer.

Tasks: ``bhive`` (throughput, a learned surrogate of llvm-mca) and
``classify`` (any program -> a class label; audits only).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import UsageError

_TASKS = {"bhive": "invar.tasks.bhive", "classify": "invar.tasks.classify"}


@dataclass(frozen=True)
class Example:
    """One stored example: the program as stored, its label, where it was read."""

    #: the program as the dataset stores it (BHive: hex)
    source: str
    label: Any
    path: str = ""
    line: int = 0


@dataclass(frozen=True)
class Task:
    name: str
    #: the head the task needs: ``regression``, ``multilabel`` or ``binary``
    head: str
    n_labels: int
    #: transformation space -> whether it keeps the label (``renamings``,
    #: ``permutations``); the audit measures a model against these
    invariances: Mapping[str, bool]
    #: the metric's name and whether lower is better
    metric_name: str
    lower_is_better: bool
    #: loss(outputs, targets) -> scalar tensor (differentiable)
    loss: Callable
    #: metric(predictions, targets) -> float, over numpy arrays
    metric: Callable
    #: network outputs (a tensor) -> one Python prediction per program
    output: Callable
    #: source text as stored -> Program
    parse: Callable
    #: read_split(data_dir, split) -> list[Example]
    read_split: Callable
    #: splits a dataset directory holds, training split first
    splits: Sequence[str] = field(default=("train", "valid", "test"))
    # ----------------------------------------------------- what the audit reads
    #: True when predictions are discrete (compared exactly); False for numbers
    #: (compared within a relative tolerance)
    discrete: bool = False
    #: a label written as text in a dataset file -> the label (ValueError when bad)
    label: Callable[[str], Any] = str
    #: a model's text answer (an LLM's reply) -> a prediction (ValueError when
    #: it holds none)
    answer: Callable[[str], Any] = str.strip
    #: program texts -> their labels as the task defines them (``bhive``:
    #: llvm-mca's cycles), one ``(label, "")`` or ``(None, reason)`` each; None
    #: when the task has no oracle. ``audit --oracle`` measures the label's own
    #: change under a transform with it
    oracle: Callable[[Sequence[str]], list] | None = None
    #: the language of the task's programs when a dataset does not say (None: any)
    lang: str | None = None


def names() -> list[str]:
    return list(_TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``; UsageError for an unknown one."""
    if name not in _TASKS:
        raise UsageError(f"unknown task {name!r}: choose from {', '.join(_TASKS)}", path="--task")
    return importlib.import_module(_TASKS[name]).TASK


__all__ = ["Task", "Example", "get_task", "names"]
