"""The register sweep on a sample: every form llvm-mca times differently by
register is covered by a rule, and renamings of blocks with such forms keep
llvm-mca's cycles on every CPU model.

The sweep (tests/oracles/x86_register_sweep.py) runs whole in
bench/bench_register_sweep.py, which also writes the rule table
invar/frontends/x86/register_rules.py. Here a seeded sample of the forms of a
seeded third of BHive's blocks, together with a seeded sample of the forms the
table lists (so that a stale or unread table fails), is swept on haswell,
ivybridge and skylake.
"""

from __future__ import annotations

import random
import shutil

import capstone
import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse, renaming_space
from invar.frontends.x86.forms import form as invar_form
from invar.frontends.x86.forms import timing_constraints
from invar.frontends.x86.register_rules import RULES
from tests.conftest import bhive_blocks
from tests.oracles import x86_register_sweep as S

SEED = 15
N_FORMS = 20
N_RULE_FORMS = 8
N_BLOCKS = 40
N_RENAMINGS = 4
#: the module reads a seeded 1/BLOCK_SHARE of BHive's ~117,000 blocks: its
#: fixtures disassemble every block they are given
BLOCK_SHARE = 3

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mca") is None or shutil.which("llvm-mc") is None,
    reason="needs llvm-mc and llvm-mca (.ci/run installs Debian's llvm)",
)


