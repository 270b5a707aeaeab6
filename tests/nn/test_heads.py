"""Pooled heads: padding never counts; one output per program."""

from __future__ import annotations

import math

import pytest
import torch

from invar.nn.config import ModelConfig
from invar.nn.heads import ClassificationHead, RegressionHead, head, masked_mean


def test_masked_mean_ignores_padding():
    x = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    valid = torch.tensor([[True, True, False]])
    assert masked_mean(x, valid).tolist() == [[2.0, 3.0]]


def test_regression_head_is_positive_and_starts_at_the_typical_label():
    config = ModelConfig(d_model=4)
    reg = RegressionHead(config)
    torch.nn.init.zeros_(reg.out.weight)
    reg.init_output(1.68)
    out = reg(torch.randn(3, 5, 4), torch.ones(3, 5, dtype=torch.bool))
    assert out.shape == (3,) and all(math.isclose(v, 1.68, rel_tol=1e-6) for v in out.tolist())
    with torch.no_grad():
        reg.out.bias.fill_(1e4)  # far beyond float range: clamped, never inf
    assert torch.isfinite(reg(torch.randn(1, 2, 4), torch.ones(1, 2, dtype=torch.bool))).all()


@pytest.mark.parametrize(
    "kind, labels, shape", [("multilabel", 5, (3, 5)), ("binary", 1, (3,)), ("regression", 1, (3,))]
)
def test_head_shapes(kind, labels, shape):
    config = ModelConfig(d_model=8, head=kind, n_labels=labels)
    h = head(config)
    assert isinstance(h, RegressionHead if kind == "regression" else ClassificationHead)
    assert h(torch.randn(3, 4, 8), torch.ones(3, 4, dtype=torch.bool)).shape == shape
