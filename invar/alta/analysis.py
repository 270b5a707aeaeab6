"""Learnability analysis of a program (the ALTA paper, section 3.2, appendix C).

* :func:`minimal`: the minimal version of a program on some inputs (C.2):
  the rules never satisfied when the program runs on them are dropped, and
  every token or position the runs never read starts at the variable's
  default (0, the empty set, or the bucket 0.0; else the first value) —
  the analysis the paper runs, which assumes no rule has an unneeded
  condition. :func:`coverage` says what the runs used.
* :func:`agreement`: whether the minimal version agrees with the full
  program on other inputs, the paper's way: the *compiled* minimal model
  against the full program's interpreter, its stream after every MLP
  equal (every variable, head outputs back to null included), the same
  layers and outputs; and, apart, whether the outputs alone agree.
* :func:`trace_pairs`: trace supervision data (C.1): every MLP input and
  output of the interpreter's runs, as vectors in the compiled layout
  (:func:`save_pairs` writes them as ``.npz``).
* :func:`train_mlp` / :func:`supervised_model`: trace supervision itself:
  an MLP trained from random weights on those pairs (an L2 loss on the
  residual block's output, Gaussian noise on its input's categorical and
  set dimensions, Table 1's settings by default), put in place of the
  compiled MLP; every other weight stays compiled.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import torch
import torch.nn as nn

from .compiler import Compiled, clipped_relu, encode_value, layout
from .interpreter import State, interpreter, token_ids
from .spec import TOLERANCE, AltaError, Head, Init, Program, Variable, validate

# ------------------------------------------------------------------ what runs use
@dataclass
class Coverage:
    """What the runs of a program on some inputs used."""

    #: indices into ``program.rules`` of the rules satisfied somewhere
    rules: set[int] = field(default_factory=set)
    #: alphabet indices of the symbols read (markers included)
    tokens: set[int] = field(default_factory=set)
    #: positions read
    positions: set[int] = field(default_factory=set)
    #: inputs run
    inputs: int = 0


def coverage(program: Program, inputs: Iterable[Any], *, max_layers: int | None = None) -> Coverage:
    """The rules, tokens and positions used by running ``program`` on ``inputs``.

    A head output the interpreter leaves undefined is, in the compiled
    model, a mixture of the values the head attends to; the null rules of
    those values clear it, so they count as used."""
    run_one = interpreter(program).run
    nulls = {(r.variable, r.old): i for i, r in enumerate(program.rules) if r.null}
    seen = Coverage()
    for text in inputs:
        result = run_one(text, max_layers=max_layers, trace=True)
        seen.inputs += 1
        seen.tokens.update(token_ids(program, result.tokens))
        seen.positions.update(range(len(result.tokens)))
        before = result.trace.initial
        for layer in result.trace.layers:
            for fired in layer.rules:
                seen.rules.update(fired)
            for head in program.heads:
                for pos, state in enumerate(layer.attention):
                    if state[head.output] is None:
                        seen.rules.update(nulls[(head.output, v)] for v in _mixture(head, before, pos)
                                          if (head.output, v) in nulls)
            before = layer.mlp
    return seen


def _mixture(head: Head, states: Sequence[State], pos: int) -> set[Any]:
    """The values an undefined head output mixes in a compiled model: those of
    the keys selected, else of every key the head may attend to, else of all."""
    n = len(states)
    allowed = [pos + d for d in head.relative if 0 <= pos + d < n] if head.relative is not None else list(range(n))
    chosen = allowed
    if head.query is not None:
        query = states[pos][head.query]
        member = query.__contains__ if isinstance(query, frozenset) else query.__eq__
        chosen = [j for j in allowed if states[j][head.key] is not None and member(states[j][head.key])]
    chosen = chosen or allowed or list(range(n))
    return {states[j][head.value] for j in chosen} - {None}


def default_value(v: Variable) -> Any:
    """The value a minimal program gives a variable for an unseen token or position."""
    domain = v.domain()
    zero = {"categorical": 0, "numerical": 0.0, "set": frozenset()}[v.kind]
    return zero if v.index(zero) is not None else domain[0]


def _restricted(v: Variable, seen: dict[str, set[int]]) -> Variable:
    """``v`` starting at its default for every token or position not in ``seen``."""
    kept = seen.get(v.init.kind)
    if kept is None:
        return v
    fallback = default_value(v)
    table = tuple(value if i in kept else fallback for i, value in enumerate(v.init.table))
    return dataclasses.replace(v, init=Init(v.init.kind, table, v.init.value))


def minimal(program: Program, inputs: Iterable[Any], *, max_layers: int | None = None) -> Program:
    """The minimal version of ``program`` on ``inputs`` (see the module docstring)."""
    used = coverage(program, inputs, max_layers=max_layers)
    if not used.inputs:
        raise AltaError("a minimal program needs at least one input")
    return minimal_of(program, used)


def minimal_of(program: Program, used: Coverage) -> Program:
    """The minimal version of ``program`` given what its runs used."""
    seen = {"token": used.tokens, "position": used.positions}
    variables = tuple(_restricted(v, seen) for v in program.variables)
    rules = tuple(r for i, r in enumerate(program.rules) if i in used.rules)
    reduced = dataclasses.replace(program, name=f"{program.name}-minimal", variables=variables, rules=rules)
    validate(reduced)
    return reduced


# ------------------------------------------------------------------ vectors
class Encoder:
    """States as vectors in the compiled layout (a null value is zeros)."""

    def __init__(self, program: Program):
        self.program = program
        self.layout = layout(program)
        self.parts = [(v, *self.layout.residual[v.name]) for v in program.variables]
        self._cache: dict[tuple, np.ndarray] = {}

    def __call__(self, state: State) -> np.ndarray:
        key = tuple(state[v.name] for v, _, _ in self.parts)
        vec = self._cache.get(key)
        if vec is None:
            vec = np.zeros(self.layout.width, dtype=np.float32)
            for (v, start, width), value in zip(self.parts, key):
                vec[start:start + width] = encode_value(v, value)
            self._cache[key] = vec
        return vec

    def states(self, states: Sequence[State]) -> np.ndarray:
        """(T, C) one layer's stream."""
        return np.stack([self(s) for s in states]) if states else np.zeros((0, self.layout.width), np.float32)


