"""The trace side of the check: step formulas compiled, evaluated and solved.

A lasso's step is a propositional formula. Here it becomes a circuit over
the tableau's AP bits (:func:`evaluate_step` evaluates one under a
valuation), and :class:`Steps` answers the product's one question about a
step: a model that agrees with a move's literals, listed from the step's
models when it has few APs or a conjunction of literals, searched otherwise.

Part of the frontends layer: imports the LTL formula and trace,
:mod:`.limits` and :mod:`.tableau` (for its AP bits); must not import
:mod:`.product` or :mod:`.check` (they build on it) nor anything above the
frontends layer.
"""

from __future__ import annotations

from typing import Iterable

from .formula import Formula
from .limits import UNLIMITED, Budget
from .tableau import Tableau, bits
from .trace import Trace


#: a propositional step compiled for evaluation: instructions in post-order,
#: ``(op, a, b)`` with ``a`` the AP's bit for ``ap`` and otherwise ``a``/``b``
#: the indices of the operands' instructions
_Circuit = list[tuple[str, int, int]]
_PROPOSITIONAL = frozenset({"ap", "1", "0", "!", "&", "|", "->", "<->", "xor"})


def _circuit(step: Formula, bit) -> _Circuit:
    """``step`` as a :data:`_Circuit`, APs numbered by ``bit(name)``."""
    code: _Circuit = []
    values: list[int] = []  # instruction indices of the finished operands
    todo = [(step, False)]
    while todo:
        f, ready = todo.pop()
        o = f.op
        if o not in _PROPOSITIONAL:
            raise ValueError(f"temporal operator {o!r} in a trace step")
        if o == "ap" or o in ("1", "0"):
            values.append(len(code))
            code.append((o, bit(f.name) if o == "ap" else -1, -1))
        elif not ready:
            todo.append((f, True))
            todo.extend((a, False) for a in reversed(f.args))
        elif o == "!":
            a = values.pop()
            values.append(len(code))
            code.append(("!", a, -1))
        else:
            b, a = values.pop(), values.pop()
            values.append(len(code))
            code.append((o, a, b))
    return code


def _value(code: _Circuit, true: int, false: int) -> bool | None:
    """The circuit's value when the APs in ``true`` hold and those in
    ``false`` do not; None when that depends on the APs in neither."""
    v: list[bool | None] = []
    for o, a, b in code:
        if o == "ap":
            r = True if true >> a & 1 else (False if false >> a & 1 else None)
        elif o == "1":
            r = True
        elif o == "0":
            r = False
        elif o == "!":
            x = v[a]
            r = None if x is None else not x
        else:
            x, y = v[a], v[b]
            if o == "&":
                r = False if x is False or y is False else (True if x and y else None)
            elif o == "|":
                r = True if x is True or y is True else (False if x is False and y is False else None)
            elif o == "->":
                r = True if x is False or y is True else (False if x is True and y is False else None)
            elif x is None or y is None:
                r = None
            else:
                r = (x == y) if o == "<->" else (x != y)
        v.append(r)
    return v[-1]


def evaluate_step(step: Formula, true_aps: frozenset[str] | set[str]) -> bool:
    """The truth of a propositional step formula under one valuation."""
    names = step.aps()
    bits = {n: k for k, n in enumerate(names)}
    true = sum(1 << k for n, k in bits.items() if n in true_aps)
    return bool(_value(_circuit(step, bits.__getitem__), true, ~true))


def _cube(step: Formula) -> tuple[list[str], list[str], bool] | None:
    """(APs it makes true, APs it makes false, satisfiable as far as constants
    go) when ``step`` is a conjunction of literals and constants, else None.
    Trace steps almost always are, and their one model needs no search."""
    pos: list[str] = []
    neg: list[str] = []
    sat = True
    todo = [step]
    while todo:
        f = todo.pop()
        o = f.op
        if o == "&":
            todo.extend(f.args)
        elif o == "ap":
            pos.append(f.name)
        elif o == "1" or o == "0":
            sat = sat and o == "1"
        elif o == "!" and f.args[0].op in ("ap", "1", "0"):
            inner = f.args[0]
            if inner.op == "ap":
                neg.append(inner.name)
            else:
                sat = sat and inner.op == "0"
        else:
            return None
    return pos, neg, sat


