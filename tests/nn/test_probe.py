"""The deciphering probe (invar.nn.probe): the language model it reads stays
frozen, its loss falls, seeds reproduce, each sequence's cipher is a
permutation of the symbols, and the key's majority vote and precision agree
with a separate computation written here."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
import torch

from invar.encoding import Vocab, encode
from invar.nn import probe as P
from invar.nn.config import preset
from invar.nn.model import build_network
from invar.tasks import lm
from tests.conftest import FIXTURES

TEXT = (FIXTURES / "python" / "arith.py").read_text()
ARCHS = [("vanilla", {}), ("lexinvariant", {}), ("lexinvariant", {"lexinvariant_p": 0.2})]


@pytest.fixture(scope="module")
def chars():
    """The fixture's vocabulary, its full 32-character windows as ids, and the ids of a–z."""
    windows = [w for w in lm.char_windows(TEXT, 32) if len(w.tokens) == 32]
    vocab = Vocab.build(windows)
    ids = torch.tensor(np.stack([encode(w, vocab).tokens for w in windows])).long()
    symbols = torch.tensor([vocab.token_id(c, lm.VIEW) for c in "abcdefghijklmnopqrstuvwxyz" if c in vocab.referents])
    return vocab, ids, symbols


def _net(vocab, arch, overrides, seed=0):
    fields = {**lm.arch_config(arch), "max_len": 64, **overrides}
    torch.manual_seed(seed)
    config = preset(arch, "tiny", head="lm", **fields).with_vocab(vocab).validate()
    return build_network(config, vocab, "lm")


@pytest.mark.parametrize("arch, overrides", ARCHS)
def test_the_language_model_stays_frozen(chars, arch, overrides):
    vocab, ids, symbols = chars
    net = _net(vocab, arch, overrides).train()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    P.train_probe(net, ids, symbols, steps=3, batch_size=4)
    after = net.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(p.grad is None for p in net.parameters())
    assert net.training  # its mode is given back


@pytest.mark.parametrize("arch, overrides", ARCHS)
def test_the_probe_loss_falls(chars, arch, overrides):
    vocab, ids, symbols = chars
    _, losses = P.train_probe(_net(vocab, arch, overrides), ids, symbols, steps=40, batch_size=8, lr=3e-3)
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.4  # nats


def test_the_probe_reads_the_plain_token_where_the_input_shows_it(chars):
    """A control: under the identity cipher (one symbol) a standard LM's
    hidden state names each letter and the probe learns to read it; under a
    real cipher of a–z the same probe cannot (a fresh key per window)."""
    vocab, ids, symbols = chars
    letters = np.isin(ids.numpy(), symbols.numpy())
    accuracy = []
    for cipher in (symbols[:1], symbols):
        net = _net(vocab, "vanilla", {})
        probe, _ = P.train_probe(net, ids, cipher, steps=60, batch_size=8, lr=3e-3)
        _, deciphered, _ = P.decipher(net, probe, ids, cipher)
        accuracy.append((deciphered == ids.numpy())[letters].mean())
    assert accuracy[0] > 0.3 and accuracy[0] > 3 * accuracy[1]


def test_seeds_reproduce(chars):
    vocab, ids, symbols = chars
    net = _net(vocab, "lexinvariant", {})
    runs = [P.train_probe(net, ids, symbols, steps=4, batch_size=4, seed=s) for s in (3, 3, 4)]
    assert runs[0][1] == runs[1][1] != runs[2][1]
    assert all(torch.equal(a, b) for a, b in zip(runs[0][0].state_dict().values(), runs[1][0].state_dict().values()))
    decoded = [P.decipher(net, runs[0][0], ids[:6], symbols, seed=s) for s in (1, 1, 2)]
    assert all(np.array_equal(a, b) for a, b in zip(decoded[0], decoded[1]))
    assert not np.array_equal(decoded[0][2], decoded[2][2])  # another seed, other keys


@pytest.mark.parametrize("symbols", [[3, 5, 7, 9], [1], [2, 4, 6, 8, 10, 12, 14, 16]])
def test_each_sequence_gets_a_permutation_of_the_symbols(symbols):
    ids = torch.randint(0, 20, (16, 30), generator=torch.Generator().manual_seed(0))
    ciphered, keys = P.substitute(ids, torch.tensor(symbols), torch.Generator().manual_seed(1))
    for row, out, key in zip(ids.tolist(), ciphered.tolist(), keys.tolist()):
        assert sorted(key[s] for s in symbols) == sorted(symbols)
        assert all(key[v] == v for v in range(len(key)) if v not in symbols)
        assert out == [key[v] for v in row]
    if len(symbols) > 2:
        assert len({tuple(k) for k in keys.tolist()}) > 1  # a fresh key per sequence


