"""Oracle on generated x86 blocks: every variant assembles and runs alike.

tests/oracles/x86_generate.py writes seeded random blocks full of the
constructs that are easy to get wrong (prefixes on their own lines, ``rep``
string instructions, ``lock``, high-byte registers, every memory operand form,
both ``movabs`` forms, AVX-512 masks, implicit operands). For every block,
sampled permutations and renamings must assemble with ``llvm-mc``, and the
runnable ones must end in the same state in unicorn (tests/oracles/
x86_oracle.py). Sensitivity checks weaken the analysis and expect failures.

A second generator writes instructions that break one rule each; invar must
reject exactly what ``llvm-mc`` rejects, apart from the differences listed in
:data:`EXCEPTIONS` with their reasons.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import re
import shutil
from collections import Counter

import pytest

from invar.frontends.x86 import parse
from invar.frontends.x86.validate import PREFIXES, general_purpose
from invar.symmetry.permutations import PermutationSpace
from tests.oracles.x86_generate import generate_block, invalid_instructions, mutations
from tests.oracles.x86_oracle import check_blocks, invar_verdict, llvm_mc_verdicts, split_prefix_lines

# the module, not the function of the same name the package exports
x86_parse = importlib.import_module("invar.frontends.x86.parse")

SEED = 20250301
BLOCKS = 300

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mc") is None, reason="needs llvm-mc (.ci/run installs Debian's llvm)"
)


@pytest.fixture(scope="module")
def blocks():
    rng = random.Random(SEED)
    return [generate_block(rng) for _ in range(BLOCKS)]


def test_generated_blocks_cover_the_constructs(blocks, record_property):
    features = Counter(f if f.startswith("mem:") else f.split(":")[0] for b in blocks for f in b.features)
    for block in blocks:
        program = parse(block.text)  # every generated block is valid
        rendered = parse(program.render())  # prefixes written alone render on their instruction's line
        assert [l.text for l in rendered.lines] == [l.text for l in program.lines]
        assert rendered.deps == program.deps and rendered.pinned == program.pinned
        assert parse(rendered.render()) == rendered
    wanted = [
        "alu",
        "mem:base",
        "mem:disp",
        "mem:index",
        "mem:noindex",
        "mem:segment",
        "mem:rip",
        "mem:absolute",
        "mem:addr32",
        "mem:stack",
        "prefix",
        "prefix-spelling",
        "lock",
        "padding",
        "movabs",
        "implicit",
        "shift",
        "xchg",
        "xadd",
        "cmpxchg",
        "sse",
        "avx",
        "avx512",
        "final-branch",
        "extend",
        "shld",
        "misc",
        "accumulator",
        "x87",
        "convert",
        "mxcsr",
        "mmx-x87",
    ]
    missing = [w for w in wanted if features[w] < 10]
    assert not missing, (missing, features)
    spelled = Counter(
        f for b in blocks for f in b.features if f.startswith(("lock:", "prefix-spelling:", "movabs:", "alu:"))
    )
    assert all(spelled[f"lock:{k}"] >= 10 and spelled[f"prefix-spelling:{k}"] >= 10 for k in range(3)), spelled
    assert all(spelled[f"movabs:{k}"] >= 10 for k in range(3)), spelled
    assert all(spelled[f"alu:{w}"] >= 10 for w in (8, "8h", 16, 32, 64)), spelled
    line = f"{len(blocks)} generated blocks, {sum(not b.runnable for b in blocks)} assemble-only (AVX/AVX-512/MMX)"
    record_property("oracle", line)


def test_every_variant_assembles_and_runs_alike(blocks, record_property):
    rng = random.Random(SEED + 1)
    report = check_blocks([(b.text, b.runnable) for b in blocks], rng)
    record_property("oracle", report.line())
    print(report.line())
    for source, variant, why in report.failures[:5]:
        print(f"--- {why}\n{source}\n--- variant\n{variant}")
    assert not report.failures, report.failures[:3]
    assert report.runnable >= 0.7 * BLOCKS
    assert sum(report.unrunnable.values()) < 0.02 * BLOCKS
    assert report.permutations > 1.5 * BLOCKS and report.renamings > 2.5 * BLOCKS
    assert report.permutation_runs > BLOCKS and report.renaming_runs > 2 * BLOCKS


def test_canonical_form_is_invariant_on_generated_blocks(blocks, record_property):
    """Every renaming of a block has the block's canonical form (invar canon)."""
    from invar.frontends.x86 import renaming_space
    from invar.symmetry.spaces import canonical

    rng = random.Random(SEED + 6)
    checked = 0
    for block in blocks:
        program = parse(block.text)
        canon = canonical(program)[0].render()
        space = renaming_space(program)
        for r in space.sample(3, rng):
            assert canonical(parse(space.apply(program, r).render()))[0].render() == canon, block.text
            checked += 1
    record_property(
        "oracle", f"canonical form: {len(blocks)} generated blocks, {checked} renamings, one form per block"
    )


