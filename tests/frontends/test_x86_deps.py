"""x86 dependencies: the sparse generating set against every conflicting pair.

``Program.deps`` holds a set of pairs whose transitive closure is the
dependency order; tests/oracles/x86_deps_reference.py keeps the all-pairs
construction it replaced. The two must have the same closure, the same DLG
layers and the same permutation counts: on a fortieth of BHive
(tests/frontends/test_x86.py, which decodes those blocks anyway) and here
on long generated blocks built to stress what the sparse construction
leaves out: memory groups (one address key, disjoint and overlapping
extents), stores and loads across groups, base and index rewrites between
accesses, accesses whose extent is unknown (``push``, string instructions)
and barriers.
"""

from __future__ import annotations

import random

import pytest

from invar.frontends.x86 import parse
from tests.oracles.x86_deps_reference import agree

_DATA = ("%r8", "%r9", "%r10", "%r11")
_INDEX = ("%rcx", "%rdx")


def _address(rng: random.Random, bases: tuple[str, ...]) -> str:
    disp = rng.choice(("", "1", "2", "3", "4", "8", "-8", "12", "16", "24", "32", "0x40"))
    r = rng.random()
    if r < 0.6:
        return f"{disp}({rng.choice(bases)})"
    if r < 0.8:
        return f"{disp}({rng.choice(bases)},{rng.choice(_INDEX)},{rng.choice('1248')})"
    if r < 0.9:
        return f"%fs:{disp or '0'}({rng.choice(bases)})"
    return f"{disp or '8'}(,{rng.choice(_INDEX)},8)"


def _instruction(rng: random.Random, bases: tuple[str, ...], barriers: float) -> str:
    a, d = _address(rng, bases), rng.choice(_DATA)
    k = rng.random()
    if k < barriers:
        return rng.choice(("cpuid", "rdtsc", "movq 8(%rip), %r10", "jne 0x40", "lfence"))
    for share, text in (
        (0.20, f"movq {a}, {d}"),
        (0.15, f"movq {d}, {a}"),
        (0.06, f"movb $1, {a}"),
        (0.05, f"movups {a}, %xmm{rng.randrange(4)}"),
        (0.05, f"movups %xmm{rng.randrange(4)}, {a}"),
        (0.04, f"addl $1, {a}"),
        (0.04, f"cmpq {d}, {a}"),
        (0.03, f"xchgq {d}, {a}"),
        (0.03, f"lock cmpxchgq {d}, {a}"),
        (0.03, rng.choice(("fldl (%rax)", "fstpl 8(%rax)", "faddp %st, %st(1)"))),
        # the base and index registers change between accesses
        (
            0.07,
            rng.choice(
                (
                    f"addq $8, {rng.choice(bases)}",
                    f"movq {a}, {rng.choice(bases)}",
                    f"incq {rng.choice(_INDEX)}",
                    f"leaq 8({rng.choice(bases)}), {rng.choice(bases)}",
                )
            ),
        ),
        # memory whose extent is unknown: conflicts with every other access
        (0.05, rng.choice(("pushq %r8", "popq %r9", "rep movsb", "stosq %rax, %es:(%rdi)", "pushfq", "popfq"))),
    ):
        if k < barriers + share:
            return text
        k -= share
    return rng.choice(
        (f"addq {d}, {rng.choice(_DATA)}", "setne %al", f"cmovneq {d}, %r11", f"imulq {d}, {rng.choice(_DATA)}", "cqto")
    )


def generated_block(rng: random.Random, n: int) -> str:
    """``n`` instructions over one to five base registers (few bases: long
    runs of stores in one group), with or without barriers."""
    bases = tuple(rng.sample(("%rax", "%rbx", "%rsp", "%rdi", "%rsi"), rng.randint(1, 5)))
    barriers = rng.choice((0.0, 0.0, 0.01, 0.04))
    return "\n".join(_instruction(rng, bases, barriers) for _ in range(n))


@pytest.mark.parametrize("seed", range(4))
def test_generated_blocks_have_the_closure_of_every_conflict(seed):
    rng = random.Random(100 + seed)
    for _ in range(60):  # short blocks: permutation counts are tractable
        p = parse(generated_block(rng, rng.randint(2, 14)))
        agree(p, count=True)
    for n in (300, 900):  # long straight-line blocks
        p = parse(generated_block(rng, n))
        agree(p, count=False)


