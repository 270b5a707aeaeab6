"""The BHive throughput task: a learned surrogate of ``llvm-mca``.

Each example is a real x86-64 basic block from BHive with its throughput as
``llvm-mca`` computes it: Total Cycles / iterations at ``-iterations=100``
(the Renamer paper's Figure 1(a) reads 1.68). Loss and metric are the mean
absolute percentage error (MAPE).

Task symmetries: register **renamings** keep llvm-mca's cycles exactly (the
oracle tests/oracles/test_x86_mca.py checks it), so they keep the label.
Semantics-preserving **reorderings** do not: llvm-mca's cycle count changes
under some sampled order for about a quarter of held-out blocks with more
than one order, so a permutation-invariant model cannot fit those labels.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import torch

from ..data.bhive import read_split
from ..frontends.x86.hexblock import decode
from . import Task


def mape_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean absolute percentage error, as a fraction (differentiable)."""
    return ((pred - target).abs() / target.abs().clamp(min=1e-6)).mean()


def mape(pred, target) -> float:
    """Mean absolute percentage error, in percent."""
    pred, target = np.asarray(pred, dtype=np.float64), np.asarray(target, dtype=np.float64)
    if not len(target):
        return float("nan")
    return float(100.0 * np.mean(np.abs(pred - target) / np.maximum(np.abs(target), 1e-6)))


def _output(out: torch.Tensor) -> list[float]:
    return [float(x) for x in out.detach().cpu().tolist()]


def label(text: str) -> float:
    """A throughput written in a dataset file: a positive number."""
    value = float(text)
    if not value > 0:
        raise ValueError(f"throughput {text.strip()} must be positive")
    return value


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def answer(text: str) -> float:
    """The first number in a model's text answer ("about 1.68 cycles" -> 1.68)."""
    m = _NUMBER.search(text)
    if m is None:
        raise ValueError(f"no number in the answer {text.strip()[:80]!r}")
    return float(m.group())


def oracle(texts: Sequence[str], mcpu: str = "haswell") -> list[tuple[float | None, str]]:
    """llvm-mca's throughput of each block text (Total Cycles / 100 at
    ``-iterations=100``), all blocks in one llvm-mca process: ``(label, "")``
    or ``(None, llvm-mca's reason)``. DataError when llvm-mca is not installed."""
    from ..data.bhive import ITERATIONS, label_texts, llvm_mca_version

    llvm_mca_version()  # a located error when llvm-mca is missing
    return [(None, reason) if cycles is None else (round(cycles / ITERATIONS, 6), "")
            for cycles, reason in label_texts(list(texts), mcpu, ITERATIONS)]


TASK = Task(
    name="bhive",
    head="regression",
    n_labels=1,
    invariances={"renamings": True, "permutations": False},
    metric_name="MAPE",
    lower_is_better=True,
    loss=mape_loss,
    metric=mape,
    output=_output,
    parse=lambda source: decode(source),
    read_split=read_split,
    label=label,
    answer=answer,
    oracle=oracle,
    lang="x86",
    languages=("x86",),
)

__all__ = ["TASK", "mape", "mape_loss", "label", "answer", "oracle"]
