"""Frontends: the only code that knows a language's syntax.

Each frontend module exposes ``parse_units(text, path=None) -> list[Program]``
(a file may hold several units: the functions of a Python file, the blocks of
a hex file, the pairs of an LTL dataset) and optionally ``parse(text)`` for a
single unit. This module maps languages and file extensions to frontends and
loads them lazily, so importing invar stays cheap.
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
