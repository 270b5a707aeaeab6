"""The deciphering probe of the lexinvariant paper (section 3.3): read the
key of a substitution cipher back from a frozen language model.

Dimensions:
    B  batch     T  tokens     C  the LM's width     H  the probe's hidden width
    V  token ids     S  cipher symbols

A **substitution cipher** over ``symbols`` (the token ids of a–z for a
character LM) maps each symbol through one permutation of the symbols and
leaves every other token as it is; each sequence gets its own key
(:func:`substitute`). The **probe** (:class:`DecipherProbe`) is a two-layer
MLP over the frozen LM's last hidden state at each position
(:meth:`~invar.nn.lm.LanguageModel.features`), decoded against its own
learned, non-random output embedding E' (V × C): at position i it predicts
the *plain* token at i, i.e. it deciphers the current token from what the LM
has read up to and including it. :func:`train_probe` trains it as the paper
does: the LM frozen (evaluation mode, no gradient, never handed to the
optimiser), a fresh random table per sequence for a lexinvariant LM (as in
its training), a fresh key per sequence.

**Key read-out** (:func:`cipher_key`): over a window of positions, each
cipher symbol seen there is deciphered to the token the probe predicts most
often at its occurrences (majority vote; ties go to the lowest id);
:func:`key_precision` is the share of those votes the true key agrees with.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .adamw import AdamW
from .embeddings import LexinvariantEmbedding
from .lm import LanguageModel


class DecipherProbe(nn.Module):
    """Two-layer MLP (C -> H -> C) and a learned output embedding E' (V, C):
    (B, T, C) hidden states -> (B, T, V) logits of the plain token."""

    def __init__(self, d_model: int, n_tokens: int, hidden: int = 0) -> None:
        super().__init__()
        hidden = hidden or 2 * d_model
        self.mlp = nn.Sequential(nn.Linear(d_model, hidden), nn.GELU(), nn.Linear(hidden, d_model))
        self.out = nn.Parameter(torch.randn(n_tokens, d_model) * 0.02)  # E'

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.mlp(h) @ self.out.t()  # (B, T, V)


def seed_all(seed: int) -> torch.Generator:
    """Seed Python's, numpy's and torch's generators; a CPU generator of ``seed``."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def fresh_tables(network: LanguageModel, B: int, generator: torch.Generator, device) -> torch.Tensor | None:
    """(B, V, C): a fresh Gaussian table per sequence for a pure lexinvariant
    LM, as it trains; otherwise what the LM reads at inference (None for a
    learned table)."""
    embed = network.embed
    if isinstance(embed, LexinvariantEmbedding) and embed.p is None:
        return torch.randn(B, *embed.fixed.shape, generator=generator).to(device)
    return embed.sequence_tables(B, device)


