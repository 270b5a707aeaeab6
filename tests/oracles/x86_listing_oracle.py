"""What GNU as makes of a compiler's listing, beside what invar reads of it.

``as -aln`` lists every line of an assembly file with the bytes it placed;
capstone decodes those bytes. Neither shares invar's code. For a listing,
:func:`problems` names each place where invar's basic blocks
(:func:`invar.frontends.x86.listing.listing_blocks`, the units of
``parse_units``) disagree with them:

- **lost**: a line that places bytes and is not a directive (an
  instruction) lies in no block: a command would never see it;
- **dropped**: a directive other than alignment places bytes inside an
  accepted block's span, or where the instruction before it in its section
  (by address) runs on into it or a jump may land on it, outside any
  refused block: data the
  processor runs through, left out (alignment's padding is nops, left out
  as BHive leaves it);
- **not its statements**: an accepted line's bytes do not decode to as
  many instructions as invar reads statements on it;
- **runs on**: a line that is not the last of its block transfers control
  (capstone's jump, call and return groups);
- **starts where no jump lands**: an accepted block's first line follows,
  in its section, an instruction that falls on into it, with no jump
  target, transfer, data or section switch between;
- **runs across a jump target**: a place a jump may land on (a direct
  branch's target, a function or global symbol, an address a jump table
  holds: read from the object file, not the text) is inside an accepted
  block, not its first line;
- **misnamed**: a label a block is named by (``--function g``) stands,
  in the object file, elsewhere than the block's first bytes (alignment's
  padding between them aside).

Code of another width or syntax (``.code32`` up to ``.code64``,
``.intel_syntax`` up to ``.att_syntax``) is no x86-64 AT&T code: a block
may start after it.

:func:`c_program` writes C that makes a compiler write what a listing can
hold: jump tables (their cases running on into each other), computed
gotos, system calls mid-block, strings and constants in data sections,
traps, inline assembly with numeric labels, bytes and pushed sections, a
function's labels right before code of another width or syntax, cold
and custom sections (one named as no code section is, flagged ``"ax"``),
thread-locals, varargs, vector loops. :data:`CXX` is C++ whose listing
holds exception tables (g++'s ``.LEHB``/``.LEHE`` call sites, landing
pads); :data:`LLVM_IR` is what clang's code generator (``llc``) turns into
a listing with clang's ``.Ltmp`` labels (call sites mid-block, landing pads,
computed gotos' targets), a jump table and a quoted name
(:func:`llc_listing`).
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

from invar.errors import ParseError
from invar.frontends.x86 import parse_units
from invar.frontends.x86.listing import listing_blocks, read_listing

#: ``  16 0000 B8FFFFFF <tab>movl ...``: a line that placed bytes (line, bytes as hex)
_PLACED = re.compile(r"^\s*(\d+) ([0-9a-f]{4,}) ([0-9A-F]+)\s")
#: ``  16      FF``: more bytes of that line
_MORE = re.compile(r"^\s*(\d+) {2,}([0-9A-F]+) *$")
_ALIGN = re.compile(r"\.(p2align[wl]?|balign[wl]?|align)\b")


def placed(path: Path, workdir: Path) -> dict[int, tuple[int, bytes]]:
    """Source line -> (address in its section, the bytes GNU as placed for
    it); lines that placed none are left out."""
    listing = workdir / (path.name + ".lst")
    subprocess.run(
        ["as", "--64", "-L", f"-aln={listing}", "-o", str(workdir / (path.name + ".o")), str(path)],
        check=True,
        capture_output=True,
    )
    out: dict[int, tuple[int, bytearray]] = {}
    for raw in listing.read_text(errors="replace").splitlines():
        if m := _PLACED.match(raw):
            out.setdefault(int(m[1]), (int(m[2], 16), bytearray()))[1].extend(bytes.fromhex(m[3]))
        elif (m := _MORE.match(raw)) and int(m[1]) in out:
            out[int(m[1])][1].extend(bytes.fromhex(m[2]))
    return {k: (a, bytes(v)) for k, (a, v) in out.items()}


def jump_targets(obj: Path, at: dict[int, tuple[int, bytes]], lines: list[str]) -> set[tuple[str, int]]:
    """(section, address) of each place a jump may land on, read from the
    object file and the bytes: the target of every direct jump or call
    (capstone, from the address as placed), every function and global
    symbol (``readelf -s``), every address that data outside debugging
    and unwinding information holds whole (``readelf -r``: a jump table's
    entries, a computed goto's), and every address a difference in code
    from a label holds (``.long .LBB3_2-.LJTI3_0``: llc's COFF jump table
    after its function's return, which GNU as resolves, no relocation
    left)."""
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    section_of = _sections(lines)
    out: set[tuple[str, int]] = set()
    for n, (address, placed_bytes) in at.items():
        if not section_of[n - 1][1]:
            continue
        for insn in md.disasm(placed_bytes, address):
            if {capstone.CS_GRP_JUMP, capstone.CS_GRP_CALL} & set(insn.groups):
                for op in insn.operands:
                    if op.type == capstone.x86.X86_OP_IMM:
                        out.add((section_of[n - 1][0], op.imm))
    names = {}
    for raw in subprocess.run(["readelf", "-SW", str(obj)], capture_output=True, text=True).stdout.splitlines():
        if m := re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", raw):
            names[m[1]] = m[2]
    symbols: dict[str, list[int]] = {}  # section -> the addresses of the symbols in it (as -L keeps labels)
    for raw in subprocess.run(["readelf", "-sW", str(obj)], capture_output=True, text=True).stdout.splitlines():
        fields = raw.split()
        if len(fields) >= 8 and fields[0].endswith(":") and fields[6] in names:
            symbols.setdefault(names[fields[6]], []).append(int(fields[1], 16))
            if fields[3] == "FUNC" or fields[4] in ("GLOBAL", "WEAK"):
                out.add((names[fields[6]], int(fields[1], 16)))
    code = {section for section, holds_code in section_of if holds_code}  # as the listing declares them
    at_label = labels(obj)
    for n, (address, placed_bytes) in at.items():
        m = _CODE_DIFFERENCE.fullmatch(lines[n - 1].split("#", 1)[0].strip())
        if section_of[n - 1][1] and m and at_label.get(m[3], ("", 0))[0] == section_of[n - 1][0]:
            size = 8 if m[1] in (".quad", ".8byte") else 4
            held = int.from_bytes(placed_bytes[:size], "little", signed=True)
            out.add((section_of[n - 1][0], at_label[m[3]][1] + held))
    holder = None
    entry = re.compile(r"([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_(\w+)\s+[0-9a-f]+\s+(\S+)\s*([+-])\s*([0-9a-f]+)")
    for raw in subprocess.run(["readelf", "-rW", str(obj)], capture_output=True, text=True).stdout.splitlines():
        if m := re.match(r"Relocation section '\.rela(\S+)'", raw):
            holder = m[1]
        elif holder and not re.match(r"\.(z?debug|eh_frame|stab|note)", holder) and (m := entry.match(raw)):
            place, kind, symbol, addend = int(m[1], 16), m[2], m[3], int(m[5], 16) * (1 if m[4] == "+" else -1)
            if not symbol.startswith("."):  # a named symbol: its address is in the symbol table, counted above
                continue
            if kind in ("64", "32", "32S"):  # data holding an address whole
                out.add((symbol, addend))
            elif kind in ("PC32", "PC64") and holder not in code:  # a table of differences from its label
                base = max((a for a in symbols.get(holder, []) if a <= place), default=None)
                if base is not None:
                    out.add((symbol, addend - place + base))
    return out


#: ``.long A-B``: a difference of two labels, as a table in code holds it
_CODE_DIFFERENCE = re.compile(r"(\.long|\.int|\.4byte|\.quad|\.8byte)\s+([\w.$]+)\s*-\s*([\w.$]+)")


def labels(obj: Path) -> dict[str, tuple[str, int]]:
    """Each symbol of the object file (a label: as -L keeps the local ones)
    and the (section, address) it stands for (``readelf -s``)."""
    names = {}
    for raw in subprocess.run(["readelf", "-SW", str(obj)], capture_output=True, text=True).stdout.splitlines():
        if m := re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", raw):
            names[m[1]] = m[2]
    out = {}
    for raw in subprocess.run(["readelf", "-sW", str(obj)], capture_output=True, text=True).stdout.splitlines():
        fields = raw.split(None, 7)
        if len(fields) == 8 and fields[0].endswith(":") and fields[6] in names and fields[3] != "SECTION":
            out[fields[7]] = (names[fields[6]], int(fields[1], 16))
    return out


def assembled(
    path: Path, workdir: Path
) -> tuple[dict[int, tuple[int, bytes]], set[tuple[str, int]], dict[str, tuple[str, int]]]:
    """What GNU as placed for each line of ``path`` (:func:`placed`), the
    places a jump may land on (:func:`jump_targets`) and where each label
    stands (:func:`labels`)."""
    at = placed(path, workdir)
    obj = workdir / (path.name + ".o")
    return at, jump_targets(obj, at, path.read_text(errors="replace").splitlines()), labels(obj)


#: a directive that switches sections
_SWITCH = re.compile(r"\.(text|data|bss|section|pushsection|popsection|previous|subsection)\b")
#: control transfers capstone puts in no group of its own
_TRAPS = frozenset("syscall sysenter sysexit sysret ud0 ud1 ud2 hlt int3 into xbegin".split())
#: what never runs on to the next instruction, by capstone's mnemonic
_NO_FALL = re.compile(r"(?:notrack |bnd )?(?:jmp|ljmp|ud2|hlt|ud1|ud0)\b")


def _sections(lines: list[str]) -> list[tuple[str, bool]]:
    """The section each line is assembled into and whether it holds code,
    as GNU as documents its section directives (written here apart from
    invar's reader)."""
    current, previous, stack, out, code = ".text", ".text", [], [], {".text"}
    for raw in lines:
        words = raw.split("#", 1)[0].replace(",", " ").split()
        head = words[0] if words else ""
        if head in (".text", ".data", ".bss") or head in (".section", ".pushsection") and len(words) > 1:
            if head == ".pushsection":
                stack.append(current)
            name = head if head in (".text", ".data", ".bss") else words[1].strip('"')
            if len(words) > 2 and "x" in words[2].strip('"'):
                code.add(name)
            current, previous = name, current
        elif head == ".popsection" and stack:
            current, previous = stack.pop(), current
        elif head == ".previous":
            current, previous = previous, current
        out.append((current, current in code or current.startswith(".text")))
    return out


def _foreign(lines: list[str]) -> list[bool]:
    """Whether each line is in a region of another width or syntax
    (``.code32`` up to ``.code64``, ``.intel_syntax`` up to ``.att_syntax``),
    as GNU as documents them: what runs there is no x86-64 AT&T block's, and
    a block may start after it."""
    width, intel, out = "64", False, []
    for raw in lines:
        for statement in raw.split("#", 1)[0].split(";"):
            words = re.sub(r"^(?:[\w.$@]+:\s*)+", "", statement.strip()).split()
            head = words[0].lower() if words else ""
            width = {".code16": "16", ".code16gcc": "16", ".code32": "32", ".code64": "64"}.get(head, width)
            intel = head == ".intel_syntax" or intel and head != ".att_syntax"
        out.append(width != "64" or intel)
    return out


def problems(
    text: str,
    at: dict[int, tuple[int, bytes]],
    targets: set[tuple[str, int]] = frozenset(),
    where: dict[str, tuple[str, int]] | None = None,
) -> tuple[list[str], dict]:
    """(each disagreement, counts) of invar's reading of ``text`` against
    what as placed, where jumps may land (``targets``, :func:`jump_targets`)
    and where its labels stand (``where``, :func:`labels`)."""
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    transfers = {
        capstone.CS_GRP_JUMP,
        capstone.CS_GRP_CALL,
        capstone.CS_GRP_RET,
        capstone.CS_GRP_IRET,
        capstone.CS_GRP_INT,
    }

    def transfer(insn) -> bool:
        return bool(transfers & set(insn.groups)) or insn.mnemonic in _TRAPS

    lines = text.splitlines()
    spans = [(first, first + len(body.splitlines()) - 1) for first, body in listing_blocks(lines)]
    try:
        units = list(parse_units(text, path="listing.s"))
    except ParseError:
        units = []
    accepted = [sorted(line.source_line for line in unit.lines) for unit in units]
    held = {n for unit in accepted for n in unit}
    unit_spans = [(u[0], u[-1]) for u in accepted]
    out: list[str] = []

    def code(n: int) -> str:
        return lines[n - 1].split("#", 1)[0].strip()

    def statement(n: int) -> str:
        return re.sub(r"^(?:[\w.$@]+:\s*)+", "", code(n))

    def inside(n: int, ranges) -> bool:
        return any(a <= n <= b for a, b in ranges)

    def shown(n: int) -> str:
        return f"line {n} {lines[n - 1].strip()!r}"

    # (section, where each run of bytes ends) -> whether the processor runs on past it
    runs_on_at: dict[tuple[str, int], bool] = {}
    # (section, where each run of bytes ends) -> (its line, what it is: code, transfer or data)
    before_at: dict[tuple[str, int], tuple[int, str]] = {}
    section_of, foreign = _sections(lines), _foreign(lines)
    for n in sorted(at):
        address, placed_bytes = at[n]
        address_in = (section_of[n - 1][0], address)
        landed = section_of[n - 1][1] and address_in in targets  # in code, where a jump may land
        said = statement(n)
        if not said.startswith("."):  # an instruction
            if not inside(n, spans):
                out.append(f"lost: {shown(n)} is in no block")
            elif inside(n, unit_spans) and n not in held:
                out.append(f"lost: {shown(n)} is in an accepted block's span, not in it")
            decoded = list(md.disasm(placed_bytes, address))
            last = decoded[-1] if decoded else None
            runs_on = last is None or not (
                capstone.CS_GRP_RET in last.groups
                or capstone.CS_GRP_IRET in last.groups
                or _NO_FALL.match(f"{last.mnemonic} ")
            )
            kind = "transfer" if last is not None and transfer(last) else "foreign" if foreign[n - 1] else "code"
        elif _ALIGN.match(said):  # padding: what ran before runs on through it
            runs_on = runs_on_at.get(address_in, False)
            kind = before_at.get(address_in, (n, "data"))[1]
        else:  # data
            run = runs_on_at.get(address_in, False) or landed
            if inside(n, unit_spans):
                out.append(f"dropped: {shown(n)} places bytes inside a block")
            elif run and not inside(n, spans):
                out.append(f"dropped: {shown(n)} places bytes the instruction before it runs on into")
            runs_on, kind = run, "data"
        runs_on_at[(address_in[0], address + len(placed_bytes))] = runs_on
        before_at[(address_in[0], address + len(placed_bytes))] = (n, kind)
    for unit in accepted:  # a block starts where a jump lands, after a transfer, data or a switch of sections
        n = unit[0]
        address_in = (section_of[n - 1][0], at.get(n, (None, b""))[0])
        before = before_at.get(address_in)
        if before is None or before[1] != "code" or address_in in targets:
            continue
        if not any(_SWITCH.match(code(k)) or not lines[k - 1].strip() for k in range(before[0] + 1, n)):
            out.append(f"starts where no jump lands: {shown(n)} runs on from line {before[0]}")
    for unit in accepted:
        numbers = sorted(set(unit))
        for k, n in enumerate(numbers):
            placed_bytes = at.get(n, (0, b""))[1]
            decoded = list(md.disasm(placed_bytes, 0))
            if sum(i.size for i in decoded) != len(placed_bytes) or len(decoded) != unit.count(n):
                out.append(f"not its statements: {shown(n)} -> {placed_bytes.hex()} ({len(decoded)} decoded)")
                continue
            for j, insn in enumerate(decoded):
                if (k, j) != (len(numbers) - 1, len(decoded) - 1) and transfer(insn):
                    out.append(f"runs on: {shown(n)} transfers control mid-block")
        for n in numbers[1:]:
            if (section_of[n - 1][0], at.get(n, (None, b""))[0]) in targets:
                out.append(f"runs across a jump target: {shown(n)} inside the block at line {unit[0]}")
    out += _misnamed(text, at, where or {}, section_of, before_at)
    counts = {"blocks": len(spans), "accepted": len(accepted), "instructions": sum(map(len, accepted))}
    return out, counts


def _misnamed(text, at, where, section_of, before_at) -> list[str]:
    """**misnamed**: a block (accepted or refused) named by a label that
    stands elsewhere than its first bytes (alignment's padding between
    them aside)."""
    out = []
    for block in read_listing(text):
        held = enumerate(block.text.splitlines(), start=block.first)  # its own lines: not those left out as comments
        first = next((n for n, line in held if n in at and not line.lstrip().startswith("#")), None)
        if first is None:
            continue
        section, start = section_of[first - 1][0], at[first][0]
        for label in block.labels:
            if label.isdigit() or label not in where:
                continue
            address = start
            while where[label][0] == section and where[label][1] < address:  # back over alignment's padding
                n, _ = before_at.get((section, address), (None, ""))
                if n is None or not _ALIGN.match(text.splitlines()[n - 1].split("#", 1)[0].strip()):
                    break
                address = at[n][0]
            if where[label] != (section, address):
                out.append(
                    f"misnamed: {label!r} (at {where[label]}) names the block at line {block.first} "
                    f"(at {(section, start)})"
                )
    return out


# ---------------------------------------------------------------- the C generator
def _switch(r: random.Random, i: int) -> str:
    cases = "".join(f" case {k}: return {r.randint(-99, 99)};" for k in range(r.randint(5, 12)))
    return f"int f{i}(int x) {{ switch (x) {{{cases} default: return x * {r.randint(2, 9)}; }} }}"


def _fallthrough_switch(r: random.Random, i: int) -> str:  # a jump table whose cases run on into each other
    cases = "".join(f" case {k}: y = y * {r.randint(2, 9)} + {k};" for k in range(r.randint(6, 10)))
    return f"long f{i}(long x, long y) {{ switch (x) {{{cases} break; default: y = -y; }} return y; }}"


def _system_call(r: random.Random, i: int) -> str:  # a system call in the middle of straight-line code
    return (
        f'long f{i}(long x) {{ long v; __asm__ volatile("syscall" : "=a"(v) : "0"(x) : "rcx", "r11", "memory");'
        f" return v * {r.randint(2, 9)} + x; }}"
    )


def _computed_goto(r: random.Random, i: int) -> str:
    return (
        f"int f{i}(int x) {{ static void *t[] = {{&&a, &&b, &&c}}; goto *t[x % 3];"
        f" a: return x + {r.randint(1, 9)}; b: return x * 3; c: return x - 7; }}"
    )


def _strings(r: random.Random, i: int) -> str:
    return f'#include <stdio.h>\nvoid f{i}(int x) {{ printf("v%d {r.random():.3f}\\n", x); puts("s{i}"); }}'


def _doubles(r: random.Random, i: int) -> str:
    return (
        f"double f{i}(double *a, int n) {{ double s = {r.random():.5f};"
        f" for (int i = 0; i < n; i++) s += a[i] * {r.random():.4f}; return s; }}"
    )


def _varargs(r: random.Random, i: int) -> str:
    return (
        "#include <stdarg.h>\n"
        f"int f{i}(int n, ...) {{ va_list ap; va_start(ap, n); int s = 0;"
        " for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }"
    )


def _traps(r: random.Random, i: int) -> str:
    return (
        f"int f{i}(int x) {{ if (x > {r.randint(5, 50)}) __builtin_unreachable();"
        " if (x < 0) __builtin_trap(); return x + 1; }"
    )


def _asm_labels(r: random.Random, i: int) -> str:
    return f'long f{i}(long x) {{ long v; __asm__ volatile("1: decq %0\\n\\tjnz 1b" : "=r"(v) : "0"(x)); return v; }}'


def _asm_bytes(r: random.Random, i: int) -> str:  # bytes the processor runs through: a block invar must refuse
    return f'long f{i}(long x) {{ __asm__ volatile(".byte 0x90, 0x90"); return x + {r.randint(1, 9)}; }}'


def _asm_pushed(r: random.Random, i: int) -> str:  # data placed elsewhere, then the code runs on
    return (
        f'long f{i}(long x) {{ __asm__ volatile(".pushsection .rodata\\n\\t.byte 1, 2\\n\\t.popsection\\n\\t'
        f'.byte 0x90"); return x * {r.randint(2, 9)}; }}'
    )


def _other_mode(r: random.Random, i: int) -> str:  # a function's labels right before code of another width or syntax
    region = r.choice(
        (
            ".code32\\n\\tmovl %eax, %ebx\\n\\t.code64",
            ".code16\\n\\tmovw %ax, %bx\\n\\t.code64",
            ".intel_syntax noprefix\\n\\tmov rax, rbx\\n\\t.att_syntax",
        )
    )
    code = f"{region}\\n\\taddq ${r.randint(1, 9)}, %rax\\n\\tret"
    return f'__attribute__((naked)) void f{i}(void) {{ __asm__("{code}"); }}'


def _cold(r: random.Random, i: int) -> str:
    return (
        "#include <stdlib.h>\n"
        f"__attribute__((cold, noinline)) void c{i}(void) {{ abort(); }}\n"
        f'__attribute__((section(".text.custom{i}"))) int f{i}(int x)'
        f" {{ if (x == {r.randint(1, 9)}) c{i}(); return x; }}"
    )


def _named_section(r: random.Random, i: int) -> str:  # code in a section named as data would be: "ax" says code
    return (
        f'__attribute__((section("hot{i}"), noinline)) long f{i}(long x) {{ __asm__ volatile(".byte 0x90");'
        f" return x + {r.randint(1, 9)}; }}\nlong g{i}(long x) {{ return f{i}(x) * 2; }}"
    )


def _thread_local(r: random.Random, i: int) -> str:
    return (
        f"__thread int t{i}; static int s{i}[{r.randint(3, 9)}] = {{1, 2, 3}};"
        f" int f{i}(int x) {{ t{i} += x; return s{i}[x & 1] + t{i}; }}"
    )


def _vector(r: random.Random, i: int) -> str:
    return (
        f"void f{i}(float *restrict a, const float *restrict b, int n)"
        f" {{ for (int i = 0; i < n; i++) a[i] += {r.random():.3f}f * b[i]; }}"
    )


def _recursion(r: random.Random, i: int) -> str:
    return f"long f{i}(long n) {{ return n < 2 ? n : f{i}(n - 1) + f{i}(n - {r.randint(2, 3)}); }}"


def _struct_copy(r: random.Random, i: int) -> str:
    return (
        f"struct s{i} {{ long a[{r.randint(8, 40)}]; }}; void f{i}(struct s{i} *d, const struct s{i} *s) {{ *d = *s; }}"
    )


CONSTRUCTS = (
    _switch,
    _fallthrough_switch,
    _system_call,
    _computed_goto,
    _strings,
    _doubles,
    _varargs,
    _traps,
    _asm_labels,
    _asm_bytes,
    _asm_pushed,
    _other_mode,
    _cold,
    _named_section,
    _thread_local,
    _vector,
    _recursion,
    _struct_copy,
)
#: flags a program is compiled with (one set drawn per program)
FLAGS = (
    ("-O0",),
    ("-O1",),
    ("-O2",),
    ("-O3", "-march=haswell"),
    ("-Os", "-fno-pie"),
    ("-O2", "-g"),
    ("-O2", "-fPIC", "-ffunction-sections"),
    ("-O3", "-march=skylake-avx512"),
    ("-O2", "-fno-asynchronous-unwind-tables", "-fcf-protection=full"),
)


def c_program(seed: int) -> tuple[str, tuple[str, ...]]:
    """(C source, gcc flags) of generated program ``seed``: four or more constructs, each at least once
    across any ``len(CONSTRUCTS)`` consecutive seeds."""
    r = random.Random(seed)
    picks = [CONSTRUCTS[seed % len(CONSTRUCTS)], *r.sample(CONSTRUCTS, 3)]
    return "\n".join(make(r, i) for i, make in enumerate(picks)) + "\n", r.choice(FLAGS)


def compile_listing(source: str, flags: tuple[str, ...], workdir: Path, name: str, cc: str = "gcc") -> Path:
    """gcc's listing of ``source`` written to ``workdir``."""
    c = workdir / f"{name}.c"
    c.write_text(source)
    out = workdir / f"{name}.s"
    subprocess.run([cc, "-S", "-w", *flags, "-o", str(out), str(c)], check=True, capture_output=True)
    return out


# ---------------------------------------------------------------- exceptions: g++ and clang's code generator
#: C++ whose listing holds exception tables: calls that may throw mid-block, cleanups, catches
CXX = """\
#include <string>
struct Guard { int *p; ~Guard() { ++*p; } };
extern void may_throw(int);
int f(int x) {
    int n = 0;
    try {
        Guard g{&n};
        may_throw(x);
        x += n * 3;
        may_throw(x + 1);
    } catch (int v) {
        return v;
    } catch (...) {
        return -1;
    }
    return x + n;
}
std::string g(const std::string &s, int k) {
    std::string r = s;
    for (int i = 0; i < k; i++) r += s;
    may_throw(k);
    return r;
}
"""

#: LLVM IR (opaque pointers) for llc: invokes mid-block and a cleanup landing pad under a quoted name, a catch
#: with a type table, a computed goto (its targets clang's .Ltmp labels, named by a table), a jump table
LLVM_IR = """\
@_ZTIi = external constant ptr
@tbl = internal constant [3 x ptr] [ptr blockaddress(@goto, %a), ptr blockaddress(@goto, %b),
                                    ptr blockaddress(@goto, %c)]
declare void @may_throw(i32)
declare void @cleanup()
declare i32 @__gxx_personality_v0(...)
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare i32 @llvm.eh.typeid.for(ptr)

define i32 @"weird name"(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %a = add i32 %x, 1
  invoke void @may_throw(i32 %a) to label %cont unwind label %lpad
cont:
  %b = mul i32 %a, 3
  invoke void @may_throw(i32 %b) to label %done unwind label %lpad
done:
  ret i32 %b
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  call void @cleanup()
  resume { ptr, i32 } %lp
}

define i32 @caller(i32 %x) {
  %r = call i32 @"weird name"(i32 %x)
  %s = add i32 %r, 2
  ret i32 %s
}

define i32 @catcher(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %a = add i32 %x, 1
  invoke void @may_throw(i32 %a) to label %ok unwind label %lpad
ok:
  %b = shl i32 %a, 1
  invoke void @may_throw(i32 %b) to label %ok2 unwind label %lpad
ok2:
  ret i32 %b
lpad:
  %lp = landingpad { ptr, i32 } catch ptr @_ZTIi
  %exn = extractvalue { ptr, i32 } %lp, 0
  %sel = extractvalue { ptr, i32 } %lp, 1
  %tid = call i32 @llvm.eh.typeid.for(ptr @_ZTIi)
  %match = icmp eq i32 %sel, %tid
  %c = call ptr @__cxa_begin_catch(ptr %exn)
  call void @__cxa_end_catch()
  %r = select i1 %match, i32 -1, i32 -2
  ret i32 %r
}

define i32 @goto(i32 %x) {
entry:
  %i = urem i32 %x, 3
  %p = getelementptr [3 x ptr], ptr @tbl, i32 0, i32 %i
  %t = load ptr, ptr %p
  indirectbr ptr %t, [label %a, label %b, label %c]
a:
  %ra = add i32 %x, 1
  br label %b
b:
  %rb = phi i32 [ %x, %entry ], [ %ra, %a ]
  %m = mul i32 %rb, 3
  ret i32 %m
c:
  ret i32 7
}

define i32 @sw(i32 %x, i32 %y) {
entry:
  switch i32 %x, label %def [ i32 0, label %c0  i32 1, label %c1  i32 2, label %c2  i32 3, label %c3  i32 4, label %c4 ]
c0:
  %a0 = add i32 %y, 11
  br label %c1x
c1:
  br label %c1x
c1x:
  %v1 = phi i32 [ %a0, %c0 ], [ %y, %c1 ]
  %a1 = mul i32 %v1, 7
  ret i32 %a1
c2:
  ret i32 13
c3:
  %a3 = sub i32 %y, 3
  ret i32 %a3
c4:
  %a4 = xor i32 %y, 99
  ret i32 %a4
def:
  ret i32 0
}
"""


def llc_listing(ir: str, args: tuple[str, ...], workdir: Path, name: str) -> Path:
    """llc's listing of LLVM IR ``ir`` written to ``workdir`` (LLVM 14 reads opaque pointers when told to)."""
    source = workdir / f"{name}.ll"
    source.write_text(ir)
    out = workdir / f"{name}.s"
    command = ["llc", *args, "-o", str(out), str(source)]
    if subprocess.run(command, capture_output=True).returncode != 0:
        subprocess.run([command[0], "-opaque-pointers", *command[1:]], check=True, capture_output=True)
    return out


#: COFF's own directives, which GNU as for ELF refuses (``.def``, ``.scl``, ``.type 32``, ``.endef``, ``.seh_*``,
#: MSVC's ``@feat.00`` marker)
_COFF_ONLY = re.compile(r"\.(?:def|scl|endef|seh_\w+|linkonce)\b|\.type\s+\d|.*@feat\.00")
#: ``.section NAME,"dr"``: a COFF section's flags (and a COMDAT's selection after them)
_COFF_SECTION = re.compile(r'(\s*\.section\s+[^,]+,\s*)"([a-z]*)".*')


def elf_from_coff(text: str) -> str:
    """A COFF listing (llc's ``x86_64-pc-windows-gnu``, ``-msvc``) as GNU as
    for ELF assembles it, line for line: COFF's own directives blanked to
    ``#``, a section's flags read as ELF's (``"xr"`` code, ``"dr"`` data).
    Its code, labels and data stay where they are."""
    out = []
    for line in text.splitlines():
        if _COFF_ONLY.match(line.split("#", 1)[0].strip()):
            out.append("#")
        elif m := _COFF_SECTION.fullmatch(line.split("#", 1)[0].rstrip()):
            out.append(f'{m[1]}"a{"w" if "w" in m[2] else ""}{"x" if "x" in m[2] else ""}"')
        else:
            out.append(line)
    return "\n".join(out) + "\n"
