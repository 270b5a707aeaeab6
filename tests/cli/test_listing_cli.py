"""``invar renamings`` and ``invar permutations`` on a terminal (issue 35,
item 14): without --count, --limit, --sample or --all, the first few
variants and a note with the count, not all of them (the design card's
4-line block has 524,160 renamings); piped, every one, as before; --all
prints every one on a terminal too. And a compiler's listing through a
command: an i386 one is one located error; a quoted label names its block."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

import pytest

from invar.cli.listing import FIRST_FEW
from tests.conftest import ROOT

MUL = "mulq %rbx\n"  # 14 renamings: more than the first few, few enough to print whole
#: five independent moves: 5! = 120 orders
MOVES = "".join(f"movq ${k}, %r{8 + k}\n" for k in range(5))


def _on_a_terminal(*args: str, timeout: float = 120) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of ``python -m invar ARGS`` whose
    standard output is a terminal (a pseudo-terminal) and standard error a pipe."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "invar", *args],
        stdout=slave,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            pytest.fail(f"invar {' '.join(args)} gave no output for {timeout} s")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed: the process is done
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return out.decode().replace("\r\n", "\n"), err, proc.wait(timeout)


@pytest.fixture
def blocks(tmp_path):
    (tmp_path / "mul.s").write_text(MUL)
    (tmp_path / "moves.s").write_text(MOVES)
    return tmp_path


@pytest.mark.parametrize(
    "command, file, total, header",
    [("renamings", "mul.s", 14, r"^# renaming \d+: "), ("permutations", "moves.s", 120, r"^# moves: order \d+: ")],
)
def test_a_terminal_gets_the_first_few_and_the_count(blocks, command, file, total, header):
    out, err, status = _on_a_terminal(command, str(blocks / file))
    assert status == 0, err
    shown = [line for line in out.splitlines() if re.match(header, line)]
    assert len(shown) == FIRST_FEW < total
    assert f"{total:,}" in err and f"the first {FIRST_FEW}" in err and "--all" in err
    every, err, status = _on_a_terminal(command, str(blocks / file), "--all")
    assert status == 0 and err == ""
    assert len([line for line in every.splitlines() if re.match(header, line)]) == total


@pytest.mark.parametrize(
    "command, file, total, header",
    [("renamings", "mul.s", 14, "# renaming "), ("permutations", "moves.s", 120, "# moves: order ")],
)
def test_a_pipe_gets_every_variant(invoke, blocks, command, file, total, header):
    result = invoke(command, blocks / file)
    assert result.exit_code == 0, result.output
    assert sum(line.startswith(header) for line in result.stdout.splitlines()) == total
    assert "--all" not in result.stderr


@pytest.mark.parametrize("command", ["renamings", "permutations"])
@pytest.mark.parametrize("other", [("--count",), ("--limit", "3"), ("--sample", "3")])
def test_all_with_another_amount_is_a_usage_error(invoke, blocks, command, other):
    result = invoke(command, blocks / "mul.s", "--all", *other)
    assert result.exit_code == 2 and "--all" in result.stderr


# ---------------------------------------------------------------- compiler listings (invar/frontends/x86/listing.py)
#: gcc 12 -m32 -O2 -fno-pie (real output, trimmed)
M32 = "\t.text\n\t.globl\tadd\n\t.type\tadd, @function\nadd:\n\tmovl\t8(%esp), %eax\n\taddl\t4(%esp), %eax\n\tret\n"
#: llc 14 (clang's code generator): a name no plain symbol spells, quoted
QUOTED = '\t.globl\t"weird name"\n"weird name":\n\tmovq\t%rdi, %rax\n\taddq\t$1, %rax\n\tretq\n'


@pytest.mark.parametrize("command", [("parse",), ("renamings", "--count")])
def test_an_i386_listing_is_one_located_error(invoke, tmp_path, command):
    path = tmp_path / "m32.s"
    path.write_text(M32)
    result = invoke(command[0], path, *command[1:])
    assert result.exit_code == 1 and result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == (
        f"{path}:5:2: error: a 32-bit listing (i386, -m32): 'movl 8(%esp), %eax' addresses the stack through a "
        "32-bit register; invar reads x86-64 (compile without -m32; .code64 marks x86-64)"
    )


def test_a_quoted_label_names_its_block(invoke, tmp_path):
    path = tmp_path / "q.s"
    path.write_text(QUOTED + "g:\n\tmovq\t%rsi, %rbx\n\tretq\n")
    result = invoke("canon", path, "--function", "weird name")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["movq %rax, %rcx", "addq $1, %rcx", "retq"]
