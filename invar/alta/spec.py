"""An ALTA program as plain data: variables, heads, transition rules.

A :class:`AltaProgram` holds no code. Every initialisation is a table (one
value per alphabet symbol or per position) or a constant, every MLP is a
list of :class:`Rule` s, so a program goes to JSON and back unchanged and a
checkpoint holding one runs nothing when it is read.

Values are written as the variable's kind has them: a categorical value is
an ``int`` below its ``size``, a numerical value a ``float`` among its
``buckets``, a set value a ``frozenset`` among its ``sets``; ``None`` is the
null value of a head's output (in JSON: ints, floats, sorted lists, null).
:func:`validate` checks a program and raises :class:`AltaError` located at
the ``var``, ``qkv`` or ``set`` call that declared the offending part.
"""

from __future__ import annotations

import json
import linecache
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..errors import InvarError

KINDS = ("categorical", "numerical", "set")
#: two values of a numerical variable closer than this are the same value
TOLERANCE = 1e-6


class AltaError(InvarError):
    """A program that is not well formed, or a run it cannot make."""


@dataclass(frozen=True)
class At:
    """Where a part of a program was declared: the file and line of its call."""

    path: str
    line: int

    def error(self, message: str) -> AltaError:
        """An error located here, showing the source line when it can be read."""
        source = linecache.getline(self.path, self.line).rstrip("\n") or None
        return AltaError(message, path=self.path, line=self.line, source_line=source)

    def text(self) -> str:
        return f"{self.path}:{self.line}"


def error_at(at: "At | None", message: str) -> AltaError:
    """An error located at ``at`` when known, else about the program as a whole."""
    return at.error(message) if at is not None else AltaError(message)


@dataclass(frozen=True)
class Init:
    """How a variable starts: ``token`` (``table[token id]``), ``position``
    (``table[position]``), ``constant`` (``value``) or ``null`` (head outputs)."""

    kind: str
    table: tuple = ()
    value: Any = None


@dataclass(frozen=True)
class Variable:
    """One variable of the residual stream."""

    name: str
    #: ``categorical``, ``numerical`` or ``set``
    kind: str
    #: categorical: its values are ``range(size)``; set: members are ``range(size)``
    size: int = 0
    #: numerical: the values the MLP tells apart, ascending
    buckets: tuple[float, ...] = ()
    #: set: the sets it may hold
    sets: tuple[frozenset, ...] = ()
    init: Init = Init("constant", value=0)
    #: the output of a head (null after each MLP, written only by its head)
    head: bool = False
    at: At | None = field(default=None, compare=False)

    def domain(self) -> tuple:
        """Every value the MLP can see this variable hold."""
        if self.kind == "categorical":
            return tuple(range(self.size))
        return self.buckets if self.kind == "numerical" else self.sets

    def index(self, value: Any) -> int | None:
        """The position of ``value`` in :meth:`domain`, or None when it is not there."""
        if value is None:
            return None
        if self.kind == "categorical":
            ok = isinstance(value, (int, bool)) and 0 <= int(value) < self.size
            return int(value) if ok else None
        if self.kind == "numerical":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                for i, b in enumerate(self.buckets):
                    if abs(float(value) - b) <= TOLERANCE * max(1.0, abs(b)):
                        return i
            return None
        value = frozenset(value) if isinstance(value, (set, frozenset, list, tuple)) else value
        return self.sets.index(value) if value in self.sets else None

    def describe(self) -> str:
        if self.kind == "categorical":
            return f"range({self.size})"
        if self.kind == "numerical":
            return f"buckets {list(self.buckets)}"
        return f"sets {[sorted(s) for s in self.sets]}"


@dataclass(frozen=True)
class Head:
    """An attention head: ``output`` gets the aggregate of ``value`` over the
    positions whose ``key`` equals (or is in) the position's ``query``.
    ``query`` and ``key`` both None select every position; ``relative``,
    when given, keeps only keys at those offsets from the query."""

    output: str
    query: str | None
    key: str | None
    value: str
    relative: tuple[int, ...] | None = None
    at: At | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Rule:
    """A transition rule: when every ``(variable, value)`` of ``antecedent``
    holds, ``variable`` goes from ``old`` to ``new`` (None: null)."""

    antecedent: tuple[tuple[str, Any], ...]
    variable: str
    old: Any
    new: Any
    #: generated: resets a head's output to null
    null: bool = False
    at: At | None = field(default=None, compare=False)

    def text(self) -> str:
        cond = " and ".join(f"{n} = {_show(v)}" for n, v in self.antecedent)
        return f"{self.variable} := {_show(self.new)} if {cond}"


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, frozenset):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}"
    return str(value)


