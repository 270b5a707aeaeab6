"""Instruction forms, and the registers llvm-mca times apart in them.

The *form* of an instruction is its mnemonic (with its prefixes) and the kinds
of its operands, in AT&T order: ``imm``; a renamable register's view
(``gpr:64``, ``gpr:8h``, ``vec:128`` …); a memory operand's shape ``mem`` with
its segment and which of base (``b``), index (``i``), ``%rip`` (``r``) it has,
``abs`` for none and ``32`` after a 32-bit base (``mem:b``, ``mem:fs:bi``,
``mem:abs``, ``mem:b32``); any other register as written (``%st(1)``).
Registers sit in *slots*: ``(operand, role)`` with role ``reg``, ``base`` or
``index``.

:data:`~invar.frontends.x86.register_rules.RULES`, measured by the register
sweep, lists the forms where llvm-mca's timing depends on which register a
slot names (``adcq $0, %rax`` is two micro-ops on Haswell, ``adcq $0, %rcx``
one); :func:`timing_constraints` turns them into constraints on renamings.
A rule covers every immediate of its form, though the sweep may have seen the
difference with one only (``adc`` with ``$0``), and a mnemonic written without
its size suffix (``adc $0, %rax``) takes the suffix of its first
general-purpose register operand.
"""

from __future__ import annotations

from typing import Sequence

from ...program import Token
from .register_rules import RULES

_RENAMABLE = ("gpr:", "vec:", "mmx:", "mask:")
_SUFFIX = {"gpr:8": "b", "gpr:8h": "b", "gpr:16": "w", "gpr:32": "l", "gpr:64": "q"}


def _operands(tokens: Sequence[Token]) -> list[list[Token]]:
    """The operands' tokens (decorators and write masks left out)."""
    out: list[list[Token]] = [[]]
    depth = braces = 0
    for t in tokens:
        if t.kind == "decorator":
            continue
        if t.text == "{":
            braces += 1
        elif t.text == "}":
            braces -= 1
        elif braces:
            continue
        elif t.text == "(":
            depth += 1
            out[-1].append(t)
        elif t.text == ")":
            depth -= 1
            out[-1].append(t)
        elif t.text == "," and depth == 0:
            out.append([])
        elif t.text != "*":
            out[-1].append(t)
    return [o for o in out if o]


def _kind(operand: list[Token], k: int, slots: dict) -> str:
    if operand[0].kind == "immediate":
        return "imm"
    if len(operand) == 1 and operand[0].kind == "register":
        tok = operand[0]
        if tok.view.startswith(_RENAMABLE):
            slots[(k, "reg")] = tok
            return tok.view
        return tok.text
    seg = ""
    if len(operand) > 1 and operand[0].kind == "register" and operand[1].text == ":":
        seg = ":" + operand[0].text.lstrip("%")
        operand = operand[2:]
    shape, width, part = "", "", 0
    inside = False
    for t in operand:
        if t.text == "(":
            inside = True
        elif t.text == ")":
            inside = False
        elif inside and t.text == ",":
            part += 1
        elif inside and t.kind == "register" and part < 2:
            if t.view.startswith("ip:"):
                shape += "r"
                continue
            role = "base" if part == 0 else "index"
            slots[(k, role)] = t
            shape += role[0]
            if role == "base" and t.view == "gpr:32":
                width = "32"
    return f"mem{seg}:{shape or 'abs'}{width}"


def form(tokens: Sequence[Token]) -> tuple[str, tuple[str, ...], dict[tuple[int, str], Token]] | None:
    """(mnemonic with prefixes, operand kinds, register token per slot) of
    one line's tokens; None for a line without a mnemonic."""
    words = [t.text.lower() for t in tokens if t.kind == "prefix"]
    mnemonic = next((t for t in tokens if t.kind == "mnemonic"), None)
    if mnemonic is None:
        return None
    rest = tokens[tokens.index(mnemonic) + 1 :]
    slots: dict[tuple[int, str], Token] = {}
    kinds = tuple(_kind(o, k, slots) for k, o in enumerate(_operands(rest)))
    return " ".join(words + [mnemonic.text.lower()]), kinds, slots


def _rules_for(mnemonic: str, kinds: tuple[str, ...]) -> dict:
    found = RULES.get((mnemonic, kinds))
    if found is None:  # a mnemonic written without its size suffix: adc $0, %rax
        width = next((k for k in kinds if k.startswith("gpr:")), None)
        if width is not None:
            found = RULES.get((mnemonic + _SUFFIX[width], kinds))
    return found or {}


def timing_constraints(tokens: Sequence[Token]) -> list[tuple[str, frozenset[str]]]:
    """For one line: (referent, registers llvm-mca times apart in its slot)
    for every slot group of a measured rule that the line fills. A referent
    among its own special registers must stay; any other may not become one."""
    found = form(tokens)
    if found is None:
        return []
    mnemonic, kinds, slots = found
    out = []
    for group, (special, _cpus) in _rules_for(mnemonic, kinds).items():
        toks = [slots.get(slot) for slot in group]
        if any(t is None or t.referent is None for t in toks):
            continue
        referents = {t.referent for t in toks}
        if len(referents) == 1:  # a tied group applies only where its slots name one register
            out.append((referents.pop(), special))
    return out
