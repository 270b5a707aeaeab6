"""The decoder-only language model (head="lm"): its config, causality and
padding, the loss against a hand computation, the lexinvariant model's exact
invariance when its table is permuted along, and the regularised variant at
p = 0 (the learned model exactly) and p = 1 (every token remapped)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
import torch

from invar.encoding import Vocab, collate, encode, renamed
from invar.nn.config import preset
from invar.nn.lm import LanguageModel, continuation, position_losses
from invar.nn.model import build_network
from invar.tasks import lm
from tests.conftest import FIXTURES

TEXT = (FIXTURES / "python" / "arith.py").read_text()


def _config(arch: str, vocab: Vocab, **overrides):
    fields = {**lm.arch_config(arch), "dropout": 0.0, "max_len": 64, **overrides}
    return preset(arch, "tiny", head="lm", **fields).with_vocab(vocab).validate()


def _net(arch: str, vocab: Vocab, seed: int = 0, **overrides) -> LanguageModel:
    torch.manual_seed(seed)
    return build_network(_config(arch, vocab, **overrides), vocab, "lm")


@pytest.fixture(scope="module")
def chars():
    windows = lm.char_windows(TEXT, 48)
    return Vocab.build(windows), windows


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"embedding": "dualpart"}, "embeds tokens 'learned' or 'lexinvariant'"),
        ({"embedding": "view"}, "embeds tokens 'learned' or 'lexinvariant'"),
        ({"positions": "absolute"}, "positions='rotary' is the language model's"),
        ({"attention": "referent", "mask_layers": 1}, "a language model (head='lm') takes causal attention only"),
        ({"canonicalize": True}, "takes no canonical form"),
        ({"embedding": "lexinvariant", "tie_output": False}, "it needs tie_output=True"),
        ({"n_head": 4, "d_model": 12}, "rotary positions need an even head width"),
        ({"adacos": True, "normalize_features": True}, "applies to head='generate'"),
    ],
)
def test_config_refuses_what_a_language_model_cannot_be(fields, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        preset("vanilla", "tiny", **{"head": "lm", "positions": "rotary", **fields})


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"embedding": "lexinvariant"},
        {"embedding": "lexinvariant", "random_tokens": "all"},
        {"embedding": "lexinvariant", "lexinvariant_p": 0.2},
        {"tie_output": False},
    ],
)
def test_config_takes_the_language_models(fields):
    preset("vanilla", "tiny", head="lm", positions="rotary", **fields)
    with pytest.raises(ValueError, match="positions='rotary' is the language model's"):
        preset("vanilla", "tiny", positions="rotary")


def _losses(net, encoded):
    return position_losses(net, encoded, batch_size=len(encoded))


@pytest.mark.parametrize(
    "arch, overrides",
    [
        ("vanilla", {}),
        ("lexinvariant", {}),
        ("lexinvariant", {"lexinvariant_p": 0.5}),
        ("vanilla", {"tie_output": False}),
    ],
)
def test_loss_is_the_next_token_cross_entropy(chars, arch, overrides):
    vocab, windows = chars
    net = _net(arch, vocab, **overrides).eval()
    enc = encode(windows[3], vocab)
    batch = collate([enc])
    with torch.no_grad():
        logits = net.scores(batch["tokens"], net.embed.sequence_tables(1, "cpu"))[0]  # (T, V)
    expected = [
        -(torch.log_softmax(logits[t, 1:], dim=-1)[int(enc.tokens[t + 1]) - 1]).item()  # padding never written
        for t in range(len(enc) - 1)
    ]
    got = _losses(net, [enc])[0]
    assert got.shape == (len(enc) - 1,)
    assert got.tolist() == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("arch", ["vanilla", "lexinvariant"])
def test_a_position_sees_only_the_tokens_before_it(chars, arch):
    vocab, windows = chars
    net = _net(arch, vocab).eval()
    enc = encode(windows[5], vocab)
    for j in (1, 10, 30, len(enc) - 1):
        tokens = enc.tokens.copy()
        tokens[j] = vocab.token_id("@", "char") if tokens[j] != vocab.token_id("@", "char") else 1
        changed = replace(enc, tokens=tokens)
        a, b = _losses(net, [enc])[0], _losses(net, [changed])[0]
        assert a[: j - 1].tolist() == pytest.approx(b[: j - 1].tolist(), abs=1e-6)
        assert abs(a[j - 1] - b[j - 1]) > 1e-6  # position j - 1 predicts token j


@pytest.mark.parametrize("arch", ["vanilla", "lexinvariant"])
def test_padding_changes_no_loss(chars, arch):
    vocab, windows = chars
    net = _net(arch, vocab).eval()
    short, long_ = encode(lm.char_program(TEXT[:17]), vocab), encode(windows[0], vocab)
    alone = _losses(net, [short])[0]
    batched = _losses(net, [long_, short])[1]
    assert alone.tolist() == pytest.approx(batched.tolist(), abs=1e-5)
    with torch.no_grad():
        nll = net(collate([long_, short]))
    assert torch.isnan(nll[1, len(short) - 1 :]).all() and not torch.isnan(nll[1, : len(short) - 1]).any()


def _permuted_table(net: LanguageModel, sigma: list[int]) -> torch.Tensor:
    """The inference table with token v's vector moved to sigma[v]."""
    table = net.embed.fixed.clone()
    table[torch.tensor(sigma)] = net.embed.fixed
    return table


