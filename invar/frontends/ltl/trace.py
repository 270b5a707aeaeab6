"""Symbolic lasso traces ``u{v}``: a finite prefix, then a loop repeated forever.

Each step is a propositional formula over the APs (Polish notation, as in the
DeepLTL datasets: ``a;&ab;{b}``); ``1`` leaves a step unconstrained, so ``{1}``
stands for every infinite word. A trace therefore describes a *set* of words:
each position of every unrolling of the loop may take any valuation its step
formula allows (see :mod:`invar.frontends.ltl.check`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ParseError
from .formula import Formula, Lexeme, lex_formula, to_polish


@dataclass(frozen=True, slots=True)
class Trace:
    """A lasso ``prefix (cycle)^omega`` of propositional step formulas."""

    #: the steps before the loop (possibly none)
    prefix: tuple[Formula, ...]
    #: the steps repeated forever (at least one)
    cycle: tuple[Formula, ...]

    @property
    def steps(self) -> tuple[Formula, ...]:
        return self.prefix + self.cycle

    def successor(self, position: int) -> int:
        """The position after ``position`` (the loop jumps back to its start)."""
        nxt = position + 1
        return nxt if nxt < len(self.prefix) + len(self.cycle) else len(self.prefix)

    def aps(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for step in self.steps:
            seen.update(dict.fromkeys(step.aps()))
        return tuple(seen)

    def __str__(self) -> str:
        return to_trace_text(self)


def to_trace_text(trace: Trace, spaced: bool | None = None) -> str:
    """DeepLTL's notation: ``a;&ab;{b}``; steps in Polish notation."""
    if spaced is None:
        spaced = any(not ("a" <= n <= "z" and len(n) == 1) for n in trace.aps())
    steps = [to_polish(s, spaced=spaced) for s in trace.prefix]
    loop = "{" + ";".join(to_polish(s, spaced=spaced) for s in trace.cycle) + "}"
    return ";".join(steps + [loop])


def parse_trace(text: str) -> Trace:
    """Parse a lasso trace; see :func:`lex_trace`."""
    return lex_trace(text)[0]


def _error(message: str, text: str, col: int) -> ParseError:
    return ParseError(message, line=1, col=col + 1, source_line=text)


def lex_trace(text: str) -> tuple[Trace, list[Lexeme]]:
    """Parse a trace and return its lexemes (steps' tokens and the ``; { }``
    delimiters) with offsets into ``text``."""
    if not text.strip():
        raise _error("empty trace", text, 0)
    open_at = text.find("{")
    if open_at < 0:
        close = text.find("}")
        if close >= 0:
            raise _error("unbalanced brace: '}' without '{'", text, close)
        raise _error("trace has no loop: write the repeating part in braces, e.g. a;{b}", text, len(text.rstrip()))
    close_at = text.find("}", open_at)
    if close_at < 0:
        raise _error("unbalanced brace: '{' is never closed", text, open_at)
    for c, what in (("{", "a second loop"), ("}", "'}' without '{'")):
        other = text.find(c, 0, open_at) if c == "}" else text.find(c, open_at + 1, close_at)
        if other >= 0:
            raise _error(f"unexpected {what}", text, other)
    tail = text[close_at + 1 :]
    if tail.strip():
        at = close_at + 1 + (len(tail) - len(tail.lstrip()))
        raise _error("unexpected text after the loop; the loop must end the trace", text, at)

    lexemes: list[Lexeme] = []
    head = text[:open_at]
    prefix: list[Formula] = []
    if head.strip():
        stripped = head.rstrip()
        if not stripped.endswith(";"):
            raise _error("expected ';' before the loop '{'", text, open_at)
        end = len(stripped) - 1
        prefix = _steps(text, 0, end, lexemes)
        lexemes.append(Lexeme(";", "delimiter", end))
    lexemes.append(Lexeme("{", "delimiter", open_at))
    cycle = _steps(text, open_at + 1, close_at, lexemes)
    lexemes.append(Lexeme("}", "delimiter", close_at))
    return Trace(tuple(prefix), tuple(cycle)), lexemes


def _steps(text: str, begin: int, end: int, lexemes: list[Lexeme]) -> list[Formula]:
    """Parse the ``;``-separated steps in ``text[begin:end]``."""
    out: list[Formula] = []
    pos = begin
    while True:
        semi = text.find(";", pos, end)
        stop = end if semi < 0 else semi
        piece = text[pos:stop]
        if not piece.strip():
            where = "loop" if begin > 0 and text[begin - 1] == "{" else "trace"
            raise _error(f"empty step in the {where}", text, pos)
        try:
            step, step_lexemes, _ = lex_formula(piece)
        except ParseError as err:
            raise _error(err.message, text, pos + err.col - 1) from None
        for lx in step_lexemes:
            if lx.kind == "operator" and lx.text in ("X", "F", "G", "U", "R", "W", "M"):
                raise _error(
                    f"temporal operator {lx.text!r} in a trace step; steps are propositional", text, pos + lx.start
                )
        lexemes.extend(Lexeme(lx.text, lx.kind, pos + lx.start) for lx in step_lexemes)
        out.append(step)
        if semi < 0:
            return out
        lexemes.append(Lexeme(";", "delimiter", semi))
        pos = semi + 1


__all__ = ["Trace", "parse_trace", "lex_trace", "to_trace_text"]
