"""The x86 oracle for any block text: variants assemble, and run alike.

:func:`check_blocks` takes blocks of AT&T text, samples permutations and
renamings of each with invar, assembles every original and variant with one
``llvm-mc`` run (a label before every IR line gives each line its bytes), and
runs the runnable ones in unicorn with the harness of test_x86_unicorn.py:

* a permutation, from the original's start state, ends in the same state;
* a renaming, from the start state with every register's value moved to its
  new register, ends in the original's final state moved the same way
  (test_x86_renaming_unicorn.py's comparison).

Each IR line runs in its own 16-byte slot, right-aligned after ``nop``
padding, so that the address after every line, which a rip-relative operand
is relative to, does not depend on how long the encodings of the lines before
it are: a renaming changes encoding lengths (``%r8`` needs a REX prefix) and
would otherwise move every rip-relative address after it. Permutations keep a
rip-relative line in its place (it is a barrier), so its slot is the same.

Symbols (``8+g(%rip)``, ``calls.0(%rip)``, ``g(,%rcx,8)``, ``$g``,
``%fs:x@tpoff``: what compilers write) are linked as a linker would: each
symbol of a block gets its own place in a data area (:data:`SYMBOLS`, one
:data:`SYMBOL_STRIDE` apart) and every fixup ``llvm-mc`` reports is filled in
for where its line lies, so a rip-relative operand reaches the symbol's data,
never the block's own code. A large symbol (an array) may run into the next
one's place: that is safe, the analysis assumes nothing of where symbols lie
(an access through one may alias any other). Such a block runs at
:data:`LINKED_CODE`: below
2**31 with its data, so that the absolute forms (32-bit, sign-extended) and
the rip-relative ones (within 2 GiB) both reach it, and below the lowest
address the harness gives a register (0x10000), so that no store through a
register lands in the code.

Every original is also assembled as written (prefixes on their own lines,
``;`` separators) and each instruction, with the prefixes written before it,
must give the same bytes and fixups as invar's rendering of its line, up to
the order of legacy prefixes (which the CPU does not care about).
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import random
import re
import subprocess
from dataclasses import dataclass, field
from typing import Callable

from invar.errors import ParseError
from invar.frontends.x86 import parse, renaming_space
from invar.program import Program
from invar.symmetry.permutations import PermutationSpace
from tests.oracles.test_x86_renaming_unicorn import HARNESS_GPR, differences, full_permutation, moved
from tests.oracles.test_x86_unicorn import CODE, Unrunnable, legacy_sse, random_start, run, same_state

SLOT = 16
NOP = b"\x90"
#: where a block with symbols runs, and where its symbols' data lies
LINKED_CODE = 0x8000
SYMBOLS = 0x1000
SYMBOL_STRIDE = 0x100
MC = ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "--show-encoding"]
BRANCH = re.compile(r"^(?:\w+\s+)*(?:j[a-z]+|call[a-z]*|ret[a-z]*|loop[a-z]*)\b")


@dataclass(frozen=True)
class Fixup:
    """A field llvm-mc leaves for the linker: ``value`` (llvm-mc's expression,
    symbols with decimal numbers) goes at byte ``offset`` of the line, as
    ``kind`` says (pc-relative or absolute, 1, 4 or 8 bytes)."""

    offset: int
    value: str
    kind: str


@dataclass(frozen=True)
class Piece:
    """One line's bytes (zeros where a fixup goes) and its fixups."""

    code: bytes
    fixups: tuple[Fixup, ...] = ()


def assemble_lines(programs: dict[str, list[str]]) -> tuple[dict[str, list[bytes]], dict[str, str]]:
    """Bytes of every line of every program (zeros where a fixup goes), by one
    llvm-mc run, and llvm-mc's first error per program that did not assemble."""
    pieces, errors = assemble_pieces(programs)
    return {k: [p.code for p in v] for k, v in pieces.items()}, errors


