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
