"""Decoding: greedy and beam search over :class:`~invar.nn.decoder.Seq2Seq`.

Dimensions:
    B  batch     K  beam width     V  token ids

Both write token by token from ``<bos>`` until ``<eos>`` or ``max_len``
tokens, reading the network's keys and values from a cache, so each step
runs one token through the decoder. Both rank by log-probability: greedy
takes the most probable token at each step; beam search keeps the K most
probable prefixes (summed log-probabilities, no length penalty) and returns
the most probable finished sequence, or the most probable prefix when none
finished within ``max_len``. With K = 1 beam search takes exactly greedy's
choices: both call the same step on the same batch, and a prefix's score is
its last token's log-probability plus a constant.
"""

from __future__ import annotations

import torch

from .decoder import Seq2Seq


@torch.inference_mode()
def greedy(net: Seq2Seq, batch: dict, *, bos: int, eos: int, max_len: int) -> list[list[int]]:
    """The most probable token at each step, for every sequence of ``batch``;
    each list ends before ``<eos>``."""
    state = net.start(batch)
    B = batch["tokens"].shape[0]
    cache = net.new_cache()
    ids = torch.full((B, 1), bos, dtype=torch.long, device=batch["tokens"].device)
    out: list[list[int]] = [[] for _ in range(B)]
    done = [False] * B
    for _ in range(max_len):
        nxt = net.step(ids, state, cache).argmax(dim=-1)  # (B,)
        for b, t in enumerate(nxt.tolist()):
            if not done[b]:
                if t == eos:
                    done[b] = True
                else:
                    out[b].append(t)
        if all(done):
            break
        ids = nxt.unsqueeze(1)
    return out


@torch.inference_mode()
def beam_search(net: Seq2Seq, batch: dict, *, beam: int, bos: int, eos: int, max_len: int) -> list[list[int]]:
    """The most probable sequence found with ``beam`` prefixes kept per
    sequence of ``batch`` (see the module docstring)."""
    K = beam
    B = batch["tokens"].shape[0]
    device = batch["tokens"].device
    index = torch.arange(B, device=device).repeat_interleave(K)  # (B K,)
    state = net.start(batch).select(index)
    cache = net.new_cache()
    scores = torch.full((B, K), float("-inf"), device=device)
    scores[:, 0] = 0.0  # every beam starts as the same prefix: keep one
    prefixes: list[list[int]] = [[] for _ in range(B * K)]
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(B)]
    open_ = [True] * B
    ids = torch.full((B * K, 1), bos, dtype=torch.long, device=device)
    for _ in range(max_len):
        logp = net.step(ids, state, cache)  # (B K, V)
        V = logp.shape[-1]
        cand = (scores.view(B * K, 1) + logp).view(B, K * V)
        top_scores, top = cand.topk(min(2 * K, K * V), dim=1)  # (B, 2K)
        new_scores = torch.full((B, K), float("-inf"), device=device)
        parents = torch.zeros(B, K, dtype=torch.long, device=device)
        tokens = torch.full((B, K), eos, dtype=torch.long, device=device)
        new_prefixes = [[] for _ in range(B * K)]
        ts, tt = top_scores.tolist(), top.tolist()
        for b in range(B):
            if not open_[b]:
                continue
            kept = 0
            for score, flat in zip(ts[b], tt[b]):
                if score == float("-inf"):
                    break
                parent, token = divmod(flat, V)
                prefix = prefixes[b * K + parent]
                if token == eos:
                    if kept < K:  # a finished sequence ranked among the K best
                        finished[b].append((score, prefix))
                    continue
                if kept < K:
                    new_scores[b, kept] = score
                    parents[b, kept] = parent
                    tokens[b, kept] = token
                    new_prefixes[b * K + kept] = prefix + [token]
                    kept += 1
            best_open = new_scores[b, 0].item()
            # prefixes only lose probability as they grow: once the best
            # finished sequence is at least as probable as every open prefix,
            # nothing can beat it
            if kept == 0 or (finished[b] and max(s for s, _ in finished[b]) >= best_open):
                open_[b] = False
        if not any(open_):
            break
        scores = new_scores
        prefixes = new_prefixes
        order = (torch.arange(B, device=device).unsqueeze(1) * K + parents).view(-1)  # (B K,)
        state = state.select(order)
        cache.select(order)
        ids = tokens.view(B * K, 1)
    out = []
    for b in range(B):
        if finished[b]:
            out.append(max(finished[b], key=lambda sp: sp[0])[1])
        else:  # nothing finished within max_len: the most probable prefix
            out.append(prefixes[b * K])
    return out


def generate(net: Seq2Seq, batch: dict, *, beam: int, bos: int, eos: int, max_len: int) -> list[list[int]]:
    """Greedy decoding for ``beam`` 1, beam search otherwise."""
    if beam == 1:
        return greedy(net, batch, bos=bos, eos=eos, max_len=max_len)
    return beam_search(net, batch, beam=beam, bos=bos, eos=eos, max_len=max_len)


__all__ = ["greedy", "beam_search", "generate"]
