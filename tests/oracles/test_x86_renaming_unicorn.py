"""Oracle: a register renaming computes the same thing, under the renaming.

llvm-mca (test_x86_mca.py) shows renamed blocks take the same time; this shows
they compute the same function. For a seeded sample of BHive blocks and
sampled renamings, the renamed text is assembled by ``llvm-mc`` (an assembler
that shares no code with invar), the original bytes and the renamed bytes run
in unicorn, the renamed run starting from the original's initial state with
every register's value moved to the register it is renamed to, and each
register's final value must reappear in its renamed register; flags, x87
state and memory must be equal.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import pytest

from invar.frontends.x86 import registers as R
from invar.frontends.x86 import renaming_space
from invar.frontends.x86.hexblock import decode
from tests.conftest import bhive_blocks
from tests.oracles.test_x86_unicorn import Start, Unrunnable, legacy_sse, random_start, run

SEED = 77
BLOCKS = 150
RENAMINGS = 2

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mc") is None, reason="needs llvm-mc (.ci/run installs Debian's llvm)"
)

#: the harness's register order (test_x86_unicorn.GPRS) as base registers
HARNESS_GPR = ("a", "b", "c", "d", "si", "di", "bp", "sp") + tuple(f"r{i}" for i in range(8, 16))


def assemble(blocks: dict[str, str]) -> dict[str, bytes]:
    """Bytes of each block, by one llvm-mc run; blocks with fixups are left out."""
    text = "".join(f"{name}:\n{body}\n" for name, body in blocks.items())
    run_mc = subprocess.run(
        ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "--show-encoding"], input=text, capture_output=True, text=True
    )
    assert run_mc.returncode == 0, run_mc.stderr[:2000]
    out: dict[str, bytearray] = {}
    current = None
    for line in run_mc.stdout.splitlines():
        label = re.match(r"^(\w+):", line)
        if label and label.group(1) in blocks:
            current = label.group(1)
            out[current] = bytearray()
            continue
        enc = re.search(r"encoding: \[(.*)\]", line)
        if enc and current is not None:
            parts = enc.group(1).split(",")
            if any(not p.startswith("0x") for p in parts):
                out[current] = None  # a fixup: position-dependent, leave it out
                current = None
                continue
            if out[current] is not None:
                out[current] += bytes(int(p, 16) for p in parts)
    return {k: bytes(v) for k, v in out.items() if v is not None}


def full_permutation(mapping: dict[str, str], cls: str, bases: tuple[str, ...]) -> dict[str, str]:
    """Extend a renaming of some bases to a permutation of the whole class, so
    that unused registers' values have somewhere to go."""
    perm = {r.split(":")[1]: t.split(":")[1] for r, t in mapping.items() if r.startswith(cls + ":")}
    free_targets = [b for b in bases if b not in perm.values()]
    for b in bases:
        if b not in perm:
            perm[b] = b if b in free_targets else None
            if perm[b] is not None:
                free_targets.remove(b)
    for b in bases:
        if perm[b] is None:
            perm[b] = free_targets.pop(0)
    return perm


def moved(start: Start, gpr: dict[str, str], vec: dict[str, str]) -> Start:
    gprs = list(start.gprs)
    for k, base in enumerate(HARNESS_GPR):
        gprs[HARNESS_GPR.index(gpr[base])] = start.gprs[k]
    ymms = list(start.ymms)
    for k in range(16):
        ymms[int(vec[str(k)])] = start.ymms[k]
    return Start(gprs=gprs, ymms=ymms)


def differences(
    before: tuple, after: tuple, gpr: dict[str, str], vec: dict[str, str], *, upper_lanes: bool = True
) -> list[str]:
    """What differs once the renamed run's registers are read back through the
    renaming (vector registers on their low 128 bits only when ``upper_lanes``
    is False; see test_x86_unicorn.same_state)."""
    lanes = (1 << 256) - 1 if upper_lanes else (1 << 128) - 1
    gprs_back = [after[0][HARNESS_GPR.index(gpr[base])] for base in HARNESS_GPR]
    ymms_back = [after[2][int(vec[str(i)])] & lanes for i in range(16)]
    return [
        name
        for name, x, y in (
            ("gprs", before[0], gprs_back),
            ("flags", before[1], after[1]),
            ("vector", [v & lanes for v in before[2]], ymms_back),
            ("x87", before[3], after[3]),
            ("memory", before[4], after[4]),
        )
        if x != y
    ]


