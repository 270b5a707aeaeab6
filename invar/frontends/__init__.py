"""Frontends: the only code that knows a language's syntax.

Each language has one :class:`~invar.frontends.registry.Frontend` record in
:data:`REGISTRY` (:mod:`.registry`): its name, file extensions, the module
that reads it, its renaming rules, how a renamed name is spelled, and the
few facts of its syntax the layers above need. Those layers ask the record,
never the language's name. Records hold module paths, so importing invar
imports no frontend; this module loads them when a file is read.

**A frontend's face.** Each package (``x86``, ``python``, ``java``,
``ltl``) exports the same names, where the language has them:
``LANG`` (its record's name), ``parse_units(text, path=None)`` (a file's
units: the functions of a Python file, the blocks of an assembly file, the
pairs of an LTL file; at least one, else ParseError; units left out in
``skipped``), ``parse(text)`` (one unit), ``renaming_space(program, *,
pool=None, pins=())`` and ``canonical_space(program, *, pins=())`` (the
renaming rules; the first renaming of the canonical space is the canonical
form), and its record's hooks (x86: ``spell``, ``read_block``, ``decode``
for BHive hex; Python: ``encoding_of``; Java: ``standalone``). Its
submodules hold the code; the face only re-exports. A new language is a
new package with that face and one record in :data:`REGISTRY`.

The frontends layer: its packages and the modules they share (``registry``,
``units``, ``effects``, ``locals``, ``nesting``) import only the ground
floor (errors, program) and ``symmetry``; never encoding, data, tasks, nn,
checkpoint, train, audit, alta or cli.
"""

from __future__ import annotations

import importlib
import os

from ..errors import NoUnitError, ParseError, UsageError
from .registry import HEX, JAVA, LTL, PYTHON, REGISTRY, UNREAD, X86, Frontend, frontend_of
from .units import Units

#: language name -> the module that reads it (from :data:`REGISTRY`)
FRONTENDS: dict[str, str] = {f.name: f.reader for f in REGISTRY.values()}

#: file extension -> language (from :data:`REGISTRY`)
EXTENSIONS: dict[str, str] = {ext: f.name for f in REGISTRY.values() for ext in f.extensions}

LANGS = tuple(FRONTENDS)


def language(lang: str) -> str:
    """The language named ``lang`` (any case: ``X86``, ``Python``), or a usage error naming them."""
    if lang.lower() not in FRONTENDS:
        raise UsageError(f"--lang {lang!r}: unknown language (choose from {', '.join(LANGS)})", path="--lang")
    return lang.lower()


def lang_of(path: str | None, lang: str | None = None) -> str:
    """The language of ``path``: ``lang`` when given, else from the extension."""
    if lang is not None:
        return language(lang)
    if path is None or path == "-":
        raise UsageError(
            "cannot tell the language of standard input or of text without a path; pass --lang (lang= in Python)",
            path="<stdin>",
        )
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

    A language whose record has an ``encoding`` hook names its codec (Python
    follows PEP 263: :func:`invar.frontends.python.source.encoding_of`);
    every other language is UTF-8, a byte-order mark dropped. NUL
    bytes, undecodable bytes and empty input are located ParseErrors."""
    if b"\0" in data:
        at = data.index(b"\0")
        line, col = _position(data, at)
        raise ParseError("binary input (NUL byte); expected text", path=path, line=line, col=col)
    record = frontend_of(lang)
    encoding = record.hook("encoding")(data, path) if record.encoding else "utf-8-sig"
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


def parse_units(text: str, lang: str, path: str | None = None) -> Units:
    """Parse ``text`` in ``lang`` into its units (at least one, or
    ParseError), with the error of each unit left out in ``.skipped``."""
    module = importlib.import_module(FRONTENDS[lang])
    try:
        units = module.parse_units(text, path=path)
    except ParseError as err:
        raise err.located(path)
    if not units:
        raise NoUnitError("no program found in input", path=path, line=1, col=1)
    return units


__all__ = [
    "Frontend",
    "REGISTRY",
    "UNREAD",
    "frontend_of",
    "X86",
    "HEX",
    "PYTHON",
    "JAVA",
    "LTL",
    "FRONTENDS",
    "EXTENSIONS",
    "LANGS",
    "lang_of",
    "decode",
    "parse_units",
]
