"""A compiled model against the interpreter: the first place they disagree.

Inputs go through the compiled model in batches; each input's interpreter
trace is compared with the compiled stream decoded into symbols, layer by
layer (after attention and after the MLP), position by position, variable
by variable, then the layers made and the outputs. An input the interpreter
refuses (an :class:`AltaError`: outside the program's domain) is counted,
not compared. A value the interpreter
leaves undefined (a head that selected nothing, or more than one value for
a categorical head) is not compared: the compiled model holds a mixture
there, which the reset rules clear.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import torch

from .compiler import Compiled
from .interpreter import interpreter
from .spec import TOLERANCE, AltaError


@dataclass(frozen=True)
class Disagreement:
    """Where a compiled model and the interpreter first differ."""

    input: str
    #: 1-based layer, 0 for the layer count or the final outputs
    layer: int
    #: ``attention`` (the MLP's input), ``mlp`` (its output), ``layers`` or ``output``
    stage: str
    position: int
    variable: str
    interpreter: Any
    compiled: Any

    def text(self) -> str:
        if self.stage == "layers":
            return (
                f"input {self.input!r}: the interpreter made {self.interpreter} layers, "
                f"the compiled model {self.compiled}"
            )
        where = f"layer {self.layer} ({self.stage})" if self.layer else "the output"
        return (
            f"input {self.input!r}, {where}, position {self.position}, variable {self.variable!r}: "
            f"interpreter {_show(self.interpreter)}, compiled {_show(self.compiled)}"
        )


def _show(value: Any) -> str:
    if value is None:
        return "null"
    return "{" + ", ".join(map(str, sorted(value))) + "}" if isinstance(value, frozenset) else str(value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= TOLERANCE * max(1.0, abs(a))
    return a == b


def all_inputs(alphabet: Sequence[str], max_length: int, min_length: int = 0) -> Iterator[list[str]]:
    """Every string over ``alphabet`` of length ``min_length`` to ``max_length``, shortest first."""
    for n in range(min_length, max_length + 1):
        for symbols in itertools.product(alphabet, repeat=n):
            yield list(symbols)


def _compare_states(text: str, layer: int, stage: str, expected: list[dict], got: list[dict]) -> Disagreement | None:
    for pos, (want, have) in enumerate(zip(expected, got)):
        for name, value in want.items():
            if value is None and stage == "attention":
                continue  # undefined: a mixture in the compiled stream
            if not _same(value, have[name]):
                return Disagreement(text, layer, stage, pos, name, value, have[name])
    return None


def _compare_one(
    model: Compiled,
    text: str,
    symbols: list[str],
    b: int,
    outputs: torch.Tensor,
    layers: torch.Tensor,
    states: list,
    max_layers: int | None,
) -> Disagreement | AltaError | None:
    try:
        result = interpreter(model.program).run(symbols, max_layers=max_layers, trace=True, markers=False)
    except AltaError as err:  # outside the program's domain: nothing to compare
        return err
    n = len(result.tokens)
    for k, layer in enumerate(result.trace.layers):
        if k >= len(states):
            break
        attended, after, _ = states[k]
        for stage, want, got in (("attention", layer.attention, attended), ("mlp", layer.mlp, after)):
            found = _compare_states(text, k + 1, stage, want, model.decode(got[b, :n], reset=stage == "mlp"))
            if found:
                return found
    if int(layers[b]) != result.layers:
        return Disagreement(text, 0, "layers", 0, "", result.layers, int(layers[b]))
    for pos, (want, have) in enumerate(zip(result.outputs, outputs[b, :n].tolist())):
        if want != have:
            return Disagreement(text, 0, "output", pos, model.program.output, want, have)
    return None


@dataclass
class Checked:
    """What :func:`first_disagreement` found: the disagreement (None when
    there is none), the inputs compared, and the inputs the interpreter
    refused (outside the program's domain) with the first refusal."""

    disagreement: Disagreement | None
    compared: int
    refused: int
    first_refusal: AltaError | None


def first_disagreement(
    model: Compiled,
    inputs: Iterable[str | Sequence[str]],
    *,
    max_layers: int | None = None,
    batch_size: int = 256,
    markers: bool = True,
) -> Checked:
    """Compare ``model`` with the interpreter on ``inputs``, up to the first disagreement."""
    out = Checked(None, 0, 0, None)
    iterator = iter(inputs)
    while True:
        chunk = list(itertools.islice(iterator, batch_size))
        if not chunk:
            return out
        ids, valid, tokens = model.batch(chunk, markers=markers)
        states: list = []
        with torch.no_grad():
            outputs, layers = model(ids, valid, max_layers=max_layers, states=states)
        for b, symbols in enumerate(tokens):
            text = " ".join(chunk[b]) if not isinstance(chunk[b], str) else chunk[b]
            found = _compare_one(model, text, symbols, b, outputs, layers, states, max_layers)
            if isinstance(found, AltaError):
                out.refused += 1
                out.first_refusal = out.first_refusal or found
                continue
            out.compared += 1
            if found:
                out.disagreement = found
                return out
