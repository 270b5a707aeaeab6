"""The LTL frontend: formulas and lasso traces as IR programs.

A unit is a formula, or a formula with a trace. Its :class:`~invar.program.Program`
has the formula as line 0 and the trace (when present) as line 1; every AP
occurrence, in either line, is a token of view ``ap`` whose referent is the AP's
name, so a renaming maps formula and trace together (alpha-conversion).
Operators, constants, parentheses and the trace's ``; { }`` are tokens whose
view is their own text (singleton views) and that name nothing.

How a ``.ltl`` file splits into units (docs/formats.md, "LTL"):

* blank lines and lines starting with ``#`` are skipped;
* a *trace word* is a whitespace-separated word containing ``;``, ``{`` or
  ``}`` (formulas never contain these characters);
* a line whose first word is a trace word is a *trace line*; it pairs with the
  formula line just before it (DeepLTL's alternating format);
* a line with a trace word later on is a *pair line*: the formula is the text
  before that word, the trace the text from it to the end of the line (a tab,
  when present, separates them instead, so traces may contain spaces);
* any other line is a *formula line*, a unit of its own unless a trace line
  follows.

A malformed formula or trace leaves out its unit only: :func:`parse_units`
returns the others as a :class:`~invar.frontends.units.Units` whose
``skipped`` holds one located error per unit left out.

This face holds the units, the renaming rules (:func:`renaming_space`,
:func:`canonical_space`) and :func:`check_program`. The package's modules:
:mod:`.formula` (formulas: lexing, parsing, infix and Polish text),
:mod:`.trace` (symbolic lasso traces), :mod:`.generate` (random formulas
labelled with satisfying traces, for datasets) and the exact checker:
:mod:`.check` (its public face: :func:`~.check.check`,
:func:`~.check.satisfying_trace`) built on :mod:`.tableau` (the formula
automaton), :mod:`.steps` (a trace's step formulas), :mod:`.product` (the
product and its accepting lasso) and :mod:`.limits` (deadline and state limit).

Part of the frontends layer: the package imports only the ground floor
(errors, program, interrupts), symmetry and the frontends' shared modules;
it must not import encoding, tasks, data, nn, checkpoint, train, audit, alta
or cli.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from ...errors import InvarError, ParseError, SpaceError, UsageError
from ...program import Line, Program, Token
from ...symmetry.renamings import RenamingSpace
from ..units import Units
from .formula import KEYWORDS, Formula, Lexeme, lex_formula, parse_formula, to_infix, to_polish
from .trace import Trace, lex_trace, parse_trace, to_trace_text

__all__ = [
    "parse_units",
    "parse",
    "program_of",
    "pair_of",
    "renaming_space",
    "canonical_space",
    "Formula",
    "Trace",
    "parse_formula",
    "parse_trace",
    "to_infix",
    "to_polish",
    "to_trace_text",
]

LANG = "ltl"
_AP_NAME = re.compile(r"[a-z_][A-Za-z0-9_]*")
_TRACE_CHARS = re.compile(r"[;{}]")


def _tokens(lexemes: Sequence[Lexeme], line: int) -> list[Token]:
    out = []
    for lx in lexemes:
        if lx.kind == "ap":
            out.append(Token(lx.text, "ap", "ap", lx.text, line, lx.start))
        else:
            out.append(Token(lx.text, lx.kind, lx.text, None, line, lx.start))
    return out


def program_of(
    formula_text: str,
    trace_text: str | None = None,
    *,
    source_lines: tuple[int, int] = (1, 1),
    separator: str = "\n",
    prefix: str = "",
    name: str = "",
) -> Program:
    """The program of one unit; ParseError offsets are relative to each text."""
    _, f_lex, _ = lex_formula(formula_text)
    # the formula and its trace are not interchangeable lines: neither moves
    lines = [Line(formula_text, block=-1, source_line=source_lines[0])]
    tokens = _tokens(f_lex, 0)
    if trace_text is not None:
        _, t_lex = lex_trace(trace_text)
        lines.append(Line(trace_text, block=-1, source_line=source_lines[1]))
        tokens += _tokens(t_lex, 1)
    return Program(LANG, tuple(lines), tuple(tokens), name=name, separator=separator, prefix=prefix)


def pair_of(program: Program) -> tuple[Formula, Trace | None]:
    """The formula and trace a program holds (after any renaming)."""
    formula = parse_formula(program.lines[0].text)
    trace = parse_trace(program.lines[1].text) if len(program.lines) > 1 else None
    return formula, trace


def parse(text: str) -> Program:
    """Exactly one unit (a formula, or a formula and its trace)."""
    units = parse_units(text)
    if units.skipped:
        raise units.skipped[0]
    if len(units) != 1:
        raise ParseError(f"expected one formula, found {len(units)} units", line=1, col=1)
    return units[0]


def _relocated(err: ParseError, line_no: int, col0: int, raw: str) -> ParseError:
    return err.at(line_no, col0 + max(err.col, 1), source_line=raw)  # type: ignore[return-value]


def _skip(err: ParseError, reason: str, unit: str, path: str | None) -> ParseError:
    """Mark ``err`` as the reason a unit was left out (see :class:`Units`)."""
    err.reason = reason  # type: ignore[attr-defined]
    err.unit = unit  # type: ignore[attr-defined]
    return err.located(path)  # type: ignore[return-value]


def _first_trace_word(body: str) -> int | None:
    """Offset in ``body`` of the first whitespace-separated word holding ``; { }``."""
    for m in re.finditer(r"\S+", body):
        if _TRACE_CHARS.search(m.group()):
            return m.start()
    return None


def _units_or_raise(units: list[Program], skipped: list[ParseError], every: bool = False) -> Units:
    # a file none of whose units could be read is bad input as a whole
    # (unless the caller reports every skipped unit itself: ``every``)
    if not units and skipped and not every:
        raise skipped[0]
    return Units(units, skipped)


class _Source(NamedTuple):
    """One non-blank line of a ``.ltl`` file."""

    #: 1-based line number
    no: int
    #: the line as written
    raw: str
    #: its leading blanks
    indent: str

    def at(self, offset: int = 0) -> tuple[int, int, str]:
        """Where column ``offset`` of the stripped line stands (for :func:`_relocated`)."""
        return self.no, len(self.indent) + offset, self.raw


def _split_line(body: str) -> tuple[str, str, str | None]:
    """(formula, blanks between, trace) of a stripped line: a formula line
    has no trace (None), a trace line no formula (``""``); see the module
    docstring for the rule."""
    if "\t" in body:
        formula = body[: body.index("\t")].rstrip()
        trace = body[body.index("\t") :].strip()
        return formula, body[len(formula) : len(body) - len(trace)], trace
    split = _first_trace_word(body)
    if split is None:
        return body, "", None
    if split == 0:
        return "", "", body
    formula = body[:split].rstrip()
    return formula, body[len(formula) : split], body[split:]


def _read_unit(
    formula: str,
    trace: str | None,
    formula_at: tuple[int, int, str],
    trace_at: tuple[int, int, str],
    name: str,
    path: str | None,
    **layout,
) -> Program | ParseError:
    """The program of one unit, or the located reason it is left out: a bad
    formula located from ``formula_at``, a bad trace from ``trace_at``
    (``layout``: the rest of :func:`program_of`'s arguments)."""
    where, reason = formula_at, "malformed formula"
    try:
        if trace is not None:
            lex_formula(formula)  # a bad formula is reported as such, before its trace
            where, reason = trace_at, "malformed trace"
        return program_of(formula, trace, name=name, **layout)
    except ParseError as err:
        return _skip(_relocated(err, *where), reason, name, path)


def _formula_unit(line: _Source, formula: str, path: str | None) -> Program | ParseError:
    """A formula line that no trace line follows: a unit of its own."""
    return _read_unit(
        formula, None, line.at(), line.at(), f"line {line.no}", path,
        source_lines=(line.no, line.no), prefix=line.indent,
    )


def _trace_line_unit(
    pending: tuple[_Source, str] | None, line: _Source, trace: str, path: str | None
) -> Program | ParseError:
    """A trace line, with the formula line before it (``pending``)."""
    if pending is None:
        err = ParseError(
            "trace without a formula: put the formula on the line before, or before the trace on this line",
            line=line.no,
            col=len(line.indent) + 1,
            source_line=line.raw,
        )
        return _skip(err, "trace without a formula", f"line {line.no}", path)
    f_line, formula = pending
    return _read_unit(
        formula, trace, f_line.at(), line.at(), f"line {f_line.no}", path,
        source_lines=(f_line.no, line.no), separator="\n" + line.indent, prefix=f_line.indent,
    )


def _pair_unit(line: _Source, formula: str, blanks: str, trace: str, path: str | None) -> Program | ParseError:
    """A pair line: the formula and, after ``blanks``, its trace."""
    return _read_unit(
        formula, trace, line.at(), line.at(len(formula) + len(blanks)), f"line {line.no}", path,
        source_lines=(line.no, line.no), separator=blanks, prefix=line.indent,
    )


def parse_units(text: str, path: str | None = None, *, every: bool = False) -> Units:
    """Every unit of a ``.ltl`` file (see the module docstring for the rule).

    A malformed formula or trace leaves its unit out: the result's
    ``skipped`` holds one located :class:`ParseError` per unit left out (with
    ``reason`` and the ``unit`` name it would have had), and every other unit
    is returned. Only a file without a single good unit raises (with
    ``every``, it too returns its skipped units)."""
    units: list[Program] = []
    skipped: list[ParseError] = []
    pending: tuple[_Source, str] | None = None  # a formula line, until the next line tells if a trace follows

    def keep(unit: Program | ParseError) -> None:
        if isinstance(unit, ParseError):
            skipped.append(unit)
        else:
            units.append(unit)

    for no, raw in enumerate(text.splitlines(), start=1):
        body = raw.strip()
        if not body or body.startswith("#"):
            continue
        line = _Source(no, raw, raw[: len(raw) - len(raw.lstrip())])
        formula, blanks, trace = _split_line(body)
        if formula and pending is not None:  # a new formula: the pending one has no trace
            keep(_formula_unit(*pending, path))
            pending = None
        if trace is None:
            pending = (line, formula)
        elif not formula:
            keep(_trace_line_unit(pending, line, trace, path))
            pending = None
        else:
            keep(_pair_unit(line, formula, blanks, trace, path))
    if pending is not None:
        keep(_formula_unit(*pending, path))
    return _units_or_raise(units, skipped, every)


# ---------------------------------------------------------------- renaming
def locate(program: Program, token: Token) -> tuple[int, int, str]:
    """(source line, 1-based column, source line text) of a token."""
    before = program.prefix + "".join(program.lines[i].text + program.separator for i in range(token.line))
    line_start = before.rfind("\n") + 1
    col = len(before) - line_start + token.start + 1
    rendered = program.render()
    whole_start = rendered.rfind("\n", 0, len(before)) + 1
    whole_end = rendered.find("\n", len(before))
    source = rendered[whole_start : None if whole_end < 0 else whole_end]
    return program.lines[token.line].source_line, col, source


def _spell(token: Token, target: str) -> str:
    return target


def _shape(f: Formula) -> tuple[str, ...]:
    """The formula with every AP name blanked, in Polish order (which fixes
    the tree, given each operator's arity): what a renaming must keep."""
    return tuple("?" if n.op == "ap" else n.op for n in f.walk())


def _line_shape(text: str, li: int) -> object:
    if li == 0:
        return _shape(parse_formula(text))
    trace = parse_trace(text)
    return len(trace.prefix), tuple(_shape(s) for s in trace.steps)


def _holds_long_names(program: Program) -> Token | None:
    """The first AP token of a line that would no longer parse the same with
    multi-letter AP names (compact Polish such as ``&ab``), or None."""
    for li, line in enumerate(program.lines):
        aps = [k for k, t in enumerate(program.tokens) if t.line == li and t.kind == "ap"]
        if not aps:
            continue
        renamed = program.with_token_texts({k: f"p_{n}" for n, k in enumerate(aps)})
        try:
            ok = _line_shape(renamed.lines[li].text, li) == _line_shape(line.text, li)
        except ParseError:
            ok = False
        if not ok:
            return program.tokens[aps[0]]
    return None


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Sequence[str] = ()) -> RenamingSpace:
    """All alpha-renamings of a formula (and its trace): injective maps of the
    used APs into ``pool`` (default: the APs used), minus ``pins``.

    The count is the falling factorial ``P(len(pool) - pinned, used)``."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    if pool is None:
        targets = [r for r in program.referents if r not in pinned]
    else:
        targets = list(dict.fromkeys(pool))
        for name in targets:
            if not _AP_NAME.fullmatch(name) or name in KEYWORDS:
                raise UsageError(f"{name!r} is not an AP name (lowercase letter or _, then letters, digits, _)")
        in_pool = set(targets)
        for tok in program.tokens:
            if tok.referent is not None and tok.referent not in in_pool and tok.referent not in pinned:
                line, col, source = locate(program, tok)
                raise SpaceError(
                    f"AP {tok.referent!r} is not in the pool ({', '.join(targets)})",
                    line=line,
                    col=col,
                    source_line=source,
                )
        targets = [t for t in targets if t not in pinned]
        long_names = [t for t in targets if len(t) > 1]
        if long_names:
            bad = _holds_long_names(program)
            if bad is not None:
                line, col, source = locate(program, bad)
                raise SpaceError(
                    f"pool AP {long_names[0]!r} has more than one letter, which compact Polish notation "
                    "cannot hold; separate the tokens with spaces (e.g. '& a X b')",
                    line=line,
                    col=col,
                    source_line=source,
                )
    return RenamingSpace(program, used, [targets] * len(used), _spell)


def canonical_space(program: Program, *, pins: Sequence[str] = ()) -> RenamingSpace:
    """Renamings onto the fixed pool ``a, b, c, …`` (single letters, so compact
    Polish stays writable; ``p0, p1, …`` when the unit uses more APs than the
    alphabet leaves), pinned APs excluded; the first is the canonical form.
    Unlike a user's ``--aps`` pool, the unit's own APs need not belong to it."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    targets = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in pinned]
    if len(used) > len(targets):
        targets = [n for n in (f"p{k}" for k in range(len(used) + len(pinned))) if n not in pinned]
    return RenamingSpace(program, used, [targets] * len(used), _spell)