def assemble_pieces(programs: dict[str, list[str]]) -> tuple[dict[str, list[Piece]], dict[str, str]]:
    """:class:`Piece` of every line of every program, by one llvm-mc run.

    Returns (pieces per program, llvm-mc's first error per program that did
    not assemble)."""
    text, owner = [], []
    for key, lines in programs.items():
        for i, line in enumerate(lines):
            text.append(f"{key}__{i}:")
            owner.append((key, i))
            for physical in line.split("\n"):
                text.append(physical)
                owner.append((key, i))
    result = subprocess.run(MC, input="\n".join(text) + "\n", capture_output=True, text=True)
    errors: dict[str, str] = {}
    for m in re.finditer(r"<stdin>:(\d+):(\d+): error: (.*)", result.stderr):
        key, _ = owner[int(m.group(1)) - 1]
        errors.setdefault(key, f"{text[int(m.group(1)) - 1]!r}: {m.group(3)}")
    code: dict[str, list[bytearray]] = {key: [bytearray() for _ in lines] for key, lines in programs.items()}
    fixups: dict[tuple[str, int], list[Fixup]] = {}
    current, start = None, 0  # the line being read, and where its current instruction starts
    for line in result.stdout.splitlines():
        label = re.match(r"^(\w+)__(\d+):", line)
        if label:
            current = (label.group(1), int(label.group(2)))
            continue
        enc = re.search(r"encoding: \[(.*)\]", line)
        fix = re.search(r"fixup \w+ - offset: (\d+), value: (.*), kind: (\w+)", line)
        if enc and current is not None:
            start = len(code[current[0]][current[1]])
            placed = (int(p, 16) if p.startswith("0x") else 0 for p in enc.group(1).split(","))
            code[current[0]][current[1]] += bytes(placed)
        elif fix and current is not None:
            fixups.setdefault(current, []).append(Fixup(start + int(fix.group(1)), fix.group(2), fix.group(3)))
    return {
        k: [Piece(bytes(b), tuple(fixups.get((k, i), ()))) for i, b in enumerate(v)]
        for k, v in code.items()
        if k not in errors
    }, errors


_PREFIX_WORDS = frozenset(
    "lock rep repe repz repne repnz data16 data32 addr32 rex64 notrack bnd xacquire xrelease cs ds es fs gs ss".split()
)
_LEGACY_PREFIX_BYTES = frozenset(b"\xf0\xf2\xf3\x2e\x36\x3e\x26\x64\x65\x66\x67")


def source_statements(source: str) -> list[str]:
    """The source's instructions, each with the prefix pieces written before
    it (on earlier lines or before a ``;``), as newline-separated pieces."""
    out, pending = [], []
    for raw in source.splitlines():
        for piece in raw.split("#", 1)[0].split(";"):
            piece = piece.strip()
            if not piece:
                continue
            pending.append(piece)
            if not all(w.lower() in _PREFIX_WORDS for w in piece.split()):
                out.append("\n".join(pending))
                pending = []
    return out


def same_bytes(a: bytes, b: bytes) -> bool:
    """Equal up to the order of the legacy prefixes before the opcode."""

    def split(code: bytes) -> tuple[list[int], bytes]:
        k = 0
        while k < len(code) and code[k] in _LEGACY_PREFIX_BYTES:
            k += 1
        return sorted(code[:k]), code[k:]

    return split(a) == split(b)


def symbol_table(pieces: list[Piece]) -> dict[str, int]:
    """Each symbol the fixups name (modifier included: ``x@TPOFF``), in the
    order first met, at its own place in the data area."""
    names: dict[str, None] = {}
    for piece in pieces:
        for fixup in piece.fixups:
            names.update(dict.fromkeys(_SYMBOL.findall(fixup.value)))
    if SYMBOLS + SYMBOL_STRIDE * len(names) > LINKED_CODE:
        raise Unrunnable("too many symbols for the data area")
    return {name: SYMBOLS + SYMBOL_STRIDE * k for k, name in enumerate(names)}


_SYMBOL = re.compile(r"[A-Za-z_.][\w.$@]*")


