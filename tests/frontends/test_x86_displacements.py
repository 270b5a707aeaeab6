"""Displacement and immediate expressions, checked against llvm-mc's encodings.

Compilers write addresses as expressions: gcc's ``8+g(%rip)`` and
``-16+g(%rbx)`` (a field of a global struct), ``g+8(%rip)``, ``(g+8)(%rip)``,
``8+g(,%rcx,8)``, a static local ``calls.0(%rip)``, thread-locals
``%fs:8+x@tpoff``. Every row of :data:`ACCEPTED` gives an instruction, invar's
rendering of it, and the same address written plainly (``sym+N`` or ``N``, by
hand); llvm-mc must encode all three alike (same bytes, and fixups of the
same kind at the same offset whose values agree for any address of the
symbols), and invar's reading of the displacement must be the plain one's
constant and symbols. :data:`REFUSED` rows are refused by invar and by
llvm-mc (writing an object file, which resolves what ``-show-encoding``
leaves symbolic); :data:`NOT_READ` rows are expressions llvm-mc assembles
and invar refuses, each with its reason (docs/formats.md).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections import Counter

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse

MC = ["llvm-mc", "-triple=x86_64-unknown-linux-gnu"]
needs_mc = pytest.mark.skipif(shutil.which("llvm-mc") is None, reason="needs llvm-mc (.ci/run installs Debian's llvm)")

# (source, invar's rendering, the address written plainly, constant, symbols with their signs)
ACCEPTED = [
    # gcc -fpie: a field of a global struct; a string constant's tail; a static local
    ("movq 8+g(%rip), %rax", "movq 8+g(%rip), %rax", "movq g+8(%rip), %rax", 8, {"g": 1}),
    ("movq 64+g(%rip), %rax", "movq 64+g(%rip), %rax", "movq g+64(%rip), %rax", 64, {"g": 1}),
    ("movq 8+.LC141(%rip), %rax", "movq 8+.LC141(%rip), %rax", "movq .LC141+8(%rip), %rax", 8, {".LC141": 1}),
    ("addq calls.0(%rip), %rdx", "addq calls.0(%rip), %rdx", "addq calls.0(%rip), %rdx", 0, {"calls.0": 1}),
    ("leaq -8+scratch(%rip), %rsi", "leaq -8+scratch(%rip), %rsi", "leaq scratch-8(%rip), %rsi", -8, {"scratch": 1}),
    # parenthesised, and with any base or index (gcc -fno-pie)
    ("movq (g+8)(%rip), %rax", "movq (g+8)(%rip), %rax", "movq g+8(%rip), %rax", 8, {"g": 1}),
    ("movq -16+g(%rbx), %rax", "movq -16+g(%rbx), %rax", "movq g-16(%rbx), %rax", -16, {"g": 1}),
    ("movq 8+g(,%rcx,8), %rax", "movq 8+g(,%rcx,8), %rax", "movq g+8(,%rcx,8), %rax", 8, {"g": 1}),
    (
        "movl world-24(%rax,%rdx,4), %ecx",
        "movl world-24(%rax,%rdx,4), %ecx",
        "movl world-24(%rax,%rdx,4), %ecx",
        -24,
        {"world": 1},
    ),
    ("movq %rax, 8+g(%rip)", "movq %rax, 8+g(%rip)", "movq %rax, g+8(%rip)", 8, {"g": 1}),
    ("movq $7, 8+g(%rip)", "movq $7, 8+g(%rip)", "movq $7, g+8(%rip)", 8, {"g": 1}),  # the field before an immediate
    ("movl $1, (g+4)(%rbx,%rcx,2)", "movl $1, (g+4)(%rbx,%rcx,2)", "movl $1, g+4(%rbx,%rcx,2)", 4, {"g": 1}),
    # blanks, nested parentheses, signs
    ("movq 8 + g (%rip), %rax", "movq 8+g(%rip), %rax", "movq g+8(%rip), %rax", 8, {"g": 1}),
    ("movq ((g))+8(%rip), %rax", "movq ((g))+8(%rip), %rax", "movq g+8(%rip), %rax", 8, {"g": 1}),
    ("movq -(8)+g(%rip), %rax", "movq -(8)+g(%rip), %rax", "movq g-8(%rip), %rax", -8, {"g": 1}),
    ("movq 8-(0-g)(%rip), %rax", "movq 8-(0-g)(%rip), %rax", "movq g+8(%rip), %rax", 8, {"g": 1}),
    ("movq 8+(g-h)(%rip), %rax", "movq 8+(g-h)(%rip), %rax", "movq g-h+8(%rip), %rax", 8, {"g": 1, "h": -1}),
    ("movq 8-(h-g)(%rip), %rax", "movq 8-(h-g)(%rip), %rax", "movq g-h+8(%rip), %rax", 8, {"g": 1, "h": -1}),
    ("movq g+1+2-(4-8)(%rip), %rax", "movq g+1+2-(4-8)(%rip), %rax", "movq g+7(%rip), %rax", 7, {"g": 1}),
    ("movq 0x10+g(%rip), %rax", "movq 0x10+g(%rip), %rax", "movq g+16(%rip), %rax", 16, {"g": 1}),
    # differences of two symbols
    ("movq g-h(%rip), %rax", "movq g-h(%rip), %rax", "movq g-h(%rip), %rax", 0, {"g": 1, "h": -1}),
    ("movq 8+(g-h)(%rbx), %rax", "movq 8+(g-h)(%rbx), %rax", "movq g-h+8(%rbx), %rax", 8, {"g": 1, "h": -1}),
    # symbol modifiers: GOT, thread-locals
    ("movq g@GOTPCREL(%rip), %rax", "movq g@GOTPCREL(%rip), %rax", "movq g@GOTPCREL(%rip), %rax", 0, {"g@GOTPCREL": 1}),
    ("movsd %xmm0, %fs:8+x@tpoff", "movsd %xmm0, %fs:8+x@tpoff", "movsd %xmm0, %fs:x@tpoff+8", 8, {"x@tpoff": 1}),
    ("addq %fs:tls@tpoff, %rdi", "addq %fs:tls@tpoff, %rdi", "addq %fs:tls@tpoff, %rdi", 0, {"tls@tpoff": 1}),
    # absolute addresses
    ("movq (g+8), %rax", "movq (g+8), %rax", "movq g+8, %rax", 8, {"g": 1}),
    ("movl 4+g, %eax", "movl 4+g, %eax", "movl g+4, %eax", 4, {"g": 1}),
    # constant expressions: llvm-mc folds them; so does invar (the dependencies use the value)
    ("movq (8+8)(%rax), %rbx", "movq (8+8)(%rax), %rbx", "movq 16(%rax), %rbx", 16, {}),
    ("movq -(8)(%rax), %rbx", "movq -(8)(%rax), %rbx", "movq -8(%rax), %rbx", -8, {}),
    ("movq --8(%rax), %rbx", "movq --8(%rax), %rbx", "movq 8(%rax), %rbx", 8, {}),
    ("movq 0x100-0x8(%rsp), %rbx", "movq 0x100-0x8(%rsp), %rbx", "movq 248(%rsp), %rbx", 248, {}),
    ("movq 010(%rax), %rbx", "movq 010(%rax), %rbx", "movq 8(%rax), %rbx", 8, {}),  # octal
    ("movq 0b101(%rax), %rbx", "movq 0b101(%rax), %rbx", "movq 5(%rax), %rbx", 5, {}),
    ("movq 0X1F(%rax), %rbx", "movq 0X1F(%rax), %rbx", "movq 31(%rax), %rbx", 31, {}),
    # immediates read the same expressions
    ("movl $8+g, %eax", "movl $8+g, %eax", "movl $g+8, %eax", 8, {"g": 1}),
    ("movq $(g+8), %rax", "movq $(g+8), %rax", "movq $g+8, %rax", 8, {"g": 1}),
    ("addl $(1+2), %eax", "addl $(1+2), %eax", "addl $3, %eax", 3, {}),
    ("movl $-(0x10), %ecx", "movl $-(0x10), %ecx", "movl $-16, %ecx", -16, {}),
]

# (source, invar's message, its column): llvm-mc refuses these too
REFUSED = [
    ("movq 08(%rax), %rbx", "malformed number '08'", 6),
    ("movq 0x(%rax), %rbx", "malformed number '0x'", 6),
    ("movq 1f(%rax), %rbx", "malformed number '1f'", 6),
    ("movq 8+(%rax), %rbx", "expected a number, a symbol or '(' after '+'", 8),
    ("movq 8 8(%rax), %rbx", "unexpected '8' in displacement '8 8'", 8),
    ("movq (g+8(%rip), %rax", "unbalanced '('", 6),
    ("movq g+h(%rip), %rax", "displacement 'g+h' is not an address", 6),
    ("movq -g(%rip), %rax", "displacement '-g' is not an address", 6),
    ("movq 8-g(%rbx), %rax", "displacement '8-g' is not an address", 6),
    # as llvm-mc, a unary minus on a symbol is no address, even twice
    ("movq 8-(-g)(%rip), %rax", "displacement '8-(-g)' is not an address", 6),
    ("movq --g(%rip), %rax", "displacement '--g' is not an address", 6),
    ("movq -g+8(%rip), %rax", "displacement '-g+8' is not an address", 6),
    ("movl $g+g, %eax", "immediate 'g+g' is not an address", 7),
    ("movq g-g+4(%rax), %rbx", "symbol 'g' cancels out of displacement 'g-g+4'", 6),
    ("movq 0x10000000000000000(%rax), %rbx", "displacement 0x10000000000000000 does not fit in 32 bits", 6),
]

# (source, invar's message, its column, why invar refuses what llvm-mc assembles)
NOT_READ = [
    (
        "movq 8*2(%rax), %rbx",
        "operator '*' in displacement '8*2'",
        7,
        "operators other than + and -: no compiler writes them in an instruction, and a misread one changes the "
        "address",
    ),
    ("movq ~8(%rax), %rbx", "operator '~' in displacement '~8'", 6, "the same"),
    ("movq 1<<4(%rax), %rbx", "operator '<' in displacement '1<<4'", 7, "the same"),
    (
        "movq eax+8(%rip), %rbx",
        "register 'eax' is written without '%'",
        6,
        "a register name without % is a symbol to an assembler, almost surely Intel syntax",
    ),
    (
        "movq 0x7fffffff+1(%rax), %rbx",
        "displacement 0x7fffffff+1 does not fit in 32 bits",
        6,
        "llvm-mc truncates a displacement to 32 bits silently",
    ),
]


# ----------------------------------------------------------------- llvm-mc
def encodings(lines: list[str]) -> list[tuple[tuple[str, ...], tuple[tuple[int, str, str], ...]]]:
    """llvm-mc's bytes (``A`` where a fixup goes) and fixups (offset, value,
    kind) of each line, each line one instruction."""
    run = subprocess.run(
        [*MC, "-show-encoding"], input="\n".join(lines) + "\n", capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    out = []
    for line in run.stdout.splitlines():
        enc = re.search(r"encoding: \[(.*)\]", line)
        fix = re.search(r"fixup \w+ - offset: (\d+), value: (.*), kind: (\w+)", line)
        if enc:
            out.append((tuple(enc.group(1).split(",")), []))
        elif fix:
            out[-1][1].append((int(fix.group(1)), fix.group(2), fix.group(3)))
    assert len(out) == len(lines), run.stdout
    return [(enc, tuple(fixups)) for enc, fixups in out]


def object_errors(line: str) -> str | None:
    """llvm-mc's first error writing ``line`` into an object file."""
    run = subprocess.run(
        [*MC, "-filetype=obj", "-o", "/dev/null"], input=line + "\n", capture_output=True, text=True, check=False
    )
    m = re.search(r"error: (.*)", run.stderr)
    return m.group(1) if m else None


