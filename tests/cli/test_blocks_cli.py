"""One reading of an assembly file everywhere (issue 35, item 3): blocks
separated by blank lines, or one block per line when its lines separate
instructions with ``;``. ``invar parse``, ``renamings``, ``permutations``,
``dlg``, ``canon`` and ``predict`` read the blocks the audit reads, each
named ``lineN`` after its first line (a comment above it included, as the
audit's example ids are); ``--function lineN`` chooses one, and
a bad block is reported at its line while the others are processed."""

from __future__ import annotations

import json

import pytest

from invar.audit.datasets import load
from tests.conftest import FIXTURES

RENAMER = FIXTURES / "models" / "renamer.pt"
THREE = "# three blocks\naddq %rax, %rbx\nimulq %rbx, %rcx\n\nmovq $7, %rdx\n\n\naddq %rdx, %rsi\nmovq %rsi, %rdi\n"
PER_LINE = "addq %rax, %rbx; imulq %rbx, %rcx\nmovq $7, %rdx\naddq %rdx, %rsi; subq %rsi, %rdi\n"


@pytest.fixture
def three(tmp_path):
    path = tmp_path / "three.s"
    path.write_text(THREE)
    return path


def _first_lines(path) -> list[int]:
    """The first line of every block the audit reads in ``path``."""
    return [ex.line for ex in load(str(path), lang="x86").examples]


@pytest.mark.parametrize("text, firsts", [(THREE, [1, 5, 8]), (PER_LINE, [1, 2, 3])])
def test_parse_reads_the_blocks_the_audit_reads(invoke, tmp_path, text, firsts):
    path = tmp_path / "blocks.s"
    path.write_text(text)
    assert _first_lines(path) == firsts
    units = json.loads(invoke("parse", path, "--format", "json").stdout)["units"]
    assert [u["name"] for u in units] == [f"line{n}" for n in firsts]
    assert [len(u["lines"]) for u in units] == [2, 1, 2]


@pytest.mark.parametrize("command", ["renamings", "permutations"])
def test_counts_are_per_block(invoke, three, command):
    result = invoke(command, three, "--count")
    assert result.exit_code == 0, result.output
    names = [line.split(":")[0] for line in result.stdout.splitlines()]
    assert names == ["line1", "line5", "line8"]


def test_renamings_of_one_block_match_that_block_alone(invoke, three, tmp_path):
    alone = tmp_path / "alone.s"
    alone.write_text("movq $7, %rdx\n")
    chosen = invoke("renamings", three, "--function", "line5", "--count")
    assert chosen.exit_code == 0, chosen.output
    assert chosen.stdout.strip() == invoke("renamings", alone, "--count").stdout.strip() == "16"


def test_dlg_and_canon_take_each_block(invoke, three):
    records = json.loads(invoke("dlg", three, "--format", "json").stdout)
    assert [(r["unit"], len(r["lines"])) for r in records] == [("line1", 2), ("line5", 1), ("line8", 2)]
    canon = invoke("canon", three, "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line)["unit"] for line in canon] == ["line1", "line5", "line8"]


def test_predict_gives_one_answer_per_block_at_the_audits_locations(invoke, three):
    result = invoke("predict", "--model", RENAMER, three, "--format", "jsonl")
    assert result.exit_code == 0, result.output
    lines = [int(json.loads(r)["location"].rsplit(":", 1)[1]) for r in result.stdout.splitlines()]
    assert lines == _first_lines(three) == [1, 5, 8]


def test_a_bad_block_is_reported_at_its_line_and_the_others_processed(invoke, tmp_path):
    path = tmp_path / "bad.s"
    path.write_text("addq %rax, %rbx\n\nfrobq %rax\n\nmovq (%rdi), %rsi\n")
    result = invoke("renamings", path, "--count")
    assert result.exit_code == 1
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["line1", "line5"]
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith(f"{path}:3:1: error: ")


def test_a_file_of_one_block_is_named_after_the_file(invoke, tmp_path):
    path = tmp_path / "one.s"
    path.write_text("# a comment paragraph\n\naddq %rax, %rbx\nimulq %rbx, %rcx\n")
    units = json.loads(invoke("parse", path, "--format", "json").stdout)["units"]
    assert [(u["name"], len(u["lines"])) for u in units] == [("one", 2)]


def test_no_such_block_is_a_usage_error_naming_the_blocks(invoke, three):
    result = invoke("renamings", three, "--function", "line3", "--count")
    assert result.exit_code == 2
    assert "line1, line5, line8" in result.stderr
