"""A compiler's listing read as basic blocks (invar/frontends/x86/listing.py):
labels start blocks, control transfers end them, directives are left out
where they emit nothing that runs and refused where they would. An i386
(-m32) listing is refused as a whole; character constants, quoted labels
(clang's), exception tables' call sites (clang's .Ltmp) and data after a
return are read as GNU as reads them."""

from __future__ import annotations

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse_units
from invar.frontends.x86.listing import ends_block, falls_through, is_listing, listing_blocks, read_listing

GCC = """\
\t.file\t"t.c"
\t.text
\t.p2align 4
\t.globl\tf
\t.type\tf, @function
f:
.LFB0:
\t.cfi_startproc
\ttestq\t%rsi, %rsi
\tjle\t.L4
\tleaq\t(%rdi,%rsi,8), %rcx
\txorl\t%edx, %edx
\t.p2align 4,,10
\t.p2align 3
.L3:
\tmovq\t(%rdi), %rax
\taddq\t$8, %rdi
\tcmpq\t%rcx, %rdi
\tjne\t.L3
\tmovq\t%rdx, %rax
\tret
.L4:
\txorl\t%edx, %edx
\tmovq\t%rdx, %rax
\tret
\t.cfi_endproc
.LFE0:
\t.size\tf, .-f
\t.section\t.note.GNU-stack,"",@progbits
"""


def instructions(body: str) -> list[str]:
    return [line.split("#", 1)[0].split()[0] for line in body.splitlines() if line.split("#", 1)[0].strip()]


def test_gcc_output_is_cut_at_labels_and_control_transfers():
    found = listing_blocks(GCC.splitlines())
    assert [(first, instructions(body)) for first, body in found] == [
        (9, ["testq", "jle"]),
        (11, ["leaq", "xorl"]),
        (16, ["movq", "addq", "cmpq", "jne"]),
        (20, ["movq", "ret"]),
        (23, ["xorl", "movq", "ret"]),
    ]
    # inside a block a directive stays a comment: the block's lines keep their numbers
    assert found[1][1].splitlines()[2:] == []  # trailing directives are trimmed
    units = parse_units(GCC, path="t.s")
    assert [u.name for u in units] == ["line9", "line11", "line16", "line20", "line23"]
    assert [line.source_line for line in units[2].lines] == [16, 17, 18, 19]


def test_a_directive_inside_a_block_is_a_comment_there():
    text = "f:\n\tmovq %rdi, %rax\n\t.cfi_def_cfa_offset 16\n\taddq $1, %rax\n\tret\n"
    ((first, body),) = listing_blocks(text.splitlines())
    assert first == 2 and body.splitlines()[1].strip() == "# .cfi_def_cfa_offset 16"
    (unit,) = parse_units(text)
    assert [line.source_line for line in unit.lines] == [2, 4, 5]


def test_one_block_among_directives_is_one_unit_named_after_the_file():
    (unit,) = parse_units("\t.text\nf:\n\tmovq %rdi, %rax\n\tret\n", path="dir/f.s")
    assert unit.name == "f" and unit.render() == "movq %rdi, %rax\nret"


