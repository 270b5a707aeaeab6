"""Seeded random x86-64 basic blocks that exercise what is easy to get wrong.

:func:`generate_block` writes a block of AT&T text, on purpose full of the
constructs whose analysis is delicate: general-purpose ALU operations of every
width with ``%ah``-style registers, memory operands of every form (base,
index, scale, displacement, segment override, rip-relative, absolute),
immediates at the edges of their ranges, prefixes (``rep`` string
instructions, ``lock`` on memory destinations written ``lock cmpxchg``,
``lock; cmpxchg`` and on two lines, ``rep ret``, ``data16``/``cs`` nop
paddings), SSE, AVX and AVX-512 with masks and ``{z}``, both forms of
``movabs``, and instructions with implicit operands (``mul``, ``div``,
``cqto``, shifts by ``%cl``, ``cmpxchg``, ``xchg``, ``xadd``, string
instructions, ``xlatb``, two-operand ``blendvps``), and the classes the x86
hunt found: x87 memory forms of every size (``faddl`` reads 8 bytes,
``fiadds`` 2) and conversions whose memory source is not their register's
size, each beside a store a few bytes into or past the operand; ``ldmxcsr``
with SSE arithmetic that rounds by it, and ``stmxcsr``; MMX next to x87.

Blocks are built to run without faulting from the oracle harness's start
states (tests/oracles/test_x86_unicorn.py: every register a 16-byte aligned
value below 2**32): a few *pointer* registers are only ever read and every
address is built from them, divisions are preceded by what makes them safe,
``rep`` counts are set just before. A block that uses AVX or AVX-512, or MMX
without x87 (renamable MMX registers, which the harness does not move), is
marked not runnable (unicorn has no AVX) and is only assembled.

:func:`invalid_instructions` writes instructions that break one rule each,
tagged with the rule, for comparing what invar rejects with what ``llvm-mc``
rejects.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from invar.frontends.x86 import registers as R

SUFFIX = {8: "b", 16: "w", 32: "l", 64: "q"}
OPTIONAL = ("b", "bp") + tuple(f"r{i}" for i in range(8, 16))
#: general-purpose bases whose low byte needs no REX prefix
LEGACY_BYTE = ("a", "c", "d", "b")
CONDITIONS = ("e", "ne", "a", "ae", "b", "be", "g", "ge", "l", "le", "s", "ns", "o", "no", "p", "np", "z", "nz", "c")


@dataclass
class Block:
    #: the source text, as a user might write it (prefixes may stand on their own line)
    text: str
    #: the constructs it uses (for the oracle's report)
    features: set[str] = field(default_factory=set)
    #: unicorn can run it (no AVX, AVX-512 or MMX)
    runnable: bool = True


class _Context:
    """The registers of one block: pointers (only read, 16-byte aligned
    addresses below 2**32) and data registers (anything may be written)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        extra = [b for b in OPTIONAL if rng.random() < 0.3] or [rng.choice(OPTIONAL)]
        #: string instructions move %rsi and %rdi by any number of bytes; the
        #: other pointers stay 16-byte aligned for movaps and cmpxchg16b
        self.aligned = extra
        self.pointers = ["si", "di"] + extra
        self.data = ["a", "c", "d"] + [b for b in OPTIONAL if b not in extra]
        self.features: set[str] = set()
        self.runnable = True

    # --------------------------------------------------------------- pieces
    def reg(self, base: str, bits: int | str) -> str:
        width = "8h" if bits == "8h" else str(bits)
        return R.spell(f"gpr:{width}", f"gpr:{base}")

    def data_reg(self, bits: int | str, legacy: bool = False) -> str:
        if bits == "8h":
            return self.reg(self.rng.choice([b for b in LEGACY_BYTE if b in self.data]), "8h")
        pool = [b for b in self.data if not legacy or b in (LEGACY_BYTE if bits == 8 else R.LEGACY)]
        return self.reg(self.rng.choice(pool), bits)

    def any_reg(self, bits: int | str, legacy: bool = False) -> str:
        """A register to read: data, pointer or (as a byte) %spl."""
        if bits == "8h" or (legacy and bits == 8 and self.rng.random() < 0.4):
            return self.reg(self.rng.choice(LEGACY_BYTE), "8h")
        pool = self.data + self.pointers + (["sp"] if bits != 64 or not legacy else [])
        if legacy:
            pool = [b for b in pool if b in (LEGACY_BYTE if bits == 8 else R.LEGACY)]
        return self.reg(self.rng.choice(pool), bits)

    def pointer(self, legacy: bool = False, bits: int = 64, aligned: bool = False) -> str:
        pool = [p for p in (self.aligned if aligned else self.pointers) if not legacy or p in R.LEGACY]
        if not pool:  # a legacy aligned pointer was asked for and there is none
            pool = [p for p in self.pointers if not legacy or p in R.LEGACY]
        return self.reg(self.rng.choice(pool), bits)

    def disp(self, align: int = 1) -> str:
        rng = self.rng
        value = rng.choice([0, 8, 16, -16, 24, 64, -64, 0x80, -0x80, 0x100, 0x7F0, 0x1230, rng.randrange(-512, 4096)])
        value -= value % align
        if value == 0 and rng.random() < 0.5:
            return ""
        return hex(value) if value >= 0 and rng.random() < 0.5 else str(value)

    def mem(self, align: int = 1, legacy: bool = False) -> str:
        """A memory operand of a random form, built from pointer registers."""
        rng = self.rng
        forms = ["base", "base", "disp", "index", "index", "noindex", "segment", "rip", "absolute", "addr32"]
        form = rng.choice(forms + (["stack"] if align <= 8 else []))
        self.features.add(f"mem:{form}")
        aligned = align > 1
        pointer = lambda bits=64: self.pointer(legacy, bits, aligned)
        if form == "base":
            return f"({pointer()})"
        if form == "disp":
            return f"{self.disp(align)}({pointer()})"
        if form == "index":
            index = pointer()
            scale = rng.choice(["", ",1", ",2", ",4", ",8"])
            return f"{self.disp(align)}({pointer()},{index}{scale})"
        if form == "noindex":
            return f"{self.disp(align) or '0'}(,{pointer()},{rng.choice([1, 2, 4, 8])})"
        if form == "segment":
            seg = rng.choice(["%fs", "%gs", "%ds", "%ss", "%es", "%cs"])
            return f"{seg}:{self.disp(align)}({pointer()})"
        if form == "rip":
            value = rng.randrange(0x100, 0x800) * 16
            return f"{hex(value) if rng.random() < 0.5 else value}(%rip)"
        if form == "absolute":
            return hex(rng.randrange(0x1000, 0x7FFF0000) & ~0xF)
        if form == "addr32":
            index = pointer(32)
            return f"{self.disp(align)}({pointer(32)},{index},{rng.choice([1, 2, 4, 8])})"
        return f"{self.disp(8) or '8'}(%rsp)"

    def imm(self, bits: int) -> str:
        rng = self.rng
        low, high = {
            8: (-128, 255),
            16: (-32768, 65535),
            32: (-(1 << 31), (1 << 32) - 1),
            64: (-(1 << 31), (1 << 31) - 1),
        }[bits]
        value = rng.choice([0, 1, -1, 7, 100, low, high, rng.randint(low, high), rng.randint(-16, 16)])
        if bits == 64 and rng.random() < 0.2 and value < 0:
            return f"${(1 << 64) + value:#x}"  # as capstone prints a sign-extended immediate
        return f"${hex(value) if value >= 0 and rng.random() < 0.5 else value}"


