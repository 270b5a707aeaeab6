"""The interpreter: a program run symbolically on one input.

The residual stream is one ``{variable: value}`` dict per position. Each
layer runs every head (selection by equality or membership, optionally
restricted to relative offsets; a categorical aggregate is the one selected
value, a numerical one the mean, undefined otherwise), then the MLP (the
rules whose conditions hold; at most one per variable), after which every
head output is null again. A run stops before a layer once every position
holds the halting value, or after ``max_layers``.

An undefined head output may stand in the stream, as in a compiled model,
where it is a mixture of one-hots that the reset rules clear; reading it is
an error (:class:`~.spec.AltaError` naming the input, layer, position and
head): as a query, key or selected value of a head, or in the condition of
a rule whose other conditions all hold. Every run builds its own
:class:`ExecutionTrace`, never shared with another run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .spec import AltaError, Head, AltaProgram, Rule, Variable, error_at

#: the layers a halting program may run before it is said not to halt
DEFAULT_LAYER_CAP = 1000

State = dict[str, Any]


@dataclass
class Layer:
    """One layer of a trace: the MLP's inputs (after attention), its outputs,
    and the indices (into ``program.rules``) of the rules satisfied at each position."""

    attention: list[State]
    mlp: list[State]
    rules: list[list[int]]


@dataclass
class ExecutionTrace:
    """Every state of one run: the initial stream, then each layer."""

    initial: list[State]
    layers: list[Layer] = field(default_factory=list)


@dataclass
class Run:
    """What a run gives: the symbols read (markers included), the output at
    each position, the layers made, whether it halted, and its trace."""

    tokens: list[str]
    outputs: list[int]
    layers: int
    halted: bool
    final: list[State]
    trace: ExecutionTrace | None = None


def tokens_of(program: AltaProgram, text: str | Sequence[str], *, markers: bool = True) -> list[str]:
    """The symbols a run reads: ``text`` split on white space (or a list), with
    the program's prefix and suffix markers around it."""
    symbols = text.split() if isinstance(text, str) else [str(s) for s in text]
    return [*program.prefix, *symbols, *program.suffix] if markers else symbols


def token_ids(program: AltaProgram, tokens: Sequence[str]) -> list[int]:
    """The alphabet index of each symbol; an unknown symbol, or too many, is an error."""
    index = {s: i for i, s in enumerate(program.alphabet)}
    for pos, symbol in enumerate(tokens):
        if symbol not in index:
            raise AltaError(
                f"symbol {symbol!r} at position {pos} (from 0, markers included) is not in "
                f"{program.name}'s alphabet {list(program.alphabet)}"
            )
    positional = any(v.init.kind == "position" for v in program.variables)
    if positional and len(tokens) > (program.max_length or 0):
        raise AltaError(f"{len(tokens)} positions; {program.name} has position values for {program.max_length}")
    return [index[s] for s in tokens]


def initial_state(program: AltaProgram, ids: Sequence[int]) -> list[State]:
    """The stream before the first layer."""
    states = []
    for pos, tok in enumerate(ids):
        state = {}
        for v in program.variables:
            init = v.init
            state[v.name] = (
                init.table[tok]
                if init.kind == "token"
                else init.table[pos]
                if init.kind == "position"
                else None
                if init.kind == "null"
                else init.value
            )
        states.append(state)
    return states


