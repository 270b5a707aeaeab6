"""Token and position embeddings.

Dimensions:
    B  batch              T  tokens (padded)          C  width (d_model)
    V  token ids          W  view ids                 R  referent ids
    Dl learned part       Dr random part (dualpart: Dl + Dr = C)

A batch is the dict of :func:`invar.encoding.collate`: ``tokens``, ``views``,
``referents``, ``line_pos`` (B, T) and ``valid`` (B, T), and for the
pinned-token view embedding ``pinned`` (B, T).

The random embeddings draw fresh vectors on every forward pass in training
and read a table fixed by ``config.seed`` at inference, so a trained model
predicts deterministically and independently of how programs are batched.

For generation (:mod:`invar.nn.decoder`) and the language model
(:mod:`invar.nn.lm`) the random vectors are drawn once per sequence and
forward pass (:meth:`DualPartEmbedding.sequence_tables`,
:meth:`LexinvariantEmbedding.sequence_tables`), or with
``random_draw="batch"`` once per forward pass for the whole batch (the
interchangeable-token paper's code), and shared three ways: the encoder's
input, the decoder's input and the rows of the output projection
(``rows``), so a token is read and written through one vector. What the
blocks read may then be scaled (``embed_scaling``; the callers multiply by
:attr:`ModelConfig.input_scale`); the rows never are.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import INIT_STD, ModelConfig


def _embedding(n: int, dim: int) -> nn.Embedding:
    table = nn.Embedding(n, dim)
    nn.init.normal_(table.weight, std=INIT_STD)
    return table


# ------------------------------------------------------------ random vectors
def draw_random(
    n: int, dim: int, kind: str, generator: torch.Generator | None = None, device: torch.device | str | None = None
) -> torch.Tensor:
    """(n, dim) random vectors: ``normal``; ``grid``: distinct nonzero points
    of {-1, 0, 1}^dim (the neighbours of the origin); ``hypercube``: distinct
    vertices of {-1, 1}^dim. Duplicates are redrawn until none is left."""
    if kind == "normal":
        return torch.randn(n, dim, generator=generator, device=device)
    low = -1 if kind == "grid" else 0

    def draw(m: int) -> torch.Tensor:
        x = torch.randint(low, 2, (m, dim), generator=generator, device=device)
        return (x * 2 - 1) if kind == "hypercube" else x

    out = draw(n)
    while True:
        bad = torch.zeros(n, dtype=torch.bool, device=out.device)
        if kind == "grid":
            bad |= (out == 0).all(dim=1)
        _, inverse, counts = torch.unique(out, dim=0, return_inverse=True, return_counts=True)
        dup = counts[inverse] > 1
        if dup.any():  # keep the first of each repeated row
            first = torch.full((len(counts),), n, dtype=torch.long, device=out.device)
            first = first.scatter_reduce(0, inverse, torch.arange(n, device=out.device), reduce="amin")
            bad |= dup & (torch.arange(n, device=out.device) != first[inverse])
        if not bad.any():
            return out.float()
        out[bad] = draw(int(bad.sum()))


def _seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def first_occurrence(ids: torch.Tensor) -> torch.Tensor:
    """(B, T) -> (B, T): index of the first position holding the same id."""
    same = ids[:, :, None] == ids[:, None, :]  # (B, T, T)
    return same.to(torch.uint8).argmax(dim=-1)


# ------------------------------------------------------------ token embeddings
class LearnedEmbedding(nn.Module):
    """One learned vector per token id (``learned``) or per view (``view``)."""

    def __init__(self, config: ModelConfig, key: str) -> None:
        super().__init__()
        self.key = key
        self.table = _embedding(config.n_tokens if key == "tokens" else config.n_views, config.d_model)

    def forward(self, batch: dict) -> torch.Tensor:
        return self.table(batch[self.key])  # (B, T, C)

    # ----------------------------------------------------------- generation
    def sequence_tables(self, B: int, device) -> None:
        return None

    def embed_with(self, tokens: torch.Tensor, views: torch.Tensor, referents: torch.Tensor, tables) -> torch.Tensor:
        return self.table(tokens)  # (B, T, C)

    def rows(self, tables, out_views: torch.Tensor, out_referents: torch.Tensor) -> torch.Tensor:
        return self.table.weight  # (V, C)


class PinnedViewEmbedding(LearnedEmbedding):
    """``view`` embeddings, except that a token whose referent is outside
    its program's renaming space (``batch['pinned']``: ``%rsp`` under
    ``push``, an implicit operand) keeps a learned vector of its own: what a
    renaming keeps, the model may read, and the identity of a pinned register
    is kept. ``by_token`` has a row for every token id, but only the rows of
    pinned tokens are ever read (and trained)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config, "views")
        self.by_token = _embedding(config.n_tokens, config.d_model)

    def forward(self, batch: dict) -> torch.Tensor:
        pinned = batch["pinned"][..., None]  # (B, T, 1)
        return torch.where(pinned, self.by_token(batch["tokens"]), self.table(batch["views"]))  # (B, T, C)

    def embed_with(self, *args, **kwargs):  # a view embedding never generates (ModelConfig.validate)
        raise NotImplementedError("view embeddings do not generate")

    rows = embed_with


