"""ModelConfig: the architectures are presets, bad combinations fail with a message."""

from __future__ import annotations

import pytest

from invar.encoding import Vocab
from invar.errors import ModelError
from invar.nn.config import ARCHITECTURES, SIZES, ModelConfig, architectures, preset
from invar.nn.model import build_network


@pytest.mark.parametrize(
    "arch, fields",
    [
        (
            "vanilla",
            {
                "embedding": "learned",
                "positions": "absolute",
                "attention": "none",
                "augment": False,
                "canonicalize": False,
            },
        ),
        ("augmented", {"embedding": "learned", "augment": True}),
        ("canonicalized", {"embedding": "learned", "canonicalize": True}),
        ("renamer", {"embedding": "view", "attention": "referent", "mask_layers": 1, "positions": "absolute"}),
        ("spe", {"positions": "line", "attention": "symmetry", "mask_layers": 0, "symmetry_mask": "hadamard"}),
        (
            "renamer+spe",
            {
                "embedding": "view",
                "positions": "line",
                "attention": "referent+symmetry",
                "mask_layers": 1,
                "symmetry_mask": "hadamard",
            },
        ),
        ("dualpart", {"embedding": "dualpart", "random_part": "normal"}),
        ("lexinvariant", {"embedding": "lexinvariant", "lexinvariant_p": None, "random_tokens": "referents"}),
        ("canonicalized+dualpart", {"embedding": "dualpart", "canonicalize": True, "head": "generate"}),
        ("canonicalized+lexinvariant", {"embedding": "lexinvariant", "canonicalize": True, "head": "generate"}),
    ],
)
def test_architectures_are_presets(arch, fields):
    config = preset(arch, "tiny", head="generate" if arch.startswith("canonicalized+") else "regression")
    assert type(config) is ModelConfig and config.arch == arch
    for name, value in fields.items():
        assert getattr(config, name) == value, name


@pytest.mark.parametrize("size, shape", [("tiny", (2, 128, 2)), ("mini", (4, 256, 4)), ("small", (4, 512, 8))])
def test_sizes_are_the_papers(size, shape):
    config = preset("vanilla", size)
    assert (config.n_layer, config.d_model, config.n_head) == shape == SIZES[size]
    assert config.ff_width == 4 * config.d_model and config.max_len == 128


@pytest.mark.parametrize(
    "heads, split", [(1, (1, 0, 0)), (2, (1, 0, 1)), (4, (2, 1, 1)), (8, (4, 2, 2)), (12, (6, 3, 3)), (16, (8, 4, 4))]
)
def test_symmetry_heads_keep_the_papers_ratio(heads, split):
    config = ModelConfig(n_head=heads, d_model=16 * heads, attention="symmetry")
    assert config.head_split == split
    assert sum(split) == heads and split[0] >= 1


def test_renamer_spe_masks_coreference_first_then_symmetry():
    config = preset("renamer+spe", "mini", mask_layers=2)
    assert [config.layer_attention(i) for i in range(4)] == ["referent", "referent", "symmetry", "symmetry"]
    assert config.uses_symmetry and not preset("renamer", "tiny").uses_symmetry
    assert [preset("spe", "tiny").layer_attention(i) for i in range(2)] == ["symmetry", "symmetry"]
    assert [preset("renamer", "tiny").layer_attention(i) for i in range(2)] == ["referent", "none"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"d_model": 100, "n_head": 3}, "not divisible"),
        ({"embedding": "bag"}, "embedding='bag'"),
        ({"positions": "relative"}, "positions='relative'"),
        ({"attention": "causal"}, "attention='causal'"),
        ({"augment": True, "canonicalize": True}, "exclude each other"),
        ({"embedding": "dualpart", "random_fraction": 0.0}, "both parts"),
        ({"embedding": "dualpart", "random_fraction": 1.0}, "both parts"),
        (
            {"embedding": "dualpart", "random_part": "hypercube", "random_fraction": 2 / 128, "n_referents": 9},
            "distinct points",
        ),
        ({"random_part": "grid"}, "apply to embedding='dualpart'"),
        ({"lexinvariant_p": 0.5}, "apply to embedding='lexinvariant'"),
        ({"embedding": "lexinvariant", "lexinvariant_p": 1.5}, "probability"),
        ({"mask_layers": 1}, "applies no mask"),
        ({"attention": "referent", "mask_layers": 3}, "between 0"),
        ({"attention": "referent+symmetry"}, "mask_layers=0 must be between 1 and n_layer - 1 = 1"),
        ({"attention": "referent+symmetry", "mask_layers": 2}, "symmetry mask on the rest"),
        ({"attention": "referent+symmetry", "mask_layers": 1, "n_layer": 1}, "n_layer - 1 = 0"),
        ({"embedding": "view", "canonicalize": True}, "views never change"),
        ({"pinned_tokens": "token"}, "pinned_tokens applies to embedding='view'"),
        ({"embedding": "view", "pinned_tokens": "ids"}, "pinned_tokens='ids'"),
        ({"head": "binary", "n_labels": 2}, "one label"),
        ({"dropout": 1.0}, "dropout"),
        ({"n_layer": 0}, "at least 1"),
    ],
)
def test_incompatible_choices_are_rejected_with_a_message(overrides, message):
    with pytest.raises(ValueError, match=message):
        preset("vanilla", "tiny", **overrides)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: preset("transformer"), "unknown architecture 'transformer'"),
        (lambda: preset("vanilla", "huge"), "unknown size 'huge'"),
        (lambda: preset("vanilla", "tiny", width=3), "unknown config field 'width'"),
        (lambda: ModelConfig.from_dict({"n_layer": 2, "colour": "red"}), "unknown config fields: colour"),
    ],
)
def test_unknown_names(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_building_a_bad_config_is_a_model_error():
    vocab = Vocab(["<pad>", "<unk>"], ["<pad>", "<unk>"], ["<none>", "<unk>"], [False, False])
    config = ModelConfig(d_model=10, n_head=3).with_vocab(vocab)
    with pytest.raises(ModelError, match="not divisible"):
        build_network(config, vocab)


def test_which_architectures_each_head_takes():
    pooled = ["vanilla", "augmented", "canonicalized", "renamer", "spe", "renamer+spe", "dualpart", "lexinvariant"]
    for head in ("regression", "multilabel", "binary"):
        assert architectures(head) == pooled
    assert architectures("generate") == [
        "vanilla",
        "augmented",
        "canonicalized",
        "dualpart",
        "lexinvariant",
        "canonicalized+dualpart",
        "canonicalized+lexinvariant",
    ]
    assert set(ARCHITECTURES) == set(pooled) | set(architectures("generate"))
    with pytest.raises(ValueError, match="for sequence tasks"):
        preset("canonicalized+dualpart", "tiny")


@pytest.mark.parametrize("arch", sorted(ARCHITECTURES))
def test_config_round_trips_through_json(arch):
    import json

    config = preset(arch, "mini", dropout=0.0, head="regression" if arch in architectures() else "generate")
    assert ModelConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
