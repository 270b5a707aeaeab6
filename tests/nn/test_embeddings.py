"""Embeddings: random parts drawn as specified, fresh in training, fixed at inference."""

from __future__ import annotations

import pytest
import torch

from invar.nn.config import ModelConfig
from invar.nn.embeddings import (
    DualPartEmbedding,
    LexinvariantEmbedding,
    PositionEmbedding,
    draw_random,
    first_occurrence,
)


@pytest.mark.parametrize(
    "n, dim, kind", [(8, 3, "hypercube"), (26, 3, "grid"), (200, 8, "hypercube"), (500, 6, "grid"), (50, 4, "normal")]
)
def test_random_draws(n, dim, kind):
    x = draw_random(n, dim, kind, torch.Generator().manual_seed(0))
    assert x.shape == (n, dim)
    if kind == "hypercube":
        assert set(x.unique().tolist()) == {-1.0, 1.0}
    if kind == "grid":
        assert set(x.unique().tolist()) <= {-1.0, 0.0, 1.0}
        assert not (x == 0).all(dim=1).any(), "the origin is not a neighbour"
    if kind != "normal":  # unique draws, even when they exhaust the space (8 of 8, 26 of 26)
        assert len(torch.unique(x, dim=0)) == n


def test_first_occurrence():
    ids = torch.tensor([[5, 3, 5, 7, 3, 0]])
    assert first_occurrence(ids).tolist() == [[0, 1, 0, 3, 1, 5]]


def _batch(tokens, views, referents):
    t = torch.tensor([tokens])
    return {
        "tokens": t,
        "views": torch.tensor([views]),
        "referents": torch.tensor([referents]),
        "line_pos": torch.zeros_like(t),
        "valid": torch.ones_like(t, dtype=torch.bool),
    }


def test_dualpart_parts_are_normalised_and_shared_per_view():
    config = ModelConfig(embedding="dualpart", n_tokens=10, n_views=5, n_referents=6, d_model=16, random_fraction=0.25)
    emb = DualPartEmbedding(config).eval()
    # tokens 4 and 5 share view 2 with referents 3 and 4; token 6 names nothing
    x = emb(_batch([4, 5, 6, 4], [2, 2, 3, 2], [3, 4, 0, 3]))[0]
    assert torch.allclose(x.norm(dim=-1), torch.ones(4), atol=1e-6)
    dl = 16 - config.random_dims
    assert torch.allclose(x[0, :dl], x[1, :dl])  # the learned part is the view's
    assert not torch.allclose(x[0, dl:], x[1, dl:])  # the random parts tell referents apart
    assert torch.equal(x[0], x[3])  # the same referent, the same vector
    assert torch.count_nonzero(x[2, dl:]) == 0  # no referent, no random part
    assert torch.allclose(x[0, dl:].norm() / x[0, :dl].norm(), torch.tensor(1.0), atol=1e-5)


def test_dualpart_random_part_is_fresh_in_training_and_seeded_at_inference():
    config = ModelConfig(embedding="dualpart", n_tokens=10, n_views=5, n_referents=6, d_model=16, seed=3)
    batch = _batch([4, 5], [2, 2], [3, 4])
    a, b = DualPartEmbedding(config).eval(), DualPartEmbedding(config).eval()
    assert torch.equal(a.fixed, b.fixed)
    emb = DualPartEmbedding(config).train()
    assert not torch.equal(emb(batch), emb(batch))
    emb.eval()
    assert torch.equal(emb(batch), emb(batch))


def test_lexinvariant_vectors_per_distinct_token_and_sequence():
    config = ModelConfig(embedding="lexinvariant", n_tokens=10, n_views=3, n_referents=3, d_model=8)
    random_ids = torch.zeros(10, dtype=torch.bool)
    random_ids[[5, 6, 7]] = True
    emb = LexinvariantEmbedding(config, random_ids).train()
    batch = _batch([5, 6, 5, 2, 2], [1] * 5, [1] * 5)
    x = emb(batch)[0]
    assert torch.equal(x[0], x[2]) and not torch.equal(x[0], x[1])  # same token, same vector
    assert torch.equal(x[3], x[4]) and torch.equal(x[3], emb.table.weight[2])  # learned token
    y = emb(batch)[0]
    assert not torch.equal(x[0], y[0])  # fresh every forward pass
    emb.eval()
    assert torch.equal(emb(batch), emb(batch))


def test_lexinvariant_regularised_remaps_through_a_permutation():
    config = ModelConfig(embedding="lexinvariant", lexinvariant_p=1.0, n_tokens=12, n_views=3, n_referents=3, d_model=8)
    random_ids = torch.zeros(12, dtype=torch.bool)
    random_ids[4:10] = True
    emb = LexinvariantEmbedding(config, random_ids).train()
    torch.manual_seed(0)
    tokens = torch.tensor([[4, 5, 4, 2, 9, 6]] * 20)
    remapped = emb.remap(tokens)
    assert torch.equal(remapped[:, 3], tokens[:, 3])  # learned tokens stay
    assert torch.equal(remapped[:, 0], remapped[:, 2])  # consistent within a sequence
    moved = remapped[:, [0, 1, 4, 5]]
    assert ((moved >= 4) & (moved < 10)).all()  # onto random tokens only
    assert all(len(set(row.tolist())) == 4 for row in moved)  # one-to-one
    assert (remapped != tokens).any()
    emb.eval()
    assert torch.equal(emb(_batch([4, 5], [1, 1], [1, 1])), emb.table(torch.tensor([[4, 5]])))


@pytest.mark.parametrize("kind", ["absolute", "line", "none"])
def test_positions(kind):
    config = ModelConfig(positions=kind, d_model=8, max_len=16)
    pos = PositionEmbedding(config)
    batch = _batch([1, 2, 3, 4], [1] * 4, [0] * 4)
    batch["line_pos"] = torch.tensor([[0, 1, 0, 1]])
    out = pos(batch)
    if kind == "none":
        assert out is None
    elif kind == "line":
        assert torch.equal(out[0, 0], out[0, 2]) and torch.equal(out[0, 1], out[0, 3])
    else:
        assert out.shape == (1, 4, 8) and not torch.equal(out[0, 0], out[0, 2])
