"""x86 frontend: parsing, views and referents, implicit operands, renamings."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import canonical, parse, renaming_space
from invar.frontends.x86.hexblock import decode
from tests.conftest import FIXTURES, bhive_blocks
from tests.oracles.x86_deps_reference import agree

FIG1A = (FIXTURES / "x86" / "figure1a.s").read_text()
FIG1B = (FIXTURES / "x86" / "figure1b.s").read_text()
FIG1C = (FIXTURES / "x86" / "figure1c.s").read_text()

#: draws per renaming in the chi-square test: expected counts of 10 a cell
DRAWS_PER_RENAMING = 10
#: BHive blocks whose renamings must keep the canonical form
N_CANON_BLOCKS = 260
#: the share of BHive's blocks decoded and checked against the all-pairs dependencies
PARSE_SHARE = 40


@pytest.mark.parametrize(
    "source, text, views, referents",
    [
        ("mov 64(%rsp), %rax", "mov 64(%rsp), %rax", ["gpr:64", "gpr:64"], ["gpr:sp", "gpr:a"]),
        ("movb %ah,%al", "movb %ah, %al", ["gpr:8h", "gpr:8"], ["gpr:a", "gpr:a"]),
        ("  addl   $1 , %R9D", "addl $1, %r9d", ["gpr:32"], ["gpr:r9"]),
        (
            "vaddps %ymm3, %ymm1, %xmm3",
            "vaddps %ymm3, %ymm1, %xmm3",
            ["vec:256", "vec:256", "vec:128"],
            ["vec:3", "vec:1", "vec:3"],
        ),
        (
            "movq %fs:0x28(,%rbx,8), %mm2",
            "movq %fs:0x28(,%rbx,8), %mm2",
            ["seg:16", "gpr:64", "mmx:64"],
            ["seg:fs", "gpr:b", "mmx:2"],
        ),
        ("fadd %st(1), %st", "fadd %st(1), %st", ["x87:80", "x87:80"], ["x87:1", "x87:0"]),
        ("lock cmpxchgl %ecx, (%rdi)", "lock cmpxchgl %ecx, (%rdi)", ["gpr:32", "gpr:64"], ["gpr:c", "gpr:di"]),
        (
            "vaddps %zmm1, %zmm2, %zmm3 {%k1} {z}",
            "vaddps %zmm1, %zmm2, %zmm3 {%k1} {z}",
            ["vec:512", "vec:512", "vec:512", "mask:64"],
            ["vec:1", "vec:2", "vec:3", "mask:1"],
        ),
        ("jmp *8(%rax)", "jmp *8(%rax)", ["gpr:64"], ["gpr:a"]),
    ],
)
def test_tokens_views_referents(source, text, views, referents):
    p = parse(source)
    assert p.render() == text
    regs = [t for t in p.tokens if t.kind == "register"]
    assert [t.view for t in regs] == views
    assert [t.referent for t in regs] == referents
    # round trip: parse -> render -> parse is the identity
    assert parse(p.render()) == p
    for t in p.tokens:  # every token stands where it says
        assert p.lines[t.line].text[t.start : t.end] == t.text


def test_separators_comments_and_lines():
    p = parse("# a block\nxorl %eax, %eax ; incq %rbx   # bump\n\n  ret\n")
    assert [l.text for l in p.lines] == ["xorl %eax, %eax", "incq %rbx", "ret"]
    assert [l.source_line for l in p.lines] == [2, 2, 4]


@pytest.mark.parametrize(
    "source, reads, writes, pinned",
    [
        ("mulq %rbx", {"gpr:a", "gpr:b"}, {"gpr:a", "gpr:d", "flags"}, {"gpr:a", "gpr:d"}),
        ("mulb %bl", {"gpr:a", "gpr:b"}, {"gpr:a", "flags"}, {"gpr:a"}),
        ("divl %ecx", {"gpr:a", "gpr:d", "gpr:c"}, {"gpr:a", "gpr:d", "flags"}, {"gpr:a", "gpr:d"}),
        ("imull %ecx, %edx", {"gpr:c"}, {"gpr:d", "flags"}, set()),
        ("shlq %cl, %rax", {"gpr:c"}, {"gpr:a", "flags"}, {"gpr:c"}),
        ("shlq $3, %rax", set(), {"gpr:a", "flags"}, set()),
        ("pushq %rbx", {"gpr:b", "gpr:sp"}, {"gpr:sp", "mem"}, {"gpr:sp"}),
        ("popq %rbx", {"gpr:sp", "mem"}, {"gpr:b", "gpr:sp"}, {"gpr:sp"}),
        ("cltq", {"gpr:a"}, {"gpr:a"}, {"gpr:a"}),
        ("cqto", {"gpr:a"}, {"gpr:d"}, {"gpr:a", "gpr:d"}),
        ("cpuid", {"gpr:a", "gpr:c"}, {"gpr:a", "gpr:b", "gpr:c", "gpr:d"}, {"gpr:a", "gpr:b", "gpr:c", "gpr:d"}),
        # rep counts in %rcx: read, written and pinned
        (
            "rep stosq %rax, %es:(%rdi)",
            {"gpr:a", "gpr:c", "gpr:di", "seg:es", "flags"},
            {"gpr:c", "gpr:di", "mem"},
            {"gpr:a", "gpr:c", "gpr:di"},
        ),
        ("stosq %rax, %es:(%rdi)", {"gpr:a", "gpr:di", "seg:es", "flags"}, {"gpr:di", "mem"}, {"gpr:a", "gpr:di"}),
        ("cmpq %rax, (%rbx)", {"gpr:a", "gpr:b", "mem"}, {"flags"}, set()),
        ("movl %eax, 8(%rsp)", {"gpr:a", "gpr:sp"}, {"mem"}, set()),
        ("leaq 8(%rsp,%rcx,4), %rdx", {"gpr:sp", "gpr:c"}, {"gpr:d"}, set()),
        ("sete %al", {"flags", "gpr:a"}, {"gpr:a"}, set()),
        ("cmovneq %rcx, %rdx", {"gpr:c", "flags"}, {"gpr:d"}, set()),
        ("xchgq %rax, %rbx", set(), {"gpr:a", "gpr:b"}, set()),
        ("blendvps %xmm0, %xmm2, %xmm1", {"vec:0", "vec:2"}, {"vec:1"}, {"vec:0"}),
        ("vzeroupper", set(), {f"vec:{i}" for i in range(16)}, {"vec:*"}),
    ],
)
def test_read_write_sets_and_implicit_operands(source, reads, writes, pinned):
    p = parse(source)
    line = p.lines[0]
    assert reads <= line.reads | line.writes
    assert line.writes == frozenset(writes)
    assert set(p.pinned) == pinned


@pytest.mark.parametrize(
    "source, col, message",
    [
        ("bogus %rax", 1, "unknown instruction 'bogus'"),
        ("movq %rxx, %rax", 6, "unknown register '%rxx'"),
        ("movq %ra x, %rbx", 6, "unknown register '%ra'"),  # no space inside a register's name
        ("movq %rax x, %rbx", 11, "unexpected 'x' after %rax"),
        ("movq % ra, %rbx", 6, "unknown register '% ra'"),
        ("movq (%rax, %rbx", 6, "unbalanced '('"),
        ("movq 8(%rax,%rsp), %rax", 6, "cannot be an index register"),
        ("movq 8(%rax,%rbx,3), %rax", 6, "scale must be 1, 2, 4 or 8"),
        ("loop: ret", 1, "labels are not allowed"),
        (".p2align 4", 1, "assembler directive"),
        ("movq $, %rax", 6, "malformed immediate"),
        # a quoted symbol (clang's, for a name no plain symbol spells): said so, at its quote
        ('jne "c:d"', 5, "quoted symbol \"c:d\" in branch target '\"c:d\"': invar reads no quoted symbol"),
        ('call "weird name"@PLT', 6, 'quoted symbol "weird name" in branch target'),
        ('movq "a b"(%rip), %rax', 6, 'quoted symbol "a b" in displacement'),
        ("movb $'é', %al", 7, "character constant 'é' in immediate \"'é'\" is not ASCII"),
        ("movb $'#' + %al", 13, "operator '%' in immediate \"'#' + %al\""),  # '#' starts no comment there
    ],
)
def test_errors_are_located(source, col, message):
    with pytest.raises(ParseError) as info:
        parse("nop\n" + source)
    err = info.value
    assert (err.line, err.col) == (2, col)
    assert message in err.message


# ----------------------------------------------------------------- renamings
def test_figure1_counts():
    a = parse(FIG1A)
    assert renaming_space(a).count() == 16 * 15 * 14 == 3360
    assert renaming_space(a, pins=["rsp"]).count() == 15 * 14 == 210


def test_figure1b_is_a_renaming_of_1a_and_1c_is_not():
    a, b, c = parse(FIG1A), parse(FIG1B), parse(FIG1C)
    space = renaming_space(a)
    assert {"gpr:a": "gpr:b"} in space  # %rax -> %rbx, %eax -> %ebx
    renamed = space.apply(a, space.unrank(space.rank({"gpr:a": "gpr:b"})))
    assert renamed.render() == b.render()
    assert canonical(a)[0].render() == canonical(b)[0].render()
    assert canonical(a)[0].render() != canonical(c)[0].render()
    texts = {space.apply(a, r).render() for r in space.enumerate()}
    assert c.render() not in texts and b.render() in texts


@pytest.mark.parametrize(
    "source, expected",
    [
        # %ah needs a base with a high byte; no REX register beside it
        ("movb %ah, %bl", 4 * 3),
        ("movb %ah, (%rsi)", 4 * 7),
        ("movb %al, %bl", 16 * 15),
        ("movzbl %sil, %eax", 16 * 15),
        # %rsp is never an index
        ("leaq (%rax,%rbx), %rcx", 15 * 15 * 14),
        # implicit operands are pinned and their bases are taken
        ("mulq %rbx", 14),
        ("shlq %cl, %rdx", 15),
        ("pushq %rax", 15),
        # vector registers: 16 without EVEX, the whole file for EVEX-only instructions
        ("addps %xmm1, %xmm2", 16 * 15),
        ("vaddps %zmm1, %zmm2, %zmm3", 32 * 31 * 30),
        ("vaddps %xmm1, %xmm2, %xmm3\nvzeroupper", 16 * 15 * 14),
        # EVEX-only by the mnemonic (no VEX form): %xmm16-31 too
        ("vmovdqu64 %xmm1, %xmm2", 32 * 31),
        ("vpternlogd $0x96, %ymm1, %ymm2, %ymm3", 32 * 31 * 30),
        ("vmovdqa32 (%rax), %ymm1\nvprold $3, %ymm1, %ymm2", 16 * 32 * 31),
        # a register also used by a VEX instruction stays in 0-15, the other may go anywhere
        ("vmovdqu64 %xmm1, %xmm2\nvpaddd %xmm2, %xmm3, %xmm3", 16 * 15 * 30),
        ("vmovdqu64 %xmm1, %xmm2\nvzeroupper", 16 * 15),
        ("paddb %mm1, %mm2", 8 * 7),
        # nothing renamable
        ("fadd %st(1), %st", 1),
        ("nop", 1),
    ],
)
def test_renaming_counts(source, expected):
    space = renaming_space(parse(source))
    assert space.count() == expected
    if expected <= 5000:
        listed = list(space.enumerate())
        assert len(listed) == expected == len({r.mapping for r in listed})


def test_enumeration_order_is_lexicographic_and_ranks_invert():
    space = renaming_space(parse("movb %ah, %bl\nmovq %rsi, %rdx"))
    listed = list(space.enumerate())
    assert listed[0].mapping == (("gpr:a", "gpr:a"), ("gpr:b", "gpr:c"), ("gpr:si", "gpr:d"), ("gpr:d", "gpr:b"))
    assert [space.rank(r) for r in listed] == list(range(len(listed)))
    assert all(space.unrank(k) == r for k, r in enumerate(listed))
    assert list(space.enumerate(limit=5)) == listed[:5]


def test_every_renaming_is_valid_text_with_same_views():
    """A seeded half of the block's renamings (24,336 in all) re-parse with the same views."""
    block = "movb %ah, %bl\nleaq 8(%rax,%rcx,2), %rdx\naddl %edx, %esi\nsete %sil"
    p = parse(block)
    space = renaming_space(p)
    n = space.count()
    for k in random.Random(3).sample(range(n), n // 2):
        r = space.unrank(k)
        q = parse(space.apply(p, r).render())  # re-parses: every register exists
        assert [t.view for t in q.tokens] == [t.view for t in p.tokens]


def test_sampling_is_uniform_chi_square():
    scipy_stats = pytest.importorskip("scipy.stats")
    for block in ("movb %ah, %bl\naddq %rsi, %rdx", "mulq %rbx\nmovq %rcx, %rsi", "leaq (%rax,%rbx), %rcx"):
        space = renaming_space(parse(block))
        n = space.count()
        assert n == len(list(space.enumerate()))
        draws = Counter(space.rank(r) for r in space.sample(DRAWS_PER_RENAMING * n, random.Random(7)))
        observed = [draws.get(k, 0) for k in range(n)]
        p_value = scipy_stats.chisquare(observed).pvalue
        assert p_value > 0.001, (block, p_value)


def test_sampling_is_reproducible_by_seed():
    space = renaming_space(parse(FIG1A))
    assert space.sample(20, 5) == space.sample(20, 5)
    assert space.sample(20, 5) != space.sample(20, 6)


def test_canonical_form_is_invariant_on_bhive_orbits(record_property):
    """invar canon prints one text for every renaming of a block: 260 seeded
    BHive blocks, 3 sampled renamings each (the identity excluded)."""
    from invar.symmetry.spaces import canonical as spaces_canonical

    rng = random.Random(11)
    blocks = rng.sample(bhive_blocks(), N_CANON_BLOCKS)
    renamed = forms = 0
    for h in blocks:
        p = decode(h)
        space = renaming_space(p)
        canon = spaces_canonical(p)[0].render()
        forms += canon != p.render()
        for r in [r for r in space.sample(5, rng) if not r.is_identity][:3]:
            variant = parse(space.apply(p, r).render())
            assert spaces_canonical(variant)[0].render() == canon, h
            assert canonical(variant)[0].render() == canon, h
            renamed += 1
    assert renamed > 0.85 * 3 * N_CANON_BLOCKS
    record_property(
        "oracle",
        f"canonical form: {len(blocks)} BHive blocks, {renamed} renamings, one form per block "
        f"({forms} blocks not already canonical)",
    )


def test_every_bhive_block_parses_sampled(record_property):
    """All ~117k blocks are parsed by bench/bench_x86_parse.py; here a seeded
    fortieth of them, so the suite stays fast. Each block's deps (a generating
    set) have the closure, the DLG layers and, for one small block in
    twenty, the permutation count of every conflicting pair
    (tests/oracles/x86_deps_reference.py)."""
    blocks = bhive_blocks()
    assert len(blocks) > 100_000
    sample = random.Random(2).sample(blocks, len(blocks) // PARSE_SHARE)
    sparse = complete = counted = 0
    for k, h in enumerate(sample):
        p = decode(h)
        assert p.lines and all(t.text for t in p.tokens)
        count = k % 20 == 0 and len(p.lines) <= 40
        try:
            complete += agree(p, count=count)
        except AssertionError as err:
            raise AssertionError(f"block {h}: {err}") from None
        sparse += len(p.deps)
        counted += count
    assert len(sample) >= 2_500 and sparse < complete / 2
    record_property(
        "oracle",
        f"deps: {len(sample)} BHive blocks have the closure of every conflicting pair "
        f"with {sparse} pairs instead of {complete}; {counted} permutation counts agree",
    )


@pytest.mark.parametrize(
    "source, texts",
    [
        ("movb $'#', %al", ["movb $35, %al"]),
        ("cmpb $';', %dil", ["cmpb $59, %dil"]),
        ("movb $'a', %al", ["movb $97, %al"]),
        ("movb $'a, %al", ["movb $97, %al"]),  # GNU as's form: no closing quote
        (r"movb $'\n', %al", ["movb $10, %al"]),
        (r"movb $'\'', %al", ["movb $39, %al"]),
        ("movb $''', %al", ["movb $39, %al"]),
        (r"movb $'\\', %al", ["movb $92, %al"]),
        (r"movb $'\e', %al", ["movb $101, %al"]),  # an escape GNU as knows not: the character itself
        ("movb $',', %al", ["movb $44, %al"]),
        ("movb $'(', %al", ["movb $40, %al"]),
        ("movb $'\"', %al", ["movb $34, %al"]),
        ("movb $' ', %al", ["movb $32, %al"]),
        ("movl $'a'+1, %eax", ["movl $97+1, %eax"]),
        ("movl $-'a', %eax", ["movl $-97, %eax"]),
        ("movb 'a'(%rax), %bl", ["movb 97(%rax), %bl"]),
        # a ';' or '#' in a character constant separates no statement and starts no comment
        ("cmpb $';', %al; movb $'#', %bl # '#'", ["cmpb $59, %al", "movb $35, %bl"]),
    ],
)
def test_a_character_constant_is_its_code(source, texts):
    """Character constants read as GNU as reads them (tests/oracles/test_x86_listing_gcc.py
    checks the codes against its bytes), kept in decimal."""
    p = parse(source)
    assert [line.text for line in p.lines] == texts
    assert [line.text for line in parse(p.render()).lines] == texts
