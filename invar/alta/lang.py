"""The ALTA language: declare variables, heads and an MLP, get a :class:`AltaProgram`.

::

    from invar.alta.lang import var, relative, MLPBuilder, program

    variables = {"parity": var(2, token=lambda t: int(t == "1")),
                 "done": var(2, token=lambda t: int(t == "<s>"))}
    heads = {"parity_left": relative("parity", -1), "done_left": relative("done", -1)}
    x = MLPBuilder(variables, heads)
    for done in x.get("done"):
        if done == 0:
            for done_left in x.get("done_left"):
                if done_left == 1:
                    x.set("done", 1)
                    for parity_left, parity in x.get("parity_left", "parity"):
                        x.set("parity", parity_left ^ parity)
    prog = program(variables, heads, x.rules, output="parity", alphabet=("0", "1", "<s>"),
                   prefix=("<s>",), halt=("done", 1))

A variable starts from the input symbol (``token=f``, ``f(symbol)``), its
position (``position=f``, ``f(index)``, for ``max_length`` positions) or a
constant (``default``). The MLP is either the rules of an :class:`MLPBuilder`
or a Python function ``mlp(z)`` that reads ``z[name]`` and assigns
``z[name] = value``, enumerated over every assignment of its variables
(at most ``bound`` of them). Every mistake is an :class:`~.spec.AltaError`
located at the ``var``, ``qkv``, ``set`` (or ``program``) call behind it.
"""

from __future__ import annotations

import inspect
import itertools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from .spec import AltaError, At, Head, Init, AltaProgram, Rule, Variable, error_at, validate

#: the most assignments :func:`program` enumerates a Python MLP function over
DEFAULT_BOUND = 100_000
#: the markers the shipped programs put before and after an input
START, END = "<s>", "</s>"


def _caller(depth: int = 2) -> At:
    """The file and line of the call ``depth`` frames up (the user's ``var``/``qkv``/``set``)."""
    frame = sys._getframe(depth)
    return At(frame.f_code.co_filename, frame.f_lineno)


@dataclass(frozen=True)
class VarSpec:
    """A variable as declared, before the alphabet and length turn its
    initialisation into tables."""

    kind: str
    size: int = 0
    buckets: tuple[float, ...] = ()
    sets: tuple[frozenset, ...] = ()
    default: Any = 0
    token: Callable[[str], Any] | None = field(default=None, compare=False)
    position: Callable[[int], Any] | None = field(default=None, compare=False)
    at: At | None = field(default=None, compare=False)

    def domain(self) -> tuple:
        return Variable("", self.kind, self.size, self.buckets, self.sets).domain()


@dataclass(frozen=True)
class HeadSpec:
    """A head as declared by :func:`qkv` or :func:`relative`."""

    query: str | None
    key: str | None
    value: str
    relative: tuple[int, ...] | None = None
    output: VarSpec | None = None
    at: At | None = field(default=None, compare=False)


def var(
    size: int,
    *,
    default: int = 0,
    token: Callable[[str], int] | None = None,
    position: Callable[[int], int] | None = None,
) -> VarSpec:
    """A categorical variable with values ``range(size)`` (one-hot)."""
    return VarSpec("categorical", size=int(size), default=default, token=token, position=position, at=_caller())


def numerical(
    buckets: Sequence[float],
    *,
    default: float = 0.0,
    token: Callable[[str], float] | None = None,
    position: Callable[[int], float] | None = None,
) -> VarSpec:
    """A numerical variable (one dimension); the MLP tells apart only ``buckets``."""
    return VarSpec(
        "numerical",
        buckets=tuple(float(b) for b in buckets),
        default=float(default),
        token=token,
        position=position,
        at=_caller(),
    )


def set_var(
    size: int,
    sets: Sequence[Sequence[int]],
    *,
    default: Sequence[int] = (),
    token: Callable[[str], Sequence[int]] | None = None,
    position: Callable[[int], Sequence[int]] | None = None,
) -> VarSpec:
    """A set variable (multi-hot over ``range(size)``) holding one of ``sets``."""
    return VarSpec(
        "set",
        size=int(size),
        sets=tuple(frozenset(s) for s in sets),
        default=frozenset(default),
        token=token,
        position=position,
        at=_caller(),
    )


def qkv(
    query: str | None,
    key: str | None,
    value: str,
    *,
    relative: Sequence[int] | None = None,
    output: VarSpec | None = None,
) -> HeadSpec:
    """A head selecting the keys equal to (or in) the query, aggregating ``value``;
    ``relative`` keeps only keys at those offsets; ``output`` declares the
    output's kind (by default the value's)."""
    rel = tuple(sorted(set(int(r) for r in relative))) if relative is not None else None
    return HeadSpec(query, key, value, rel, output, at=_caller())


def relative(value: str, offset: int) -> HeadSpec:
    """A head reading ``value`` at ``offset`` positions away (undefined where there is none)."""
    return HeadSpec(None, None, value, (int(offset),), None, at=_caller())


