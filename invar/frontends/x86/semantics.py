"""What each x86-64 instruction reads and writes, explicitly and implicitly.

The tables here are invar's own description of the instruction set, written
from the architecture manuals; tests/frontends/test_x86_capstone.py checks them
against capstone's independent access lists on real BHive blocks.

Two uses, two standards of care:

* **Renamings** need the *implicit* registers exactly: a register an
  instruction uses without naming it (``%rax`` of ``mul``), or names but cannot
  change (``%cl`` as a shift count), is pinned. :func:`implicit_use` returns them.
* **Dependencies** need reads and writes to be complete, never smaller than the
  truth; larger is safe (it only forbids some reorderings). Since every pair of
  writers of one resource is ordered anyway, whether a written destination is
  also read never changes the dependencies, so operand roles are coarse on
  purpose: the last operand is written unless the instruction is known not to
  write it.

:func:`effects` puts together an instruction's implicit registers
(:func:`_implicit`), written operands (:func:`_written`), memory access
(:func:`_memory_access`), flags and whether it is a barrier.

Part of the frontends layer: imports capstone's constants only (no other
invar module); must not import anything above it (encoding, tasks, data, nn,
checkpoint, train, audit, alta, cli).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import capstone.x86_const as _x86

# ------------------------------------------------------------------ mnemonics
_CAPSTONE = frozenset(
    n[len("X86_INS_") :].lower()
    for n in dir(_x86)
    if n.startswith("X86_INS_") and n not in ("X86_INS_INVALID", "X86_INS_ENDING")
)
#: AT&T spellings that are not an Intel mnemonic plus a size suffix
_ATT_EXTRA = {
    "cbtw": "cbw",
    "cwtl": "cwde",
    "cltq": "cdqe",
    "cwtd": "cwd",
    "cltd": "cdq",
    "cqto": "cqo",
    "movabs": "mov",
    "movslq": "movsxd",
    "movsbw": "movsx",
    "movsbl": "movsx",
    "movsbq": "movsx",
    "movswl": "movsx",
    "movswq": "movsx",
    "movzbw": "movzx",
    "movzbl": "movzx",
    "movzbq": "movzx",
    "movzwl": "movzx",
    "movzwq": "movzx",
    "faddp": "faddp",
    "fildll": "fild",
    "fistpll": "fistp",
    "fisttpll": "fisttp",
    "ljmp": "jmp",
    "lcall": "call",
    "lret": "ret",
    "sysretq": "sysret",
    "iretq": "iret",
    "cmpxchg16b": "cmpxchg16b",
    "movsxd": "movsxd",
    "lretq": "ret",
    "lretl": "ret",
    "lretw": "ret",
    # AT&T spells the doubleword string instructions with an l
    "movsl": "movsd",
    "cmpsl": "cmpsd",
    "stosl": "stosd",
    "lodsl": "lodsd",
    "scasl": "scasd",
    "insl": "insd",
    "outsl": "outsd",
    "xlat": "xlatb",
    # GNU as and llvm-mc also spell the popping compares with the p last
    "fcomip": "fcompi",
    "fucomip": "fucompi",
}
#: the source width, in bits, that the x or y of a narrowing conversion's AT&T spelling names
NARROWING_SOURCE_BITS = {"x": 128, "y": 256}
#: narrowing conversions whose AT&T spelling names the source width with x or y
#: (``vcvtpd2psy (%rax), %xmm0`` reads 32 bytes into an xmm register)
NARROWING = frozenset(
    "vcvtpd2ps vcvtpd2dq vcvttpd2dq vcvtpd2udq vcvttpd2udq vcvtqq2ps vcvtuqq2ps vcvtneps2bf16".split()
)
_CMP_PREDICATES = (
    "eq|lt|le|unord|neq|nlt|nle|ord|eq_uq|nge|ngt|false|neq_oq|ge|gt|true|eq_os|lt_oq|le_oq"
    "|unord_s|neq_us|nlt_uq|nle_uq|ord_s|eq_us|nge_uq|ngt_uq|false_os|neq_os|ge_oq|gt_oq|true_us"
)
_CMP_PSEUDO = re.compile(rf"^(v?)cmp(?:{_CMP_PREDICATES})(ps|pd|ss|sd)$")
_VPCMP_PSEUDO = re.compile(r"^vpcmp(?:eq|lt|le|neq|nlt|nle|ge|gt|false|true)(u?)(b|w|d|q)$")
#: condition-code spellings capstone does not use (``jz``, ``setnae``, ``cmovc``) and its own
_CC_ALIAS = {
    "z": "e",
    "nz": "ne",
    "c": "b",
    "nae": "b",
    "nc": "ae",
    "nb": "ae",
    "na": "be",
    "nbe": "a",
    "pe": "p",
    "po": "np",
    "nge": "l",
    "nl": "ge",
    "ng": "le",
    "nle": "g",
}
_CC_FORM = re.compile(r"^(j|set|cmov)(" + "|".join(sorted(_CC_ALIAS, key=len, reverse=True)) + r")[bwlq]?$")


def base_mnemonic(mnemonic: str) -> str | None:
    """The Intel mnemonic behind an AT&T one (``addq`` -> ``add``,
    ``movzbl`` -> ``movzx``, ``vcmpltps`` -> ``vcmpps``), or None if unknown."""
    m = mnemonic.lower()
    if m in _ATT_EXTRA:
        return _ATT_EXTRA[m]
    if m in _CAPSTONE:
        return m
    hit = _CMP_PSEUDO.match(m)
    if hit:
        return f"{hit.group(1)}cmp{hit.group(2)}"
    hit = _VPCMP_PSEUDO.match(m)
    if hit:
        return f"vpcmp{hit.group(1)}{hit.group(2)}"
    hit = _CC_FORM.match(m)
    if hit:
        return hit.group(1) + _CC_ALIAS[hit.group(2)]
    if m[-1:] in ("x", "y") and m[:-1] in NARROWING and m[:-1] in _CAPSTONE:
        return m[:-1]
    for suffix in ("ll", "b", "w", "l", "q", "s", "t"):
        if m.endswith(suffix) and m[: -len(suffix)] in _CAPSTONE:
            return m[: -len(suffix)]
    # conversions spell the source size: cvtsi2sdl, vcvtusi2ssq
    if m[-1] in "lq" and m[:-1] in _CAPSTONE:
        return m[:-1]
    return None


def stripped_suffix(mnemonic: str) -> str:
    """The size suffix :func:`base_mnemonic` took off (``flds`` -> ``s``,
    ``padddb`` -> ``b``), or "" when the mnemonic is a name of its own."""
    m = mnemonic.lower()
    if m in _ATT_EXTRA or m in _CAPSTONE or _CMP_PSEUDO.match(m) or _VPCMP_PSEUDO.match(m) or _CC_FORM.match(m):
        return ""
    if m[-1:] in ("x", "y") and m[:-1] in NARROWING and m[:-1] in _CAPSTONE:
        return m[-1]
    for suffix in ("ll", "b", "w", "l", "q", "s", "t"):
        if m.endswith(suffix) and m[: -len(suffix)] in _CAPSTONE:
            return suffix
    return ""


def suffix_bytes(mnemonic: str, base: str) -> int | None:
    """Operand size in bytes spelled by an AT&T size suffix, if any."""
    extra = mnemonic[len(base) :]
    return {"b": 1, "w": 2, "l": 4, "q": 8}.get(extra)


# ------------------------------------------------------------ memory extents
#: x87 memory operands by size suffix, in bytes (AT&T: on a real, s is 32-bit, l 64-bit, t 80-bit; on an
#: integer, s is 16-bit, l 32-bit, ll 64-bit): faddl reads a double, fiaddl a 32-bit integer
_X87_REAL = {"s": 4, "l": 8, "t": 10}
_X87_INTEGER = {"s": 2, "l": 4, "ll": 8}
_X87_MEMORY: dict[str, dict[str, int]] = {
    **{m: _X87_REAL for m in "fld fst fstp fadd fsub fsubr fmul fdiv fdivr fcom fcomp".split()},
    **{m: _X87_INTEGER for m in "fild fist fistp fisttp fiadd fisub fisubr fimul fidiv fidivr ficom ficomp".split()},
    **{m: {"": 2, "w": 2} for m in "fldcw fnstcw fstcw fnstsw fstsw".split()},
    **{m: {"": 10} for m in ("fbld", "fbstp")},
}
#: instructions whose memory operand is wider than every register operand, and its width in bytes
#: (the suffix of cvttsd2sil spells the destination's size, not the 64-bit source's)
_MEMORY_BYTES = {
    **dict.fromkeys(("cvtsd2si", "cvttsd2si", "vcvtsd2si", "vcvttsd2si", "vcvtsd2usi", "vcvttsd2usi"), 8),
    **dict.fromkeys(("cvtss2si", "cvttss2si", "vcvtss2si", "vcvttss2si", "vcvtss2usi", "vcvttss2usi"), 4),
    **dict.fromkeys(("cvtpd2pi", "cvttpd2pi"), 16),  # two doubles into an MMX register
    **dict.fromkeys(("ldmxcsr", "vldmxcsr", "stmxcsr", "vstmxcsr"), 4),
    **dict.fromkeys(("sgdt", "sidt", "lgdt", "lidt"), 10),  # limit and 64-bit base
    **dict.fromkeys(("invpcid", "invept", "invvpid"), 16),  # a 128-bit descriptor beside a 64-bit register
}


def memory_bytes(mnemonic: str, base: str, operands: list[dict], x87: bool) -> int | None:
    """How many bytes one memory operand of this instruction touches, at most,
    as its operation says (not as the registers beside it suggest); None when
    nothing bounds it here (the caller knows unbounded instructions).

    In order: x87 forms by their suffix (:data:`_X87_MEMORY`); the
    instructions of :data:`_MEMORY_BYTES`; far pointers (``lfs``: a 16-bit
    selector after the offset); narrowing conversions, whose source is twice
    their destination (``vcvtpd2psy``: the x or y says which); the size
    suffix; the widest register operand; 64 bytes (a zmm register) when
    nothing else tells."""
    suffix = mnemonic[len(base) :]
    widths = [o["reg"].bits // 8 for o in operands if o["kind"] == "reg" and o["reg"].cls in ("gpr", "vec", "mmx")]
    if x87:
        sizes = _X87_MEMORY.get(base)
        if sizes is not None and suffix in sizes:
            return sizes[suffix]
        return max([10] + widths)  # 80-bit reals and BCD at most; environments are unbounded
    if base in _MEMORY_BYTES:
        return _MEMORY_BYTES[base]
    if base in ("lfs", "lgs", "lss"):
        return 2 + (max(widths) if widths else 8)
    if base in NARROWING:
        if suffix in ("x", "y"):
            return NARROWING_SOURCE_BITS[suffix] // 8
        return 2 * max(widths) if widths else _WIDEST  # %ymm destination: a zmm source
    size = suffix_bytes(mnemonic, base)
    if size is not None:
        return size
    return max(widths) if widths else _WIDEST


#: the widest memory access a single bounded operand makes (a zmm register)
_WIDEST = 64


# ------------------------------------------------------------ flag behaviour
_FLAG_WRITERS = frozenset(
    """add sub adc sbb and or xor cmp test neg inc dec shl sal shr sar rol ror rcl rcr shld shrd
    bt bts btr btc bsf bsr lzcnt tzcnt popcnt imul mul div idiv andn blsr blsi blsmsk bextr bzhi
    comiss ucomiss comisd ucomisd vcomiss vucomiss vcomisd vucomisd vcomish vucomish
    ptest vptest vtestps vtestpd pcmpistri pcmpistrm pcmpestri pcmpestrm vpcmpistri vpcmpistrm
    vpcmpestri vpcmpestrm popf popfq popfd sahf cmpxchg cmpxchg8b cmpxchg16b xadd cmpsb cmpsw cmpsd
    cmpsq scasb scasw scasd scasq stc clc cmc cld std fcomi fucomi fcomip fucomip fcompi fucompi
    rdrand rdseed adcx adox aaa aas daa das aam aad arpl lar lsl verr verw sysret iret iretq
    kortestb kortestw kortestd kortestq ktestb ktestw ktestd ktestq rsm clac stac xtest
    syscall sysenter sysexit int int1 int3 into ud0 ud1 ud2 encls enclu""".split()
)
_FLAG_READERS = frozenset(
    """adc sbb rcl rcr pushf pushfq pushfd lahf cmc adcx adox loope loopne into salc
    fcmovb fcmovbe fcmove fcmovnb fcmovnbe fcmovne fcmovnu fcmovu
    movsb movsw movsd movsq lodsb lodsw lodsd lodsq stosb stosw stosd stosq cmpsb cmpsw cmpsd
    cmpsq scasb scasw scasd scasq insb insw insd outsb outsw outsd""".split()
)
_JCC = re.compile(r"^j(?!mp$)[a-z]+$")
_CMOV = re.compile(r"^(?:cmov|set|fcmov)[a-z]+$")

# ------------------------------------------------- operand-role exceptions
#: instructions that write none of their explicit operands
_NO_WRITE = frozenset(
    """cmp test bt ucomiss comiss ucomisd comisd vucomiss vcomiss vucomisd vcomisd vucomish vcomish
    ptest vptest vtestps vtestpd push jmp call ret nop prefetcht0 prefetcht1 prefetcht2 prefetchnta
    prefetchw prefetchwt1 prefetch clflush clflushopt clwb pcmpistri pcmpestri vpcmpistri vpcmpestri
    div idiv mul ldmxcsr vldmxcsr fldcw fldenv frstor fxrstor fxrstor64 xrstor xrstor64 xrstors
    xrstors64 bound kortestb kortestw kortestd kortestq ktestb ktestw ktestd ktestq
    out outsb outsw outsd int lfence mfence sfence pause wait fwait ud0 ud1 ud2 hlt
    ficom ficomp fcom fcomp fucom fucomp fcomi fucomi fcomip fucomip fcompi fucompi ftst fxam
    verr verw invlpg monitor mwait umonitor umwait tpause endbr64 endbr32""".split()
)
#: instructions that write every explicit register operand
_WRITE_ALL = frozenset("xchg xadd cmpxchg cmpxchg8b cmpxchg16b mulx".split())
#: control flow: nothing may move across these within a block
_CONTROL = frozenset(
    """jmp call ret iret iretq iretd syscall sysret sysenter sysexit int int1 int3 into ud0 ud1 ud2
    hlt loop loope loopne jrcxz jecxz jcxz xbegin xend xabort rsm enter leave""".split()
)
#: instructions whose result depends on something outside the block's state
_NONDETERMINISTIC = frozenset(
    (
        "rdtsc rdtscp rdrand rdseed rdpmc rdpid rdmsr wrmsr cpuid xgetbv xsetbv in out insb insw insd outsb outsw outsd"
    ).split()
)
#: instructions with no memory effect despite a memory operand
_NO_MEMORY = frozenset(
    """lea nop prefetcht0 prefetcht1 prefetcht2 prefetchnta prefetchw prefetchwt1 prefetch""".split()
)
#: instructions whose memory extent is not described by their operand
_UNBOUNDED_MEMORY = frozenset(
    """fxsave fxsave64 fxrstor fxrstor64 xsave xsave64 xsaveopt xsaveopt64 xsavec xsavec64 xsaves
    xsaves64 xrstor xrstor64 xrstors xrstors64 fnsave fsave frstor fldenv fnstenv fstenv
    maskmovq maskmovdqu vmaskmovdqu clflush clflushopt clwb enter leave""".split()
)
_STRING = re.compile(r"^(movs|lods|stos|cmps|scas|ins|outs)[bwdq]$")


@dataclass(frozen=True, slots=True)
class Implicit:
    """Registers an instruction uses without a choice of which."""

    #: referents read implicitly (``gpr:a``, ``vec:0`` …)
    reads: frozenset[str] = frozenset()
    #: referents written implicitly
    writes: frozenset[str] = frozenset()
    #: referents of explicit operands that cannot be changed (``%cl`` as a count)
    fixed: frozenset[str] = frozenset()
    #: vector registers touched as a whole file (vzeroupper): renamings stay inside 0..15
    vector_file: bool = False
    #: registers of every renamable class are exposed (fxsave): pin everything
    everything: bool = False


def _f(*names: str) -> frozenset[str]:
    return frozenset(f"gpr:{n}" for n in names)


_NONE = Implicit()
_IMPLICIT: dict[str, Implicit] = {
    "cbw": Implicit(_f("a"), _f("a")),
    "cwde": Implicit(_f("a"), _f("a")),
    "cdqe": Implicit(_f("a"), _f("a")),
    "cwd": Implicit(_f("a"), _f("d")),
    "cdq": Implicit(_f("a"), _f("d")),
    "cqo": Implicit(_f("a"), _f("d")),
    "cpuid": Implicit(_f("a", "c"), _f("a", "b", "c", "d")),
    "rdtsc": Implicit(frozenset(), _f("a", "d")),
    "rdtscp": Implicit(frozenset(), _f("a", "d", "c")),
    "rdpmc": Implicit(_f("c"), _f("a", "d")),
    "rdmsr": Implicit(_f("c"), _f("a", "d")),
    "wrmsr": Implicit(_f("a", "c", "d")),
    "xgetbv": Implicit(_f("c"), _f("a", "d")),
    "xsetbv": Implicit(_f("a", "c", "d")),
    "rdpkru": Implicit(_f("c"), _f("a", "d")),
    "wrpkru": Implicit(_f("a", "c", "d")),
    "lahf": Implicit(frozenset(), _f("a")),
    "sahf": Implicit(_f("a")),
    "cmpxchg": Implicit(_f("a"), _f("a")),
    "cmpxchg8b": Implicit(_f("a", "b", "c", "d"), _f("a", "d")),
    "cmpxchg16b": Implicit(_f("a", "b", "c", "d"), _f("a", "d")),
    "xlatb": Implicit(_f("a", "b"), _f("a")),
    "push": Implicit(_f("sp"), _f("sp")),
    "pop": Implicit(_f("sp"), _f("sp")),
    "pushf": Implicit(_f("sp"), _f("sp")),
    "popf": Implicit(_f("sp"), _f("sp")),
    "pushfq": Implicit(_f("sp"), _f("sp")),
    "popfq": Implicit(_f("sp"), _f("sp")),
    "call": Implicit(_f("sp"), _f("sp")),
    "ret": Implicit(_f("sp"), _f("sp")),
    "enter": Implicit(_f("sp", "bp"), _f("sp", "bp")),
    "leave": Implicit(_f("sp", "bp"), _f("sp", "bp")),
    "loop": Implicit(_f("c"), _f("c")),
    "loope": Implicit(_f("c"), _f("c")),
    "loopne": Implicit(_f("c"), _f("c")),
    "jrcxz": Implicit(_f("c")),
    "jecxz": Implicit(_f("c")),
    "jcxz": Implicit(_f("c")),
    "syscall": Implicit(_f("a"), _f("c", "r11"), everything=True),
    "mulx": Implicit(_f("d")),
    "monitor": Implicit(_f("a", "c", "d")),
    "mwait": Implicit(_f("a", "c")),
    "pcmpistri": Implicit(frozenset(), _f("c")),
    "vpcmpistri": Implicit(frozenset(), _f("c")),
    "pcmpestri": Implicit(_f("a", "d"), _f("c")),
    "vpcmpestri": Implicit(_f("a", "d"), _f("c")),
    "pcmpistrm": Implicit(frozenset(), frozenset({"vec:0"})),
    "vpcmpistrm": Implicit(frozenset(), frozenset({"vec:0"})),
    "pcmpestrm": Implicit(_f("a", "d"), frozenset({"vec:0"})),
    "vpcmpestrm": Implicit(_f("a", "d"), frozenset({"vec:0"})),
    "maskmovq": Implicit(_f("di")),
    "maskmovdqu": Implicit(_f("di")),
    "vmaskmovdqu": Implicit(_f("di")),
    "vzeroupper": Implicit(frozenset(), frozenset(f"vec:{i}" for i in range(16)), vector_file=True),
    "vzeroall": Implicit(frozenset(), frozenset(f"vec:{i}" for i in range(16)), vector_file=True),
    "clzero": Implicit(_f("a")),
    "xsave": Implicit(_f("a", "d"), everything=True),
    "xsave64": Implicit(_f("a", "d"), everything=True),
    "xsaveopt": Implicit(_f("a", "d"), everything=True),
    "xsavec": Implicit(_f("a", "d"), everything=True),
    "xsaves": Implicit(_f("a", "d"), everything=True),
    "xrstor": Implicit(_f("a", "d"), everything=True),
    "xrstor64": Implicit(_f("a", "d"), everything=True),
    "xrstors": Implicit(_f("a", "d"), everything=True),
    "fxsave": Implicit(everything=True),
    "fxsave64": Implicit(everything=True),
    "fxrstor": Implicit(everything=True),
    "fxrstor64": Implicit(everything=True),
    "emms": Implicit(everything=True),
    "femms": Implicit(everything=True),
    "fnstsw": Implicit(),
}
for _op, _reads, _writes in (
    ("movs", ("si", "di"), ("si", "di")),
    ("lods", ("si",), ("si", "a")),
    ("stos", ("a", "di"), ("di",)),
    ("cmps", ("si", "di"), ("si", "di")),
    ("scas", ("a", "di"), ("di",)),
    ("ins", ("d", "di"), ("di",)),
    ("outs", ("d", "si"), ("si",)),
):
    for _s in "bwdq":
        _IMPLICIT[_op + _s] = Implicit(_f(*_reads), _f(*_writes))


@dataclass(frozen=True, slots=True)
class Effects:
    """The semantics of one instruction as far as invar needs them."""

    implicit: Implicit
    #: explicit operand indices that are written (AT&T order, destination last)
    written: tuple[int, ...]
    #: reads or writes the arithmetic flags
    reads_flags: bool
    writes_flags: bool
    #: reads or writes memory through its operands or implicitly
    reads_memory: bool
    writes_memory: bool
    #: memory touched is not described by its operands (push, string ops, fxsave …)
    unbounded_memory: bool
    #: nothing may be reordered across it (control flow, time, I/O)
    barrier: bool
    #: touches the x87 register stack or status
    x87: bool
    #: resources besides registers, flags, memory and ``x87`` that it reads and
    #: writes (``mxcsr``, a segment base ``seg:fs``)
    other_reads: frozenset[str] = frozenset()
    other_writes: frozenset[str] = frozenset()
    #: resources it only updates in a way that commutes with every other such
    #: update of the same resource (see :data:`ACCUMULATING`); they are read and written
    accumulates: frozenset[str] = frozenset()
    #: no architectural effect at all (``nop`` with any operands): reads and writes nothing
    inert: bool = False


def effects(mnemonic: str, base: str, operands: list[dict], prefixes: tuple[str, ...] = ()) -> Effects:
    """Effects of one instruction. ``operands`` are the parsed operands, each a
    dict with ``kind`` (``reg``, ``mem``, ``imm``, ``target``) and, for ``reg``,
    ``reg`` (a :class:`~invar.frontends.x86.registers.Reg`); ``prefixes`` the
    prefix words before the mnemonic (``rep``, ``lock`` …)."""
    # movsd/cmpsd name both a string and an SSE instruction: vector operands decide
    string = bool(_STRING.match(base)) and not any(o["kind"] == "reg" and o["reg"].cls == "vec" for o in operands)
    repeated = string and any(p.startswith("rep") for p in prefixes)
    implicit = _implicit(mnemonic, base, operands, string, repeated)
    written = _written(base, operands, string)
    mem_ops = [o for o in operands if o["kind"] == "mem"]
    reads_memory, writes_memory, unbounded = _memory_access(base, operands, written, string)
    barrier = (
        base in _CONTROL
        or bool(_JCC.match(base))
        or base in _NONDETERMINISTIC
        or implicit.everything
        or any(o.get("rip") for o in mem_ops)
        or any(o["kind"] == "target" for o in operands)
    )
    # an SSE movsd/cmpsd is no string instruction: the string tables do not apply to it
    named = base if string or not _STRING.match(base) else ""
    x87 = (
        base.startswith("f")
        and base not in ("femms",)
        or any(o["kind"] == "reg" and o["reg"].cls == "x87" for o in operands)
    )
    mmx = not x87 and (base in _MMX_TRANSITION or any(o["kind"] == "reg" and o["reg"].cls == "mmx" for o in operands))
    accumulates = frozenset(({"x87"} if mmx else set()) | ({"mxcsr"} if simd_floating_point(base, string) else set()))
    return Effects(
        implicit=implicit,
        written=written,
        reads_flags=named in _FLAG_READERS or bool(_JCC.match(base)) or bool(_CMOV.match(base)) or repeated,
        writes_flags=named in _FLAG_WRITERS,
        reads_memory=reads_memory,
        writes_memory=writes_memory,
        unbounded_memory=unbounded,
        barrier=barrier,
        x87=x87,
        other_reads=_OTHER.get(base, _NO_OTHER)[0],
        other_writes=_OTHER.get(base, _NO_OTHER)[1],
        accumulates=accumulates,
        inert=base == "nop",
    )


# ------------------------------------------------------- MXCSR, MMX, segment bases
#: resources whose updates by some instructions commute with each other:
#:
#: * ``mxcsr``: an SSE/AVX floating-point instruction reads the control bits
#:   (rounding, exception masks, DAZ, FTZ) and ORs its exception flags into
#:   the sticky flags. Two such updates commute; ``ldmxcsr`` (a write) and
#:   ``stmxcsr`` (a read of the flags) do not commute with them.
#: * ``x87``: an MMX instruction reads or writes the x87 registers under their
#:   MMX names (tracked as ``mmx:N``) and sets the top of the stack to 0 and
#:   every register valid: the same change whichever MMX instruction makes it,
#:   so MMX instructions commute with each other on it, and every x87
#:   instruction (which reads and writes the stack) conflicts with them.
ACCUMULATING = ("mxcsr", "x87")
#: instructions that switch to MMX operation without naming an MMX register (their memory forms)
_MMX_TRANSITION = frozenset("cvtpi2ps cvtpi2pd cvtps2pi cvttps2pi cvtpd2pi cvttpd2pi movq2dq movdq2q".split())
_MXCSR, _FS, _GS, _EMPTY = frozenset({"mxcsr"}), frozenset({"seg:fs"}), frozenset({"seg:gs"}), frozenset()
#: instruction -> (the resources besides registers, flags, memory and x87 it reads, those it writes)
_OTHER = {
    "ldmxcsr": (_EMPTY, _MXCSR),
    "vldmxcsr": (_EMPTY, _MXCSR),
    "stmxcsr": (_MXCSR, _EMPTY),
    "vstmxcsr": (_MXCSR, _EMPTY),
    "wrfsbase": (_EMPTY, _FS),
    "wrgsbase": (_EMPTY, _GS),
    "rdfsbase": (_FS, _EMPTY),
    "rdgsbase": (_GS, _EMPTY),
    "swapgs": (_GS, _GS),
}
_NO_OTHER = (_EMPTY, _EMPTY)
#: floating-point SIMD instructions that cannot raise an exception nor round: moves, logic, shuffles, blends
_NOT_ROUNDING = re.compile(
    r"^v?(?:mov|and|or|xor|shuf|unpck|blend|perm|broadcast|extract|insert|maskmov|gather|scatter|expand|compress"
    r"|test)"
)


def simd_floating_point(base: str, string: bool = False) -> bool:
    """An SSE/AVX floating-point instruction that reads MXCSR (its rounding
    mode, masks, DAZ/FTZ) and sets its exception flags, conservatively: every
    conversion (``cvt…``) and every instruction on packed or scalar singles,
    doubles or halves (``…ps``, ``…pd``, ``…ss``, ``…sd``, ``…ph``, ``…sh``)
    except moves, logic, shuffles and blends, which neither round nor raise."""
    if string or base.startswith("f"):
        return False
    if "cvt" in base:
        return True
    if base.startswith(("p", "vp")) or _NOT_ROUNDING.match(base):
        return False
    return re.search(r"(?:ps|pd|ss|sd|ph|sh)$", base) is not None


def _implicit(mnemonic: str, base: str, operands: list[dict], string: bool, repeated: bool) -> Implicit:
    """The registers an instruction uses without a choice of which: its table
    entry, what some forms add to it, and the explicit operands it pins."""
    n = len(operands)
    # rep-prefixed and plain string instructions share semantics
    # movsd and cmpsd with xmm operands are SSE instructions, not the string ones
    sse = bool(_STRING.match(base)) and not string
    implicit = _NONE if sse else _IMPLICIT.get(base) or _IMPLICIT.get(mnemonic) or _NONE
    if base in ("mul", "imul", "div", "idiv") and (base != "imul" or n == 1):
        wide = not (suffix_bytes(mnemonic, base) == 1 or (n == 1 and operands[0].get("bits") == 8))
        regs = _f("a", "d") if wide else _f("a")
        reads = regs if base in ("div", "idiv") else _f("a")
        implicit = Implicit(reads, regs)
    fixed = _fixed_operands(mnemonic, base, operands, string)
    if base in ("shld", "shrd") and n == 2:  # the count is %cl, unwritten
        implicit = Implicit(implicit.reads | _f("c"), implicit.writes)
        fixed.add("gpr:c")
    if base in ("blendvps", "blendvpd", "pblendvb", "sha256rnds2"):
        # %xmm0 is the selector, written as a first operand or left implicit
        implicit = Implicit(implicit.reads | {"vec:0"}, implicit.writes)
        fixed.add("vec:0")
    if repeated:  # rep: %rcx counts the iterations (and repe/repne test the flags)
        implicit = Implicit(implicit.reads | _f("c"), implicit.writes | _f("c"))
        fixed.add("gpr:c")
    if fixed:
        implicit = Implicit(
            implicit.reads,
            implicit.writes,
            frozenset(fixed) | implicit.fixed,
            implicit.vector_file,
            implicit.everything,
        )
    return implicit


def _fixed_operands(mnemonic: str, base: str, operands: list[dict], string: bool) -> set[str]:
    """Referents of explicit operands no other register could replace."""
    fixed: set[str] = set()
    if base in ("shl", "sal", "shr", "sar", "rol", "ror", "rcl", "rcr", "shld", "shrd"):
        if len(operands) >= 2 and operands[0]["kind"] == "reg" and operands[0]["reg"].name == "cl":
            fixed.add("gpr:c")
    if base in ("in", "out", "fnstsw", "fstsw"):  # only %dx/%al/%ax are encodable here
        fixed.update(o["reg"].referent for o in operands if o["kind"] == "reg")
    if mnemonic.startswith("movabs") and any(o["kind"] == "mem" for o in operands):
        # the moffs form: only the accumulator takes a 64-bit absolute address
        fixed.add("gpr:a")
    if string:
        # string forms may spell their fixed operands: movsb (%rsi), %es:(%rdi)
        fixed.update(r.referent for o in operands if o["kind"] == "mem" for r in o["regs"] if r.cls == "gpr")
        fixed.update(o["reg"].referent for o in operands if o["kind"] == "reg" and o["reg"].cls == "gpr")
    return fixed


def _written(base: str, operands: list[dict], string: bool) -> tuple[int, ...]:
    """Which explicit operands are written."""
    if base in _NO_WRITE or not operands or string:
        return ()
    if base in _WRITE_ALL:
        return tuple(i for i, o in enumerate(operands) if o["kind"] in ("reg", "mem"))
    # AVX-512 gathers clear their mask; vgather (AVX2) clears its mask operand
    if base.startswith("vgather") or base.startswith("vpgather"):
        return tuple(i for i, o in enumerate(operands) if o["kind"] == "reg")
    return (len(operands) - 1,) if operands[-1]["kind"] in ("reg", "mem") else ()


def _memory_access(base: str, operands: list[dict], written: tuple[int, ...], string: bool) -> tuple[bool, bool, bool]:
    """Whether the instruction reads memory, writes it, and touches memory its
    operands do not describe."""
    mem_ops = [o for o in operands if o["kind"] == "mem"]
    touches = bool(mem_ops) and base not in _NO_MEMORY
    reads = touches or string or base in ("pop", "popf", "popfq", "ret", "leave", "xlatb")
    writes = (
        any(i in written for i, o in enumerate(operands) if o["kind"] == "mem")
        or base in ("push", "pushf", "pushfq", "call", "enter")
        or (string and base[:4] in ("movs", "stos", "ins"))
        or base in _UNBOUNDED_MEMORY
        and touches
        or base in ("maskmovq", "maskmovdqu", "vmaskmovdqu")
        or base.startswith(("vscatter", "vpscatter"))
    )
    unbounded = (
        string
        or base in _UNBOUNDED_MEMORY
        or base in ("push", "pop", "pushf", "popf", "pushfq", "popfq", "call", "ret")
        or any(o.get("vsib") for o in mem_ops)
        or base in ("maskmovq", "maskmovdqu", "vmaskmovdqu")
    )
    return reads, writes, unbounded