# ------------------------------------------------------------------ agreement
@dataclass(frozen=True)
class Agreement:
    """One input: whether the minimal model's run is the full program's, and whether its outputs are."""

    input: str
    agrees: bool
    outputs_agree: bool
    #: the first difference, or ""
    why: str = ""


def agreement(full: Program, reduced: Program, inputs: Sequence[Any], *, lam: float = 100.0,
              batch_size: int = 256, atol: float = 1e-4) -> list[Agreement]:
    """For each input, the compiled ``reduced`` model against ``full``'s interpreter (module docstring)."""
    model = Compiled(reduced, lam=lam).eval()
    encode = Encoder(full)
    out: list[Agreement] = []
    for start in range(0, len(inputs), batch_size):
        chunk = list(inputs[start:start + batch_size])
        ids, valid, tokens = model.batch(chunk)
        states: list = []
        with torch.no_grad():
            outputs, layers = model(ids, valid, states=states)
        for b, text in enumerate(chunk):
            out.append(_agree_one(full, encode, text, b, states, outputs, layers, atol))
    return out


def _agree_one(full: Program, encode: Encoder, text: Any, b: int, states: list, outputs: torch.Tensor,
               layers: torch.Tensor, atol: float) -> Agreement:
    shown = text if isinstance(text, str) else " ".join(text)
    want = interpreter(full).run(text, trace=True)
    n = len(want.tokens)
    got_out = outputs[b, :n].tolist()
    outputs_agree = got_out == want.outputs
    if int(layers[b]) != want.layers:
        return Agreement(shown, False, outputs_agree, f"{int(layers[b])} layers, the full program {want.layers}")
    for k, layer in enumerate(want.trace.layers):
        expected = encode.states(layer.mlp)
        got = states[k][1][b, :n].numpy()
        if not np.allclose(got, expected, atol=atol, rtol=TOLERANCE):
            pos = int(np.abs(got - expected).max(axis=1).argmax())
            return Agreement(shown, False, outputs_agree, f"layer {k + 1}, position {pos}: the stream differs")
    if not outputs_agree:
        return Agreement(shown, False, False, "the outputs differ")
    return Agreement(shown, True, True)


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


def trace_pairs(program: Program, inputs: Iterable[Any], *, max_layers: int | None = None) -> TracePairs:
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


def trace_mlp(program: Program, config: TraceConfig) -> TraceMLP:
    """A randomly initialised MLP for ``program``: Table 1's widths, or the compiled ones."""
    torch.manual_seed(config.seed)
    width = layout(program).width
    if config.hidden is not None:
        return TraceMLP(width, config.hidden)
    shape = Compiled(program)
    return TraceMLP(width, (shape.expand1.out_features, shape.expand2.out_features, shape.rules.out_features),
                    clipped=True)


def _optimizer(config: TraceConfig, params) -> torch.optim.Optimizer:
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr)
    if config.optimizer == "adafactor":
        return torch.optim.Adafactor(params, lr=config.lr)
    raise AltaError(f"unknown optimizer {config.optimizer!r}; use adam or adafactor")


def train_mlp(program: Program, pairs: TracePairs, config: TraceConfig = TraceConfig(),
              progress: Callable[[int, float], None] | None = None) -> tuple[TraceMLP, list[float]]:
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

    def __init__(self, program: Program, learned: TraceMLP, *, lam: float = 100.0):
        super().__init__(program, lam=lam)
        self.learned = learned

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.learned(x)


def supervised_model(program: Program, learned: TraceMLP, *, lam: float = 100.0) -> Supervised:
    """The compiled model of ``program`` with ``learned`` as its MLP."""
    return Supervised(program, learned, lam=lam).eval()


def predict(model: Compiled, inputs: Sequence[Any], *, batch_size: int = 256,
            max_layers: int | None = None) -> list[list[int]]:
    """Each input's outputs (markers' positions included), the model run in batches."""
    out: list[list[int]] = []
    for start in range(0, len(inputs), batch_size):
        chunk = list(inputs[start:start + batch_size])
        ids, valid, tokens = model.batch(chunk)
        with torch.no_grad():
            outputs, _ = model(ids, valid, max_layers=max_layers)
        out.extend(outputs[b, :len(t)].tolist() for b, t in enumerate(tokens))
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


def parity_accuracy(outputs: Sequence[Sequence[int]], inputs: Sequence[Sequence[str]],
                    slices: dict[str, Callable[[Sequence[str]], bool]]) -> dict[str, tuple[float, int]]:
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
