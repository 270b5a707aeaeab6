"""The candidate edits of each kind of control, and reading a control again.

What :mod:`.controls` draws from: for a program, the edits of one kind
(capture, order, constant, operator) in a seeded order, built from the
Program IR, what a language is asked of its frontend's record
(:mod:`invar.frontends.registry`), and small tables keyed by the record's
name for what a control may change (which token kinds are literals, which
operators swap, how a merged referent is spelled in each view); and the check that a control,
rendered and parsed again by the program's frontend, reads as the edit
wrote it. :mod:`.controls` explains each kind and what it guarantees.

Audit layer: imports errors, program, frontends and tasks; never cli or train.
"""

from __future__ import annotations

import math
import random
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence

from ..errors import InvarError
from ..frontends.registry import JAVA, LTL, PYTHON, X86, frontend_of
from ..program import Line, Program, Token
from ..tasks.alta import LANG as ALTA

#: candidates of one kind parsed again before that kind is given up on a
#: program (cheap structural checks come first and do not count)
MAX_TRIES = 32
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
# What a language is (a parameter is a local; its locals die with the unit;
# a written x86 operand may be read too; Java's ``<`` may bracket types; a
# Python literal alone is a docstring; an LTL unit's trace is its label) is
# asked of its frontend's record (invar.frontends.registry). What a control
# may change into what is the audit's own choice, in the tables below, keyed
# by the record's name.

_COMPARE = {"<": (">=", ">"), "<=": (">", "<"), ">": ("<=", "<"), ">=": ("<", ">"), "==": ("!=",), "!=": ("==",)}
_ARITHMETIC = {
    "+": ("-",),
    "-": ("+",),
    "*": ("+",),
    "/": ("*",),
    "&": ("|",),
    "|": ("&",),
    "^": ("&",),
    "<<": (">>",),
    ">>": ("<<",),
    "+=": ("-=",),
    "-=": ("+=",),
    "*=": ("+=",),
    "/=": ("*=",),
    "&=": ("|=",),
    "|=": ("&=",),
}
#: operator text -> what may replace it, and the token kinds operators have, by language
_OPERATORS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    PYTHON.name: (
        ("operator", "keyword"),
        {
            **_COMPARE,
            **_ARITHMETIC,
            "//": ("*",),
            "%": ("//",),
            "**": ("*",),
            "//=": ("*=",),
            "%=": ("//=",),
            "and": ("or",),
            "or": ("and",),
        },
    ),
    JAVA.name: (
        ("operator",),
        {
            **_COMPARE,
            **_ARITHMETIC,
            "%": ("/",),
            ">>>": ("<<",),
            "&&": ("||",),
            "||": ("&&",),
            "++": ("--",),
            "--": ("++",),
        },
    ),
    LTL.name: (
        ("operator",),
        {
            "&": ("|",),
            "|": ("&",),
            "F": ("G",),
            "G": ("F",),
            "X": ("F",),
            "U": ("R",),
            "R": ("U",),
            "W": ("M",),
            "M": ("W",),
            "->": ("<->",),
            "<->": ("->",),
            "xor": ("<->",),
            ">": ("=",),
            "=": (">",),
            "^": ("=",),
        },
    ),
}

# x86: a mnemonic for another of the same operand forms, its suffix kept
_GPR_SWAPS = {
    "add": "sub",
    "sub": "add",
    "adc": "sbb",
    "sbb": "adc",
    "and": "or",
    "or": "and",
    "xor": "or",
    "inc": "dec",
    "dec": "inc",
    "shl": "shr",
    "sal": "shr",
    "shr": "shl",
    "sar": "shl",
    "rol": "ror",
    "ror": "rol",
    "rcl": "rcr",
    "rcr": "rcl",
    "neg": "not",
    "not": "neg",
    "imul": "add",
    "bts": "btr",
    "btr": "bts",
    "btc": "bts",
}
_NEGATED = {
    "o": "no",
    "no": "o",
    "b": "ae",
    "ae": "b",
    "c": "nc",
    "nc": "c",
    "nae": "nb",
    "nb": "nae",
    "e": "ne",
    "ne": "e",
    "z": "nz",
    "nz": "z",
    "be": "a",
    "a": "be",
    "na": "nbe",
    "nbe": "na",
    "s": "ns",
    "ns": "s",
    "p": "np",
    "np": "p",
    "pe": "po",
    "po": "pe",
    "l": "ge",
    "ge": "l",
    "nge": "nl",
    "nl": "nge",
    "le": "g",
    "g": "le",
    "ng": "nle",
    "nle": "ng",
}
_VECTOR_SWAPS = {
    "add": "sub",
    "sub": "add",
    "mul": "add",
    "div": "mul",
    "min": "max",
    "max": "min",
    "and": "or",
    "andn": "and",
    "or": "and",
    "xor": "or",
}
_X86_PATTERNS = (
    (
        re.compile(rf"^({'|'.join(sorted(_GPR_SWAPS, key=len, reverse=True))})([bwlq]?)$"),
        lambda m: _GPR_SWAPS[m[1]] + m[2],
    ),
    (
        re.compile(r"^(cmov|set)([a-z]+?)([bwlq]?)$"),
        lambda m: m[1] + _NEGATED[m[2]] + m[3] if m[2] in _NEGATED else None,
    ),
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
    if program.lang == X86.name:
        return _x86_operators(tok.text) if tok.kind == "mnemonic" else ()
    kinds, table = _OPERATORS.get(program.lang, ((), {}))
    if tok.kind not in kinds or (frontend_of(program.lang).angle_brackets and _angle_bracket(program, k)):
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
    PYTHON.name: {"number": _bumped, "string": _string, "keyword": _swap({"True": "False", "False": "True"})},
    JAVA.name: {"number": _bumped, "string": _string, "keyword": _swap({"true": "false", "false": "true"})},
    X86.name: {"immediate": _immediate, "disp": _bumped},
    LTL.name: {"constant": _swap({"1": "0", "0": "1", "true": "false", "false": "true"})},
    # a compiled program reads a small alphabet: a bit flips rather than grows
    ALTA: {"fixed": _swap({"0": "1", "1": "0"})},
}