# ------------------------------------------------------------ sensitivity
def _sensitive(blocks, count: int, want, **kwargs):
    sources = [(b.text, b.runnable) for b in blocks if want(b)][:count]
    assert len(sources) == count
    return check_blocks(sources, random.Random(SEED + 2), **kwargs)


def test_sensitivity_dependencies_dropped(blocks, record_property):
    report = _sensitive(
        blocks,
        30,
        lambda b: b.runnable,
        renamings=0,
        permutation_space=lambda p: PermutationSpace(dataclasses.replace(p, deps=())),
    )
    record_property("oracle", f"dependencies dropped: {report.line()}")
    assert len(report.failures) > 0.2 * report.permutation_runs


def test_sensitivity_prefix_lines_split_off(record_property):
    """Prefixes as lines of their own (what the issue reported): orders then
    separate ``rep`` from its string instruction and ``lock`` from its
    read-modify-write, and the blocks, laid out as an assembler does, differ."""
    rng = random.Random(SEED + 3)
    sources = []
    while len(sources) < 20:
        b = generate_block(rng, vector=False)
        if any(f.startswith(("lock:", "prefix:")) for f in b.features) and not b.features & {"mem:rip", "final-branch"}:
            sources.append(b)
    report = check_blocks(
        [(b.text, b.runnable) for b in sources],
        rng,
        permutations=2,
        renamings=0,
        raw_check=False,
        slots=False,
        isolate=True,
        parse_block=lambda text: split_prefix_lines(parse(text)),
    )
    record_property("oracle", f"prefix lines split off: {report.line()}")
    assert len(report.failures) > 0.1 * report.permutations


@pytest.fixture
def weakened(monkeypatch):
    """Patch the effects the parser uses, with its cache cleared around."""

    def patch(wrapper):
        original = x86_parse.effects
        x86_parse._instruction_cached.cache_clear()
        monkeypatch.setattr(x86_parse, "effects", lambda *args: wrapper(original, *args))

    yield patch
    monkeypatch.undo()
    x86_parse._instruction_cached.cache_clear()


def test_sensitivity_rep_count_not_pinned(blocks, weakened, record_property):
    weakened(lambda effects, mnemonic, base, operands, prefixes=(): effects(mnemonic, base, operands, ()))
    # unpinned, a renaming moves the count away from %rcx; dependencies let
    # the count's setting move across the rep
    report = _sensitive(
        blocks,
        20,
        lambda b: b.runnable and any(f.startswith("prefix:") for f in b.features),
        permutations=2,
        renamings=2,
    )
    record_property("oracle", f"rep's %rcx not pinned: {report.line()}")
    assert len(report.failures) > 0.3 * (report.permutation_runs + report.renaming_runs)


def test_sensitivity_movabs_accumulator_not_pinned(blocks, weakened, record_property):
    def unpinned(effects, mnemonic, base, operands, prefixes=()):
        eff = effects(mnemonic, base, operands, prefixes)
        if mnemonic.startswith("movabs"):
            eff = dataclasses.replace(eff, implicit=dataclasses.replace(eff.implicit, fixed=frozenset()))
        return eff

    weakened(unpinned)
    report = _sensitive(blocks, 36, lambda b: "movabs:1" in b.features or "movabs:2" in b.features, permutations=0)
    record_property("oracle", f"movabs accumulator not pinned: {report.line()}")
    assert sum("does not assemble" in why for _, _, why in report.failures) > 20


def test_sensitivity_mxcsr_and_mmx_untracked(blocks, weakened, record_property):
    """Without MXCSR and the MMX side of the x87 state (the x86 hunt's F3, F4),
    ldmxcsr swaps with the arithmetic that rounds by it, and MMX with x87."""

    def untracked(effects, mnemonic, base, operands, prefixes=()):
        eff = effects(mnemonic, base, operands, prefixes)
        return dataclasses.replace(eff, accumulates=frozenset(), other_reads=frozenset(), other_writes=frozenset())

    weakened(untracked)
    report = _sensitive(
        blocks, 30, lambda b: b.runnable and ("mxcsr:ldmxcsr" in b.features or "mmx-x87" in b.features), renamings=0
    )
    record_property("oracle", f"MXCSR and MMX untracked: {report.line()}")
    assert len(report.failures) >= 5