BLOCKS = [
    # a label a jump lands on, after an instruction on one line: the instruction starts the block at its column
    ("f: movq %rdi, %rax\n.L2: addq $1, %rax\njne .L2\n", "label-and-code", [(1, ["movq"]), (2, ["addq", "jne"])]),
    # labels no instruction names (gcc -g's .LVL, .LBB; clang's .Ltmp): no block starts there
    ("f:\nmovq %rdi, %rax\n.LVL1:\n.LBB2:\naddq $1, %rax\nret\n", "debug-labels", [(2, ["movq", "addq", "ret"])]),
    # ... even when debugging information names them
    (
        "f:\nmovq %rdi, %rax\n.LVL1:\naddq $1, %rax\nret\n.section .debug_loc\n.quad .LVL1\n",
        "named-by-debug-info",
        [(2, ["movq", "addq", "ret"])],
    ),
    # a label named by data outside it (a jump table's entry) is a landing
    (
        "f:\nmovq %rdi, %rax\n.L7:\naddq $1, %rax\nret\n.section .rodata\n.quad .L7\n",
        "named-by-a-table",
        [(2, ["movq"]), (4, ["addq", "ret"])],
    ),
    # a call ends its block, as in BHive; so does a system call by int
    ("f:\ncall g@PLT\nmovq %rax, %rdi\nint $0x80\nret\n", "call", [(2, ["call"]), (3, ["movq", "int"]), (5, ["ret"])]),
    # data after a return and before any label: nothing runs into it, left out
    ("f:\nret\n.quad 7\n.L1:\nret\n", "after-ret", [(2, ["ret"]), (5, ["ret"])]),
    # data in a data section: left out, whatever flowed before the switch
    (
        'f:\nmovq %rdi, %rax\n.section .rodata\n.LC0:\n.string "x"\n.text\nret\n',
        "rodata",
        [(2, ["movq"]), (7, ["ret"])],
    ),
    # a section with the executable flag holds code; Mach-O's __TEXT,__text too, its strings are data
    ('.section .hot,"ax",@progbits\nf:\naddq $1, %rax\nret\n', "ax-section", [(3, ["addq", "ret"])]),
    (
        ".section __TEXT,__text,regular,pure_instructions\n_f:\nleaq L_.str(%rip), %rax\nretq\n"
        '.section __TEXT,__cstring,cstring_literals\nL_.str:\n.asciz "x"\n.subsections_via_symbols\n',
        "mach-o",
        [(3, ["leaq", "retq"])],
    ),
    # a Mach-O jump table in code, marked as data
    (
        "_f:\nleaq LJTI0_0(%rip), %rcx\njmpq *%rcx\n.data_region jt32\nLJTI0_0:\n.long 4\n.end_data_region\n"
        ".subsections_via_symbols\n",
        "data-region",
        [(2, ["leaq", "jmpq"])],
    ),
    # numeric local labels
    ("1:\ndecq %rcx\njnz 1b\n2:\nret\n", "numeric-labels", [(2, ["decq", "jnz"]), (5, ["ret"])]),
    # a blank line ends a block, as between paragraphs; comments right above the code belong to it
    (
        "f:\nmovq %rdi, %rax\n\n# label: 2.5\naddq $1, %rax\nret\n",
        "blank-and-comment",
        [(2, ["movq"]), (4, ["addq", "ret"])],
    ),
    # comments above a directive are not the next block's
    ("# header\n\t.text\nf:\n\tret\n", "header", [(4, ["ret"])]),
    # statements split by ';': a trailing ';' and a jump ending its line end the block
    ("f:\naddq $1, %rax; ret;\nsubq $1, %rax\nret\n", "semicolons", [(2, ["addq"]), (3, ["subq", "ret"])]),
    # C comments are blanks, symbols given values and .extern are inert
    ("SIZE = 16\n.extern g\nf: /* entry */\naddq $SIZE, %rax /* grow */\nret\n", "as-accepts", [(4, ["addq", "ret"])]),
    # a ';', '#' or '/*' inside a string is the string's
    (
        'f:\nmovq %rdi, %rax\nret\n.section .rodata\n.LC0:\n.string "a;b#c/*"\n.LC1:\n.string "*/"\n.text\n'
        "g:\naddq $1, %rax\nret\n",
        "strings",
        [(2, ["movq", "ret"]), (11, ["addq", "ret"])],
    ),
    # a comment on a line of its own, C's or '#', does not split straight-line code
    ("f:\nmovq %rdi, %rax\n/* between */\naddq $1, %rax\nret\n", "c-comment-line", [(2, ["movq", "addq", "ret"])]),
    # gcc's bounds of a call site in an exception table are no jump targets
    (
        "f:\nmovq %rdi, %rax\n.LEHB0:\ncall g\n.LEHE0:\naddq $1, %rax\nret\n"
        ".section .gcc_except_table\n.uleb128 .LEHB0-f\n.uleb128 .LEHE0-.LEHB0\n",
        "call-site-bounds",
        [(2, ["movq", "call"]), (6, ["addq", "ret"])],
    ),
    # an ELF section named with '__' is ELF's: "ax" holds code
    ('.section __hot,"ax",@progbits\nf:\naddq $1, %rax\nret\n', "elf-underscores", [(3, ["addq", "ret"])]),
    # a local symbol given a value is no directive
    (".Lsize = 16\nf:\naddq $.Lsize, %rax\nret\n", "local-assignment", [(3, ["addq", "ret"])]),
    # labels and directives alone: no block
    ("\t.text\nf:\n.L1:\n\t.size f, .-f\n", "none", []),
    # data after a return, under a label only memory operands name (a constant, a jump table read): nothing runs
    # into it, left out, and the block ends
    (
        "f:\nmovsd .LC0(%rip), %xmm0\nret\n.p2align 3\n.LC0:\n.quad 0x400921fb54442d18\ng:\nret\n",
        "constant-pool-after-ret",
        [(2, ["movsd", "ret"]), (8, ["ret"])],
    ),
    (
        "f:\njmp *.L5(,%rax,8)\n.L5:\n.quad .L1\n.quad .L2\n.L1:\nret\n.L2:\nret\n",
        "jump-table-in-text",
        [(2, ["jmp"]), (7, ["ret"]), (9, ["ret"])],
    ),
    (
        "f:\nmovl tbl(%rip), %eax\nret\n.type tbl, @object\ntbl:\n.long 1, 2\n.L9:\nret\n",
        "object-after-ret",
        [(2, ["movl", "ret"]), (8, ["ret"])],
    ),
    # a memory operand's label mid-block is no jump target: the block runs on across it
    ("f:\nmovq .L7(%rip), %rax\n.L7:\naddq $1, %rax\nret\n", "read-label-mid-block", [(2, ["movq", "addq", "ret"])]),
]


