"""Frontends: the only code that knows a language's syntax.

Each frontend module exposes ``parse_units(text, path=None) -> list[Program]``
(a file may hold several units: the functions of a Python file, the blocks of
a hex file, the pairs of an LTL dataset) and optionally ``parse(text)`` for a
single unit. This module maps languages and file extensions to frontends and
loads them lazily, so importing invar stays cheap.

The frontends layer: its packages (``x86``, ``python``, ``java``, ``ltl``)
and the modules they share (``units``, ``effects``, ``locals``, ``nesting``)
import only the ground floor (errors, program) and ``symmetry``; never
encoding, data, tasks, nn, checkpoint, train, audit, alta or cli.
"""

from __future__ import annotations

import importlib
import os

from ..errors import ParseError, UsageError
from ..program import Program

#: language name -> module implementing it
FRONTENDS: dict[str, str] = {
    "x86": "invar.frontends.x86.parse",
    "hex": "invar.frontends.x86.hexblock",
    "python": "invar.frontends.python",
    "java": "invar.frontends.java",
    "ltl": "invar.frontends.ltl",
}

#: file extension -> language
EXTENSIONS: dict[str, str] = {
    ".s": "x86",
    ".S": "x86",
    ".asm": "x86",
    ".hex": "hex",
    ".csv": "hex",  # BHive's files as published: hex,frequency per line
    ".py": "python",
    ".java": "java",
    ".ltl": "ltl",
}

LANGS = tuple(FRONTENDS)


def lang_of(path: str | None, lang: str | None = None) -> str:
    """The language of ``path``: ``lang`` when given, else from the extension."""
    if lang is not None:
        if lang not in FRONTENDS:
            raise UsageError(f"unknown language {lang!r} (choose from {', '.join(LANGS)})", path=path)
        return lang
    if path is None or path == "-":
        raise UsageError("cannot tell the language of standard input; pass --lang", path="<stdin>")
    ext = os.path.splitext(path)[1]
    if ext not in EXTENSIONS:
        raise UsageError(
            f"cannot tell the language from extension {ext or '(none)'!r}; pass --lang "
            f"(known: {', '.join(sorted(EXTENSIONS))})",
            path=path,
        )
    return EXTENSIONS[ext]


def decode(data: bytes, lang: str, path: str | None = None) -> str:
    """The text of a file's bytes, read the way its language reads it.

    Python follows PEP 263: a coding declaration on one of the first two lines
    names the encoding (UTF-8 otherwise), and a UTF-8 byte-order mark is
    dropped. Every other language is UTF-8, a byte-order mark dropped. NUL
    bytes, undecodable bytes and empty input are located ParseErrors."""
    if b"\0" in data:
        at = data.index(b"\0")
        line, col = _position(data, at)
        raise ParseError("binary input (NUL byte); expected text", path=path, line=line, col=col)
    encoding = "utf-8-sig"
    if lang == "python":
        import io
        import tokenize

        try:
            found, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as err:  # an unknown codec, or a cookie that contradicts a BOM
            raise ParseError(str(err).split(" (")[0], path=path, line=1, col=1) from None
        encoding = "utf-8-sig" if found in ("utf-8", "utf-8-sig") else found
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line, col = _position(data, err.start)
        shown = "UTF-8" if encoding == "utf-8-sig" else encoding
        raise ParseError(f"not {shown} (byte 0x{data[err.start]:02x})", path=path, line=line, col=col) from None
    if not text.strip():
        raise ParseError("empty input", path=path, line=1, col=1)
    return text


def _position(data: bytes, at: int) -> tuple[int, int]:
    """1-based (line, column) of byte offset ``at``."""
    return data.count(b"\n", 0, at) + 1, at - (data.rfind(b"\n", 0, at) + 1) + 1


def parse_units(text: str, lang: str, path: str | None = None) -> list[Program]:
    """Parse ``text`` in ``lang`` into its units (at least one, or ParseError)."""
    module = importlib.import_module(FRONTENDS[lang])
    try:
        units = module.parse_units(text, path=path)
    except ParseError as err:
        raise err.located(path)
    if not units:
        raise ParseError("no program found in input", path=path, line=1, col=1)
    return units
