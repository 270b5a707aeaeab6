"""Sensitivity controls: transforms that change a program's meaning by construction.

Invariance alone is half a measurement: a constant model is perfectly
invariant. A **control** is the other half: a transform drawn from the
complement of a symmetry space, so that a model which follows its task
should change its answer on it. Four kinds, read from the Program IR only
(tokens with kind, view and referent; lines with reads, writes, block and
depth; ``Program.deps``), with small tables keyed by ``program.lang`` for
what only a language knows (which token kinds are literals, which
operators swap):

* **capture**: two referents of one view family merged, every token of
  ``r1`` respelled as ``r2`` is spelled for that token's view (``%ebx`` ->
  ``%eax``): the non-injective map a renaming space forbids. Kept only when
  the merge changes the data flow the frontend sees on the control read
  again (a read now sees another line's write, or a line's two values become
  one: :func:`_flow_changes`); merging two temporaries whose lifetimes do not
  overlap is register allocation, not a change of meaning.
* **order**: line ``j`` (with its body) moved to just before line ``i``, for
  an edge ``(i, j)`` of the transitive reduction of the dependencies within
  one block: a line order that is no linear extension of them. Edges whose
  lines conflict on a named referent are tried first: a conflict through a
  pseudo-resource (the heap, memory, flags) may be only the analysis's caution.
* **constant**: one literal changed (``0`` -> ``1``, ``n`` -> ``n + 1``, a
  string's first character, ``$8`` -> ``$9``, LTL ``1`` -> ``0``).
* **operator**: one operator swapped for another of the same arity
  (``<`` -> ``>=``, ``+`` -> ``-``, ``and`` -> ``or``, LTL ``U`` -> ``R``,
  x86 ``addq`` -> ``subq``, ``cmovl`` -> ``cmovge``).

Within a kind, candidates come in a seeded order, those on the unit's
shallowest lines first (a change inside a branch or a loop shows only on
inputs that reach it); in Python and Java, a line whose every write is a
local no other line reads gets no constant, operator or order control.

Every control is rendered and **parsed again** with the program's frontend;
one that does not parse, parses into another number of units, or reads as
other tokens than the edit wrote (a capture whose tokens the frontend does
not resolve to one referent, say) is dropped, as is one whose text is the
original's. :func:`label_changes` then asks the task's oracle whether each
control's *label* changes; a control whose label provably stays is not a
control, and the audit drops it.

What a control does not guarantee: that the changed meaning shows on an
input that occurs (a moved line or a changed constant may be unreachable, a
merged variable may hold the same value as the other), nor that a
language's compiler accepts it (a Java capture may redeclare a variable).

Audit layer: imports errors, program, frontends and tasks; never cli or train.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

from ..errors import InvarError, UsageError
from ..program import Program
from .control_edits import Control, Reader, candidates, next_control

__all__ = ["Control", "KINDS", "draw_controls", "task_controls", "label_changes", "label_changes_many", "control_kinds"]

KINDS = ("capture", "order", "constant", "operator")

#: changed tokens of one capture tried against the bugs task's own check
_BUG_TRIES = 8

#: tasks whose label only some kinds can change, or only some kinds are
#: checked for (the rest: every kind)
_TASK_KINDS = {
    # the task's own bugs (task_controls) come first; the other kinds show
    # what else the model reacts to, their label unchecked
    "bugs": ("constant", "order", "operator", "capture"),
    # llvm-mca times an instruction by its form: no changed immediate changed the
    # cycles of a BHive block (0 of 168 constant controls; tests/audit/test_controls.py)
    "bhive": ("capture", "order", "operator"),
    "ltl": ("capture", "operator", "constant"),  # one formula line: nothing to reorder
    "alta": ("capture", "constant"),  # no dependencies, no operators among the symbols
}


def draw_controls(
    program: Program,
    n: int,
    rng: random.Random,
    kinds: Sequence[str] = KINDS,
    parse: Callable[[str], Program] | None = None,
) -> list[Control]:
    """Up to ``n`` controls of ``program``, the ``kinds`` taken in turn from
    a seeded start so that a few controls cover several kinds; within a
    kind, its candidates in a seeded order. Deterministic for a seed. Fewer
    than ``n`` when the program offers fewer (a one-line block has no order
    control); ``[]`` for a program that cannot be read again or changed."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise UsageError(f"unknown control kind {unknown[0]!r} (choose from {', '.join(KINDS)})")
    kinds = list(dict.fromkeys(kinds))
    if n <= 0 or not kinds or not program.lines:
        return []
    start = rng.randrange(len(kinds))
    kinds = kinds[start:] + kinds[:start]
    queues = {kind: candidates(program, kind, rng) for kind in kinds}
    reader = Reader.of(program, parse)  # the task's own reading where the frontend cannot read the text
    if reader is None:
        return []
    tries = dict.fromkeys(kinds, 0)
    seen = {program.render()}
    out: list[Control] = []
    while queues and len(out) < n:
        for kind in list(queues):
            control = next_control(program, reader, queues[kind], tries, seen)
            if control is None:
                del queues[kind]
                continue
            out.append(control)
            if len(out) == n:
                break
    return out


