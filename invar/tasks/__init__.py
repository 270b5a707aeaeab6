"""Tasks: what a model predicts, how it is scored, and which transforms keep its label.

A task names its head (regression or classification), its loss and metric,
how its stored examples become programs, and which transformation spaces are
*task symmetries*: transforms that keep the label, not only the program's
meaning (shared/DESIGN.md). The audit reads :attr:`Task.invariances`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import UsageError

_TASKS = {"bhive": "invar.tasks.bhive"}


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


def names() -> list[str]:
    return list(_TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``; UsageError for an unknown one."""
    if name not in _TASKS:
        raise UsageError(f"unknown task {name!r}: choose from {', '.join(_TASKS)}", path="--task")
    return importlib.import_module(_TASKS[name]).TASK


__all__ = ["Task", "Example", "get_task", "names"]
