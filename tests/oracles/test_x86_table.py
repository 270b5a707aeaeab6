"""Every class of issue 7 as a table of cases with exact answers.

Each valid row gives a block, its exact number of renamings and of
permutations (worked out by hand in the comment beside it), and whether
unicorn can run it. Every permutation and every renaming (all of them, or a
seeded sample of 20 where there are more than 160) must assemble with
``llvm-mc`` and, where runnable, end in the same state (tests/oracles/
x86_oracle.py). Each invalid row gives the exact error: message, line and
column.
"""

from __future__ import annotations

import random
import shutil

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse, renaming_space
from invar.symmetry.permutations import PermutationSpace
from tests.oracles.x86_oracle import assemble_lines, check_blocks

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mc") is None, reason="needs llvm-mc (.ci/run installs Debian's llvm)"
)

ENUMERATE_UP_TO = 160
SAMPLE = 20

# (id, source, renamings, permutations, runnable in unicorn)
VALID = [
    # --- a prefix alone on its line belongs to the next instruction
    # rep pins %rcx, %rsi, %rdi; %rax, %rbx take 13 * 12 of the other 13 bases;
    # the lea goes anywhere in the chain movl -> rep movsb -> movl: 4 orders
    ("rep-own-line", "movl $3, %ecx\nrep\nmovsb\nmovl $5, %ecx\nleaq 8(%rax), %rbx", 13 * 12, 4, True),
    # stos also stores %rax: %rax, %rcx, %rdi pinned
    ("rep-semicolon", "movl $3, %ecx\nrep; stosq\nleaq 8(%r8), %rbx", 13 * 12, 3, True),
    ("rep-same-line", "movl $2, %ecx\nrep movsl (%rsi), %es:(%rdi)\nleaq 8(%rax), %rbx", 13 * 12, 3, True),
    # repe/repne also read and write the flags: sete stays after; the movq goes anywhere (4 orders);
    # %rax, %r8, %r9 take 13 * 12 * 11 bases besides %rcx, %rsi, %rdi
    ("repe-flags", "movl $2, %ecx\nrepe cmpsb\nsete %al\nmovq %r8, %r9", 13 * 12 * 11, 4, True),
    # scas compares with %al: %rax, %rcx, %rdi pinned
    ("repne-scas", "movl $4, %ecx\nrepne\nscasb %es:(%rdi), %al\nsetne %dl\nmovq %r8, %r9", 13 * 12 * 11, 4, True),
    # lock cmpxchg pins %rax; %rcx, %rdi, %rdx, %rsi take 15 * 14 * 13 * 12; independent: 2 orders
    ("lock-semicolon", "lock; cmpxchgl %ecx, (%rdi)\nmovl %edx, %esi", 15 * 14 * 13 * 12, 2, True),
    ("lock-own-line", "lock\naddq $1, 8(%rbx)\nleaq 1(%rcx), %rcx", 16 * 15, 2, True),
    ("lock-same-line", "lock xaddq %rax, (%rbx)\nleaq 1(%rcx), %rdx", 16 * 15 * 14 * 13, 2, True),
    # nop padding: %rax is an index (never %rsp): 15 choices, then %rbx, %rcx 15 * 14
    ("padding", "data16 cs nopw 0x0(%rax,%rax,1)\naddl %ebx, %ecx", 15 * 15 * 14, 2, True),
    ("padding-own-line", "data16\ncs nopw 0x0(%rax,%rax,1)\naddl %ebx, %ecx", 15 * 15 * 14, 2, True),
    # rep ret: ret is a barrier and pins %rsp: 15 * 14
    ("rep-ret", "addq %rax, %rbx\nrep ret", 15 * 14, 1, True),
    ("repz-ret-own-line", "addq %rax, %rbx\nrepz\nret", 15 * 14, 1, True),
    # --- a write mask is never %k0: 7 masks; %zmm 32 * 31 * 30
    ("write-mask", "vaddps %zmm1, %zmm2, %zmm3 {%k1}", 32 * 31 * 30 * 7, 1, False),
    # kmovw into %k1 before its use; the last kmovw anywhere (3 orders).
    # %rax, %rcx 16 * 15; %k1 7 (a write mask), %k2 any other of 8: 7; vectors 32 * 31 * 30
    (
        "write-mask-zeroing",
        "kmovw %eax, %k1\nvaddps %zmm1, %zmm2, %zmm3 {%k1} {z}\nkmovw %k2, %ecx",
        16 * 15 * 7 * 7 * 32 * 31 * 30,
        3,
        False,
    ),
    # a gather's mask is a write mask too; data and index distinct, any of 32
    ("gather-mask", "vpgatherdd 8(%rax,%zmm1,4), %zmm2 {%k3}", 16 * 32 * 31 * 7, 1, False),
    # --- movabs with a 64-bit address: the accumulator is pinned
    ("movabs-load", "movabs 0x112233445566, %al\nmovq %rbx, %rcx", 15 * 14, 2, True),
    ("movabs-store", "movabs %eax, 0x112233445560\naddl %eax, %edx", 15, 2, True),
    ("movabs-immediate", "movabsq $0x1122334455667788, %rbx\naddq %rbx, %rcx", 16 * 15, 1, True),
    # --- other fixed and implicit operands
    # two-operand shld shifts by %cl: pinned; %rax, %rbx, %rdx, %rsi: 15 * 14 * 13 * 12
    ("shld-implicit-cl", "shldl %eax, %ebx\nmovl %edx, %esi", 15 * 14 * 13 * 12, 2, True),
    # two-operand blendvps selects by %xmm0: pinned; four others in %xmm1-15
    ("blendv-implicit-xmm0", "blendvps %xmm2, %xmm1\naddps %xmm3, %xmm4", 15 * 14 * 13 * 12, 2, True),
    # %cl pinned; %rdx any of 15; %ah and %bl (no REX beside %ah) among a, b, d less what %rdx took:
    # %rdx on a, b or d (3 ways) leaves 2 * 1, elsewhere (12 ways) 3 * 2: 3 * 2 + 12 * 6 = 78
    ("shift-cl-high-byte", "shlq %cl, %rdx\nmovb %ah, %bl", 78, 2, True),
    ("xlatb", "xlatb\nmovq %rcx, %rdx", 14 * 13, 2, True),
    ("string-explicit", "movsq (%rsi), %es:(%rdi)\nleaq 8(%rax), %rbx", 14 * 13, 2, True),
    # in reads the world outside the block: a barrier; %al and %dx pinned
    ("in-port", "inb %dx, %al\naddl %ecx, %ebx", 14 * 13, 1, False),
    # div pins %rax, %rdx; the divisor %rcx is free: %rcx, %r8, %r9 14 * 13 * 12;
    # xorl and movl before divl in either order, the movq anywhere: 2 * 4
    ("divide", "xorl %edx, %edx\nmovl $7, %ecx\ndivl %ecx\nmovq %r8, %r9", 14 * 13 * 12, 8, True),
    ("cqto", "cqto\nmovq %rbx, %rcx", 14 * 13, 2, True),
    ("cmpxchg-implicit", "cmpxchgq %rcx, (%rdi)\nmovq %rbx, %rsi", 15 * 14 * 13 * 12, 2, True),
    # a segment prefix word: fs selects the segment of the load
    ("segment-word", "fs movl (%rax), %ebx\nmovl %ecx, %edx", 16 * 15 * 14 * 13, 2, True),
    # rip-relative operands are barriers
    ("rip-relative", "movq 0x1000(%rip), %rax\naddq %rbx, %rcx", 16 * 15 * 14, 1, True),
    # --- the x86 hunt (docs/semantics.md, x86-64): memory extents from the operation, not the registers
    # an l on x87 arithmetic is a 64-bit real: the store of its high half (making it about 3.1) comes first;
    # fld1 goes anywhere before the arithmetic (3 orders); %rsi, %rcx 16 * 15, or 15 * 14 beside the
    # fixed %ax of fnstsw, which makes a compare's result a register the emulator compares
    *(
        (
            f"x87-{op}-double",
            f"fld1\nmovl $0x40090000, %ecx\nmovl %ecx, 4(%rsi)\n{op} (%rsi)" + ("\nfnstsw %ax" if "com" in op else ""),
            15 * 14 if "com" in op else 16 * 15,
            3,
            True,
        )
        for op in ("faddl", "fsubl", "fsubrl", "fmull", "fdivl", "fdivrl", "fcoml", "fcompl")
    ),
    # s is a 32-bit real, and on an integer form s is 16 bits, l 32: disjoint, the store goes anywhere
    ("x87-fadds-single", "fld1\nmovl %ecx, 4(%rax)\nfadds (%rax)", 16 * 15, 3, True),
    ("x87-fiadds-word", "fld1\nmovw %cx, 2(%rax)\nfiadds (%rax)", 16 * 15, 3, True),
    ("x87-fiaddl-dword", "fld1\nmovl %ecx, 4(%rax)\nfiaddl (%rax)", 16 * 15, 3, True),
    ("x87-fiaddl-overlap", "fld1\nmovw %cx, 2(%rax)\nfiaddl (%rax)", 16 * 15, 2, True),
    ("x87-fildll", "movl %ecx, 4(%rax)\nfildll (%rax)", 16 * 15, 1, True),
    ("x87-fildll-disjoint", "movl %ecx, 8(%rax)\nfildll (%rax)", 16 * 15, 2, True),
    # a 64-bit double into a 32-bit register (the l of cvttsd2sil is the destination's size)
    # (the stored high half makes the double about 42)
    ("cvttsd2si-double", "movl $0x40450000, %ecx\nmovl %ecx, 4(%rsi)\ncvttsd2si (%rsi), %eax", 16 * 15 * 14, 1, True),
    ("cvttsd2sil-double", "movl $0x40450000, %ecx\nmovl %ecx, 4(%rsi)\ncvttsd2sil (%rsi), %eax", 3360, 1, True),
    ("cvtsd2si-disjoint", "cvtsd2si (%rsi), %eax\nmovl %ecx, 8(%rsi)", 16 * 15 * 14, 2, True),
    ("cvtss2si-single", "cvtss2si (%rsi), %rax\nmovl %ecx, 4(%rsi)", 16 * 15 * 14, 2, True),
    ("vcvttsd2si-double", "movl %ecx, 4(%rsi)\nvcvttsd2si (%rsi), %eax", 16 * 15 * 14, 1, False),
    # two doubles into an MMX register (mm0 renamable: 8; the harness does not move MMX registers)
    ("cvtpd2pi-two-doubles", "movl %ecx, 12(%rsi)\ncvtpd2pi (%rsi), %mm0", 16 * 15 * 8, 1, False),
    # narrowing conversions read twice their destination: y 32 bytes, x 16
    ("vcvtpd2psy-source", "movl %ecx, 28(%rax)\nvcvtpd2psy (%rax), %xmm0", 16 * 15 * 16, 1, False),
    ("vcvtpd2psx-source", "movl %ecx, 28(%rax)\nvcvtpd2psx (%rax), %xmm0", 16 * 15 * 16, 2, False),
    ("cvtsi2sdl-dword", "movl %ecx, 4(%rsi)\ncvtsi2sdl (%rsi), %xmm0", 16 * 15 * 16, 2, True),
    ("cvtsi2sdq-qword", "movl %ecx, 4(%rsi)\ncvtsi2sdq (%rsi), %xmm0", 16 * 15 * 16, 1, True),
    # --- MXCSR: ldmxcsr writes it, stmxcsr reads it, SSE floating point reads it and ORs in its flags
    # 2.75 into %xmm0 and truncation into MXCSR, in any interleaving (6 orders), then the conversion (2, not 3)
    (
        "ldmxcsr-rounding",
        "movabsq $0x4006000000000000, %rdx\nmovq %rdx, %xmm0\nmovl $0x7f80, (%rax)\nldmxcsr (%rax)\n"
        "cvtsd2si %xmm0, %rcx",
        16 * 15 * 14 * 16,
        6,
        True,
    ),
    ("ldmxcsr-then-fp", "movl $0x7f80, (%rax)\nldmxcsr (%rax)\ncvtsd2si %xmm0, %rcx", 16 * 15 * 16, 1, True),
    # the two operations' flag updates commute; stmxcsr stays after both
    ("stmxcsr-flags", "addsd %xmm0, %xmm1\nmulsd %xmm2, %xmm3\nstmxcsr (%rax)", 16 * 15 * 14 * 13 * 16, 2, True),
    ("ldmxcsr-twice", "movl $0x1f80, (%rax)\nmovl $0x7f80, (%rbx)\nldmxcsr (%rax)\nldmxcsr (%rbx)", 16 * 15, 1, True),
    ("stmxcsr-twice", "stmxcsr (%rax)\nstmxcsr 8(%rax)", 16, 2, True),
    (
        "ldmxcsr-before-fp",
        "movl $0x1f80, (%rax)\nldmxcsr (%rax)\ncvtps2dq %xmm1, %xmm2\nsqrtss %xmm3, %xmm4",
        16 * 16 * 15 * 14 * 13,
        2,
        True,
    ),
    # --- MMX registers are the x87 registers: ordered against x87, pinned beside it
    ("mmx-after-x87", "fldl (%rax)\nmovq %mm7, %rcx", 16 * 15, 1, True),
    ("mmx-commute", "paddd %mm0, %mm1\npaddd %mm2, %mm3", 8 * 7 * 6 * 5, 2, False),
    ("x87-between-mmx", "paddd %mm0, %mm1\nfld1\npaddd %mm2, %mm3", 1, 1, True),
    ("mmx-x87-gpr", "fld1\nmovq %mm0, %rax\naddq %rbx, %rcx", 16 * 15 * 14, 3, True),
    # --- the FS and GS bases
    ("wrfsbase-fs-load", "wrfsbase %rax\nmovq %fs:0, %rcx", 16 * 15, 1, True),
    ("wrfsbase-rdfsbase", "wrfsbase %rax\nrdfsbase %rcx", 16 * 15, 1, True),
    ("gs-load-wrgsbase", "movq %gs:8(%rbx), %rdx\nwrgsbase %rax", 16 * 15 * 14, 1, True),
    # --- SSE movsd and cmpsd are not the string instructions: no %rsi, %rdi, flags
    ("movsd-sse", "movsd %xmm0, %xmm1\naddq %rsi, %rdi", 16 * 15 * 16 * 15, 2, True),
    ("cmpsd-sse", "cmpltsd %xmm0, %xmm1\nsete %al", 16 * 15 * 16, 2, True),
    ("movsd-sse-load", "movsd (%rsi), %xmm0\nmulsd %xmm0, %xmm1\naddq $8, %rdi", 16 * 15 * 16 * 15, 3, True),
    # a nop computes no address: %rax (an index, never %rsp) 15, %r9 15
    ("nop-reads-nothing", "nopw (%rax,%rax)\nmovq (%r9), %rax", 15 * 15, 2, True),
    # fucomip is fucompi
    ("fucomip", "fld1\nfldz\nfucomip %st(1)\nsetb %al", 16, 1, True),
]