def evaluate(expression: str, symbols: dict[str, int]) -> int:
    """The value of a fixup's expression as llvm-mc prints it (decimal numbers,
    symbols, + and -, parentheses) for given symbol addresses. llvm-mc
    prints a symbol's modifier in capitals (``x@TPOFF``)."""
    code = re.sub(r"[A-Za-z_.][\w.@]*", lambda m: str(symbols[_modifier_lowered(m.group(0))]), expression)
    assert re.fullmatch(r"[0-9()+\- ]*", code), expression
    return eval(code)  # digits, signs and parentheses only


def _modifier_lowered(name: str) -> str:
    symbol, at, modifier = name.partition("@")
    return symbol + at + modifier.lower()


def same_encoding(a, b, names: list[str]) -> bool:
    """Same bytes, and fixups of the same kinds at the same offsets whose
    values agree at random symbol addresses."""
    (bytes_a, fix_a), (bytes_b, fix_b) = a, b
    if bytes_a != bytes_b or [(o, k) for o, _, k in fix_a] != [(o, k) for o, _, k in fix_b]:
        return False
    rng = random.Random(7)
    for _ in range(3):
        at = {_modifier_lowered(name): rng.randrange(1 << 40) for name in names}
        if any(evaluate(x, at) != evaluate(y, at) for (_, x, _), (_, y, _) in zip(fix_a, fix_b)):
            return False
    return True