@pytest.mark.parametrize("random_tokens", ["referents", "all"])
def test_lexinvariant_loss_is_invariant_under_a_lexical_permutation_with_the_table_along(chars, random_tokens):
    """Characters: a permutation of the characters a window uses, as a
    renaming (an id remap of the encoding)."""
    vocab, windows = chars
    net = _net("lexinvariant", vocab, random_tokens=random_tokens).eval()
    rng = random.Random(3)
    for window in windows[:6]:
        enc = encode(window, vocab)
        space = lm.renaming_space(window)
        renaming = space.sample(1, rng)[0]
        mapping = renaming.as_dict()
        moved = renamed(enc, renaming, vocab)
        again = encode(space.apply(window, renaming), vocab)  # the id remap is the re-encoded renamed window
        assert (moved.tokens == again.tokens).all() and (moved.referents == again.referents).all()
        sigma = list(range(len(vocab)))
        for a, b in mapping.items():
            sigma[vocab.token_id(a, "char")] = vocab.token_id(b, "char")
        base = _losses(net, [enc])[0]
        plain = _losses(net, [moved])[0]
        net.embed.fixed, kept = _permuted_table(net, sigma), net.embed.fixed
        along = _losses(net, [moved])[0]
        net.embed.fixed = kept
        assert abs(along.mean() - base.mean()) < 1e-5
        assert along.tolist() == pytest.approx(base.tolist(), abs=1e-4)
        if any(a != b for a, b in mapping.items()):
            assert abs(plain.mean() - base.mean()) > 1e-4  # invariant in distribution only


def test_lexinvariant_token_model_is_invariant_under_any_vocabulary_permutation():
    """Frontend tokens, every token random: a permutation of the whole
    vocabulary (padding aside) applied to the ids."""
    from invar.frontends import parse_units

    units = parse_units((FIXTURES / "python" / "control.py").read_text(), "python")
    windows = lm.token_windows(units, 40)
    vocab = Vocab.build(windows)
    net = _net("lexinvariant", vocab).eval()
    assert net.embed.random_ids[1:].all()
    rng = random.Random(5)
    for window in windows[:5]:
        enc = encode(window, vocab)
        rest = list(range(1, len(vocab)))
        sigma = [0] + rng.sample(rest, len(rest))
        moved = replace(enc, tokens=torch.tensor(sigma)[torch.from_numpy(enc.tokens).long()].numpy())
        base = _losses(net, [enc])[0]
        net.embed.fixed, kept = _permuted_table(net, sigma), net.embed.fixed
        along = _losses(net, [moved])[0]
        net.embed.fixed = kept
        assert abs(along.mean() - base.mean()) < 1e-5


