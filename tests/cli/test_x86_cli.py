"""The x86 subcommands end to end, and every error path of the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.conftest import messages
from tests.conftest import FIXTURES

FIG = FIXTURES / "x86"


def test_renamings_count_and_pin(invoke):
    assert invoke("renamings", FIG / "figure1a.s", "--count").stdout.strip() == "3360"
    assert invoke("renamings", FIG / "figure1a.s", "--count", "--pin", "rsp").stdout.strip() == "210"
    assert invoke("renamings", FIG / "figure1a.s", "--count", "--pin", "%esp").stdout.strip() == "210"


def test_renamings_enumerate_limit_and_jsonl(invoke):
    out = invoke("renamings", FIG / "figure1a.s", "--limit", "4", "--format", "jsonl").stdout
    rows = [json.loads(l) for l in out.splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2, 3]
    assert all(r["schema"] == 1 for r in rows)
    assert rows[0]["mapping"] == {"%rsp": "%rax", "%rax": "%rcx", "%rbp": "%rdx"}
    assert rows[0]["text"].splitlines()[0] == "mov 64(%rax), %rcx"


def test_renamings_sample_is_reproducible(invoke):
    a = invoke("renamings", FIG / "figure1a.s", "--sample", "5", "--seed", "3").stdout
    b = invoke("renamings", FIG / "figure1a.s", "--sample", "5", "--seed", "3").stdout
    c = invoke("renamings", FIG / "figure1a.s", "--sample", "5", "--seed", "4").stdout
    assert a == b != c
    assert a.count("# renaming") == 5


def test_canon_identifies_renamings(invoke):
    a, b, c = (invoke("canon", FIG / f"figure1{x}.s").stdout for x in "abc")
    assert a == b != c


def test_parse_table_and_json(invoke):
    table = invoke("parse", FIG / "figure1a.s").stdout
    assert "gpr:sp" in table and "gpr:64" in table
    data = json.loads(invoke("parse", FIG / "figure1a.s", "--format", "json").stdout)
    unit = data["units"][0]
    assert data["schema"] == 1 and unit["lang"] == "x86"
    assert [t["referent"] for t in unit["tokens"] if t["kind"] == "register"] == [
        "gpr:sp",
        "gpr:a",
        "gpr:bp",
        "gpr:a",
        "gpr:a",
    ]
    assert unit["lines"][0]["writes"] == ["gpr:a"]


def test_stdin_and_hex(invoke, tmp_path):
    out = invoke("renamings", "-", "--lang", "x86", "--count", input="mulq %rbx\n").stdout
    assert out.strip() == "14"
    hexfile = tmp_path / "two.hex"
    hexfile.write_text("4883c2014883fa40,0.5\n\n4889d8\n")
    out = invoke("renamings", hexfile, "--count").stdout
    assert out.splitlines() == ["line1: 16", "line3: 240"]


@pytest.mark.parametrize(
    "content, where, message",
    [
        (b"movq %rax, %rbx\nbogus %rax\n", "2:1", "unknown instruction 'bogus'"),
        (b"movq %rax, %rzz\n", "1:12", "unknown register '%rzz'"),
        (b"movq 8(%rax, %rax\n", "1:7", "unbalanced '('"),
        (b"nop\nmov\xff %rax\n", "2:4", "not UTF-8"),
        (b"nop\n\x00\x01\x02", "2:1", "binary input"),
        (b"", "1:1", "empty input"),
        (b"   \n\n", "1:1", "empty input"),
        (b"# only a comment\n", "1:1", "no instructions"),
    ],
)
def test_bad_input_is_located(invoke, tmp_path, content, where, message):
    path = tmp_path / "bad.s"
    path.write_bytes(content)
    for command in (["parse"], ["renamings", "--count"], ["canon"]):
        result = invoke(command[0], path, *command[1:])
        assert result.exit_code == 1
        assert result.stdout == ""
        (line,) = messages(result.stderr)
        assert line.startswith(f"{path}:{where}: error: ") and message in line


@pytest.mark.parametrize(
    "content, where, message",
    [
        ("4883c201zz\n", "1:9", "not a hex string: 'z' is not a hex digit"),
        ("4883c2014883fa40\n0f\n", "2:1", "cannot decode the bytes at offset 0"),
    ],
)
def test_bad_hex_is_located(invoke, tmp_path, content, where, message):
    path = tmp_path / "bad.hex"
    path.write_text(content)
    result = invoke("renamings", path, "--count")
    assert result.exit_code == 1
    assert result.stderr.strip().startswith(f"{path}:{where}: error: ") and message in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [(["renamings", "nope.s", "--count"], "no such file"), (["renamings", FIG, "--count"], "is a directory")],
)
def test_unreadable_files(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code == 1 and message in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["renamings", "-", "--count"], "pass --lang"),
        (["renamings", str(FIG / "figure1a.s"), "--lang", "cobol"], "unknown language"),
        (["renamings", str(FIG.parents[1] / "pyproject.toml")], "cannot tell the language"),
        (["renamings", str(FIG / "figure1a.s"), "--count", "--limit", "3"], "choose one of"),
        (["renamings", str(FIG / "figure1a.s"), "--pin", "rzz", "--count"], "unknown register"),
        (["renamings", str(FIG / "figure1a.s"), "--limit", "-1"], "--limit: error: "),
        (["renamings", str(FIG / "figure1a.s"), "--frobnicate"], "No such option"),
        (["renamings"], "Missing argument"),
    ],
)
def test_usage_errors_exit_2(invoke, args, message):
    result = invoke(*args, input="nop\n")
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_console_script_prints_no_traceback(tmp_path):
    """The installed entry point, as a user runs it."""
    bad = tmp_path / "bad.s"
    bad.write_text("movq %rax,\n")
    run = subprocess.run(
        [sys.executable, "-c", "from invar.cli.app import main; main()", "renamings", str(bad), "--count"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    # the located line, then the source line and a caret under the column
    assert run.stderr.splitlines() == [f"{bad}:1:11: error: empty operand", "  movq %rax,", "            ^"]
    assert "Traceback" not in run.stderr
