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

Every original is also assembled as written (prefixes on their own lines,
``;`` separators) and each instruction, with the prefixes written before it,
must give the same bytes as invar's rendering of its line, up to the order of
legacy prefixes (which the CPU does not care about).
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
from tests.oracles.test_x86_unicorn import Unrunnable, legacy_sse, random_start, run, same_state

SLOT = 16
NOP = b"\x90"
MC = ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "--show-encoding"]
BRANCH = re.compile(r"^(?:\w+\s+)*(?:j[a-z]+|call[a-z]*|ret[a-z]*|loop[a-z]*)\b")


def assemble_lines(programs: dict[str, list[str]]) -> tuple[dict[str, list[bytes]], dict[str, str]]:
    """Bytes of every line of every program, by one llvm-mc run.

    Returns (bytes per line per program, llvm-mc's first error per program
    that did not assemble). A fixup (a branch to an absolute target) reads as
    zero bytes: such a line ends a block and never runs."""
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
    out: dict[str, list[bytearray]] = {key: [bytearray() for _ in lines] for key, lines in programs.items()}
    current = None
    for line in result.stdout.splitlines():
        label = re.match(r"^(\w+)__(\d+):", line)
        if label:
            current = (label.group(1), int(label.group(2)))
            continue
        enc = re.search(r"encoding: \[(.*)\]", line)
        if enc and current is not None:
            out[current[0]][current[1]] += bytes(int(p, 16) if p.startswith("0x") else 0 for p in enc.group(1).split(","))
    return {k: [bytes(b) for b in v] for k, v in out.items() if k not in errors}, errors


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


def slotted(pieces: list[bytes]) -> bytes:
    """The lines' bytes, each right-aligned in a slot of :data:`SLOT` bytes."""
    out = bytearray()
    for piece in pieces:
        if len(piece) > SLOT:
            raise ValueError(f"an instruction of {len(piece)} bytes")
        out += NOP * (SLOT - len(piece)) + piece
    return bytes(out)


def run_isolated(code: bytes, start) -> tuple:
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
            result = ("ok", run(code, start))
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
        return (f"{self.blocks} blocks ({self.runnable} runnable), {self.permutations} permutations and "
                f"{self.renamings} renamings assembled, {self.permutation_runs} + {self.renaming_runs} runs "
                f"compared, {len(self.failures)} failures; {skipped} originals the emulator cannot run: "
                f"{self.unrunnable}")


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
    layout = slotted if slots else b"".join
    run_variant = run_isolated if isolate else run
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
    assembled, errors = assemble_lines(texts)
    for key, source, program, runnable, variants in cases:
        if key in errors:
            report.failures.append((source, source, f"the original does not assemble: {errors[key]}"))
            continue
        if raw_check:
            raw = assembled.get(f"{key}r", [])
            if len(raw) != len(program.lines) or not all(map(same_bytes, raw, assembled[key])):
                report.failures.append((source, program.render(), "the rendered original assembles differently from the source"))
        for vkey, kind, variant, _ in variants:
            report.permutations += kind == "permutation"
            report.renamings += kind == "renaming"
            if vkey in errors:
                report.failures.append((source, variant.render(), f"{kind} does not assemble: {errors[vkey]}"))
        if not runnable:
            continue
        n = len(program.lines) - _final_branch(program)
        start = random_start(rng)
        upper = not legacy_sse(program)
        try:
            code = layout(assembled[key][:n])
            before = run(code, start)
            if same_state(before, run(code, start), upper_lanes=upper):
                raise Unrunnable("nondeterministic")
        except Unrunnable as why:
            reason = str(why).split(" (")[0]
            report.unrunnable[reason] = report.unrunnable.get(reason, 0) + 1
            continue
        report.runnable += 1
        for vkey, kind, variant, renaming in variants:
            if vkey in errors:
                continue
            code = layout(assembled[vkey][:n])
            if kind == "permutation":
                report.permutation_runs += 1
                try:
                    diff = same_state(before, run_variant(code, start), upper_lanes=upper)
                except Unrunnable as why:
                    diff = [f"cannot run: {why}"]
            else:
                report.renaming_runs += 1
                mapping = renaming.as_dict()
                gpr = full_permutation(mapping, "gpr", HARNESS_GPR)
                vec = full_permutation(mapping, "vec", tuple(str(i) for i in range(16)))
                try:
                    diff = differences(before, run_variant(code, moved(start, gpr, vec)), gpr, vec, upper_lanes=upper)
                except Unrunnable as why:
                    diff = [f"cannot run: {why}"]
            if diff:
                report.failures.append((source, variant.render(), f"{kind}: {', '.join(diff)}"))
    return report


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
