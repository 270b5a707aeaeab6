"""LTL formulas: one AST, two syntaxes (infix and Polish), exact round trips.

The infix syntax is spot's (``G(a -> F b)``, ``a U b``); the Polish syntax is
the one of the DeepLTL datasets (``&aXb``: one character per token, single
lowercase letters as atomic propositions), also accepted with tokens separated
by spaces (``& req_1 X b``) so that multi-character APs fit. Both parsers return
the same :class:`Formula` and the lexemes they read, with their offsets, so the
frontend can turn each AP occurrence into an IR token.

Round trips: ``parse(to_infix(f)) == f`` and ``parse(to_polish(f)) == f`` for
every formula, and printing a parsed canonical text gives the text back
(canonical = what the printers write; see docs/formats.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Literal, Sequence

from ...errors import ParseError

#: operator arities by canonical (infix) symbol
UNARY = ("!", "X", "F", "G")
BINARY = ("&", "|", "->", "<->", "xor", "U", "R", "W", "M")
TEMPORAL = frozenset({"X", "F", "G", "U", "R", "W", "M"})
CONSTANTS = ("1", "0")

#: canonical symbol -> Polish symbol (DeepLTL's "network" notation, ``^`` for xor)
POLISH_OF = {"->": ">", "<->": "=", "xor": "^"}
#: every symbol the Polish parser reads -> canonical symbol
_POLISH_OPS = {
    **{op: op for op in UNARY + BINARY},
    ">": "->",
    "=": "<->",
    "^": "xor",
    "1": "1",
    "0": "0",
    "true": "1",
    "false": "0",
}
#: keywords that can never be AP names
KEYWORDS = frozenset({"true", "false", "xor"})

_AP_RE = re.compile(r"[a-z_][A-Za-z0-9_]*")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Syntax = Literal["auto", "infix", "polish"]


@dataclass(frozen=True, slots=True)
class Formula:
    """One node of an LTL formula; formulas are immutable and hashable."""

    #: canonical operator symbol (``!``, ``&``, ``U`` …), ``ap`` or a constant ``1``/``0``
    op: str
    #: operands, left to right (empty for APs and constants)
    args: tuple["Formula", ...] = ()
    #: the AP's name (empty for every other node)
    name: str = ""
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # formulas are hashed constantly by the checker's memo tables
        object.__setattr__(self, "_hash", hash((self.op, self.args, self.name)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # iterative: the generated comparison recurses once per level of nesting
        if self is other:
            return True
        if not isinstance(other, Formula):
            return NotImplemented
        pairs = [(self, other)]
        while pairs:
            x, y = pairs.pop()
            if x is y:
                continue
            if x._hash != y._hash or x.op != y.op or x.name != y.name or len(x.args) != len(y.args):
                return False
            pairs.extend(zip(x.args, y.args))
        return True

    def __repr__(self) -> str:
        # the generated repr recurses too; the infix text says the same
        return f"Formula({to_infix(self)!r})"

    @property
    def size(self) -> int:
        """Number of nodes (APs, constants and operators): DeepLTL's formula size."""
        return sum(1 for _ in self.walk())

    def walk(self) -> Iterator["Formula"]:
        """Nodes in Polish (pre-)order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.args))

    def aps(self) -> tuple[str, ...]:
        """Distinct AP names in order of first appearance."""
        return tuple(dict.fromkeys(n.name for n in self.walk() if n.op == "ap"))

    @property
    def is_propositional(self) -> bool:
        return not any(n.op in TEMPORAL for n in self.walk())

    def __str__(self) -> str:
        return to_infix(self)


def ap(name: str) -> Formula:
    return Formula("ap", (), name)


TRUE = Formula("1")
FALSE = Formula("0")


def op(symbol: str, *args: Formula) -> Formula:
    """Build an operator node (``op("U", a, b)``)."""
    return Formula(symbol, tuple(args))


@dataclass(frozen=True, slots=True)
class Lexeme:
    """A token of formula or trace text, as the IR will show it."""

    #: the text exactly as written
    text: str
    #: ``ap``, ``constant``, ``operator``, ``paren`` or ``delimiter``
    kind: str
    #: offset of the first character in the parsed text
    start: int


# ------------------------------------------------------------------ parsing
def parse_formula(text: str, syntax: Syntax = "auto") -> Formula:
    """Parse ``text`` as a formula (infix, Polish, or whichever fits)."""
    return lex_formula(text, syntax)[0]


def lex_formula(text: str, syntax: Syntax = "auto") -> tuple[Formula, list[Lexeme], str]:
    """Parse ``text`` and also return its lexemes and the syntax it was read in.

    ``auto`` tries Polish first: every Polish formula that is also valid infix
    (``a``, ``Ga``, ``! a``) means the same thing in both, so the order only
    matters for the error message, which is the infix one unless the text
    starts with a binary operator (something only Polish does)."""
    if syntax == "polish":
        return (*_parse_polish(text), "polish")
    if syntax == "infix":
        return (*_parse_infix(text), "infix")
    try:
        return (*_parse_polish(text), "polish")
    except ParseError as polish_error:
        if _looks_polish(text):
            raise polish_error
        return (*_parse_infix(text), "infix")


def _looks_polish(text: str) -> bool:
    """Text that starts with a binary operator, which only Polish notation does."""
    words = text.split()
    if not words:
        return False
    first = words[0]
    return (
        first[0] in "&|>=^"
        or first in ("U", "R", "W", "M", "->", "<->", "xor")
        or (len(words) == 1 and first[0] in "UWRM")
    )


def _error(message: str, text: str, col: int) -> ParseError:
    return ParseError(message, line=1, col=col + 1, source_line=text)


def _polish_lexemes(text: str) -> list[Lexeme]:
    stripped = text.strip()
    if not stripped:
        raise _error("empty formula", text, 0)
    out: list[Lexeme] = []
    if not any(c.isspace() for c in stripped):
        # compact: one character per token
        base = text.index(stripped)
        for i, c in enumerate(stripped):
            at = base + i
            if c in _POLISH_OPS:
                out.append(Lexeme(c, "constant" if c in CONSTANTS else "operator", at))
            elif "a" <= c <= "z":
                out.append(Lexeme(c, "ap", at))
            else:
                raise _error(f"unknown operator {c!r} in Polish notation", text, at)
        return out
    for m in re.finditer(r"\S+", text):
        word, at = m.group(), m.start()
        if word in _POLISH_OPS:
            canonical = _POLISH_OPS[word]
            out.append(Lexeme(word, "constant" if canonical in CONSTANTS else "operator", at))
        elif _AP_RE.fullmatch(word) and word not in KEYWORDS:
            out.append(Lexeme(word, "ap", at))
        else:
            raise _error(f"unknown operator {word!r} in Polish notation", text, at)
    return out


def _parse_polish(text: str) -> tuple[Formula, list[Lexeme]]:
    lexemes = _polish_lexemes(text)
    # iterative, so that deep formulas never hit the recursion limit:
    # each stack entry is (operator, operands collected so far)
    stack: list[tuple[str, list[Formula]]] = []
    result: Formula | None = None
    for k, lx in enumerate(lexemes):
        if result is not None:
            raise _error(f"unexpected {lx.text!r} after a complete formula", text, lx.start)
        if lx.kind == "ap":
            node: Formula | None = ap(lx.text)
        elif lx.kind == "constant":
            node = Formula(_POLISH_OPS[lx.text])
        else:
            stack.append((_POLISH_OPS[lx.text], []))
            continue
        while node is not None:
            if not stack:
                result, node = node, None
                break
            symbol, operands = stack[-1]
            operands.append(node)
            if len(operands) == (1 if symbol in UNARY else 2):
                stack.pop()
                node = Formula(symbol, tuple(operands))
            else:
                node = None
    if result is None:
        end = len(text.rstrip())
        raise _error("incomplete formula: an operator is missing an operand", text, end)
    return result, lexemes


# infix: precedence levels, loosest first; every level but the unary one is binary
_LEVELS: tuple[tuple[str, ...], ...] = (("<->", "xor"), ("->",), ("|",), ("&",), ("U", "R", "W", "M"))
_PREC = {symbol: level for level, symbols in enumerate(_LEVELS) for symbol in symbols}
_RIGHT_ASSOC = frozenset({"->", "U", "R", "W", "M"})
_UNARY_PREC = len(_LEVELS)


def _infix_lexemes(text: str) -> list[Lexeme]:
    out: list[Lexeme] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append(Lexeme(c, "paren", i))
            i += 1
        elif c in "!&|":
            out.append(Lexeme(c, "operator", i))
            i += 1
        elif text.startswith("->", i):
            out.append(Lexeme("->", "operator", i))
            i += 2
        elif text.startswith("<->", i):
            out.append(Lexeme("<->", "operator", i))
            i += 3
        elif c in "10" and not (i + 1 < n and text[i + 1].isalnum()):
            out.append(Lexeme(c, "constant", i))
            i += 1
        elif word := _ident(text, i):  # ASCII only: an AP is [A-Za-z_][A-Za-z0-9_]*
            out.extend(_split_word(word, i, text))
            i += len(word)
        else:
            raise _error(f"unknown operator {c!r}", text, i)
    return out


def _ident(text: str, i: int) -> str:
    """The identifier that starts at ``i`` (empty where none does)."""
    m = _IDENT_RE.match(text, i)
    return m.group() if m else ""


def _split_word(word: str, at: int, text: str) -> list[Lexeme]:
    """An identifier is an AP, a keyword, a binary temporal operator, or a run
    of unary operators glued to what follows (``GFa``, ``Fb``, ``XX``)."""
    if word in ("true", "false"):
        return [Lexeme(word, "constant", at)]
    if word == "xor":
        return [Lexeme(word, "operator", at)]
    if word[0].islower() or word[0] == "_":
        return [Lexeme(word, "ap", at)]
    if word in ("U", "R", "W", "M"):
        return [Lexeme(word, "operator", at)]
    k = 0
    while k < len(word) and word[k] in "XFG":
        k += 1
    rest = word[k:]
    if k == 0 or (rest and not (rest[0].islower() or rest[0] == "_")) or rest in KEYWORDS:
        raise _error(f"unknown operator {word!r}", text, at)
    out = [Lexeme(word[j], "operator", at + j) for j in range(k)]
    if rest:
        out.append(Lexeme(rest, "ap", at + k))
    return out


def _parse_infix(text: str) -> tuple[Formula, list[Lexeme]]:
    """Operator precedence over :data:`_LEVELS` with explicit stacks (no
    recursion, so nesting depth is bounded by memory, not the call stack).

    ``pending`` holds unary operators, binary operators and open parentheses
    whose operands are not complete yet; ``operands`` the finished subformulas."""
    lexemes = _infix_lexemes(text)
    if not lexemes:
        raise _error("empty formula", text, 0)
    operands: list[Formula] = []
    pending: list[Lexeme] = []
    open_parens = 0

    def reduce() -> None:
        lx = pending.pop()
        if lx.text in UNARY:
            operands.append(Formula(lx.text, (operands.pop(),)))
        else:
            right = operands.pop()
            operands.append(Formula(lx.text, (operands.pop(), right)))

    want_operand = True
    for lx in lexemes:
        if want_operand:
            if lx.kind == "operator" and lx.text in UNARY:
                pending.append(lx)
            elif lx.kind == "ap":
                operands.append(ap(lx.text))
                want_operand = False
            elif lx.kind == "constant":
                operands.append(Formula(_POLISH_OPS.get(lx.text, lx.text)))
                want_operand = False
            elif lx.text == "(":
                pending.append(lx)
                open_parens += 1
            elif lx.text == ")":
                raise _error("unbalanced parenthesis: ')' without '('", text, lx.start)
            else:
                raise _error(f"expected an operand, found {lx.text!r}", text, lx.start)
        elif lx.kind == "operator" and lx.text in _PREC:
            level = _PREC[lx.text]
            left_assoc = lx.text not in _RIGHT_ASSOC
            while pending and pending[-1].text != "(":
                top = pending[-1].text
                top_level = _PREC.get(top, _UNARY_PREC)
                if top_level > level or (top_level == level and left_assoc):
                    reduce()
                else:
                    break
            pending.append(lx)
            want_operand = True
        elif lx.text == ")":
            if not open_parens:
                raise _error("unbalanced parenthesis: ')' without '('", text, lx.start)
            while pending[-1].text != "(":
                reduce()
            pending.pop()
            open_parens -= 1
        elif open_parens:
            raise _error(f"expected ')' or a binary operator, found {lx.text!r}", text, lx.start)
        else:
            raise _error(f"unexpected {lx.text!r} after a complete formula", text, lx.start)
    if want_operand:
        raise _error("expected an operand, found the end of the formula", text, len(text.rstrip()))
    while pending:
        if pending[-1].text == "(":
            raise _error("unbalanced parenthesis: '(' is never closed", text, pending[-1].start)
        reduce()
    (result,) = operands
    return result, lexemes


# ----------------------------------------------------------------- printing
def to_polish(formula: Formula, spaced: bool | None = None) -> str:
    """Polish notation; compact (``&aXb``) when every AP is a single lowercase
    letter and ``spaced`` is not forced, space-separated otherwise."""
    nodes = list(formula.walk())
    if spaced is None:
        spaced = any(n.op == "ap" and not ("a" <= n.name <= "z" and len(n.name) == 1) for n in nodes)
    words = [n.name if n.op == "ap" else POLISH_OF.get(n.op, n.op) for n in nodes]
    return (" " if spaced else "").join(words)


def to_infix(formula: Formula) -> str:
    """spot-style infix with the fewest parentheses that parse back to ``formula``."""
    return _infix(formula)


def _infix(formula: Formula) -> str:
    # an explicit stack of nodes still to print and text already decided,
    # so that deep formulas print without recursion
    out: list[str] = []
    todo: list[Formula | str] = [formula]
    while todo:
        f = todo.pop()
        if isinstance(f, str):
            out.append(f)
        elif f.op == "ap":
            out.append(f.name)
        elif f.op in CONSTANTS:
            out.append(f.op)
        elif f.op in UNARY:
            inner = f.args[0]
            if inner.op in BINARY:
                todo += [")", inner]
                out.append(f"{f.op}(")
            else:
                # "!a", "!X a" but "X a", "G F a": a letter operator needs a space before a name
                todo.append(inner)
                out.append(f.op if f.op == "!" else f"{f.op} ")
        else:
            left, right = f.args
            level = _PREC[f.op]
            left_parens = _needs_parens(left, level, f.op, side="left")
            right_parens = _needs_parens(right, level, f.op, side="right")
            todo += [")", right, f" {f.op} ("] if right_parens else [right, f" {f.op} "]
            todo += [")", left, "("] if left_parens else [left]
    return "".join(out)


def _needs_parens(child: Formula, level: int, parent: str, side: str) -> bool:
    if child.op not in BINARY:
        return False
    child_level = _PREC[child.op]
    if child_level != level:
        return child_level < level
    if child.op != parent:
        return True
    # same operator: only the side its associativity leans to goes bare
    return side == ("left" if parent in _RIGHT_ASSOC else "right")


def negate(formula: Formula) -> Formula:
    return Formula("!", (formula,))


def conj(literals: Sequence[Formula]) -> Formula:
    """Left-nested conjunction (``1`` when empty), as traces write a step."""
    if not literals:
        return TRUE
    out = literals[0]
    for lit in literals[1:]:
        out = Formula("&", (out, lit))
    return out


__all__ = [
    "Formula",
    "Lexeme",
    "TRUE",
    "FALSE",
    "ap",
    "op",
    "negate",
    "conj",
    "parse_formula",
    "lex_formula",
    "to_polish",
    "to_infix",
    "UNARY",
    "BINARY",
    "TEMPORAL",
    "KEYWORDS",
]