def substitute(
    ids: torch.Tensor, symbols: torch.Tensor, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T) plain ids -> (B, T) ciphered ids and (B, V) each sequence's key
    (plain id -> cipher id, the identity off ``symbols``): a uniformly random
    permutation of ``symbols`` (S,) per sequence. V is one past the largest
    id in ``ids`` or ``symbols``."""
    B = ids.shape[0]
    V = int(max(ids.max(), symbols.max())) + 1
    order = torch.rand(B, len(symbols), generator=generator).argsort(dim=1).to(ids.device)  # (B, S)
    keys = torch.arange(V, device=ids.device).repeat(B, 1)  # (B, V)
    keys[:, symbols.to(ids.device)] = symbols.to(ids.device)[order]
    return keys.gather(1, ids), keys


def probe_logits(
    network: LanguageModel, probe: DecipherProbe, ciphered: torch.Tensor, tables: torch.Tensor | None
) -> torch.Tensor:
    """(B, T) ciphered ids -> (B, T, V) the probe's logits of each plain
    token; the LM runs in evaluation mode without gradient."""
    was = network.training
    network.eval()
    try:
        with torch.no_grad():
            h = network.features(ciphered, tables)  # (B, T, C)
    finally:
        network.train(was)
    return probe(h)


def train_probe(
    network: LanguageModel,
    windows: torch.Tensor,
    symbols: torch.Tensor,
    *,
    steps: int,
    batch_size: int = 32,
    lr: float = 1e-3,
    hidden: int = 0,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> tuple[DecipherProbe, list[float]]:
    """Train a probe on the frozen ``network``: each step draws
    ``batch_size`` of the (N, T) plain ``windows``, a key per window over
    ``symbols`` and a table per window, and minimises the cross-entropy of
    the plain token at every position. Returns the probe (evaluation mode)
    and each step's loss. Reproducible by ``seed``."""
    generator = seed_all(seed)
    probe = DecipherProbe(network.config.d_model, network.config.n_tokens, hidden).to(device)
    optimiser = AdamW(probe.parameters(), lr=lr)
    losses = []
    probe.train()
    for _ in range(steps):
        pick = torch.randint(len(windows), (min(batch_size, len(windows)),), generator=generator)
        plain = windows[pick].to(device)  # (B, T)
        ciphered, _ = substitute(plain, symbols, generator)
        logits = probe_logits(network, probe, ciphered, fresh_tables(network, len(plain), generator, device))
        loss = F.cross_entropy(logits.transpose(1, 2), plain)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    probe.eval()
    return probe, losses


@torch.no_grad()
def decipher(
    network: LanguageModel,
    probe: DecipherProbe,
    plain: torch.Tensor,
    symbols: torch.Tensor,
    *,
    seed: int = 0,
    batch_size: int = 64,
    device: str | torch.device = "cpu",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cipher each of the (N, T) ``plain`` windows with its own key (seeded)
    and decipher it with the probe: (N, T) ciphered ids, (N, T) the probe's
    deciphered ids and (N, V) the keys (plain id -> cipher id)."""
    generator = torch.Generator().manual_seed(seed)
    ciphered, keys = substitute(plain, symbols, generator)
    out = []
    for lo in range(0, len(plain), batch_size):
        part = ciphered[lo : lo + batch_size].to(device)
        tables = fresh_tables(network, len(part), generator, device)
        out.append(probe_logits(network, probe, part, tables).argmax(dim=-1).cpu())
    return ciphered.numpy(), torch.cat(out).numpy(), keys.numpy()


def cipher_key(ciphered: Sequence[int], deciphered: Sequence[int], symbols: Sequence[int]) -> dict[int, int]:
    """Majority vote over one window: each cipher symbol (of ``symbols``)
    seen in ``ciphered`` -> the id most often in ``deciphered`` at its
    positions (ties: the lowest id). Symbols not seen have no entry."""
    c = np.asarray(ciphered, dtype=np.int64)
    d = np.asarray(deciphered, dtype=np.int64)
    seen = np.isin(c, np.asarray(symbols, dtype=np.int64))
    c, d = c[seen], d[seen]
    if not len(c):
        return {}
    V = int(max(c.max(), d.max())) + 1
    votes = np.bincount(c * V + d, minlength=V * V).reshape(V, V)  # (cipher, deciphered)
    rows = np.unique(c)
    return dict(zip(rows.tolist(), votes[rows].argmax(axis=1).tolist()))


def key_precision(predicted: dict[int, int], true: dict[int, int]) -> float:
    """The share of ``predicted`` (cipher -> plain) entries that ``true``
    (cipher -> plain) holds; NaN for an empty prediction."""
    if not predicted:
        return float("nan")
    return sum(true.get(c) == p for c, p in predicted.items()) / len(predicted)


def inverse_key(key: Sequence[int], symbols: Sequence[int]) -> dict[int, int]:
    """A (V,) key (plain id -> cipher id) as cipher -> plain over ``symbols``."""
    return {int(key[s]): int(s) for s in symbols}


__all__ = [
    "DecipherProbe",
    "seed_all",
    "fresh_tables",
    "substitute",
    "probe_logits",
    "train_probe",
    "decipher",
    "cipher_key",
    "key_precision",
    "inverse_key",
]