@pytest.mark.parametrize("text, blocks", [(t, b) for t, _, b in BLOCKS], ids=[i for _, i, _ in BLOCKS])
def test_blocks_of_a_listing(text, blocks):
    assert [(first, instructions(body)) for first, body in listing_blocks(text.splitlines())] == blocks


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        # bytes the processor would run: refused where they stand
        ("f:\nmovq %rdi, %rax\n.byte 0x0f, 0x05\nret\n", 3, 1, "assembler directive '.byte' places data where"),
        (
            "f:\nmovq %rdi, %rax\n.L2:\n\t.long 7\n\tret\n",  # the movq runs on into it, label or not
            4,
            2,
            "assembler directive '.long' places data where instructions run",
        ),
        ("f:\ncall g\n.byte 0x90\nret\n", 3, 1, "'.byte' places data where instructions run"),  # a call returns
        # a section pushed and popped: what ran in .text runs on into the byte after it
        (
            "f:\nmovq %rdi, %rax\n.pushsection .rodata\n.byte 1\n.popsection\n.byte 0x90\nret\n",
            6,
            1,
            "'.byte' places data where instructions run",
        ),
        ("f:\naddq $1, %rax\n.section .rodata\n.text\n.byte 0x90\nret\n", 5, 1, "'.byte' places data"),
        # what changes the instructions read
        ("f:\nmovq %rdi, %rax\n.rept 3\naddq $1, %rax\n.endr\nret\n", 3, 1, "assembler directive '.rept'"),
        # a label a jump lands on in code: data after it is refused (a branch's target, an address taken)
        ("f:\njmp .L5\n.L5:\n.quad 7\nret\n", 4, 1, "'.quad' places data where instructions run"),
        ("f:\nleaq .L5(%rip), %rax\njmp *%rax\n.L5:\n.byte 0x90\nret\n", 5, 1, "'.byte' places data where"),
        ("f:\npushq $.L5\nret\n.L5:\n.byte 0x90\nret\n", 5, 1, "'.byte' places data where"),
        ("f:\n.code32\nmovl %edi, %eax\nret\n", 2, 1, "32-bit code (.code32) up to .code64: invar reads x86-64"),
        ("f:\nret\n.intel_syntax noprefix\ng:\nmov rax, rdi\nret\n", 3, 1, "Intel syntax up to .att_syntax"),
        # statements on one line: a jump lands on a label only at the start of a line, a block ends with one
        ("f:\ndecl %eax; jnz f; addl $1, %eax\nret\n", 2, 19, "a statement after a control transfer on its line"),
        ("f:\nxorl %eax, %eax; 1: incl %eax; jnz 1b\n", 2, 18, "a label a jump lands on after ';'"),
    ],
    ids=[
        "byte-in-flow",
        "long-after-a-label",
        "byte-after-call",
        "pushed",
        "switched",
        "rept",
        "jumped-to",
        "address-taken",
        "pushed-address",
        "code32",
        "intel",
        "after-a-jump",
        "label-after-semicolon",
    ],
)
def test_what_would_change_the_instructions_is_refused_where_it_stands(text, line, col, message):
    units_or_error = None
    try:
        units_or_error = parse_units(text, path="f.s")
    except ParseError as err:
        units_or_error = err
    errors = [units_or_error] if isinstance(units_or_error, ParseError) else units_or_error.skipped
    assert [(e.line, e.col) for e in errors] == [(line, col)] and message in errors[0].message, [str(e) for e in errors]


def test_numeric_local_labels_are_branch_targets():
    (unit,) = parse_units("1:\n\tdecq %rcx\n\tjnz 1b\n", path="loop.s")
    assert unit.render() == "decq %rcx\njnz 1b"
    with pytest.raises(ParseError, match="malformed number '1f'"):  # as a displacement: as llvm-mc reads a block
        parse_units("movq 1f(%rax), %rbx\n")


def test_labels_and_directives_alone_are_no_block():
    with pytest.raises(ParseError, match="no instructions: only labels and assembler directives") as info:
        parse_units("\t.text\nf:\n\t.size f, .-f\n", path="f.s")
    assert (info.value.line, info.value.col) == (1, 1)


@pytest.mark.parametrize(
    "lines, listing",
    [
        (["movq %rdi, %rax", "ret"], False),
        (["movq %rdi, %rax  # .text in a comment", "ret"], False),
        (["f:", "ret"], True),
        (["\t.p2align 4", "ret"], True),
        (["movq %fs:40, %rax"], False),  # a segment is no label
    ],
)
def test_what_makes_a_listing(lines, listing):
    assert is_listing(lines) is listing


@pytest.mark.parametrize(
    "instruction, ends, falls",
    [
        ("jmp .L3", True, False),
        ("jne .L3", True, True),
        ("notrack jmp *%rax", True, False),
        ("bnd ret", True, False),
        ("rep ret", True, False),
        ("call foo@PLT", True, True),
        ("syscall", True, True),
        ("loop .L2", True, True),
        ("ud2", True, False),
        ("addq $1, %rax", False, True),
        ("jrcxz .L1", True, True),
    ],
)
def test_control_transfers(instruction, ends, falls):
    assert (ends_block(instruction), falls_through(instruction)) == (ends, falls)


def test_an_intel_region_ends_at_att_syntax():
    text = "f:\nret\n.intel_syntax noprefix\nmov rax, rdi\n.att_syntax\ng:\nmovq %rdi, %rax\nret\n"
    units = parse_units(text, path="f.s")
    assert [u.name for u in units] == ["line2", "line7"]
    assert [(e.line, e.message.split(":")[0]) for e in units.skipped] == [(3, "Intel syntax up to .att_syntax")]


