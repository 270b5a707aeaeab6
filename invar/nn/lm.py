"""The decoder-only causal language model (``head="lm"``).

Dimensions:
    B  batch     T  tokens (padded)     C  width (d_model)     V  token ids

A batch is what :func:`invar.encoding.collate` makes (``tokens``, ``valid``,
…): sequences padded at the end. Blocks are the decoder's without
cross-attention: causal self-attention
(``scaled_dot_product_attention(is_causal=True)``) with rotary positions
(RoPE) on queries and keys, then the feed-forward layer, pre-LayerNorm (or
post-LayerNorm, ``norm_position``, as the encoder's). The output
projection is the token embedding itself (``tie_output``): the logit of token
v is the last layer's feature against v's vector. Padding is never written.

Embeddings, as the lexinvariant paper builds them:

* ``learned``: a standard LM;
* ``lexinvariant``: every sequence draws a fresh Gaussian table in training
  (:meth:`~invar.nn.embeddings.LexinvariantEmbedding.sequence_tables`; the
  same token, the same vector within the sequence; ``random_draw="batch"``:
  one table for the batch), times a learned scale plus a learned bias, and
  the output rows are the same vectors; at inference the table of
  ``config.seed``. ``random_tokens="all"`` makes every token random, as the
  paper does, and the vectors are then the paper's (``random_vectors="unit"``):
  read with unit variance per coordinate, E(x) ~ N(0, I) (the learned scale
  starts at 1), and written through E / sqrt(C), T5's tied read-out;
* regularised (``lexinvariant`` with ``lexinvariant_p = p``): a learned table,
  and in training each sequence is read through B_p (Appendix F): one random
  permutation of the random tokens, applied to each distinct token with
  probability p. The remapped sequence is both what the model reads and what
  it must predict.

:func:`continuation` writes a prompt's next tokens greedily (the in-context
tasks score what a model writes).

:meth:`LanguageModel.forward` returns the loss of every position, (B, T - 1):
position t holds -log p(x_{t+1} | x_1 … x_t) in nats, NaN where x_{t+1} is
padding. The first token is never predicted (there is no start token).
Right padding changes no real position's loss: a causal position only sees
positions before it.

**The table permuted along** (lexical permutations, the audit's
``--lexinvariant-table along``): a batch may hold ``along`` (B, V), for each
sequence a bijection sigma of the token ids; the sequence is then read with
its table's row sigma[v] holding token v's vector (:meth:`LanguageModel.tables`).
:func:`along` builds sigma from an original's ids and its variant's. A
lexinvariant model reading a lexically permuted sequence with its table
permuted along computes exactly what it computes on the original (up to
float rounding): every input vector is the original's, and the output logits
are the original's in permuted order, so the softmax's normaliser and the
target's logit are the same. Any completion of the renaming to a bijection
of the vocabulary gives that, so :func:`along` completes it canonically.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..encoding import Encoded, collate
from .config import ModelConfig
from .decoder import CausalSelfAttention
from .embeddings import token_embedding
from .encoder import Block, final_norm, residual


class LMBlock(Block):
    """Causal self-attention (RoPE) and feed-forward layer, pre- or post-LayerNorm."""

    attention = CausalSelfAttention

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = residual(x, lambda h: self.attn(h, positions), self.ln1, self.post)
        return residual(x, self.mlp, self.ln2, self.post)  # (B, T, C)


class LanguageModel(nn.Module):
    """Token embedding, ``n_layer`` causal blocks and the tied projection:
    a batch -> each position's next-token loss (see the module docstring).
    ``interchangeable`` (V,): the token ids that name something (the random
    tokens of ``random_tokens="referents"``)."""

    def __init__(self, config: ModelConfig, interchangeable: torch.Tensor | None = None) -> None:
        super().__init__()
        self.config = config
        self.embed = token_embedding(config, interchangeable)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(LMBlock(config) for _ in range(config.n_layer))
        self.ln_f = final_norm(config)
        if not config.tie_output:
            self.out = nn.Linear(config.d_model, config.n_tokens, bias=False)
            nn.init.normal_(self.out.weight, std=0.02)
        zeros = torch.zeros(config.n_tokens, dtype=torch.long)
        self.register_buffer("no_parts", zeros, persistent=False)  # (V,): the rows API's views and referents

    def read(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) -> (B, T): the sequence as the model reads and predicts it
        (the regularised variant's B_p in training; else the tokens)."""
        remapped = getattr(self.embed, "remapped", None)
        return remapped(tokens) if remapped is not None else tokens

    def features(self, ids: torch.Tensor, tables: torch.Tensor | None) -> torch.Tensor:
        """(B, T) ids read through ``tables`` (the sequences' random vectors,
        or None) -> (B, T, C) the last layer's normalised hidden state, what
        the output projection reads (a probe reads it too)."""
        x = self.embed.embed_with(ids, self.no_parts[ids], self.no_parts[ids], tables)  # (B, T, C)
        if self.config.embed_scaling != "none":
            x = x * self.config.input_scale
        x = self.drop(x)
        positions = torch.arange(ids.shape[1], device=ids.device)
        for block in self.blocks:
            x = block(x, positions)
        return self.ln_f(x)  # (B, T, C)

    def scores(self, ids: torch.Tensor, tables: torch.Tensor | None) -> torch.Tensor:
        """(B, T) ids read through ``tables`` (the sequences' random vectors,
        or None) -> logits (B, T, V) of the next token, padding at -inf."""
        h = self.features(ids, tables)  # (B, T, C)
        if not self.config.tie_output:
            logits = self.out(h)  # (B, T, V)
        else:
            rows = self.embed.rows(tables, self.no_parts, self.no_parts)  # (V, C) or (B, V, C)
            logits = h @ (rows.transpose(0, 1) if rows.dim() == 2 else rows.transpose(1, 2))  # (B, T, V)
        return logits.index_fill(-1, torch.zeros(1, dtype=torch.long, device=ids.device), float("-inf"))

    @property
    def random_table(self) -> bool:
        """Whether the model reads a random table (pure lexinvariant), which
        a lexical permutation can carry along; False for a learned table
        (``learned``, and the regularised variant)."""
        return getattr(self.embed, "p", 0.0) is None

    def tables(self, batch: dict, B: int, device) -> torch.Tensor | None:
        """The batch's per-sequence tables (B, V, C) (None: a learned table);
        with ``batch["along"]`` (B, V) each sequence's table permuted along
        its sigma: row sigma[v] holds what row v held."""
        tables = self.embed.sequence_tables(B, device)
        sigma = batch.get("along")
        if sigma is None or tables is None:
            return tables
        inverse = torch.argsort(sigma, dim=1)  # (B, V): sigma^-1
        return tables.gather(1, inverse.unsqueeze(-1).expand(-1, -1, tables.shape[-1]))  # (B, V, C)

    def forward(self, batch: dict) -> torch.Tensor:
        """(B, T - 1) each position's next-token loss, NaN past the sequence's end."""
        ids = self.read(batch["tokens"])  # (B, T)
        tables = self.tables(batch, ids.shape[0], ids.device)
        logits = self.scores(ids, tables)[:, :-1]  # (B, T-1, V)
        has_target = batch["valid"][:, 1:]  # (B, T-1)
        targets = ids[:, 1:].masked_fill(~has_target, -100)
        nll = F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=-100, reduction="none")  # (B, T-1)
        return nll.masked_fill(~has_target, float("nan"))

    @staticmethod
    def loss(nll: torch.Tensor, batch: dict | None = None) -> torch.Tensor:
        """The mean over every predicted position of the batch (padding
        excluded; 0, with no gradient, when the batch predicts nothing)."""
        predicted = ~torch.isnan(nll)
        return nll.nan_to_num(0.0).sum() / predicted.sum().clamp(min=1)