# ------------------------------------------------------------- instructions
def _alu(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice("add sub and or xor adc sbb cmp test mov".split())
    bits = rng.choice([8, 8, "8h", 16, 32, 64, 64])
    size = 8 if bits == "8h" else bits
    high = bits == "8h"
    c.features.add(f"alu:{bits}")
    writes = op not in ("cmp", "test")
    form = rng.choice(["rr", "ir", "rm", "mr", "im"])
    suffix = SUFFIX[size] if form in ("im",) or rng.random() < 0.8 else ""
    legacy = high
    dst_reg = c.data_reg(bits, legacy) if writes else c.any_reg(bits, legacy)
    if form == "rr":
        src = c.any_reg(8 if high and rng.random() < 0.5 else bits, legacy)
        return [f"{op}{suffix} {src}, {dst_reg}"]
    if form == "ir":
        return [f"{op}{suffix} {c.imm(size)}, {dst_reg}"]
    if form == "rm":
        if op == "test":
            return [f"test{suffix} {c.any_reg(bits, legacy)}, {c.mem(legacy=legacy)}"]
        return [f"{op}{suffix} {c.any_reg(bits, legacy)}, {c.mem(legacy=legacy)}"]
    if form == "mr":
        return [f"{op}{suffix} {c.mem(legacy=legacy)}, {dst_reg}"]
    return [f"{op}{SUFFIX[size]} {c.imm(size)}, {c.mem(legacy=legacy)}"]


def _accumulator(c: _Context) -> list[str]:
    """Forms llvm-mca times differently on the accumulator (the register
    sweep's findings: ``adc $0, %rax`` has its own encoding and scheduling
    class), beside the same form on another register."""
    rng = c.rng
    op = rng.choice(["adc", "sbb", "adc", "sbb", "add", "sub", "and", "or", "xor", "cmp", "test", "xchg"])
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    acc = c.reg("a", bits)
    other = c.data_reg(bits)
    c.features.add("accumulator")
    if op == "xchg":
        return [f"xchg{s} {acc}, {other}", f"xchg{s} {other}, {acc}"][: rng.randint(1, 2)]
    imm = rng.choice(["$0", "$0", "$1", "$-1", c.imm(bits)])
    lines = [f"{op}{s} {imm}, {acc}", f"{op}{s} {imm}, {other}"]
    rng.shuffle(lines)
    return lines[: rng.randint(1, 2)]


def _unary(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice(["inc", "dec", "neg", "not"])
    bits = rng.choice([8, "8h", 16, 32, 64])
    size = 8 if bits == "8h" else bits
    c.features.add("unary")
    if rng.random() < 0.5:
        return [f"{op}{SUFFIX[size] if rng.random() < 0.7 else ''} {c.data_reg(bits)}"]
    return [f"{op}{SUFFIX[size]} {c.mem()}"]


def _lea(c: _Context) -> list[str]:
    bits = c.rng.choice([16, 32, 64, 64])
    c.features.add("lea")
    return [f"lea{SUFFIX[bits] if c.rng.random() < 0.7 else ''} {c.mem()}, {c.data_reg(bits)}"]


def _extend(c: _Context) -> list[str]:
    rng = c.rng
    name, s, d = rng.choice(
        [
            ("movzbl", 8, 32),
            ("movzbq", 8, 64),
            ("movzbw", 8, 16),
            ("movzwl", 16, 32),
            ("movzwq", 16, 64),
            ("movsbl", 8, 32),
            ("movsbq", 8, 64),
            ("movswl", 16, 32),
            ("movswq", 16, 64),
            ("movslq", 32, 64),
        ]
    )
    c.features.add("extend")
    if s == 8 and d != 64 and rng.random() < 0.3:
        return [f"{name} {c.reg(rng.choice(LEGACY_BYTE), '8h')}, {c.data_reg(d, legacy=True)}"]
    src = c.any_reg(s) if rng.random() < 0.6 else c.mem()
    return [f"{name} {src}, {c.data_reg(d)}"]


def _imul(c: _Context) -> list[str]:
    rng = c.rng
    bits = rng.choice([16, 32, 64])
    c.features.add("imul")
    s = SUFFIX[bits]
    form = rng.randrange(4)
    if form == 0:
        return [f"imul{s} {c.any_reg(bits)}, {c.data_reg(bits)}"]
    if form == 1:
        return [f"imul{s} {c.mem()}, {c.data_reg(bits)}"]
    if form == 2:
        return [
            f"imul{s} {c.imm(min(bits, 64))}, {c.any_reg(bits) if rng.random() < 0.5 else c.mem()}, {c.data_reg(bits)}"
        ]
    return [f"imul{s} {c.imm(bits)}, {c.data_reg(bits)}"]


def _shift(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice("shl sal shr sar rol ror rcl rcr".split())
    bits = rng.choice([8, "8h", 16, 32, 64])
    size = 8 if bits == "8h" else bits
    dst = c.data_reg(bits) if rng.random() < 0.7 else c.mem()
    s = SUFFIX[size]
    form = rng.randrange(3)
    if form == 0:
        c.features.add("shift:cl")
        if dst.startswith("%") and dst[1] == "c" and size == 8:
            dst = c.reg("a", 8)
        count = "%cl"
        lines = [f"{op}{s} {count}, {dst}"]
        if rng.random() < 0.5:  # set the count just before
            lines.insert(0, f"movb {c.imm(8)}, %cl")
        return lines
    if form == 1:
        c.features.add("shift:imm")
        return [f"{op}{s} ${rng.randrange(0, 256) if rng.random() < 0.2 else rng.randrange(1, size)}, {dst}"]
    c.features.add("shift:1")
    return [f"{op}{s} {dst}"]


def _double_shift(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice(["shld", "shrd"])
    bits = rng.choice([16, 32, 64])
    s = SUFFIX[bits]
    dst = c.data_reg(bits) if rng.random() < 0.6 else c.mem()
    src = c.any_reg(bits)
    form = rng.randrange(3)
    c.features.add("shld")
    if form == 0:
        return [f"{op}{s} ${rng.randrange(bits)}, {src}, {dst}"]
    if form == 1:
        return [f"{op}{s} %cl, {src}, {dst}"]
    return [f"{op}{s} {src}, {dst}"]  # the count is %cl, unwritten


def _bits(c: _Context) -> list[str]:
    rng = c.rng
    bits = rng.choice([16, 32, 64])
    s = SUFFIX[bits]
    op = rng.choice(["bt", "bts", "btr", "btc", "bsf", "bsr", "popcnt", "lzcnt", "tzcnt", "bswap", "cmov", "set"])
    c.features.add(f"bits:{op}")
    if op in ("bt", "bts", "btr", "btc"):
        if rng.random() < 0.5:
            return [f"{op}{s} {c.any_reg(bits)}, {c.data_reg(bits) if op != 'bt' else c.any_reg(bits)}"]
        return [f"{op}{s} ${rng.randrange(bits)}, {c.mem()}"]
    if op == "bswap":
        return [f"bswap{rng.choice(['', SUFFIX[max(bits, 32)]])} {c.data_reg(max(bits, 32))}"]
    if op == "cmov":
        cc = rng.choice(CONDITIONS)
        return [
            f"cmov{cc}{s if rng.random() < 0.5 else ''} {c.any_reg(bits) if rng.random() < 0.6 else c.mem()}, "
            f"{c.data_reg(bits)}"
        ]
    if op == "set":
        cc = rng.choice(CONDITIONS)
        return [f"set{cc} {c.data_reg(rng.choice([8, '8h'])) if rng.random() < 0.7 else c.mem()}"]
    return [f"{op}{s} {c.any_reg(bits) if rng.random() < 0.6 else c.mem()}, {c.data_reg(bits)}"]


def _exchange(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice(["xchg", "xadd", "cmpxchg"])
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    c.features.add(op)
    if rng.random() < 0.5:
        return [f"{op}{s} {c.data_reg(bits)}, {c.data_reg(bits)}"]
    if op == "xchg" and rng.random() < 0.5:
        return [f"xchg{s} {c.mem()}, {c.data_reg(bits)}"]
    return [f"{op}{s} {c.data_reg(bits)}, {c.mem()}"]


def _multiply_divide(c: _Context) -> list[str]:
    rng = c.rng
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    kind = rng.choice(["mul", "imul", "div", "idiv", "convert"])
    c.features.add(f"implicit:{kind}")
    others = [b for b in c.data if b not in ("a", "d")]
    if kind in ("mul", "imul"):
        src = c.reg(rng.choice(others), bits) if rng.random() < 0.6 else c.mem()
        return [f"{kind}{s} {src}"]
    if kind == "convert":
        return [rng.choice(["cqto", "cltd", "cwtd", "cltq", "cwtl", "cbtw"])]
    divisor = c.reg(rng.choice(others), bits)
    if bits == 8:  # the quotient must fit in %al
        clear = "movzbl %al, %eax" if kind == "div" else "cbtw"
    elif kind == "div":
        clear = "xorl %edx, %edx"
    else:
        clear = {16: "cwtd", 32: "cltd", 64: "cqto"}[bits]
    return [clear, f"mov{s} ${rng.randint(1, 200)}, {divisor}", f"{kind}{s} {divisor}"]


def _stack(c: _Context) -> list[str]:
    rng = c.rng
    c.features.add("stack")
    form = rng.randrange(4)
    if form == 0:
        return [f"pushq {c.any_reg(64)}"]
    if form == 1:
        return [f"popq {c.data_reg(64)}"]
    if form == 2:
        return [f"pushq {c.imm(64)}"]
    return [f"pushq {c.mem()}", f"popq {c.data_reg(64)}"]


def _string(c: _Context) -> list[str]:
    """String instructions, repeated or not; the count is set just before."""
    rng = c.rng
    family = rng.choice(["movs", "stos", "lods", "cmps", "scas"])
    letter = rng.choice("bwlq")
    bits = {"b": 8, "w": 16, "l": 32, "q": 64}[letter]
    acc = c.reg("a", bits)
    explicit = {
        "movs": "(%rsi), %es:(%rdi)",
        "stos": f"{acc}, %es:(%rdi)",
        "lods": f"(%rsi), {acc}",
        "cmps": "%es:(%rdi), (%rsi)",
        "scas": f"%es:(%rdi), {acc}",
    }[family]
    instruction = f"{family}{letter}" + (f" {explicit}" if rng.random() < 0.4 else "")
    if rng.random() < 0.25:
        c.features.add("string")
        return [instruction]
    prefix = "rep" if family in ("movs", "stos", "lods") else rng.choice(["rep", "repe", "repz", "repne", "repnz"])
    c.features.add(f"prefix:{prefix}")
    lines = [f"movl ${rng.randint(0, 6)}, %ecx"]
    spelling = rng.randrange(3)
    c.features.add(f"prefix-spelling:{spelling}")
    if spelling == 0:
        lines.append(f"{prefix} {instruction}")
    elif spelling == 1:
        lines.append(f"{prefix}; {instruction}")
    else:
        lines += [prefix, instruction]
    return lines


def _locked(c: _Context) -> list[str]:
    rng = c.rng
    op = rng.choice(
        [
            "add",
            "sub",
            "and",
            "or",
            "xor",
            "adc",
            "inc",
            "dec",
            "neg",
            "not",
            "xadd",
            "cmpxchg",
            "xchg",
            "bts",
            "btr",
            "btc",
            "cmpxchg16b",
        ]
    )
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    if op in ("bts", "btr", "btc"):
        s = SUFFIX[max(bits, 16)]
        body = f"{op}{s} ${rng.randrange(16)}, {c.mem()}"
    elif op in ("inc", "dec", "neg", "not"):
        body = f"{op}{s} {c.mem()}"
    elif op == "cmpxchg16b":
        body = f"cmpxchg16b {c.mem(align=16)}"
    elif op in ("add", "sub", "and", "or", "xor", "adc") and rng.random() < 0.5:
        body = f"{op}{s} {c.imm(bits)}, {c.mem()}"
    else:
        body = f"{op}{s} {c.data_reg(bits)}, {c.mem()}"
    spelling = rng.randrange(3)
    c.features.add(f"lock:{spelling}")
    lines = [f"lock {body}"] if spelling == 0 else [f"lock; {body}"] if spelling == 1 else ["lock", body]
    if op == "cmpxchg16b":
        # unicorn computes the flags of cmpxchg8b/16b from stale state (after add or popcnt
        # their CF, SF, AF, OF differ from what pushfq read just before, where the manuals
        # keep them): set every flag again, so that no later line reads unicorn's
        lines.append(f"testq {c.any_reg(64)}, {c.any_reg(64)}")
    return lines


def _padding(c: _Context) -> list[str]:
    c.features.add("padding")
    return [
        c.rng.choice(
            [
                "nop",
                "nopl (%rax)",
                "nopl 0x0(%rax)",
                "nopw 0x0(%rax,%rax,1)",
                "nopl 0x0(%rax,%rax,1)",
                "cs nopw 0x0(%rax,%rax,1)",
                "data16 cs nopw 0x0(%rax,%rax,1)",
                "data16 data16 cs nopw 0x0(%rax,%rax,1)",
                "nopw %cs:0x0(%rax,%rax,1)",
                "xchg %ax, %ax",
                "data16\nnopw 0x0(%rax,%rax,1)",
            ]
        )
    ]


def _movabs(c: _Context) -> list[str]:
    rng = c.rng
    address = hex(rng.randrange(1 << 32, 1 << 46) & ~0xF)
    form = rng.randrange(3)
    c.features.add(f"movabs:{form}")
    if form == 0:
        return [f"movabsq ${hex(rng.getrandbits(64))}, {c.data_reg(64)}"]
    bits = rng.choice([8, 16, 32, 64])
    suffix = rng.choice(["", SUFFIX[bits]])
    if form == 1:
        return [f"movabs{suffix} {address}, {c.reg('a', bits)}"]
    return [f"movabs{suffix} {c.reg('a', bits)}, {address}"]


def _misc(c: _Context) -> list[str]:
    rng = c.rng
    choices = ["lahf", "sahf", "clc", "stc", "cmc", "bmi", "movbe", "crc32"]
    if "b" in c.pointers:
        choices.append("xlatb")
    kind = rng.choice(choices)
    c.features.add(f"misc:{kind}")
    if kind == "xlatb":
        return [rng.choice(["xlatb", "xlat", "xlatb (%rbx)"])]
    if kind == "bmi":
        bits = rng.choice([32, 64])
        s = SUFFIX[bits]
        op = rng.choice(
            ["andn", "bextr", "blsi", "blsr", "blsmsk", "shlx", "sarx", "shrx", "rorx", "pdep", "pext", "mulx", "bzhi"]
        )
        src = c.any_reg(bits) if rng.random() < 0.6 else c.mem()
        if op == "mulx":  # writes both destinations
            return [f"mulx{s} {src}, {c.data_reg(bits)}, {c.data_reg(bits)}"]
        if op in ("andn", "pdep", "pext"):
            return [f"{op}{s} {src}, {c.any_reg(bits)}, {c.data_reg(bits)}"]
        if op in ("bextr", "shlx", "sarx", "shrx", "bzhi"):
            return [f"{op}{s} {c.any_reg(bits)}, {src}, {c.data_reg(bits)}"]
        if op == "rorx":
            return [f"rorx{s} ${rng.randrange(bits)}, {src}, {c.data_reg(bits)}"]
        return [f"{op}{s} {src}, {c.data_reg(bits)}"]
    if kind == "movbe":
        bits = rng.choice([16, 32, 64])
        if rng.random() < 0.5:
            return [f"movbe{SUFFIX[bits]} {c.mem()}, {c.data_reg(bits)}"]
        return [f"movbe{SUFFIX[bits]} {c.any_reg(bits)}, {c.mem()}"]
    if kind == "crc32":
        bits = rng.choice([8, 16, 32, 64])
        dst = 64 if bits == 64 else rng.choice([32, 64]) if bits == 8 else 32
        return [f"crc32{SUFFIX[bits]} {c.any_reg(bits) if rng.random() < 0.6 else c.mem()}, {c.data_reg(dst)}"]
    return [kind]


def _xmm(c: _Context, legacy: bool = True) -> str:
    return f"%xmm{c.rng.randrange(16)}"


#: packed SSE operations of two xmm registers
_PACKED = ["addps", "mulps", "subpd", "xorps", "andps", "paddd", "pxor", "pcmpeqb", "pminub", "punpcklbw"]


def _sse(c: _Context) -> list[str]:
    rng = c.rng
    c.features.add("sse")
    form = rng.randrange(8)
    a, b = _xmm(c), _xmm(c)
    if form == 0:
        return [f"{rng.choice(_PACKED)} {a}, {b}"]
    if form == 1:
        return [f"{rng.choice(['movaps', 'movdqa', 'addps', 'paddq'])} {c.mem(align=16)}, {b}"]
    if form == 2:
        return [f"{rng.choice(['movups', 'movdqu', 'movaps'])} {a}, {c.mem(align=16)}"]
    if form == 3:
        return [f"pshufd ${rng.randrange(256)}, {a}, {b}"]
    if form == 4:
        return [
            rng.choice(
                [
                    f"movd {c.any_reg(32)}, {a}",
                    f"movq {c.any_reg(64)}, {a}",
                    f"movq {a}, {c.data_reg(64)}",
                    f"movd {a}, {c.data_reg(32)}",
                    f"cvtsi2sdq {c.any_reg(64)}, {a}",
                    f"cvtsi2ssl {c.any_reg(32)}, {a}",
                ]
            )
        ]
    if form == 5:
        c.features.add("implicit:blendv")
        op = rng.choice(["blendvps", "blendvpd", "pblendvb"])
        return [f"{op} %xmm0, {a}, {b}" if rng.random() < 0.5 else f"{op} {a}, {b}"]
    if form == 6:
        return [f"{rng.choice(['movss', 'movsd'])} {c.mem(align=16)}, {b}"]
    return [f"pextrw ${rng.randrange(8)}, {a}, {c.data_reg(32)}"]


def _avx(c: _Context) -> list[str]:
    rng = c.rng
    c.runnable = False
    c.features.add("avx")
    y = lambda: f"%ymm{rng.randrange(16)}"
    form = rng.randrange(5)
    if form == 0:
        return [f"{rng.choice(['vaddps', 'vmulpd', 'vpaddd', 'vpxor', 'vandps'])} {y()}, {y()}, {y()}"]
    if form == 1:
        return [f"vmovdqu {c.mem()}, {y()}"]
    if form == 2:
        return ["vzeroupper"]
    if form == 3:
        mask, index, dst = rng.sample(range(16), 3)
        return [f"vpgatherdd %xmm{mask}, {c.disp()}({c.pointer()},%xmm{index},4), %xmm{dst}"]
    return [f"vblendvps {y()}, {y()}, {y()}, {y()}"]


def _avx512(c: _Context) -> list[str]:
    rng = c.rng
    c.runnable = False
    c.features.add("avx512")
    z = lambda: f"%zmm{rng.randrange(32)}"
    k = lambda: f"%k{rng.randrange(1, 8)}"
    form = rng.randrange(11)
    if form >= 9:  # EVEX-encoded by the mnemonic alone: %xmm16-31 are renaming targets
        c.features.add("avx512:evex-only")
        w = rng.choice(["xmm", "ymm"])
        r = lambda: f"%{w}{rng.randrange(32)}"
        return [
            rng.choice(
                [
                    f"vmovdqu64 {r()}, {r()}",
                    f"vmovdqa32 {c.mem(align=32)}, {r()}",
                    f"vmovdqu8 {r()}, {c.mem()}",
                    f"vpternlogd $0x96, {r()}, {r()}, {r()}",
                    f"vpermt2q {r()}, {r()}, {r()}",
                    f"vprold $3, {r()}, {r()}",
                    f"vpmullq {r()}, {r()}, {r()}",
                    f"vpsraq $2, {r()}, {r()}",
                    f"vpabsq {r()}, {r()}",
                    f"vpmaxuq {r()}, {r()}, {r()}",
                    f"vrcp14ps {r()}, {r()}",
                    f"vpconflictd {r()}, {r()}",
                ]
            )
            for _ in range(rng.randint(1, 3))
        ]
    if form == 0:
        c.features.add("avx512:mask")
        zero = " {z}" if rng.random() < 0.5 else ""
        return [f"{rng.choice(['vaddps', 'vpaddd', 'vmulpd', 'vpandd'])} {z()}, {z()}, {z()} {{{k()}}}{zero}"]
    if form == 1:
        return [f"vmovaps {z()}, {c.mem(align=64)} {{{k()}}}"]
    if form == 2:
        c.features.add("avx512:gather")
        index, dst = rng.sample(range(32), 2)
        return [f"vpgatherdd {c.disp()}({c.pointer()},%zmm{index},4), %zmm{dst} {{{k()}}}"]
    if form == 3:
        return [f"vpscatterdd {z()}, {c.disp()}({c.pointer()},{z()},4) {{{k()}}}"]
    if form == 4:
        return [f"vaddps {c.mem()}{{1to16}}, {z()}, {z()}"]
    if form == 5:
        return [f"kmovw {c.any_reg(32)}, %k{rng.randrange(8)}", f"kmovw %k{rng.randrange(8)}, {c.data_reg(32)}"]
    if form == 6:
        return [f"vpcmpeqd {z()}, {z()}, %k{rng.randrange(8)} {{{k()}}}"]
    if form == 7:
        return [f"vaddps {{rn-sae}}, {z()}, {z()}, {z()}"]
    x = lambda: f"%xmm{rng.randrange(16, 32)}"
    if rng.random() < 0.5:  # EVEX by its registers only
        return [f"vaddps {x()}, %xmm{rng.randrange(32)}, {x()}"]
    return [f"vaddps {x()}, {x()}, {x()} {{{k()}}}{' {z}' if rng.random() < 0.5 else ''}"]


def _mmx(c: _Context) -> list[str]:
    c.runnable = False
    c.features.add("mmx")
    return [f"paddd %mm{c.rng.randrange(8)}, %mm{c.rng.randrange(8)}"]


#: x87 memory forms and the bytes each reads: an l on arithmetic is a 64-bit real, on an integer form 32 bits
_X87_MEMORY = [
    *((f"{op}l", 8) for op in "fadd fsub fsubr fmul fdiv fdivr fcom fcomp fld".split()),
    *((f"{op}s", 4) for op in "fadd fmul fcom fld".split()),
    *((f"{op}l", 4) for op in "fiadd fisub fimul ficom fild".split()),
    *((f"{op}s", 2) for op in "fiadd fimul fild".split()),
    ("fildll", 8),
]


def _near_store(c: _Context, pointer: str, disp: int) -> str:
    """A store through ``pointer`` a few bytes after ``disp``: inside a memory
    operand there of 8 bytes or less, or just past a narrower one."""
    rng = c.rng
    at = disp + rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
    bits = rng.choice([16, 32, 32])
    return f"mov{SUFFIX[bits]} {c.any_reg(bits)}, {at}({pointer})"


def _x87(c: _Context) -> list[str]:
    """x87 arithmetic, compares and loads on memory of every size, beside a
    store that overlaps the operand only when its size is read right."""
    rng = c.rng
    op, _width = rng.choice(_X87_MEMORY)
    c.features.add(f"x87:{op[-1]}")
    pointer, disp = c.pointer(), rng.choice([0, 8, 16, -16])
    lines = [f"{op} {disp}({pointer})"]
    if rng.random() < 0.7:
        lines.insert(0, rng.choice(["fld1", "fldz", "fldpi", f"fldl {disp + 32}({pointer})"]))
    store = _near_store(c, pointer, disp)
    lines.insert(rng.randrange(len(lines)) if rng.random() < 0.3 else len(lines) - 1, store)
    if op.startswith(("fcom", "ficom")) and "a" in c.data:
        lines.append("fnstsw %ax")  # the compare's result into a register the oracle compares
    elif rng.random() < 0.5:
        lines.append(f"fstpl {rng.choice([disp, disp + 8, disp + 64])}({pointer})")
    return lines


def _conversion(c: _Context) -> list[str]:
    """SSE conversions whose memory source is wider or narrower than their
    register, beside a store into the bytes past the register's size."""
    rng = c.rng
    pointer, disp = c.pointer(), rng.choice([0, 8, 16, -16])
    op = rng.choice(
        [
            f"cvttsd2si {{m}}, {c.data_reg(32)}",
            f"cvtsd2si {{m}}, {c.data_reg(32)}",
            f"cvttsd2sil {{m}}, {c.data_reg(32)}",
            f"cvtsd2si {{m}}, {c.data_reg(64)}",
            f"cvtss2si {{m}}, {c.data_reg(64)}",
            f"cvttss2si {{m}}, {c.data_reg(32)}",
            f"cvtsi2sdl {{m}}, {_xmm(c)}",
            f"cvtsi2ssq {{m}}, {_xmm(c)}",
            f"cvtss2sd {{m}}, {_xmm(c)}",
            f"cvtsd2ss {{m}}, {_xmm(c)}",
        ]
    )
    c.features.add(f"convert:{op.split()[0]}")
    lines = [op.format(m=f"{disp}({pointer})"), _near_store(c, pointer, disp)]
    if rng.random() < 0.5:
        lines.reverse()
    return lines


def _mxcsr(c: _Context) -> list[str]:
    """ldmxcsr of a valid control word (every exception masked, a rounding
    mode, maybe FTZ/DAZ) stored just before, SSE arithmetic and conversions
    that round by it, and stmxcsr."""
    rng = c.rng
    pointer, disp = c.pointer(), rng.choice([0, 8, -16])
    word = 0x1F80 | rng.choice([0, 0x2000, 0x4000, 0x6000]) | rng.choice([0, 0, 0x8040])
    lines = [f"movl ${word:#x}, {disp}({pointer})", f"ldmxcsr {disp}({pointer})"]
    c.features.add("mxcsr:ldmxcsr")
    for _ in range(rng.randint(1, 3)):
        a, b = _xmm(c), _xmm(c)
        lines.insert(
            rng.randrange(len(lines) + 1),
            rng.choice(
                [
                    f"cvtsd2si {a}, {c.data_reg(64)}",
                    f"cvtss2si {a}, {c.data_reg(32)}",
                    f"cvtps2dq {a}, {b}",
                    f"addsd {a}, {b}",
                    f"divps {a}, {b}",
                    f"sqrtss {a}, {b}",
                    f"roundsd $4, {a}, {b}",
                    f"cvtsi2sdq {c.any_reg(64)}, {a}",
                ]
            ),
        )
    if rng.random() < 0.5:
        c.features.add("mxcsr:stmxcsr")
        at = rng.choice([disp, disp + 4, disp + 32])
        lines.append(f"stmxcsr {at}({pointer})")
        if rng.random() < 0.5:
            lines.append(f"movl {at}({pointer}), {c.data_reg(32)}")
    return lines


def _mmx_x87(c: _Context) -> list[str]:
    """MMX instructions beside x87 ones: the MMX registers are the x87
    registers, so the two stay ordered and MMX registers are not renamed
    (runnable: renamings move only general-purpose and vector registers)."""
    rng = c.rng
    c.features.add("mmx-x87")
    mm = lambda: f"%mm{rng.randrange(8)}"
    mmx = [
        f"movq {mm()}, {c.data_reg(64)}",
        f"movq {c.any_reg(64)}, {mm()}",
        f"paddd {mm()}, {mm()}",
        f"pxor {mm()}, {mm()}",
        f"movq {c.mem()}, {mm()}",
        f"movd {mm()}, {c.data_reg(32)}",
        f"pshufw $0x1b, {mm()}, {mm()}",
    ]
    x87 = ["fld1", "fldz", f"fldl {c.mem()}", "fstp %st(0)", "faddp %st, %st(1)", f"fildl {c.mem()}", "fxch %st(3)"]
    lines = [rng.choice(x87), rng.choice(mmx)] + [rng.choice(mmx + x87) for _ in range(rng.randint(0, 2))]
    rng.shuffle(lines)
    return lines


_RUNNABLE = [
    (_alu, 10),
    (_unary, 3),
    (_lea, 3),
    (_extend, 3),
    (_imul, 2),
    (_shift, 4),
    (_double_shift, 1),
    (_bits, 4),
    (_exchange, 3),
    (_multiply_divide, 3),
    (_stack, 2),
    (_string, 3),
    (_locked, 3),
    (_padding, 1),
    (_movabs, 2),
    (_misc, 2),
    (_sse, 3),
    (_accumulator, 4),
    (_x87, 2),
    (_conversion, 1),
    (_mxcsr, 1),
    (_mmx_x87, 1),
]
_VECTOR = [(_avx, 2), (_avx512, 3), (_mmx, 1)]
_FINAL = [
    "ret",
    "rep ret",
    "repz ret",
    "rep; ret",
    "retq $8",
    "jne 0x40",
    "jmp *{r}",
    "notrack jmp *{r}",
    "callq *8({p})",
]


def generate_block(rng: random.Random, *, vector: bool | None = None) -> Block:
    """One random block; ``vector`` forces (or forbids) AVX/AVX-512/MMX parts,
    which make the block assemble-only."""
    c = _Context(rng)
    if vector is None:
        vector = rng.random() < 0.2
    makers = _RUNNABLE + (_VECTOR if vector else [])
    funcs, weights = zip(*makers)
    lines: list[str] = []
    for _ in range(rng.randint(3, 8)):
        lines += rng.choices(funcs, weights)[0](c)
    if vector and c.runnable:
        lines += rng.choice(_VECTOR)[0](c)
    if rng.random() < 0.25:
        final = rng.choice(_FINAL).format(r=c.data_reg(64), p=c.pointer())
        c.features.add("final-branch")
        lines.append(final)
    return Block("\n".join(lines), c.features, c.runnable)


# ---------------------------------------------------- invalid instructions
def invalid_instructions(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """``n`` instructions, each ``(text, rule)``: ``rule`` names the rule the
    text breaks, or ``valid`` for a control case that breaks none."""
    makers = [
        _width_mismatch,
        _arity,
        _immediate_destination,
        _two_memory,
        _rex_high_byte,
        _intel_syntax,
        _write_mask,
        _immediate_range,
        _shift_count,
        _lea_source,
        _stack_size,
        _movabs_bad,
        _bad_suffix,
        _address_mix,
        _prefix_misuse,
        _string_operands,
        _register_class,
        _valid,
    ]
    out = []
    for k in range(n):
        out.append(makers[k % len(makers)](_Context(rng)))
    return out


def _width_mismatch(c: _Context) -> tuple[str, str]:
    rng = c.rng
    op = rng.choice("add sub and or xor cmp test mov adc xchg".split())
    size, other = rng.sample([8, 16, 32, 64], 2)
    s = SUFFIX[size]
    form = rng.randrange(4)
    if form == 0:
        return f"{op}{s} {c.any_reg(other)}, {c.data_reg(size)}", "width"
    if form == 1:
        return f"{op}{s} {c.any_reg(size)}, {c.data_reg(other)}", "width"
    if form == 2:
        return f"{op} {c.any_reg(size)}, {c.data_reg(other)}", "width"
    name, src, dst = rng.choice(
        [("movzbl", 16, 32), ("movzwl", 8, 32), ("movslq", 16, 64), ("movsbq", 8, 32), ("movzbw", 8, 32)]
    )
    return f"{name} {c.any_reg(src)}, {c.data_reg(dst)}", "width"


def _arity(c: _Context) -> tuple[str, str]:
    rng = c.rng
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    regs = [c.data_reg(bits) for _ in range(3)]
    return rng.choice(
        [
            f"add{s}",
            f"add{s} {regs[0]}",
            f"add{s} {regs[0]}, {regs[1]}, {regs[2]}",
            f"inc{s} {regs[0]}, {regs[1]}",
            f"neg{s}",
            f"mov{s} {regs[0]}",
            "cqto %rax",
            "cltq %eax",
            f"test{s} {regs[0]}",
            f"xchg{s} {regs[0]}",
            f"shl{s} $1, {regs[0]}, {regs[1]}",
            "lea (%rax)",
            f"cmp{s}",
        ]
    ), "arity"


def _immediate_destination(c: _Context) -> tuple[str, str]:
    rng = c.rng
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    return rng.choice(
        [
            f"add{s} {c.any_reg(bits)}, {c.imm(bits)}",
            f"mov{s} {c.any_reg(bits)}, $5",
            f"inc{s} $1",
            f"mov{s} $1, $2",
            f"sub{s} {c.mem()}, $3",
            f"shl{s} %cl, $3",
            f"neg{s} $7",
            f"pop{s if bits in (16, 64) else 'q'} $1",
        ]
    ), "immediate-destination"


def _two_memory(c: _Context) -> tuple[str, str]:
    rng = c.rng
    bits = rng.choice([8, 16, 32, 64])
    s = SUFFIX[bits]
    op = rng.choice(["mov", "add", "sub", "cmp", "xchg", "and", "adc"])
    if rng.random() < 0.2:
        return f"{rng.choice(['addps', 'movaps', 'pxor', 'vmovdqu'])} {c.mem()}, {c.mem()}", "two-memory"
    return f"{op}{s} {c.mem()}, {c.mem()}", "two-memory"


def _rex_high_byte(c: _Context) -> tuple[str, str]:
    rng = c.rng
    high = c.reg(rng.choice(LEGACY_BYTE), "8h")
    rex8 = rng.choice(["%spl", "%bpl", "%sil", "%dil"] + [f"%r{i}b" for i in range(8, 16)])
    rex = f"%r{rng.randrange(8, 16)}"
    return rng.choice(
        [
            f"movb {high}, {rex8}",
            f"movb {rex8}, {high}",
            f"addb {high}, ({rex})",
            f"xorb {high}, 8(%rax,{rex})",
            f"movzbl {high}, %r{rng.randrange(8, 16)}d",
            f"movzbq {high}, %rax",
            f"movsbq {high}, %rcx",
            f"cmpb {high}, {rex8}",
            f"testb {high}, {rex8}",
            f"xchgb {high}, {rex8}",
        ]
    ), "rex-high-byte"


def _intel_syntax(c: _Context) -> tuple[str, str]:
    text = c.rng.choice(
        [
            "mov eax, ebx",
            "add rax, rbx",
            "xor ecx, ecx",
            "mov rax, [rbx]",
            "lea rax, [rbx+8]",
            "push rbp",
            "mov eax, 1",
            "sub rsp, 8",
            "movl eax, %ebx",
            "cmp al, 5",
            "incq rax",
        ]
    )
    # a lone register name is a symbol to an AT&T assembler: push rbp pushes the memory at rbp
    return text, "register-symbol" if text in ("push rbp", "movl eax, %ebx", "incq rax") else "intel-syntax"


def _write_mask(c: _Context) -> tuple[str, str]:
    rng = c.rng
    z = lambda: f"%zmm{rng.randrange(32)}"
    k = f"%k{rng.randrange(1, 8)}"
    return rng.choice(
        [
            (f"vaddps {z()}, {z()}, {z()} {{%k0}}", "write-mask-k0"),
            (f"vmovaps {z()}, (%rax) {{%k0}}", "write-mask-k0"),
            ("vpgatherdd (%rax,%zmm1,4), %zmm2 {%k0}", "write-mask-k0"),
            ("vpgatherdd (%rax,%zmm1,4), %zmm2", "gather-without-mask"),
            ("vpscatterdd %zmm2, (%rax,%zmm1,4)", "gather-without-mask"),
            (f"vmovaps {z()}, (%rax) {{{k}}} {{z}}", "zero-memory-destination"),
            (f"vmovdqu32 {z()}, 64(%rbx) {{{k}}} {{z}}", "zero-memory-destination"),
            (f"vaddps {z()}, {z()}, {z()} {{z}}", "zero-without-mask"),
            (f"vaddps {z()} {{{k}}}, {z()}, {z()}", "mask-on-source"),
            (f"addps %xmm1, %xmm2 {{{k}}}", "mask-on-legacy"),
            (f"vaddps {z()}{{1to16}}, {z()}, {z()}", "broadcast-register"),
            (f"vpgatherdd (%rax,%zmm1,4), %zmm1 {{{k}}}", "gather-same-registers"),
            (f"vpcmpeqd {z()}, {z()}, %k1 {{{k}}} {{z}}", "zero-mask-destination"),
            (f"vaddps {z()}, {z()}, {z()} {{{k}}} {{%k2}}", "two-masks"),
            (f"vaddps {z()}, {z()}, {z()} {{{k}}}", "valid"),
            (f"vmovaps (%rax), {z()} {{{k}}} {{z}}", "valid"),
        ]
    )


def _immediate_range(c: _Context) -> tuple[str, str]:
    rng = c.rng
    choice = rng.randrange(7)
    if choice == 0:
        bits = rng.choice([8, 16, 32, 64])
        return f"shl{SUFFIX[bits]} ${rng.randrange(256, 5000)}, {c.data_reg(bits)}", "immediate-range"
    if choice == 1:
        return f"addq ${rng.randrange(1 << 31, 1 << 32):#x}, {c.data_reg(64)}", "immediate-range"
    if choice == 2:
        return f"btq ${rng.randrange(256, 1000)}, {c.data_reg(64)}", "immediate-range"
    if choice == 3:
        return f"addb ${rng.randrange(256, 5000)}, {c.data_reg(8)}", "immediate-truncated"
    if choice == 4:
        return f"movl ${rng.randrange(1 << 32, 1 << 40):#x}, {c.data_reg(32)}", "immediate-truncated"
    if choice == 5:
        return f"movq {rng.randrange(1 << 32, 1 << 46):#x}, {c.data_reg(64)}", "address-truncated"
    return f"movq {rng.randrange(1 << 31, 1 << 32):#x}({c.pointer()}), {c.data_reg(64)}", "address-truncated"


def _shift_count(c: _Context) -> tuple[str, str]:
    rng = c.rng
    count = rng.choice(["%dl", "%bl", "%cx", "%ecx", "%rcx", "%al", "%r8b"])
    op = rng.choice("shl shr sar rol ror rcl".split())
    bits = rng.choice([16, 32, 64])
    return f"{op}{SUFFIX[bits]} {count}, {c.data_reg(bits)}", "shift-count"


def _lea_source(c: _Context) -> tuple[str, str]:
    rng = c.rng
    return rng.choice(
        [
            f"lea {c.any_reg(64)}, {c.data_reg(64)}",
            "leab (%rax), %bl",
            "leaq (%rax), %ebx",
            "leaq $8, %rax",
            "leal (%rax), (%rbx)",
        ]
    ), "lea"


def _stack_size(c: _Context) -> tuple[str, str]:
    return c.rng.choice(
        [
            "pushl %eax",
            "push %eax",
            "popl %ebx",
            "pushl $1",
            "push %cs",
            "pop %ds",
            "push %es",
            "pushb $1",
            "pushq $0x80000000",
            "jmp *%eax",
            "call *%ax",
            "retl",
        ]
    ), "stack-size"


def _movabs_bad(c: _Context) -> tuple[str, str]:
    rng = c.rng
    address = hex(rng.randrange(1 << 32, 1 << 46))
    return rng.choice(
        [
            f"movabs {address}, %rbx",
            f"movabs %ecx, {address}",
            "movabsq (%rax), %rax",
            "movabsl $1, %eax",
            "movabsb 8(%rax), %al",
            "movabsq $1, (%rax)",
        ]
    ), "movabs"


def _bad_suffix(c: _Context) -> tuple[str, str]:
    return c.rng.choice(
        [
            "cmovneb %al, %bl",
            "setnew %ax",
            "bsfb %al, %bl",
            "imulb %al, %bl",
            "popcntb %al, %bl",
            "bswapw %ax",
            "movzbl (%rax), %ax",
            "andnw %ax, %bx, %cx",
            "inq %dx, %rax",
            "leaw (%rax), %bl",
        ]
    ), "suffix"


def _address_mix(c: _Context) -> tuple[str, str]:
    return c.rng.choice(
        [
            ("movq (%eax,%rbx), %rcx", "address"),
            ("movl 8(%rax,%ebx,2), %ecx", "address"),
            ("movq 8(%rip,%rax), %rbx", "address"),
            ("addl (%ax), %ebx", "address"),
            ("movq (%rax,%rsp), %rbx", "address"),
            ("movq (%rax,%xmm1), %rbx", "vector-index"),
            ("addps (%rax,%ymm2,4), %xmm1", "vector-index"),
        ]
    )


def _prefix_misuse(c: _Context) -> tuple[str, str]:
    rng = c.rng
    return rng.choice(
        [
            ("lock movl %eax, (%rbx)", "lock"),
            ("lock addl %eax, %ebx", "lock"),
            ("lock incq %rax", "lock"),
            ("lock; movq %rax, (%rdi)", "lock"),
            ("lock cmpxchgl %ecx, %edx", "lock"),
            ("rep addl %eax, %ebx", "rep"),
            ("rep; incq %rax", "rep"),
            ("repne movsb", "rep"),
            ("repe stosq", "rep"),
            ("rep bsfl %eax, %ebx", "rep"),
            ("xacquire movl %eax, (%rbx)", "rep"),
            ("data16 addl %eax, %ebx", "encoding-prefix"),
            ("rex64 addl %eax, %ebx", "encoding-prefix"),
            ("addr32 movl (%rax), %ebx", "encoding-prefix"),
            ("data32 nop", "data32"),
            ("rep rep movsb", "valid-prefix"),
            ("lock xaddq %rax, (%rbx)", "valid-prefix"),
            ("rep; movsq", "valid-prefix"),
            ("repz ret", "valid-prefix"),
            ("lock; cmpxchg8b (%rdi)", "valid-prefix"),
            ("repne scasb", "valid-prefix"),
            ("data16 cs nopw 0x0(%rax,%rax,1)", "valid-prefix"),
            ("xrelease movl %eax, (%rbx)", "valid-prefix"),
            ("xacquire lock incl (%rax)", "valid-prefix"),
            ("notrack jmp *%rax", "valid-prefix"),
            ("notrack movl %eax, %ebx", "notrack"),
            ("fs movl (%rax), %ebx", "valid-prefix"),
            ("gs movl %gs:(%rax), %ebx", "valid-prefix"),
            ("gs movl %fs:(%rax), %ebx", "two-segments"),
            ("fs gs movl (%rax), %ebx", "two-segments"),
        ]
    )


def _string_operands(c: _Context) -> tuple[str, str]:
    return c.rng.choice(
        [
            ("movsb (%rax), (%rdi)", "string-warning"),
            ("movsb (%rsi), (%rbx)", "string-warning"),
            ("stosb %bl, (%rdi)", "string"),
            ("lodsb (%rsi), %bl", "string"),
            ("stosq %eax, (%rdi)", "string"),
            ("cmpsl (%rsi), (%rdi)", "string-warning"),
            ("movsb (%rsi), %fs:(%rdi)", "string"),
            ("xlat (%rax)", "string-warning"),
            ("insb %dx, (%rsi)", "string-warning"),
            ("movsq (%rsi), %es:(%rdi)", "valid"),
            ("scasb %es:(%rdi), %al", "valid"),
            ("movsb (%esi), (%edi)", "valid"),
            ("inb %dx, %bl", "string"),
            ("outb %bl, %dx", "string"),
        ]
    )


def _register_class(c: _Context) -> tuple[str, str]:
    return c.rng.choice(
        [
            "addq %xmm0, %rax",
            "movl %eax, %xmm0",
            "paddd %mm0, %xmm1",
            "movq %eax, %xmm0",
            "movd %ax, %xmm0",
            "movaps %xmm0, %ah",
            "pinsrb $1, %ah, %xmm0",
            "addps %xmm16, %xmm2",
            "vblendvps %xmm16, %xmm1, %xmm2, %xmm3",
            "cvtsi2sdl %rax, %xmm0",
            "addl %k1, %eax",
            "incq %xmm1",
            "jmp %rax",
        ]
    ), "register-class"


def _valid(c: _Context) -> tuple[str, str]:
    makers = [f for f, _ in _RUNNABLE + _VECTOR if f not in (_string, _locked, _padding)]
    lines = c.rng.choice(makers)(c)
    return c.rng.choice([l for l in lines if "\n" not in l]), "valid"


# -------------------------------------------------------------- mutations
_MUTANT_REGISTERS = (
    "%al",
    "%ah",
    "%ax",
    "%eax",
    "%rax",
    "%r9b",
    "%r9w",
    "%r9d",
    "%r9",
    "%sil",
    "%spl",
    "%bh",
    "%cl",
    "%dx",
    "%xmm3",
    "%ymm4",
    "%zmm20",
    "%mm1",
    "%k1",
)
_MUTANT_OPERANDS = (
    "$1",
    "$300",
    "$-1",
    "$0x100000000",
    "(%rax)",
    "8(%rbx,%rcx,2)",
    "%fs:(%rdx)",
    "0x10(%rip)",
    "0x1000",
)


def _split(line: str) -> tuple[str, list[str]]:
    head, _, rest = line.partition(" ")
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(rest):
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            parts.append(rest[start:i].strip())
            start = i + 1
    if rest.strip():
        parts.append(rest[start:].strip())
    return head, parts


def mutations(rng: random.Random, n: int) -> list[str]:
    """``n`` random edits of generated instructions: a register replaced by
    one of another width or class, operands reordered, dropped, added or
    replaced, the size suffix changed, a prefix added, a space put after a
    register's ``%``, inside its name or after it (``% rax``, ``%ra x``,
    ``%st (1)``). Many stay valid."""
    out: list[str] = []
    while len(out) < n:
        block = generate_block(rng)
        for line in block.text.split("\n"):
            words = line.split()
            if not words or words[0] in ("rep", "lock", "data16", "repe", "repz", "repne", "repnz") or ";" in line:
                continue
            head, ops = _split(line)
            choice = rng.randrange(7)
            if choice == 6 and "%" in line:
                m = rng.choice(list(re.finditer(r"%[a-z0-9]+", line)))
                at = rng.randrange(m.start() + 1, m.end() + 1)  # right after the % too: "% rax" is %rax
                out.append(line[:at] + rng.choice([" ", "  ", "\t"]) + line[at:])
            elif choice == 0 and "%" in line:
                regs = [m for m in re.finditer(r"%[a-z0-9]+", line)]
                m = rng.choice(regs)
                out.append(line[: m.start()] + rng.choice(_MUTANT_REGISTERS) + line[m.end() :])
            elif choice == 1 and len(ops) > 1:
                rng.shuffle(ops)
                out.append(f"{head} {', '.join(ops)}")
            elif choice == 2:
                stem = head[:-1] if head[-1] in "bwlq" else head
                out.append(f"{stem}{rng.choice('bwlq')} {', '.join(ops)}".strip())
            elif choice == 3 and ops:
                ops[rng.randrange(len(ops))] = rng.choice(_MUTANT_OPERANDS + _MUTANT_REGISTERS)
                out.append(f"{head} {', '.join(ops)}")
            elif choice == 4:
                if ops and rng.random() < 0.5:
                    ops.pop(rng.randrange(len(ops)))
                else:
                    ops.insert(rng.randrange(len(ops) + 1), rng.choice(_MUTANT_OPERANDS + _MUTANT_REGISTERS))
                out.append(f"{head} {', '.join(ops)}".strip())
            else:
                out.append(f"{rng.choice(['lock', 'rep', 'repne', 'data16', 'fs', 'notrack', 'cs'])} {line}")
    return out[:n]