def test_debug_information_leaves_the_blocks_as_they_are():
    """gcc -g adds labels only debugging information names: the blocks
    (their instructions) are those of the listing without -g."""
    plain = [instructions(body) for _, body in listing_blocks(GCC.splitlines())]
    lines = GCC.splitlines()
    debug = []
    for k, line in enumerate(lines):
        debug.append(line)
        if line.startswith("\t") and not line.startswith("\t."):
            debug += [f".LVL{k}:", f"\t.loc 1 {k} 3 view .LVU{k}"]
    debug += ["\t.section\t.debug_loclists", *(f"\t.quad\t.LVL{k}" for k in range(len(lines)))]
    assert [instructions(body) for _, body in listing_blocks(debug)] == plain


def test_a_block_is_also_named_by_the_labels_before_it():
    units = parse_units(GCC, path="t.s")
    assert units.aliases == {"f": "line9", ".LFB0": "line9", ".L3": "line16", ".L4": "line23"}
    assert [b.labels for b in read_listing(GCC)] == [("f", ".LFB0"), (), (".L3",), (), (".L4",)]


def test_labels_in_another_section_name_no_block_and_numeric_labels_none():
    text = "f:\nret\n.section .rodata\n.LC0:\n.string \"x\"\n.text\n1:\naddq $1, %rax\njnz 1b\n"
    units = parse_units(text, path="f.s")
    assert units.aliases == {"f": "line2"}  # .LC0 names no block, nor does a numeric label (it may repeat)
    assert [b.labels for b in read_listing(text)] == [("f",), ("1",)]


def test_a_comment_above_a_functions_label_is_its_first_blocks():
    ((first, body),) = listing_blocks("# label: 2.5\nf:\n\t.cfi_startproc\n\tret\n".splitlines())
    assert first == 1 and body.splitlines()[0] == "# label: 2.5"


# ---------------------------------------------------------------- i386 listings
#: gcc 12 -m32 -O0 (real output, trimmed): a frame pointer pushed as %ebp
GCC_M32_O0 = "\t.text\n\t.globl\tadd\n\t.type\tadd, @function\nadd:\n.LFB0:\n\tpushl\t%ebp\n\tmovl\t%esp, %ebp\n"
GCC_M32_O0 += "\tmovl\t8(%ebp), %edx\n\tmovl\t12(%ebp), %eax\n\taddl\t%edx, %eax\n\tpopl\t%ebp\n\tret\n"
#: gcc 12 -m32 -O2 -fno-pie -fno-asynchronous-unwind-tables: only its stack, read through %esp, says i386
GCC_M32_LEAF = "\t.text\n\t.p2align 4\n\t.globl\tadd\nadd:\n\tmovl\t8(%esp), %eax\n\taddl\t4(%esp), %eax\n\tret\n"
#: clang's (llc 14, i386-linux-gnu) -O2: calll and retl
CLANG_M32 = (
    "\t.text\n\t.file\t\"m.ll\"\n\t.globl\tcallit\ncallit:\n\t.cfi_startproc\n# %bb.0:\n\tsubl\t$12, %esp\n"
    "\t.cfi_def_cfa_offset 16\n\tmovl\t16(%esp), %eax\n\tmovl\t%eax, (%esp)\n\tcalll\th@PLT\n\tretl\n"
)
#: gcc 12 -mx32 -O0: 32-bit pointers in 64-bit mode (it names %rbp): x86-64 code
GCC_MX32_O0 = "\t.text\nadd:\n\tpushq\t%rbp\n\tmovl\t%esp, %ebp\n\tmovl\t%edi, -4(%ebp)\n\tmovl\t-4(%ebp), %eax\n"
GCC_MX32_O0 += "\tpopq\t%rbp\n\tret\n"

I386 = [
    (GCC_M32_O0, 6, 2, "'pushl %ebp' is i386 code", "gcc-m32-O0"),
    (GCC_M32_LEAF, 5, 2, "'movl 8(%esp), %eax' addresses the stack through a 32-bit register", "gcc-m32-leaf"),
    (CLANG_M32, 9, 2, "'movl 16(%esp), %eax' addresses the stack", "clang-m32"),
    ("f:\n\tcalll\tg\n\tretl\n", 2, 2, "'calll g' is i386 code", "calll"),
    ("f:\n\tretl\n", 2, 2, "'retl' is i386 code", "retl"),
    ("f:\n\tcall\t__x86.get_pc_thunk.ax\n\taddl\t$_GLOBAL_OFFSET_TABLE_, %eax\n\tret\n", 2, 2, "is i386", "pc-thunk"),
    ("f: push %ebx\nret\n", 1, 4, "'push %ebx' is i386 code", "push-after-label"),
    ("f:\ncall *%eax\nret\n", 2, 1, "'call *%eax' is i386 code", "call-through-eax"),
    ("f:\npushal\naaa\nret\n", 2, 1, "'pushal' is i386 code", "pushal"),
    # no instruction says it, the unwinding information does: i386's return address is four bytes
    (
        "f:\n.cfi_startproc\nsubl $12, %ecx\n.cfi_def_cfa_offset 16\naddl $1, %eax\n.cfi_def_cfa_offset 4\nret\n",
        6,
        1,
        "'.cfi_def_cfa_offset 4' counts four-byte stack slots",
        "cfa-offset",
    ),
]


