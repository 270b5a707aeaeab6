"""The pooled encoder: one prediction per program (``bhive``, ``names``, ``bugs``).

Dimensions:
    B  batch     T  tokens (padded)     N  labels

The shared encoder and a pooled head (:class:`~invar.nn.encoder.Network`):
a regression head (a positive number, ``bhive``'s cycles) or a
classification head (``names``' subtokens, ``bugs``' verdict). Pooling
averages the real tokens only, so padding never changes a prediction. The
loss is the task's (MAPE, binary cross-entropy …) against the training
labels; an ``augmented`` model reads each program under a renaming drawn
afresh each time it is drawn.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch
import torch.nn as nn

from ..encoding import Encoded, Vocab
from .config import ModelConfig
from .encoder import Network
from .wrapper import Model, augment, gathered, take


class PooledEncoder(Model):
    """A :class:`~invar.nn.wrapper.Model` whose network pools the encoder's
    tokens into one output per program."""

    heads = ("regression", "multilabel", "binary")

    @classmethod
    def network_of(cls, config: ModelConfig, vocab: Vocab, task: str | None) -> nn.Module:
        return Network(config, torch.tensor(vocab.interchangeable, dtype=torch.bool))

    def _output(self, raw: Any) -> list:
        """The pooled output ((B,) or (B, N)) in the task's form, by the labels' names where there are."""
        return self._task.output(raw) if self.labels is None else self._task.output(raw, self.labels)

    # ----------------------------------------------------------- training
    def targets(self, labels: Any, label_names: Sequence[str] | None) -> torch.Tensor:
        """The labels as the task's loss takes them (a task that makes its own targets makes them)."""
        if self._task.targets is not None:
            return torch.as_tensor(self._task.targets(labels, label_names), dtype=torch.float32)
        return torch.as_tensor(labels, dtype=torch.float32)

    def init_output(self, labels: Any, label_names: Sequence[str] | None) -> None:
        """A regression starts at the labels' median, a multi-label
        classification at each label's frequency."""
        head = self.network.head
        if self.config.head == "regression":
            head.init_output(float(np.median(labels)))
        elif self._task.targets is not None and self.config.head == "multilabel":
            head.init_prior(torch.as_tensor(self._task.targets(labels, label_names)).mean(dim=0))

    def augmented(self, items: Sequence[Encoded], seed: Callable[[int], int]) -> list[Encoded]:
        if not self.config.augment:
            return list(items)
        return [augment(e, self.vocab, seed(k)) for k, e in enumerate(items)]

    def loss(self, forward: Callable[[dict], Any], batch: dict, targets: torch.Tensor | None) -> torch.Tensor:
        """The task's loss of the outputs (in float32, whatever the autocast) against ``targets``."""
        out = forward(batch)
        return self._task.loss(out.float() if torch.is_tensor(out) else out, targets)

    @torch.no_grad()
    def validate(
        self, encoded: list[Encoded], labels: Any, dev: torch.device, rank: int, world: int
    ) -> tuple[float, None]:
        """The task's metric on ``encoded``; no loss."""
        mine = list(range(rank, len(encoded), world))
        preds = self.predict_encoded([encoded[i] for i in mine], batch_size=256, device=str(dev)) if mine else []
        if world == 1:
            return self._task.metric(preds, take(labels, mine)), None
        together, _ = gathered(mine, preds, len(encoded))
        return self._task.metric(
            together if isinstance(labels, list) else np.asarray(together, dtype=np.float64), labels
        ), None


__all__ = ["PooledEncoder"]