# ------------------------------------------------------------------ scope
def _scope(variables: Mapping[str, VarSpec], heads: Mapping[str, HeadSpec]) -> dict[str, Variable]:
    """Every variable the MLP sees (declared ones, then head outputs), with its domain."""
    scope: dict[str, Variable] = {}
    for name, spec in variables.items():
        if not isinstance(spec, VarSpec):
            raise AltaError(f"variable {name!r} is not declared with var, numerical or set_var")
        scope[name] = Variable(name, spec.kind, spec.size, spec.buckets, spec.sets, at=spec.at)
    for name, head in heads.items():
        if not isinstance(head, HeadSpec):
            raise AltaError(f"head {name!r} is not declared with qkv or relative")
        if name in scope:
            raise error_at(head.at, f"head output {name!r} is already a variable")
        spec = head.output
        if spec is None:
            source = variables.get(head.value)
            if source is None:
                raise error_at(head.at, f"unknown variable {head.value!r} as the value of head {name!r}")
            spec = source
        scope[name] = Variable(
            name,
            spec.kind,
            spec.size,
            spec.buckets,
            spec.sets,
            Init("null"),
            True,
            spec.at if head.output is not None else head.at,
        )
    return scope


class MLPBuilder:
    """Transition rules written as loops: :meth:`get` iterates over a
    variable's values and puts it in scope; :meth:`set` writes one rule
    whose condition is the scope (the variable set is added when absent)."""

    def __init__(self, variables: Mapping[str, VarSpec], heads: Mapping[str, HeadSpec]):
        self.scope = _scope(variables, heads)
        self.context: dict[str, Any] = {}
        self.rules: list[Rule] = []

    def _variable(self, name: str, at: At) -> Variable:
        v = self.scope.get(name)
        if v is None:
            raise at.error(f"unknown variable {name!r}")
        return v

    def get(self, *names: str) -> Iterator[Any]:
        """Each value (a tuple for several names) of ``names``, in scope while the loop body runs."""
        return self._get(names, _caller())

    def _get(self, names: Sequence[str], at: At) -> Iterator[Any]:
        domains = []
        for name in names:
            if name in self.context:
                raise at.error(f"{name!r} is already in scope")
            domains.append(self._variable(name, at).domain())
        try:
            for values in itertools.product(*domains):
                self.context.update(zip(names, values))
                yield values[0] if len(values) == 1 else values
        finally:
            for name in names:
                self.context.pop(name, None)

    def set(self, name: str, value: Any) -> None:
        """A rule: ``name`` becomes ``value`` when the scope holds."""
        self._set(name, value, _caller())

    def _set(self, name: str, value: Any, at: At) -> None:
        target = self._variable(name, at)
        if target.head:
            raise at.error(f"{name!r} is the output of a head; only its head writes it")
        if target.index(value) is None:
            raise at.error(f"{name!r} set to {value!r}, outside its {target.describe()}")
        value = target.domain()[target.index(value)]
        if name not in self.context:
            for _ in self._get((name,), at):
                self._set(name, value, at)
            return
        if self.context[name] == value:
            return
        antecedent = tuple(sorted(self.context.items(), key=lambda kv: kv[0]))
        self.rules.append(Rule(antecedent, name, self.context[name], value, at=at))


# ------------------------------------------------------------------ Python MLP functions
class _Assignment:
    """What an MLP function sees: reads are recorded, writes collected."""

    def __init__(self, scope: dict[str, Variable], values: dict[str, Any]):
        self._scope, self._values = scope, values
        self.read: dict[str, Any] = {}
        self.writes: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self.writes:
            return self.writes[name]
        if name not in self._values:
            raise _caller().error(f"unknown variable {name!r}")
        self.read[name] = self._values[name]
        return self._values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        target = self._scope.get(name)
        if target is None:
            raise _caller().error(f"unknown variable {name!r}")
        if target.head:
            raise _caller().error(f"{name!r} is the output of a head; only its head writes it")
        if target.index(value) is None:
            raise _caller().error(f"{name!r} set to {value!r}, outside its {target.describe()}")
        self.writes[name] = target.domain()[target.index(value)]


def rules_of_function(
    fn: Callable[[Any], None],
    variables: Mapping[str, VarSpec],
    heads: Mapping[str, HeadSpec],
    bound: int = DEFAULT_BOUND,
) -> list[Rule]:
    """The rules of ``fn`` run on every assignment of its variables: each
    change it makes is a rule conditioned on the values it read (and the old
    value of what it set), so identical rules from different runs are one."""
    scope = _scope(variables, heads)
    at = _function_at(fn)
    names = list(scope)
    count = 1
    for name in names:
        count *= len(scope[name].domain())
    if count > bound:
        raise error_at(
            at,
            f"the MLP function would be run on {count:,} assignments, more than the bound "
            f"{bound:,}; write its rules with MLPBuilder",
        )
    rules: dict[tuple, Rule] = {}
    for values in itertools.product(*(scope[n].domain() for n in names)):
        z = _Assignment(scope, dict(zip(names, values)))
        _run_function(fn, z, at)
        for name, new in z.writes.items():
            rule = _function_rule(z, name, new, at)
            if rule is not None:
                rules.setdefault((rule.antecedent, rule.variable, rule.new), rule)
    return list(rules.values())


