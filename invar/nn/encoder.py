"""The encoder every architecture shares, and the network with its head.

Dimensions:
    B  batch     T  tokens (padded)     C  width (d_model)     H  heads     F  feed-forward width

Pre-LayerNorm Transformer blocks (as nanoGPT), or post-LayerNorm ones
(``norm_position="post"``, as fairseq's: each residual sum normalised, and
no final LayerNorm, since every block already ends with one; the decoder's
and the language model's blocks follow the same choice through
:func:`residual` and :func:`final_norm`). What differs between
architectures is chosen once, here, from the config: the token embedding,
its scale (``embed_scaling``), the positions, and which mask each layer's
attention gets.
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn as nn

from .attention import SelfAttention, padding_mask, referent_mask, symmetry_masks
from .config import ModelConfig
from .embeddings import PositionEmbedding, token_embedding
from .heads import head


def residual(
    x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor], norm: nn.Module, post: bool
) -> torch.Tensor:
    """One residual step: pre-LN adds the sublayer of the normalised stream
    to the stream; post-LN normalises the sum of the stream and its sublayer."""
    if post:
        return norm(x + sublayer(x))
    return x + sublayer(norm(x))


def final_norm(config: ModelConfig) -> nn.Module:
    """The LayerNorm after the last block: pre-LN blocks leave the stream
    unnormalised, so it is needed; post-LN blocks end normalised, and
    (as fairseq's post-LN encoder) there is none."""
    return nn.LayerNorm(config.d_model) if config.norm_position == "pre" else nn.Identity()


class MLP(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.d_model, config.ff_width)
        self.act = nn.GELU()
        self.proj = nn.Linear(config.ff_width, config.d_model)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.proj(self.act(self.fc(x))))  # (B, T, C) -> (B, T, F) -> (B, T, C)


class Block(nn.Module):
    """Self-attention and feed-forward layer, pre- or post-LayerNorm."""

    #: the attention layer's class
    attention: type[nn.Module] = SelfAttention

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = self.attention(config)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.mlp = MLP(config)
        self.post = config.norm_position == "post"

    def forward(self, x: torch.Tensor, mask: torch.Tensor, hadamard: torch.Tensor | None) -> torch.Tensor:
        x = residual(x, lambda h: self.attn(h, mask, hadamard), self.ln1, self.post)
        return residual(x, self.mlp, self.ln2, self.post)  # (B, T, C)


class Encoder(nn.Module):
    """Embeddings, positions and ``n_layer`` blocks; (B, T) ids -> (B, T, C)."""

    def __init__(self, config: ModelConfig, interchangeable: torch.Tensor | None = None) -> None:
        super().__init__()
        self.config = config
        self.embed = token_embedding(config, interchangeable)
        self.pos = PositionEmbedding(config)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = final_norm(config)

    def layer_masks(self, batch: dict) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """(bool mask, Hadamard multiplier or None) for every layer."""
        c = self.config
        valid = batch["valid"]
        plain = (padding_mask(valid), None)
        kinds = [c.layer_attention(i) for i in range(c.n_layer)]
        masks = {"none": plain}
        if "referent" in kinds:
            # coreference classes where the batch has them: unknown referents stay apart
            masks["referent"] = (referent_mask(batch.get("corefs", batch["referents"]), valid), None)
        if "symmetry" in kinds:
            per_head = symmetry_masks(batch["symmetry"], valid, c.head_split)  # (B, H, T, T)
            masks["symmetry"] = (
                (per_head, None) if c.symmetry_mask == "additive" else (plain[0], per_head.to(torch.float32))
            )
        return [masks[kind] for kind in kinds]

    def forward(self, batch: dict, embedded: torch.Tensor | None = None) -> torch.Tensor:
        """``embedded``: the tokens' vectors when the caller made them (an
        encoder-decoder shares one draw of random vectors with its decoder),
        unscaled: the scale of ``embed_scaling`` is applied here."""
        x = self.embed(batch) if embedded is None else embedded  # (B, T, C)
        if self.config.embed_scaling != "none":
            x = x * self.config.input_scale
        pos = self.pos(batch)
        if pos is not None:
            x = x + pos
        x = self.drop(x)
        for block, (mask, hadamard) in zip(self.blocks, self.layer_masks(batch)):
            x = block(x, mask, hadamard)
        return self.ln_f(x)  # (B, T, C)


class Network(nn.Module):
    """Encoder plus pooled head: a batch -> one output per program."""

    def __init__(self, config: ModelConfig, interchangeable: torch.Tensor | None = None) -> None:
        super().__init__()
        self.config = config
        self.encoder = Encoder(config, interchangeable)
        self.head = head(config)

    def forward(self, batch: dict) -> torch.Tensor:
        return self.head(self.encoder(batch), batch["valid"])  # (B,) or (B, N)


__all__ = ["Encoder", "Network", "Block", "MLP", "residual", "final_norm"]
