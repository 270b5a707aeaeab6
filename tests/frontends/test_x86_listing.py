"""A compiler's listing read as basic blocks (invar/frontends/x86/listing.py):
labels start blocks, control transfers end them, directives are left out
where they emit nothing that runs and refused where they would."""

from __future__ import annotations

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse_units
from invar.frontends.x86.listing import ends_block, falls_through, is_listing, listing_blocks

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


@pytest.mark.parametrize(
    "text, blocks",
    [
        # a label and an instruction on one line: the instruction starts the block, at its own column
        ("f: movq %rdi, %rax\n.L2: addq $1, %rax\nret\n", [(1, ["movq"]), (2, ["addq", "ret"])]),
        # a call ends its block, as in BHive
        ("f:\ncall g@PLT\nmovq %rax, %rdi\nret\n", [(2, ["call"]), (3, ["movq", "ret"])]),
        # data after a return and before any label: nothing runs into it, left out
        ("f:\nret\n.quad 7\n.L1:\nret\n", [(2, ["ret"]), (5, ["ret"])]),
        # data in a data section: left out, whatever flowed before the switch
        ("f:\nmovq %rdi, %rax\n.section .rodata\n.LC0:\n.string \"x\"\n.text\nret\n", [(2, ["movq"]), (7, ["ret"])]),
        # a section with the executable flag holds code
        ('.section .hot,"ax",@progbits\nf:\naddq $1, %rax\nret\n', [(3, ["addq", "ret"])]),
        # numeric local labels
        ("1:\ndecq %rcx\njnz 1b\n2:\nret\n", [(2, ["decq", "jnz"]), (5, ["ret"])]),
        # a blank line inside a block does not split it
        ("f:\nmovq %rdi, %rax\n\naddq $1, %rax\nret\n", [(2, ["movq", "addq", "ret"])]),
        # labels and directives alone: no block
        ("\t.text\nf:\n.L1:\n\t.size f, .-f\n", []),
    ],
    ids=["label-and-code", "call", "after-ret", "rodata", "ax-section", "numeric-labels", "blank", "none"],
)
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
        ("f:\njmp *%rax\n.L5:\n.quad .L1\n.L1:\nret\n", 4, 1, "'.quad' places data where instructions run"),
        ("f:\n.code32\nmovl %edi, %eax\nret\n", 2, 1, "assembler directive '.code32' is not an instruction"),
        ("f:\nret\n.intel_syntax noprefix\ng:\nmov rax, rdi\nret\n", 3, 1, "Intel syntax from here on"),
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
