"""Oracle on compiler listings: gcc's ``-S`` output, read as basic blocks,
agrees with what GNU as places for it, decoded by capstone
(tests/oracles/x86_listing_oracle.py): no instruction lost, no bytes the
processor runs left out of a block, no block running on past a control
transfer or across a label. Over generated C that hunts what a listing can
hold, and over fixtures/x86/gcc/'s sources at four settings; each planted
fault in the reader is caught. Beside gcc: g++'s exception tables, clang's
code generator (``llc``: clang's ``.Ltmp`` labels, quoted names), and
``-m32`` listings (refused, as i386 code) against ``-mx32`` ones (read: 64-bit
code)."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from collections import Counter

import pytest

from invar.errors import ParseError
from invar.frontends.x86 import listing, parse_units
from tests.conftest import FIXTURES
from tests.oracles.x86_listing_oracle import (
    CONSTRUCTS,
    CXX,
    LLVM_IR,
    assembled,
    c_program,
    compile_listing,
    elf_from_coff,
    llc_listing,
    placed,
    problems,
)

pytestmark = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("gcc", "as", "readelf")),
    reason="needs gcc and GNU binutils (.ci/run installs gcc)",
)

#: generated programs: three per construct
SEEDS = range(3 * len(CONSTRUCTS))
#: settings for fixtures/x86/gcc/'s sources
SETTINGS = [("-O0",), ("-O2", "-g"), ("-O3", "-march=haswell", "-fPIC"), ("-Os", "-fno-pie", "-ffunction-sections")]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[tuple[int, tuple[str, ...], str, dict]]:
    """(seed, flags, listing, (placed bytes, jump targets)) of every generated program."""
    work = tmp_path_factory.mktemp("listings")
    out = []
    for seed in SEEDS:
        source, flags = c_program(seed)
        path = compile_listing(source, flags, work, f"p{seed}")
        out.append((seed, flags, path.read_text(), assembled(path, work)))
    return out


def test_generated_listings_agree_with_gnu_as(generated, record_property):
    totals, found = Counter(), []
    for seed, flags, text, at in generated:
        said, counts = problems(text, *at)
        totals.update(counts)
        found += [f"seed {seed} {' '.join(flags)}: {p}" for p in said]
    assert not found, "\n".join(found[:10])
    # the hunt reaches what it hunts: blocks refused for the bytes inline assembly runs through
    assert totals["accepted"] < totals["blocks"]
    record_property("oracle", f"{len(generated)} generated listings: {dict(totals)}")


def test_refusals_are_the_bytes_that_run():
    """Only data placed where instructions run is refused in generated
    listings (and gcc's TLS padding, ``.value 0x6666``, which runs as
    prefixes), and code of another width or syntax, up to its end."""
    reasons = Counter()
    for seed in SEEDS:
        source, flags = c_program(seed)
        if "__asm__" not in source and "fPIC" not in " ".join(flags):
            continue
        reasons.update(e.message.split(" places")[0] for e in parse_units(_listing(seed), path="p.s").skipped)
    regions = {
        "16-bit code (.code16) up to .code64: invar reads x86-64",
        "32-bit code (.code32) up to .code64: invar reads x86-64",
        "Intel syntax up to .att_syntax: invar reads AT&T (gcc -S without -masm=intel)",
    }
    assert set(reasons) <= {"assembler directive '.byte'", "assembler directive '.value'", *regions}, reasons
    assert reasons["assembler directive '.byte'"] > 0 and set(reasons) & regions


def _listing(seed: int) -> str:
    import tempfile
    from pathlib import Path

    source, flags = c_program(seed)
    with tempfile.TemporaryDirectory() as work:
        return compile_listing(source, flags, Path(work), "p").read_text()


@pytest.mark.parametrize("flags", SETTINGS, ids=lambda f: " ".join(f))
def test_the_fixture_sources_listings_agree_with_gnu_as(tmp_path, flags):
    for source in sorted((FIXTURES / "x86" / "gcc").glob("*.c")):
        path = compile_listing(source.read_text(), flags, tmp_path, source.stem)
        text = path.read_text()
        said, counts = problems(text, *assembled(path, tmp_path))
        assert not said, (source.name, said[:5])
        assert counts["accepted"] > 0
        # what is refused: gcc's rep bsf (tests/oracles/test_x86_compiled.py, REFUSED), and the padding
        # of a thread-local's address sequence, .value 0x6666, which runs as prefixes of the call after it
        refused = {e.message.split(" repeats")[0] for e in parse_units(text, path=path.name).skipped}
        assert refused <= {"prefix 'rep'", "assembler directive '.value' places data where instructions run"}


# (what is planted, the oracle's word for what it finds)
PLANTED = [
    ("calls run on", "runs on"),
    ("system calls run on", "runs on"),
    ("code sections read as data", "dropped"),
    ("labels run on", "runs across a jump target"),
    ("every label starts a block", "starts where no jump lands"),
    ("labels pass over a region", "misnamed"),
]


@pytest.mark.parametrize("fault, word", PLANTED, ids=[p[0] for p in PLANTED])
def test_the_oracle_catches_a_planted_fault(generated, monkeypatch, fault, word):
    if fault == "calls run on":
        monkeypatch.setattr(listing, "_ENDS", frozenset(m for m in listing._ENDS if "call" not in m))
    elif fault == "system calls run on":
        monkeypatch.setattr(listing, "_ENDS", frozenset(m for m in listing._ENDS if not m.startswith(("sys", "int"))))
    elif fault == "every label starts a block":  # gcc -g's .LVL labels included

        def every_label(lines):
            return {
                s[: m.end() - 1]
                for line in lines
                for _, s in listing.split_statements(line)
                if (m := listing.LABEL.match(s))
            }

        monkeypatch.setattr(listing, "_landing_labels", every_label)
    elif fault == "labels pass over a region":  # the labels before a .code32 region name the block after it
        follow = listing._Reader._follow

        def passing(self, statements):
            held, self.labels = self.labels, []
            follow(self, statements)
            self.labels = held + self.labels

        monkeypatch.setattr(listing._Reader, "_follow", passing)
    elif fault == "code sections read as data":
        monkeypatch.setattr(listing._Sections, "in_code", property(lambda self: False))
    else:  # labels read as comments: the blocks run on across them
        real = listing.read_listing

        def unlabelled(text):
            return real(
                "\n".join("# " + line if listing.LABEL.fullmatch(line.strip()) else line for line in text.splitlines())
            )

        monkeypatch.setattr(listing, "read_listing", unlabelled)
        monkeypatch.setattr(importlib.import_module("invar.frontends.x86.parse"), "read_listing", unlabelled)
    said = [p for _, _, text, at in generated for p in problems(text, *at)[0]]
    assert any(p.startswith(word) for p in said), said[:5]


def test_i386_listings_are_refused_and_x32_ones_read(tmp_path):
    """gcc -m32's listing of each generated program is refused as i386 code,
    also without unwinding tables or PIC (only its stack, read through %esp,
    says so); gcc -mx32's (64-bit code, 32-bit pointers: its stack is %esp
    too) is read and agrees with GNU as. Programs that do not compile at a
    width (no C library headers for it here, x86-64 inline assembly) are
    left out, and so are those whose inline assembly ends a region of
    another width or syntax with x86-64 code (``.code64``) at -m32."""
    refused, read = Counter(), 0
    for seed in SEEDS:
        source, flags = c_program(seed)
        m32 = (("-m32", flags), ("-m32", ("-O2", "-fno-pie", "-fno-asynchronous-unwind-tables")))
        for width, more in () if "naked" in source else m32:
            try:
                text = compile_listing(source, (width, *more), tmp_path, f"p{seed}").read_text()
            except subprocess.CalledProcessError:
                continue
            with pytest.raises(ParseError, match=re.escape("a 32-bit listing (i386, -m32): ")) as info:
                parse_units(text, path="p.s")
            refused[info.value.message.split("; invar")[0].split(" ")[-1]] += 1
        try:
            path = compile_listing(source, ("-mx32", *flags), tmp_path, f"p{seed}")
            at = assembled(path, tmp_path)
        except subprocess.CalledProcessError:
            continue
        said, counts = problems(path.read_text(), *at)
        assert not said, (seed, said[:5])
        read += counts["accepted"] > 0
    assert sum(refused.values()) >= 2 * len(CONSTRUCTS) and read >= len(CONSTRUCTS) // 2, (refused, read)
    assert refused["code"] and refused["register"], refused  # both kinds of evidence: an instruction, the stack


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("flags", SETTINGS, ids=lambda f: " ".join(f))
def test_gxx_exception_tables_agree_with_gnu_as(tmp_path, flags):
    """g++'s call sites (``.LEHB``, ``.LEHE``) split no block, its landing pads start one."""
    path = compile_listing(CXX, flags, tmp_path, "eh", cc="g++")
    said, counts = problems(path.read_text(), *assembled(path, tmp_path))
    assert not said and counts["accepted"] > 0, said[:5]
    assert ".LEHB0" in path.read_text()


