"""The encoder-decoder: config checks, decoding (beam 1 is greedy, the cache is
teacher forcing), the tied output, AdaCos, tree positions, and exact
equivariance of a dual-part model under permuted random vectors."""

from __future__ import annotations

import random

import pytest
import torch

from invar.encoding import Vocab, add_pool, add_specials, collate_pairs, renamed, vocab_counts
from invar.errors import ModelError
from invar.nn.config import ModelConfig, preset
from invar.nn.decoder import ADACOS_MAX, rotate
from invar.nn.embeddings import tree_paths
from invar.nn.generate import beam_search, greedy
from invar.nn.model import Model, build_network
from invar.tasks import ltl
from tests.conftest import FIXTURES

PAIRS = [ltl.prepare(ltl.parse(ex.source)) for ex in ltl.read_pairs(FIXTURES / "ltl" / "ae.txt")[:48]]
ARCHS = ("vanilla", "dualpart", "lexinvariant")


def _vocab(pool: bool = True) -> Vocab:
    counts = add_specials(vocab_counts(PAIRS))
    if pool:
        add_pool(counts, ltl.POOL, "ap")
    return Vocab.from_counts(counts, min_count=1)


def _model(arch: str, seed: int = 0, **overrides) -> Model:
    torch.manual_seed(seed)
    vocab = _vocab(arch != "vanilla")
    # random weights rarely write <eos>: a short max_len keeps their decoding quick
    overrides = {"max_len": 32, **ltl.arch_config(arch), **overrides}
    config = preset(arch, "tiny", head="generate", seed=seed, **overrides)
    model = Model("ltl", config.with_vocab(vocab), vocab)
    model.network.eval()
    return model


def _batch(model: Model, programs):
    return collate_pairs([model.encode(p) for p in programs], bos=_bos(model), eos=_eos(model), targets=False)


def _bos(model):
    return model.vocab.token_id("<bos>", "<bos>")


def _eos(model):
    return model.vocab.token_id("<eos>", "<eos>")


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"head": "regression", "adacos": True, "normalize_features": True}, "applies to head='generate'"),
        ({"head": "generate", "adacos": True}, "needs normalize_features"),
        ({"head": "generate", "embedding": "view"}, "could not tell which to emit"),
        ({"head": "generate", "embedding": "dualpart", "tie_output": False}, "needs tie_output"),
        ({"head": "generate", "beam": 0}, "beam=0"),
        ({"head": "generate", "random_draws": 3}, "random embeddings"),
        ({"head": "generate", "canonicalize": True, "augment": True}, "exclude each other"),
        ({"head": "generate", "d_model": 6, "n_head": 2}, "even head width"),
        ({"head": "generate", "embedding": "lexinvariant", "lexinvariant_p": 0.5}, "not supported for generation"),
    ],
)
def test_bad_decoder_configs_fail_with_a_message(overrides, message):
    with pytest.raises(ValueError, match=message):
        ModelConfig(**overrides).validate()


def test_old_configs_keep_their_meaning():
    config = preset("renamer", "tiny")
    assert not config.generates and config.beam == 3 and config.decoder_layers == 0
    assert ModelConfig.from_dict(config.to_dict()) == config


def test_an_encoder_decoder_needs_its_task():
    vocab = _vocab()
    config = preset("dualpart", "tiny", head="generate").with_vocab(vocab)
    with pytest.raises(ModelError, match="task"):
        build_network(config, vocab)
    with pytest.raises(ModelError, match="sequence tasks"):
        build_network(config, vocab, "bhive")


@pytest.mark.parametrize("arch", ARCHS)
def test_beam_one_is_greedy(arch):
    model = _model(arch, seed=3)
    batch = _batch(model, PAIRS[:16])
    kw = dict(bos=_bos(model), eos=_eos(model), max_len=24)
    g = greedy(model.network, batch, **kw)
    assert beam_search(model.network, batch, beam=1, **kw) == g
    assert any(g), "random weights write something"
    wide = beam_search(model.network, batch, beam=3, **kw)
    assert len(wide) == 16 and wide == beam_search(model.network, batch, beam=3, **kw)


@pytest.mark.parametrize("arch", ARCHS)
def test_cached_steps_equal_teacher_forcing(arch):
    model = _model(arch, seed=4)
    net = model.network
    ids = model.collate([model.encode(p) for p in PAIRS[:6]])["dec_in"]
    with torch.no_grad():
        state = net.start(_batch(model, PAIRS[:6]))
        whole = net._decode(ids, state, torch.arange(ids.shape[1]), None)  # (B, T, V)
        cache = net.new_cache()
        for t in range(ids.shape[1]):
            step = net._decode(ids[:, t : t + 1], state, torch.tensor([t]), cache)[:, 0]
            assert torch.allclose(step, whole[:, t], atol=1e-5)