@pytest.mark.parametrize(
    "original, wrong, mapping",
    [
        # %rax is implicit in one-operand imul: renaming it changes the result
        ("imulq %rcx\nmovq %rax, %rbx", "imulq %rcx\nmovq %rsi, %rbx", {"gpr:a": "gpr:si"}),
        # cltq sign-extends %eax into %rax, whatever else the block names
        ("movl %eax, %ebx\ncltq", "movl %esi, %ebx\ncltq", {"gpr:a": "gpr:si"}),
    ],
)
def test_oracle_catches_renaming_an_implicit_register(original, wrong, mapping):
    """Sensitivity: a renaming that moves a pinned register must be caught."""
    code = assemble({"o": original, "w": wrong})
    start = random_start(random.Random(5))
    gpr = full_permutation(mapping, "gpr", HARNESS_GPR)
    vec = full_permutation({}, "vec", tuple(str(i) for i in range(16)))
    before = run(code["o"], start)
    after = run(code["w"], moved(start, gpr, vec))
    assert differences(before, after, gpr, vec)
    # and the same harness accepts the right renaming (only the free register moved)
    space = renaming_space(decode(code["o"].hex()))
    assert space.count() > 1


def test_renamed_blocks_compute_the_same_function(record_property):
    rng = random.Random(SEED)
    cases = []
    for h in rng.sample(bhive_blocks(), 6 * BLOCKS):
        program = decode(h)
        regs = [t for t in program.tokens if t.kind == "register"]
        # the harness holds 16 GPRs and ymm0-15; mmx and mask registers alias state it does not model
        if any(
            R.lookup(t.text).cls in ("mmx", "mask") or (t.referent.startswith("vec:") and int(t.referent[4:]) > 15)
            for t in regs
        ):
            continue
        space = renaming_space(program)
        renamings = [r for r in space.sample(4, rng) if not r.is_identity][:RENAMINGS]
        if renamings:
            cases.append((h, program, space, renamings))
        if len(cases) == BLOCKS:
            break
    assert len(cases) == BLOCKS
    texts = {f"b{k}_{j}": space.render(r) for k, (_, _, space, rs) in enumerate(cases) for j, r in enumerate(rs)}
    assembled = assemble(texts)
    ran = unrunnable = 0
    mismatches = []
    for k, (h, program, space, rs) in enumerate(cases):
        start = random_start(rng)
        try:
            before = run(bytes.fromhex(h), start)
            if before != run(bytes.fromhex(h), start):
                raise Unrunnable("nondeterministic (rdtsc, rdrand …)")
        except Unrunnable:
            unrunnable += 1
            continue
        for j, r in enumerate(rs):
            code = assembled.get(f"b{k}_{j}")
            if code is None:
                continue
            gpr = full_permutation(r.as_dict(), "gpr", HARNESS_GPR)
            vec = full_permutation(r.as_dict(), "vec", tuple(str(i) for i in range(16)))
            after = run(code, moved(start, gpr, vec))
            ran += 1
            diff = differences(before, after, gpr, vec, upper_lanes=not legacy_sse(program))
            if diff:
                mismatches.append((h, texts[f"b{k}_{j}"], diff))
    report = (
        f"{ran} renamed runs over {BLOCKS} blocks; {unrunnable} blocks the emulator could not run; "
        f"{len(mismatches)} mismatches"
    )
    print(report)
    record_property("oracle", report)
    assert unrunnable < 0.1 * BLOCKS
    assert ran > 0.8 * BLOCKS * RENAMINGS
    assert not mismatches, mismatches[:3]
