"""invar.nn.lm.along (each variant's bijection of the token ids, batched)
and a language model reading a sequence with its table permuted along:
the bijection against an independent construction, and the claim that any
completion of a renaming to a bijection gives the same loss."""

from __future__ import annotations

import random

import pytest
import torch

from invar.encoding import Vocab, collate, encode, renamed
from invar.nn.config import preset
from invar.nn.lm import along
from invar.nn.model import build_network
from invar.tasks import lm
from tests.conftest import FIXTURES

V = 10
#: (name, original ids, variant ids, ids with a learned vector, one-to-one on random ids)
CASES = [
    ("swap", [3, 4, 3, 5], [4, 3, 4, 5], [], True),
    ("into ids never read", [2, 3, 2], [7, 8, 7], [], True),
    ("a cycle through an id not read", [2, 3, 4, 2], [3, 4, 6, 3], [], True),
    ("identity", [5, 6, 5], [5, 6, 5], [], True),
    ("one token", [1], [9], [], True),
    ("two onto one", [2, 3], [4, 4], [], False),
    ("one onto two", [2, 2, 3], [3, 4, 5], [], False),
    ("moves a learned id", [9, 2], [2, 9], [9], False),
    ("keeps a learned id", [9, 2, 3], [9, 3, 2], [9], True),
]


def _expected_ok(orig: list[int], var: list[int], learned: list[int]) -> bool:
    mapping: dict[int, int] = {}
    for a, b in zip(orig, var):
        if mapping.setdefault(a, b) != b:
            return False
    if len(set(mapping.values())) != len(mapping):
        return False
    return all(a == b for a, b in mapping.items() if a in learned or b in learned)


def _batch(cases) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    T = max(len(c[1]) for c in cases)
    orig = torch.zeros(len(cases), T, dtype=torch.long)
    var = torch.zeros_like(orig)
    valid = torch.zeros_like(orig, dtype=torch.bool)
    for b, (_, o, v, *_rest) in enumerate(cases):
        orig[b, : len(o)], var[b, : len(v)], valid[b, : len(o)] = torch.tensor(o), torch.tensor(v), True
    return orig, var, valid


def _random_ids(learned: list[int]) -> torch.Tensor:
    ids = torch.ones(V, dtype=torch.bool)
    ids[[0, *learned]] = False
    return ids


@pytest.mark.parametrize("name, orig, var, learned, ok", CASES, ids=[c[0] for c in CASES])
def test_along_is_a_bijection_carrying_each_read_id_to_its_written_one(name, orig, var, learned, ok):
    assert _expected_ok(orig, var, learned) == ok
    sigma, got = along(*_batch([(name, orig, var)]), _random_ids(learned))
    sigma = sigma[0].tolist()
    assert bool(got[0]) == ok
    assert sorted(sigma) == list(range(V)) and sigma[0] == 0
    if not ok:
        assert sigma == list(range(V))
        return
    assert [sigma[a] for a in orig] == var
    touched = set(orig) | set(var)
    assert all(sigma[v] == v for v in range(V) if v not in touched)


def test_along_batched_is_each_row_alone():
    """Rows of different lengths (padding) and different maps in one call."""
    random_ids = _random_ids([9])
    cases = [c for c in CASES if not c[3] or c[3] == [9]]
    sigma, ok = along(*_batch(cases), random_ids)
    for b, case in enumerate(cases):
        one, one_ok = along(*_batch([case]), random_ids)
        assert torch.equal(sigma[b], one[0]) and bool(ok[b]) == bool(one_ok[0])


@pytest.fixture(scope="module")
def chars():
    text = (FIXTURES / "python" / "arith.py").read_text() + (FIXTURES / "python" / "control.py").read_text()
    windows = lm.char_windows(text, 48)
    return Vocab.build(windows), windows


def _net(vocab: Vocab, seed: int):
    config = (
        preset("lexinvariant", "tiny", head="lm", **lm.arch_config("lexinvariant"), dropout=0.0, max_len=64)
        .with_vocab(vocab)
        .validate()
    )
    torch.manual_seed(seed)
    return build_network(config, vocab, "lm").eval()


