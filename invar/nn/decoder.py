"""The encoder-decoder: the shared encoder, a decoder on the same blocks, and a
tied output projection.

Dimensions:
    B  batch             S  source tokens (padded)     T  target tokens (padded)
    C  width (d_model)   H  heads                      D  head width (C / H)
    V  token ids         R  referent ids

A batch is what :func:`invar.encoding.collate_pairs` makes: the source
(``tokens``, ``views``, ``referents``, ``line_pos``, ``valid``, and
``tree_depth``/``tree_bits`` for tree positions), and the target as the
decoder reads it (``dec_in``: ``<bos>`` then the target tokens) and as it
must write it (``dec_out``: the target tokens then ``<eos>``), padded with 0.

Decoder blocks put their LayerNorms where the encoder's do (``norm_position``:
pre-LN, or post-LN without a final LayerNorm): causal self-attention
with rotary positions (RoPE) on queries and keys, cross-attention to the
encoder's output, and the feed-forward layer. The decoder's input vectors
are scaled as the encoder's (``embed_scaling``), the output rows never. ``scaled_dot_product_attention``
does the attention; decoding token by token keeps each layer's keys and
values (:class:`Cache`), so a step costs one token.

The output projection is the token embedding (``tie_output``): the logit of
token v is the decoder's feature against v's vector. For ``dualpart`` and
``lexinvariant`` embeddings the vectors of interchangeable tokens come from
the random vectors drawn for the sequence (:meth:`Seq2Seq.start`), the same
that embed the encoder's and the decoder's inputs, so a token never seen in
training is read and written alike. With ``normalize_features`` features and
rows are L2-normalised and the logits are cosines times a scale: fixed at
AdaCos's starting value, or (``adacos``) adapted at every training step, as
AdaCos does, and clipped at :data:`ADACOS_MAX`.

Tokens that are never written get -inf: padding, ``<bos>`` and the unknown
tokens; with ``restrict_output``, also the interchangeable tokens (APs,
symbols) that the sequence's source does not hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import SelfAttention
from .config import ModelConfig
from .encoder import MLP, Encoder, final_norm, residual

#: AdaCos's adaptive scale is clipped here (as the interchangeable-token paper does)
ADACOS_MAX = 100.0
ROPE_BASE = 10000.0


def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Rotary positions: (B, H, T, D) rotated by the angle of each position
    (T,), pairs of dimensions split in halves (GPT-NeoX's layout)."""
    D = x.shape[-1]
    inv = ROPE_BASE ** (-torch.arange(0, D, 2, device=x.device, dtype=torch.float32) / D)  # (D/2,)
    angles = positions.to(torch.float32)[:, None] * inv[None, :]  # (T, D/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., : D // 2], x[..., D // 2 :]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def _heads(t: torch.Tensor, n_head: int) -> torch.Tensor:
    B, T, C = t.shape
    return t.view(B, T, n_head, C // n_head).transpose(1, 2)  # (B, H, T, D)


class CausalSelfAttention(SelfAttention):
    """Multi-head causal self-attention with rotary queries and keys (the
    encoder's projections, :class:`~invar.nn.attention.SelfAttention`)."""

    def forward(self, x: torch.Tensor, positions: torch.Tensor, cache: dict | None = None) -> torch.Tensor:
        """``x`` (B, T, C) at ``positions`` (T,). With ``cache``, the keys and
        values of earlier positions are read from it and this call's appended
        (decoding one token at a time: T = 1 attends to everything cached)."""
        B, T, C = x.shape
        q, k, v = (_heads(t, self.n_head) for t in self.qkv(x).split(C, dim=2))  # (B, H, T, D)
        q, k = rotate(q, positions), rotate(k, positions)
        causal = True
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
                causal = T > 1
            cache["k"], cache["v"] = k, v
        p = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, is_causal=causal and T > 1, dropout_p=p)  # (B, H, T, D)
        return self.drop(self.proj(y.transpose(1, 2).contiguous().view(B, T, C)))


class CrossAttention(nn.Module):
    """The decoder's queries against the encoder's output (its keys and values)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.q = nn.Linear(config.d_model, config.d_model)
        self.kv = nn.Linear(config.d_model, 2 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.dropout = config.dropout
        self.drop = nn.Dropout(config.dropout)

    def memory(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, S, C) -> keys and values (B, H, S, D), computed once per sequence."""
        k, v = self.kv(memory).split(memory.shape[-1], dim=2)
        return _heads(k, self.n_head), _heads(v, self.n_head)

    def forward(self, x: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q = _heads(self.q(x), self.n_head)  # (B, H, T, D)
        p = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, kv[0], kv[1], attn_mask=mask, dropout_p=p)  # (B, H, T, D)
        return self.drop(self.proj(y.transpose(1, 2).contiguous().view(B, T, C)))


