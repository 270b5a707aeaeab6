"""Canonicalized sequence models with random weights: the canonical ids of a
pair are the same under every renaming (ltl and copy, pins too), and the
model's output for a renamed input is the renamed output, token for token,
greedy and beam, in one call or many, in any batch; names past those a
training set holds are read; what cannot be mapped back is one example's
error."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
import torch

from invar.encoding import Vocab, add_pool, add_specials, encode, renamed, vocab_counts
from invar.errors import ModelError
from invar.frontends.ltl.formula import to_polish
from invar.frontends.ltl.generate import random_formula
from invar.nn.canonical import Unmapped, back_map, canonical_pair, map_back
from invar.nn.config import preset
from invar.nn.model import Model
from invar.symmetry.renamings import Renaming
from invar.symmetry.spaces import canonical, renaming_space
from invar.tasks import copy, ltl
from tests.conftest import FIXTURES

LTL_PAIRS = [ltl.prepare(ltl.parse(ex.source)) for ex in ltl.read_pairs(FIXTURES / "ltl" / "ae.txt")[:30]]
COPY_PAIRS = [copy.parse(ex.source) for ex in copy.read_split(FIXTURES / "copy", "test")[:30]]
TASKS = {"ltl": (ltl, LTL_PAIRS), "copy": (copy, COPY_PAIRS)}
CANONICAL = ("canonicalized", "canonicalized+dualpart", "canonicalized+lexinvariant")


def _wide_formulas(n: int = 12, seed: int = 3) -> list:
    """Formulas over 6 to 9 distinct APs (more than any fixture trains on)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        k = rng.randint(6, 9)
        f = random_formula(rng, rng.randint(2 * k, 3 * k), ltl.POOL[:k])
        program = ltl.prepare(ltl.parse(to_polish(f)))
        if len(set(program.referents)) >= 6:
            out.append(program)
    return out


def _vocab(task, pairs) -> Vocab:
    return Vocab.from_counts(add_pool(add_specials(vocab_counts(pairs)), task.POOL, task.TASK.pool_view), min_count=1)


def _model(task_name: str, arch: str, seed: int = 0, **overrides) -> Model:
    task, pairs = TASKS[task_name]
    torch.manual_seed(seed)
    vocab = _vocab(task, pairs)
    # random weights rarely write <eos>: a short max_len keeps decoding quick
    fields = {"max_len": 40, "max_output": 16, **task.TASK.arch_config(arch), **overrides}
    config = preset(arch, "tiny", head="generate", seed=seed, **fields).with_vocab(vocab)
    model = Model(task_name, config, vocab)
    model.network.eval()
    _tilt(model)
    return model


@torch.no_grad()
def _tilt(model: Model) -> None:
    """Random weights that write names: untrained, an LTL decoder writes one
    operator over and over. Learned rows of the names are lengthened; a
    dual-part decoder's features lean toward the names' learned part (which
    name wins is still the random part's choice). Lexinvariant ones write
    names as they are."""
    embed = model.network.embed
    names = torch.tensor(model.vocab.interchangeable)
    if model.config.embedding == "learned":
        embed.table.weight[names] *= 5
    elif model.config.embedding == "dualpart":
        part = embed.by_view.weight[model.vocab.view_id(model._task.pool_view)]
        model.network.ln_f.bias[: len(part)] = 3 * part / part.norm()


def _renamings(program, extra: int = 2, limit: int = 120) -> list:
    """Every renaming of ``program``'s names into its own names and ``extra``
    more of the pool, up to ``limit`` of them (lexicographic order), and a
    renaming into the far end of the pool."""
    pool = TASKS[program.lang][0].POOL
    used = list(dict.fromkeys(program.referents))
    fresh = [n for n in pool if n not in used][:extra]
    space = renaming_space(program, pool=used + fresh)
    far = Renaming(tuple(zip(used, reversed(pool))))
    return list(space.enumerate(limit=limit)) + [far]


@pytest.mark.parametrize("task_name", ["ltl", "copy"])
def test_canonical_ids_are_the_same_under_every_renaming(task_name):
    task, pairs = TASKS[task_name]
    vocab = _vocab(task, pairs)
    for program in pairs[:15]:
        assert not program.pinned
        ids = encode(program, vocab, canonical=True).canon
        for r in _renamings(program, limit=40):
            variant = renaming_space(program, pool=task.POOL).apply(program, r)
            assert np.array_equal(encode(variant, vocab, canonical=True).canon, ids), (program.render(), r)
        # pinned names keep theirs, and the rest are still canonical alike
        pin = program.referents[-1]
        base = canonical(program, pins=[pin])[0]
        assert all(t.text == pin for t in base.tokens if t.referent == pin)
        space = renaming_space(program, pins=[pin])
        for r in space.enumerate(limit=20):
            assert canonical(space.apply(program, r), pins=[pin])[0].render() == base.render()