def fixup_value(value: str, symbols: dict[str, int]) -> int:
    """The value of llvm-mc's expression (symbols, decimal numbers, + and -,
    parentheses) with the symbols at their addresses."""
    unknown = set(_SYMBOL.findall(value)) - set(symbols)
    if unknown:
        raise Unrunnable(f"a symbol the original does not name: {sorted(unknown)}")
    code = _SYMBOL.sub(lambda m: str(symbols[m.group(0)]), value)
    if not re.fullmatch(r"[0-9()+\- ]*", code):
        raise Unrunnable(f"a fixup the oracle cannot compute: {value}")
    return eval(code)  # digits, signs and parentheses only


#: fixup kinds: (bytes, pc-relative). The 8-bit ones are left out: llvm-mc
#: shows an instruction before relaxation (``addq $g+128, %r8`` with an 8-bit
#: immediate, which an object file holds as a 32-bit one), so a block with one
#: is not run
_FIXUP_KINDS = {
    "FK_Data_4": (4, False),
    "FK_Data_8": (8, False),
    "reloc_signed_4byte": (4, False),
    "FK_PCRel_4": (4, True),
    "reloc_branch_4byte_pcrel": (4, True),
}


def link(code: bytearray, fixups: list[tuple[int, Fixup]], at: int, symbols: dict[str, int]) -> bytes:
    """``code`` (to run at ``at``) with every fixup, at its byte position in
    ``code``, filled in."""
    for position, fixup in fixups:
        size, relative = _FIXUP_KINDS.get(fixup.kind, (4, fixup.kind.startswith("reloc_riprel_4byte")))
        if fixup.kind not in _FIXUP_KINDS and not fixup.kind.startswith("reloc_riprel_4byte"):
            raise Unrunnable(f"a fixup of kind {fixup.kind} (an 8-bit one is shown before relaxation)")
        value = fixup_value(fixup.value, symbols) - (at + position if relative else 0)
        if not -(1 << (8 * size - 1)) <= value < 1 << (8 * size):
            raise Unrunnable(f"{fixup.value} does not fit in {size} bytes")
        code[position : position + size] = (value % (1 << (8 * size))).to_bytes(size, "little")
    return bytes(code)


def laid_out(pieces: list[Piece], symbols: dict[str, int], slots: bool = True) -> tuple[bytes, int]:
    """(code, address to run it at) of the lines: each right-aligned in a
    slot of :data:`SLOT` bytes, or back to back; a block with fixups is linked
    at :data:`LINKED_CODE` against ``symbols``."""
    code, fixups = bytearray(), []
    for piece in pieces:
        if slots:
            if len(piece.code) > SLOT:
                raise ValueError(f"an instruction of {len(piece.code)} bytes")
            code += NOP * (SLOT - len(piece.code))
        fixups += [(len(code) + f.offset, f) for f in piece.fixups]
        code += piece.code
    if not fixups:
        return bytes(code), CODE
    return link(code, fixups, LINKED_CODE, symbols), LINKED_CODE