# (id, source, line, column, message)
INVALID = [
    ("rep-at-end", "nop\nrep", 2, 1, "prefix 'rep' is not followed by an instruction"),
    ("lock-at-end", "lock;", 1, 1, "prefix 'lock' is not followed by an instruction"),
    ("lock-not-rmw", "lock movl %eax, (%rbx)", 1, 1, "prefix 'lock' applies to a read-modify-write of memory"),
    ("lock-register", "lock addl %eax, %ebx", 1, 1, "prefix 'lock' applies to a read-modify-write of memory"),
    ("lock-own-line-register", "nop\nlock\nincq %rax", 2, 1, "prefix 'lock' applies to a read-modify-write of memory"),
    ("lock-after-semicolon", "  xorl %eax, %eax ; lock incq %rax", 1, 21, "prefix 'lock' applies"),
    ("rep-not-string", "rep addl %eax, %ebx", 1, 1, "prefix 'rep' repeats string instructions"),
    ("rep-changes-instruction", "rep bsfl %eax, %ebx", 1, 1, "prefix 'rep' repeats string instructions"),
    ("repne-movs", "repne movsb", 1, 1, "prefix 'repne' repeats cmps and scas"),
    ("rep-own-line-not-string", "rep\n\nmovl %eax, %ebx", 1, 1, "prefix 'rep' repeats string instructions"),
    ("data16-changes-size", "data16 addl %eax, %ebx", 1, 1, "prefix 'data16' changes the operand size"),
    ("data32", "data32 nop", 1, 1, "prefix 'data32' does not exist in 64-bit mode"),
    ("two-segments", "fs movl %gs:(%rax), %ebx", 1, 9, "two segment overrides (fs and %gs)"),
    ("operand-error-on-later-line", "lock\naddq (%rax), (%rbx)", 2, 14, "'addq' takes at most one memory operand"),
    ("write-mask-k0", "vaddps %zmm1, %zmm2, %zmm3 {%k0}", 1, 29, "%k0 cannot be a write mask"),
    ("gather-unmasked", "vpgatherdd (%rax,%zmm1,4), %zmm0", 1, 28, "'vpgatherdd' needs a write mask"),
    ("gather-k0", "vpgatherdd (%rax,%zmm1,4), %zmm0 {%k0}", 1, 35, "%k0 cannot be a write mask"),
    ("scatter-unmasked", "vpscatterdd %zmm0, (%rax,%zmm1,4)", 1, 20, "'vpscatterdd' needs a write mask"),
    ("gather-index-is-destination", "vpgatherdd (%rax,%zmm1,4), %zmm1 {%k1}", 1, 28, "must differ"),
    ("zero-memory-destination", "vmovaps %zmm0, (%rax) {%k1} {z}", 1, 29, "{z} cannot apply to a memory destination"),
    ("zero-without-mask", "vaddps %zmm1, %zmm2, %zmm3 {z}", 1, 28, "{z} needs a write mask"),
    ("mask-on-source", "vaddps %zmm0 {%k1}, %zmm1, %zmm2", 1, 14, "applies to the destination"),
    ("movabs-not-accumulator", "movabs 0x1122334455667788, %rbx", 1, 28, "takes the accumulator"),
    ("movabs-store-not-accumulator", "movabs %ecx, 0x1122334455667788", 1, 8, "takes the accumulator"),
    ("wide-address-without-movabs", "movq 0x1122334455667788, %rax", 1, 6, "does not fit in 32 bits"),
    (
        "rex-with-high-byte",
        "movb %spl, %ah",
        1,
        6,
        "%ah cannot be used in an instruction that needs a REX prefix (%spl)",
    ),
    ("rex-base-with-high-byte", "movb %ah, 8(%r8)", 1, 11, "needs a REX prefix (%r8)"),
    ("high-byte-64-bit", "movzbq %ah, %rax", 1, 8, "%ah cannot be used with a 64-bit operand size"),
    ("width-against-suffix", "movq %eax, %rbx", 1, 6, "%eax is a 32-bit register; 'movq' operates on 64 bits"),
    ("widths-disagree", "add %eax, %rbx", 1, 11, "operand sizes disagree: %eax and %rbx"),
    ("no-operands", "addq", 1, 1, "'addq' takes 2 operands, not 0"),
    ("three-operands", "addq %rax, %rbx, %rcx", 1, 18, "'addq' takes 2 operands, not 3"),
    ("intel-syntax", "mov eax, ebx", 1, 5, "register 'eax' is written without '%'"),
    ("immediate-destination", "addq %rax, $1", 1, 12, "an immediate cannot be the destination of 'addq'"),
    ("two-memory", "movq (%rax), (%rbx)", 1, 14, "'movq' takes at most one memory operand"),
    ("shift-count", "shlq %dl, %rax", 1, 6, "the count of 'shlq' is %cl or an immediate, not %dl"),
    ("immediate-range", "addb $256, %al", 1, 6, "immediate $256 does not fit in the 8-bit immediate of 'addb'"),
    ("sign-extended-immediate", "addq $0xffffffff, %rax", 1, 6, "sign-extended 32-bit immediate"),
    ("ambiguous-size", "incl (%rax)\ninc (%rax)", 2, 1, "'inc' needs a size suffix here"),
    ("push-32-bit", "pushl %eax", 1, 1, "not valid in 64-bit mode"),
    ("string-operand", "movsb (%rax), (%rdi)", 1, 7, "the source of 'movsb' is always (%rsi)"),
    ("xlat-table", "xlat (%rax)", 1, 6, "the table of 'xlat' is always (%rbx)"),
    ("in-accumulator", "inb %dx, %bl", 1, 10, "accumulator"),
    ("index-width", "movq (%eax,%rbx), %rcx", 1, 6, "address registers %eax and %rbx differ in width"),
    ("rip-index", "movq 8(%rip,%rax), %rbx", 1, 6, "takes no index register"),
    ("legacy-mask", "addps %xmm1, %xmm2 {%k1}", 1, 20, "needs an AVX-512 instruction"),
    ("legacy-evex-register", "addps %xmm16, %xmm2", 1, 7, "%xmm16 needs an AVX-512 (EVEX) instruction"),
    ("not-64-bit", "aaa", 1, 1, "'aaa' is not valid in 64-bit mode"),
]


