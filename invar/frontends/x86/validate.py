"""Which x86-64 instructions invar accepts.

Every instruction is checked before any analysis, so that a renaming or a
reordering is only ever computed for an instruction a CPU would run as its text
says. An invalid one is a :class:`~invar.errors.ParseError` located at the
offending operand, prefix or mnemonic. docs/formats.md lists the rules and
their limits; in short:

* **General-purpose integer instructions** (the table
  :data:`~.general_purpose.GP`) are checked
  exactly: arity, the kind of every operand (register, memory, immediate,
  fixed registers such as ``%cl`` and ``%dx``), register widths against each
  other and against the size suffix, immediate ranges, and the operand size
  when nothing spells it. String instructions, ``movabs`` and ``xlat`` accept
  only their fixed operands.
* **Every instruction**: at most one memory operand (string instructions
  aside), immediates only before the other operands, ``%ah``-style registers
  never beside a register or operand size that needs a REX prefix, address
  registers of one width, ``%rip`` without index, displacements in 32 bits,
  AVX-512 decorators (a write mask on the destination only and never
  ``%k0``, ``{z}`` only with a write mask and a register destination,
  broadcasts on memory only, gathers and scatters masked), vector registers
  16–31 and ``%zmm`` only in VEX/EVEX (``v…``) instructions, and prefixes
  only where they mean something (``lock`` on a read-modify-write of memory,
  ``rep`` on string instructions, ``rep ret``, ``rep nop``).
* **x87 on memory**: the size suffix where the instruction has several
  sizes (``flds``, ``fildll``; not ``fld``).

The rules live in :mod:`.general_purpose`, :mod:`.vector` and
:mod:`.prefixes`; this module applies them in order, with the checks of
addresses and registers every instruction shares.
"""

from __future__ import annotations

from .general_purpose import GP, check_instruction, general_purpose, gp_name
from .operands import error, is_gpr, reg_name
from .prefixes import PREFIXES, SEGMENT_WORDS, check_prefixes, segment_prefix
from .vector import VEX_ONLY, check_decorators, check_generic

__all__ = ["check", "general_purpose", "segment_prefix", "PREFIXES", "SEGMENT_WORDS", "GP", "VEX_ONLY"]

#: x87 instructions that read or write memory of several sizes: the suffixes that say which
#: (AT&T: s 32-bit real or 16-bit integer, l 64-bit real or 32-bit integer, t 80-bit real, ll 64-bit integer)
_X87_SIZES = {
    **{m: "s l t" for m in ("fld", "fstp")},
    **{m: "s l" for m in ("fst", "fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr", "fcom", "fcomp")},
    **{m: "s l ll" for m in ("fild", "fistp", "fisttp")},
    **{m: "s l" for m in ("fist", "fiadd", "fisub", "fisubr", "fimul", "fidiv", "fidivr", "ficom", "ficomp")},
}

#: instructions that do not exist in 64-bit mode
_INVALID_64 = frozenset(
    """aaa aad aam aas daa das into bound pusha pushal pushaw popa popal popaw pushad popad les lds
    salc arpl jcxz""".split()
)


def check(
    mnemonic: str, base: str, prefixes: list[tuple[str, int]], operands: list[dict], rounding: list[dict], col: int
) -> None:
    """Raise a located :class:`ParseError` unless the instruction is valid.

    ``prefixes`` are (prefix, column) pairs, ``operands`` the parsed operands
    (see :func:`invar.frontends.x86.parse._operand`), ``rounding`` the
    ``{rn-sae}``-style operands, ``col`` the mnemonic's column."""
    if base in _INVALID_64 or mnemonic in _INVALID_64:
        raise error(f"{mnemonic!r} is not valid in 64-bit mode", col)
    for o in operands:
        if o.get("indirect") and not (base in ("jmp", "call") or mnemonic in ("ljmp", "lcall")):
            raise error(f"'*' marks an indirect jump or call, not an operand of {mnemonic!r}", o["col"])
        if o["kind"] == "mem":
            _check_memory(mnemonic, o)
    _check_registers(mnemonic, operands)
    _check_x87_size(mnemonic, base, operands, col)
    if not check_instruction(mnemonic, base, operands, col):
        check_generic(mnemonic, base, operands, col)
    check_decorators(mnemonic, base, operands, rounding)
    _check_high_byte(mnemonic, base, operands, col)
    check_prefixes(mnemonic, base, prefixes, operands)


def _check_x87_size(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    """An x87 instruction on memory of several possible sizes spells the size (``flds``, not ``fld``)."""
    sizes = _X87_SIZES.get(base)
    if sizes and mnemonic.lower() == base and any(o["kind"] == "mem" for o in operands):
        spelled = ", ".join(base + suffix for suffix in sizes.split())
        raise error(f"{mnemonic!r} on memory needs a size suffix ({spelled})", col)


def _check_memory(mnemonic: str, o: dict) -> None:
    base, index = o.get("base"), o.get("index")
    if base is not None and base.cls == "ip" and index is not None:
        raise error("a %rip-relative address takes no index register", o["col"])
    if base is not None and index is not None and index.cls == "gpr" and base.width != index.width:
        raise error(f"address registers %{base.name} and %{index.name} differ in width", o["col"])
    disp = o.get("disp")
    if disp is None or disp == 0:
        return
    where = o["disp_text"]
    if o.get("absolute"):
        if not mnemonic.startswith("movabs") and not -(1 << 31) <= disp < 1 << 31:
            raise error(
                f"absolute address {where} does not fit in 32 bits "
                f"(only movabs with the accumulator takes a 64-bit address)",
                o["col"],
            )
        return
    address = base if base is not None else index
    high = 1 << 32 if address is not None and address.width == "32" else 1 << 31
    if not -(1 << 31) <= disp < high:
        raise error(f"displacement {where} does not fit in 32 bits", o["col"])


def _check_registers(mnemonic: str, operands: list[dict]) -> None:
    evex_capable = mnemonic.startswith("v")
    for o in operands:
        if o["kind"] == "mem" and o.get("vsib") and "gather" not in mnemonic and "scatter" not in mnemonic:
            raise error(f"a vector index register is only valid in gathers and scatters, not {mnemonic!r}", o["col"])
        regs = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
        for reg in regs:
            if reg.cls == "vec" and (int(reg.base) >= 16 or reg.width == "512") and not evex_capable:
                raise error(f"%{reg.name} needs an AVX-512 (EVEX) instruction, not {mnemonic!r}", o["col"])
            if reg.cls == "mask" and not mnemonic.startswith(("k", "v")):
                raise error(f"mask register %{reg.name} is not an operand of {mnemonic!r}", o["col"])


def _check_high_byte(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    high = [o for o in operands if o["kind"] == "reg" and o["reg"].high_byte]
    if not high:
        return
    name = reg_name(high[0])
    for o in operands:
        regs = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
        for reg in regs:
            if reg.needs_rex:
                raise error(f"{name} cannot be used in an instruction that needs a REX prefix (%{reg.name})", o["col"])
    gp = gp_name(mnemonic)
    wide = (
        mnemonic in ("movzbq", "movsbq")
        or (gp is not None and gp[1] == "q")
        or any(is_gpr(o) and o["bits"] == 64 for o in operands)
    )
    if wide:
        raise error(f"{name} cannot be used with a 64-bit operand size (it needs a REX prefix)", high[0]["col"])
