"""What x86 operands are: the predicates and messages the checks share.

An operand is the dict :func:`invar.frontends.x86.parse._operand` returns:
``kind`` (``reg``, ``mem``, ``imm``, ``target``), ``col`` (its 1-based
column), and per kind ``reg``/``bits``, ``value``, or the address parts.
"""

from __future__ import annotations

import re

from ...errors import ParseError

#: AT&T size suffixes and the operand size they spell, in bits
SUFFIX = {"b": 8, "w": 16, "l": 32, "q": 64}
#: string instructions: family and size letter (movsd and cmpsd are also SSE)
STRING = re.compile(r"^(movs|cmps|lods|stos|scas|ins|outs)([bwlqd])$")


def error(message: str, col: int) -> ParseError:
    """A located error; the caller of the checks adds line and path."""
    return ParseError(message, col=col)


def sized(bits: int) -> str:
    """``an 8-bit``, ``a 16-bit`` …"""
    return f"{'an' if bits == 8 else 'a'} {bits}-bit"


def reg_name(o: dict) -> str:
    """``%eax``."""
    return "%" + o["reg"].name


def is_gpr(o: dict) -> bool:
    """A general-purpose register operand."""
    return o["kind"] == "reg" and o["reg"].cls == "gpr"


def describe(o: dict) -> str:
    """How a message names an operand."""
    if o["kind"] == "imm":
        return "an immediate"
    if o["kind"] in ("mem", "target"):
        return "a memory operand"
    return reg_name(o)


def fixed_memory(o: dict, regs: tuple[str, ...]) -> bool:
    """``(%rsi)``-style: one of ``regs`` as base, no index, no displacement."""
    base = o.get("base")
    return (
        o["kind"] == "mem"
        and base is not None
        and base.name in regs
        and o.get("index") is None
        and o.get("disp") == 0  # None: a symbolic displacement, not none
    )


def matches(pattern: str, o: dict) -> bool:
    """Does operand ``o`` fit ``pattern`` (see :mod:`.general_purpose`)?"""
    kind = o["kind"]
    if pattern == "r":
        return is_gpr(o) and not o.get("indirect")
    if pattern == "m":
        return kind == "mem" and not o.get("vsib") and not o.get("indirect")
    if pattern == "rm":
        return matches("r", o) or matches("m", o)
    if pattern in ("i", "i8", "i16"):
        return kind == "imm"
    if pattern == "cl":
        return kind == "reg" and o["reg"].name == "cl"
    if pattern == "dx":
        return kind == "reg" and o["reg"].name == "dx"
    if pattern == "a":
        return is_gpr(o) and o["reg"].base == "a" and not o["reg"].high_byte
    if pattern in ("seg", "ctrl", "dbg"):
        return kind == "reg" and o["reg"].cls == pattern
    if pattern == "tgt":
        return kind == "target"
    if pattern == "*rm":
        return bool(o.get("indirect")) and (kind in ("mem", "target") or is_gpr(o))
    raise AssertionError(pattern)