@dataclass(frozen=True)
class AltaProgram:
    """A whole ALTA program (see the module docstring)."""

    name: str
    #: every symbol the program reads; a token's id is its index here
    alphabet: tuple[str, ...]
    variables: tuple[Variable, ...]
    heads: tuple[Head, ...]
    rules: tuple[Rule, ...]
    output: str
    #: symbols put before and after every input by :func:`tokens_of`
    prefix: tuple[str, ...] = ()
    suffix: tuple[str, ...] = ()
    #: ``(variable, value)``: a run stops once every position holds it
    halt: tuple[str, int] | None = None
    #: the positions a position-initialised variable has a value for
    max_length: int | None = None
    #: the layers a run makes when it does not halt first
    max_layers: int | None = None
    at: At | None = field(default=None, compare=False)
    #: how to show each value of the output (None: as numbers)
    labels: tuple[str, ...] | None = None

    def label(self, value: int) -> str:
        """The output value ``value`` as shown to people."""
        return self.labels[value] if self.labels is not None else str(value)

    def variable(self, name: str) -> Variable:
        return self._by_name()[name]

    def _by_name(self) -> dict[str, Variable]:
        return {v.name: v for v in self.variables}

    def to_dict(self) -> dict:
        return _program_to_dict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @staticmethod
    def from_dict(data: dict) -> "AltaProgram":
        return _program_from_dict(data)

    @staticmethod
    def from_json(text: str) -> "AltaProgram":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise AltaError(f"not a program: {err.msg} at line {err.lineno}") from None
        return _program_from_dict(data)


# ------------------------------------------------------------------ JSON
def _value_out(value: Any) -> Any:
    return sorted(value) if isinstance(value, frozenset) else value


def _value_in(var: Variable | None, value: Any) -> Any:
    if value is None or var is None:
        return value
    if var.kind == "set":
        return frozenset(value)
    return float(value) if var.kind == "numerical" else value


def _at_out(at: At | None) -> str | None:
    return at.text() if at is not None else None


def _at_in(text: str | None) -> At | None:
    if not text:
        return None
    path, _, line = text.rpartition(":")
    return At(path, int(line)) if line.isdigit() else None


def _program_to_dict(p: AltaProgram) -> dict:
    def var(v: Variable) -> dict:
        init = {"kind": v.init.kind, "table": [_value_out(x) for x in v.init.table], "value": _value_out(v.init.value)}
        return {
            "name": v.name,
            "kind": v.kind,
            "size": v.size,
            "buckets": list(v.buckets),
            "sets": [sorted(s) for s in v.sets],
            "init": init,
            "head": v.head,
            "at": _at_out(v.at),
        }

    return {
        "name": p.name,
        "alphabet": list(p.alphabet),
        "prefix": list(p.prefix),
        "suffix": list(p.suffix),
        "variables": [var(v) for v in p.variables],
        "heads": [
            {
                "output": h.output,
                "query": h.query,
                "key": h.key,
                "value": h.value,
                "relative": list(h.relative) if h.relative is not None else None,
                "at": _at_out(h.at),
            }
            for h in p.heads
        ],
        "rules": [
            {
                "if": [[n, _value_out(x)] for n, x in r.antecedent],
                "set": r.variable,
                "old": _value_out(r.old),
                "new": _value_out(r.new),
                "null": r.null,
                "at": _at_out(r.at),
            }
            for r in p.rules
        ],
        "output": p.output,
        "halt": list(p.halt) if p.halt else None,
        "max_length": p.max_length,
        "max_layers": p.max_layers,
        "at": _at_out(p.at),
        "labels": list(p.labels) if p.labels is not None else None,
    }


def _variable_from_dict(d: dict) -> Variable:
    kind = d["kind"]
    proto = Variable(
        d["name"],
        kind,
        int(d.get("size", 0)),
        tuple(float(b) for b in d.get("buckets", ())),
        tuple(frozenset(s) for s in d.get("sets", ())),
    )
    init = d["init"]
    table = tuple(_value_in(proto, x) for x in init.get("table", ()))
    return Variable(
        proto.name,
        kind,
        proto.size,
        proto.buckets,
        proto.sets,
        Init(init["kind"], table, _value_in(proto, init.get("value"))),
        bool(d.get("head", False)),
        _at_in(d.get("at")),
    )


