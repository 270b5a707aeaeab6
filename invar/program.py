"""The one language-neutral program IR.

Every frontend returns a :class:`Program`; every space, mask and model reads
one. Nothing here knows which language it holds except through the strings in
``Token.view``, ``Token.referent`` and the dependency pairs.

A program is a sequence of :class:`Line` objects. Each line keeps its own
source text, and each :class:`Token` records where in that text it stands, so a
renaming rewrites token spans and a permutation reorders lines, and both render
back to source without a language-specific printer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence


@dataclass(frozen=True, slots=True)
class Token:
    #: surface text exactly as it appears in the line
    text: str
    #: lexical class: ``mnemonic``, ``register``, ``immediate``, ``punct``,
    #: ``name``, ``ap``, ``operator`` … (frontend-defined, for display and encoding)
    kind: str
    #: what the token means to the task apart from its identity, e.g. ``gpr:32``,
    #: ``vec:128``, ``local``, ``param``, ``ap``; fixed tokens use their own text
    view: str
    #: the entity the token names; tokens with equal referents are coreferential.
    #: ``None`` for tokens that name nothing (operators, punctuation, literals)
    referent: str | None
    #: index of the line holding the token
    line: int
    #: offset of the token's first character in ``Line.text``
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class Line:
    #: the line's source text (one instruction, one statement, one formula …)
    text: str
    #: referents (and pseudo-resources such as ``flags``, ``mem``) the line reads
    reads: frozenset[str] = frozenset()
    #: referents (and pseudo-resources) the line writes
    writes: frozenset[str] = frozenset()
    #: the block the line belongs to; only lines of one block are reordered
    #: among themselves (0 for flat programs such as basic blocks). A negative
    #: block marks a line that never moves (a function's ``def`` line, say)
    block: int = 0
    #: nesting depth; a line's body is the run of following lines deeper than
    #: it, and moves with it (0 for flat programs)
    depth: int = 0
    #: 1-based line number in the original input, for error messages
    source_line: int = 0


@dataclass(frozen=True, slots=True)
class Program:
    #: language tag of the frontend that built it: ``x86``, ``python``, ``java``, ``ltl``
    lang: str
    #: the lines in program order
    lines: tuple[Line, ...]
    #: every token, in line order then left to right
    tokens: tuple[Token, ...]
    #: dependency pairs (i, j), i < j: line j must stay after line i. The
    #: dependency order is their transitive closure: a frontend may give every
    #: conflicting pair or any sparser set with the same closure (x86 gives one
    #: of near-linear size; see docs/formats.md)
    deps: tuple[tuple[int, int], ...] = ()
    #: referents that no renaming may touch (implicit operands, user pins …)
    pinned: frozenset[str] = frozenset()
    #: name of the function, method or block (for reports)
    name: str = ""
    #: text placed between rendered lines
    separator: str = "\n"
    #: text rendered before the first and after the last line
    prefix: str = ""
    suffix: str = ""

    # ----------------------------------------------------------------- queries
    @property
    def referents(self) -> tuple[str, ...]:
        """Distinct referents in order of first appearance."""
        seen: dict[str, None] = {}
        for tok in self.tokens:
            if tok.referent is not None:
                seen.setdefault(tok.referent, None)
        return tuple(seen)

    def line_tokens(self, i: int) -> tuple[Token, ...]:
        return tuple(t for t in self.tokens if t.line == i)

    def render(self) -> str:
        return self.prefix + self.separator.join(line.text for line in self.lines) + self.suffix

    # ------------------------------------------------------------ rewritings
    def with_token_texts(self, new_texts: Mapping[int, str]) -> "Program":
        """Return a copy whose token ``k`` reads ``new_texts[k]``; the lines'
        text is rewritten span by span, everything else is kept."""
        if not new_texts:
            return self
        changed_lines = {self.tokens[k].line for k in new_texts}
        tokens = list(self.tokens)
        lines = list(self.lines)
        for li in changed_lines:
            text = lines[li].text
            pieces: list[str] = []
            pos = shift = 0
            for k in self._line_token_indices(li):
                tok = self.tokens[k]
                new = new_texts.get(k)
                if new is None:
                    if shift:
                        tokens[k] = Token(tok.text, tok.kind, tok.view, tok.referent, tok.line, tok.start + shift)
                    continue
                pieces.append(text[pos : tok.start])
                pieces.append(new)
                pos = tok.start + len(tok.text)
                tokens[k] = Token(new, tok.kind, tok.view, tok.referent, tok.line, tok.start + shift)
                shift += len(new) - len(tok.text)
            pieces.append(text[pos:])
            lines[li] = replace(lines[li], text="".join(pieces))
        return replace(self, lines=tuple(lines), tokens=tuple(tokens))

    def _line_token_indices(self, li: int) -> range:
        """Indices of line ``li``'s tokens (tokens are stored in line order)."""
        lo, hi = 0, len(self.tokens)
        while lo < hi:  # first token of line li
            mid = (lo + hi) // 2
            if self.tokens[mid].line < li:
                lo = mid + 1
            else:
                hi = mid
        end = lo
        while end < len(self.tokens) and self.tokens[end].line == li:
            end += 1
        return range(lo, end)

    def reordered(self, order: Sequence[int]) -> "Program":
        """Return the program with its lines in ``order`` (``order[new] = old``).

        Dependencies are carried along; a pair whose lines swap sides is kept as
        written (the caller decides whether an order is allowed)."""
        n = len(self.lines)
        if sorted(order) != list(range(n)):
            raise ValueError(f"not a permutation of {n} lines: {list(order)}")
        new_of = {old: new for new, old in enumerate(order)}
        lines = tuple(self.lines[old] for old in order)
        tokens = sorted((replace(t, line=new_of[t.line]) for t in self.tokens), key=lambda t: (t.line, t.start))
        deps = tuple(sorted((new_of[i], new_of[j]) for i, j in self.deps))
        return replace(self, lines=lines, tokens=tuple(tokens), deps=deps)


def token_spans(
    text: str, pieces: Iterable[tuple[str, str, str, str | None]]
) -> list[tuple[str, str, str, str | None, int]]:
    """Locate successive ``(text, kind, view, referent)`` pieces in ``text``,
    left to right, returning them with their start offsets.

    Frontends that tokenize by structure rather than by scanning use this to
    recover offsets; a piece that cannot be found is a frontend bug."""
    out = []
    pos = 0
    for piece in pieces:
        at = text.find(piece[0], pos)
        if at < 0:
            raise ValueError(f"token {piece[0]!r} not found in {text!r} after offset {pos}")
        out.append((*piece, at))
        pos = at + len(piece[0])
    return out


__all__ = ["Token", "Line", "Program", "token_spans"]