def test_outputs_only_name_aps_of_the_formula():
    model = _model("dualpart", seed=5)
    for program, trace in zip(PAIRS[:24], model.predict(PAIRS[:24])):
        used = set(program.referents)
        written = {t for t in trace if t.isalpha() and t.islower()}
        assert written <= used, (program.lines[0].text, trace)


@pytest.mark.parametrize("seed", [0, 1])
def test_dualpart_is_equivariant_with_permuted_random_vectors(seed):
    """A renaming of the formula with the random vectors permuted to match
    gives exactly the renamed trace (random weights; trained weights in
    tests/tasks/test_ltl_task.py)."""
    model = _model("dualpart", seed=seed)
    embed = model.network.encoder.embed
    table = embed.fixed.clone()
    rng = random.Random(seed)
    rid = model.vocab.referent_id
    # one renaming of the pool for every formula, so one permuted table serves them all
    full = dict(zip(ltl.POOL, rng.sample(ltl.POOL, len(ltl.POOL))))
    permuted = table.clone()
    for a, b in full.items():
        permuted[rid(b)] = table[rid(a)]
    encoded = [model.encode(p) for p in PAIRS[:16]]
    variants = [renamed(e, full, model.vocab) for e in encoded]
    before = model.predict_encoded(encoded)
    first = _first_step(model, encoded)
    embed.fixed = permuted
    after = model.predict_encoded(variants)
    first_after = _first_step(model, variants)
    embed.fixed = table
    back = {b: a for a, b in full.items()}
    assert [ltl.undo(y, back) for y in after] == before
    # the first step's distribution, token for token: the renamed APs take the originals' log-probabilities
    tid = model.vocab.token_id
    order = list(range(len(model.vocab)))
    for a, b in full.items():
        order[tid(b, "ap")] = tid(a, "ap")
    # (equal up to the order in which the softmax sums over the vocabulary)
    assert torch.equal(torch.isinf(first_after), torch.isinf(first[:, order]))
    assert torch.allclose(first_after, first[:, order], rtol=0, atol=1e-5)


def _first_step(model: Model, encoded) -> torch.Tensor:
    net = model.network
    batch = collate_pairs(encoded, bos=_bos(model), eos=_eos(model), targets=False)
    with torch.no_grad():
        ids = torch.full((len(encoded), 1), _bos(model))
        return net.step(ids, net.start(batch), net.new_cache())


def test_adacos_adapts_its_scale_and_ignores_padding():
    model = _model("dualpart", seed=6, normalize_features=True, adacos=True)
    net = model.network
    net.train()
    encoded = [model.encode(p) for p in PAIRS[:8]]
    start = float(net.scale)
    torch.manual_seed(0)
    batch = model.collate(encoded)
    loss = net.loss(net(batch), batch)
    assert float(net.scale) != start and 1.0 <= float(net.scale) <= ADACOS_MAX
    assert torch.isfinite(loss)
    net.eval()
    one = model.collate(encoded[:1])
    padded = model.collate([encoded[0], max(encoded, key=lambda e: int((e.lines == 1).sum()))])
    with torch.no_grad():
        alone = net.loss(net(one), one)
        scores = net(padded)
        first = {k: v[:1] for k, v in padded.items()}
        assert torch.allclose(net.loss(scores[:1], first), alone, atol=1e-5)


def test_rotary_positions_keep_norms_and_relative_offsets():
    x = torch.randn(1, 2, 5, 8)
    y = rotate(x, torch.arange(5))
    assert torch.allclose(x.norm(dim=-1), y.norm(dim=-1), atol=1e-5)
    q, k = torch.randn(8), torch.randn(8)
    dot = lambda i, j: float(
        rotate(q.view(1, 1, 1, 8), torch.tensor([i])).flatten()  # noqa: E731
        @ rotate(k.view(1, 1, 1, 8), torch.tensor([j])).flatten()
    )
    assert dot(3, 1) == pytest.approx(dot(7, 5), abs=1e-4)


def test_tree_positions_are_paths_from_the_root():
    program = ltl.prepare(ltl.parse("G(a -> F b)\ta;{b}"))
    assert program.lines[0].text == "G>aFb"
    assert ltl.tree(program)[:5].tolist() == [[0, 0], [1, 0], [2, 0], [2, 2], [3, 2]]
    paths = tree_paths(torch.tensor([[0, 1, 2, 2, 3]]), torch.tensor([[0, 0, 0, 2, 2]]), 4)
    assert paths[0, 0].sum() == 0
    assert paths[0, 4].tolist() == [1, 0, 0, 1, 1, 0, 0, 0]  # first, second, first child


def test_tree_positions_are_encoded_with_the_pair():
    model = _model("vanilla")
    assert model.config.positions == "tree"
    enc = model.encode(PAIRS[0])
    assert enc.tree is not None and enc.tree.shape == (len(enc), 2)
    assert renamed(enc, {}, model.vocab).tree is enc.tree