needs_llc = pytest.mark.skipif(shutil.which("llc") is None, reason="needs llc (LLVM's; .ci/run installs llvm)")
#: llc's settings: clang's -O0 and -O2, position-independent code, a section per function
LLC = [("-O0",), ("-O2",), ("-O2", "-relocation-model=pic"), ("-O1", "-relocation-model=pic", "-function-sections")]


@needs_llc
@pytest.mark.parametrize("args", LLC, ids=lambda a: " ".join(a))
def test_clang_code_generators_listings_agree_with_gnu_as(tmp_path, args):
    """llc (clang's code generator) marks call sites with .Ltmp labels
    mid-block, names landing pads and computed gotos' targets .Ltmp too, and
    quotes a name no symbol spells: the blocks agree with GNU as; only the
    call of the quoted name is refused (the instruction reader takes no
    quoted symbol), at its quote."""
    path = llc_listing(LLVM_IR, ("-mtriple=x86_64-linux-gnu", *args), tmp_path, "ir")
    text = path.read_text()
    said, counts = problems(text, *assembled(path, tmp_path))
    assert not said, said[:5]
    units = parse_units(text, path="ir.s")
    assert [e.message for e in units.skipped] == [
        "quoted symbol \"weird name\" in branch target '\"weird name\"@PLT': invar reads no quoted symbol "
        "(clang quotes a name no plain symbol spells)"
    ]
    assert "weird name" in units.aliases and counts["accepted"] == counts["blocks"] - 1