def _all_variants(program):
    rng = random.Random(7)
    pspace = PermutationSpace(program)
    orders = [p.order for p in pspace.enumerate()][1:]
    rspace = renaming_space(program)
    if rspace.count() <= ENUMERATE_UP_TO:
        renamings = [r for r in rspace.enumerate() if not r.is_identity]
    else:
        renamings = [r for r in rspace.sample(SAMPLE, rng) if not r.is_identity]
    return orders, renamings


@pytest.mark.parametrize("source, renamings, permutations, runnable", [r[1:] for r in VALID], ids=[r[0] for r in VALID])
def test_counts(source, renamings, permutations, runnable):
    program = parse(source)
    assert renaming_space(program).count() == renamings
    assert PermutationSpace(program).count() == permutations
    rendered = parse(program.render())  # prefixes on their own line render on their instruction's
    assert [l.text for l in rendered.lines] == [l.text for l in program.lines]
    assert rendered.deps == program.deps and rendered.tokens == program.tokens
    assert parse(rendered.render()) == rendered  # render -> parse is the identity on rendered text


def test_every_variant_passes_the_oracle(record_property):
    report = check_blocks(
        [(source, runnable) for _, source, _, _, runnable in VALID], random.Random(3), choose=_all_variants
    )
    record_property("oracle", f"table: {report.line()}")
    assert not report.failures, report.failures[:3]
    assert report.runnable == sum(r[4] for r in VALID)
    assert not report.unrunnable


