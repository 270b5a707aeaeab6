"""Self-attention and the masks of invar's architectures.

Dimensions:
    B  batch     T  tokens (padded)     C  width     H  heads     D  head width (C / H)

A mask is a bool tensor (B, 1 or H, T, T), True where query i may attend to
key j. Every mask here keeps the diagonal, so no row is ever empty (an empty
row would softmax to NaN), and no real token ever attends to padding.

* :func:`padding_mask`: every real key.
* :func:`referent_mask` (Renamer): coreferential tokens only; a token that
  names nothing attends to itself.
* :func:`symmetry_masks` (SPE): per head, the symmetry mask, its transpose or
  nothing, split as :attr:`ModelConfig.head_split` says. The SPE paper
  applies it as a Hadamard product with the scores before the softmax (a
  masked score becomes 0, not -inf); ``additive`` masking gives -inf instead.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import ModelConfig


def _eye(T: int, device) -> torch.Tensor:
    return torch.eye(T, dtype=torch.bool, device=device)  # (T, T)


def padding_mask(valid: torch.Tensor) -> torch.Tensor:
    """(B, T) -> (B, 1, T, T): attend to every real token."""
    T = valid.shape[1]
    return (valid[:, None, None, :] | _eye(T, valid.device)).clone()


def referent_mask(referents: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """(B, T) -> (B, 1, T, T): attend only to coreferential tokens (same
    nonzero referent id); a token with no referent only to itself."""
    T = referents.shape[1]
    same = (referents[:, :, None] == referents[:, None, :]) & (referents[:, :, None] > 0)  # (B, T, T)
    same = same & valid[:, None, :] & valid[:, :, None]
    return (same | _eye(T, referents.device)).unsqueeze(1)


def symmetry_masks(symmetry: torch.Tensor, valid: torch.Tensor, split: tuple[int, int, int]) -> torch.Tensor:
    """(B, T, T) token-level symmetry mask -> (B, H, T, T): the first heads
    get the mask, the next its transpose, the rest only padding."""
    n_sym, n_tr, n_none = split
    pad = padding_mask(valid)[:, 0]  # (B, T, T)
    per_head = [symmetry & pad] * n_sym + [symmetry.transpose(1, 2) & pad] * n_tr + [pad] * n_none
    eye = _eye(symmetry.shape[1], symmetry.device)
    return torch.stack(per_head, dim=1) | eye  # (B, H, T, T)


class SelfAttention(nn.Module):
    """Multi-head self-attention; ``scaled_dot_product_attention`` for bool
    masks, the explicit product for Hadamard masks."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.dropout = config.dropout
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, hadamard: torch.Tensor | None = None) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # (B, T, C) each
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))  # (B, H, T, D)
        p = self.dropout if self.training else 0.0
        if hadamard is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)  # (B, H, T, D)
        else:
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))  # (B, H, T, T)
            scores = (scores * hadamard).masked_fill(~mask, float("-inf"))
            y = F.dropout(scores.softmax(dim=-1), p=p, training=self.training) @ v  # (B, H, T, D)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C)
        return self.drop(self.proj(y))


__all__ = ["padding_mask", "referent_mask", "symmetry_masks", "SelfAttention"]
