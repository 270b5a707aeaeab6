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
)

__all__ = ["TASK", "mape", "mape_loss"]