# ---------------------------------------------------------------- checking
def parse_jsonl_units(text: str, path: str | None = None, *, every: bool = False) -> Units:
    """Units of a JSONL dataset: one ``{"formula": …, "trace": …}`` per line.

    A malformed record is left out and its located error kept in
    ``skipped``, as :func:`parse_units` does."""
    import json

    units: list[Program] = []
    skipped: list[ParseError] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        name = f"line {no}"
        try:
            record = json.loads(raw)
            formula, trace = record["formula"], record.get("trace")
            if not isinstance(formula, str) or not (trace is None or isinstance(trace, str)):
                raise TypeError
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            err = ParseError(
                'expected a JSON object with a "formula" string and an optional "trace" string',
                line=no, col=1, source_line=raw,
            )
            skipped.append(_skip(err, "malformed record", name, path))
            continue
        try:
            lex_formula(formula)
        except ParseError as err:
            bad = ParseError(f"formula: {err.message}", line=no, col=1, source_line=raw)
            skipped.append(_skip(bad, "malformed formula", name, path))
            continue
        try:
            units.append(program_of(formula, trace, source_lines=(no, no), name=name))
        except ParseError as err:
            bad = ParseError(f"trace: {err.message}", line=no, col=1, source_line=raw)
            skipped.append(_skip(bad, "malformed trace", name, path))
    return _units_or_raise(units, skipped, every)


def check_program(program: Program, *, timeout: float | None = None, max_states: int | None = None):
    """Check the trace of ``program`` against its formula
    (:func:`invar.frontends.ltl.check.check`).

    Errors (no trace, :class:`~invar.frontends.ltl.check.CheckLimitError`)
    are located at the unit's formula."""
    from .check import check

    first = program.tokens[0]
    formula, trace = pair_of(program)
    try:
        if trace is None:
            raise ParseError("formula without a trace; put the trace after it or on the next line")
        return check(formula, trace, timeout=timeout, max_states=max_states)
    except InvarError as err:
        line, col, source = locate(program, first)
        raise err.at(line, col, source_line=source) from None