def _majority(ciphered, deciphered, symbols):
    """The key read-out written out: count, keep the most votes, the lowest id among equals."""
    votes: dict[int, Counter] = {}
    for c, d in zip(ciphered, deciphered):
        if c in symbols:
            votes.setdefault(c, Counter())[d] += 1
    return {c: min(d for d, n in counts.items() if n == max(counts.values())) for c, counts in votes.items()}


@pytest.mark.parametrize(
    "ciphered, deciphered, symbols, true, key, precision",
    [
        ([5, 5, 6, 6], [1, 1, 2, 2], [5, 6, 7], {5: 1, 6: 2, 7: 3}, {5: 1, 6: 2}, 1.0),  # 7 unseen: no entry
        ([5, 5, 6, 6], [2, 1, 2, 2], [5, 6], {5: 1, 6: 2}, {5: 1, 6: 2}, 1.0),  # a tie goes to the lowest id
        ([5, 5, 5, 6], [3, 3, 1, 2], [5, 6], {5: 1, 6: 2}, {5: 3, 6: 2}, 0.5),  # the majority is wrong
        ([0, 9, 9, 5], [4, 4, 4, 1], [5], {5: 1}, {5: 1}, 1.0),  # tokens off the symbols cast no vote
        ([9, 9], [9, 9], [5, 6], {5: 5, 6: 6}, {}, math.nan),  # no symbol in the window
        ([5, 6, 7, 6], [5, 6, 7, 6], [5, 6, 7], {5: 5, 6: 6, 7: 7}, {5: 5, 6: 6, 7: 7}, 1.0),  # identity key
        ([5, 6, 7], [6, 7, 5], [5, 6, 7], {5: 5, 6: 6, 7: 7}, {5: 6, 6: 7, 7: 5}, 0.0),
    ],
)
def test_cipher_key_is_the_majority_vote(ciphered, deciphered, symbols, true, key, precision):
    got = P.cipher_key(ciphered, deciphered, symbols)
    assert got == key == _majority(ciphered, deciphered, symbols)
    value = P.key_precision(got, true)
    assert (math.isnan(value) and math.isnan(precision)) or value == precision


def test_cipher_key_agrees_with_the_written_out_vote_on_random_windows():
    rng = random.Random(0)
    for _ in range(200):
        n, V = rng.randint(0, 40), rng.randint(2, 12)
        symbols = rng.sample(range(V), rng.randint(1, V))
        ciphered = [rng.randrange(V) for _ in range(n)]
        deciphered = [rng.randrange(V) for _ in range(n)]
        key = P.cipher_key(ciphered, deciphered, symbols)
        assert key == _majority(ciphered, deciphered, symbols)
        true = {c: rng.randrange(V) for c in symbols}
        expected = sum(true[c] == p for c, p in key.items()) / len(key) if key else math.nan
        got = P.key_precision(key, true)
        assert (math.isnan(got) and math.isnan(expected)) or got == expected


def test_a_perfect_reading_recovers_the_key(chars):
    """Deciphering each ciphered window by its own key gives precision 1 in every window."""
    _, ids, symbols = chars
    ciphered, keys = P.substitute(ids, symbols, torch.Generator().manual_seed(5))
    for c, p, k in zip(ciphered.numpy(), ids.numpy(), keys.numpy()):
        inverse = P.inverse_key(k, symbols.tolist())
        assert all(inverse[int(k[s])] == s for s in symbols.tolist())
        key = P.cipher_key(c, p, symbols.tolist())
        assert key and P.key_precision(key, inverse) == 1.0


@pytest.mark.parametrize("arch, overrides, drawn", [(a, o, a == "lexinvariant" and not o) for a, o in ARCHS])
def test_a_pure_lexinvariant_model_reads_a_fresh_table_per_sequence(chars, arch, overrides, drawn):
    vocab, _, _ = chars
    net = _net(vocab, arch, overrides).eval()
    tables = [P.fresh_tables(net, 3, torch.Generator().manual_seed(s), "cpu") for s in (0, 0, 1)]
    if not drawn:
        assert all(t is None for t in tables)
        return
    assert tables[0].shape == (3, net.config.n_tokens, net.config.d_model)
    assert torch.equal(tables[0], tables[1]) and not torch.equal(tables[0], tables[2])
    assert not torch.equal(tables[0][0], tables[0][1])  # one table per sequence
