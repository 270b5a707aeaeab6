"""Trace supervision (the ALTA paper, section 3.2, appendix C.1).

* :func:`trace_pairs`: every MLP input and output of the interpreter's runs,
  as vectors in the compiled layout (:meth:`TracePairs.save` writes them as
  ``.npz``).
* :func:`train_mlp`: an MLP trained from random weights on those pairs (an
  L2 loss on the residual block's output, Gaussian noise on its input's
  categorical and set dimensions, Table 1's settings by default);
  :func:`supervised_model` puts it in place of the compiled MLP, every other
  weight compiled.
* :func:`predict`, :func:`balanced_bits`, :func:`parity_accuracy` and
  :data:`TABLE_2_SLICES` score a model as the paper's Table 2 does.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import torch
import torch.nn as nn

from .analysis import Encoder
from .compiler import Compiled, clipped_relu, layout
from .interpreter import interpreter
from .spec import AltaError, AltaProgram


# ------------------------------------------------------------------ trace supervision data
@dataclass
class TracePairs:
    """Every MLP input and output of some runs, as (N, C) float32 arrays in the compiled layout."""

    inputs: np.ndarray
    outputs: np.ndarray
    #: the program they come from, as JSON
    program: str

    def save(self, path: str) -> None:
        np.savez_compressed(path, inputs=self.inputs, outputs=self.outputs, program=np.array(self.program))

    @staticmethod
    def load(path: str) -> "TracePairs":
        with np.load(path, allow_pickle=False) as data:
            return TracePairs(data["inputs"], data["outputs"], str(data["program"]))


def trace_pairs(program: AltaProgram, inputs: Iterable[Any], *, max_layers: int | None = None) -> TracePairs:
    """The interpreter's MLP inputs and outputs on ``inputs``, every layer and position."""
    encode = Encoder(program)
    run_one = interpreter(program).run
    xs, ys = [], []
    for text in inputs:
        for layer in run_one(text, max_layers=max_layers, trace=True).trace.layers:
            xs.append(encode.states(layer.attention))
            ys.append(encode.states(layer.mlp))
    width = encode.layout.width
    x = np.concatenate(xs) if xs else np.zeros((0, width), np.float32)
    y = np.concatenate(ys) if ys else np.zeros((0, width), np.float32)
    return TracePairs(x, y, program.to_json())


def save_pairs(path: str, pairs: TracePairs) -> None:
    """Write ``pairs`` as ``.npz`` (arrays ``inputs``, ``outputs``, ``program``)."""
    pairs.save(path)


# ------------------------------------------------------------------ trace supervision
@dataclass(frozen=True)
class TraceConfig:
    """How the MLP is trained (defaults: Table 1's Sequential (Relative) column)."""

    #: hidden widths; None: the compiled MLP's own (expansion, one-hots, rules) with clipped ReLUs
    hidden: tuple[int, ...] | None = (128, 128)
    steps: int = 50_000
    batch_size: int = 256
    lr: float = 1e-2
    #: ``adafactor`` or ``adam``
    optimizer: str = "adafactor"
    noise: float = 0.1
    #: noise on numerical variables too (at 0.1 it hides buckets closer than that, e.g. 1/20 and 1/21)
    numerical_noise: bool = False
    seed: int = 0


#: Table 1 of the paper, by shipped program
TABLE_1 = {
    "parity-relative": TraceConfig((128, 128), 50_000, 256, 1e-2, "adafactor", 0.1),
    "parity-absolute": TraceConfig((4096,) * 4, 50_000, 256, 1e-4, "adam", 0.1),
    "parity-sum-mod": TraceConfig((4096,) * 4, 400_000, 256, 1e-4, "adam", 0.1),
}


class TraceMLP(nn.Module):
    """An MLP from the residual width to itself; it gives the change to the stream."""

    def __init__(self, width: int, hidden: Sequence[int], clipped: bool = False):
        super().__init__()
        sizes = [width, *hidden, width]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.clipped = clipped

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers[:-1]:
            x = layer(x)
            x = clipped_relu(x) if self.clipped else torch.relu(x)
        return self.layers[-1](x)


def trace_mlp(program: AltaProgram, config: TraceConfig) -> TraceMLP:
    """A randomly initialised MLP for ``program``: Table 1's widths, or the compiled ones."""
    torch.manual_seed(config.seed)
    width = layout(program).width
    if config.hidden is not None:
        return TraceMLP(width, config.hidden)
    shape = Compiled(program)
    return TraceMLP(
        width, (shape.expand1.out_features, shape.expand2.out_features, shape.rules.out_features), clipped=True
    )


