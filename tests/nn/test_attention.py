"""Masks: who attends to whom, no empty rows, padding never attended."""

from __future__ import annotations

import pytest
import torch

from invar.nn.attention import SelfAttention, padding_mask, referent_mask, symmetry_masks
from invar.nn.config import ModelConfig


def _rows(mask: torch.Tensor) -> list[str]:
    return ["".join("1" if x else "0" for x in row) for row in mask.tolist()]


@pytest.mark.parametrize(
    "referents, valid, expected",
    [
        # mov %rax, %rbx ; add %rax, %rcx  ->  rax rbx rax rcx with punctuation (0) between
        ([5, 0, 6, 0, 5, 0, 7], [1] * 7, ["1000100", "0100000", "0010000", "0001000", "1000100", "0000010", "0000001"]),
        # padding (last two) is never attended; padded rows still attend to themselves
        ([3, 3, 0, 3, 3], [1, 1, 1, 0, 0], ["11000", "11000", "00100", "00010", "00001"]),
        # nothing names anything: every token attends to itself only
        ([0, 0, 0], [1, 1, 1], ["100", "010", "001"]),
    ],
)
def test_referent_mask(referents, valid, expected):
    mask = referent_mask(torch.tensor([referents]), torch.tensor([valid], dtype=torch.bool))
    assert mask.shape == (1, 1, len(referents), len(referents))
    assert _rows(mask[0, 0]) == expected


def test_padding_mask_keeps_real_keys_and_the_diagonal():
    mask = padding_mask(torch.tensor([[1, 1, 0]], dtype=torch.bool))
    assert _rows(mask[0, 0]) == ["110", "110", "111"]


def test_symmetry_masks_split_across_heads():
    sym = torch.tensor([[[1, 1, 0], [0, 1, 1], [0, 0, 1]]], dtype=torch.bool)
    valid = torch.tensor([[1, 1, 1]], dtype=torch.bool)
    masks = symmetry_masks(sym, valid, (2, 1, 1))
    assert masks.shape == (1, 4, 3, 3)
    assert _rows(masks[0, 0]) == _rows(masks[0, 1]) == ["110", "011", "001"]
    assert _rows(masks[0, 2]) == ["100", "110", "011"]  # transposed
    assert _rows(masks[0, 3]) == ["111", "111", "111"]  # unmasked


@pytest.mark.parametrize("hadamard", [False, True])
def test_no_nan_and_padding_changes_nothing(hadamard):
    """Real tokens' outputs ignore whatever sits in padded positions, and no
    row is empty (an empty row would be NaN)."""
    torch.manual_seed(0)
    config = ModelConfig(d_model=16, n_head=4, dropout=0.0)
    attn = SelfAttention(config).eval()
    B, T, real = 2, 6, 4
    valid = torch.zeros(B, T, dtype=torch.bool)
    valid[:, :real] = True
    refs = torch.tensor([[1, 0, 1, 2, 0, 0], [0, 0, 0, 0, 0, 0]])
    x = torch.randn(B, T, 16)
    y = x.clone()
    y[:, real:] = torch.randn(B, T - real, 16) * 100
    sym = torch.rand(B, T, T) > 0.5
    for mask in (padding_mask(valid), referent_mask(refs, valid), symmetry_masks(sym, valid, (2, 1, 1))):
        mult = None
        if hadamard:
            mult, mask = mask.expand(B, 4, T, T).float(), padding_mask(valid)
        a, b = attn(x, mask, mult), attn(y, mask, mult)
        assert not torch.isnan(a).any() and not torch.isnan(b).any()
        assert torch.allclose(a[:, :real], b[:, :real], atol=1e-6)


def test_hadamard_masking_is_the_papers_product_not_minus_infinity():
    """A masked score becomes 0 (still weighted by exp(0)), so Hadamard and
    additive masking give different outputs for the same mask."""
    torch.manual_seed(1)
    config = ModelConfig(d_model=8, n_head=1, dropout=0.0)
    attn = SelfAttention(config).eval()
    x = torch.randn(1, 3, 8)
    valid = torch.ones(1, 3, dtype=torch.bool)
    mask = torch.tensor([[[[1, 0, 0], [0, 1, 0], [0, 0, 1]]]], dtype=torch.bool)
    additive = attn(x, mask | torch.eye(3, dtype=torch.bool))
    product = attn(x, padding_mask(valid), mask.float())
    assert not torch.allclose(additive, product)
    # with the identity mask, additive masking makes each token attend only to itself
    v = attn.qkv(x).split(8, dim=2)[2]
    assert torch.allclose(additive, attn.proj(v), atol=1e-6)