def test_sensitivity_memory_width_from_registers(blocks, weakened, record_property, monkeypatch):
    """Memory extents from the suffix and the registers alone, as before the
    x86 hunt (F1, F2): faddl and cvttsd2si swap with a store into their operand."""
    from invar.frontends.x86 import deps, semantics

    def registers_only(mnemonic, base, operands, x87):
        size = semantics.suffix_bytes(mnemonic, base)
        if size is not None and base not in ("fild", "fistp", "fisttp", "fld", "fst", "fstp"):
            return size
        widths = [o["reg"].bits // 8 for o in operands if o["kind"] == "reg" and o["reg"].cls in ("gpr", "vec", "mmx")]
        return max([10] + widths) if x87 else max(widths) if widths else 64

    monkeypatch.setattr(deps, "memory_bytes", registers_only)
    weakened(lambda effects, *args: effects(*args))  # clears the parser's cache around the test
    report = _sensitive(
        blocks, 40, lambda b: b.runnable and any(f.startswith(("x87:", "convert:")) for f in b.features), renamings=0
    )
    record_property("oracle", f"memory width from registers: {report.line()}")
    assert len(report.failures) >= 3


# ------------------------------------------------------ invalid instructions
#: rules on which invar and llvm-mc 14 legitimately differ: invar rejects,
#: llvm-mc assembles (perhaps with a warning), for the reason given
EXCEPTIONS = {
    "lock": "llvm-mc emits a lock byte before anything; the CPU raises #UD unless the instruction is a "
    "read-modify-write of memory",
    "rep": "llvm-mc emits rep/repne/xacquire bytes before anything; elsewhere they are undefined or change the "
    "instruction (rep bsf runs as tzcnt, repne movs as rep movs)",
    "encoding-prefix": "data16/rex64/addr32 change the operand or address size of the next instruction, so the "
    "text no longer says what runs",
    "notrack": "llvm-mc emits the notrack byte (a ds override) anywhere; it only means something on indirect branches",
    "two-segments": "two different segment overrides: which one applies is not the text's choice",
    "immediate-truncated": "llvm-mc 14 silently truncates an 8-, 16- or 32-bit immediate "
    "($256 in addb assembles as $0)",
    "address-truncated": "llvm-mc 14 silently truncates a displacement or an absolute address to 32 bits, "
    "so another address is accessed",
    "vector-index": "llvm-mc 14 encodes a vector index outside a gather as the general register of the same number",
    "register-symbol": "a register name without % is a symbol to an AT&T assembler; invar refuses it as almost "
    "surely Intel syntax",
    "zero-without-mask": "llvm-mc drops {z} without a write mask silently",
    "gather-same-registers": "llvm-mc only warns; the CPU raises #UD when a gather's index and destination "
    "(and AVX2 mask) registers are not distinct",
    "string-warning": "llvm-mc only warns and uses (%rsi), %es:(%rdi) or (%rbx) whatever the text says",
}
#: invar's messages for the exceptions above, for the random mutations
_EXCEPTION_MESSAGES = re.compile(
    r"^prefix '|conflicting prefixes|two segment overrides|does not fit|is always|written without '%'|"
    r"needs a write mask|must differ|vector index register is only valid"
)


def test_invalid_instructions_are_rejected_like_llvm_mc(record_property):
    cases = invalid_instructions(random.Random(SEED + 4), 1800)
    verdicts = llvm_mc_verdicts([text for text, _ in cases])
    by_rule: Counter = Counter()
    wrong = []
    for (text, rule), mc in zip(cases, verdicts):
        ours = invar_verdict(text)
        mc_rejects = mc is not None and mc.startswith("error")
        by_rule[rule, ours is None] += 1
        if ours is not None:
            assert ours.line == 1 and 1 <= ours.col <= len(text), (text, ours)
        if rule in EXCEPTIONS:
            ok = ours is not None and not mc_rejects
        else:
            ok = (ours is not None) == mc_rejects and (rule.startswith("valid") == (ours is None))
        if not ok:
            wrong.append((rule, text, ours and ours.message, mc))
    rules = sorted({r for r, _ in by_rule})
    line = (
        f"{len(cases)} instructions over {len(rules)} rules, "
        f"{sum(v for (r, _), v in by_rule.items() if r in EXCEPTIONS)} "
        f"in the {len(EXCEPTIONS)} listed exceptions; {len(wrong)} disagreements"
    )
    record_property("oracle", line)
    assert not wrong, wrong[:5]
    assert set(EXCEPTIONS) <= set(rules)


def test_mutated_instructions_are_rejected_like_llvm_mc(record_property):
    """Random edits of generated instructions (a register swapped for another
    of any width or class, operands reordered, dropped or added, the suffix
    changed, a prefix added). Beside :data:`EXCEPTIONS`, invar may accept what
    llvm-mc rejects only outside the general-purpose instructions, where it
    checks the generic rules only (docs/formats.md)."""
    rng = random.Random(SEED + 5)
    cases = mutations(rng, 1500)
    verdicts = llvm_mc_verdicts(cases)
    counts: Counter = Counter()
    wrong = []
    for text, mc in zip(cases, verdicts):
        ours = invar_verdict(text)
        mc_rejects = mc is not None and mc.startswith("error")
        if (ours is not None) == mc_rejects:
            counts["agree"] += 1
        elif ours is not None and _EXCEPTION_MESSAGES.search(ours.message):
            counts["listed exception"] += 1
        elif ours is None and not general_purpose(next(w for w in text.split() if w not in PREFIXES)):
            counts["generic rules only"] += 1
        else:
            wrong.append((text, ours and ours.message, mc))
    record_property("oracle", f"{len(cases)} mutated instructions: {dict(counts)}; {len(wrong)} disagreements")
    assert not wrong, wrong[:5]
    assert counts["agree"] > 0.75 * len(cases)