def _optimizer(config: TraceConfig, params) -> torch.optim.Optimizer:
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr)
    if config.optimizer == "adafactor":
        return torch.optim.Adafactor(params, lr=config.lr)
    raise AltaError(f"unknown optimizer {config.optimizer!r}; use adam or adafactor")


def train_mlp(
    program: AltaProgram,
    pairs: TracePairs,
    config: TraceConfig = TraceConfig(),
    progress: Callable[[int, float], None] | None = None,
) -> tuple[TraceMLP, list[float]]:
    """Train a fresh MLP on ``pairs``; the loss (mean squared error of the
    residual block's output against the interpreter's) every step."""
    if len(pairs.inputs) == 0:
        raise AltaError("no trace pairs to train on")
    mlp = trace_mlp(program, config)
    x, y = torch.from_numpy(pairs.inputs), torch.from_numpy(pairs.outputs)
    scale = torch.full((x.shape[1],), config.noise)
    if not config.numerical_noise:
        lay = layout(program)
        for v in program.variables:
            if v.kind == "numerical":
                scale[lay.residual[v.name][0]] = 0.0
    optimizer = _optimizer(config, mlp.parameters())
    generator = torch.Generator().manual_seed(config.seed)
    losses = []
    mlp.train()
    for step in range(config.steps):
        idx = torch.randint(len(x), (config.batch_size,), generator=generator)
        xb = x[idx] + scale * torch.randn(len(idx), x.shape[1], generator=generator)
        # the block is residual: from the noisy input, its output must land on the clean one
        loss = torch.mean((xb + mlp(xb) - y[idx]) ** 2)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
        if progress is not None:
            progress(step, losses[-1])
    return mlp.eval(), losses


class Supervised(Compiled):
    """A compiled model whose MLP is a trained :class:`TraceMLP` (the compiled MLP's weights are kept, unused)."""

    def __init__(self, program: AltaProgram, learned: TraceMLP, *, lam: float = 100.0):
        super().__init__(program, lam=lam)
        self.learned = learned

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.learned(x)


def supervised_model(program: AltaProgram, learned: TraceMLP, *, lam: float = 100.0) -> Supervised:
    """The compiled model of ``program`` with ``learned`` as its MLP."""
    return Supervised(program, learned, lam=lam).eval()


def predict(
    model: Compiled, inputs: Sequence[Any], *, batch_size: int = 256, max_layers: int | None = None
) -> list[list[int]]:
    """Each input's outputs (markers' positions included), the model run in batches."""
    out: list[list[int]] = []
    for start in range(0, len(inputs), batch_size):
        chunk = list(inputs[start : start + batch_size])
        ids, valid, tokens = model.batch(chunk)
        with torch.no_grad():
            outputs, _ = model(ids, valid, max_layers=max_layers)
        out.extend(outputs[b, : len(t)].tolist() for b, t in enumerate(tokens))
    return out


# ------------------------------------------------------------------ parity data (the paper's D.1)
def balanced_bits(count: int, min_length: int, max_length: int, *, seed: int = 0) -> list[list[str]]:
    """``count`` bit strings of ``min_length``–``max_length`` bits, about as many
    for each number of ones (the paper's parity train and test sets)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        ones = rng.randint(0, max_length)
        length = rng.randint(max(ones, min_length), max_length)
        bits = ["1"] * ones + ["0"] * (length - ones)
        rng.shuffle(bits)
        out.append(bits)
    return out


def parity_accuracy(
    outputs: Sequence[Sequence[int]],
    inputs: Sequence[Sequence[str]],
    slices: dict[str, Callable[[Sequence[str]], bool]],
) -> dict[str, tuple[float, int]]:
    """Per slice, the share of inputs whose last output is their parity, and the slice's size."""
    result = {}
    for name, keep in slices.items():
        hits = [out[-1] == list(bits).count("1") % 2 for out, bits in zip(outputs, inputs) if keep(bits) and out]
        result[name] = (sum(hits) / len(hits) if hits else math.nan, len(hits))
    return result


#: Table 2's slices
TABLE_2_SLICES = {
    "Length ≤ 20": lambda bits: 0 < len(bits) <= 20,
    "Length > 20": lambda bits: len(bits) > 20,
    "Ones > 20": lambda bits: list(bits).count("1") > 20,
}
