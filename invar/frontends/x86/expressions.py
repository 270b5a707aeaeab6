"""Displacements and immediates as an assembler reads them: expressions.

Compilers write addresses as sums: gcc's ``8+g(%rip)`` and ``-16+g(%rbx)``
(a field of a global struct), ``g+8(%rip)``, ``(g+8)(%rip)``, thread-locals
``%fs:8+x@tpoff``. invar reads what ``llvm-mc`` reads of them: numbers
(decimal, ``0x`` hex, ``0b`` binary, octal with a leading ``0``; a
character constant, ``'a'`` or GNU as's ``'a``, with GNU as's escapes,
``'\\n'``, ``'\\''``, is its code, kept in decimal as GNU as reads it:
``$'#'`` is ``$35``), symbols
(``g``, ``.LC0``, ``calls.0``, with a modifier such as ``@GOTPCREL`` or
``@tpoff``; in a branch's target also ``1b`` and ``2f``, numeric local
labels), ``+`` and ``-`` (binary and unary) and parentheses. With only
these operators an expression that is an address is a constant plus at most
one symbol, less at most one other, and it is kept in that form
(:class:`Expression`): the constant is exact (a dependency compares
``(8+8)(%rax)`` with ``16(%rax)``), and an expression with a symbol has no
value before linking.

Other operators (``*``, ``<<``, ``~`` …) are refused: no compiler writes them
in an instruction, and a precedence misread would change an address. A value
that is not an address is refused where llvm-mc refuses it when it writes an
object file, following its rules part by part: two symbols added (``g+h``),
a symbol subtracted with none added (``8-g``), a unary minus on a symbol
(``-g+8``, ``--g``, ``8-(-g)``, though ``8-(0-g)`` is ``g+8``), and a symbol
that cancels out (``g-g+4``: llvm-mc keeps a relocation for it).

Part of the frontends layer: imports errors and the x86 register table only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import ParseError
from .registers import lookup

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[0-9][\w]*)|(?P<symbol>[A-Za-z_.][\w.$@]*)|(?P<punct>[-+()])"
    r"""|(?P<char>'(?:\\.|.)'?)|(?P<quoted>"(?:[^"\\]|\\.)*"?)|(?P<other>\S))"""
)
#: a character constant's escapes as GNU as reads them (``'\n'``); any other escaped character is itself
_ESCAPES = {"b": 8, "f": 12, "n": 10, "r": 13, "t": 9}
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*")
_OPERATORS = frozenset("*/%<>&|^~!=")
#: a reference to a numeric local label: ``1b`` the nearest ``1:`` before, ``2f`` the nearest after
_LOCAL_LABEL = re.compile(r"[0-9]+[bf]")


@dataclass(frozen=True, slots=True)
class Expression:
    """A displacement or an immediate: a constant plus symbols."""

    #: the expression as written, blanks removed (what the IR line holds)
    text: str
    #: the sum of its numbers, signs applied
    constant: int
    #: the symbol added (coefficient +1) and, in a difference ``g-h``, the
    #: symbol subtracted (-1); empty for a number
    symbols: tuple[tuple[str, int], ...]

    @property
    def value(self) -> int | None:
        """The number it stands for, or None when it names a symbol."""
        return None if self.symbols else self.constant


def read_expression(text: str, what: str = "displacement", *, local_labels: bool = False) -> Expression:
    """Read ``text`` (``what`` names it in messages). A malformed one is a
    :class:`~invar.errors.ParseError` at its 1-based column in ``text``.
    ``local_labels``: ``1b`` and ``2f`` name numeric local labels (the
    parser asks for them in a branch's bare target, ``jnz 1b``, which a
    listing defines; elsewhere they stay malformed numbers, as llvm-mc
    refuses them in a block without their labels)."""
    tokens = _tokens(text, what, local_labels)
    written = "".join(t for t, _ in tokens)
    value = _fold(tokens, text, what)
    if value is _NO_ADDRESS or (value[1] is not None and value[0] is None):
        raise ParseError(
            f"{what} {written!r} is not an address: an assembler encodes a constant, a symbol plus a constant, "
            f"or a difference of two symbols plus a constant",
            col=tokens[0][1] + 1,
        )
    added, subtracted, constant = value
    if added is not None and added == subtracted:  # llvm-mc keeps a 32-bit field for it, no object file holds it
        raise ParseError(
            f"symbol {added!r} cancels out of {what} {written!r}: write the constant", col=tokens[0][1] + 1
        )
    symbols = tuple((name, k) for name, k in ((added, 1), (subtracted, -1)) if name is not None)
    return Expression(written, constant, symbols)


