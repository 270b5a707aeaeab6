"""Minimal programs (the ALTA paper, section 3.2, appendix C.2).

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

Trace supervision is in :mod:`.trace`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import torch

from .compiler import Compiled, encode_value, layout
from .interpreter import State, interpreter, token_ids
from .spec import TOLERANCE, AltaError, Head, Init, AltaProgram, Variable, validate


# ------------------------------------------------------------------ what runs use
@dataclass
class Coverage:
    """What the runs of a program on some inputs used."""

    #: indices into ``program.rules`` of the rules the interpreter satisfied somewhere (the paper's count)
    rules: set[int] = field(default_factory=set)
    #: indices of the null resets never satisfied that clear the mixtures of a compiled model
    mixtures: set[int] = field(default_factory=set)
    #: alphabet indices of the symbols read (markers included)
    tokens: set[int] = field(default_factory=set)
    #: positions read
    positions: set[int] = field(default_factory=set)
    #: inputs run
    inputs: int = 0


def coverage(program: AltaProgram, inputs: Iterable[Any], *, max_layers: int | None = None) -> Coverage:
    """The rules, tokens and positions used by running ``program`` on ``inputs``.

    A head output the interpreter leaves undefined is, in the compiled
    model, a mixture of the values the head attends to; the null rules of
    those values clear it, so :attr:`Coverage.mixtures` keeps those the
    interpreter never satisfied."""
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
                        seen.mixtures.update(
                            nulls[(head.output, v)] for v in _mixture(head, before, pos) if (head.output, v) in nulls
                        )
            before = layer.mlp
    seen.mixtures -= seen.rules
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


def minimal(
    program: AltaProgram, inputs: Iterable[Any], *, max_layers: int | None = None, mixtures: bool = True
) -> AltaProgram:
    """The minimal version of ``program`` on ``inputs`` (see the module docstring);
    ``mixtures=False`` keeps only the rules the interpreter satisfied."""
    used = coverage(program, inputs, max_layers=max_layers)
    if not used.inputs:
        raise AltaError("a minimal program needs at least one input")
    return minimal_of(program, used, mixtures=mixtures)


def minimal_of(program: AltaProgram, used: Coverage, *, mixtures: bool = True) -> AltaProgram:
    """The minimal version of ``program`` given what its runs used: the rules
    the interpreter satisfied (the paper's minimal program, appendix C.2) and,
    unless ``mixtures`` is false, the null resets its compiled model needs to
    clear the mixtures of undefined head outputs (without them the compiled
    minimal model can differ from the full program on its own inputs)."""
    seen = {"token": used.tokens, "position": used.positions}
    variables = tuple(_restricted(v, seen) for v in program.variables)
    kept = used.rules | used.mixtures if mixtures else used.rules
    rules = tuple(r for i, r in enumerate(program.rules) if i in kept)
    reduced = dataclasses.replace(program, name=f"{program.name}-minimal", variables=variables, rules=rules)
    validate(reduced)
    return reduced


# ------------------------------------------------------------------ vectors
class Encoder:
    """States as vectors in the compiled layout (a null value is zeros)."""

    def __init__(self, program: AltaProgram):
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
                vec[start : start + width] = encode_value(v, value)
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


def agreement(
    full: AltaProgram,
    reduced: AltaProgram,
    inputs: Sequence[Any],
    *,
    lam: float = 100.0,
    batch_size: int = 256,
    atol: float = 1e-4,
) -> list[Agreement]:
    """For each input, the compiled ``reduced`` model against ``full``'s interpreter (module docstring)."""
    model = Compiled(reduced, lam=lam).eval()
    encode = Encoder(full)
    out: list[Agreement] = []
    for start in range(0, len(inputs), batch_size):
        chunk = list(inputs[start : start + batch_size])
        ids, valid, tokens = model.batch(chunk)
        states: list = []
        with torch.no_grad():
            outputs, layers = model(ids, valid, states=states)
        for b, text in enumerate(chunk):
            out.append(_agree_one(full, encode, text, b, states, outputs, layers, atol))
    return out


def _agree_one(
    full: AltaProgram,
    encode: Encoder,
    text: Any,
    b: int,
    states: list,
    outputs: torch.Tensor,
    layers: torch.Tensor,
    atol: float,
) -> Agreement:
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