def run_isolated(code: bytes, start, at: int = CODE) -> tuple:
    """:func:`run` in a forked child: unicorn aborts the whole process on
    some invalid code (``lock`` before a register ``btr``) instead of raising
    #UD, and a weakened analysis produces such code."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its crash report would only be noise
        os.close(read)
        faulthandler.disable()
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        try:
            result = ("ok", run(code, start, at))
        except BaseException as err:  # noqa: BLE001 - everything goes back to the parent
            result = ("unrunnable", str(err))
        with os.fdopen(write, "wb") as f:
            pickle.dump(result, f)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise Unrunnable(f"the emulator crashed (wait status {status})")
    kind, value = pickle.loads(data)
    if kind != "ok":
        raise Unrunnable(value)
    return value


@dataclass
class Report:
    """What one oracle run checked and found."""

    blocks: int = 0
    runnable: int = 0
    unrunnable: dict[str, int] = field(default_factory=dict)
    permutations: int = 0
    renamings: int = 0
    permutation_runs: int = 0
    renaming_runs: int = 0
    #: (block text, variant text, what went wrong)
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    def line(self) -> str:
        skipped = sum(self.unrunnable.values())
        return (
            f"{self.blocks} blocks ({self.runnable} runnable), {self.permutations} permutations and "
            f"{self.renamings} renamings assembled, {self.permutation_runs} + {self.renaming_runs} runs "
            f"compared, {len(self.failures)} failures; {skipped} originals the emulator cannot run: "
            f"{self.unrunnable}"
        )


def _final_branch(program: Program) -> bool:
    return bool(BRANCH.match(program.lines[-1].text))


def _sample(program: Program, space: PermutationSpace, rng: random.Random, permutations: int, renamings: int):
    """Sampled non-identity orders (``order[new] = old``) and renamings."""
    orders = []
    if permutations and space.tractable and space.count() > 1:
        orders = [space.unrank(rng.randrange(1, space.count())).order for _ in range(permutations)]
    chosen = []
    if renamings:
        chosen = [r for r in renaming_space(program).sample(renamings + 2, rng) if not r.is_identity][:renamings]
    return orders, chosen


def check_blocks(
    sources: list[tuple[str, bool]],
    rng: random.Random,
    *,
    permutations: int = 3,
    renamings: int = 3,
    parse_block: Callable[[str], Program] = parse,
    permutation_space: Callable[[Program], PermutationSpace] = PermutationSpace,
    raw_check: bool = True,
    slots: bool = True,
    choose: Callable[[Program], tuple[list, list]] | None = None,
    isolate: bool = False,
) -> Report:
    """Run the oracle on ``sources`` (block text, runnable in unicorn).

    ``parse_block`` and ``permutation_space`` are the analysis under test;
    the sensitivity checks pass weakened ones. ``slots=False`` runs the lines
    back to back instead, as an assembler lays them out (right for
    permutations of blocks without rip-relative operands). ``choose`` picks
    the variants itself: ``choose(program) -> (orders, renamings)``."""
    report = Report(blocks=len(sources))
    cases = []  # (key, source, program, runnable, [(variant key, kind, program, renaming or None)])
    texts: dict[str, list[str]] = {}
    for k, (source, runnable) in enumerate(sources):
        program = parse_block(source)
        key = f"b{k}"
        texts[key] = [line.text for line in program.lines]
        if raw_check:
            texts[f"{key}r"] = source_statements(source)
        if choose is None:
            orders, chosen = _sample(program, permutation_space(program), rng, permutations, renamings)
        else:
            orders, chosen = choose(program)
        rspace = renaming_space(program)
        variants = []
        for j, order in enumerate(orders):
            variants.append((f"{key}p{j}", "permutation", program.reordered(order), None))
        for j, r in enumerate(chosen):
            variants.append((f"{key}n{j}", "renaming", rspace.apply(program, r), r))
        for vkey, _, variant, _ in variants:
            texts[vkey] = [line.text for line in variant.lines]
        cases.append((key, source, program, runnable, variants))
    assembled, errors = assemble_pieces(texts)
    for key, source, program, runnable, variants in cases:
        if key in errors:
            report.failures.append((source, source, f"the original does not assemble: {errors[key]}"))
            continue
        if raw_check and not _same_pieces(assembled.get(f"{key}r", []), assembled[key]):
            report.failures.append(
                (source, program.render(), "the rendered original assembles differently from the source")
            )
        for vkey, kind, variant, _ in variants:
            report.permutations += kind == "permutation"
            report.renamings += kind == "renaming"
            if vkey in errors:
                report.failures.append((source, variant.render(), f"{kind} does not assemble: {errors[vkey]}"))
        if runnable:
            runnable_variants = [v for v in variants if v[0] not in errors]
            _run_variants(report, rng, source, program, assembled, key, runnable_variants, slots, isolate)
    return report


def _same_pieces(raw: list[Piece], rendered: list[Piece]) -> bool:
    """The source, as written, assembles to the rendering's bytes (up to the
    order of legacy prefixes) and fixups."""
    return len(raw) == len(rendered) and all(
        same_bytes(a.code, b.code) and [(f.value, f.kind) for f in a.fixups] == [(f.value, f.kind) for f in b.fixups]
        for a, b in zip(raw, rendered)
    )


def _run_variants(
    report: Report,
    rng: random.Random,
    source: str,
    program: Program,
    assembled: dict,
    key: str,
    variants: list,
    slots: bool,
    isolate: bool,
) -> None:
    """Run the original and each variant (assembled under its key) from one
    random start, and add what differs to ``report``."""
    run_variant = run_isolated if isolate else run
    n = len(program.lines) - _final_branch(program)
    start = random_start(rng)
    upper = not legacy_sse(program)
    try:
        symbols = symbol_table(assembled[key][:n])
        code, at = laid_out(assembled[key][:n], symbols, slots)
        before = run(code, start, at)
        if same_state(before, run(code, start, at), upper_lanes=upper):
            raise Unrunnable("nondeterministic")
    except Unrunnable as why:
        reason = str(why).split(" (")[0]
        report.unrunnable[reason] = report.unrunnable.get(reason, 0) + 1
        return
    report.runnable += 1
    for vkey, kind, variant, renaming in variants:
        try:
            code, at = laid_out(assembled[vkey][:n], symbols, slots)
            if kind == "permutation":
                report.permutation_runs += 1
                diff = same_state(before, run_variant(code, start, at), upper_lanes=upper)
            else:
                report.renaming_runs += 1
                mapping = renaming.as_dict()
                gpr = full_permutation(mapping, "gpr", HARNESS_GPR)
                vec = full_permutation(mapping, "vec", tuple(str(i) for i in range(16)))
                diff = differences(before, run_variant(code, moved(start, gpr, vec), at), gpr, vec, upper_lanes=upper)
        except Unrunnable as why:
            diff = [f"cannot run: {why}"]
        if diff:
            report.failures.append((source, variant.render(), f"{kind}: {', '.join(diff)}"))


def llvm_mc_verdicts(instructions: list[str]) -> list[str | None]:
    """llvm-mc's first error on each instruction (None when it assembles)."""
    result = subprocess.run(MC, input="\n".join(instructions) + "\n", capture_output=True, text=True)
    verdicts: list[str | None] = [None] * len(instructions)
    for m in re.finditer(r"<stdin>:(\d+):(\d+): (error|warning): (.*)", result.stderr):
        k = int(m.group(1)) - 1
        if verdicts[k] is None:
            verdicts[k] = f"{m.group(3)}: {m.group(4)}"
    return verdicts