@torch.no_grad()
def continuation(network: LanguageModel, prompts: torch.Tensor, steps: int) -> torch.Tensor:
    """Greedy decoding in evaluation mode: (B, T) prompts of equal length
    (no padding) -> (B, steps) the next ``steps`` tokens, each the most
    probable given the prompt and the tokens written before it (ties go to
    the lowest id). Every step reads the whole sequence again (no cache):
    answers are short."""
    was = network.training
    network.eval()
    try:
        ids = prompts
        tables = network.embed.sequence_tables(ids.shape[0], ids.device)
        for _ in range(steps):
            nxt = network.scores(ids, tables)[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, nxt], dim=1)
    finally:
        network.train(was)
    return ids[:, prompts.shape[1] :]


def along(
    original: torch.Tensor, variant: torch.Tensor, valid: torch.Tensor, random_ids: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each variant's bijection of the token ids, batched: (B, T) ids of the
    originals and of their variants (position by position; ``valid`` (B, T)
    False on padding), ``random_ids`` (V,) the ids with random vectors ->
    ``sigma`` (B, V) with sigma[original id] = variant id, completed to a
    bijection (ids neither read nor written stay; the written ids not read
    go, in increasing order, to the read ids not written, in increasing
    order), and ``ok`` (B,): whether the variant is a one-to-one map of
    random ids, which is what a table can be permuted along (a row not ok
    gets the identity)."""
    B, V = original.shape[0], random_ids.shape[0]
    ids = torch.arange(V, device=original.device).expand(B, V)  # (B, V)
    src = original.masked_fill(~valid, 0)  # padding reads 0 and writes 0
    dst = variant.masked_fill(~valid, 0)
    sigma = ids.scatter(1, src, dst)  # (B, V); a token read twice keeps one of its writes
    read = torch.zeros(B, V, dtype=torch.bool, device=src.device).scatter(1, src, True)
    written = torch.zeros_like(read).scatter(1, dst, True)
    ok = (sigma.gather(1, src) == dst).all(1) & (read.sum(1) == written.sum(1))  # a function, one-to-one
    ok &= ((sigma == ids) | random_ids.unsqueeze(0)).all(1)  # moves only random ids
    free_src, free_dst = written & ~read, read & ~written  # (B, V), as many of each in a row that is ok
    src_order = torch.argsort(torch.where(free_src, ids, ids + V), dim=1)  # the free sources first, in order
    dst_order = torch.argsort(torch.where(free_dst, ids, ids + V), dim=1)
    first = torch.arange(V, device=src.device).unsqueeze(0) < free_src.sum(1, keepdim=True)  # (B, V)
    sigma = sigma.scatter(1, src_order, torch.where(first, dst_order, sigma.gather(1, src_order)))
    return torch.where(ok.unsqueeze(1), sigma, ids), ok


@torch.no_grad()
def position_losses(
    network: LanguageModel, encoded: Sequence[Encoded], *, batch_size: int = 64, device: str | torch.device = "cpu"
) -> list[np.ndarray]:
    """Each sequence's next-token losses, (len - 1,) in nats, in evaluation
    mode (the seeded table of a lexinvariant model), batched in order."""
    was = network.training
    network.eval()
    out: list[np.ndarray] = []
    try:
        for lo in range(0, len(encoded), batch_size):
            items = encoded[lo : lo + batch_size]
            batch = {k: v.to(device) for k, v in collate(items).items()}
            nll = network(batch).float().cpu().numpy()  # (B, T-1)
            out += [row[: len(e) - 1].astype(np.float64) for row, e in zip(nll, items)]
    finally:
        network.train(was)
    return out


__all__ = ["LanguageModel", "LMBlock", "position_losses", "continuation", "along"]