@pytest.mark.parametrize(
    "source, deps",
    [
        # a write follows the reads since the last write, not that write too
        ("movq %rax, %rbx\nmovq %rbx, %rcx\nmovq %rbx, %rdx\nmovq $1, %rbx", {(0, 1), (0, 2), (1, 3), (2, 3)}),
        # disjoint stores to one group; a load of another group follows both
        ("movq %rax, (%rdi)\nmovq %rax, 8(%rdi)\nmovq (%rsi), %rcx", {(0, 2), (1, 2)}),
        # an overlapping store follows the first; the load follows only the last
        ("movq %rax, (%rdi)\nmovl %eax, 4(%rdi)\nmovq (%rsi), %rcx", {(0, 1), (1, 2)}),
        # a store of a third group follows the load, which already follows the front
        ("movq %rax, (%rdi)\nmovq %rax, 8(%rdi)\nmovq (%rsi), %rcx\nmovq %rdx, (%rbx)", {(0, 2), (1, 2), (2, 3)}),
        # barriers: they follow the lines nothing follows yet, and lines follow them
        ("movq %rax, %rbx\nmovq %rcx, %rdx\ncpuid\nmovq %r8, %r9", {(0, 2), (1, 2), (2, 3)}),
    ],
)
def test_generating_sets(source, deps):
    p = parse(source)
    assert set(p.deps) == deps
    agree(p, count=True)


#: (instruction reading or writing ``(%rax)``, the bytes it touches): a store of one byte at offset
#: ``bytes - 1`` must be ordered against it, one at offset ``bytes`` must not (the x86 hunt's F1, F2)
MEMORY_WIDTHS = [
    *((f"{op}l (%rax)", 8) for op in "fadd fsub fsubr fmul fdiv fdivr fcom fcomp fld fst fstp".split()),
    *((f"{op}s (%rax)", 4) for op in "fadd fsub fsubr fmul fdiv fdivr fcom fcomp fld fst fstp".split()),
    *((f"{op}l (%rax)", 4) for op in "fiadd fisub fisubr fimul fidiv fidivr ficom ficomp fild fist fistp".split()),
    *((f"{op}s (%rax)", 2) for op in "fiadd fisub fisubr fimul fidiv fidivr ficom ficomp fild fist fistp".split()),
    ("fildll (%rax)", 8),
    ("fistpll (%rax)", 8),
    ("fisttpll (%rax)", 8),
    ("fldt (%rax)", 10),
    ("fstpt (%rax)", 10),
    ("fnstcw (%rax)", 2),
    ("fnstsw (%rax)", 2),
    # the memory source of a conversion is not the size of its destination register
    ("cvttsd2si (%rax), %edx", 8),
    ("cvtsd2si (%rax), %edx", 8),
    ("cvttsd2sil (%rax), %edx", 8),
    ("vcvttsd2si (%rax), %edx", 8),
    ("vcvtsd2si (%rax), %edx", 8),
    ("vcvtsd2usi (%rax), %edx", 8),
    ("cvtss2si (%rax), %rdx", 4),
    ("cvttss2siq (%rax), %rdx", 4),
    ("cvtpd2pi (%rax), %mm0", 16),
    ("cvttpd2pi (%rax), %mm0", 16),
    ("vcvtpd2psy (%rax), %xmm0", 32),
    ("vcvtpd2psx (%rax), %xmm0", 16),
    ("vcvtpd2dqy (%rax), %xmm0", 32),
    ("vcvttpd2dqy (%rax), %xmm0", 32),
    ("vcvtpd2ps (%rax), %ymm0", 64),
    ("vcvtqq2psy (%rax), %xmm0", 32),
    ("cvtsi2sdl (%rax), %xmm0", 4),
    ("cvtsi2sdq (%rax), %xmm0", 8),
    ("ldmxcsr (%rax)", 4),
    ("stmxcsr (%rax)", 4),
]


@pytest.mark.parametrize("text, width", MEMORY_WIDTHS, ids=[t for t, _ in MEMORY_WIDTHS])
def test_memory_operands_touch_the_operation_width(text, width):
    inside = parse(f"{text}\nmovb %bl, {width - 1}(%rax)")
    assert inside.deps == ((0, 1),), inside.deps
    past = parse(f"{text}\nmovb %bl, {width}(%rax)")
    assert past.deps == (), past.deps


