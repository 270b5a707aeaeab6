"""Renaming constraints from llvm-mca's register-dependent timings.

invar/frontends/x86/register_rules.py (measured by the register sweep, see
tests/oracles/test_x86_register_sweep.py) lists instruction forms where
llvm-mca times one register of an operand apart. In such a form that register
stays (pinned) and no other register of that operand may become it; a form
not in the table, or the same mnemonic with other operand kinds, is free.
"""

from __future__ import annotations

import itertools

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse, renaming_space
from invar.frontends.x86 import registers as R
from invar.frontends.x86.forms import form
from invar.frontends.x86.register_rules import RULES

PINNED = "pinned"


def targets(space, referent: str) -> set[str]:
    return set(space.allowed[space.referents.index(referent)])


@pytest.mark.parametrize(
    "block, referent, expected",
    [
        # the accumulator forms of adc/sbb with an immediate: every width the table has, with and without suffix
        ("adcq $0, %rax", "gpr:a", PINNED),
        ("adcl $0, %eax\nmovl %eax, %ecx", "gpr:a", PINNED),
        ("sbbl $0, %eax", "gpr:a", PINNED),
        ("sbbq $-1, %rax\naddq %rax, %rbx", "gpr:a", PINNED),
        ("adc $0, %rax", "gpr:a", PINNED),
        ("lock incl (%rdi)\nadcl $1000, %eax", "gpr:a", PINNED),
        # another register in that operand may go anywhere but the accumulator
        ("adcq $0, %rcx\nmovq %rax, %rdx", "gpr:c", {"gpr:a"}),
        ("sbbl $1000, %esi", "gpr:si", {"gpr:a"}),
        ("adc $0, %r9", "gpr:r9", {"gpr:a"}),
        # xchg of a register with itself: %rax, %rax encodes as nop
        ("xchgq %rax, %rax", "gpr:a", PINNED),
        ("xchgq %rcx, %rcx\nmovq %rax, %rdx", "gpr:c", {"gpr:a"}),
        # the same mnemonics in forms llvm-mca times alike on every register
        ("adcq $0, %rcx\nmovq %rax, %rdx", "gpr:a", set()),
        ("adcq $0, 8(%rax)", "gpr:a", set()),
        ("adcq %rax, %rcx", "gpr:a", set()),
        ("xchgq %rax, %rcx", "gpr:a", set()),
        ("addq $0, %rax", "gpr:a", set()),
    ],
)
def test_register_dependent_forms(block, referent, expected):
    space = renaming_space(parse(block))
    if expected == PINNED:
        assert referent in space.pinned and referent not in space.referents
        return
    assert referent in space.referents
    allowed = targets(space, referent)
    assert not allowed & expected
    others = {f"gpr:{b}" for b in R.GPR_BASES} - expected - set(space.pinned)
    assert referent in allowed and len(allowed) == len(others), sorted(others - allowed)


_FILL = {"gpr": ["r15", "r14", "r13", "r12"], "vec": ["15", "14", "13", "12"], "mmx": ["7", "6", "5", "4"]}


def _instruction(mnemonic: str, kinds: tuple[str, ...], regs: dict[tuple[int, str], str]) -> str:
    """An instruction of the form, with ``regs`` in its slots (referents)."""

    def reg(slot, view):
        return R.spell(view, regs[slot])

    ops = []
    for k, kind in enumerate(kinds):
        if kind == "imm":
            ops.append("$0")
        elif kind.startswith(("gpr:", "vec:", "mmx:", "mask:")):
            ops.append(reg((k, "reg"), kind))
        elif kind.startswith("mem"):
            *seg, shape = kind.split(":")[1:]
            width = "gpr:32" if shape.endswith("32") else "gpr:64"
            inner = ""
            if "r" in shape:
                inner = "(%rip)"
            elif "b" in shape or "i" in shape:
                base = reg((k, "base"), width) if "b" in shape else ""
                inner = f"({base}" + (f",{reg((k, 'index'), width)},2)" if "i" in shape else ")")
            disp = "8" if shape.startswith(("abs", "r")) else ""  # a string instruction's operands take none
            ops.append((f"%{seg[0]}:" if seg else "") + disp + inner)
        else:
            ops.append(kind)
    return f"{mnemonic} {', '.join(ops)}"


def _cases():
    for (mnemonic, kinds), groups in sorted(RULES.items()):
        for group, (special, _cpus) in sorted(groups.items()):
            yield pytest.param(mnemonic, kinds, group, special, id=f"{mnemonic} {','.join(kinds)} {group}")


@pytest.mark.parametrize("mnemonic, kinds, group, special", list(_cases()))
def test_every_rule_constrains_its_form(mnemonic, kinds, group, special):
    """Each rule of the table, on an instruction of its form: its special
    register is pinned there, and a non-special register there (where invar
    accepts one: a string instruction's operands are fixed) cannot become it."""
    slots = _slots(kinds)
    cls = sorted(special)[0].split(":")[0]
    candidates = {
        c: sorted(special) + [f"{c}:{b}" for b in _FILL[c]] if c == cls else [f"{c}:{b}" for b in _FILL[c]]
        for c in {c for _, c in slots}
    }
    found = None
    for first in sorted(special):
        free = [slot for slot, _ in slots if slot not in group]
        for choice in itertools.product(*(candidates[c] for slot, c in slots if slot not in group)):
            regs = {slot: first for slot in group} | dict(zip(free, choice))
            if len(set(choice) | {first}) != len(choice) + 1:
                continue
            program = _parsed(mnemonic, kinds, regs)
            if program is not None:
                found = first, regs, program
                break
        if found:
            break
    if found is None:
        # invar accepts no line of the form with these slots tied (a string
        # instruction's source and destination are always %rsi and %rdi):
        # the rule has nothing to constrain; its untied groups are tested
        assert len(group) > 1, "no instruction of the form with its special register parses"
        return
    first, regs, program = found
    assert first in renaming_space(program).pinned
    used = set(regs.values())
    for other in (f"{cls}:{b}" for b in _FILL[cls]):
        if other in used:
            continue
        program = _parsed(mnemonic, kinds, regs | {slot: other for slot in group})
        if program is None:
            continue
        space = renaming_space(program)
        if other not in space.pinned:  # an implicit operand's register is pinned anyway
            assert not set(space.allowed[space.referents.index(other)]) & special
        break


def _parsed(mnemonic, kinds, regs):
    try:
        return parse(_instruction(mnemonic, kinds, regs))
    except ParseError:
        return None


def _slots(kinds):
    """(slot, register class) of each slot of the form."""
    out = []
    for k, kind in enumerate(kinds):
        if kind.startswith(("gpr:", "vec:", "mmx:", "mask:")):
            out.append(((k, "reg"), kind.split(":")[0]))
        elif kind.startswith("mem"):
            shape = kind.split(":")[-1]
            out += [((k, "base"), "gpr")] * ("b" in shape) + [((k, "index"), "gpr")] * ("i" in shape)
    return out


def test_the_table_has_the_adc_sbb_accumulator_forms():
    """The measured table is there and keyed as invar reads lines."""
    for text in ("adcq $0, %rax", "adcl $0, %eax", "sbbl $0, %eax", "sbbq $0, %rax"):
        mnemonic, kinds, slots = form(parse(text).tokens)
        assert RULES[(mnemonic, kinds)][((1, "reg"),)][0] == frozenset({"gpr:a"})