def invar_verdict(text: str) -> ParseError | None:
    try:
        parse(text)
    except ParseError as err:
        return err
    return None


def split_prefix_lines(program: Program) -> Program:
    """The program as the analysis saw it before prefixes joined their
    instruction: every prefix is an IR line of its own, with no dependencies
    (a sensitivity check's weakened analysis)."""
    from dataclasses import replace

    from invar.program import Line

    lines, tokens, new_index = [], [], {}
    for i, line in enumerate(program.lines):
        toks = program.line_tokens(i)
        prefixes = [t for t in toks if t.kind == "prefix"]
        if prefixes:
            cut = prefixes[-1].end + 1
            lines.append(Line(text=line.text[: cut - 1]))
            tokens += [replace(t, line=len(lines) - 1) for t in prefixes]
            rest = [replace(t, line=len(lines), start=t.start - cut) for t in toks if t.kind != "prefix"]
            lines.append(replace(line, text=line.text[cut:]))
            tokens += rest
        else:
            lines.append(line)
            tokens += [replace(t, line=len(lines) - 1) for t in toks]
        new_index[i] = len(lines) - 1
    deps = tuple(sorted((new_index[i], new_index[j]) for i, j in program.deps))
    return replace(program, lines=tuple(lines), tokens=tuple(tokens), deps=deps)