#: BHive hex (capstone's spelling goes through the same tables) and its exact number of orders
HEX_ORDERS = [
    ("dc00894804", 1),  # faddl (%rax); movl %ecx, 4(%rax): a 64-bit real
    ("d800894804", 2),  # fadds (%rax); movl %ecx, 4(%rax): a 32-bit real
    ("da00894804", 2),  # fiaddl (%rax): a 32-bit integer
    ("c5fb2c06894e04", 1),  # vcvttsd2si (%rsi), %eax; movl %ecx, 4(%rsi)
    ("660f2d06894e0c", 1),  # cvtpd2pi (%rsi), %mm0; movl %ecx, 12(%rsi)
    ("c5fd5a06894e1c", 1),  # vcvtpd2psy (%rsi), %xmm0; movl %ecx, 28(%rsi)
    ("0fae16f20f2dc8", 1),  # ldmxcsr (%rsi); cvtsd2si %xmm0, %ecx
    ("f20f58c1f20f59d30fae1e", 2),  # addsd; mulsd; stmxcsr (%rsi)
    ("dd00480f7ef9", 1),  # fldl (%rax); movq %mm7, %rcx
    ("f3480faed0648b0c2500000000", 1),  # wrfsbase %rax; movl %fs:0, %ecx
    ("f20f10c84801f7", 2),  # movsd %xmm0, %xmm1; addq %rsi, %rdi
    ("660f1f0400498b01", 2),  # nopw (%rax,%rax); movq (%r9), %rax
    ("dfe9", 1),  # fucompi %st(1)
]


@pytest.mark.parametrize("hexcode, orders", HEX_ORDERS, ids=[h for h, _ in HEX_ORDERS])
def test_hex_blocks_have_their_exact_orders(hexcode, orders):
    from invar.frontends.x86 import decode
    from invar.symmetry.permutations import PermutationSpace

    assert PermutationSpace(decode(hexcode)).count() == orders


#: what reads and writes MXCSR: SSE/AVX floating point and conversions accumulate into it (read and
#: write, commuting with each other), ldmxcsr writes it, stmxcsr reads it; moves, logic and integers leave it
MXCSR = [
    *((t, "A") for t in ("addps %xmm0, %xmm1", "divsd %xmm0, %xmm1", "sqrtss %xmm0, %xmm1", "cmpltsd %xmm0, %xmm1")),
    *((t, "A") for t in ("roundsd $4, %xmm0, %xmm1", "cvtsd2si %xmm0, %eax", "cvtsi2sdq %rax, %xmm0")),
    *((t, "A") for t in ("vfmadd231ps %ymm0, %ymm1, %ymm2", "comisd %xmm0, %xmm1", "cvtpi2ps %mm0, %xmm1")),
    *((t, "A") for t in ("vcvtph2ps %xmm0, %ymm1", "cvtdq2ps (%rax), %xmm1", "minpd %xmm0, %xmm1")),
    ("ldmxcsr (%rax)", "W"),
    ("vldmxcsr (%rax)", "W"),
    ("stmxcsr (%rax)", "R"),
    *((t, "") for t in ("movsd %xmm0, %xmm1", "movaps %xmm0, %xmm1", "xorps %xmm0, %xmm1", "shufps $1, %xmm0, %xmm1")),
    *((t, "") for t in ("paddd %xmm0, %xmm1", "pxor %xmm0, %xmm1", "movsl", "cmpsl", "blendvps %xmm0, %xmm1, %xmm2")),
]


@pytest.mark.parametrize("text, how", MXCSR, ids=[t for t, _ in MXCSR])
def test_mxcsr_readers_and_writers(text, how):
    line = parse(text).lines[0]
    touched = ("mxcsr" in line.reads) + 2 * ("mxcsr" in line.writes)
    assert touched == {"": 0, "R": 1, "W": 2, "A": 3}[how], (line.reads, line.writes)


def test_mmx_beside_x87_is_pinned_and_ordered():
    from invar.frontends.x86 import renaming_space

    alone = parse("paddd %mm0, %mm1\npaddd %mm2, %mm3")
    assert alone.deps == () and not alone.pinned  # MMX instructions commute on the x87 state
    beside = parse("paddd %mm0, %mm1\nfld1\npaddd %mm2, %mm3")
    assert beside.deps == ((0, 1), (1, 2))
    assert {"mmx:0", "mmx:1", "mmx:2", "mmx:3"} <= beside.pinned
    assert renaming_space(beside).count() == 1
