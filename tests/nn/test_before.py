"""Checkpoints written before embed_scaling, norm_position, random_draw and
random_vectors existed (tests/nn/data, made by make_before.py with the invar
of an earlier commit) load with what they meant, and compute what that
invar computed, to float32 rounding (the expected outputs are what the CPU
that made them computed; another CPU's vector instructions round the same
sums differently in the last bits): a dual-part copy model (whose new default would scale
its inputs by sqrt(d)) and a lexinvariant language model (whose new
default random vectors are the paper's unit ones, not the small ones)."""

from __future__ import annotations

from pathlib import Path

import torch

import invar
from invar.encoding import collate_pairs
from invar.nn.config import ModelConfig, preset
from invar.nn.lm import position_losses
from invar.tasks import copy, lm

DATA = Path(__file__).parent / "data"
NEW = ("embed_scaling", "norm_position", "random_draw", "random_vectors", "symmetry_heads", "pool_size")


def _stored_config(name: str) -> dict:
    return torch.load(DATA / name, weights_only=True, map_location="cpu")["config"]


def test_the_stored_configs_predate_the_new_fields():
    for name in ("dualpart-copy.pt", "lexinvariant-lm.pt"):
        assert not set(NEW) & set(_stored_config(name)), name


def test_a_dual_part_model_from_before_reads_unscaled_vectors_and_predicts_as_it_did():
    model = invar.load_model(DATA / "dualpart-copy.pt")
    config = model.config
    assert (config.embedding, config.embed_scaling, config.norm_position, config.random_draw) == (
        "dualpart",
        "none",
        "pre",
        "sequence",
    )
    assert preset("dualpart", "tiny", head="generate").embed_scaling == "sqrtd"  # what a new one gets
    expected = torch.load(DATA / "dualpart-copy.expected.pt", weights_only=True)
    programs = [copy.parse(s) for s in expected["strings"]]
    bos, eos = model.vocab.token_id("<bos>", "<bos>"), model.vocab.token_id("<eos>", "<eos>")
    with torch.no_grad():
        scores = model.network.eval()(collate_pairs([model.encode(p) for p in programs], bos=bos, eos=eos))
    assert torch.allclose(scores, expected["scores"], rtol=1e-5, atol=1e-6)
    assert model.predict(programs) == expected["predictions"]


def test_a_lexinvariant_language_model_from_before_keeps_its_vectors_and_losses():
    model = invar.load_model(DATA / "lexinvariant-lm.pt")
    assert model.config.random_vectors == "small" and model.config.embed_scaling == "none"
    stored = _stored_config("lexinvariant-lm.pt")
    assert stored["random_tokens"] == "all" and ModelConfig.from_dict(stored).random_vectors == "small"
    assert ModelConfig(**stored).random_vectors == "small"  # a new config of the same fields: the same default
    expected = torch.load(DATA / "lexinvariant-lm.expected.pt", weights_only=True)
    losses = position_losses(model.network, [model.encode(lm.parse(w)) for w in expected["windows"]])
    assert len(losses) == len(expected["losses"]) > 0
    for got, want in zip(losses, expected["losses"]):
        assert torch.allclose(torch.from_numpy(got), want, rtol=1e-5, atol=1e-6)


def test_a_saved_config_round_trips_with_the_new_fields():
    for config in (
        preset("dualpart", "tiny", head="generate"),
        preset("lexinvariant", "tiny", head="lm", positions="rotary", random_tokens="all"),
    ):
        again = ModelConfig.from_dict(config.to_dict())
        assert again == config and again.embed_scaling == config.embed_scaling
