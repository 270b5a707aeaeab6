"""Oracle on compiled code: gcc's basic blocks parse, and their variants time
and run alike.

fixtures/x86/gcc-blocks.s holds every distinct basic block gcc 12 writes for
the C sources of fixtures/x86/gcc/ at -O1, -O2, -O3 and -Os, position-
independent and not, for x86-64, haswell and skylake-avx512
(tools/make_x86_corpus.py). They are full of what compilers write and BHive's
hex never shows: symbols with offsets (``8+g(%rip)``, ``world+8(%rax)``,
``buckets(,%rax,8)``), static locals (``calls.0(%rip)``), string and vector
constants (``.LC0(%rip)``), thread-locals (``%fs:x@tpoff``), calls through
the PLT. Every block must parse (apart from :data:`REFUSED`); sampled
renamings must keep llvm-mca's cycles; sampled permutations and renamings
must assemble and, for the baseline x86-64 blocks (unicorn runs no AVX),
end in the same state, with every symbol linked to a data page of its own
(tests/oracles/x86_oracle.py).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import re
import shutil
from collections import Counter

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import parse
from invar.symmetry.permutations import PermutationSpace
from tests.conftest import FIXTURES, ROOT
from tests.oracles.test_x86_mca import renamed_texts
from tests.oracles.test_x86_unicorn import PAGE, random_start, run
from tests.oracles.x86_oracle import LINKED_CODE, assemble_pieces, check_blocks, laid_out, symbol_table

CORPUS = FIXTURES / "x86" / "gcc-blocks.s"
SEED = 20250611
SAMPLE = 120
#: blocks timed by llvm-mca on each of haswell and skylake-avx512, renamed 3 times each
N_TIMED = 40
#: baseline blocks run with their dependencies dropped
N_SENSITIVITY = 40

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mc") is None or shutil.which("llvm-mca") is None,
    reason="needs llvm-mc and llvm-mca (.ci/run installs Debian's llvm)",
)

#: gcc output invar refuses on purpose: (what the message says, why)
REFUSED = {
    "not 'bsf": "gcc writes rep bsf for __builtin_ctz: tzcnt on CPUs with BMI1, bsf on older ones, which differ "
    "on a zero input; the text does not say which runs (docs/formats.md, prefixes)"
}


def corpus() -> list[tuple[str, str]]:
    """(origin: source, flags and function; block text) of every block."""
    out = []
    for paragraph in CORPUS.read_text().split("\n\n")[1:]:
        origin, _, text = paragraph.partition("\n")
        out.append((origin.lstrip("# "), text))
    return out


def runnable(origin: str) -> bool:
    """Blocks for the baseline x86-64: unicorn runs no AVX."""
    return "-march" not in origin


@pytest.fixture(scope="module")
def blocks() -> list[tuple[str, str]]:
    parsed = []
    for origin, text in corpus():
        try:
            parse(text)
        except ParseError:
            continue
        parsed.append((origin, text))
    return parsed


def _refusals(texts: list[str]) -> tuple[int, list[tuple[str, str]]]:
    """How many of ``texts`` parse, and the refusals :data:`REFUSED` does not list."""
    parsed, unlisted = 0, []
    for text in texts:
        try:
            parse(text)
            parsed += 1
        except ParseError as err:
            if not any(message in err.message for message in REFUSED):
                unlisted.append((text, f"{err.line}:{err.col}: {err.message}"))
    return parsed, unlisted


def test_every_compiled_block_parses(record_property):
    texts = [text for _, text in corpus()]
    parsed, unlisted = _refusals(texts)
    record_property(
        "oracle",
        f"{len(texts)} distinct gcc blocks, {parsed} parse, {len(texts) - parsed - len(unlisted)} refused as listed",
    )
    assert not unlisted, unlisted[:5]
    assert parsed > 0.99 * len(texts)


@pytest.mark.parametrize(
    "form, pattern, at_least",
    [
        ("constant+symbol, rip-relative", r"\b\d+\+[\w.]+\(%rip\)", 50),
        ("symbol+constant, rip-relative", r"[A-Za-z_.][\w.]*\+\d+\(%rip\)", 50),
        ("symbol+-constant with a base register", r"[A-Za-z_][\w.]*[-+]\d+\(%r[a-z0-9]+[,)]", 50),
        ("symbol with an index only", r"[A-Za-z_][\w.]*\(,%r\w+,\d\)", 10),
        ("a static local", r"\bcalls\.\d+\(%rip\)", 5),
        ("a constant of the pool", r"\.LC\d+\(%rip\)", 50),
        ("a thread-local", r"%fs:[\w.+]*@tpoff", 10),
        ("a symbol in an immediate", r"\$[A-Za-z_.][\w.]*", 10),
    ],
)
def test_the_corpus_holds_what_compilers_write(form, pattern, at_least):
    texts = [text for _, text in corpus()]
    assert sum(bool(re.search(pattern, t)) for t in texts) >= at_least, form


def test_the_corpus_spans_the_configurations():
    configurations = Counter(" ".join(re.findall(r"(?<!\S)-\S+", origin)) for origin, _ in corpus())
    assert len(configurations) == 20, configurations  # 4 levels x 5 targets


def test_symbolic_operands_live_on_a_data_page():
    """``t.0(%rip)`` reaches its symbol's data, not displacement 0 inside the
    block's own code; absolute and rip-relative forms of one symbol reach the
    same bytes."""
    lines = [
        "movq t.0(%rip), %rax",
        "movq $5, 8+t.0(%rip)",
        "movq t.0+8(,%rcx,1), %rbx",
        "leaq (t.0+16)(%rip), %rdx",
        "movl $g+4, %esi",
        "movq 8+g(%rip), %rdi",
    ]
    pieces, errors = assemble_pieces({"b": lines})
    assert not errors
    symbols = symbol_table(pieces["b"])
    assert list(symbols) == ["t.0", "g"] and all(address + 0x100 <= LINKED_CODE for address in symbols.values())
    code, at = laid_out(pieces["b"], symbols)
    assert at == LINKED_CODE
    start = random_start(random.Random(1))
    start.gprs[2] = 0  # %rcx: the absolute form t.0+8(,%rcx,1) addresses t.0+8 itself
    gprs, _, _, _, memory = run(code, start, at)
    t0, g = symbols["t.0"], symbols["g"]
    page = memory[t0 & ~(PAGE - 1)]
    word = lambda address: int.from_bytes(memory[address & ~(PAGE - 1)][address % PAGE :][:8], "little")
    assert gprs[0] == word(t0)  # %rax: loaded from the data page, not from the code after the line
    assert page[t0 % PAGE + 8 :][:8] == (5).to_bytes(8, "little") and gprs[1] == 5  # %rbx read the store back
    assert gprs[3] == t0 + 16 and gprs[4] == g + 4 and gprs[5] == word(g + 8)
    assert LINKED_CODE & ~(PAGE - 1) not in memory  # the code itself was not touched


def test_variants_of_compiled_blocks_run_alike(blocks, record_property):
    rng = random.Random(SEED)
    sample = rng.sample(blocks, SAMPLE)
    report = check_blocks([(text, runnable(origin)) for origin, text in sample], rng)
    record_property("oracle", f"gcc blocks: {report.line()}")
    print(report.line())
    for source, variant, why in report.failures[:5]:
        print(f"--- {why}\n{source}\n--- variant\n{variant}")
    assert not report.failures, report.failures[:3]
    baseline = sum(runnable(origin) for origin, _ in sample)
    symbolic = sum(runnable(origin) and "(%rip)" in text for origin, text in sample)
    # rip-relative operands: in 29 % of the corpus's baseline blocks, 28.6 % of this sample's
    assert report.runnable > 0.95 * baseline and symbolic > 0.25 * baseline
    assert report.renamings > 2 * SAMPLE and report.renaming_runs > 1.5 * baseline
    assert report.permutation_runs > 0.5 * baseline


def _final_branch_only(program):
    """The program with no dependency but its final branch's (it stays last)."""
    last = len(program.lines) - 1
    ends = bool(re.match(r"^(?:j|call|ret)", program.lines[last].text))
    return dataclasses.replace(program, deps=tuple((i, last) for i in range(last)) if ends else ())