class DualPartEmbedding(nn.Module):
    """Interchangeable-token embeddings: a token with a referent is a learned
    part shared by its view concatenated with a random part of its referent;
    a token with none is a learned vector padded with zeros. Each part and
    the whole are L2-normalised."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.kind = config.random_part
        self.per_batch = config.random_draw == "batch"
        self.dr = config.random_dims
        dl = config.d_model - self.dr
        self.by_token = _embedding(config.n_tokens, dl)
        self.by_view = _embedding(config.n_views, dl)
        self.n_referents = config.n_referents
        self.register_buffer(
            "fixed", draw_random(config.n_referents, self.dr, self.kind, _seeded(config.seed)), persistent=False
        )

    def random_table(self) -> torch.Tensor:
        """(R, Dr): fresh in training, the seeded table at inference."""
        if self.training:
            return draw_random(self.n_referents, self.dr, self.kind, device=self.fixed.device)
        return self.fixed

    def forward(self, batch: dict) -> torch.Tensor:
        refs = batch["referents"]
        named = (refs > 0).unsqueeze(-1)  # (B, T, 1)
        learned = torch.where(named, self.by_view(batch["views"]), self.by_token(batch["tokens"]))  # (B, T, Dl)
        rand = F.normalize(self.random_table()[refs], dim=-1) * named  # (B, T, Dr)
        return F.normalize(torch.cat([F.normalize(learned, dim=-1), rand], dim=-1), dim=-1)  # (B, T, C)

    def reseed(self, seed: int) -> None:
        """Use the inference table of ``seed``."""
        self.fixed = draw_random(self.n_referents, self.dr, self.kind, _seeded(seed)).to(self.fixed.device)

    # ----------------------------------------------------------- generation
    def sequence_tables(self, B: int, device) -> torch.Tensor:
        """(B, R, Dr): a fresh table per sequence in training (one for the
        whole batch with ``random_draw="batch"``); the seeded one for every
        sequence at inference."""
        if not self.training:
            return self.fixed.unsqueeze(0).expand(B, -1, -1)
        if self.per_batch:
            return draw_random(self.n_referents, self.dr, self.kind, device=device).unsqueeze(0).expand(B, -1, -1)
        if self.kind == "normal":
            return torch.randn(B, self.n_referents, self.dr, device=device)
        return torch.stack([draw_random(self.n_referents, self.dr, self.kind, device=device) for _ in range(B)])

    def _combine(self, learned: torch.Tensor, rand: torch.Tensor, named: torch.Tensor) -> torch.Tensor:
        rand = F.normalize(rand, dim=-1) * named
        return F.normalize(torch.cat([F.normalize(learned, dim=-1), rand], dim=-1), dim=-1)

    def embed_with(
        self, tokens: torch.Tensor, views: torch.Tensor, referents: torch.Tensor, tables: torch.Tensor
    ) -> torch.Tensor:
        """(B, T) ids through the per-sequence ``tables`` (B, R, Dr) -> (B, T, C)."""
        named = (referents > 0).unsqueeze(-1)  # (B, T, 1)
        learned = torch.where(named, self.by_view(views), self.by_token(tokens))  # (B, T, Dl)
        rand = tables.gather(1, referents.unsqueeze(-1).expand(-1, -1, self.dr))  # (B, T, Dr)
        return self._combine(learned, rand, named)

    def rows(self, tables: torch.Tensor, out_views: torch.Tensor, out_referents: torch.Tensor) -> torch.Tensor:
        """(B, V, C): every token id's vector, as :meth:`embed_with` gives it,
        with the referent and view each token id names (``out_*``, (V,))."""
        B = tables.shape[0]
        V = out_views.shape[0]
        ids = torch.arange(V, device=tables.device)
        named = (out_referents > 0).unsqueeze(-1)  # (V, 1)
        learned = torch.where(named, self.by_view(out_views), self.by_token(ids))  # (V, Dl)
        rand = tables[:, out_referents]  # (B, V, Dr)
        return self._combine(learned.unsqueeze(0).expand(B, -1, -1), rand, named.unsqueeze(0))


class LexinvariantEmbedding(nn.Module):
    """Lexinvariant embeddings. Pure (``lexinvariant_p is None``): every
    distinct random token of a sequence gets a fresh Gaussian vector E, read
    as s E + b (s a learned scale, b a learned bias); other tokens keep
    learned vectors. ``random_vectors="unit"`` (the paper's): s starts at 1,
    so what is read has unit variance per coordinate, and a tied output
    writes through E / sqrt(C), as T5's tied read-out; ``small``: s starts at
    0.02 and the output writes through s E + b, the vectors read.
    Regularised: a learned table, and in training each distinct random token
    of a sequence is remapped, with probability p, through a random
    permutation of the random tokens (the paper's Appendix F)."""

    def __init__(self, config: ModelConfig, interchangeable: torch.Tensor) -> None:
        super().__init__()
        self.p = config.lexinvariant_p
        self.per_batch = config.random_draw == "batch"
        self.table = _embedding(config.n_tokens, config.d_model)
        if config.random_tokens == "all":
            interchangeable = torch.ones(config.n_tokens, dtype=torch.bool)
            interchangeable[:1] = False  # padding
        self.register_buffer("random_ids", interchangeable.bool(), persistent=False)  # (V,)
        if self.p is None:
            self.unit = config.random_vectors == "unit"
            self.scale = nn.Parameter(torch.tensor(1.0 if self.unit else INIT_STD))
            self.bias = nn.Parameter(torch.zeros(config.d_model))
            self.register_buffer(
                "fixed", torch.randn(config.n_tokens, config.d_model, generator=_seeded(config.seed)), persistent=False
            )

    def random_vectors(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) -> (B, T, C) unit Gaussians, one per distinct token and sequence."""
        if not self.training:
            return self.fixed[tokens]
        fresh = torch.randn(*tokens.shape, self.fixed.shape[1], device=tokens.device)  # (B, T, C)
        first = first_occurrence(tokens)  # (B, T)
        return fresh.gather(1, first.unsqueeze(-1).expand_as(fresh))

    def remap(self, tokens: torch.Tensor) -> torch.Tensor:
        """Per sequence, a random permutation of the random tokens, applied to
        each distinct token with probability p."""
        B, V = tokens.shape[0], len(self.random_ids)
        pool = torch.nonzero(self.random_ids).squeeze(1)  # (P,)
        order = torch.rand(B, len(pool), device=tokens.device).argsort(dim=1)  # (B, P)
        mapping = torch.arange(V, device=tokens.device).repeat(B, 1)  # (B, V)
        mapping[:, pool] = pool[order]
        coin = torch.rand(B, V, device=tokens.device) < self.p  # (B, V)
        mapping = torch.where(coin, mapping, torch.arange(V, device=tokens.device))
        return mapping.gather(1, tokens)

    def remapped(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) -> (B, T): the tokens as the regularised variant reads them,
        remapped (:meth:`remap`) in training; as they are otherwise. With
        p = 0 nothing is drawn, so the model is the learned one exactly, its
        random stream (dropout) included."""
        if self.p is None or not self.training or self.p == 0:
            return tokens
        return self.remap(tokens)

    def forward(self, batch: dict) -> torch.Tensor:
        tokens = batch["tokens"]
        if self.p is not None:
            return self.table(self.remapped(tokens))
        rand = self.scale * self.random_vectors(tokens) + self.bias  # (B, T, C)
        return torch.where(self.random_ids[tokens].unsqueeze(-1), rand, self.table(tokens))

    def reseed(self, seed: int) -> None:
        """Use the inference table of ``seed``."""
        if self.p is None:
            self.fixed = torch.randn(*self.fixed.shape, generator=_seeded(seed)).to(self.fixed.device)

    # ----------------------------------------------------------- generation
    def sequence_tables(self, B: int, device) -> torch.Tensor | None:
        """(B, V, C): one Gaussian vector per token id and sequence (fresh in
        training, one table for the whole batch with ``random_draw="batch"``;
        the seeded table for every sequence at inference); None for the
        regularised variant, whose table is learned."""
        if self.p is not None:
            return None
        if not self.training:
            return self.fixed.unsqueeze(0).expand(B, -1, -1)
        if self.per_batch:
            return torch.randn(*self.fixed.shape, device=device).unsqueeze(0).expand(B, -1, -1)
        return torch.randn(B, *self.fixed.shape, device=device)

    def embed_with(
        self, tokens: torch.Tensor, views: torch.Tensor, referents: torch.Tensor, tables: torch.Tensor | None
    ) -> torch.Tensor:
        if tables is None:  # the regularised variant: ids already remapped (:meth:`remapped`)
            return self.table(tokens)  # (B, T, C)
        rand = self.scale * tables.gather(1, tokens.unsqueeze(-1).expand(-1, -1, tables.shape[-1])) + self.bias
        return torch.where(self.random_ids[tokens].unsqueeze(-1), rand, self.table(tokens))  # (B, T, C)

    def rows(self, tables: torch.Tensor, out_views: torch.Tensor, out_referents: torch.Tensor) -> torch.Tensor:
        """(B, V, C): every token id's vector in each sequence ((V, C), the
        learned table, for the regularised variant): the random vectors as
        read (``small``), or E / sqrt(C) (``unit``: logits of unit scale)."""
        if tables is None:
            return self.table.weight
        rand = tables / math.sqrt(tables.shape[-1]) if self.unit else self.scale * tables + self.bias  # (B, V, C)
        return torch.where(self.random_ids.unsqueeze(-1), rand, self.table.weight.unsqueeze(0))


def token_embedding(config: ModelConfig, interchangeable: torch.Tensor | None = None) -> nn.Module:
    """The token embedding ``config.embedding`` names."""
    if config.embedding == "learned":
        return LearnedEmbedding(config, "tokens")
    if config.embedding == "view":
        return PinnedViewEmbedding(config) if config.pinned_tokens == "token" else LearnedEmbedding(config, "views")
    if config.embedding == "dualpart":
        return DualPartEmbedding(config)
    if interchangeable is None:
        interchangeable = torch.zeros(config.n_tokens, dtype=torch.bool)
    return LexinvariantEmbedding(config, interchangeable)


# --------------------------------------------------------- position embeddings
#: deepest level of a tree position that is encoded (deeper levels are dropped)
TREE_LEVELS = 62


def tree_paths(depth: torch.Tensor, bits: torch.Tensor, levels: int) -> torch.Tensor:
    """(B, T) depths and path bits -> (B, T, 2 levels): DeepLTL's tree
    position, one one-hot pair (first / second child) per level of the path
    from the root, zeros past the token's depth."""
    k = torch.arange(levels, device=depth.device)  # (L,)
    bit = (bits.unsqueeze(-1) >> k) & 1  # (B, T, L)
    on = (k < depth.unsqueeze(-1)).to(torch.float32)  # (B, T, L)
    return torch.stack([on * (1 - bit), on * bit], dim=-1).flatten(-2)  # (B, T, 2L)


class PositionEmbedding(nn.Module):
    """``absolute`` (0 … T-1), ``line`` (reset at every line start, SPE),
    ``tree`` (a formula token's path from the root, projected by a learned
    matrix) or ``none``."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.kind = config.positions
        self.max_len = config.max_len
        if self.kind == "tree":
            self.levels = min(TREE_LEVELS, config.d_model // 2)
            self.proj = nn.Linear(2 * self.levels, config.d_model, bias=False)
            nn.init.normal_(self.proj.weight, std=INIT_STD)
        elif self.kind != "none":
            self.table = _embedding(config.max_len, config.d_model)

    def forward(self, batch: dict) -> torch.Tensor | None:
        if self.kind == "none":
            return None
        if self.kind == "tree":
            if "tree_depth" not in batch:
                raise ValueError("positions='tree' needs the tokens' tree paths: the task must supply them")
            return self.proj(tree_paths(batch["tree_depth"], batch["tree_bits"], self.levels))  # (B, T, C)
        if self.kind == "line":
            return self.table(batch["line_pos"].clamp(max=self.max_len - 1))  # (B, T, C)
        T = batch["tokens"].shape[1]
        return self.table(torch.arange(T, device=batch["tokens"].device)).unsqueeze(0)  # (1, T, C)


__all__ = [
    "draw_random",
    "first_occurrence",
    "LearnedEmbedding",
    "DualPartEmbedding",
    "LexinvariantEmbedding",
    "token_embedding",
    "PositionEmbedding",
    "tree_paths",
    "TREE_LEVELS",
]