@pytest.fixture(scope="module")
def blocks() -> list[str]:
    pool = bhive_blocks()
    return random.Random(SEED).sample(pool, len(pool) // BLOCK_SHARE)


@pytest.fixture(scope="module")
def forms(blocks) -> list[S.Form]:
    return S.swept_forms(blocks)


def covered(finding: S.Finding, form: S.Form) -> bool:
    """The table has a rule for the finding's slots naming all its special registers."""
    group = tuple((form.slots[i].operand, form.slots[i].role) for i in finding.group)
    rule = RULES.get((form.mnemonic, form.kinds), {}).get(group)
    return rule is not None and set(finding.special) <= rule[0]


def test_sampled_sweep_is_covered_by_rules(forms, record_property):
    rng = random.Random(SEED)
    ruled = [f for f in forms if (f.mnemonic, f.kinds) in RULES]
    assert ruled, "no BHive form has a rule: the table is empty or its keys are not the sweep's"
    sample = rng.sample([f for f in forms if f not in ruled], N_FORMS) + rng.sample(
        ruled, min(N_RULE_FORMS, len(ruled))
    )
    result = S.sweep(sample, S.CPUS)
    by_key = {f.key: f for f in sample}
    findings = result["findings"]
    uncovered = [(f.form, f.cpu, f.group, f.special) for f in findings if not covered(f, by_key[f.form])]
    dependent = {c: sorted({f.form for f in findings if f.cpu == c}) for c in S.CPUS}
    # the table's forms are register-dependent, measured again now
    stale = [f.key for f in sample[N_FORMS:] if not any(x.form == f.key for x in findings)]
    report = (
        f"{len(sample)} forms swept ({result['instances']} instances, {result['blocks']} blocks); "
        + "; ".join(f"{c}: {len(v)} register-dependent" for c, v in dependent.items())
        + f"; {len(uncovered)} not covered by a rule"
    )
    print(report)
    record_property("oracle", report)
    assert not uncovered, uncovered[:5]
    assert not stale, f"forms in the rule table that no longer depend on the register: {stale}"


def _constrained(program) -> bool:
    """True when a rule constrains the block beyond what invar pins anyway
    (a push's %rsp, a mul's %rax and %rdx are implicit operands)."""
    by_line: dict[int, list] = {}
    for t in program.tokens:
        by_line.setdefault(t.line, []).append(t)
    return any(
        not special <= program.pinned for tokens in by_line.values() for _, special in timing_constraints(tokens)
    )


@pytest.fixture(scope="module")
def constrained(blocks) -> tuple[list, int]:
    """A seeded sample of the BHive blocks a rule constrains; how many blocks hold a ruled form
    (once for the module: finding them disassembles every block of the module's sample).

    Only blocks with a line that a rule constrains on its own are decoded whole: a block's pins
    include each line's own, so a rule that a line's implicit operands satisfy alone constrains
    no block holding it; only a line whose mnemonic names a rule (with or without its size suffix)
    can be constrained at all, and each distinct line is read once."""
    from invar.frontends.x86.hexblock import decode

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    named = {m for m, _ in RULES} | {m[:-1] for m, _ in RULES}
    ruled: dict[tuple[str, str], bool] = {}
    alone: dict[str, bool] = {}

    def is_ruled(mnemonic: str, op_str: str) -> bool:
        if (mnemonic, op_str) not in ruled:
            f = S.form_of(mnemonic, op_str)
            ruled[mnemonic, op_str] = f is not None and (f.mnemonic, f.kinds) in RULES
        return ruled[mnemonic, op_str]

    def constrained_alone(mnemonic: str, op_str: str) -> bool:
        text = f"{mnemonic} {op_str}".strip()  # as invar's decoding writes it
        if text not in alone:
            try:
                alone[text] = mnemonic.lower() in named and _constrained(parse(text))
            except ParseError:
                alone[text] = True  # the block's decoding judges it
        return alone[text]

    holding, candidates = [], set()
    for h in blocks:
        lines = list(md.disasm_lite(bytes.fromhex(h), 0))
        if any(is_ruled(mnemonic, op_str) for _, _, mnemonic, op_str in lines):
            holding.append(h)
            if any(constrained_alone(mnemonic, op_str) for _, _, mnemonic, op_str in lines):
                candidates.add(h)
    random.Random(SEED).shuffle(holding)
    chosen = []
    for h in holding:
        if h not in candidates:
            continue
        program = decode(h)
        if _constrained(program):
            chosen.append(program)
            if len(chosen) == N_BLOCKS:
                break
    assert len(chosen) == N_BLOCKS, f"only {len(chosen)} BHive blocks are constrained by a rule"
    return chosen, len(holding)


def _renamed_mismatches(programs: list) -> tuple[list, int]:
    """Renamings of the blocks whose cycles differ from the original's, on
    any CPU model; how many renamings move a register."""
    rng = random.Random(SEED)
    texts, origin = [], []
    moved = 0
    for program in programs:
        space = renaming_space(program)
        first = len(texts)
        texts.append(program.render())
        origin.append(first)
        for r in space.sample(N_RENAMINGS, rng):
            moved += not r.is_identity
            texts.append(space.apply(program, r).render())
            origin.append(first)
    assert not S.rejected(texts), "a renamed block does not assemble"
    mismatches = []
    for cpu in S.CPUS:
        cycles = S.cycles(texts, cpu)
        mismatches += [
            (cpu, cycles[origin[k]], cycles[k], texts[origin[k]], texts[k])
            for k in range(len(texts))
            if cycles[k] != cycles[origin[k]]
        ]
    return mismatches, moved


def test_renamings_of_blocks_with_ruled_forms_keep_cycles(constrained, record_property):
    """BHive blocks that a rule constrains (beyond invar's implicit
    operands), renamed: cycles unchanged on every CPU model, and the renamings
    really move registers."""
    chosen, holding = constrained
    mismatches, moved = _renamed_mismatches(chosen)
    report = (
        f"{N_BLOCKS} BHive blocks a rule constrains (of {holding} with a ruled form) x {N_RENAMINGS} "
        f"renamings x {len(S.CPUS)} CPUs; {moved} renamings move registers; {len(mismatches)} mismatches"
    )
    print(report)
    record_property("oracle", report)
    assert moved > 0.8 * N_BLOCKS * N_RENAMINGS
    assert not mismatches, mismatches[:3]


def test_sensitivity_rules_not_applied(constrained, monkeypatch, record_property):
    """The same blocks and renamings with the rules left out: llvm-mca's
    cycles change, so the test above can fail."""
    import invar.frontends.x86.rename as rename

    chosen, _ = constrained
    monkeypatch.setattr(rename, "timing_constraints", lambda tokens: [])
    mismatches, _ = _renamed_mismatches(chosen)
    report = f"rules not applied: {len(mismatches)} renamings of {N_BLOCKS} constrained BHive blocks change cycles"
    print(report)
    record_property("oracle", report)
    assert mismatches


def test_invar_reads_the_forms_the_sweep_measures(blocks):
    """invar's form of a line (what the rules are looked up by) is the sweep's
    form of the same instruction, slots included."""
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    rng = random.Random(SEED)
    seen, checked, differ = set(), 0, []
    for h in rng.sample(blocks, 3000):
        for _, _, mnemonic, op_str in md.disasm_lite(bytes.fromhex(h), 0):
            text = f"{mnemonic} {op_str}".strip()
            if text in seen:
                continue
            seen.add(text)
            ours = S.form_of(mnemonic, op_str)
            program = parse(text)
            tokens = [t for t in program.tokens if t.line == 0]
            theirs = invar_form(tokens)
            checked += 1
            got = (theirs[0], theirs[1], sorted(theirs[2]))
            want = (ours.mnemonic, ours.kinds, sorted((s.operand, s.role) for s in ours.slots))
            if got != want:
                differ.append((text, got, want))
    assert checked > 2000
    assert not differ, differ[:5]


@pytest.mark.parametrize(
    "mnemonic, op_str, cpu, special",
    [
        ("adcq", "$0, %rdx", "haswell", {"gpr:a"}),
        ("adcl", "$0, %r12d", "skylake", {"gpr:a"}),
        ("sbbl", "$-1, %ebp", "haswell", {"gpr:a"}),
        ("sbbq", "$3, %r12", "skylake-avx512", {"gpr:a"}),
        ("xchgq", "%r15, %r15", "ivybridge", {"gpr:a"}),
        ("mulq", "%rcx", "haswell", {"gpr:a", "gpr:d"}),
        # the same mnemonics where no register is special
        ("adcq", "$0, %rdx", "ivybridge", set()),
        ("adcq", "%r8, %rdx", "haswell", set()),
        ("addq", "$0, %rax", "haswell", set()),
        ("xchgl", "%eax, %ecx", "haswell", set()),
    ],
)
def test_sweep_finds_the_special_registers(mnemonic, op_str, cpu, special):
    """The sweep, on single forms: the registers it finds special, over every
    slot group and pattern of the form."""
    found = S.sweep([S.form_of(mnemonic, op_str)], [cpu])["findings"]
    assert set().union(*(set(f.special) for f in found)) == special


def test_sweep_tells_tied_slots_apart():
    """``xchgq %rax, %rax`` is a nop; ``xchgq %rax, %rcx`` is timed like
    ``xchgq %rdx, %rcx``: only the group of both slots tied is special."""
    found = S.sweep([S.form_of("xchgq", "%rax, %rcx")], ["haswell"])["findings"]
    assert {(f.group, f.special) for f in found} == {((0, 1), ("gpr:a",))}