@pytest.mark.parametrize("text, line, col, what", [c[:4] for c in I386], ids=[c[4] for c in I386])
def test_an_i386_listing_is_refused_as_a_whole_where_it_shows(text, line, col, what):
    with pytest.raises(ParseError) as info:
        parse_units(text, path="m32.s")
    err = info.value
    assert (err.line, err.col) == (line, col) and err.message.startswith("a 32-bit listing (i386, -m32): ")
    assert what in err.message and "invar reads x86-64" in err.message
    assert err.source_line == text.splitlines()[line - 1]


NOT_I386 = [
    (GCC_MX32_O0, [(3, ["pushq", "movl", "movl", "movl", "popq", "ret"])], "gcc-mx32"),
    # a 64-bit register anywhere: x86-64, whatever else its stack reads (a stray %esp is its own block's business)
    ("f:\nmovl 4(%esp), %eax\nret\ng:\nmovq %rdi, %rax\nret\n", [(2, ["movl", "ret"]), (5, ["movq", "ret"])], "wide"),
    # .code64 says so
    ("\t.code64\nf:\nmovl 4(%esp), %eax\nret\n", [(3, ["movl", "ret"])], "code64"),
    # nothing says either: the same instructions in both modes
    ("f:\nmovl $3, %eax\n.cfi_def_cfa_offset 16\nret\n", [(2, ["movl", "ret"])], "undecided"),
    # i386 code in a .code32 region is the region's (refused there), and says nothing of the rest
    (
        "f:\nmovq %rdi, %rax\nret\n.code32\npushl %ebp\nret\n.code64\ng:\nmovl 4(%esp), %eax\nret\n",
        [(2, ["movq", "ret"]), (4, [".code32", "pushl", "ret", ".code64"]), (9, ["movl", "ret"])],
        "code32-region",
    ),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in NOT_I386], ids=[c[2] for c in NOT_I386])
def test_what_is_no_i386_listing_is_read(text, blocks):
    assert [(first, instructions(body)) for first, body in listing_blocks(text.splitlines())] == blocks


def test_a_code16_or_code32_region_is_one_refused_block_up_to_code64():
    text = "f:\nret\n.code16gcc\nmovw %ax, %bx\n.code32\nmovl %eax, %ebx\n.code64\ng:\nmovq %rdi, %rax\nret\n"
    units = parse_units(text, path="f.s")
    assert [u.name for u in units] == ["line2", "line9"]
    assert [(e.line, e.col, e.message) for e in units.skipped] == [
        (3, 1, "16-bit code (.code16gcc) up to .code64: invar reads x86-64")
    ]
    # up to the file's end when no .code64 comes; a region in Intel syntax ends where both are back
    ((first, body, error, _),) = read_listing("f:\n.code32\nmovl %eax, %ebx\nret\n")
    assert (first, error.line, error.col) == (2, 2, 1) and body.splitlines()[-1] == "ret"
    mixed = ".code32\n.intel_syntax noprefix\nmov eax, ebx\n.code64\nmov rax, rbx\n.att_syntax\nf:\nret\n"
    assert [(b.first, b.error is not None) for b in read_listing(mixed)] == [(1, True), (8, False)]


# ---------------------------------------------------------------- character constants
@pytest.mark.parametrize(
    "line, statements",
    [
        ("\tmovb $'#', %al", [(1, "movb $'#', %al")]),
        ("\tmovb $'#, %al # c", [(1, "movb $'#, %al")]),  # GNU as's form: no closing quote
        ("cmpb $';', %al; jne .L3", [(0, "cmpb $';', %al"), (16, "jne .L3")]),
        (".byte '\\'', 1 # c", [(0, ".byte '\\'', 1")]),  # an escaped quote, then the closing one
        (".byte '\\\\', '#'", [(0, ".byte '\\\\', '#'")]),
        (".byte ''', '\"', 2 # c", [(0, ".byte ''', '\"', 2")]),  # a quote, a double quote: no string opens
        ('.ascii "it\'s #1" # c', [(0, '.ascii "it\'s #1"')]),  # a quote inside a string is the string's
        (".byte '", [(0, ".byte '")]),
    ],
    ids=["closed", "gnu-as", "semicolon", "escaped-quote", "backslash", "quotes", "in-a-string", "cut"],
)
def test_a_character_constant_is_its_own(line, statements):
    from invar.frontends.x86.listing import split_statements as _statements

    assert _statements(line) == statements


CHARACTERS = [
    # the jump after a character constant ends the block, and its target starts one
    (
        "f:\ncmpb $'#', %al; jne .L3\naddl $1, %eax\n.L3:\nret\n",
        [(2, ["cmpb", "jne"]), (3, ["addl"]), (5, ["ret"])],
        "jump-after-constant",
    ),
    # a ';' in data's character constant splits no statement: no block in .rodata
    ("f:\nret\n.section .rodata\n.LC0:\n.byte ';', 0\n.text\ng:\nret\n", [(2, ["ret"]), (8, ["ret"])], "rodata"),
    # a '"' opens no string: the C comment after it is blanked
    ("f:\nmovb $'\"', %al /* c */\nret\n", [(2, ["movb", "ret"])], "double-quote"),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in CHARACTERS], ids=[c[2] for c in CHARACTERS])
