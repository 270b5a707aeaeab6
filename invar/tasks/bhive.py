"""The BHive throughput task: a learned surrogate of ``llvm-mca``.

Each example is a real x86-64 basic block from BHive with its throughput as
``llvm-mca`` computes it: Total Cycles / iterations at ``-iterations=100``
(the Renamer paper's Figure 1(a) reads 1.68). Loss and metric are the mean
absolute percentage error (MAPE).

Task symmetries: register **renamings** keep llvm-mca's cycles exactly (the
oracle tests/oracles/test_x86_mca.py checks it), so they keep the label.
Semantics-preserving **reorderings** do not: llvm-mca's cycle count changes
under some sampled order for about a quarter of held-out blocks with more
than one order, so a permutation-invariant model cannot fit those labels.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Sequence

import numpy as np
import torch

from ..data.bhive import read_split
from ..frontends.registry import X86
from ..frontends.x86.hexblock import decode
from . import Task
from .answers import CORRECTING, Number, Reader, Unreadable, clean, lines, numbers, second_thoughts, show, weak_thoughts


def mape_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean absolute percentage error, as a fraction (differentiable)."""
    return ((pred - target).abs() / target.abs().clamp(min=1e-6)).mean()


def mape(pred, target) -> float:
    """Mean absolute percentage error, in percent."""
    pred, target = np.asarray(pred, dtype=np.float64), np.asarray(target, dtype=np.float64)
    if not len(target):
        return float("nan")
    return float(100.0 * np.mean(np.abs(pred - target) / np.maximum(np.abs(target), 1e-6)))


def _output(out: torch.Tensor) -> list[float]:
    return [float(x) for x in out.detach().cpu().tolist()]