def test_regularised_p0_is_the_learned_model_exactly_in_training_too(chars):
    vocab, windows = chars
    batch = collate([encode(w, vocab) for w in windows[:8]])
    learned = _net("vanilla", vocab, seed=4, dropout=0.1).train()
    p0 = _net("lexinvariant", vocab, seed=4, dropout=0.1, lexinvariant_p=0.0).train()
    assert learned.state_dict().keys() == p0.state_dict().keys()
    assert all(torch.equal(a, b) for a, b in zip(learned.state_dict().values(), p0.state_dict().values()))
    torch.manual_seed(9)
    a = learned(batch)
    torch.manual_seed(9)
    b = p0(batch)
    assert torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))


def test_regularised_p1_remaps_every_token_through_one_permutation(chars):
    vocab, windows = chars
    net = _net("lexinvariant", vocab, lexinvariant_p=1.0).train()
    batch = collate([encode(w, vocab) for w in windows[:16]])
    tokens, valid = batch["tokens"], batch["valid"]
    torch.manual_seed(2)
    read = net.read(tokens)
    moved = 0
    for b in range(len(tokens)):
        pairs = {(int(x), int(y)) for x, y in zip(tokens[b][valid[b]], read[b][valid[b]])}
        image = dict(pairs)
        assert len(image) == len(pairs)  # the same token, the same image
        assert len(set(image.values())) == len(image)  # one to one
        moved += sum(x != y for x, y in pairs)
        assert (read[b][~valid[b]] == 0).all()
    assert moved > 0.8 * sum(len({int(x) for x in tokens[b][valid[b]]}) for b in range(len(tokens)))
    # the remapped sequence is what the model reads and what it must predict
    net.dropout = 0.0
    torch.manual_seed(2)
    trained = net(batch)
    net.eval()
    direct = net({**batch, "tokens": read})
    assert torch.allclose(torch.nan_to_num(trained), torch.nan_to_num(direct), atol=1e-6)


def test_regularised_p_remaps_about_a_share_p_of_the_distinct_tokens(chars):
    vocab, windows = chars
    net = _net("lexinvariant", vocab, lexinvariant_p=0.3).train()
    batch = collate([encode(w, vocab) for w in windows[:40]])
    torch.manual_seed(1)
    read = net.read(batch["tokens"])
    assert torch.equal(net.eval().read(batch["tokens"]), batch["tokens"])  # never at inference
    changed = total = 0
    for b in range(len(read)):
        distinct = dict(zip(batch["tokens"][b][batch["valid"][b]].tolist(), read[b][batch["valid"][b]].tolist()))
        changed += sum(x != y for x, y in distinct.items())
        total += len(distinct)
    assert 0.2 < changed / total < 0.4


@pytest.mark.parametrize("arch", ["vanilla", "lexinvariant"])
def test_continuation_writes_the_most_probable_token_each_step(chars, arch):
    vocab, windows = chars
    net = _net(arch, vocab).eval()
    prompts = torch.stack([torch.from_numpy(encode(w, vocab).tokens[:20]).long() for w in windows[:4]])
    written = continuation(net, prompts, 6)
    assert written.shape == (4, 6) and (written > 0).all()  # padding is never written
    full = torch.cat([prompts, written], dim=1)
    with torch.no_grad():
        scores = net.scores(full, net.embed.sequence_tables(4, "cpu"))  # (B, T, V)
    assert torch.equal(scores[:, 19:-1].argmax(dim=-1), written)


def test_a_lexinvariant_continuation_is_permuted_with_its_prompt_and_table(chars):
    """Equivariance: the continuation of a permuted prompt, the table
    permuted along, is the permuted continuation."""
    vocab, windows = chars
    net = _net("lexinvariant", vocab, random_tokens="all").eval()
    rng = random.Random(8)
    rest = list(range(1, len(vocab)))
    sigma = torch.tensor([0] + rng.sample(rest, len(rest)))
    prompts = torch.stack([torch.from_numpy(encode(w, vocab).tokens[:30]).long() for w in windows[:5]])
    written = continuation(net, prompts, 5)
    net.embed.fixed, kept = _permuted_table(net, sigma.tolist()), net.embed.fixed
    moved = continuation(net, sigma[prompts], 5)
    net.embed.fixed = kept
    assert torch.equal(moved, sigma[written])