def _tokens(text: str, what: str, local_labels: bool = False) -> list[tuple[str, int]]:
    """(token, 0-based column) of every token; numbers and symbols checked."""
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        token, at = m.group(kind), m.start(kind)
        if kind == "char":  # ``'a``, ``'a'``: the character's code, as GNU as reads it (llvm-mc too, closed)
            token, kind = _character(token, text, what, at), "number"
        elif kind == "quoted":
            raise ParseError(
                f"quoted symbol {token} in {what} {text.strip()!r}: invar reads no quoted symbol "
                f"(clang quotes a name no plain symbol spells)",
                col=at + 1,
            )
        elif kind == "other":
            if token == "'":
                raise ParseError(f"character constant without its character in {what} {text.strip()!r}", col=at + 1)
            if token in _OPERATORS:
                raise ParseError(
                    f"operator {token!r} in {what} {text.strip()!r}: invar reads + and - only "
                    f"(what compilers write in an instruction)",
                    col=at + 1,
                )
            raise ParseError(f"unexpected {token!r} in {what} {text.strip()!r}", col=at + 1)
        if kind == "number" and local_labels and _LOCAL_LABEL.fullmatch(token):  # ``jnz 1b``: label 1, back
            kind = "symbol"
        elif kind == "number" and not _NUMBER.fullmatch(token):
            hint = " (a numeric local label is read as a branch's target only)" if _LOCAL_LABEL.fullmatch(token) else ""
            raise ParseError(f"malformed number {token!r} in {what} {text.strip()!r}{hint}", col=at + 1)
        if kind == "symbol" and re.fullmatch(r"\.[0-9]+", token):
            raise ParseError(f"{token!r} in {what} {text.strip()!r} is a real number, not an integer", col=at + 1)
        if kind == "symbol" and lookup(token) is not None:
            raise ParseError(
                f"register {token!r} is written without '%' (invar reads AT&T syntax: %{token.lower()})", col=at + 1
            )
        out.append((token, at))
    if not out:
        raise ParseError(f"empty {what}", col=1)
    return out


def _character(token: str, text: str, what: str, at: int) -> str:
    """The code of character constant ``token`` (``'a'``, ``'a``, ``'\\n'``,
    ``'\\''``, ``'''``) in decimal: what GNU as reads in its place."""
    escaped = token[1] == "\\" and len(token) > 2
    char = token[2] if escaped else token[1]
    if not char.isascii():
        raise ParseError(
            f"character constant {token} in {what} {text.strip()!r} is not ASCII: GNU as reads one byte of it",
            col=at + 1,
        )
    return str(_ESCAPES.get(char, ord(char)) if escaped else ord(char))


def _number(token: str) -> int:
    if len(token) > 1 and token[0] == "0" and token[1] in "0123456789":
        return int(token, 8)
    return int(token, 0)


def _expected(previous: str | None) -> str:
    return "expected a number, a symbol or '('" + (f" after {previous!r}" if previous else "")


#: the value of a (part of an) expression as an assembler keeps it: the
#: symbol added, the symbol subtracted (either None) and the constant
_Value = tuple  # (str | None, str | None, int)
#: the value of a part no object file can hold (``g+h``, ``-g``); what
#: contains it cannot either
_NO_ADDRESS: _Value = ("", "", 0)


def _negated(value: _Value) -> _Value:
    """Unary minus: ``-(a - b + c)`` is ``b - a - c``; ``-a`` alone is no
    address (as in llvm-mc, ``--g`` and ``8-(-g)`` are not either)."""
    added, subtracted, constant = value
    if value is _NO_ADDRESS or (added is not None and subtracted is None):
        return _NO_ADDRESS
    return subtracted, added, -constant


def _sum(left: _Value, right: _Value, sign: int) -> _Value:
    """``left + right`` or ``left - right`` (``sign``): at most one symbol
    added and one subtracted."""
    if left is _NO_ADDRESS or right is _NO_ADDRESS:
        return _NO_ADDRESS
    added, subtracted = right[:2] if sign > 0 else right[1::-1]
    if (left[0] is not None and added is not None) or (left[1] is not None and subtracted is not None):
        return _NO_ADDRESS
    return (
        left[0] if left[0] is not None else added,
        left[1] if left[1] is not None else subtracted,
        left[2] + sign * right[2],
    )


def _fold(tokens: list[tuple[str, int]], text: str, what: str) -> _Value:
    """The expression's value (or :data:`_NO_ADDRESS`), folded term by term
    as llvm-mc folds it (``+`` and ``-`` left to right, signs on the term
    they precede); checks the grammar. Iterative, so that deep parentheses cannot exhaust the stack:
    an open parenthesis keeps what stands before it on ``outer``."""
    total: _Value | None = None  # the value so far of the innermost open group
    binary, signs = "+", []  # the operator before the next term, and its unary signs
    outer: list[tuple[_Value | None, str, list[str], int]] = []
    operand, previous = True, None  # operand: a term is expected next
    for token, at in tokens:
        if operand and token in ("+", "-"):
            signs.append(token)
        elif operand and token == "(":
            outer.append((total, binary, signs, at))
            total, binary, signs = None, "+", []
        elif operand and token != ")":
            number = token[0].isdigit() and not _LOCAL_LABEL.fullmatch(token)  # ``1b`` got here as a label
            term = (None, None, _number(token)) if number else (token, None, 0)
            total, operand = _combine(total, binary, signs, term), False
        elif operand:
            raise ParseError(_expected(previous), col=at + 1)
        elif token in ("+", "-"):
            binary, signs, operand = token, [], True
        elif token == ")":
            if not outer:
                raise ParseError("unbalanced ')'", col=at + 1)
            group = total
            total, binary, signs, _ = outer.pop()
            total = _combine(total, binary, signs, group)
        else:
            raise ParseError(f"unexpected {token!r} in {what} {text.strip()!r}", col=at + 1)
        previous = token
    if operand:
        raise ParseError(_expected(previous), col=len(text.rstrip()) + 1)
    if outer:
        raise ParseError("unbalanced '('", col=outer[-1][3] + 1)
    return total


def _combine(total: _Value | None, binary: str, signs: list[str], term: _Value) -> _Value:
    """``total binary signs term``: the signs apply to the term, nearest first."""
    for sign in reversed(signs):
        if sign == "-":
            term = _negated(term)
    return term if total is None else _sum(total, term, -1 if binary == "-" else 1)
