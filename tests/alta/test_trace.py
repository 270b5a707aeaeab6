"""Trace supervision: the pairs are the compiled MLP's inputs and outputs,
they survive .npz, and a short run lowers the loss and changes only the MLP."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from invar.alta import compile, get_program
from invar.alta.trace import (
    TABLE_2_SLICES,
    TraceConfig,
    TracePairs,
    balanced_bits,
    parity_accuracy,
    predict,
    supervised_model,
    trace_pairs,
    train_mlp,
)

TRAIN = balanced_bits(100, 0, 20, seed=1)
TEST = balanced_bits(20, 21, 40, seed=2)


@pytest.mark.parametrize("name", ["parity-relative", "parity-absolute", "parity-sum-mod"])
def test_trace_pairs_are_the_compiled_mlp_inputs_and_outputs(name, tmp_path):
    prog = get_program(name)
    pairs = trace_pairs(prog, TRAIN[:40])
    model = compile(prog)
    assert pairs.inputs.shape == pairs.outputs.shape and pairs.inputs.shape[1] == model.layout.width
    with torch.no_grad():
        mapped = model.mlp(torch.from_numpy(pairs.inputs)).numpy()
    assert np.allclose(mapped, pairs.outputs, atol=1e-4)
    path = tmp_path / "pairs.npz"
    pairs.save(str(path))
    back = TracePairs.load(str(path))
    assert np.array_equal(back.inputs, pairs.inputs) and np.array_equal(back.outputs, pairs.outputs)
    assert back.program == prog.to_json()


def test_trace_supervision_lowers_the_loss_and_trains_only_the_mlp():
    prog = get_program("parity-relative")
    pairs = trace_pairs(prog, TRAIN[:100])
    config = TraceConfig(hidden=(32, 32), steps=300, batch_size=64, lr=1e-2, optimizer="adafactor", seed=3)
    learned, losses = train_mlp(prog, pairs, config)
    assert np.mean(losses[-20:]) < 0.2 * np.mean(losses[:20])
    fresh = train_mlp(prog, pairs, TraceConfig(hidden=(32, 32), steps=0, seed=3))[0]
    assert any(not torch.equal(a, b) for a, b in zip(learned.parameters(), fresh.parameters()))
    model = supervised_model(prog, learned)
    compiled = compile(prog).state_dict()
    for key, value in model.state_dict().items():
        if not key.startswith("learned."):
            assert torch.equal(value, compiled[key]), key
    outputs = predict(model, TEST[:20])
    accuracy = parity_accuracy(outputs, TEST[:20], TABLE_2_SLICES)
    assert set(accuracy) == {"Length ≤ 20", "Length > 20", "Ones > 20"}


def test_the_compiled_shape_is_a_choice():
    prog = get_program("parity-relative")
    learned, _ = train_mlp(prog, trace_pairs(prog, TRAIN[:10]), TraceConfig(hidden=None, steps=2))
    model = compile(prog)
    assert [l.out_features for l in learned.layers] == [
        model.expand1.out_features,
        model.expand2.out_features,
        model.rules.out_features,
        model.layout.width,
    ]