@needs_llc
@pytest.mark.parametrize("triple", ["x86_64-pc-windows-gnu", "x86_64-pc-windows-msvc"])
def test_clang_code_generators_coff_jump_table_after_a_return_is_data(tmp_path, triple):
    """llc's COFF listing puts a switch's jump table in .text after the
    return (``.LJTI4_0:``, its address taken by ``leaq``, its entries
    ``.long .LBB4_2-.LJTI4_0``): data nothing runs into, left out, and its
    entries' labels start blocks. GNU as here writes ELF: the listing is
    read and assembled with COFF's own directives blanked, line for line."""
    coff = llc_listing(LLVM_IR, (f"-mtriple={triple}", "-O2"), tmp_path, "coff").read_text()
    assert re.search(r"retq\n(?:\s*\.p2align.*\n)?\.LJTI\d+_0:\n\s*\.long\s+\.LBB\d+_\d+-\.LJTI", coff)
    path = tmp_path / "elf.s"
    path.write_text(elf_from_coff(coff))
    said, counts = problems(path.read_text(), *assembled(path, tmp_path))
    assert not said, said[:5]
    units = parse_units(path.read_text(), path="elf.s")
    assert [e.message.split(" in ")[0] for e in units.skipped] == ['quoted symbol "weird name"']
    assert counts["accepted"] == counts["blocks"] - 1 and units.aliases["sw"]


@needs_llc
def test_the_oracle_catches_call_site_bounds_read_as_jump_targets(tmp_path, monkeypatch):
    """Planted: an exception table read as any data, its call sites' bounds
    (clang's .Ltmp mid-block) as jump targets: the blocks split where no jump lands."""
    path = llc_listing(LLVM_IR, ("-mtriple=x86_64-linux-gnu", "-O2"), tmp_path, "ir")
    monkeypatch.setattr(listing, "_EXCEPT_TABLE", re.compile("(?!)"))
    said = problems(path.read_text(), *assembled(path, tmp_path))[0]
    assert any(p.startswith("starts where no jump lands") for p in said), said[:5]


@needs_llc
def test_clang_code_generators_i386_listing_is_refused_and_its_x32_one_read(tmp_path):
    for triple, args in (("i386-linux-gnu", ("-O2",)), ("i386-linux-gnu", ("-O0", "-relocation-model=pic"))):
        text = llc_listing(LLVM_IR, (f"-mtriple={triple}", *args), tmp_path, "ir32").read_text()
        with pytest.raises(ParseError, match=re.escape("a 32-bit listing (i386, -m32): ")):
            parse_units(text, path="ir32.s")
    path = llc_listing(LLVM_IR, ("-mtriple=x86_64-linux-gnux32", "-O2"), tmp_path, "irx32")
    said, counts = problems(path.read_text(), *assembled(path, tmp_path))
    assert not said and counts["accepted"] > 0, said[:5]


#: character constants as an instruction's immediate: GNU as's forms (``'a`` unclosed, its escapes)
CHARACTERS = ["'a", "'a'", "'#'", "';'", "','", "'('", "' '", "'\"'", "'''", r"'\''", r"'\\'", r"'\"'"]
CHARACTERS += [r"'\n'", r"'\t'", r"'\b'", r"'\f'", r"'\r'", r"'\e'", r"'\0'", "'a'+1", "-'a'", "'#'-'!'"]


def test_character_constants_read_as_gnu_as_reads_them(tmp_path):
    """Each immediate ``$'c'`` reads as the value GNU as encodes for it
    (``movl $imm32, %eax``: b8 and four bytes), and a listing whose
    instructions hold ``'#'`` and ``';'`` agrees with GNU as."""
    from invar.frontends.x86.expressions import read_expression
    from invar.frontends.x86.parse import parse

    path = tmp_path / "c.s"
    path.write_text("".join(f"\tmovl ${c}, %eax\n" for c in CHARACTERS))
    at = placed(path, tmp_path)
    for n, c in enumerate(CHARACTERS, start=1):
        encoded = int.from_bytes(at[n][1][1:5], "little", signed=True)
        assert at[n][1][0] == 0xB8 and read_expression(c, "immediate").value == encoded, (c, at[n][1].hex())
        assert parse(f"movl ${c}, %eax").lines[0].text == f"movl ${read_expression(c).text}, %eax"
    path = tmp_path / "l.s"
    path.write_text("f:\n\tcmpb $';', %dil; jne .L3\n\tmovb $'#', %al # '#'\n.L3:\n\tret\n")
    said, counts = problems(path.read_text(), *assembled(path, tmp_path))
    assert not said and counts == {"blocks": 3, "accepted": 3, "instructions": 4}, said