def _program_from_dict(data: Any) -> AltaProgram:
    try:
        variables = tuple(_variable_from_dict(d) for d in data["variables"])
        by_name = {v.name: v for v in variables}
        heads = tuple(
            Head(
                h["output"],
                h["query"],
                h["key"],
                h["value"],
                tuple(h["relative"]) if h.get("relative") is not None else None,
                _at_in(h.get("at")),
            )
            for h in data["heads"]
        )
        rules = tuple(
            Rule(
                tuple((n, _value_in(by_name.get(n), x)) for n, x in r["if"]),
                r["set"],
                _value_in(by_name.get(r["set"]), r["old"]),
                _value_in(by_name.get(r["set"]), r["new"]),
                bool(r.get("null", False)),
                _at_in(r.get("at")),
            )
            for r in data["rules"]
        )
        program = AltaProgram(
            str(data["name"]),
            tuple(data["alphabet"]),
            variables,
            heads,
            rules,
            data["output"],
            tuple(data.get("prefix", ())),
            tuple(data.get("suffix", ())),
            tuple(data["halt"]) if data.get("halt") else None,
            data.get("max_length"),
            data.get("max_layers"),
            _at_in(data.get("at")),
            tuple(data["labels"]) if data.get("labels") is not None else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise AltaError(f"not a program ({type(err).__name__}: {err})") from None
    validate(program)
    return program


# ------------------------------------------------------------------ validation
def validate(p: AltaProgram) -> None:
    """Raise a located :class:`AltaError` for the first thing wrong with ``p``."""
    by_name: dict[str, Variable] = {}
    for v in p.variables:
        if v.name in by_name:
            raise error_at(v.at, f"variable {v.name!r} declared twice")
        by_name[v.name] = v
        _check_variable(v, p)
    for h in p.heads:
        _check_head(h, by_name)
    _check_rules(p.rules, by_name)
    out = by_name.get(p.output)
    if out is None:
        raise error_at(p.at, f"unknown variable {p.output!r} as the output")
    if out.kind != "categorical":
        raise error_at(out.at, f"the output {p.output!r} is {out.kind}; the output must be categorical")
    if p.labels is not None and len(p.labels) != out.size:
        raise error_at(p.at, f"{len(p.labels)} output labels for the output's range({out.size})")
    _check_halt(p, by_name)


def _check_variable(v: Variable, p: AltaProgram) -> None:
    if v.kind not in KINDS:
        raise error_at(v.at, f"variable {v.name!r} has unknown kind {v.kind!r}")
    if v.kind == "categorical" and v.size < 1:
        raise error_at(v.at, f"categorical variable {v.name!r} needs a range of at least 1")
    if v.kind == "numerical" and (not v.buckets or list(v.buckets) != sorted(set(v.buckets))):
        raise error_at(v.at, f"numerical variable {v.name!r} needs distinct ascending buckets")
    if v.kind == "set" and (not v.sets or any(m < 0 or m >= v.size for s in v.sets for m in s)):
        raise error_at(v.at, f"set variable {v.name!r} needs sets whose members are in range({v.size})")
    init = v.init
    if init.kind == "null":
        if not v.head:
            raise error_at(v.at, f"variable {v.name!r} is null-initialised but is no head's output")
        return
    if init.kind == "token" and len(init.table) != len(p.alphabet):
        raise error_at(v.at, f"variable {v.name!r}: {len(init.table)} token values for {len(p.alphabet)} symbols")
    if init.kind == "position" and len(init.table) != (p.max_length or 0):
        raise error_at(v.at, f"variable {v.name!r}: {len(init.table)} position values for {p.max_length} positions")
    if init.kind not in ("token", "position", "constant"):
        raise error_at(v.at, f"variable {v.name!r} has unknown initialisation {init.kind!r}")
    values = init.table if init.kind != "constant" else (init.value,)
    for i, value in enumerate(values):
        if v.index(value) is None:
            what = {
                "token": f"symbol {p.alphabet[i]!r}" if i < len(p.alphabet) else "a symbol",
                "position": f"position {i}",
                "constant": "every position",
            }[init.kind]
            raise error_at(v.at, f"variable {v.name!r} starts at {_show(value)} for {what}, outside its {v.describe()}")


def _check_head(h: Head, by_name: dict[str, Variable]) -> None:
    for role in ("query", "key", "value", "output"):
        name = getattr(h, role)
        if name is not None and name not in by_name:
            raise error_at(h.at, f"unknown variable {name!r} as the {role} of head {h.output!r}")
    if (h.query is None) != (h.key is None):
        raise error_at(h.at, f"head {h.output!r}: query and key are both given or both omitted")
    if h.query is not None:
        if by_name[h.query].kind == "numerical":
            raise error_at(
                h.at, f"head {h.output!r}: the query {h.query!r} is numerical; it must be categorical or a set"
            )
        if by_name[h.key].kind != "categorical":
            raise error_at(
                h.at, f"head {h.output!r}: the key {h.key!r} is {by_name[h.key].kind}; it must be categorical"
            )
    value, out = by_name[h.value], by_name[h.output]
    if value.kind == "set":
        raise error_at(h.at, f"head {h.output!r}: the value {h.value!r} is a set; it must be categorical or numerical")
    if value.kind != out.kind:
        raise error_at(h.at, f"head {h.output!r}: the value {h.value!r} is {value.kind} but the output is {out.kind}")
    if value.kind == "categorical" and out.size < value.size:
        raise error_at(
            h.at, f"head {h.output!r}: the output has range({out.size}), narrower than the value's range({value.size})"
        )
    if not out.head:
        raise error_at(h.at, f"head {h.output!r}: its output is not marked as a head output")


def _check_rules(rules: Iterable[Rule], by_name: dict[str, Variable]) -> None:
    by_target: dict[str, list[Rule]] = {}
    for r in rules:
        target = by_name.get(r.variable)
        if target is None:
            raise error_at(r.at, f"unknown variable {r.variable!r} set by a rule")
        if target.head and not r.null:
            raise error_at(r.at, f"{r.variable!r} is the output of a head; only its head writes it")
        seen = {}
        for name, value in r.antecedent:
            var = by_name.get(name)
            if var is None:
                raise error_at(r.at, f"unknown variable {name!r} in a rule's condition")
            if var.index(value) is None:
                raise error_at(r.at, f"{name} = {_show(value)} is outside its {var.describe()}")
            seen[name] = value
        if r.variable not in seen:
            raise error_at(r.at, f"a rule setting {r.variable!r} must test its current value")
        if r.new is not None and target.index(r.new) is None:
            raise error_at(r.at, f"{r.variable!r} set to {_show(r.new)}, outside its {target.describe()}")
        if r.new is None and not target.head:
            raise error_at(r.at, f"{r.variable!r} set to null; only head outputs become null")
        by_target.setdefault(r.variable, []).append(r)
    for group in by_target.values():
        _check_conflicts(group)


def _check_conflicts(group: list[Rule]) -> None:
    """Two rules on one variable whose conditions can hold together fire together:
    they agree on every variable both test. Rules are grouped by the variables
    they test; two groups are compared on what they share, by hashing."""
    by_names: dict[tuple[str, ...], list[tuple[dict, Rule]]] = {}
    for r in group:
        cond = dict(r.antecedent)
        by_names.setdefault(tuple(sorted(cond)), []).append((cond, r))
    names = list(by_names)
    for i, a in enumerate(names):
        for b in names[: i + 1]:
            shared = sorted(set(a) & set(b))
            seen: dict[tuple, Rule] = {}
            for cond, r in by_names[b]:
                seen.setdefault(tuple(_key(cond[n]) for n in shared), r)
            for cond, r in by_names[a]:
                other = seen.get(tuple(_key(cond[n]) for n in shared))
                if other is not None and other is not r:
                    where = f" (the other at {other.at.text()})" if other.at else ""
                    raise error_at(
                        r.at, f"two rules set {r.variable!r} together: [{r.text()}] and [{other.text()}]{where}"
                    )


def _key(value: Any) -> Any:
    return round(value, 9) if isinstance(value, float) else value


def _check_halt(p: AltaProgram, by_name: dict[str, Variable]) -> None:
    if p.halt is None:
        if not p.max_layers:
            raise error_at(p.at, "a program without halting needs max_layers")
        return
    name, value = p.halt
    var = by_name.get(name)
    if var is None:
        raise error_at(p.at, f"unknown variable {name!r} for halting")
    if var.kind != "categorical" or var.index(value) is None:
        raise error_at(var.at, f"halting on {name} = {value}: it must be a categorical value in {var.describe()}")