@pytest.mark.parametrize("source, line, col, message", [r[1:] for r in INVALID], ids=[r[0] for r in INVALID])
def test_invalid(source, line, col, message):
    with pytest.raises(ParseError) as info:
        parse(source, path="t.s")
    err = info.value
    assert message in err.message
    assert (err.path, err.line, err.col) == ("t.s", line, col)
    assert "\n" not in str(err)  # one line: FILE:LINE:COL: error: message


#: AVX-512 decorators spaced every way: llvm-mc's lexer allows a space between two of its tokens and
#: refuses one that splits a name or a number (``%k 1``, ``1to 16``); invar must accept exactly what it accepts
SPACED_DECORATORS = [
    *(f"vaddps %zmm1, %zmm2, %zmm3 {d}" for d in ("{ %k1 }", "{%k1 } { z }", "{% k1}{z}", "{%k 1}", "{%k1} {z }")),
    *(f"vaddps (%rax){d}, %zmm2, %zmm3" for d in ("{ 1to16 }", "{1 to16}", "{1to 16}", "{1t o16}", "{1to1 6}")),
    *(f"vaddps {d}, %zmm1, %zmm2, %zmm3" for d in ("{ rn-sae }", "{rn -sae}", "{rn- sae}", "{r n-sae}", "{rn-sa e}")),
]


