"""Pooled heads: one prediction per program.

Dimensions:
    B  batch     T  tokens (padded)     C  width     N  labels

Pooling averages the real tokens only, so padding never changes a
prediction and a program's output does not depend on its batch.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from .config import ModelConfig


def masked_mean(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """(B, T, C), (B, T) -> (B, C): the mean over real tokens."""
    w = valid.unsqueeze(-1).to(x.dtype)  # (B, T, 1)
    return (x * w).sum(dim=1) / w.sum(dim=1).clamp(min=1)


class RegressionHead(nn.Module):
    """A positive scalar: exp of a linear map of the pooled tokens, so one
    head serves targets that span orders of magnitude (cycles per iteration
    run from 0.2 to several hundred)."""

    #: largest log-output; keeps exp finite early in training
    MAX_LOG = 30.0

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.out = nn.Linear(config.d_model, 1)

    @torch.no_grad()
    def init_output(self, typical: float) -> None:
        """Start predicting ``typical`` (e.g. the median training label)."""
        self.out.bias.fill_(float(torch.log(torch.tensor(max(typical, 1e-6)))))

    def forward(self, x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        log_y = self.out(masked_mean(x, valid)).squeeze(-1)  # (B,)
        return log_y.clamp(max=self.MAX_LOG).exp()


class ClassificationHead(nn.Module):
    """Logits: (B, N) for multi-label classification, (B,) for binary."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.binary = config.head == "binary"
        self.out = nn.Linear(config.d_model, config.n_labels)

    @torch.no_grad()
    def init_prior(self, frequency: torch.Tensor) -> None:
        """Start predicting each label with its training ``frequency`` (N,)."""
        p = frequency.to(self.out.bias.dtype).clamp(1e-4, 1 - 1e-4)
        self.out.bias.copy_(torch.log(p / (1 - p)).reshape(self.out.bias.shape))

    def forward(self, x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        logits = self.out(masked_mean(x, valid))  # (B, N)
        return logits.squeeze(-1) if self.binary else logits


def head(config: ModelConfig) -> nn.Module:
    return RegressionHead(config) if config.head == "regression" else ClassificationHead(config)


__all__ = ["masked_mean", "RegressionHead", "ClassificationHead", "head"]