def test_character_constants_in_a_listing(text, blocks):
    from invar.frontends.x86.listing import split_statements as _statements

    found = listing_blocks(text.splitlines())
    assert [
        (first, [s.split()[0] for line in body.splitlines() for _, s in _statements(line)]) for first, body in found
    ] == blocks
    assert all("/*" not in body for _, body in found)


# ---------------------------------------------------------------- quoted labels
QUOTED = [
    # clang quotes a name no plain symbol spells: its label is read, named by a call
    (
        '\t.globl\t"weird name"\n"weird name":                   # @"weird name"\n\tmovl\t%edi, %eax\n\tretq\n'
        'caller:\n\tcallq\t"weird name"@PLT\n\tretq\n',
        [(3, ("weird name",), ["movl", "retq"]), (6, ("caller",), ["callq"]), (7, (), ["retq"])],
        "clang",
    ),
    # a quoted local label a jump names lands; one nothing names does not split its block
    (
        'f:\nmovq %rdi, %rax\n".L a":\naddq $1, %rax\n".L b":\njne ".L a"\nret\n',
        [(2, ("f",), ["movq"]), (4, (".L a",), ["addq", "jne"]), (7, (), ["ret"])],
        "local",
    ),
    # a ';', '#', ':' or escaped quote inside the name is the name's; an instruction may follow on its line
    (
        '"a;b#c:d": movq %rdi, %rax\nret\n"e\\"f":\nret\n',
        [(1, ("a;b#c:d",), ["movq", "ret"]), (4, ('e"f',), ["ret"])],
        "odd-names",
    ),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in QUOTED], ids=[c[2] for c in QUOTED])
def test_quoted_labels(text, blocks):
    found = read_listing(text)
    assert [(b.first, b.labels, instructions(b.text)) for b in found] == blocks
    assert not any(b.error for b in found)


def test_a_quoted_label_names_its_block_and_a_quoted_operand_is_refused_where_it_stands():
    units = parse_units(QUOTED[0][0], path="q.s")
    assert units.aliases["weird name"] == "line3" and [u.name for u in units] == ["line3", "line7"]
    # the instruction reader takes no quoted symbol: that block is refused at its quote, not misread
    assert [(e.line, e.col) for e in units.skipped] == [(6, 8)]


# ---------------------------------------------------------------- exception tables
#: llc 14 (clang's code generator) -O2, x86_64-linux-gnu: a function with two invokes and a cleanup landing pad
CLANG_EH = """\
f:
.Lfunc_begin0:
\t.cfi_startproc
\t.cfi_personality 3, __gxx_personality_v0
\t.cfi_lsda 3, .Lexception0
# %bb.0:                                # %entry
\tpushq\t%rbx
\tmovl\t%edi, %ebx
\tincl\t%ebx
.Ltmp0:
\tmovl\t%ebx, %edi
\tcallq\tmay_throw@PLT
.Ltmp1:
# %bb.1:                                # %cont
\tleal\t(%rbx,%rbx,2), %ebx
.Ltmp2:
\tmovl\t%ebx, %edi
\tcallq\tmay_throw@PLT
.Ltmp3:
# %bb.2:                                # %done
\tmovl\t%ebx, %eax
\tpopq\t%rbx
\tretq
.LBB0_3:                                # %lpad
\t.cfi_def_cfa_offset 16
.Ltmp4:
\tmovq\t%rax, %rbx
\tcallq\tcleanup@PLT
.Lfunc_end0:
\t.cfi_endproc
\t.section\t.gcc_except_table,"a",@progbits
\t.p2align\t2
GCC_except_table0:
.Lexception0:
\t.byte\t255                             # @LPStart Encoding = omit
\t.byte\t255                             # @TType Encoding = omit
\t.byte\t1                               # Call site Encoding = uleb128
\t.uleb128 .Lcst_end0-.Lcst_begin0
.Lcst_begin0:
\t.uleb128 .Ltmp0-.Lfunc_begin0           # >> Call Site 1 <<
\t.uleb128 .Ltmp3-.Ltmp0                  #   Call between .Ltmp0 and .Ltmp3
\t.uleb128 .Ltmp4-.Lfunc_begin0           #     jumps to .Ltmp4
\t.byte\t0                               #   On action: cleanup
\t.uleb128 .Ltmp3-.Lfunc_begin0           # >> Call Site 2 <<
\t.uleb128 .Lfunc_end0-.Ltmp3             #   Call between .Ltmp3 and .Lfunc_end0
\t.byte\t0                               #     has no landing pad
\t.byte\t0                               #   On action: cleanup
.Lcst_end0:
"""

