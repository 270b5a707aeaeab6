"""The x86-64 register file: names, base registers (referents), views.

Every register name maps to a :class:`Reg`: its referent (the base register it
aliases: ``%al``, ``%ah``, ``%ax``, ``%eax`` and ``%rax`` are all ``gpr:a``) and
its view (what it is apart from identity: ``gpr:32``, ``gpr:8h``, ``vec:256`` …).
A renaming may only move a referent to another base of the same class whose
spelling exists for every view it is used with; :func:`spell` answers that.
"""

from __future__ import annotations

from dataclasses import dataclass

#: general-purpose base registers in encoding order (the enumeration order of renamings)
GPR_BASES = ("a", "c", "d", "b", "sp", "bp", "si", "di") + tuple(f"r{i}" for i in range(8, 16))
#: bases whose low byte needs no REX prefix, and the four with a high-byte twin
LEGACY_BYTE = ("a", "c", "d", "b")
#: bases encodable without REX at all (any width but the REX-only low bytes)
LEGACY = ("a", "c", "d", "b", "sp", "bp", "si", "di")

_GPR_NAMES: dict[str, dict[str, str]] = {
    "a": {"8": "al", "8h": "ah", "16": "ax", "32": "eax", "64": "rax"},
    "c": {"8": "cl", "8h": "ch", "16": "cx", "32": "ecx", "64": "rcx"},
    "d": {"8": "dl", "8h": "dh", "16": "dx", "32": "edx", "64": "rdx"},
    "b": {"8": "bl", "8h": "bh", "16": "bx", "32": "ebx", "64": "rbx"},
    "sp": {"8": "spl", "16": "sp", "32": "esp", "64": "rsp"},
    "bp": {"8": "bpl", "16": "bp", "32": "ebp", "64": "rbp"},
    "si": {"8": "sil", "16": "si", "32": "esi", "64": "rsi"},
    "di": {"8": "dil", "16": "di", "32": "edi", "64": "rdi"},
}
for _i in range(8, 16):
    _GPR_NAMES[f"r{_i}"] = {"8": f"r{_i}b", "16": f"r{_i}w", "32": f"r{_i}d", "64": f"r{_i}"}


@dataclass(frozen=True, slots=True)
class Reg:
    #: canonical name without ``%``
    name: str
    #: register class: gpr, vec, mmx, mask, x87, seg, ip, ctrl, dbg, bnd
    cls: str
    #: base register within the class (``a``, ``r9``, ``3`` …)
    base: str
    #: width tag: ``8``, ``8h``, ``16``, ``32``, ``64``, ``128``, ``256``, ``512``, ``80``
    width: str

    @property
    def referent(self) -> str:
        return f"{self.cls}:{self.base}"

    @property
    def view(self) -> str:
        return f"{self.cls}:{self.width}"

    @property
    def needs_rex(self) -> bool:
        """True for registers only reachable with a REX (or VEX/EVEX) prefix."""
        if self.cls == "gpr":
            return self.base.startswith("r") or (self.width == "8" and self.base not in LEGACY_BYTE)
        if self.cls == "vec":
            return int(self.base) >= 8
        return False

    @property
    def high_byte(self) -> bool:
        return self.width == "8h"

    @property
    def bits(self) -> int:
        return 8 if self.width == "8h" else int(self.width)


REGISTERS: dict[str, Reg] = {}
for _base, _names in _GPR_NAMES.items():
    for _w, _n in _names.items():
        REGISTERS[_n] = Reg(_n, "gpr", _base, _w)
for _i in range(32):
    for _p, _w in (("xmm", "128"), ("ymm", "256"), ("zmm", "512")):
        REGISTERS[f"{_p}{_i}"] = Reg(f"{_p}{_i}", "vec", str(_i), _w)
for _i in range(8):
    REGISTERS[f"mm{_i}"] = Reg(f"mm{_i}", "mmx", str(_i), "64")
    REGISTERS[f"k{_i}"] = Reg(f"k{_i}", "mask", str(_i), "64")
    REGISTERS[f"st({_i})"] = Reg(f"st({_i})", "x87", str(_i), "80")
REGISTERS["st"] = Reg("st", "x87", "0", "80")
for _s in ("es", "cs", "ss", "ds", "fs", "gs"):
    REGISTERS[_s] = Reg(_s, "seg", _s, "16")
REGISTERS["rip"] = Reg("rip", "ip", "rip", "64")
REGISTERS["eip"] = Reg("eip", "ip", "rip", "32")
for _i in range(16):
    REGISTERS[f"cr{_i}"] = Reg(f"cr{_i}", "ctrl", str(_i), "64")
    REGISTERS[f"dr{_i}"] = Reg(f"dr{_i}", "dbg", str(_i), "64")
for _i in range(4):
    REGISTERS[f"bnd{_i}"] = Reg(f"bnd{_i}", "bnd", str(_i), "128")

#: classes whose registers a renaming may move; the rest are always pinned
RENAMABLE_CLASSES = ("gpr", "vec", "mmx", "mask")

#: every base of a renamable class, in enumeration order
BASES: dict[str, tuple[str, ...]] = {
    "gpr": GPR_BASES,
    "vec": tuple(str(i) for i in range(32)),
    "mmx": tuple(str(i) for i in range(8)),
    "mask": tuple(str(i) for i in range(8)),
}


def lookup(name: str) -> Reg | None:
    """The register called ``name`` (with or without ``%``), or None. Spaces
    may follow the ``%`` (``% rax``) and stand in a stack register's
    parentheses (``%st( 1 )``), as assemblers read them; a space inside any
    other name makes it no register (``%r ax`` is not ``%rax``)."""
    name = name.lower()
    if name.startswith("%"):  # one: ``%%rax`` is no register
        name = name[1:].lstrip()
    if name.startswith("st"):
        name = "".join(name.split())
    return REGISTERS.get(name)


def spell(view: str, referent: str) -> str:
    """The name (with ``%``) of the register of ``view`` on base ``referent``,
    e.g. ``spell("gpr:8h", "gpr:b") == "%bh"``; KeyError when none exists."""
    cls, width = view.split(":")
    rcls, base = referent.split(":")
    if cls != rcls:
        raise KeyError(f"{view} on {referent}")
    if cls == "gpr":
        return "%" + _GPR_NAMES[base][width]
    if cls == "vec":
        return "%" + {"128": "xmm", "256": "ymm", "512": "zmm"}[width] + base
    if cls == "mmx":
        return f"%mm{base}"
    if cls == "mask":
        return f"%k{base}"
    raise KeyError(f"{view} on {referent}")


def exists(view: str, referent: str) -> bool:
    try:
        spell(view, referent)
    except KeyError:
        return False
    return True
