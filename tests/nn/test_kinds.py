"""One wrapper per kind of model: ``Model(task, config, vocab)`` makes the
kind that serves the config's head (a pooled encoder, an encoder-decoder, a
causal language model), each with its own network, reading and output, and
all of them sharing what a model does alike (:mod:`invar.nn.wrapper`)."""

from __future__ import annotations

import pytest
import torch

from invar.encoding import Vocab, add_pool, add_specials, vocab_counts
from invar.errors import ModelError
from invar.frontends.x86.parse import parse as parse_x86
from invar.nn.causal_lm import CausalLM
from invar.nn.config import preset
from invar.nn.decoder import Seq2Seq
from invar.nn.encoder import Network
from invar.nn.encoder_decoder import EncoderDecoder
from invar.nn.lm import LanguageModel
from invar.nn.model import Model, build_network, kind_of
from invar.nn.pooled import PooledEncoder
from invar.tasks import copy, lm
from tests.conftest import FIXTURES

BLOCKS = [parse_x86("add %rax, %rbx\nmov %rbx, %rcx"), parse_x86("imul %rdx, %rsi")]
PAIRS = [copy.parse(ex.source) for ex in copy.read_split(FIXTURES / "copy", "test")[:4]]
WINDOWS = lm.char_windows((FIXTURES / "python" / "arith.py").read_text(), 24)[:4]


def _pooled() -> Model:
    vocab = Vocab.build(BLOCKS)
    return Model("bhive", preset("renamer", "tiny").with_vocab(vocab), vocab)


def _encoder_decoder() -> Model:
    vocab = Vocab.from_counts(add_pool(add_specials(vocab_counts(PAIRS)), copy.POOL, "sym"), min_count=1)
    return Model("copy", preset("dualpart", "tiny", head="generate").with_vocab(vocab), vocab)


def _causal_lm() -> Model:
    vocab = Vocab.build(WINDOWS)
    config = preset("lexinvariant", "tiny", head="lm", **lm.arch_config("lexinvariant")).with_vocab(vocab)
    return Model("lm", config, vocab)


@pytest.mark.parametrize(
    "make, kind, network, reads, inputs",
    [
        (_pooled, PooledEncoder, Network, "programs", BLOCKS),
        (_encoder_decoder, EncoderDecoder, Seq2Seq, "pairs", PAIRS),
        (_causal_lm, CausalLM, LanguageModel, "programs", WINDOWS),
    ],
)
def test_a_model_is_the_kind_its_head_calls_for(make, kind, network, reads, inputs):
    torch.manual_seed(0)
    model = make()
    assert type(model) is kind and isinstance(model, Model) and kind_of(model.config.head) is kind
    assert type(model.network) is network and kind.reads == reads
    assert len(model.predict(inputs)) == len(inputs)
    assert type(Model(model.task, model.config, model.vocab, model.network)) is kind  # load_model's way


def test_every_head_has_one_kind_and_an_unknown_one_is_a_bad_config():
    assert {head: kind_of(head) for head in ("regression", "multilabel", "binary", "generate", "lm")} == {
        "regression": PooledEncoder,
        "multilabel": PooledEncoder,
        "binary": PooledEncoder,
        "generate": EncoderDecoder,
        "lm": CausalLM,
    }
    with pytest.raises(ModelError, match="no kind of model serves head='compiled'"):
        kind_of("compiled")
    vocab = Vocab.build(BLOCKS)
    config = preset("vanilla", "tiny").with_vocab(vocab)
    object.__setattr__(config, "head", "compiled")
    with pytest.raises(ModelError, match="bad model config: head='compiled': choose from"):
        Model("bhive", config, vocab)
    with pytest.raises(ModelError, match="bad model config: head='compiled'"):
        build_network(config, vocab, "bhive")


def test_what_a_kind_reads_and_fits():
    """A pair fits training when both its sides fit; a language model
    predicts from a sequence's second token on, so one token is too few."""
    model = _encoder_decoder()
    pair = model.encode(PAIRS[0])
    source = int((pair.lines == 0).sum())
    assert model.length_of(pair) == source < len(pair)
    assert EncoderDecoder.fits_training(pair, len(pair)) and not EncoderDecoder.fits_training(pair, source)
    assert PooledEncoder.fits_training(pair, len(pair)) and not PooledEncoder.fits_training(pair, len(pair) - 1)
    causal = _causal_lm()
    one = lm.parse('"d"')
    assert not causal.fits(one) and causal.fits(lm.parse('"de"'))
    with pytest.raises(ModelError, match="has 1 tokens; this model takes 1 to"):
        causal.predict([one])


def test_what_every_kind_shares_is_the_wrappers_own():
    """Prediction and the checks around it are written once (a patch of
    ``Model.predict_encoded`` reaches every kind, as the interrupt tests rely on)."""
    for kind in (PooledEncoder, EncoderDecoder, CausalLM):
        assert not {"predict", "predict_encoded", "check_supported", "encode", "fits"} & set(vars(kind)), kind