EXCEPTIONS = [
    # clang's .Ltmp bounds of call sites mid-block split nothing; the landing pad its table names starts a block
    (
        CLANG_EH,
        [
            (6, ["pushq", "movl", "incl", "movl", "callq"]),
            (14, ["leal", "movl", "callq"]),
            (20, ["movl", "popq", "retq"]),
            (27, ["movq", "callq"]),
        ],
        "clang",
    ),
    # Apple's older form: each value given a name first (Lset0 = Ltmp0-Lfunc_begin0), the table holding the names
    (
        "_f:\nLfunc_begin0:\nmovl %edi, %ebx\nLtmp0:\ncallq _g\nLtmp1:\nretq\nLtmp2:\nmovq %rax, %rdi\ncallq _h\n"
        ".section __TEXT,__gcc_except_tab\nLset0 = Ltmp0-Lfunc_begin0\n.long Lset0\nLset1 = Ltmp1-Ltmp0\n.long Lset1\n"
        "Lset2 = Ltmp2-Lfunc_begin0\n.long Lset2\n.byte 0\n.subsections_via_symbols\n",
        [(3, ["movl", "callq"]), (7, ["retq"]), (9, ["movq", "callq"])],
        "mach-o-lset",
    ),
    # clang's computed goto: the .Ltmp labels data outside the tables names (&&label) are jump targets
    (
        "f:\nmovq %rdi, %rax\n.Ltmp0:\naddq $1, %rax\n.Ltmp1:\nsubq $1, %rax\nret\n"
        ".section .rodata\n.quad .Ltmp0\n.text\ng:\nleaq .Ltmp1(%rip), %rax\nret\n",
        [(2, ["movq"]), (4, ["addq"]), (6, ["subq", "ret"]), (12, ["leaq", "ret"])],
        "computed-goto",
    ),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in EXCEPTIONS], ids=[c[2] for c in EXCEPTIONS])
def test_exception_tables_name_landing_pads_not_call_site_bounds(text, blocks):
    assert [(first, instructions(body)) for first, body in listing_blocks(text.splitlines())] == blocks


@pytest.mark.parametrize(
    "instruction, names",
    [
        ("jmp .L3", {".L3"}),
        ("call \"weird name\"@PLT", {"weird name"}),
        ("notrack jmp *.L4(,%rax,8)", set()),  # a jump table read
        ("movsd .LC0(%rip), %xmm0", set()),  # a constant read
        ("leaq .L5(%rip), %rax", {".L5"}),  # an address taken
        ("movq $.L5, %rax", {".L5"}),
        ("movl $'a', %eax", set()),
        ("xbegin .L9", {".L9"}),
        ("jnz 1b", set()),  # a numeric label is a jump target anyway
    ],
)
def test_what_an_instruction_names_as_a_jump_target(instruction, names):
    from invar.frontends.x86.listing import _targets

    assert _targets(instruction) == names


# ---------------------------------------------------------------- labels before a refused block, a section switch, data
#: the review's file: labels right before a .code32 region, and before a .code16 one
C32 = """\
\t.text
f:
\tmovq\t%rdi, %rax
\taddq\t$1, %rax
\t.code32
\tpushl\t%ebp
\tmovl\t%esp, %ebp
\t.code64
\tmovq\t%rax, %rbx
\tret
g:
\t.code16
\tmovw\t%ax, %bx
\t.code32
\tmovl\t%eax, %ebx
\t.code64
\taddq\t%rax, %rbx
\tret
"""

#: (text, [(first line, labels, refused)] of its blocks, id): the labels pending where a block opens are its own,
#: a refused one's too; across a section switch they wait for their section's next bytes
PENDING_LABELS = [
    (C32, [(3, ("f",), False), (5, (), True), (9, (), False), (12, ("g",), True), (17, (), False)], "code16-code32"),
    (
        "f:\nret\ng:\n.intel_syntax noprefix\nmov rax, rbx\n.att_syntax\naddq $1, %rax\nret\n",
        [(2, ("f",), False), (4, ("g",), True), (7, (), False)],
        "intel",
    ),
    # the label on the region's own line; a comment right above it is the region's too
    (
        "# g's\ng: .code32\nmovl %eax, %ebx\n.code64\naddq $1, %rax\nret\n",
        [(1, ("g",), True), (5, (), False)],
        "inline",
    ),
    # labels inside the region: before its first instruction the region's, after its last the next block's
    (
        ".code32\n.L1:\nmovl %eax, %ebx\n.L2:\nmovl %ebx, %ecx\n.L3:\n.code64\naddq $1, %rax\nret\n",
        [(1, (".L1", ".L2"), True), (8, (".L3",), False)],
        "inside",
    ),
    # a region that places nothing refuses nothing: its labels name what follows
    ("f:\n.code32\n.code64\naddq $1, %rax\nret\n", [(4, ("f",), False)], "empty-region"),
    # a section switch: the label waits for its section's next bytes (GNU as places them at its address)
    (
        'f:\n.section .rodata\n.LC0:\n.string "x"\n.text\nmovq %rdi, %rax\nret\n',
        [(6, ("f",), False)],
        "switch-and-back",
    ),
    ("f:\n.pushsection .rodata\n.byte 1\n.popsection\nmovq %rdi, %rax\nret\n", [(5, ("f",), False)], "pushed"),
    # a data section's label names its data, not the next code
    (".data\nx:\n.text\nf:\nret\n.data\n.long 1\n.text\ng:\nret\n", [(5, ("f",), False), (10, ("g",), False)], "data"),
    # data after a return names nothing after it
    ("f:\nret\n.LC0:\n.quad 7\ng:\nret\n", [(2, ("f",), False), (6, ("g",), False)], "data-after-ret"),
    # data where instructions run: the labels before it name the refused block
    ("f:\njmp .L5\n.L5:\n.quad 7\nret\n", [(2, ("f",), False), (4, (".L5",), True)], "refused-data"),
    # gcc's cold part: the label a function's hot part leaves in .text.unlikely names its cold block
    (
        '.section .text.unlikely,"ax",@progbits\n.LCOLDB0:\n.text\n.LHOTB0:\nf:\ntestl %edi, %edi\njne .L2\nret\n'
        ".section .text.unlikely\nf.cold:\n.L2:\ncall abort\n",
        [(6, (".LHOTB0", "f"), False), (8, (), False), (12, (".LCOLDB0", "f.cold", ".L2"), False)],
        "cold",
    ),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in PENDING_LABELS], ids=[c[2] for c in PENDING_LABELS])
