"""The papers' recipes as config options, each changing what it says:
``embed_scaling`` (the blocks read sqrt(d) times the token vectors, the tied
rows stay), ``norm_position`` (post-LN normalises each residual sum, no
final LayerNorm), ``random_draw`` (one table per batch), ``random_vectors``
(the lexinvariant paper's unit-variance vectors), ``symmetry_heads`` (the
SPE paper's Table 3 ablation) and the defaults each resolves to."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn

from invar.encoding import Vocab, add_pool, add_specials, collate, collate_pairs, vocab_counts
from invar.nn.config import SPE_ABLATIONS, ModelConfig, preset, spe_ablations
from invar.nn.decoder import DecoderBlock
from invar.nn.embeddings import DualPartEmbedding, LexinvariantEmbedding
from invar.nn.encoder import Block
from invar.nn.lm import LMBlock
from invar.nn.model import Model, build_network
from invar.tasks import copy, lm
from tests.conftest import FIXTURES

PAIRS = [copy.parse(ex.source) for ex in copy.read_split(FIXTURES / "copy", "test")[:8]]


def _copy_model(arch: str, **overrides) -> Model:
    counts = add_pool(add_specials(vocab_counts(PAIRS)), copy.POOL, "sym")
    vocab = Vocab.from_counts(counts, min_count=1)
    config = preset(arch, "tiny", head="generate", dropout=0.0, positions="none", **overrides).with_vocab(vocab)
    torch.manual_seed(0)
    model = Model("copy", config, vocab)
    model.network.eval()
    return model


def _block_inputs(model: Model) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """What the first encoder block and the first decoder block read, and the output rows."""
    net, seen = model.network, {}

    def keep(name):
        def hook(module, args):
            seen.setdefault(name, args[0])

        return hook

    hooks = [
        net.encoder.blocks[0].register_forward_pre_hook(keep("enc")),
        net.blocks[0].register_forward_pre_hook(keep("dec")),
    ]
    bos, eos = model.vocab.token_id("<bos>", "<bos>"), model.vocab.token_id("<eos>", "<eos>")
    batch = collate_pairs([model.encode(p) for p in PAIRS], bos=bos, eos=eos)
    with torch.no_grad():
        net(batch)
        rows = net.start(batch).rows
    for h in hooks:
        h.remove()
    valid = batch["valid"]
    return seen["enc"][valid], seen["dec"][batch["dec_in"] > 0], rows


@pytest.mark.parametrize("scaling, norm", [("none", 1.0), ("sqrtd", math.sqrt(128))])
def test_sqrtd_multiplies_the_dual_part_inputs_by_sqrt_d_and_not_the_rows(scaling, norm):
    """Dual-part vectors have unit norm: the blocks of encoder and decoder
    read them at norm sqrt(d) with the scaling, 1 without; the tied output
    rows stay unit vectors either way."""
    enc, dec, rows = _block_inputs(_copy_model("dualpart", embed_scaling=scaling))
    assert torch.allclose(enc.norm(dim=-1), torch.full((len(enc),), norm), rtol=1e-5)
    assert torch.allclose(dec.norm(dim=-1), torch.full((len(dec),), norm), rtol=1e-5)
    assert torch.allclose(rows.norm(dim=-1), torch.ones(rows.shape[:-1]), rtol=1e-5)


@pytest.mark.parametrize("arch, head", [("vanilla", "generate"), ("dualpart", "regression"), ("vanilla", "lm")])
def test_sqrtd_scales_every_embedding_by_the_same_factor(arch, head):
    """The same weights with and without the scaling: the first block's
    input differs by exactly sqrt(d) (no positions added), for learned
    vectors too, in the pooled encoder and the language model alike."""
    vocab = Vocab.from_counts(add_specials(vocab_counts(PAIRS)), min_count=1)
    fields = {"positions": "rotary"} if head == "lm" else {"positions": "none"}
    inputs = []
    for scaling in ("none", "sqrtd"):
        config = preset(arch, "tiny", head=head, dropout=0.0, embed_scaling=scaling, **fields).with_vocab(vocab)
        torch.manual_seed(0)
        net = build_network(config, vocab, "copy").eval()
        blocks = net.blocks if head == "lm" else net.encoder.blocks
        seen = []
        hook = blocks[0].register_forward_pre_hook(lambda m, a: seen.append(a[0]))
        with torch.no_grad():
            if head == "generate":
                bos, eos = vocab.token_id("<bos>", "<bos>"), vocab.token_id("<eos>", "<eos>")
                net(collate_pairs([Model("copy", config, vocab, net).encode(p) for p in PAIRS], bos=bos, eos=eos))
            else:
                from invar.encoding import encode

                net(collate([encode(p, vocab) for p in PAIRS]))
        hook.remove()
        inputs.append(seen[0])
    assert torch.allclose(inputs[1], inputs[0] * math.sqrt(128), rtol=1e-5, atol=1e-6)
    assert not torch.allclose(inputs[1], inputs[0])


@pytest.mark.parametrize(
    "embedding, head, resolved",
    [
        ("dualpart", "generate", "sqrtd"),
        ("dualpart", "regression", "none"),  # the papers scale what generates
        ("learned", "generate", "none"),
        ("view", "regression", "none"),
        ("lexinvariant", "lm", "none"),
    ],
)
def test_the_default_scaling_is_resolved_by_the_embedding(embedding, head, resolved):
    config = ModelConfig(embedding=embedding, head=head)
    assert config.embed_scaling == resolved and config.to_dict()["embed_scaling"] == resolved
    assert ModelConfig(embedding=embedding, head=head, embed_scaling="sqrtd").embed_scaling == "sqrtd"
    stored = {k: v for k, v in config.to_dict().items() if k != "embed_scaling"}
    assert ModelConfig.from_dict(stored).embed_scaling == "none"  # a config written before the field


def _blocks(post: bool):
    config = ModelConfig(d_model=16, n_head=2, dropout=0.0, norm_position="post" if post else "pre")
    torch.manual_seed(0)
    return config, Block(config).eval(), DecoderBlock(config).eval(), LMBlock(config).eval()


@pytest.mark.parametrize("post", [False, True])
def test_post_ln_normalises_each_residual_sum_and_pre_ln_each_sublayer_input(post):
    config, block, dec, lmb = _blocks(post)
    for b in (block, dec, lmb):  # LayerNorms that are not the identity, so where they stand matters
        for m in b.modules():
            if isinstance(m, nn.LayerNorm):
                nn.init.normal_(m.weight, 1.0, 0.3), nn.init.normal_(m.bias, 0.0, 0.3)
    x = torch.randn(2, 5, 16) * 3
    mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
    positions = torch.arange(5)
    memory = torch.randn(2, 4, 16)
    kv, cmask = dec.cross.memory(memory), torch.ones(2, 1, 1, 4, dtype=torch.bool)
    with torch.no_grad():
        got = block(x, mask, None), dec(x, positions, kv, cmask), lmb(x, positions)
        if post:
            h = block.ln1(x + block.attn(x, mask, None))
            want_block = block.ln2(h + block.mlp(h))
            h = dec.ln1(x + dec.attn(x, positions))
            h = dec.ln2(h + dec.cross(h, kv, cmask))
            want_dec = dec.ln3(h + dec.mlp(h))
            h = lmb.ln1(x + lmb.attn(x, positions))
            want_lm = lmb.ln2(h + lmb.mlp(h))
        else:
            h = x + block.attn(block.ln1(x), mask, None)
            want_block = h + block.mlp(block.ln2(h))
            h = x + dec.attn(dec.ln1(x), positions)
            h = h + dec.cross(dec.ln2(h), kv, cmask)
            want_dec = h + dec.mlp(dec.ln3(h))
            h = x + lmb.attn(lmb.ln1(x), positions)
            want_lm = h + lmb.mlp(lmb.ln2(h))
    for g, w in zip(got, (want_block, want_dec, want_lm)):
        assert torch.allclose(g, w, atol=1e-6)
    # a post-LN block ends with its LayerNorm: normalised, then the norm's own scale and shift
    out = got[0]
    standard = (out - block.ln2.bias) / block.ln2.weight
    assert torch.allclose(standard.mean(-1), torch.zeros(2, 5), atol=1e-5) == post


@pytest.mark.parametrize("arch, head", [("dualpart", "generate"), ("dualpart", "regression"), ("lexinvariant", "lm")])
def test_post_ln_networks_have_no_final_layernorm(arch, head):
    vocab = Vocab.from_counts(add_specials(vocab_counts(PAIRS)), min_count=1)
    fields = {"positions": "rotary"} if head == "lm" else {}
    names = {}
    for where in ("pre", "post"):
        config = preset(arch, "tiny", head=head, norm_position=where, **fields).with_vocab(vocab)
        names[where] = set(build_network(config, vocab, "copy").state_dict())
    final = {n for n in names["pre"] if "ln_f" in n}
    assert final and names["pre"] - names["post"] == final and not names["post"] - names["pre"]


@pytest.mark.parametrize("draw", ["sequence", "batch"])
def test_per_batch_draws_share_one_table_per_batch(draw):
    config = ModelConfig(
        embedding="dualpart", head="generate", d_model=16, n_tokens=9, n_views=3, n_referents=6, random_draw=draw
    ).validate()
    lex = ModelConfig(
        embedding="lexinvariant",
        head="lm",
        positions="rotary",
        d_model=16,
        n_tokens=9,
        random_tokens="all",
        random_draw=draw,
    ).validate()
    for embed in (DualPartEmbedding(config), LexinvariantEmbedding(lex, torch.ones(9, dtype=torch.bool))):
        embed.train()
        first, second = embed.sequence_tables(4, "cpu"), embed.sequence_tables(4, "cpu")
        same = all(torch.equal(first[0], first[b]) for b in range(1, 4))
        assert same == (draw == "batch"), type(embed).__name__
        assert not torch.equal(first, second)  # a fresh draw every forward pass, either way
        embed.eval()
        fixed = embed.sequence_tables(4, "cpu")
        assert all(torch.equal(fixed[0], fixed[b]) for b in range(4))  # inference: the seeded table


def _lm_config(**overrides) -> ModelConfig:
    return preset("lexinvariant", "tiny", head="lm", **lm.arch_config("lexinvariant"), **overrides)


@pytest.mark.parametrize(
    "vectors, read, written", [("unit", 1.0, 1 / 128), ("small", 0.02**2, 0.02**2), (None, 0.02**2, 0.02**2)]
)
def test_the_language_models_random_vectors_have_unit_variance_per_coordinate(vectors, read, written):
    """The paper's E(x) ~ N(0, I_d): what a lexinvariant language model reads
    for a token, over many sequences, has mean 0 and variance 1 in every
    coordinate (at initialisation: scale 1, bias 0), and it writes through
    E / sqrt(d) (variance 1/d: logits of unit scale); the earlier small
    vectors (0.02, read and written alike) are an option."""
    vocab = Vocab.build(lm.char_windows("abcdefgh" * 8, 16))
    config = _lm_config(**({} if vectors is None else {"random_vectors": vectors})).with_vocab(vocab)
    assert config.random_vectors == (vectors or "small")  # the paper's unit vectors trained worse here
    torch.manual_seed(0)
    net = build_network(config, vocab, "lm").train()
    ids = torch.tensor([[vocab.token_id(c, lm.VIEW) for c in "abcabd"]] * 4000)  # (B, T)
    with torch.no_grad():
        tables = net.embed.sequence_tables(len(ids), "cpu")
        x = net.embed.embed_with(ids, ids * 0, ids * 0, tables)
        rows = net.embed.rows(tables, net.no_parts, net.no_parts)  # (B, V, C)
    first = x[:, 0]  # (B, C): token a of every sequence, each its own draw
    assert torch.allclose(x[:, 3], first)  # the same token, the same vector within a sequence
    for got, want in ((first, read), (rows[:, ids[0, 0]], written)):
        var = got.var(dim=0)
        assert var.shape == (128,) and torch.allclose(var, torch.full_like(var, want), rtol=0.12)
        assert got.mean(dim=0).abs().max() < 5 * math.sqrt(want / len(ids))


@pytest.mark.parametrize(
    "fields, resolved",
    [
        ({"head": "lm", "positions": "rotary", "random_tokens": "all"}, "small"),
        ({"head": "generate"}, "small"),
        ({"head": "regression"}, "small"),
        ({"head": "regression", "random_tokens": "all"}, "small"),
        ({"head": "lm", "positions": "rotary", "random_tokens": "all", "random_vectors": "unit"}, "unit"),
    ],
)
def test_random_vectors_resolve_to_the_small_ones_unless_the_papers_are_asked(fields, resolved):
    assert ModelConfig(embedding="lexinvariant", **fields).validate().random_vectors == resolved
    assert ModelConfig(embedding="lexinvariant", lexinvariant_p=0.2).random_vectors is None
    assert ModelConfig().random_vectors is None


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"embed_scaling": "sqrt"}, "embed_scaling='sqrt'"),
        ({"norm_position": "sandwich"}, "norm_position='sandwich'"),
        ({"random_draw": "epoch"}, "random_draw='epoch'"),
        ({"random_draw": "batch"}, "random_draw='batch' applies"),
        ({"embedding": "dualpart", "random_draw": "batch"}, "random_draw='batch' applies"),  # pooled: per batch already
        (
            {"embedding": "dualpart", "head": "generate", "random_draw": "batch", "random_vectors": "unit"},
            "random_vectors applies",
        ),
        ({"embedding": "lexinvariant", "random_vectors": "big"}, "random_vectors='big'"),
        ({"embedding": "lexinvariant", "lexinvariant_p": 0.5, "random_vectors": "unit"}, "not lexinvariant_p"),
        ({"pool_size": 10}, "pool_size applies to head='generate'"),
        ({"head": "generate", "pool_size": -1}, "at least 0"),
        ({"head": "generate", "canonicalize": True, "pool_size": 10}, "whole pool"),
        ({"symmetry_heads": "all"}, "symmetry_heads applies"),
        ({"symmetry_heads": "some", "attention": "symmetry"}, "symmetry_heads='some'"),
    ],
)
def test_bad_recipe_options_fail_with_a_message(overrides, message):
    with pytest.raises(ValueError, match=message):
        ModelConfig(**overrides).validate()


@pytest.mark.parametrize("heads, split", [(2, (2, 0, 0)), (4, (4, 0, 0)), (8, (8, 0, 0))])
def test_symmetry_on_all_heads(heads, split):
    config = ModelConfig(n_head=heads, d_model=16 * heads, attention="symmetry", symmetry_heads="all").validate()
    assert config.head_split == split


def test_the_spe_ablations_keep_every_kind_of_head():
    """Table 3 of the SPE paper at 4 heads: SPE itself splits them 2 / 1 / 1
    (at tiny's 2 heads the split is 1 / 0 / 1, no transposed head); SPE
    (all) masks every head; SPE (w.o. pe) has no line positions."""
    assert preset("spe", "tiny").head_split == (1, 0, 1)
    configs = spe_ablations("tiny")
    assert list(configs) == list(SPE_ABLATIONS) == ["spe", "spe (all)", "spe (w.o. pe)"]
    assert configs["spe"].head_split == (2, 1, 1) and configs["spe"].positions == "line"
    assert configs["spe (all)"].head_split == (4, 0, 0) and configs["spe (all)"].positions == "line"
    assert configs["spe (w.o. pe)"].head_split == (2, 1, 1) and configs["spe (w.o. pe)"].positions == "none"
    assert all(c.n_head == 4 and c.attention == "symmetry" and c.size == "tiny" for c in configs.values())
    assert {c.n_head for c in spe_ablations("small").values()} == {8}  # more heads than 4 are kept
    assert spe_ablations("small")["spe"].head_split == (4, 2, 2)