def test_spaces_in_decorators_are_refused_where_llvm_mc_refuses_them():
    _, errors = assemble_lines({f"d{k}": [text] for k, text in enumerate(SPACED_DECORATORS)})
    refused = {SPACED_DECORATORS[int(k[1:])] for k in errors}
    assert 4 <= len(refused) <= len(SPACED_DECORATORS) - 4, refused  # both answers among the cases
    for text in SPACED_DECORATORS:
        if text in refused:
            with pytest.raises(ParseError, match="a space splits a name") as info:
                parse(text)
            assert text[info.value.col - 2].isalnum() and text[info.value.col - 1] == " ", info.value
        else:
            assert len(parse(text).lines) == 1, text


def test_x87_memory_forms_spell_their_size_where_llvm_mc_asks_for_it():
    """An x87 instruction with several memory sizes is refused without its suffix and read with each one,
    as llvm-mc refuses and reads them; those with one size (fldcw, fbld …) need none."""
    from invar.frontends.x86.validate import _X87_SIZES

    one_size = ["fldcw", "fnstcw", "fbld", "fbstp", "fldenv", "fnstenv", "fxsave", "fxrstor", "fnstsw"]
    texts = {f"x{k}": f"{m} (%rax)" for k, m in enumerate([*_X87_SIZES, *one_size])}
    texts.update({f"y{m}{s}": f"{m}{s} (%rax)" for m, sizes in _X87_SIZES.items() for s in sizes.split()})
    _, errors = assemble_lines({key: [text] for key, text in texts.items()})
    for key, text in texts.items():
        if key in errors:
            with pytest.raises(ParseError, match="needs a size suffix") as info:
                parse(text)
            assert info.value.col == 1
        else:
            assert len(parse(text).lines) == 1, text
    refused = {texts[k].split()[0] for k in errors}
    assert refused == set(_X87_SIZES), refused  # exactly the unsuffixed forms of several sizes
