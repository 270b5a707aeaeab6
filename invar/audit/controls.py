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
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Sequence

from ..errors import InvarError, UsageError
from ..program import Line, Program, Token

__all__ = ["Control", "KINDS", "draw_controls", "task_controls", "label_changes", "control_kinds"]

KINDS = ("capture", "order", "constant", "operator")

#: candidates of one kind parsed again before that kind is given up on a
#: program (cheap structural checks come first and do not count)
MAX_TRIES = 32
#: changed tokens of one capture tried against the bugs task's own check
_BUG_TRIES = 8
#: what reading a control again may raise besides an InvarError (as the bugs task catches)
_UNREADABLE = (InvarError, SyntaxError, ValueError, RecursionError)


@dataclass(frozen=True)
class Control:
    """One transform that changes a program's meaning, parsed again."""

    #: ``capture``, ``order``, ``constant`` or ``operator``
    kind: str
    #: the control as its frontend reads it again (named as the original)
    program: Program
    #: its text as a model reads it (``program.render()``)
    text: str
    #: what changed, JSON-compatible, with IR line and token indices of the
    #: original: ``{"referents": [r1, r2], "from", "to", "tokens"}``,
    #: ``{"moved": j, "before": i}``, ``{"line", "token", "from", "to"}``
    change: dict


# ================================================================== tables
#: view families whose referents a capture may merge, where a language
#: splits one family into several views (a parameter is a local)
_FAMILIES = {"python": {"param": "local"}, "java": {"param": "local"}}

#: languages whose referents are a unit's locals, which no one reads after
#: it returns (a register's final value is part of a block's state)
_LOCALS_DIE = frozenset({"python", "java"})

#: languages whose frontends leave out that a written operand may be read
#: too (x86 ``addq %rbx, %rax`` reads %rax: its roles are coarse on purpose,
#: which never changes a dependency), so a write counts as a read for the data flow
_WRITES_READ = frozenset({"x86"})

#: languages whose ``<`` and ``>`` also bracket type arguments
_ANGLE_BRACKETS = frozenset({"java"})

#: languages where a literal alone on its line is an expression statement
#: that computes nothing (a docstring)
_INERT_ALONE = frozenset({"python"})

#: lines that hold a unit's label rather than its input: an LTL unit's
#: trace (line 1) is what a model writes, so no control touches it
_LABEL_FROM = {"ltl": 1}

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

_COMPARE = {"<": (">=", ">"), "<=": (">", "<"), ">": ("<=", "<"), ">=": ("<", ">"), "==": ("!=",), "!=": ("==",)}
_ARITHMETIC = {"+": ("-",), "-": ("+",), "*": ("+",), "/": ("*",), "&": ("|",), "|": ("&",), "^": ("&",),
               "<<": (">>",), ">>": ("<<",), "+=": ("-=",), "-=": ("+=",), "*=": ("+=",), "/=": ("*=",),
               "&=": ("|=",), "|=": ("&=",)}
#: operator text -> what may replace it, and the token kinds operators have, by language
_OPERATORS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    "python": (("operator", "keyword"), {**_COMPARE, **_ARITHMETIC, "//": ("*",), "%": ("//",), "**": ("*",),
                                         "//=": ("*=",), "%=": ("//=",), "and": ("or",), "or": ("and",)}),
    "java": (("operator",), {**_COMPARE, **_ARITHMETIC, "%": ("/",), ">>>": ("<<",), "&&": ("||",), "||": ("&&",),
                             "++": ("--",), "--": ("++",)}),
    "ltl": (("operator",), {"&": ("|",), "|": ("&",), "F": ("G",), "G": ("F",), "X": ("F",), "U": ("R",),
                            "R": ("U",), "W": ("M",), "M": ("W",), "->": ("<->",), "<->": ("->",), "xor": ("<->",),
                            ">": ("=",), "=": (">",), "^": ("=",)}),
}

# x86: a mnemonic for another of the same operand forms, its suffix kept
_GPR_SWAPS = {"add": "sub", "sub": "add", "adc": "sbb", "sbb": "adc", "and": "or", "or": "and", "xor": "or",
              "inc": "dec", "dec": "inc", "shl": "shr", "sal": "shr", "shr": "shl", "sar": "shl", "rol": "ror",
              "ror": "rol", "rcl": "rcr", "rcr": "rcl", "neg": "not", "not": "neg", "imul": "add", "bts": "btr",
              "btr": "bts", "btc": "bts"}