#: a step that is not a conjunction of literals has its models listed up to
#: this many APs; a larger one is searched for a model per question
_LISTED = 12


class Steps:
    """The trace's step formulas compiled against the tableau's AP bits."""

    def __init__(self, trace: Trace, tableau: Tableau, budget: Budget = UNLIMITED) -> None:
        self.trace = trace
        self.budget = budget
        self.n = len(trace.prefix) + len(trace.cycle)
        self.masks: list[int] = []
        #: every model of a step (masks of true APs over its APs), or None
        #: when the step is searched instead (:attr:`circuits`)
        self.models: list[list[int] | None] = []
        self.circuits: list[_Circuit | None] = []
        #: literals every model of the step agrees on (what it forces; a
        #: searched step forces nothing, which only costs pruning)
        self.forced: list[tuple[int, int]] = []
        for step in trace.steps:
            budget.spend()
            # APs get their bits in order of first appearance, which fixes
            # the order of moves and so the counterexample found
            names = step.aps()
            mask = _mask(tableau, names)
            cube = _cube(step)
            code: _Circuit | None = None
            if cube is not None:
                pos = _mask(tableau, cube[0])
                neg = _mask(tableau, cube[1])
                ms: list[int] | None = [pos] if cube[2] and not pos & neg else []
            else:
                code = _circuit(step, tableau.bit)
                ms = self._listed(code, [tableau.bit(n) for n in names]) if len(names) <= _LISTED else None
            self.masks.append(mask)
            self.models.append(ms)
            self.circuits.append(code)
            if ms:
                always, never = mask, mask
                for m in ms:
                    always &= m
                    never &= ~m
                self.forced.append((always, never))
            else:
                self.forced.append((0, 0))
        self._memo: dict[tuple[int, int, int], int | None] = {}

    def _listed(self, code: _Circuit, bits: list[int]) -> list[int]:
        out = []
        for m in range(1 << len(bits)):
            self.budget.spend(len(code))
            true = sum(1 << b for k, b in enumerate(bits) if m >> k & 1)
            if _value(code, true, ~true):
                out.append(true)
        return out

    def model(self, p: int, pos: int, neg: int) -> int | None:
        """A model (mask of true APs over the step's APs) of step ``p`` that
        agrees with the literals ``pos``/``neg``, or None."""
        vm = self.masks[p]
        key = (p, pos & vm, neg & vm)
        if key in self._memo:
            return self._memo[key]
        want, avoid = key[1], key[2]
        models = self.models[p]
        if models is None:
            found = self._search(p, want, avoid)
        else:
            found = next((m for m in models if m & want == want and not m & avoid), None)
        self._memo[key] = found
        return found

    def _search(self, p: int, want: int, avoid: int) -> int | None:
        """Depth-first search for a model of a large step: each AP in turn
        true then false, cut as soon as the step's value is decided."""
        code = self.circuits[p]
        assert code is not None
        free = bits(self.masks[p] & ~want & ~avoid)
        todo = [(0, want, avoid)]
        while todo:
            self.budget.spend(len(code))
            k, true, false = todo.pop()
            value = _value(code, true, false)
            if value is False:
                continue
            if value is True:
                return true & self.masks[p]
            b = free[k]  # undecided, so some AP is still free
            todo.append((k + 1, true, false | 1 << b))
            todo.append((k + 1, true | 1 << b, false))
        return None


def _mask(tableau: Tableau, names: Iterable[str]) -> int:
    out = 0
    for name in names:
        out |= 1 << tableau.bit(name)
    return out