# ================================================================ reading
@dataclass(frozen=True)
class Reader:
    """How a program's text is read again: its frontend, whether its text
    is read dedented (a method standing alone), and how many units it holds."""

    lang: str
    dedent: bool
    units: int
    #: the task's own reading of a program's text, where its frontend cannot read
    #: it (an output-prediction example: a function and the call ``f(..) == ??``)
    parse: Callable[[str], Program] | None = None

    @staticmethod
    def of(program: Program, parse: Callable[[str], Program] | None = None) -> "Reader | None":
        text = program.render()
        for dedent in (False, True):
            if dedent and textwrap.dedent(text) == text:
                break
            try:
                units = _read_units(textwrap.dedent(text) if dedent else text, program.lang)
            except _UNREADABLE:
                continue
            if units:
                return Reader(program.lang, dedent, len(units))
        if parse is not None:
            try:
                parse(text)
            except _UNREADABLE:
                return None
            return Reader(program.lang, False, 1, parse)
        return None

    def read(self, text: str) -> Program | None:
        """The first unit of ``text``, or None when it does not read as
        many units as the original."""
        try:
            if self.parse is not None:
                return self.parse(text)
            units = _read_units(textwrap.dedent(text) if self.dedent else text, self.lang)
        except _UNREADABLE:
            return None
        return units[0] if len(units) == self.units else None


def _read_units(text: str, lang: str) -> list[Program]:
    if lang == ALTA:  # no frontend language: the alta task reads its inputs itself
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
    last = frontend_of(program.lang).label_from
    last = len(program.lines) if last is None else last
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
        alone = per_line[t.line] == 1 and frontend_of(program.lang).inert_alone
        new = change(t.text) if change is not None and not alone else None
        if new is not None and new != t.text:
            out.append(
                _Edit(
                    "constant",
                    {"line": t.line, "token": k, "from": t.text, "to": new},
                    texts={k: new},
                    rank=(nesting[t.line],),
                )
            )
    return out


def _operator_edits(program: Program) -> list[_Edit]:
    dead = _dead_lines(program)
    nesting = _nesting(program)
    return [
        _Edit(
            "operator", {"line": t.line, "token": k, "from": t.text, "to": new}, texts={k: new}, rank=(nesting[t.line],)
        )
        for k, t in _input_tokens(program)
        if t.line not in dead
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
    return frontend_of(lang).family(view.split(":", 1)[0])


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
    if frontend_of(program.lang).writes_read:  # x86: a written operand may be read too
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
    language whose locals die with the unit (its record's ``locals_die``): a change
    there changes no value the unit returns or leaves (it may still raise).
    Compound lines count as reading what their bodies read, so a loop's
    counter stays alive."""
    if not frontend_of(program.lang).locals_die:
        return frozenset()
    locals_ = set(program.referents)
    readers: dict[str, set[int]] = {}
    for j, line in enumerate(program.lines):
        for r in line.reads:
            readers.setdefault(r, set()).add(j)
    return frozenset(
        j
        for j, line in enumerate(program.lines)
        if line.writes and line.writes <= locals_ and not any(readers.get(r, set()) - {j} for r in line.writes)
    )


# ================================================================= drawing
def candidates(program: Program, kind: str, rng: random.Random) -> Iterator[_Edit]:
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


def next_control(
    program: Program, reader: Reader, edits: Iterator[_Edit], tries: dict[str, int], seen: set[str]
) -> Control | None:
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


__all__ = ["Control", "Reader", "candidates", "next_control", "MAX_TRIES"]
