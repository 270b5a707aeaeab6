"""The x86 IR against capstone, on real BHive blocks.

Two checks: the IR built from a block's hex equals the IR built from
capstone's AT&T text of the same bytes, and invar's own read/write tables
(written from the manuals, not taken from capstone) cover everything capstone's
independent access lists report, with capstone's known errata listed.
"""

from __future__ import annotations

import random

import capstone
import pytest

from invar.frontends.x86 import parse
from invar.frontends.x86 import registers as R
from invar.frontends.x86.hexblock import decode
from tests.conftest import bhive_blocks

N_BLOCKS = 5_000

#: (mnemonic, referent) that capstone lists as written but the manuals do not:
#: cwd/cdq/cqo only write %rdx; ``test`` with the accumulator short form writes nothing
CAPSTONE_WRITE_ERRATA = {
    ("cqto", "gpr:a"),
    ("cltd", "gpr:a"),
    ("cwtd", "gpr:a"),
    ("testb", "gpr:a"),
    ("testw", "gpr:a"),
    ("testl", "gpr:a"),
    ("testq", "gpr:a"),
}


@pytest.fixture(scope="module")
def sample() -> list[str]:
    return random.Random(1).sample(bhive_blocks(), N_BLOCKS)


@pytest.fixture(scope="module")
def cs():
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    md.detail = True
    return md


def _resources(names) -> set[str]:
    out = set()
    for name in names:
        if name in ("rflags", "eflags"):
            out.add("flags")
            continue
        reg = R.lookup(name)
        if reg is None or reg.cls == "ip":
            continue  # fpsw, fpcw, mxcsr, rip: not resources invar tracks
        out.add("x87" if reg.cls == "x87" else reg.referent)
    return out


def test_hex_and_capstone_text_build_the_same_ir(sample, cs):
    for h in sample:
        text = "\n".join(f"{i.mnemonic} {i.op_str}".strip() for i in cs.disasm(bytes.fromhex(h), 0))
        from_hex, from_text = decode(h), parse(text)
        assert from_hex.tokens == from_text.tokens, h
        assert from_hex.lines == from_text.lines, h
        assert from_hex.deps == from_text.deps and from_hex.pinned == from_text.pinned, h


def test_read_write_sets_cover_capstone(sample, cs):
    checked = 0
    for h in sample:
        program = decode(h)
        for line, ins in zip(program.lines, cs.disasm(bytes.fromhex(h), 0), strict=True):
            regs_read, regs_written = ins.regs_access()
            read = _resources(ins.reg_name(r) for r in regs_read)
            written = _resources(ins.reg_name(r) for r in regs_written)
            written = {w for w in written if (ins.mnemonic, w) not in CAPSTONE_WRITE_ERRATA}
            if ins.mnemonic.startswith("nop"):
                read = set()  # capstone lists a nop's address registers; it computes no address and reads nothing
            assert read <= line.reads | line.writes, (h, line.text, read - line.reads - line.writes)
            assert written <= line.writes, (h, line.text, written - line.writes)
            checked += 1
    assert checked > 3 * N_BLOCKS


def test_implicit_registers_are_pinned(sample, cs, record_property):
    blocks_with_implicit = 0
    for h in sample:
        program = decode(h)
        implicit_seen = False
        for ins in cs.disasm(bytes.fromhex(h), 0):
            implicit = _resources(ins.reg_name(r) for r in (*ins.regs_read, *ins.regs_write)) - {"flags", "x87"}
            if ins.mnemonic in ("vzeroupper", "vzeroall"):
                # the whole vector file, alike: renamings stay inside it instead
                assert "vec:*" in program.pinned
                implicit_seen = True
                continue
            assert implicit <= program.pinned, (h, ins.mnemonic, implicit - program.pinned)
            implicit_seen |= bool(implicit)
        blocks_with_implicit += implicit_seen
    # about a fifth of BHive blocks use a register implicitly
    assert 0.1 * N_BLOCKS < blocks_with_implicit < 0.4 * N_BLOCKS
    report = f"{blocks_with_implicit} of {N_BLOCKS} blocks use a register implicitly"
    print(report)
    record_property("oracle", report)