def test_sensitivity_dependencies_dropped(blocks, record_property):
    """Without dependencies (a final branch kept last), reorderings of the
    same blocks end elsewhere: the emulation sees what the order of gcc's
    code is for, symbolic memory operands included."""
    drawn = random.Random(SEED + 1).sample(blocks, 400)
    sample = [(text, True) for origin, text in drawn if runnable(origin)][:N_SENSITIVITY]
    report = check_blocks(
        sample,
        random.Random(SEED + 2),
        renamings=0,
        raw_check=False,
        isolate=True,
        permutation_space=lambda p: PermutationSpace(_final_branch_only(p)),
    )
    record_property("oracle", f"gcc blocks, dependencies dropped: {report.line()}")
    differ = [why for _, _, why in report.failures if "cannot run" not in why]
    symbols = [why for why in differ if "memory page 0x1000" in why]  # the first symbol's data
    assert len(differ) > 0.2 * report.permutation_runs and symbols


def test_renamings_of_compiled_blocks_keep_llvm_mca_cycles(blocks, record_property):
    from invar.data.bhive import label_texts

    rng = random.Random(SEED + 3)
    moved, mismatches, timed, total = 0, [], 0, 0
    for cpu, wanted in (("haswell", lambda o: "skylake-avx512" not in o), ("skylake-avx512", lambda o: True)):
        chosen = rng.sample([text for origin, text in blocks if wanted(origin)], N_TIMED)
        texts, origin, moving = renamed_texts(rng, chosen, 3)
        moved += moving
        cycles = [c for c, _ in label_texts(texts, cpu, 100)]
        timed += sum(c is not None for c in cycles)
        total += len(texts)
        mismatches += [
            (cpu, cycles[origin[k]], cycles[k], texts[origin[k]], texts[k])
            for k in range(len(texts))
            if cycles[k] != cycles[origin[k]]
        ]
    record_property(
        "oracle",
        f"gcc blocks: {2 * N_TIMED} x 3 renamings on haswell and skylake-avx512; {timed} of {total} "
        f"timed; {moved} renamings move registers; {len(mismatches)} mismatches",
    )
    assert timed == total
    assert moved > 0.8 * 2 * N_TIMED * 3
    assert not mismatches, mismatches[:3]


def _make_corpus():
    spec = importlib.util.spec_from_file_location("make_x86_corpus", ROOT / "tools" / "make_x86_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("flags", [("-O2", "-fno-pie"), ("-O3", "-fpie", "-march=haswell")])
def test_the_installed_gcc_writes_blocks_invar_reads(flags):
    """Whatever gcc is installed (the committed corpus is gcc 12's)."""
    tool = _make_corpus()
    texts = [
        "\n".join(lines)
        for source in sorted(tool.SOURCES.glob("*.c"))
        for _, lines in tool.compile_blocks(source, flags)
    ]
    parsed, unlisted = _refusals(texts)
    assert not unlisted, unlisted[:5]
    assert parsed > 50