def test_a_source_canonical_ids_do_not_depend_on_its_target():
    vocab = _vocab(ltl, LTL_PAIRS)
    alone = encode(ltl.prepare(ltl.parse("&bXa")), vocab, canonical=True)
    paired = encode(ltl.prepare(ltl.parse("&bXa\tc;b;{a}")), vocab, canonical=True)
    n = len(alone.tokens)
    assert np.array_equal(alone.canon, paired.canon[:n])
    assert [vocab.tokens[i] for i in paired.canon] == list("&aXb") + list("c;a;{b}")


def _covariant(model, programs, beam: int) -> int:
    """Asserts predict(s(x)) == s(predict(x)) for every program and renaming
    (id remaps in one call, encoded renamed programs in calls of their own, in
    other batches); returns how many renamings were checked."""
    task = model._task
    encoded = [model.encode(p) for p in programs]
    before = model.predict_encoded(encoded, beam=beam)
    assert all(isinstance(y, str) for y in before)
    written = [{n for n in p.referents if n in _words(y)} for p, y in zip(programs, before)]
    assert sum(map(bool, written)) >= len(programs) // 3 and len(set().union(*written)) >= 3, before
    checked = 0
    for program, enc, y in zip(programs, encoded, before):
        rs = _renamings(program)
        variants = [renamed(enc, r, model.vocab) for r in rs]
        shuffled = variants + encoded[:5]  # other inputs in the batch, another batch size
        got = model.predict_encoded(shuffled, beam=beam, batch_size=7)[: len(variants)]
        for r, out in zip(rs, got):
            assert out == task.undo(y, {a: b for a, b in r.mapping}), (program.render(), r.mapping, y, out)
        space = renaming_space(program, pool=TASKS[program.lang][0].POOL)
        for r in rs[:3]:  # the renamed program itself, encoded from its text
            out = model.predict_encoded([model.encode(space.apply(program, r))], beam=beam)[0]
            assert out == task.undo(y, {a: b for a, b in r.mapping})
        checked += len(rs)
    return checked


def _words(y: str) -> set[str]:
    return set(y) if " " not in y else set(y.split())


@pytest.mark.parametrize("arch", CANONICAL)
# seeds whose random weights write their inputs' names often enough for the check to bite (seed 3's
# dual-part model, its inputs scaled by sqrt(d), writes one AP over and over)
@pytest.mark.parametrize("beam, seed", [(1, 1), (3, 5)])
def test_random_weights_are_exactly_covariant_on_ltl(arch, beam, seed):
    model = _model("ltl", arch, seed=seed)
    assert _covariant(model, LTL_PAIRS[:12] + _wide_formulas(4), beam) > 500


@pytest.mark.parametrize("arch", CANONICAL)
def test_random_weights_are_exactly_covariant_on_copy(arch):
    model = _model("copy", arch, seed=7)  # a seed whose random weights write varied names (as above)
    assert _covariant(model, COPY_PAIRS[:12], beam=2) > 500


def test_without_canonical_ids_the_same_network_is_not_covariant():
    """The check above can fail: the same random weights, reading the input's
    own names, write different traces for renamed formulas."""
    model = _model("ltl", "canonicalized+dualpart", seed=1)
    plain = Model("ltl", replace(model.config, canonicalize=False), model.vocab, network=model.network)
    encoded = [plain.encode(p) for p in LTL_PAIRS[:12]]
    before = plain.predict_encoded(encoded, beam=1)
    # the first renamed formula whose trace is not the renamed trace settles it: the rest are not decoded
    moved = any(
        plain.predict_encoded([renamed(e, r, plain.vocab)], beam=1)[0] != ltl.undo(y, dict(r.mapping))
        for p, e, y in zip(LTL_PAIRS[:12], encoded, before)
        for r in _renamings(p, limit=10)
    )
    assert moved


def test_names_past_a_training_set_are_read_and_written():
    model = _model("ltl", "canonicalized+dualpart", seed=2)
    wide = _wide_formulas(8)
    out = model.predict_encoded([model.encode(p) for p in wide], beam=1)
    for p, y in zip(wide, out):
        assert isinstance(y, str)
        assert {c for c in y if c.isalpha() and c.islower()} <= set(p.referents), (p.lines[0].text, y)


