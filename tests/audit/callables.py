"""Hand-built models with known answers, for audits of Python callables
(``--model tests.audit.callables:distinct_registers``). Each takes a list of
program texts (AT&T assembly) and returns one prediction per text."""

from __future__ import annotations

import math
import re

_REGISTER = re.compile(r"%([a-z0-9]+)")
_GPR = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"] + [f"r{i}" for i in range(8, 16)]
_BASE = {}
for _n, _r in enumerate(_GPR):
    _BASE[_r] = _n
for _n, names in enumerate([("eax", "ax", "al", "ah"), ("ecx", "cx", "cl", "ch"), ("edx", "dx", "dl", "dh"),
                            ("ebx", "bx", "bl", "bh"), ("esp", "sp", "spl"), ("ebp", "bp", "bpl"),
                            ("esi", "si", "sil"), ("edi", "di", "dil")]):
    for _name in names:
        _BASE[_name] = _n
for _i in range(8, 16):
    for _suffix in ("d", "w", "b"):
        _BASE[f"r{_i}{_suffix}"] = _i


def register_number(name: str) -> int:
    """GPRs by encoding number (rax 0 … r15 15), vector registers 100 + N,
    anything else (rip, segment registers) -1."""
    if name in _BASE:
        return _BASE[name]
    m = re.fullmatch(r"[xyz]mm(\d+)", name)
    return 100 + int(m.group(1)) if m else -1


def registers(text: str) -> list[int]:
    return [register_number(n) for n in _REGISTER.findall(text)]


def distinct_registers(texts):
    """How many distinct registers a block names: the same for every renaming."""
    return [float(len(set(registers(t)))) for t in texts]


def first_register_number(texts):
    """The number of the first register a block names: a renaming changes it."""
    return [float(next(iter(registers(t)), -1)) for t in texts]


def flaky(texts):
    """distinct_registers, except that it raises on blocks with a lea, returns
    NaN for blocks with an imul, and drops one prediction of every batch that
    holds a block with a shl (and returns none for such a block alone)."""
    if any("lea" in t for t in texts):
        raise ValueError("lea is not supported")
    out = [math.nan if "imul" in t else v for t, v in zip(texts, distinct_registers(texts))]
    if any("shl" in t for t in texts):
        out = out[:-1]
    return out


def uses_rbx(texts):
    """A discrete answer: whether a block names rbx (renamings change it)."""
    return ["yes" if 3 in registers(t) else "no" for t in texts]


def first_register_name(texts):
    """The first register a block names, as written (``%rbx``): renaming the
    block renames the answer the same way (equivariant)."""
    return [next(iter(_REGISTER.findall(t)), "none") for t in texts]