def task_controls(task, program: Program, label, n: int, rng: random.Random) -> list[Control]:
    """Up to ``n`` controls that the task itself defines to change the label.
    The bugs task: its own injections into a correct function (label 0), a
    variable misuse (one read of a variable replaced by another: a capture of
    one occurrence, kind ``capture``) or a comparison swap (``operator``),
    each passing the task's own check (:func:`invar.tasks.bugs.check`), the
    two kinds in turn. Other tasks, and functions that are not known to be
    correct: none."""
    if getattr(task, "name", "") != "bugs" or n <= 0:
        return []
    from ..tasks import bugs

    try:
        if int(label) != 0:
            return []
    except (TypeError, ValueError):
        return []
    found = bugs.candidates(program, bugs.stored(program))
    queues = [("capture", found["misuse"]), ("operator", found["swap"])]
    for _, queue in queues:
        rng.shuffle(queue)
    out: list[Control] = []
    seen = {program.render()}
    tries = 0
    while len(out) < n and any(q for _, q in queues) and tries < bugs.MAX_TRIES * n:
        for kind, queue in queues:
            if not queue or len(out) == n:
                continue
            k, new, put = queue.pop()
            tries += 1
            text, _why = bugs.check(program, k, new, put)
            if text is None:
                continue
            again = bugs.parse(text)
            if again.render() in seen:
                continue
            seen.add(again.render())
            token = program.tokens[k]
            change = {
                "bug": "misuse" if kind == "capture" else "swap",
                "token": k,
                "line": token.line,
                "from": token.text,
                "to": new,
            }
            if kind == "capture":
                change.update(referents=[token.referent, put], tokens=[k])
            out.append(Control(kind, again, again.render(), change))
    return out


def control_kinds(task) -> tuple[str, ...]:
    """The kinds worth drawing for ``task``: those whose label change its
    oracle can confirm (bugs: a misuse or a comparison swap), those its
    programs can hold (an LTL unit has one formula line), else all four."""
    return _TASK_KINDS.get(getattr(task, "name", ""), KINDS)


def label_changes(task, program: Program, label, controls: list[Control], *, oracle=None) -> list[bool | None]:
    """Per control: True when the task's oracle says its label differs from
    the original's, False when it says it is the same or cannot label it
    (either way it is no control), None when nothing checks it.

    ``oracle`` (texts -> ``[(label, reason)]``, a compiled model's
    interpreter) overrides the task's. An oracle labels the original's text
    and the controls' in one call and compares them (not ``label``: a
    dataset's label may come from elsewhere, BHive's measurements say). The
    ltl task checks the original's trace (``label``) against each control's
    formula with the exact checker; the bugs task confirms a capture or a
    comparison swap of a correct function (label 0) with its own no-op
    check (:func:`invar.tasks.bugs.check`). Other tasks: None."""
    return label_changes_many(task, [(program, label, controls)], oracle=oracle)[0]


