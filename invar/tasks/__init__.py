"""Tasks: what a model predicts, how it is scored, and which transforms keep its label.

A task names its head (regression or classification), its loss and metric,
how its stored examples become programs, and which transformation spaces are
*task symmetries*: transforms that keep the label, not only the program's
meaning (shared/DESIGN.md). The audit reads :attr:`Task.invariances`, and
for models it cannot load itself, how to read a label or an answer.

Tasks: ``bhive`` (throughput, a learned surrogate of llvm-mca),
``names`` (a function's body -> the subtokens of its name, multi-label),
``bugs`` (a function -> whether it holds an injected bug, binary),
``classify`` (any program -> a class label; audits only), and two
sequence-to-sequence tasks for encoder-decoders: ``ltl`` (formula ->
satisfying trace) and ``copy`` (a string of interchangeable symbols -> the
same string). ``alta`` (a token sequence -> a compiled ALTA program's output
at every position; audits only). ``lm`` (a decoder-only causal language
model over windows of code: characters or frontend tokens). ``exec``
(output prediction: a function and its call -> the call's result as a
literal; audits only, labelled and checked by running the code only when
asked: :mod:`invar.sandbox`). A sequence
task's examples are pairs (a program whose line 0 is the source and line 1
the target); its model writes the target, and a
renaming of the source renames the right output (equivariance), which the
audit undoes (:attr:`Task.undo`) before comparing.

The tasks layer imports the ground floor, symmetry, frontends, encoding and
data (whose :class:`~invar.data.examples.Example` a task reads); never nn,
checkpoint, train, audit, alta or cli.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..data.examples import Example, checked
from ..errors import UsageError

_TASKS = {
    "bhive": "invar.tasks.bhive",
    "classify": "invar.tasks.classify",
    "ltl": "invar.tasks.ltl",
    "copy": "invar.tasks.copy",
    "names": "invar.tasks.names",
    "bugs": "invar.tasks.bugs",
    "alta": "invar.tasks.alta",
    "lm": "invar.tasks.lm",
    "exec": "invar.tasks.exec",
}


@dataclass(frozen=True)
class Task:
    name: str
    #: the head the task needs: ``regression``, ``multilabel``, ``binary``,
    #: ``generate`` (sequence tasks) or ``lm`` (a language model)
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
    #: a model's whole text reply (an LLM's) -> the prediction, in the form
    #: ``metric`` compares; a ValueError (:class:`~invar.tasks.answers.Unreadable`)
    #: when it holds no answer that can be read for sure. Every shipped task
    #: gives an :class:`~invar.tasks.answers.Reader`: reasoning removed, an
    #: explicit final answer preferred, else the last line, then the task's
    #: parser. :func:`invar.tasks.answers.read` reads with it and also says how
    #: many candidate answers the reply held, takes ``--answer-regex`` and a
    #: reply cut at the token limit; any other callable is taken there as the
    #: parser of the segment (the part of the reply that holds the answer)
    answer: Callable[[str], Any] = str.strip
    #: a model's prediction as Python returns it (a callable's, a checkpoint's,
    #: a read answer) -> the form ``metric`` compares; a ValueError when it is
    #: none of the task's predictions (that example's error: ``bugs`` reads
    #: 0.7 as no verdict, not as 0). None: any JSON value (numbers: any finite one)
    prediction: Callable[[Any], Any] | None = None
    #: program texts -> their labels as the task defines them (``bhive``:
    #: llvm-mca's cycles), one ``(label, "")`` or ``(None, reason)`` each; None
    #: when the task has no oracle. ``audit --oracle`` measures the label's own
    #: change under a transform with it
    oracle: Callable[[Sequence[str]], list] | None = None
    #: whether ``oracle`` runs the programs themselves (``exec``, in
    #: :mod:`invar.sandbox`): then nothing may call it unless the user asked
    #: for execution (``--oracle``), controls included
    runs_code: bool = False
    #: the language of the task's programs when a dataset does not say (None: any)
    lang: str | None = None
    #: every language the task's datasets can hold (a model of the task reads
    #: no other; a checkpoint records the subset it was trained on); empty: any
    languages: Sequence[str] = ()
    # ------------------------------------------------ sequence tasks (head="generate")
    #: interchangeable names (APs, symbols) that models with an extendable
    #: vocabulary hold beyond those their training data use: every
    #: architecture but ``vanilla``, whose vocabulary is what it saw
    pool: Sequence[str] = ()
    #: the view of those names
    pool_view: str = ""
    #: arch -> config fields the task sets for it (before the user's overrides)
    arch_config: Callable[[str], Mapping[str, Any]] | None = None
    #: a program as read -> the program the model reads (LTL: Polish formula,
    #: canonical trace)
    prepare: Callable | None = None
    #: a prepared program -> (T, 2) tree paths of its tokens (positions="tree")
    tree: Callable | None = None
    #: a program -> its label, where the dataset holds the label in the
    #: program itself (the trace of an LTL pair)
    label_of: Callable | None = None
    #: (prediction on a renamed input, {renamed name: original name}) -> the
    #: prediction in the original's names; None: the audit's generic undo
    undo: Callable | None = None
    #: (prediction, label) -> that prediction's metric; the audit's worst
    #: variant is the one it scores worst
    score: Callable | None = None
    #: more metrics (name -> metric(predictions, labels)), reported beside the main one
    extra_metrics: Mapping[str, Callable] = field(default_factory=dict)
    #: whether macro F1 means something (class labels)
    f1: bool = True
    #: how the metric is printed after its value (``%`` or nothing)
    unit: str = "%"
    #: (path, split) -> the examples of a dataset in the task's own format,
    #: or None when the path is not one (the audit then reads it generically);
    #: a malformed row is an example with its ``error`` set, not an exception
    dataset: Callable | None = None
    # ------------------------------------- label sets read from the dataset
    #: data directory -> the names of the labels (a multi-label task whose
    #: labels the dataset defines: ``names``' subtokens); they set n_labels,
    #: travel in the checkpoint, and ``output(logits, names)`` reads them
    labels_of: Callable | None = None
    #: (labels as read, label names) -> the training targets (an array)
    targets: Callable | None = None


def task_names() -> list[str]:
    """Every task's name (not ``names``: that is the function-names task's module)."""
    return list(_TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``; UsageError for an unknown one."""
    if name not in _TASKS:
        raise UsageError(f"unknown task {name!r}: choose from {', '.join(_TASKS)}", path="--task")
    return importlib.import_module(_TASKS[name]).TASK


__all__ = ["Task", "Example", "checked", "get_task", "task_names"]
