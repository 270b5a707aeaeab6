"""LTL units: formulas and lasso traces as IR programs.

How a ``.ltl`` file (or a JSONL dataset) splits into units is told in the
package's docstring (:mod:`invar.frontends.ltl`); this module builds them:
:func:`parse_units`, :func:`parse`, :func:`program_of` (one unit from its
texts), :func:`pair_of` (a unit's formula and trace) and :func:`locate` (a
token's place in the source).
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple, Sequence

from ...errors import ParseError
from ...program import Line, Program, Token
from ..registry import LTL
from ..units import Units
from .formula import Formula, Lexeme, lex_formula, parse_formula
from .trace import Trace, lex_trace, parse_trace

LANG = LTL.name
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
        formula,
        None,
        line.at(),
        line.at(),
        f"line {line.no}",
        path,
        source_lines=(line.no, line.no),
        prefix=line.indent,
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
        formula,
        trace,
        f_line.at(),
        line.at(),
        f"line {f_line.no}",
        path,
        source_lines=(f_line.no, line.no),
        separator="\n" + line.indent,
        prefix=f_line.indent,
    )


def _pair_unit(line: _Source, formula: str, blanks: str, trace: str, path: str | None) -> Program | ParseError:
    """A pair line: the formula and, after ``blanks``, its trace."""
    return _read_unit(
        formula,
        trace,
        line.at(),
        line.at(len(formula) + len(blanks)),
        f"line {line.no}",
        path,
        source_lines=(line.no, line.no),
        separator=blanks,
        prefix=line.indent,
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


def parse_jsonl_units(text: str, path: str | None = None, *, every: bool = False) -> Units:
    """Units of a JSONL dataset: one ``{"formula": …, "trace": …}`` per line.

    A malformed record is left out and its located error kept in
    ``skipped``, as :func:`parse_units` does."""
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
                line=no,
                col=1,
                source_line=raw,
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