def _other_completion(orig: list[int], var: list[int], n: int, rng: random.Random) -> torch.Tensor:
    """A bijection of ``n`` ids with sigma[orig] = var whose other ids go
    anywhere still free, at random (padding kept)."""
    mapping = dict(zip(orig, var))
    rest = [v for v in range(1, n) if v not in mapping]
    free = [v for v in range(1, n) if v not in mapping.values()]
    rng.shuffle(free)
    return torch.tensor([0] + [mapping[v] if v in mapping else free[rest.index(v)] for v in range(1, n)])


@pytest.mark.parametrize("seed", [0, 1])
def test_any_completion_gives_the_original_loss(chars, seed):
    """Renamings into characters the window does not use (so the completion
    matters): the loss with the table permuted along :func:`along`'s
    completion, along a random other one, and the original's agree."""
    vocab, windows = chars
    net = _net(vocab, seed)
    rng = random.Random(seed)
    pool = [t for t in vocab.tokens if len(t) == 1 and vocab.token_id(t, "char") > 1]
    for window in windows[:5]:
        space = lm.renaming_space(window, pool=pool)
        renaming = space.sample(1, rng)[0]
        enc = encode(window, vocab)
        moved = renamed(enc, renaming, vocab)
        assert (moved.tokens != enc.tokens).any()
        batch = collate([moved])
        original = collate([enc])
        sigma, ok = along(original["tokens"], batch["tokens"], batch["valid"], net.embed.random_ids)
        assert ok.all()
        with torch.no_grad():
            base = net(original)[0].nanmean()
            mine = net({**batch, "along": sigma})[0].nanmean()
            other = _other_completion(enc.tokens.tolist(), moved.tokens.tolist(), len(vocab), rng).unsqueeze(0)
            theirs = net({**batch, "along": other})[0].nanmean()
            plain = net(batch)[0].nanmean()
        assert not torch.equal(other, sigma)
        assert abs(float(mine - base)) < 1e-5 and abs(float(theirs - base)) < 1e-5
        assert abs(float(plain - base)) > 1e-4


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Lexinvariant character models trained a few steps with the paper's
    vectors (the default: unit variance), a table per sequence or per batch."""
    import invar

    out = tmp_path_factory.mktemp("lm-along")
    lm.build(FIXTURES / "python", out / "data", vocab="char", seq_len=48)
    for draw in ("sequence", "batch"):
        invar.train(
            task="lm",
            data=out / "data",
            arch="lexinvariant",
            epochs=2,
            batch_size=16,
            limit=48,
            lr=3e-3,
            threads=1,
            seed=0,
            out=out / f"{draw}.pt",
            overrides={"random_draw": draw, "random_vectors": "unit"},
        )
    return out


@pytest.mark.parametrize("draw", ["sequence", "batch"])
def test_a_model_trained_with_the_papers_vectors_is_exactly_invariant_with_its_table_along(trained, draw):
    """What the audit's ``--lexinvariant-table along`` computes
    (Model.predict_encoded with ``along``): the renamed windows' losses are
    the originals', and without the table along they are not."""
    import invar

    model = invar.load_model(trained / f"{draw}.pt")
    config = model.config
    assert (config.random_vectors, config.random_tokens, config.random_draw) == ("unit", "all", draw)
    assert model.network.embed.scale.item() != 1.0  # trained: the scale moved from the paper's start
    vocab = model.vocab
    pool = [t for t in vocab.tokens if len(t) == 1 and vocab.token_id(t, "char") > 1]
    windows = [lm.parse(ex.source) for ex in lm.read_split(trained / "data", "train")[:8]]
    rng = random.Random(1)
    originals = [model.encode(w) for w in windows]
    variants = [
        renamed(e, lm.renaming_space(w, pool=pool).sample(1, rng)[0], vocab) for w, e in zip(windows, originals)
    ]
    base = model.predict_encoded(originals)
    along_ = model.predict_encoded(variants, along=originals)
    plain = model.predict_encoded(variants)
    assert all(abs(a - b) < 1e-5 for a, b in zip(along_, base)), (along_, base)
    assert max(abs(a - b) for a, b in zip(plain, base)) > 1e-4