class Interpreter:
    """A program with its rules indexed by the variables they test."""

    def __init__(self, program: AltaProgram):
        self.program = program
        self.vars: dict[str, Variable] = {v.name: v for v in program.variables}
        self.heads_out = [v.name for v in program.variables if v.head]
        # rules grouped by the tuple of variables they test, then by the tuple of value indices
        self.groups: dict[tuple[str, ...], dict[tuple[int, ...], list[int]]] = {}
        for i, rule in enumerate(program.rules):
            names = tuple(n for n, _ in rule.antecedent)
            key = tuple(self.vars[n].index(x) for n, x in rule.antecedent)
            self.groups.setdefault(names, {}).setdefault(key, []).append(i)
        # per group and set of undefined places: the defined places' values -> a rule testing them
        self._partial: dict[tuple[tuple[str, ...], tuple[int, ...]], dict[tuple[int, ...], int]] = {}

    def run(
        self, text: str | Sequence[str], *, max_layers: int | None = None, trace: bool = False, markers: bool = True
    ) -> Run:
        """Run on ``text`` (symbols, without the markers the program adds)."""
        p = self.program
        tokens = tokens_of(p, text, markers=markers)
        states = initial_state(p, token_ids(p, tokens))
        log = ExecutionTrace([dict(s) for s in states]) if trace else None
        limit = max_layers if max_layers is not None else p.max_layers
        cap = limit if limit is not None else DEFAULT_LAYER_CAP
        layer, halted = 0, self.halted(states)
        while not halted and layer < cap:
            layer += 1
            states = self.layer(states, layer, tokens, log)
            halted = self.halted(states)
        if not halted and p.halt is not None and limit is None:
            raise AltaError(f"{p.name} did not halt within {cap} layers on {' '.join(tokens)!r}")
        outputs = []
        for pos, state in enumerate(states):
            if state[p.output] is None:
                raise AltaError(f"input {' '.join(tokens)!r}: the output {p.output!r} is undefined at position {pos}")
            outputs.append(state[p.output])
        return Run(tokens, outputs, layer, halted, states, log)

    def halted(self, states: list[State]) -> bool:
        halt = self.program.halt
        return halt is not None and all(s[halt[0]] == halt[1] for s in states)

    def layer(self, states: list[State], layer: int, tokens: list[str], log: ExecutionTrace | None) -> list[State]:
        """One attention sub-layer and one MLP sub-layer."""
        where = (" ".join(tokens), layer)
        attended = [dict(s) for s in states]
        for head in self.program.heads:
            for pos, value in enumerate(self.attend(head, states, where)):
                attended[pos][head.output] = value
        out, fired = [], []
        for pos, state in enumerate(attended):
            new, rules = self.mlp(state, (*where, pos))
            out.append(new)
            fired.append(rules)
        if log is not None:
            log.layers.append(Layer([dict(s) for s in attended], [dict(s) for s in out], fired))
        return out

    # -------------------------------------------------------------- attention
    def attend(self, head: Head, states: list[State], where: tuple[str, int]) -> list[Any]:
        """The head's output at every position (None where undefined)."""
        n = len(states)
        values = [s[head.value] for s in states]
        keys = [s[head.key] for s in states] if head.key is not None else None
        by_key: dict[Any, list[int]] = {}
        if keys is not None and head.relative is None:
            self._defined(keys, range(n), head, where, head.key)
            for j, k in enumerate(keys):
                by_key.setdefault(k, []).append(j)
        out = []
        for i in range(n):
            if head.relative is None:
                chosen = list(range(n))
            else:
                chosen = [i + d for d in head.relative if 0 <= i + d < n]
            if head.query is not None:
                query = states[i][head.query]
                if query is None:
                    raise self._undefined(head.query, (*where, i), f"head {head.output!r}", head.at)
                if head.relative is not None:
                    self._defined(keys, chosen, head, where, head.key)
                    member = query.__contains__ if isinstance(query, frozenset) else query.__eq__
                    chosen = [j for j in chosen if member(keys[j])]
                elif isinstance(query, frozenset):
                    chosen = sorted(j for m in query for j in by_key.get(m, ()))
                else:
                    chosen = by_key.get(query, [])
            self._defined(values, chosen, head, where, head.value)
            out.append(self._aggregate(head, [values[j] for j in chosen], (*where, i)))
        return out

    def _defined(self, column: list[Any], positions, head: Head, where: tuple[str, int], name: str) -> None:
        for j in positions:
            if column[j] is None:
                raise self._undefined(name, (*where, j), f"head {head.output!r}", head.at)

    def _aggregate(self, head: Head, values: list[Any], where: tuple[str, int, int]) -> Any:
        out = self.vars[head.output]
        if out.kind == "categorical":
            return values[0] if len(values) == 1 else None
        if not values:  # a compiled model would leave a value here that the reset cannot clear
            text, layer, pos = where
            raise error_at(
                head.at,
                f"input {text!r}, layer {layer}, position {pos}: numerical head "
                f"{head.output!r} selects nothing, so its output is undefined",
            )
        mean = sum(values) / len(values)
        index = out.index(mean)
        if index is None:
            text, layer, pos = where
            raise error_at(
                head.at,
                f"input {text!r}, layer {layer}, position {pos}: head {head.output!r} gives "
                f"{mean:.6g}, not one of its buckets {list(out.buckets)}",
            )
        return out.buckets[index]

    def _undefined(self, name: str, where: tuple[str, int, int], reader: str, at) -> AltaError:
        text, layer, pos = where
        return error_at(
            at,
            f"input {text!r}, layer {layer}, position {pos}: {reader} reads the output of head "
            f"{name!r}, undefined there",
        )

    # -------------------------------------------------------------- MLP
    def mlp(self, state: State, where: tuple[str, int, int]) -> tuple[State, list[int]]:
        """The state after the MLP, and the rules that fired."""
        index = {n: (self.vars[n].index(v) if v is not None else None) for n, v in state.items()}
        fired: list[int] = []
        for names, table in self.groups.items():
            key = tuple(index[n] for n in names)
            if None in key:
                self._check_undefined(names, key, table, where)
                continue
            fired.extend(table.get(key, ()))
        new = dict(state)
        setter: dict[str, int] = {}
        for i in sorted(fired):
            rule = self.program.rules[i]
            if rule.variable in setter:
                raise self._conflict(self.program.rules[setter[rule.variable]], rule, where)
            setter[rule.variable] = i
            new[rule.variable] = rule.new
        for name in self.heads_out:
            new[name] = None
        return new, sorted(fired)

    def _check_undefined(self, names, key, table, where) -> None:
        """A rule whose other conditions hold depends on the undefined value it tests."""
        missing = tuple(j for j, k in enumerate(key) if k is None)
        index = self._partial.get((names, missing))
        if index is None:
            index = self._partial[(names, missing)] = self._project(table, missing)
        found = index.get(tuple(k for k in key if k is not None))
        if found is not None:
            rule = self.program.rules[found]
            raise self._undefined(names[missing[0]], where, f"rule [{rule.text()}]", rule.at)

    def _project(self, table, missing: tuple[int, ...]) -> dict[tuple[int, ...], int]:
        """The first non-null rule of ``table`` for each value of the places not ``missing``."""
        index: dict[tuple[int, ...], int] = {}
        for values, rules in table.items():
            rule = self.program.rules[rules[0]]
            if not rule.null:
                index.setdefault(tuple(v for j, v in enumerate(values) if j not in missing), rules[0])
        return index

    def _conflict(self, first: Rule, second: Rule, where: tuple[str, int, int]) -> AltaError:
        text, layer, pos = where
        return error_at(
            second.at,
            f"input {text!r}, layer {layer}, position {pos}: two rules set "
            f"{second.variable!r}: [{first.text()}] and [{second.text()}]",
        )


_CACHE: dict[int, Interpreter] = {}


def interpreter(program: AltaProgram) -> Interpreter:
    """The interpreter of ``program`` (kept while the program lives)."""
    key = id(program)
    found = _CACHE.get(key)
    if found is None or found.program is not program:
        if len(_CACHE) > 64:
            _CACHE.clear()
        found = _CACHE[key] = Interpreter(program)
    return found


def run(
    program: AltaProgram,
    text: str | Sequence[str],
    *,
    max_layers: int | None = None,
    trace: bool = False,
    markers: bool = True,
) -> Run:
    """Run ``program`` on ``text`` (a string of white-space separated symbols,
    or a list); ``markers`` adds the program's prefix and suffix."""
    return interpreter(program).run(text, max_layers=max_layers, trace=trace, markers=markers)
