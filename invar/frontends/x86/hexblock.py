"""BHive hex -> :class:`~invar.program.Program`, decoded with capstone.

The bytes are decoded to AT&T text by capstone and parsed like any other
text, so a block has one IR whichever way it arrives. A ``.hex`` file holds one
block per line, optionally as BHive's ``hex,frequency`` CSV rows.

A file is a batch: a bad line (an empty hex field, an odd number of digits, a
character that is not hex, bytes capstone cannot decode, an instruction invar
rejects) is left out and reported as a located error in
:attr:`~invar.frontends.units.Units.skipped`, and every other line still gets
its block. Only a file with no good line raises.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import ParseError
from ...program import Program
from ..units import Units
from .parse import parse

_HEX = re.compile(r"^[0-9a-fA-F]+$")


@lru_cache(maxsize=1)
def _decoder():
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    return md


def disassemble(hexcode: str, *, line: int = 1, col: int = 1) -> list[tuple[str, bytes]]:
    """Decode ``hexcode`` into (AT&T text, bytes) per instruction; errors
    are located at ``line`` and at columns counted from ``col``, where the
    hex starts in its source line."""
    col += len(hexcode) - len(hexcode.lstrip())
    hexcode = hexcode.strip()
    if not hexcode:
        raise _bad("empty hex field", "empty hex field", line, col)
    if not _HEX.match(hexcode):
        bad = next(i for i, c in enumerate(hexcode) if c not in "0123456789abcdefABCDEF")
        raise _bad(f"not a hex string: {hexcode[bad]!r} is not a hex digit", "not hex", line, col + bad)
    if len(hexcode) % 2:
        raise _bad(
            f"an odd number of hex digits ({len(hexcode)}): a byte is two",
            "odd number of hex digits",
            line,
            col + len(hexcode) - 1,
        )
    code = bytes.fromhex(hexcode)
    out, used = [], 0
    for address, size, mnemonic, op_str in _decoder().disasm_lite(code, 0):
        out.append((f"{mnemonic} {op_str}".strip(), code[address : address + size]))
        used = address + size
    if used != len(code):
        raise _bad(f"cannot decode the bytes at offset {used}", "undecodable bytes", line, col + 2 * used)
    return out


def decode(hexcode: str, *, name: str = "block", line: int = 1, col: int = 1) -> Program:
    """The IR of one BHive block given as hex (``line``, ``col``: where the
    hex stands in its file, for errors)."""
    instructions = disassemble(hexcode, line=line, col=col)
    try:
        return parse("\n".join(text for text, _ in instructions), name=name)
    except ParseError as err:
        k = min(max(err.line, 1), len(instructions)) - 1  # the instruction's index
        offset = sum(len(code) for _, code in instructions[:k])
        raise _bad(
            f"capstone produced {instructions[k][0]!r}: {err.message}", "instruction rejected", line, col + 2 * offset
        ) from None


def read_block(source: str, *, name: str, path: str | None = None, line: int = 1) -> Program:
    """One row's block, its hex on ``line`` of ``path`` (the record's ``block``
    hook: the audit reads a hex file a row at a time). ``source`` is the
    row's hex field as it stands from the line's start (spaces and CSV
    quotes included, read by :func:`hex_field`), so an error's column is
    the line's."""
    hexcode, col = hex_field(source)
    try:
        return decode(hexcode, name=name, line=line, col=col)
    except ParseError as err:
        raise err.located(path)


def _bad(message: str, reason: str, line: int, col: int) -> ParseError:
    err = ParseError(message, line=line, col=col)
    err.reason = reason  # type: ignore[attr-defined]  (the skip summary counts by reason)
    return err


def hex_field(code: str) -> tuple[str, int]:
    """The first field of a CSV line (its comment cut off) and its column,
    quotes read as CSV reads them: ``"4801ca",2.5`` holds ``4801ca`` at
    column 2 (spaces around a quoted field are no part of it). A quote left
    open, or text between the closing quote and the comma, keeps the field
    as written up to its first comma, so that it is refused as not hex
    where it stands; what follows the first field is never read."""
    start = len(code) - len(code.lstrip())
    if code[start : start + 1] == '"':
        close = code.find('"', start + 1)
        after = code[close + 1 :].lstrip() if close > 0 else None
        if after is not None and (not after or after[0] == ","):
            inner = code[start + 1 : close]
            return inner.strip(), start + 2 + len(inner) - len(inner.lstrip())
    field = code.split(",", 1)[0]
    return field.strip(), start + 1


def parse_units(text: str, path: str | None = None) -> Units:
    """One block per non-empty line (``hex`` or ``hex,frequency``; a ``#``
    starts a comment, a ``hex``/``code`` header row is skipped). Bad lines are
    in ``skipped``; a file with bad lines only raises the first one's error."""
    units = Units()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        code = raw.split("#", 1)[0]
        if not code.strip():
            continue
        hexcode, col = hex_field(code)
        if hexcode.lower() in ("hex", "code"):
            continue
        try:
            units.append(decode(hexcode, name=f"line{lineno}", line=lineno, col=col))
        except ParseError as err:
            err.source_line = raw
            units.skipped.append(err.located(path))
    if units.skipped and not units:
        first = units.skipped[0]
        if len(units.skipped) > 1:
            first.message += f" (and {len(units.skipped) - 1} more bad lines; no line is a block)"
            first.args = (first.message,)
        raise first
    return units
