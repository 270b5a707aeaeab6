"""How the bytes of a Python file are read: PEP 263.

A coding declaration on one of the first two lines names the encoding
(UTF-8 otherwise), and a UTF-8 byte-order mark is dropped.
"""

from __future__ import annotations

import io
import tokenize

from ...errors import ParseError


def encoding_of(data: bytes, path: str | None = None) -> str:
    """The codec that decodes ``data`` (``utf-8-sig`` for UTF-8, so that a
    byte-order mark is dropped); a located ParseError for an unknown codec
    or a declaration that contradicts a byte-order mark."""
    try:
        found, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:  # an unknown codec, or a cookie that contradicts a BOM
        raise ParseError(str(err).split(" (")[0], path=path, line=1, col=1) from None
    return "utf-8-sig" if found in ("utf-8", "utf-8-sig") else found