def test_equal_canonical_inputs_share_one_computation():
    model = _model("ltl", "canonicalized", seed=4)
    program = LTL_PAIRS[3]
    enc = model.encode(program)
    calls = []
    real = model._generate_ids
    model._generate_ids = lambda *a: calls.append(len(a[1])) or real(*a)
    variants = [renamed(enc, r, model.vocab) for r in _renamings(program, limit=30)]
    model.predict_encoded([enc] + variants, beam=1)
    assert calls == [1]  # one canonical source, decoded once for every variant
    model.predict_encoded(variants[:4], beam=1)
    assert calls == [1]  # and not again while the weights stay
    with torch.no_grad():
        next(model.network.parameters()).add_(1e-3)
    model.predict_encoded(variants[:4], beam=1)
    assert calls == [1, 1]  # new weights: decoded again


def test_a_name_it_cannot_map_back_is_that_example_error():
    """Without restrict_output a canonicalized model may write a canonical
    name its input lacks: that example's prediction is an Unmapped error; the
    batch's other examples are predicted."""
    model = _model("ltl", "canonicalized", seed=0, restrict_output=False)
    programs = [ltl.prepare(ltl.parse(f)) for f in ("Xa", "Fb", "Gc", "!d", "&aXa", "Fe", "XXa", "GFb")] * 2
    out = model.predict_encoded([model.encode(p) for p in programs], beam=1)
    assert len(out) == len(programs)
    errors = [y for y in out if isinstance(y, ModelError)]
    assert errors and all(isinstance(y, Unmapped) and "does not hold" in y.message for y in errors)
    assert all(isinstance(y, (str, Unmapped)) for y in out)


def test_map_back_and_its_refusals():
    vocab = _vocab(ltl, LTL_PAIRS)
    enc = encode(ltl.prepare(ltl.parse("&dXb")), vocab, canonical=True)
    back = back_map(enc)
    tid = lambda s: vocab.token_id(s, "ap")  # noqa: E731
    assert back == {tid("a"): tid("d"), tid("b"): tid("b")}
    ids = [tid("a"), vocab.token_id(";", ";"), tid("b")]
    assert map_back(ids, back, vocab.interchangeable, vocab.tokens) == [tid("d"), ids[1], tid("b")]
    with pytest.raises(Unmapped, match="'c'"):
        map_back([tid("c")], back, vocab.interchangeable, vocab.tokens)
    with pytest.raises(ModelError, match="canonical=True"):
        canonical_pair(encode(ltl.prepare(ltl.parse("Xa")), vocab), np.zeros(len(vocab), dtype=np.int64))
    other = encode(ltl.prepare(ltl.parse("&aXb")), vocab, canonical=True)
    stale = renamed(other, {"a": "b", "b": "a"}, vocab)
    with pytest.raises(ModelError, match="do not match"):
        back_map(replace(stale, tokens=np.where(stale.tokens == tid("a"), tid("b"), stale.tokens)))


def test_a_canonicalized_model_refuses_what_its_vocabulary_cannot_name():
    model = _model("ltl", "canonicalized+dualpart")
    with pytest.raises(ModelError, match="outside this canonicalized\\+dualpart model's vocabulary"):
        model.predict([ltl.prepare(ltl.parse("& foo X bar"))])
    # 27 APs the vocabulary holds: their canonical names are p0 … p26, which it does not
    many = ltl.parse(" & ".join([*ltl.POOL, "zz"]))
    counts = add_pool(add_specials(vocab_counts(LTL_PAIRS + [many])), ltl.POOL, "ap")
    wide = Vocab.from_counts(counts, min_count=1)
    config = preset("canonicalized", "tiny", head="generate", **ltl.arch_config("canonicalized")).with_vocab(wide)
    with pytest.raises(ModelError, match="27 distinct APs, more than the canonical names"):
        Model("ltl", config, wide).check_supported(many)
    # a vocabulary without the pool cannot hold the canonical names at all
    counts = add_specials(vocab_counts(LTL_PAIRS[:3]))
    small = Vocab.from_counts(counts, min_count=1)
    config = preset("canonicalized", "tiny", head="generate", **ltl.arch_config("canonicalized")).with_vocab(small)
    with pytest.raises(ModelError, match="whole pool of canonical names"):
        Model("ltl", config, small)