def label(text: str) -> float:
    """A throughput written in a dataset file: a positive number."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number (a throughput in cycles per iteration)") from None
    if not value > 0:
        raise ValueError(f"throughput {text.strip()} must be positive")
    return value


#: the largest throughput an answer may give: a basic block of a few hundred
#: instructions, each as slow as a division (tens of cycles), stays well below
#: 10,000 cycles per iteration; a number past 100,000 is no block's throughput
#: but something else read by mistake (a total over iterations, an address)
MAX_CYCLES = 100_000.0

_UNIT = r"(?:clock[ \t]+)?(?:cycles?|cyc|clocks?|clks?)\b"
_ITERATION = r"(?:loop[ \t]+)?iter(?:ation)?s?\b"
# what cycles may be counted per: an iteration, a word before it allowed (``per loop iteration``, ``per
# steady-state iteration``), a loop, a block (``per basic block``), one pass or execution of it (not ``per
# run``: a run may be all the iterations)
_AN_ITERATION = rf"(?:[^\W\d_][\w-]*[ \t]+)?(?:{_ITERATION}|(?:it|loop|block|pass|trip|execution|invocation)\b)"
# a cycle unit right after a number (``1.68 cycles``, ``1.68c/iter``)
_AFTER_UNIT = re.compile(rf"[ \t]*(?:{_UNIT}|c/{_ITERATION})", re.I)
# the same, per iteration: the task's own unit, preferred to any other cycles
_PER_ITERATION = re.compile(rf"[ \t]*(?:{_UNIT}[ \t]*(?:per|/|an?|each)[ \t]*{_ITERATION}|c/{_ITERATION})", re.I)
# numbers that measure something else: a total over iterations, instructions
# per cycle (IPC, llvm-mca's other figure) or cycles per instruction (CPI), cycles
# per anything but an iteration (``per load``, ``per byte``), a count of iterations
# or instructions
_OTHER_AFTER = re.compile(
    rf"[ \t]*(?:{_UNIT}[ \t]*)?(?:in[ \t]+total|total|overall"
    rf"|(?:for|over|across|in|per|/)[ \t]*(?:all[ \t]+|the[ \t]+|every[ \t]+)?[\d,]+[ \t]+(?:{_ITERATION}|[^\W\d_]))"
    r"|[ \t]*(?:instructions?|instrs?|insns?|insts?|uops|[µμ]ops|ops)?[ \t]*(?:per|/)[ \t]*(?:cycle|clock|clk|cyc)\b"
    rf"|[ \t]*\(?[ \t]*(?:ipc|cpi|cpb|cpe)\b|[ \t]*{_UNIT}[ \t]*\([ \t]*(?:ipc|cpi|cpb|cpe)[ \t]*\)"
    rf"|[ \t]*(?:{_UNIT}|c)[ \t]*(?:per|/)[ \t]*(?!{_AN_ITERATION})[^\W\d_]"
    rf"|[ \t]*{_UNIT}[ \t]*(?:an?|each)[ \t]+(?:instruction|uop|[µμ]op|op)\b"
    rf"|[ \t]*{_UNIT}[ \t]*(?:each|apiece)\b(?![ \t]+{_ITERATION})"
    rf"|[ \t]*(?:{_UNIT}[ \t]*(?:of[ \t]+)?|-?cycle[ \t]+)latency\b"
    rf"|[ \t]*(?:{_ITERATION}|(?:instructions?|uops|[µμ]ops|ops|loads?|stores?|bytes?|bits?|registers?|ports?"
    r"|times|lines?|stages?)\b)"
    # a time or a frequency (``2.5 ns``, ``2.5 µs``, ``3.5 GHz``): no count of cycles
    r"|[ \t]*(?:[pnuµμm]?s|[pnm]?secs?|(?:pico|nano|micro|milli)?seconds?|minutes?|hours?|[kmg]?hz)(?!\w)",
    re.I,
)
_OTHER_BEFORE = re.compile(
    r"\b(?:total(?:[ \t]+cycles)?|ipc|cpi|latency|iterations?|instructions?|uops|[µμ]ops|ports?|lines?|stages?"
    r"|cycles[ \t]+per[ \t]+instruction|instructions[ \t]+per[ \t]+(?:cycle|clock))[ \t]*"
    r"(?:[:=≈~]|is|of|was|would[ \t]+be)?[ \t]*(?:(?:about|around|roughly|approximately|approx\.?|~|≈)[ \t]*)?$",
    re.I,
)
# a bound, not a value (``< 1 cycle``, ``at least 3 cycles``); a ``>`` that closes a tag (``<b>``) or an
# arrow (``->``, ``=>``) is none
_BOUND = re.compile(
    r"(?:(?:<|(?<![-=\w\"'/])>)=?|[≤≥]|\b(?:at[ \t]+(?:least|most)|(?:no[ \t]+)?(?:more|less|fewer)[ \t]+than"
    r"|up[ \t]+to|under|over|below|above))[ \t]*(?:[~≈][ \t]*)?$",
    re.I,
)
# a bound written after the number (``3 cycles at most``, ``3 cycles or fewer``, ``3 cycles minimum``); a word
# such as ``max`` only where it closes the clause (``2 cycles (max port pressure on p1)`` is a note)
_BOUND_AFTER = re.compile(
    rf"[ \t]*(?:{_UNIT}(?:[ \t]*(?:per|/|an?|each)[ \t]*{_ITERATION})?[ \t]*)?[,(]?[ \t]*"
    r"(?:(?:at[ \t]+(?:the[ \t]+)?(?:most|least|minimum|maximum|best|worst)|or[ \t]+(?:fewer|less|more|lower"
    r"|higher|greater|under|over|below|above|better|worse)|and[ \t]+(?:up|down|above|below|over|under|more|less))\b"
    r"|(?:minimum|maximum|min|max|tops|upwards|plus)\b[ \t]*(?=[.,;:)!]|$))",
    re.I,
)
# a negation before a number (``not 3 cycles but 2.5``): the number is denied, not given
_NEGATED = re.compile(
    r"\b(?:not|never|isn't|isn’t|aren't|aren’t|wasn't|wasn’t|rather[ \t]+than|instead[ \t]+of)[ \t]+"
    r"(?:(?:just|exactly|quite|about|around|roughly|even)[ \t]+|[~≈][ \t]*)?$",
    re.I,
)
_NUMERAL = r"[-−]?(?:\d[\d,.]*|\.\d+)"
# two numbers joined by a dash, a tilde, ``to`` or ``..`` (a unit between allowed), or ``between … and …``
_RANGE = re.compile(
    rf"(?<![\w.])(?<!\w[-‐])\.?\d[\d,.]*(?:[eE][-+]?\d+)?[ \t]*(?:{_UNIT}[ \t]*)?"
    rf"(?:[-–—~]|\bto\b|\.\.)[ \t]*{_NUMERAL}"
    rf"|\bbetween[ \t]+{_NUMERAL}[ \t]*(?:{_UNIT}[ \t]*)?and[ \t]+{_NUMERAL}",
    re.I,
)


# two values offered as alternatives (``2 or 3 cycles``, ``2 cycles (or 3 on Skylake)``)
_ALTERNATIVES = re.compile(
    rf"(?<![\w.])\.?\d[\d,.]*(?:[eE][-+]?\d+)?[ \t]*(?:(?:{_UNIT}[ \t]*(?:(?:per|/|an?|each)[ \t]*)?|c/)"
    rf"(?:{_ITERATION}[ \t]*)?)?[,(]?[ \t]*\bor\b[ \t]+"
    rf"(?:maybe[ \t]+|perhaps[ \t]+|possibly[ \t]+|about[ \t]+|~[ \t]*)?{_NUMERAL}",
    re.I,
)
# a case or a machine that a second value is given for (``3 cycles best case, 5 worst case``, ``3 cycles on
# Haswell, 4 on Skylake``): after the number (a unit between allowed) or before it
_CASE_AFTER = re.compile(
    rf"[ \t]*(?:{_UNIT}[ \t]*)?\(?[ \t]*(?:(?:in[ \t]+(?:the|a)[ \t]+)?(?:best|worst|average|typical|common"
    r"|steady|ideal|cold|warm)\b|on|for|with|without|when|if|under|otherwise|else|at)\b",
    re.I,
)
_CASE_BEFORE = re.compile(
    r"\b(?:(?:best|worst|average|typical|common|steady|ideal|cold|warm)[ \t-]+(?:case|state)|on[ \t]+[\w-]+"
    r"|otherwise|else)[ \t]*[:=,]?[ \t]*(?:about|around|roughly|~)?[ \t]*$",
    re.I,
)
# an expression in words (``3 cycles plus 1``, ``2 times 3``, ``2 sets of 3 cycles``): no one number to read
_EXPRESSION = re.compile(
    rf"(?<![\w.]){_NUMERAL}[ \t]*(?:{_UNIT}[ \t]*)?\b(?:plus|minus|times|divided[ \t]+by|multiplied[ \t]+by"
    rf"|(?:sets|groups|batches|rounds|pairs|chains)[ \t]+of)[ \t]+{_NUMERAL}",
    re.I,
)
# a fraction or a mixed number (``3/2``, ``1 1/2``): no one number to read
_FRACTION = re.compile(r"(?<![\w.])(?:\d+[ \t]+)?\d+(?:\.\d+)?[ \t]*/[ \t]*\d+(?:\.\d+)?(?![\w.])")
# a decimal comma (``3,5``), or numbers listed without spaces
_COMMA = re.compile(r"(?<![\w.,])\d+,\d{1,2}(?![\d,])")


# a second number offered as a maybe (``12 cycles, maybe 13``, ``(perhaps 13)``, ``13 is also plausible``)
_HEDGED_BEFORE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|(?:could|might|may)[ \t]+(?:also[ \t]+|even[ \t]+)?be|or[ \t]+even)"
    r"[ \t]*(?:about|around|roughly|[~≈])?[ \t]*$",
    re.I,
)
_HEDGED_AFTER = re.compile(
    rf"[ \t]*(?:{_UNIT}[ \t]*)?(?:is|are|seems|looks|would[ \t]+be)[ \t]+(?:also[ \t]+|equally[ \t]+)?"
    r"(?:plausible|possible|likely|reasonable)\b",
    re.I,
)
# a bound written after the number (``100+ cycles``)
_PLUS_AFTER = re.compile(r"\+(?![\d.])")
# what lies between two numbers listed or in an expression, not one answer: spaces, a comma or a semicolon
# (``4.5, 7 cycles``, ``1 234 cycles``), a stray point or an apostrophe (``2 . 5``, ``2'500``), an operator
# (``3*2``, ``3 x 2``, ``3·2``, ``3 × 2``, ``3+1``, ``2^3``)
_LISTED = re.compile(r"\s*(?:[,;.'’*×·⋅x+^]\s*)?", re.I)
# a part measured alone (``the division alone takes 20 cycles``): no answer for the whole block
_PART = re.compile(r"\b(?:alone|by[ \t]+itself|on[ \t]+its[ \t]+own)\b[^.;,()]{0,20}$", re.I)


def _other_measure(segment: str, n: Number) -> bool:
    """Whether ``n`` measures something else than cycles per iteration (a total, IPC, a count, a part)."""
    before = segment[max(0, n.start - 30) : n.start]
    return bool(_OTHER_AFTER.match(segment, n.end) or _OTHER_BEFORE.search(before) or _PART.search(before))


def _not_one(segment: str, found: list[Number]) -> str | None:
    """Why the numbers of ``segment`` give no one value, or None: two side by
    side, listed or in an expression (``1 234``, ``4.5, 7 cycles``, ``3*2``),
    a bound after one (``100+``, ``3 cycles at most``), a number denied
    (``not 3 cycles but 2.5``)."""
    for a, b in zip(found, found[1:]):
        if _LISTED.fullmatch(segment, a.end, b.start):
            return f"numbers listed or in an expression ({segment[a.start : b.end]}), not one number"
    for n in found:
        if _PLUS_AFTER.match(segment, n.end):
            return f"a bound ({segment[n.start : n.end + 1]}), not a value"
        if (after := _BOUND_AFTER.match(segment, n.end)) is not None:
            return f"a bound ({segment[n.start : after.end()].strip()}), not a value"
        if (denied := _NEGATED.search(segment[max(0, n.start - 30) : n.start])) is not None:
            return f"a negated number ({denied.group().strip()} {segment[n.start : n.end]}), not a value"
    return None


def _hedged(segment: str, found: list[Number], value: float) -> Number | None:
    """A number of ``found`` other than ``value`` offered as a maybe
    (``12 cycles, maybe 13``, ``(perhaps 13)``, ``13 is also plausible``), or
    for another case (``5 worst case``, ``4 on Skylake``; a condition in
    parentheses, ``12 cycles (13 if the load misses L1)``, is a note), or None."""
    for n in found:
        before = segment[max(0, n.start - 30) : n.start]
        if n.value != value and (
            _HEDGED_BEFORE.search(before)
            or _HEDGED_AFTER.match(segment, n.end)
            or (segment[: n.start].count("(") <= segment[: n.start].count(")") and _by_case(segment, n))
        ):
            return n
    return None


def _by_case(segment: str, n: Number) -> bool:
    """Whether ``n`` is given for a case or a machine (``5 worst case``, ``4 on Skylake``, ``worst case 5``)."""
    return bool(_CASE_AFTER.match(segment, n.end) or _CASE_BEFORE.search(segment[max(0, n.start - 30) : n.start]))


def _kept(segment: str, n: Number) -> bool:
    """Whether ``n`` may be the answer: followed by cycles per iteration, or no other measure."""
    return bool(_PER_ITERATION.match(segment, n.end)) or not _other_measure(segment, n)


# a derivation in parentheses after a number of cycles (``5 cycles (4 + 1)``, ``6 cycles (2 × 3)``, ``2.25
# cycles (= 9/4)``): numbers and operators only
_DERIVATION = re.compile(r"\([ \t]*=?[ \t]*(?P<expression>[\d.]+(?:[ \t]*[-+*×x·⋅/][ \t]*[\d.]+)+)[ \t]*\)")
_OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluated(expression: str) -> float | None:
    """The value of an arithmetic expression of numbers (``4 + 1``, ``2 × 3``), or None."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
            return _OPERATIONS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(expression)

    try:
        return value(ast.parse(re.sub(r"[×x·⋅]", "*", expression), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError, OverflowError, MemoryError):
        return None


def _without_derivations(segment: str) -> str:
    """``segment`` without each derivation in parentheses (:data:`_DERIVATION`) whose value is that of the
    number of cycles right before it (``5 cycles (4 + 1)`` -> ``5 cycles``); one of another value is kept
    (and refused as numbers in an expression)."""
    for m in reversed(list(_DERIVATION.finditer(segment))):
        before = [n for n in numbers(segment[: m.start()]) if _AFTER_UNIT.match(segment, n.end)]
        if not before or segment[before[-1].end : m.start()].strip(" \t") == "":
            continue
        between = segment[before[-1].end : m.start()]
        if not re.fullmatch(
            rf"[ \t]*(?:{_UNIT}|c/{_ITERATION})(?:[ \t]*(?:per|/|an?|each)[ \t]*{_ITERATION})?[ \t]*", between, re.I
        ):
            continue
        worth = _evaluated(m.group("expression"))
        if worth is not None and math.isclose(worth, before[-1].value, rel_tol=1e-9, abs_tol=1e-9):
            segment = segment[: m.start()] + segment[m.end() :]
    return segment


def read_answer(segment: str) -> float:
    """The throughput a segment of a reply gives, in cycles per iteration.
    Numbers are whole tokens (:func:`~invar.tasks.answers.numbers`); those
    followed by cycles per iteration are preferred, then those followed by
    cycles, then any: the preferred ones must agree; numbers that measure
    something else (a count, a total, IPC, cycles per instruction, a
    latency, a time, a frequency) are left out. Unreadable for none, for
    different numbers, for a range, alternatives (a maybe, a value for
    another case), a fraction, an expression, a decimal comma, numbers side
    by side, a bound (before or after the number), a negated number, and for
    a value that is no positive finite throughput of at most :data:`MAX_CYCLES`,
    and for second thoughts after a number (``2.25 cycles (actually 3)``,
    ``… — wait, 3``: :data:`~invar.tasks.answers.CORRECTING`). A derivation in
    parentheses that gives the number before it (``5 cycles (4 + 1)``) is a note."""
    segment = _without_derivations(segment)
    first = numbers(segment)
    if first and (turn := CORRECTING.search(segment, first[0].end)) is not None:
        if any(n.start > turn.end() and _kept(segment, n) for n in first):  # ``(actually limited by port 1)``: a note
            raise Unreadable(
                f"second thoughts inside the answer ({segment[first[0].start :].strip()[:80]}), not one number"
            )
    for pattern, what in (
        (_RANGE, "a range"),
        (_ALTERNATIVES, "alternatives"),
        (_FRACTION, "a fraction"),
        (_EXPRESSION, "an expression"),
        (_COMMA, "a decimal comma or a list"),
    ):
        span = pattern.search(segment)
        if span is not None:
            raise Unreadable(f"{what} ({span.group().strip()}), not one number")
    found = numbers(segment)
    if not found:
        raise Unreadable(f"no number in the answer {segment.strip()[:80]!r}")
    why = _not_one(segment, [n for n in found if _kept(segment, n)])
    if why is not None:
        raise Unreadable(why)
    per_iteration = [n for n in found if _PER_ITERATION.match(segment, n.end)]
    kept = [n for n in found if _kept(segment, n)]
    if not kept:
        others = _listed([n.value for n in found])
        raise Unreadable(f"no number of cycles per iteration in the answer, only other measures ({others})")
    bound = next((n for n in kept if _BOUND.search(segment[max(0, n.start - 20) : n.start])), None)
    if bound is not None:
        raise Unreadable(f"a bound ({segment[max(0, bound.start - 20) : bound.end].strip()}), not a value")
    with_unit = [n for n in kept if _AFTER_UNIT.match(segment, n.end)]
    tier, what = next(
        (t for t in ((per_iteration, " of cycles per iteration"), (with_unit, " with a unit of cycles")) if t[0]),
        (kept, ""),
    )
    value = _agreed(tier, what)
    hedged = _hedged(segment, kept, value)
    if hedged is not None:
        raise Unreadable(f"alternatives ({segment[max(0, hedged.start - 30) : hedged.end].strip()}), not one number")
    return value


def _agreed(tier: list[Number], what: str) -> float:
    """The one value the numbers of ``tier`` give; Unreadable when they differ."""
    values = list(dict.fromkeys(n.value for n in tier))
    if len(values) > 1:
        many = {2: "two", 3: "three"}.get(len(values), str(len(values)))
        raise Unreadable(f"{many} different numbers{what} ({_listed(values)})")
    return _throughput(values[0])


def _listed(values: list[float], most: int = 4) -> str:
    """The first few of ``values``, as a reason lists them."""
    return ", ".join(map(show, values[:most])) + (", …" if len(values) > most else "")


def _throughput(value: float) -> float:
    if not math.isfinite(value):
        raise Unreadable(f"{show(value)} is not a finite number of cycles")
    if value <= 0:
        raise Unreadable(f"{show(value)} cycles is not a positive throughput")
    if value > MAX_CYCLES:
        raise Unreadable(f"{show(value)} cycles is absurd for a basic block (more than {MAX_CYCLES:,.0f})")
    return value


def read_last_line(segment: str) -> float:
    """The throughput a reply's last line gives when the reply has no final
    answer (``Answer: …``): a number with a unit of cycles, or one that ends
    the line (``roughly 1.68``); prose that names a number inside it without
    a unit (``I cannot run llvm-mca 17 here``) is refused, not read."""
    value = read_answer(segment)
    found = numbers(segment)
    kept = [_past(segment, n) for n in found if _kept(segment, n)]
    if any(_AFTER_UNIT.match(segment, end) for end in kept):
        return value
    if kept and not segment[kept[-1] :].strip(" \t.!)*_"):
        return value
    raise Unreadable(
        f"no final answer (Answer: N cycles), and its last line names no number of cycles ({segment.strip()[:80]!r})"
    )


_UNCERTAINTY = re.compile(r"[ \t]*(?:±|\+/-|\+-)[ \t]*(?:\d+(?:\.\d*)?|\.\d+)")


def _past(segment: str, n: Number) -> int:
    """Where ``n`` ends, its uncertainty (``± 0.05``) included."""
    m = _UNCERTAINTY.match(segment, n.end)
    return m.end() if m else n.end


#: words that make a number of cycles after a final answer another answer (a correction), not a note
_CORRECTION = re.compile(
    r"\b(?:wait|actually|correct(?:ion|ed)?|instead|rather|mistake|sorry|recount|revis\w*|should[ \t]+be"
    r"|answer|throughput|estimate|second[ \t]+thoughts?|reflection|more[ \t]+like|scratch|oops|hmm+)\b",
    re.I,
)


#: ``per iteration`` right after a number, no unit of cycles before it (``3 per iteration``)
_PER_ITERATION_ONLY = re.compile(rf"[ \t]*(?:per|/|an?|each)[ \t]*{_ITERATION}", re.I)


def _cycles(line: str) -> list[float]:
    """The numbers of ``line`` that measure cycles per iteration or cycles (not a count, a total or IPC),
    or are given per iteration (``the throughput should be 3 per iteration``)."""
    return [
        n.value
        for n in numbers(line)
        if _PER_ITERATION.match(line, n.end)
        or _PER_ITERATION_ONLY.match(line, n.end)
        or (_AFTER_UNIT.match(line, n.end) and not _other_measure(line, n))
    ]


def find_answers(text: str) -> list[float]:
    """The candidate answers of a reply: line by line, the numbers that are
    no other measure (a count, a total, IPC)."""
    out = []
    for line in lines(text, numbers=True):
        out += [n.value for n in numbers(line) if _kept(line, n)]
    return out


#: a number alone, a unit of cycles after it allowed (``4.``, ``about 4 cycles``): the answer of a line of
#: second thoughts (``Wait, 4.``), where a bare number in prose is not
_BARE = re.compile(rf"[ \t]*(?:about|around|roughly|~|≈)?[ \t]*{_NUMERAL}[ \t]*(?:{_UNIT}[ \t]*)?[.!)]*[ \t]*", re.I)


# what presents a line's number as the whole block's answer (``So it takes``, ``I get``, ``the throughput is``)
_PRESENTING = re.compile(
    r"(?:(?:so|thus|hence|therefore|overall|then|that|this|which|it|i|we|result|throughput|estimate"
    r"|the[ \t]+(?:throughput|answer|result|estimate|block|loop))(?![\w-])(?:'s|’s)?[ \t,]*)*(?:(?:(?:gives|get|gets"
    r"|takes|is|are|comes[ \t]+to|equals|would[ \t]+be|should[ \t]+be)(?![\w-])|=|:)[ \t]*)?(?:(?:(?:about|around"
    r"|roughly|approximately|approx\.?|closer[ \t]+to|more[ \t]+like|nearer)(?![\w-])|~|≈)[ \t]*)?",
    re.I,
)
_ALONE = re.compile(
    rf"(?P<number>{_NUMERAL})[ \t]*(?:(?:{_UNIT}|c/{_ITERATION})(?:[ \t]*(?:total[ \t]+)?(?:per|/|an?|each)[ \t]*"
    rf"{_ITERATION})?)?[ \t]*[.!]*",
    re.I,
)


def read_alone(line: str) -> float:
    """The throughput a line gives when it is nothing but one (``**3 cycles**``,
    ``≈ 3 cycles``, ``So it takes 3 cycles.``, ``I get 3 cycles.``, ``Result:
    3 cycles``); Unreadable for any other line, a note on a part (``But the
    add takes only 1 cycle.``) included."""
    line = clean(line, line=True)
    m = _ALONE.fullmatch(line, _PRESENTING.match(line).end())
    if m is None:
        raise Unreadable(f"not a number of cycles alone ({line[:80]!r})")
    found = numbers(m.group())
    if len(found) != 1:
        raise Unreadable(f"not one number of cycles alone ({line[:80]!r})")
    return _throughput(found[0].value)


def _leading(rest: str) -> list[float]:
    """The throughput a line of weak second thoughts gives (``I think 4 cycles.``, ``But 4 cycles is more
    likely.``, ``In fact, it takes 4 cycles here``): a number alone, or a number of cycles that opens what
    follows its opening words and what presents it; a number of a part (``But the add takes only 1 cycle.``)
    is none."""
    try:
        return [read_alone(rest)]
    except ValueError:
        pass
    start = _PRESENTING.match(rest).end()
    found = numbers(rest[start:])
    if not found or found[0].start > 0:
        return []
    return _cycles(rest[start : start + found[0].end + 40])[:1]


#: a number that closes a line of strong second thoughts after ``=``, an arrow, ``is``, ``be``, ``so`` or a colon
#: (``Actually, recounting gives 9 uops → 2.25.``, ``Wait, the chain is imul (3) + add (1) = 4.``, ``…, so the
#: answer should be 3.``, ``…adds latency: 4 cycles.``): the figure the second thoughts end on
_ENDING = re.compile(
    rf"(?:=|→|->|⇒|\bis|\bbe|\bso|:)[ \t]*(?:(?:about|around|roughly|~|≈)[ \t]*)?(?P<number>{_NUMERAL})[ \t]*"
    rf"(?:{_UNIT}[ \t]*)?[.!]*[ \t]*$",
    re.I,
)


def _alone_or_cycles(rest: str) -> list[float]:
    """The throughput a line of strong second thoughts gives after its opening words: one alone or presented
    (:func:`read_alone`: ``I get 3.``, ``it should be closer to 3``), else its numbers of cycles (:func:`_cycles`),
    else a number that ends it (:data:`_ENDING`: ``recounting gives 9 uops → 2.25``)."""
    try:
        return [read_alone(rest)]
    except ValueError:
        pass
    found = _cycles(rest)
    if not found and (ending := _ENDING.search(rest)) is not None:
        found = [n.value for n in numbers(ending.group("number"))]
    return found


def later_answers(text: str) -> list[float]:
    """The throughputs the text after a final answer gives anyway, line by
    line: numbers of cycles per iteration, numbers of cycles on a line that
    corrects or restates the answer (``Wait, it is 4.5 cycles``) or on a
    line of second thoughts (``Update: 4 cycles``, ``I think it's 4
    cycles``), and a number alone after their opening words (``Wait,
    4.``); a note on a part (``the division alone takes 20 cycles``) is none."""
    out = []
    for rest in second_thoughts(text):
        out += [n.value for n in numbers(rest)] if _BARE.fullmatch(rest) else _alone_or_cycles(rest)
    for rest in weak_thoughts(text):  # ``I think 4 cycles.``; ``But the add takes only 1 cycle.`` is a note
        out += _leading(rest)
    for line in lines(text, numbers=True):
        if _CORRECTION.search(line):
            out += _cycles(line)
        else:
            out += [n.value for n in numbers(line) if _PER_ITERATION.match(line, n.end)]
    return out


#: a whole reply -> its throughput (:mod:`invar.tasks.answers`' pipeline)
answer = Reader(
    parse=read_answer, find=find_answers, last_line=read_last_line, after=later_answers, alone=read_alone, numbers=True
)


def oracle(texts: Sequence[str], mcpu: str = "haswell") -> list[tuple[float | None, str]]:
    """llvm-mca's throughput of each block text (Total Cycles / 100 at
    ``-iterations=100``), all blocks in one llvm-mca process: ``(label, "")``
    or ``(None, llvm-mca's reason)``. DataError when llvm-mca is not installed."""
    from ..data.bhive import ITERATIONS, label_texts, llvm_mca_version

    llvm_mca_version()  # a located error when llvm-mca is missing
    return [
        (None, reason) if cycles is None else (round(cycles / ITERATIONS, 6), "")
        for cycles, reason in label_texts(list(texts), mcpu, ITERATIONS)
    ]


TASK = Task(
    name="bhive",
    head="regression",
    n_labels=1,
    invariances={"renamings": True, "permutations": False},
    metric_name="MAPE",
    lower_is_better=True,
    loss=mape_loss,
    metric=mape,
    output=_output,
    parse=lambda source: decode(source),
    read_split=read_split,
    label=label,
    answer=answer,
    oracle=oracle,
    lang=X86.name,
    languages=(X86.name,),
)

__all__ = ["TASK", "MAX_CYCLES", "mape", "mape_loss", "label", "answer", "read_answer", "find_answers", "oracle"]