def test_the_labels_before_a_block_are_its_own(text, blocks):
    from invar.frontends.x86.parse import parse

    def refused(block) -> bool:
        try:
            parse(block.text, first_line=block.first)
        except ParseError:
            return True
        return block.error is not None

    assert [(b.first, b.labels, refused(b)) for b in read_listing(text)] == blocks


def test_function_names_a_refused_region_as_refused():
    """``--function g`` on the review's file: the block g names is the refused region (the CLI says so)."""
    units = parse_units(C32, path="c32.s")
    assert units.aliases == {"f": "line3", "g": "line12"} and units.refused == {"line5", "line12"}
    assert [u.name for u in units] == ["line3", "line9", "line17"]


# ---------------------------------------------------------------- jump tables in code (llc's COFF)
#: llc 14 -O2 -mtriple=x86_64-pc-windows-gnu (real output, trimmed): the jump table after the function's return
COFF_SWITCH = """\
\t.def\tsw;
\t.scl\t2;
\t.type\t32;
\t.endef
\t.globl\tsw
\t.p2align\t4, 0x90
sw:                                     # @sw
# %bb.0:                                # %entry
\tcmpl\t$4, %ecx
\tja\t.LBB4_7
# %bb.1:                                # %entry
\tmovl\t%ecx, %eax
\tleaq\t.LJTI4_0(%rip), %rcx
\tmovslq\t(%rcx,%rax,4), %rax
\taddq\t%rcx, %rax
\tjmpq\t*%rax
.LBB4_2:                                # %c0
\taddl\t$11, %edx
.LBB4_3:                                # %c1x
\tleal\t(,%rdx,8), %eax
\tsubl\t%edx, %eax
\tretq
.LBB4_7:                                # %def
\txorl\t%eax, %eax
\tretq
.LBB4_4:                                # %c2
\tmovl\t$13, %eax
\tretq
\t.p2align\t2, 0x90
.LJTI4_0:
\t.long\t.LBB4_2-.LJTI4_0
\t.long\t.LBB4_3-.LJTI4_0
\t.long\t.LBB4_4-.LJTI4_0
\t.long\t.LBB4_7-.LJTI4_0
                                        # -- End function
\t.section\t.rdata,"dr"
"""

JUMP_TABLES = [
    (
        COFF_SWITCH,
        [(8, ["cmpl", "ja"]), (11, ["movl", "leaq", "movslq", "addq", "jmpq"]), (18, ["addl"])]
        + [(20, ["leal", "subl", "retq"]), (24, ["xorl", "retq"]), (27, ["movl", "retq"])],
        "llc-coff",
    ),
    # gcc's computed goto: the address taken, the label followed by code, is a jump target
    (
        "f:\nleaq .L3(%rip), %rax\njmp *%rax\n.L3:\naddl $1, %eax\n.L4:\nret\n.section .rodata\n.long .L4-.L3\n",
        [(2, ["leaq", "jmp"]), (5, ["addl"]), (7, ["ret"])],
        "relative-computed-goto",
    ),
    # a base followed by data, but also named whole (a table's entry): a jump may land on it, its data is refused
    (
        "f:\nleaq .L3(%rip), %rax\nret\n.L3:\n.long .L4-.L3\n.L4:\nret\n.section .rodata\n.quad .L3\n",
        [(2, ["leaq", "ret"]), (5, [".long"]), (7, ["ret"])],
        "named-whole",
    ),
]


@pytest.mark.parametrize("text, blocks", [c[:2] for c in JUMP_TABLES], ids=[c[2] for c in JUMP_TABLES])
def test_a_jump_tables_base_in_code_is_data(text, blocks):
    assert [(first, instructions(body)) for first, body in listing_blocks(text.splitlines())] == blocks


@pytest.mark.parametrize(
    "text, units",
    [
        # a ';' in a character constant makes no file of one block a line (BHive's form)
        ("cmpb $';', %al\nmovb $'#', %bl\n", [["cmpb $59, %al", "movb $35, %bl"]]),
        ("cmpb $1, %al; jne 1f\nmovb $'#', %bl\n", [["cmpb $1, %al", "jne 1f"], ["movb $35, %bl"]]),
        # in a listing: the character constants the instructions hold are read, the blocks cut around them
        (
            "f:\ncmpb $';', %dil; jne .L3\nmovb $'#', %al # '#'\n.L3:\nret\n",
            [["cmpb $59, %dil", "jne .L3"]] + [["movb $35, %al"], ["ret"]],
        ),
    ],
    ids=["paragraph", "one-a-line", "listing"],
)
def test_character_constants_in_blocks_are_read(text, units):
    assert [[line.text for line in unit.lines] for unit in parse_units(text, path="c.s")] == units