_NEGATED = {"o": "no", "no": "o", "b": "ae", "ae": "b", "c": "nc", "nc": "c", "nae": "nb", "nb": "nae", "e": "ne",
            "ne": "e", "z": "nz", "nz": "z", "be": "a", "a": "be", "na": "nbe", "nbe": "na", "s": "ns", "ns": "s",
            "p": "np", "np": "p", "pe": "po", "po": "pe", "l": "ge", "ge": "l", "nge": "nl", "nl": "nge", "le": "g",
            "g": "le", "ng": "nle", "nle": "ng"}
_VECTOR_SWAPS = {"add": "sub", "sub": "add", "mul": "add", "div": "mul", "min": "max", "max": "min",
                 "and": "or", "andn": "and", "or": "and", "xor": "or"}
_X86_PATTERNS = (
    (re.compile(rf"^({'|'.join(sorted(_GPR_SWAPS, key=len, reverse=True))})([bwlq]?)$"),
     lambda m: _GPR_SWAPS[m[1]] + m[2]),
    (re.compile(r"^(cmov|set)([a-z]+?)([bwlq]?)$"),
     lambda m: m[1] + _NEGATED[m[2]] + m[3] if m[2] in _NEGATED else None),
    (re.compile(r"^(v?)(add|sub|mul|div|min|max)(ps|pd|ss|sd)$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
    (re.compile(r"^(v?)(andn|and|or|xor)(ps|pd)$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
    (re.compile(r"^(v?p)(add|sub)(b|w|d|q|sb|sw|usb|usw)$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
    (re.compile(r"^(v?p)(andn|and|or|xor)([dq]?)$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
    (re.compile(r"^(v?p)mull([wd])$"), lambda m: m[1] + "add" + m[2]),
    (re.compile(r"^(v?p)(max|min)([su][bwd])$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
    (re.compile(r"^(vfn?m)(add|sub)(\d{3}[ps][sd])$"), lambda m: m[1] + _VECTOR_SWAPS[m[2]] + m[3]),
)


def _x86_operators(text: str) -> tuple[str, ...]:
    lower = text.lower()
    for pattern, swap in _X86_PATTERNS:
        m = pattern.match(lower)
        if m is not None:
            new = swap(m)
            return (new,) if new and new != lower else ()
    return ()


def _operators(program: Program, k: int) -> tuple[str, ...]:
    """What may replace token ``k`` when it is an operator (nothing else)."""
    tok = program.tokens[k]
    if program.lang == "x86":
        return _x86_operators(tok.text) if tok.kind == "mnemonic" else ()
    kinds, table = _OPERATORS.get(program.lang, ((), {}))
    if tok.kind not in kinds or (program.lang in _ANGLE_BRACKETS and _angle_bracket(program, k)):
        return ()
    return table.get(tok.text, ())


def _angle_bracket(program: Program, k: int) -> bool:
    """Whether ``<`` or ``>`` token ``k`` brackets type arguments
    (``List<String>``, ``new ArrayList<>()``) rather than compares: a
    neighbour is another bracket, ``?``, or a type's name (one that names
    no variable and starts with a capital). The Java frontend reads
    ``List>String>`` without complaint, so a swap there must not be tried."""
    toks = program.tokens
    if toks[k].text not in ("<", ">"):
        return False
    for j in (k - 1, k + 1):
        if 0 <= j < len(toks) and toks[j].line == toks[k].line:
            t = toks[j]
            if t.text in ("<", ">", "?", ">>") or (t.kind == "name" and t.referent is None and t.text[:1].isupper()):
                return True
    return False


# ---------------------------------------------------------------- literals
_INTEGER = re.compile(r"^([-+]?)(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9][0-9_]*)([lLjJ]?)$")
_QUOTED = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")(.*)\2$", re.S)


def _bumped(text: str) -> str | None:
    """An integer or float literal plus one, in its own base and with its own
    sign, prefix and suffix (``0x1f`` -> ``0x20``, ``-1`` -> ``0``, ``2.5f`` ->
    ``3.5f``); None when ``text`` is no number."""
    m = _INTEGER.match(text)
    if m is not None:
        sign, body, suffix = m.groups()
        prefix = body[:2] if body[:2].lower() in ("0x", "0b", "0o") else ""
        try:
            value, digits = int(body, 0), {"0x": "x", "0b": "b", "0o": "o"}.get(prefix.lower(), "d")
        except ValueError:  # a leading zero: Java's octal
            value, digits, prefix = int(body, 8), "o", "0"
        value = (-value if sign == "-" else value) + 1
        shown = format(abs(value), digits)
        if digits == "x" and any(c in "ABCDEF" for c in body):
            shown = shown.upper()
        return ("-" if value < 0 else "") + prefix + shown + suffix
    suffix = text[-1] if text[-1:] in tuple("fFdDjJ") else ""
    try:
        value = float(text[: len(text) - len(suffix)].replace("_", ""))
    except ValueError:
        return None
    return repr(value + 1) + suffix if math.isfinite(value) else None


def _immediate(text: str) -> str | None:
    """An x86 immediate plus one (``$8`` -> ``$9``); symbolic ones stay."""
    new = _bumped(text[1:]) if text.startswith("$") else None
    return None if new is None else "$" + new


def _string(text: str) -> str | None:
    """A string literal with its first character changed (an ``x`` put in
    front of an escape or of nothing); f-string pieces stay."""
    m = _QUOTED.match(text)
    if m is None or "f" in m[1].lower():
        return None
    prefix, quote, body = m.groups()
    if body and body[0] != "\\":
        body = ("y" if body[0] == "x" else "x") + body[1:]
    else:
        body = "x" + body
    return prefix + quote + body + quote


def _swap(pairs: dict[str, str]) -> Callable[[str], str | None]:
    return lambda text: pairs.get(text)


#: token kind -> how one literal of it changes, by language
_LITERALS: dict[str, dict[str, Callable[[str], str | None]]] = {
    "python": {"number": _bumped, "string": _string, "keyword": _swap({"True": "False", "False": "True"})},
    "java": {"number": _bumped, "string": _string, "keyword": _swap({"true": "false", "false": "true"})},
    "x86": {"immediate": _immediate, "disp": _bumped},
    "ltl": {"constant": _swap({"1": "0", "0": "1", "true": "false", "false": "true"})},
    # a compiled program reads a small alphabet: a bit flips rather than grows
    "alta": {"fixed": _swap({"0": "1", "1": "0"})},
}


# ================================================================ reading
@dataclass(frozen=True)
class _Reader:
    """How a program's text is read again: its frontend, whether its text
    is read dedented (a method standing alone), and how many units it holds."""

    lang: str
    dedent: bool
    units: int

    @staticmethod
    def of(program: Program) -> "_Reader | None":
        text = program.render()
        for dedent in (False, True):
            if dedent and textwrap.dedent(text) == text:
                break
            try:
                units = _read_units(textwrap.dedent(text) if dedent else text, program.lang)
            except _UNREADABLE:
                continue
            if units:
                return _Reader(program.lang, dedent, len(units))
        return None

    def read(self, text: str) -> Program | None:
        """The first unit of ``text``, or None when it does not read as
        many units as the original."""
        try:
            units = _read_units(textwrap.dedent(text) if self.dedent else text, self.lang)
        except _UNREADABLE:
            return None
        return units[0] if len(units) == self.units else None


def _read_units(text: str, lang: str) -> list[Program]:
    if lang == "alta":  # no frontend language: the alta task reads its inputs itself
        from ..tasks.alta import parse

        return [parse(text)]
    from ..frontends import FRONTENDS, parse_units

    if lang not in FRONTENDS:
        return []
    units = parse_units(text, lang)
    if getattr(units, "skipped", None):  # a unit left out (LTL) is a unit that does not read
        raise units.skipped[0]
    return list(units)


# ============================================================== candidates
@dataclass(frozen=True)
class _Edit:
    """One candidate, before it is read again."""

    kind: str
    change: dict
    #: token index -> new text (capture, constant, operator)
    texts: dict | None = None
    #: the new line order, ``order[new] = old`` (order)
    order: tuple[int, ...] | None = None
    #: candidates of a lower rank are tried first (their seeded order kept within a rank)
    rank: tuple[int, ...] = ()


def _input_tokens(program: Program) -> Iterator[tuple[int, Token]]:
    """Tokens of the lines a model reads (not an LTL unit's trace)."""
    last = _LABEL_FROM.get(program.lang, len(program.lines))
    return ((k, t) for k, t in enumerate(program.tokens) if t.line < last)


def _literal_edits(program: Program) -> list[_Edit]:
    changers = _LITERALS.get(program.lang, {})
    per_line: dict[int, int] = {}
    for t in program.tokens:
        per_line[t.line] = per_line.get(t.line, 0) + 1
    dead = _dead_lines(program)
    nesting = _nesting(program)
    out = []
    for k, t in _input_tokens(program):
        if t.line in dead:
            continue
        change = changers.get(t.kind)
        alone = per_line[t.line] == 1 and program.lang in _INERT_ALONE
        new = change(t.text) if change is not None and not alone else None
        if new is not None and new != t.text:
            out.append(_Edit("constant", {"line": t.line, "token": k, "from": t.text, "to": new}, texts={k: new},
                             rank=(nesting[t.line],)))
    return out


def _operator_edits(program: Program) -> list[_Edit]:
    dead = _dead_lines(program)
    nesting = _nesting(program)
    return [
        _Edit("operator", {"line": t.line, "token": k, "from": t.text, "to": new}, texts={k: new},
              rank=(nesting[t.line],))
        for k, t in _input_tokens(program) if t.line not in dead
        for new in _operators(program, k)
    ]


def _order_edits(program: Program) -> list[_Edit]:
    lines = program.lines
    dead = _dead_lines(program)
    named = set(program.referents)
    nesting = _nesting(program)
    out = []
    for i, j in _reduction(program):
        if j in dead:
            continue  # what it writes no one reads: moving it changes no value
        if lines[i].depth != lines[j].depth or any(
            lines[m].depth < lines[i].depth or (lines[m].depth == lines[i].depth and lines[m].block != lines[i].block)
            for m in range(i + 1, j)
        ):
            continue  # a barrier between them (another block): the move would leave the block
        end = j + 1
        while end < len(lines) and lines[end].depth > lines[j].depth:
            end += 1
        order = (*range(i), *range(j, end), *range(i, j), *range(end, len(lines)))
        a, b = lines[i], lines[j]
        # a conflict on a named referent first: one through a pseudo-resource
        # (the heap, memory, flags) may be only the analysis's caution
        shared = (a.writes & (b.reads | b.writes)) | (a.reads & b.writes)
        rank = (0 if shared & named else 1, nesting[i])
        out.append(_Edit("order", {"moved": j, "before": i}, order=order, rank=rank))
    return out


def _nesting(program: Program) -> list[int]:
    """Per line, how much deeper it stands than the unit's shallowest
    statements: a change there is seen only on inputs that reach it (a
    branch, a loop body), so shallower candidates are tried first."""
    top = min((line.depth for line in program.lines if line.block >= 0), default=0)
    return [max(line.depth - top, 0) for line in program.lines]


def _reduction(program: Program) -> list[tuple[int, int]]:
    """Edges of the transitive reduction of the dependencies within one
    block, in order: the pairs no third line of the closure stands between."""
    n = len(program.lines)
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, j in program.deps:
        if 0 <= i < j < n and program.lines[i].block == program.lines[j].block >= 0:
            succ[i].append(j)
    reach = [0] * n
    for i in range(n - 1, -1, -1):  # deps go forward: (i, j) with i < j
        for j in succ[i]:
            reach[i] |= (1 << j) | reach[j]
    out = []
    for i in range(n):
        covered = 0
        for j in _bits(reach[i]):
            covered |= reach[j]
        out += [(i, j) for j in _bits(reach[i] & ~covered)]
    return out


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# ----------------------------------------------------------------- capture
def _family(lang: str, view: str) -> str:
    head = view.split(":", 1)[0]
    return _FAMILIES.get(lang, {}).get(head, head)


def _capture_pairs(program: Program) -> list[tuple[str, str]]:
    """Ordered pairs of distinct referents of one view family that the
    model reads: the merges a capture may try."""
    first: dict[str, Token] = {}
    for _k, t in _input_tokens(program):
        if t.referent is not None:
            first.setdefault(t.referent, t)
    fam = {r: _family(program.lang, t.view) for r, t in first.items()}
    return [(a, b) for a in first for b in first if a != b and fam[a] == fam[b]]


class _Speller:
    """Spells a token for another referent as the program's renaming space
    does (``%eax`` on ``gpr:b`` is ``%ebx``), preferring a spelling the
    target already has in the same view."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._spell = None
        try:
            from ..symmetry.spaces import renaming_space

            self._spell = renaming_space(program).spell
        except (InvarError, ImportError):
            pass  # no renaming space (alta registers its own; others may have none): same-view spellings only

    def onto(self, tokens: Sequence[Token], target: Sequence[Token]) -> list[str] | None:
        """The texts of ``tokens`` respelled as the referent of ``target``
        (its tokens), or None when some view has no spelling there."""
        by_view = {t.view: t.text for t in target}
        name = self._target_name(target[0])
        out = []
        for tok in tokens:
            text = by_view.get(tok.view)
            if text is None and name is not None:
                try:
                    text = self._spell(tok, name)
                except (KeyError, ValueError, InvarError):
                    text = None
            if text is None:
                return None
            out.append(text)
        return out

    def _target_name(self, tok: Token) -> str | None:
        """What the renaming space calls ``tok``'s referent as a target: the
        referent itself (registers, APs) or its bare name (locals)."""
        if self._spell is None or tok.referent is None:
            return None
        for name in (tok.referent, tok.referent.rsplit(":", 1)[-1]):
            try:
                if self._spell(tok, name) == tok.text:
                    return name
            except (KeyError, ValueError, InvarError):
                continue
        return None


def _capture_edit(program: Program, speller: _Speller, r1: str, r2: str) -> _Edit | None:
    ones = [(k, t) for k, t in _input_tokens(program) if t.referent == r1]
    twos = [t for _k, t in _input_tokens(program) if t.referent == r2]
    texts = speller.onto([t for _k, t in ones], twos)
    if texts is None or all(new == t.text for (_k, t), new in zip(ones, texts)):
        return None
    change = {"referents": [r1, r2], "from": ones[0][1].text, "to": texts[0], "tokens": [k for k, _t in ones]}
    return _Edit("capture", change, texts={k: new for (k, _t), new in zip(ones, texts)})


def _own_effects(lines: Sequence[Line]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Per line, (reads, writes) of its own: a compound line's effects
    include its body's (the frontends say so), which its body lines already
    carry in their place; taking them off keeps each read where it happens
    (a ``for`` body's read after the ``for`` line's write of its target)."""
    out = []
    for j, line in enumerate(lines):
        end = j + 1
        while end < len(lines) and lines[end].depth > line.depth:
            end += 1
        body_reads = frozenset().union(*(lines[m].reads for m in range(j + 1, end)))
        body_writes = frozenset().union(*(lines[m].writes for m in range(j + 1, end)))
        out.append((line.reads - body_reads, line.writes - body_writes))
    return out


def _def_use(program: Program) -> Counter:
    """The data flow the frontend sees, as a multiset of (writer, reader)
    line pairs: for each resource a line reads, the nearest earlier line
    that writes it (-1: none, it enters the unit). Lines are taken in
    program order: loops are not followed back, branches not told apart."""
    effects = _own_effects(program.lines)
    if program.lang in _WRITES_READ:
        effects = [(reads | writes, writes) for reads, writes in effects]
    last: dict[str, int] = {}
    pairs: Counter = Counter()
    for j, (reads, writes) in enumerate(effects):
        for r in reads:
            pairs[(last.get(r, -1), j)] += 1
        for r in writes:
            last[r] = j
    return pairs


def _flow_changes(program: Program, again: Program, r1: str, r2: str) -> bool:
    """Whether a capture changes the data flow: some read now sees another
    line's write, or a line's two values become one. A merge of two
    temporaries whose lifetimes do not overlap changes none (register
    allocation does it), nor does a merge of two values that only enter
    the unit on different lines (two input registers: no dependency can
    show it, and it changes no timing). True when no line reads or writes
    either: the frontend gives no data flow to compare (an LTL formula)."""
    if not any({r1, r2} & (line.reads | line.writes) for line in program.lines):
        return True
    return _def_use(program) != _def_use(again)


def _dead_lines(program: Program) -> frozenset[int]:
    """Lines whose every write is a local no other line reads, in a
    language whose locals die with the unit (:data:`_LOCALS_DIE`): a change
    there changes no value the unit returns or leaves (it may still raise).
    Compound lines count as reading what their bodies read, so a loop's
    counter stays alive."""
    if program.lang not in _LOCALS_DIE:
        return frozenset()
    locals_ = set(program.referents)
    readers: dict[str, set[int]] = {}
    for j, line in enumerate(program.lines):
        for r in line.reads:
            readers.setdefault(r, set()).add(j)
    return frozenset(
        j for j, line in enumerate(program.lines)
        if line.writes and line.writes <= locals_ and not any(readers.get(r, set()) - {j} for r in line.writes)
    )


# ================================================================= drawing
def _candidates(program: Program, kind: str, rng: random.Random) -> Iterator[_Edit]:
    """The edits of one kind in a seeded order (the order is drawn now, the
    edits are built as they are asked for)."""
    if kind == "capture":
        pairs = _capture_pairs(program)
        rng.shuffle(pairs)
        return _captures(program, pairs)
    edits = {"order": _order_edits, "constant": _literal_edits, "operator": _operator_edits}[kind](program)
    rng.shuffle(edits)
    return iter(sorted(edits, key=lambda e: e.rank))


def _captures(program: Program, pairs: list[tuple[str, str]]) -> Iterator[_Edit]:
    speller = None
    for r1, r2 in pairs:
        speller = speller or _Speller(program)
        edit = _capture_edit(program, speller, r1, r2)
        if edit is not None:
            yield edit


def draw_controls(program: Program, n: int, rng: random.Random, kinds: Sequence[str] = KINDS) -> list[Control]:
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
    queues = {kind: _candidates(program, kind, rng) for kind in kinds}
    reader = _Reader.of(program)
    if reader is None:
        return []
    tries = dict.fromkeys(kinds, 0)
    seen = {program.render()}
    out: list[Control] = []
    while queues and len(out) < n:
        for kind in list(queues):
            control = _next_control(program, reader, queues[kind], tries, seen)
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
            change = {"bug": "misuse" if kind == "capture" else "swap", "token": k, "line": token.line,
                      "from": token.text, "to": new}
            if kind == "capture":
                change.update(referents=[token.referent, put], tokens=[k])
            out.append(Control(kind, again, again.render(), change))
    return out


def _next_control(program: Program, reader: _Reader, edits: Iterator[_Edit], tries: dict[str, int],
                  seen: set[str]) -> Control | None:
    """The next edit of one kind that reads again as a control, or None."""
    for edit in edits:
        if tries[edit.kind] >= MAX_TRIES:
            return None
        changed = program.reordered(edit.order) if edit.order is not None else program.with_token_texts(edit.texts)
        text = changed.render()
        if text in seen:
            continue
        tries[edit.kind] += 1
        again = reader.read(text)
        if again is None or not _reads_as_written(program, again, edit):
            continue
        if edit.kind == "capture" and not _flow_changes(program, again, *edit.change["referents"]):
            continue
        seen.add(text)
        again = replace(again, name=program.name)
        return Control(edit.kind, again, again.render(), edit.change)
    return None


def _reads_as_written(program: Program, again: Program, edit: _Edit) -> bool:
    """Whether the control read again holds the edit: the same lines, the
    same tokens with the new texts in place, and a capture's tokens one
    referent with the referent they were merged into."""
    if len(again.lines) != len(program.lines):
        return False
    if edit.texts is None:
        return True
    if len(again.tokens) != len(program.tokens):
        return False
    for k, new in edit.texts.items():
        if again.tokens[k].text != new or again.tokens[k].line != program.tokens[k].line:
            return False
    if edit.kind == "capture":
        r2 = edit.change["referents"][1]
        into = next(k for k, t in enumerate(program.tokens) if t.referent == r2 and k not in edit.texts)
        merged = again.tokens[into].referent
        return merged is not None and all(again.tokens[k].referent == merged for k in edit.texts)
    return True


# ================================================================ checking
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
    if not controls:
        return []
    name = getattr(task, "name", "")
    if oracle is not None:
        return _by_oracle(oracle, program, controls)
    if name == "ltl":
        return _ltl_changes(label, controls)
    if name == "bugs":
        return _bug_changes(program, label, controls)
    if getattr(task, "oracle", None) is not None:
        return _by_oracle(task.oracle, program, controls)
    return [None] * len(controls)


def _by_oracle(oracle: Callable, program: Program, controls: list[Control]) -> list[bool | None]:
    try:
        answers = oracle([program.render()] + [c.text for c in controls])
    except InvarError:  # the oracle is missing (llvm-mca not installed): nothing is checked
        return [None] * len(controls)
    first = answers[0][0]
    if first is None:
        return [None] * len(controls)
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
            holds = check(parse_formula(c.program.lines[0].text), trace, max_states=CHECK_STATES,
                          timeout=CHECK_TIMEOUT).holds
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