class DecoderBlock(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = CausalSelfAttention(config)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.cross = CrossAttention(config)
        self.ln3 = nn.LayerNorm(config.d_model)
        self.mlp = MLP(config)
        self.post = config.norm_position == "post"

    def forward(
        self, x: torch.Tensor, positions: torch.Tensor, kv, mask: torch.Tensor, cache: dict | None = None
    ) -> torch.Tensor:
        x = residual(x, lambda h: self.attn(h, positions, cache), self.ln1, self.post)
        x = residual(x, lambda h: self.cross(h, kv, mask), self.ln2, self.post)
        return residual(x, self.mlp, self.ln3, self.post)  # (B, T, C)


@dataclass
class State:
    """What decoding a batch needs beyond the tokens written so far."""

    #: per layer, the encoder output's keys and values for cross-attention
    memory: list
    #: (B, 1, 1, S) the source tokens each query may attend to
    mask: torch.Tensor
    #: the random vectors drawn for each sequence (None for learned embeddings)
    tables: torch.Tensor | None
    #: (V, C) or (B, V, C): the output projection's rows
    rows: torch.Tensor
    #: (B, V) the tokens each sequence may write
    allowed: torch.Tensor

    def select(self, index: torch.Tensor) -> "State":
        """The state of the sequences at ``index`` (beam search reorders beams)."""
        pick = lambda t: None if t is None else t.index_select(0, index)  # noqa: E731
        return State(
            [(k.index_select(0, index), v.index_select(0, index)) for k, v in self.memory],
            self.mask.index_select(0, index),
            pick(self.tables),
            self.rows if self.rows.dim() == 2 else self.rows.index_select(0, index),
            self.allowed.index_select(0, index),
        )


class Cache:
    """Each decoder layer's self-attention keys and values so far."""

    def __init__(self, n_layer: int) -> None:
        self.layers: list[dict] = [{} for _ in range(n_layer)]
        self.length = 0

    def select(self, index: torch.Tensor) -> None:
        for c in self.layers:
            if c:
                c["k"], c["v"] = c["k"].index_select(0, index), c["v"].index_select(0, index)


class Seq2Seq(nn.Module):
    """Encoder, decoder and tied output projection: a batch of sources and
    targets -> scores (B, T, V) (:meth:`forward`, teacher forcing), a loss
    (:meth:`loss`), and one decoding step at a time (:meth:`start`,
    :meth:`step`) for :mod:`invar.nn.generate`.

    ``interchangeable`` (V,): the token ids that name something (APs);
    ``out_views``, ``out_referents`` (V,): the view and referent each token id
    names (0 for the others), with which its output row and its decoder input
    are built; ``never`` (V,): token ids never written."""

    def __init__(
        self,
        config: ModelConfig,
        interchangeable: torch.Tensor,
        out_views: torch.Tensor,
        out_referents: torch.Tensor,
        never: torch.Tensor,
    ) -> None:
        super().__init__()
        self.config = config
        self.encoder = Encoder(config, interchangeable)
        self.blocks = nn.ModuleList(DecoderBlock(config) for _ in range(config.n_decoder_layer))
        self.drop = nn.Dropout(config.dropout)
        self.ln_f = final_norm(config)
        self.register_buffer("interchangeable", interchangeable.bool(), persistent=False)
        self.register_buffer("out_views", out_views.long(), persistent=False)
        self.register_buffer("out_referents", out_referents.long(), persistent=False)
        self.register_buffer("never", never.bool(), persistent=False)
        if not config.tie_output:
            self.out = nn.Linear(config.d_model, config.n_tokens, bias=False)
            nn.init.normal_(self.out.weight, std=0.02)
        # AdaCos's starting scale, sqrt(2) log(V - 1); adapted in training with ``adacos``
        start = math.sqrt(2) * math.log(max(config.n_tokens - 1, 2))
        self.register_buffer("scale", torch.tensor(start))

    @property
    def embed(self) -> nn.Module:
        return self.encoder.embed

    # ------------------------------------------------------------- pieces
    def start(self, batch: dict) -> State:
        """Draw the sequences' random vectors, encode the sources, build the
        output rows and the tokens each sequence may write."""
        tokens = batch["tokens"]
        B = tokens.shape[0]
        tables = self.embed.sequence_tables(B, tokens.device)
        x = self.embed.embed_with(tokens, batch["views"], batch["referents"], tables)  # (B, S, C)
        memory = self.encoder(batch, embedded=x)  # (B, S, C)
        mask = batch["valid"][:, None, None, :]  # (B, 1, 1, S)
        kv = [block.cross.memory(memory) for block in self.blocks]
        rows = (
            self.out.weight
            if not self.config.tie_output
            else self.embed.rows(tables, self.out_views, self.out_referents)
        )
        if self.config.normalize_features:
            rows = F.normalize(rows, dim=-1)
        allowed = (~self.never).expand(B, -1).clone()  # (B, V)
        if self.config.restrict_output:
            present = torch.zeros_like(allowed)
            present.scatter_(1, tokens, batch["valid"])
            allowed &= present | ~self.interchangeable
        return State(kv, mask, tables, rows, allowed)

    def _decode(self, ids: torch.Tensor, state: State, positions: torch.Tensor, cache: Cache | None) -> torch.Tensor:
        """(B, T) token ids written so far -> scores (B, T, V)."""
        x = self.embed.embed_with(ids, self.out_views[ids], self.out_referents[ids], state.tables)  # (B, T, C)
        if self.config.embed_scaling != "none":
            x = x * self.config.input_scale
        x = self.drop(x)
        for i, block in enumerate(self.blocks):
            x = block(x, positions, state.memory[i], state.mask, cache.layers[i] if cache is not None else None)
        h = self.ln_f(x)  # (B, T, C)
        if self.config.normalize_features:
            h = F.normalize(h, dim=-1)
        rows = state.rows if state.rows.dim() == 3 else state.rows.unsqueeze(0)  # (B or 1, V, C)
        return h @ rows.transpose(1, 2)  # (B, T, V)

    def forward(self, batch: dict) -> torch.Tensor:
        """Teacher forcing: scores (B, T, V) for every target position, -inf
        where a token may not be written (a position's own target always may)."""
        state = self.start(batch)
        ids = batch["dec_in"]
        scores = self._decode(ids, state, torch.arange(ids.shape[1], device=ids.device), None)
        allowed = state.allowed.unsqueeze(1).expand_as(scores).clone()  # (B, T, V)
        allowed.scatter_(2, batch["dec_out"].unsqueeze(-1), True)
        return scores.masked_fill(~allowed, float("-inf"))

    def logits(self, scores: torch.Tensor) -> torch.Tensor:
        """Scores -> logits: cosines times the scale when features are normalised."""
        return scores * self.scale if self.config.normalize_features else scores

    def loss(self, scores: torch.Tensor, batch: dict) -> torch.Tensor:
        """Cross-entropy over the real target positions (padding excluded);
        with ``adacos``, the scale is first adapted to this batch (training only)."""
        targets = batch["dec_out"]
        valid = targets > 0
        s, t = scores[valid], targets[valid]  # (N, V), (N,)
        if self.config.adacos and self.training:
            self._adapt(s.detach(), t)
        return F.cross_entropy(self.logits(s), t)

    @torch.no_grad()
    def _adapt(self, cos: torch.Tensor, target: torch.Tensor) -> None:
        """AdaCos: s = log B_avg / cos(min(pi/4, median target angle)), where
        B_avg is the mean over positions of the summed exp(s cos) of the other
        tokens; clipped to [1, ADACOS_MAX]."""
        if not len(target):
            return
        onehot = F.one_hot(target, cos.shape[-1]).bool()
        others = torch.exp(self.scale * cos).masked_fill(onehot, 0.0).sum(dim=1)  # (N,)
        theta = torch.acos(cos.gather(1, target[:, None]).squeeze(1).clamp(-1 + 1e-7, 1 - 1e-7))
        new = torch.log(others.mean().clamp(min=1e-12)) / torch.cos(theta.median().clamp(max=math.pi / 4))
        if torch.isfinite(new):
            self.scale.fill_(float(new.clamp(1.0, ADACOS_MAX)))

    # ------------------------------------------------------------ decoding
    def new_cache(self) -> Cache:
        return Cache(len(self.blocks))

    def step(self, ids: torch.Tensor, state: State, cache: Cache) -> torch.Tensor:
        """The newest token of each sequence (B, 1) -> log-probabilities of
        the next (B, V), the keys and values kept in ``cache``."""
        positions = torch.tensor([cache.length], device=ids.device)
        scores = self._decode(ids, state, positions, cache)[:, -1]  # (B, V)
        cache.length += 1
        logits = self.logits(scores).masked_fill(~state.allowed, float("-inf"))
        return F.log_softmax(logits, dim=-1)


__all__ = ["Seq2Seq", "State", "Cache", "rotate", "CausalSelfAttention", "CrossAttention", "DecoderBlock", "ADACOS_MAX"]
