"""A compiler's listing read as basic blocks (invar/frontends/x86/listing.py):
labels start blocks, control transfers end them, directives are left out
where they emit nothing that runs and refused where they would."""

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
        # a label in code may be jumped to: data after it is refused, a jump table in .text too
        ("f:\njmp *.L5(,%rax,8)\n.L5:\n.quad .L1\n.L1:\nret\n", 4, 1, "'.quad' places data where instructions run"),
        ("f:\n.code32\nmovl %edi, %eax\nret\n", 2, 1, "assembler directive '.code32' is not an instruction"),
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
        "table-in-text",
        "rept",
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