def _expression_of(program):
    """invar's reading of the line's displacement, else of its immediate."""
    from invar.frontends.x86.expressions import read_expression

    tokens = [t for t in program.tokens if t.kind in ("disp", "immediate")]
    token = next((t for t in tokens if t.kind == "disp"), tokens[0] if tokens else None)
    return read_expression(token.text.lstrip("$"))


# ------------------------------------------------------------------- tests
@pytest.mark.parametrize("source, rendered, plain, constant, symbols", ACCEPTED, ids=[r[0] for r in ACCEPTED])
def test_expressions_are_read(source, rendered, plain, constant, symbols):
    program = parse(source)
    assert program.render() == rendered
    assert parse(rendered) == program  # parse -> render -> parse is the identity
    expression = _expression_of(program)
    assert (expression.constant, dict(expression.symbols)) == (constant, symbols)
    assert expression.value == (constant if not symbols else None)


@needs_mc
def test_expressions_encode_as_llvm_mc_encodes_them(record_property):
    names = sorted({name for *_, symbols in ACCEPTED for name in symbols} | {"g", "h"})
    lines = [line for source, rendered, plain, *_ in ACCEPTED for line in (source, rendered, plain)]
    got = encodings(lines)
    wrong = [
        ACCEPTED[k // 3][0]
        for k in range(0, len(lines), 3)
        if not (same_encoding(got[k], got[k + 1], names) and same_encoding(got[k], got[k + 2], names))
    ]
    record_property("oracle", f"{len(ACCEPTED)} displacement and immediate forms encode as llvm-mc's plain spelling")
    assert not wrong, wrong


@pytest.mark.parametrize("source, message, col", REFUSED, ids=[r[0] for r in REFUSED])
def test_malformed_expressions_are_refused(source, message, col):
    with pytest.raises(ParseError) as err:
        parse(source)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (1, col)


@needs_mc
def test_llvm_mc_refuses_them_too():
    accepted = [source for source, *_ in REFUSED if object_errors(source) is None]
    assert not accepted, accepted


@pytest.mark.parametrize("source, message, col, reason", NOT_READ, ids=[r[0] for r in NOT_READ])
def test_expressions_invar_does_not_read(source, message, col, reason):
    with pytest.raises(ParseError) as err:
        parse(source)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (1, col)


@needs_mc
def test_llvm_mc_assembles_what_invar_does_not_read():
    refused = [(source, object_errors(source)) for source, *_ in NOT_READ if object_errors(source) is not None]
    assert not refused, refused


@pytest.mark.parametrize(
    "block, ordered",
    [
        # folded constants are compared as numbers: 8+8 is 16, 24 is past the 8 bytes stored there
        ("movq %rax, (8+8)(%rbx)\nmovq 16(%rbx), %rcx", True),
        ("movq %rax, (8+8)(%rbx)\nmovq 24(%rbx), %rcx", False),
        ("movq %rax, 0x20-0x10(%rbx)\nmovq 8(%rbx), %rcx", False),
        # a symbol's address is unknown: it may be anywhere
        ("movq %rax, g(%rbx)\nmovq 64(%rbx), %rcx", True),
        ("movq %rax, 8+g(%rbx)\nmovq 16+g(%rbx), %rcx", True),
        # rip-relative operands are barriers, whatever their displacement
        ("movq 8+g(%rip), %rax\naddq %rbx, %rcx", True),
    ],
)
def test_dependencies_use_the_folded_value(block, ordered):
    assert (parse(block).deps == ((0, 1),)) is ordered


# ------------------------------------------------------- random expressions
def _random_expression(rng: random.Random, depth: int = 0) -> str:
    """A random expression of numbers in every base, symbols, signs and
    parentheses, sometimes with blanks, sometimes malformed."""

    def atom() -> str:
        value = rng.randrange(0, 300)
        return rng.choice(
            [
                str(value),
                hex(value),
                bin(value),
                "0" + oct(value)[2:],
                "0",
                "g",
                "h",
                ".LC3",
                "calls.0",
                "08",
                "0x",
                "1f",
            ]
            if rng.random() < 0.05
            else [str(value), hex(value), bin(value), "0" + oct(value)[2:], "0", "g", "h", ".LC3", "calls.0"]
        )

    def term() -> str:
        sign = rng.choice(["", "", "", "-", "+", "--"])
        if depth < 3 and rng.random() < 0.25:
            return f"{sign}({_random_expression(rng, depth + 1)})"
        return sign + atom()

    parts = [term()]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        parts += [rng.choice(["+", "-", "-", "+", "*"] if rng.random() < 0.1 else ["+", "-"]), term()]
    blank = " " if rng.random() < 0.2 else ""
    return blank.join(parts)


def _plain(expression) -> str:
    """The expression written plainly: ``g-h+8``, ``g+8``, ``8``."""
    names = [name for name, k in expression.symbols if k > 0] + [f"-{name}" for name, k in expression.symbols if k < 0]
    if not names:
        return str(expression.constant)
    return "".join(names) + (f"{expression.constant:+d}" if expression.constant else "")


@needs_mc
def test_random_expressions_read_as_llvm_mc_reads_them(record_property):
    """Random expressions as displacements: invar accepts what llvm-mc
    assembles into an object file (apart from the listed differences), and
    what it accepts encodes as its plain reading does."""
    from invar.frontends.x86.expressions import read_expression

    rng = random.Random(35)
    lines = [f"movq {_random_expression(rng)}({rng.choice(['%rax', '%rip', ',%rcx,8'])}), %rbx" for _ in range(600)]
    shown = subprocess.run(
        [*MC, "-show-encoding"], input="\n".join(lines) + "\n", capture_output=True, text=True, check=False
    )
    parse_errors = {int(m) - 1 for m in re.findall(r"<stdin>:(\d+):\d+: error", shown.stderr)}
    readable = [k for k in range(len(lines)) if k not in parse_errors]
    obj = subprocess.run(
        [*MC, "-filetype=obj", "-o", "/dev/null"],
        input="\n".join(lines[k] for k in readable) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    object_errors = {readable[int(m) - 1] for m in re.findall(r"<stdin>:(\d+):\d+: error", obj.stderr)}
    counts, wrong, same = Counter(), [], []
    for k, line in enumerate(lines):
        mc = k not in parse_errors and k not in object_errors
        try:
            program = parse(line)
        except ParseError as err:
            allowed = re.search(r"operator '\*'|does not fit in 32 bits", err.message)
            counts["both refuse" if not mc else "invar refuses, listed" if allowed else "disagree"] += 1
            if mc and not allowed:
                wrong.append((line, err.message))
            continue
        expression = read_expression(next(t.text for t in program.tokens if t.kind == "disp"))
        if not mc and len(expression.symbols) == 2 and k not in parse_errors:
            counts["a difference of symbols (undefined here)"] += 1
        elif not mc:
            counts["disagree"] += 1
            wrong.append((line, "llvm-mc refuses"))
        else:
            counts["both accept"] += 1
            same.append((line, re.sub(r"^movq .*\((.*)\), %rbx$", rf"movq {_plain(expression)}(\1), %rbx", line)))
    record_property("oracle", f"{len(lines)} random displacement expressions: {dict(counts)}")
    assert not wrong, wrong[:5]
    assert counts["both accept"] > 200 and counts["both refuse"] > 50
    got = encodings([line for pair in same for line in pair])
    names = ["g", "h", ".LC3", "calls.0"]
    differ = [same[k // 2] for k in range(0, len(got), 2) if not same_encoding(got[k], got[k + 1], names)]
    assert not differ, differ[:5]
