"""BHive hex -> :class:`~invar.program.Program`, decoded with capstone.

The bytes are decoded to AT&T text by capstone and parsed like any other
text, so a block has one IR whichever way it arrives. A ``.hex`` file holds one
block per line, optionally as BHive's ``hex,frequency`` CSV rows.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import ParseError
from ...program import Program
from .parse import parse

_HEX = re.compile(r"^[0-9a-fA-F]+$")


@lru_cache(maxsize=1)
def _decoder():
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    return md


def disassemble(hexcode: str, *, line: int = 1) -> list[tuple[str, bytes]]:
    """Decode ``hexcode`` into (AT&T text, bytes) per instruction."""
    hexcode = hexcode.strip()
    if not _HEX.match(hexcode) or len(hexcode) % 2:
        bad = next((i for i, c in enumerate(hexcode) if c not in "0123456789abcdefABCDEF"), len(hexcode) - 1)
        raise ParseError("not an even-length hex string", line=line, col=bad + 1)
    code = bytes.fromhex(hexcode)
    out, used = [], 0
    for address, size, mnemonic, op_str in _decoder().disasm_lite(code, 0):
        out.append((f"{mnemonic} {op_str}".strip(), code[address : address + size]))
        used = address + size
    if used != len(code):
        raise ParseError(f"cannot decode the bytes at offset {used}", line=line, col=2 * used + 1)
    return out


def decode(hexcode: str, *, name: str = "block", line: int = 1) -> Program:
    """The IR of one BHive block given as hex."""
    instructions = disassemble(hexcode, line=line)
    try:
        return parse("\n".join(text for text, _ in instructions), name=name)
    except ParseError as err:
        raise ParseError(f"capstone produced {err.source_line!r}: {err.message}", line=line, col=1)


def parse_units(text: str, path: str | None = None) -> list[Program]:
    """One block per non-empty line (``hex`` or ``hex,frequency``)."""
    units = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        row = raw.split("#", 1)[0].strip()
        if not row:
            continue
        hexcode = row.split(",", 1)[0].strip()
        units.append(decode(hexcode, name=f"line{lineno}", line=lineno))
    return units