def label_changes_many(
    task, jobs: Sequence[tuple[Program, Any, list[Control]]], *, oracle=None
) -> list[list[bool | None]]:
    """:func:`label_changes` of several programs ``(program, label,
    controls)``, an oracle asked once for them all (llvm-mca starts once
    per chunk of an audit, not once per example)."""
    chosen = _oracle_of(task, oracle)
    if chosen is None:
        return [_without_oracle(task, program, label, controls) for program, label, controls in jobs]
    texts: list[str] = []
    for program, _label, controls in jobs:
        if controls:
            texts += [program.render()] + [c.text for c in controls]
    try:
        answers = chosen(texts) if texts else []
    except InvarError:  # the oracle is missing (llvm-mca not installed): nothing is checked
        return [[None] * len(controls) for _, _, controls in jobs]
    out, at = [], 0
    for _program, _label, controls in jobs:
        if controls:
            out.append(_compared(answers[at : at + 1 + len(controls)]))
            at += 1 + len(controls)
        else:
            out.append([])
    return out


def _oracle_of(task, oracle):
    """The oracle that decides a control's label change: the one given, else
    the task's, except where the task decides without one (ltl: the trace
    checker; bugs: the task's own definition)."""
    if oracle is not None:
        return oracle
    if getattr(task, "name", "") in ("ltl", "bugs"):
        return None
    return getattr(task, "oracle", None)


def _without_oracle(task, program: Program, label, controls: list[Control]) -> list[bool | None]:
    name = getattr(task, "name", "")
    if not controls:
        return []
    if name == "ltl":
        return _ltl_changes(label, controls)
    if name == "bugs":
        return _bug_changes(program, label, controls)
    return [None] * len(controls)


def _compared(answers: list) -> list[bool | None]:
    """The oracle's answers for an original and its controls, compared."""
    first = answers[0][0]
    if first is None:
        return [None] * (len(answers) - 1)
    # a control the oracle cannot label lies outside the task's domain (a
    # compiled sort is undefined on repeated symbols): no control, like one
    # whose label stays the same
    return [False if got is None else not _same(first, got) for got, _reason in answers[1:]]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    return a == b


def _ltl_changes(label, controls: list[Control]) -> list[bool | None]:
    from ..frontends.ltl import parse_formula, parse_trace
    from ..frontends.ltl.check import CheckLimitError, check
    from ..tasks.ltl import CHECK_STATES, CHECK_TIMEOUT

    text = label.get("trace") if isinstance(label, dict) else label
    try:
        trace = parse_trace(text) if isinstance(text, str) else None
    except InvarError:
        trace = None
    if trace is None:
        return [None] * len(controls)
    out: list[bool | None] = []
    for c in controls:
        try:
            holds = check(
                parse_formula(c.program.lines[0].text), trace, max_states=CHECK_STATES, timeout=CHECK_TIMEOUT
            ).holds
        except (CheckLimitError, InvarError):
            out.append(None)
            continue
        out.append(not holds)
    return out


def _bug_changes(program: Program, label, controls: list[Control]) -> list[bool | None]:
    from ..tasks import bugs

    try:
        correct = int(label) == 0
    except (TypeError, ValueError):
        correct = False
    if not correct:  # a bugged function with one more change: the task does not say what it is
        return [None] * len(controls)
    out: list[bool | None] = []
    for c in controls:
        found = None
        if c.kind == "operator" and c.change["to"] in bugs.SWAPS.get(c.change["from"], ()):
            found = bugs.check(program, c.change["token"], c.change["to"])[0] is not None or None
        elif c.kind == "capture":
            r2 = c.change["referents"][1]
            for k in c.change["tokens"][:_BUG_TRIES]:
                if bugs.check(program, k, c.program.tokens[k].text, r2)[0] is not None:
                    found = True  # the capture holds this misuse (and the rest of its respellings)
                    break
        out.append(found)
    return out
