"""Java's lexical tokens, read from the text alone (JLS 3).

Both parser paths tokenize a file their own way (javalang splits nothing,
tree-sitter splits ``>>`` in ``List<List<T>>``; only identifiers and brackets
are guaranteed to agree), so the tokens a program carries besides its names
are read here, from the source text, one way for both paths: identifiers and
keywords, numbers (decimal, hex, octal, binary, underscores, exponents,
hexadecimal floating point, ``L``/``F``/``D`` suffixes), string and character
literals and text blocks (each one token, escapes included as written),
operators and separators by longest match, JLS style (``>>`` is one token even
where it closes two type arguments). Whitespace and comments are skipped.
Nothing here fails: an unterminated literal or comment ends at the end of its
line (of the text, for a comment or a text block), and a character that
starts no token is a token of its own of kind ``other``.

Kinds follow the Python frontend's: ``keyword`` (reserved words, and the
literals ``true``, ``false``, ``null``), ``identifier``, ``number``, ``string``
(character literals and text blocks included), ``operator`` (separators
included).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left

from .syntax import KEYWORDS

#: words that are never identifiers: reserved words and the literals spelled as words
RESERVED = KEYWORDS | {"true", "false", "null"}

_OPERATORS = sorted(
    """>>>= <<= >>= >>> ... -> :: ++ -- && || == != <= >= += -= *= /= &= |= ^= %= << >>
    = > < ! ~ ? : + - * / & | ^ % @ ( ) { } [ ] ; , .""".split(),
    key=len,
    reverse=True,
)
_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\f\r\n]+)
  | (?P<comment>//[^\n]*|/\*[\s\S]*?(?:\*/|\Z))
  | (?P<textblock>\"\"\"[ \t\f\r]*\n(?:[^"\\]|\\[\s\S]|"(?!""))*(?:\"\"\"|\Z))
  | (?P<string>"(?:[^"\\\n]|\\[^\n])*"?|'(?:[^'\\\n]|\\[^\n])*'?)
  | (?P<number>
        0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?[fFdDlL]?
      | 0[bB][01_]+[lL]?
      | (?:[0-9][0-9_]*(?:\.(?![.])[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?[fFdDlL]?
    )
  | (?P<word>(?:[^\W\d]|\$)(?:\w|\$)*)
  | (?P<operator>"""
    + "|".join(re.escape(op) for op in _OPERATORS)
    + r""")
    """,
    re.VERBOSE,
)
_START_CATEGORIES = {"Sc", "Pc", "Nl"}
_PART_CATEGORIES = _START_CATEGORIES | {"Mn", "Mc", "Nd", "Cf"}


def _part(c: str) -> bool:
    return c.isalnum() or c in "_$" or unicodedata.category(c) in _PART_CATEGORIES


def lexemes(text: str) -> list[tuple[int, str, str]]:
    """Every token of ``text`` but whitespace and comments, in order, as
    ``(offset, text, kind)`` with the offset in characters from the start of
    ``text``."""
    out: list[tuple[int, str, str]] = []
    pos, n = 0, len(text)
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos)
        group = m.lastgroup if m else None
        if group is None:
            c = text[pos]
            if c.isalpha() or unicodedata.category(c) in _START_CATEGORIES:
                group, end = "word", pos + 1
            else:
                out.append((pos, c, "other"))
                pos += 1
                continue
        else:
            end = m.end()
        if group == "word":
            while end < n and _part(text[end]):
                end += 1
            word = text[pos:end]
            out.append((pos, word, "keyword" if word in RESERVED else "identifier"))
        elif group in ("string", "textblock"):
            out.append((pos, text[pos:end], "string"))
        elif group in ("number", "operator"):
            out.append((pos, text[pos:end], group))
        pos = end
    return out


class Lexemes:
    """The lexemes of a file (its lines joined by ``\\n``), with the offset
    of each line's first character, read on first use."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._lexemes: list[tuple[int, str, str]] | None = None
        self._starts: list[int] = []
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        #: offset of each line's first character (``line_starts[0]`` is line 1)
        self.line_starts = starts

    def between(self, lo: int, hi: int) -> list[tuple[int, str, str]]:
        """The lexemes that start at offsets ``lo`` to ``hi - 1``."""
        if self._lexemes is None:
            self._lexemes = lexemes("\n".join(self.lines))
            self._starts = [at for at, _, _ in self._lexemes]
        return self._lexemes[bisect_left(self._starts, lo) : bisect_left(self._starts, hi)]


__all__ = ["lexemes", "Lexemes", "RESERVED"]