def _run_function(fn: Callable[[Any], None], z: "_Assignment", at: At | None) -> None:
    try:
        fn(z)
    except AltaError:
        raise
    except Exception as err:  # the user's function failed on one assignment: say where in it
        tb, where = err.__traceback__, at
        while tb is not None:
            if at is not None and tb.tb_frame.f_code.co_filename == at.path:
                where = At(at.path, tb.tb_lineno)
            tb = tb.tb_next
        what = f"unknown variable {err.args[0]!r}" if isinstance(err, KeyError) else f"{type(err).__name__}: {err}"
        raise error_at(where, f"the MLP function failed on {dict(z._values)}: {what}") from None


def _function_rule(z: _Assignment, name: str, new: Any, at: At | None) -> Rule | None:
    old = z._values[name]
    if new == old:
        return None
    cond = dict(z.read)
    cond[name] = old
    return Rule(tuple(sorted(cond.items(), key=lambda kv: kv[0])), name, old, new, at=at)


def _function_at(fn: Callable) -> At | None:
    code = getattr(fn, "__code__", None)
    if code is None:
        try:
            return At(inspect.getsourcefile(fn) or "<function>", inspect.getsourcelines(fn)[1])
        except (TypeError, OSError):
            return None
    return At(code.co_filename, code.co_firstlineno)


# ------------------------------------------------------------------ program
def null_rules(scope: Mapping[str, Variable]) -> list[Rule]:
    """The rules that reset every head output to null after the MLP reads it."""
    return [
        Rule(((name, value),), name, value, None, null=True, at=v.at)
        for name, v in scope.items()
        if v.head
        for value in v.domain()
    ]


def _init(name: str, spec: VarSpec, alphabet: Sequence[str], max_length: int | None) -> Init:
    def cast(value: Any) -> Any:
        if spec.kind == "set" and isinstance(value, (set, frozenset, list, tuple)):
            return frozenset(value)
        if spec.kind == "categorical" and isinstance(value, bool):
            return int(value)
        return value

    if spec.token is not None and spec.position is not None:
        raise error_at(spec.at, f"variable {name!r} starts from the token or the position, not both")
    if spec.token is not None:
        return Init("token", tuple(cast(_call(spec.token, s, name, spec.at)) for s in alphabet))
    if spec.position is not None:
        if not max_length:
            raise error_at(spec.at, f"variable {name!r} starts from the position; the program needs max_length")
        return Init("position", tuple(cast(_call(spec.position, i, name, spec.at)) for i in range(max_length)))
    return Init("constant", value=cast(spec.default))


def _call(fn: Callable, arg: Any, name: str, at: At | None) -> Any:
    try:
        return fn(arg)
    except (Exception, SystemExit) as err:  # the user's initialisation failed on one symbol or position
        raise error_at(at, f"initialising {name!r} from {arg!r} failed: {type(err).__name__}: {err}") from None


def program(
    variables: Mapping[str, VarSpec],
    heads: Mapping[str, HeadSpec],
    rules: Sequence[Rule] | None = None,
    *,
    mlp: Callable[[Any], None] | None = None,
    output: str,
    alphabet: Sequence[str],
    prefix: Sequence[str] = (),
    suffix: Sequence[str] = (),
    halt: tuple[str, int] | None = None,
    max_length: int | None = None,
    max_layers: int | None = None,
    name: str = "program",
    bound: int = DEFAULT_BOUND,
    labels: Sequence[str] | None = None,
) -> AltaProgram:
    """A checked :class:`AltaProgram` from declared variables and heads and
    either ``rules`` (from :class:`MLPBuilder`) or an ``mlp`` function;
    ``labels`` name the output's values for display."""
    at = _caller()
    if (rules is None) == (mlp is None):
        raise at.error("give the MLP as rules or as an mlp function, one of the two")
    scope = _scope(variables, heads)
    if mlp is not None:
        rules = rules_of_function(mlp, variables, heads, bound)
    for symbol in (*prefix, *suffix):
        if symbol not in alphabet:
            raise at.error(f"marker {symbol!r} is not in the alphabet")
    declared = [
        Variable(n, s.kind, s.size, s.buckets, s.sets, _init(n, s, alphabet, max_length), False, s.at)
        for n, s in variables.items()
    ]
    outputs = [v for v in scope.values() if v.head]
    head_list = tuple(Head(n, h.query, h.key, h.value, h.relative, h.at) for n, h in heads.items())
    prog = AltaProgram(
        name,
        tuple(alphabet),
        tuple(declared + outputs),
        head_list,
        tuple(rules) + tuple(null_rules(scope)),
        output,
        tuple(prefix),
        tuple(suffix),
        (halt[0], int(halt[1])) if halt is not None else None,
        max_length,
        max_layers,
        at,
        tuple(labels) if labels is not None else None,
    )
    validate(prog)
    return prog
