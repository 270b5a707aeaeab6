"""LTL batches lose nothing: every pair gets its answer or a located error,
large inputs never hit the recursion limit, time limits hold, and dataset
generation refuses impossible settings and locks its output."""

from __future__ import annotations

import fcntl
import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from invar.frontends.ltl.check import check
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.generate import read_dataset
from invar.frontends.ltl.trace import parse_trace
from tests.cli.conftest import messages, sigint_delivered
from tests.conftest import FIXTURES

#: (p0 R p1) U (p2 R p3) U … over 24 APs: about 2 * 3^12 product states,
#: each expansion quadratic in its moves; it never finishes in a second
PATHOLOGICAL = " U ".join(f"(p{k} R p{k + 1})" for k in range(0, 24, 2))

BATCH = """&aXb a;b;{1}
G(a
Ga {1}
Ga
a;{X b}
b;{1}
Fa
G(a -> F b)\t{a;b}
XXa a;&ab;{b}
"""


def test_every_pair_gets_its_answer_or_a_located_error(invoke, tmp_path) -> None:
    path = tmp_path / "batch.ltl"
    path.write_text(BATCH)
    result = invoke("ltl", "check", "--file", path)
    assert result.exit_code == 2  # malformed lines outrank the failing pairs
    assert result.stdout.splitlines() == [
        "line 1: holds",
        "line 2: not checked: unbalanced parenthesis: '(' is never closed",
        "line 3: fails",
        "  counterexample: !a;{!a}",
        "line 4: not checked: temporal operator 'X' in a trace step; steps are propositional",
        "line 6: not checked: trace without a formula: put the formula on the line before, or before the trace on "
        "this line",
        "line 7: not checked: formula without a trace: checking needs one (in text, after the formula or on the "
        'next line; in JSONL, a "trace" string)',
        "line 8: holds",
        "line 9: fails",
        "  counterexample: &a!b;&ab;&!ab;{&!ab}",
        "8 pairs: 2 hold, 2 fail, 4 not checked",
    ]
    assert messages(result.stderr) == [
        f"{path}:2:2: error: unbalanced parenthesis: '(' is never closed",
        f"{path}:5:4: error: temporal operator 'X' in a trace step; steps are propositional",
        f"{path}:6:1: error: trace without a formula: put the formula on the line before, or before the trace on this "
        f"line",
        f"{path}:7:1: error: formula without a trace: checking needs one (in text, after the formula or on the "
        'next line; in JSONL, a "trace" string)',
    ]
    records = [json.loads(line) for line in invoke("ltl", "check", "-f", path, "--format", "jsonl").stdout.splitlines()]
    assert [r["unit"] for r in records] == [f"line {n}" for n in (1, 2, 3, 4, 6, 7, 8, 9)]
    assert [r["holds"] for r in records] == [True, None, False, None, None, None, True, False]
    assert records[1]["error"] == f"{path}:2:2: error: unbalanced parenthesis: '(' is never closed"
    assert records[0]["error"] is None


def test_pairs_over_the_state_limit_are_located(invoke, tmp_path) -> None:
    path = tmp_path / "limits.ltl"
    path.write_text("Ga {a}\n\n  G(a -> F b) & G(b -> F c) & G(c -> F a)\t{1}\nFa {a}\n")
    result = invoke("ltl", "check", "-f", path, "--max-states", "3")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "line 1: holds" and result.stdout.splitlines()[2] == "line 4: holds"
    (err,) = messages(result.stderr)
    assert err.startswith(f"{path}:3:3: error: over the state limit")
    assert "line 3: not checked: over the state limit" in result.stdout


def test_jsonl_batch(invoke, tmp_path) -> None:
    path = tmp_path / "pairs.jsonl"
    lines = [
        {"formula": "Ga", "trace": "{a}"},
        {"formula": "G(a", "trace": "{a}"},
        {"formula": PATHOLOGICAL, "trace": "{1}"},
        {"formula": "Fa", "trace": "{!a}"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\nnot json\n")
    result = invoke("ltl", "check", "-f", path, "--max-states", "1000", "--format", "jsonl")
    assert result.exit_code == 2
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["unit"], r["holds"]) for r in records] == [
        ("line 1", True),
        ("line 2", None),
        ("line 3", None),
        ("line 4", False),
        ("line 5", None),
    ]
    errors = messages(result.stderr)
    assert errors[0].startswith(f"{path}:2:1: error: formula: unbalanced parenthesis")
    assert errors[1].startswith(f"{path}:3:1: error: over the state limit")
    assert errors[2].startswith(f"{path}:5:1: error: expected a JSON object")


def test_timeout_stops_a_pathological_pair_in_time(invoke, tmp_path) -> None:
    path = tmp_path / "slow.ltl"
    path.write_text(f"Ga {{a}}\n{PATHOLOGICAL}\t{{1}}\nFa {{!a}}\n")
    start = time.perf_counter()
    result = invoke("ltl", "check", "-f", path, "--timeout", "1")
    elapsed = time.perf_counter() - start
    assert 1 <= elapsed < 30, elapsed  # the pathological pair alone takes minutes (room for a busy machine)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "line 1: holds",
        "line 2: not checked: over the time limit: trace check ran past 1 s",
        "line 3: fails",
        "  counterexample: {!a}",
        "3 pairs: 1 hold, 1 fail, 1 not checked",
    ]
    assert messages(result.stderr) == [f"{path}:2:1: error: over the time limit: trace check ran past 1 s"]
    single = invoke("ltl", "check", PATHOLOGICAL, "{1}", "--timeout", "0.2")
    assert single.exit_code == 1
    assert single.stderr.startswith("<formula>:1:1: error: over the time limit")


def test_bad_lines_are_skipped_by_the_generic_commands(invoke, tmp_path) -> None:
    path = tmp_path / "mixed.ltl"
    path.write_text("&aXb a;b;{1}\nG(a\nU!ab\nb;{1}\n")
    for command in (["parse", "--format", "json"], ["renamings", "--count"], ["canon"]):
        result = invoke(command[0], path, *command[1:])
        assert result.exit_code == 1, command
        assert result.stdout.strip(), command  # the good units were processed
        assert messages(result.stderr) == [
            f"{path}:2:2: error: unbalanced parenthesis: '(' is never closed",
            f"{path}: 1 skipped: 1 malformed formula",
        ]
    counts = invoke("renamings", path, "--count").stdout.splitlines()
    assert counts == ["line 1: 2", "line 3: 2"]
    bad = tmp_path / "bad.ltl"
    bad.write_text("G(a\n")
    result = invoke("renamings", bad, "--count")
    assert result.exit_code == 1 and result.stderr.startswith(f"{bad}:1:2: error:")


def test_a_thousand_aps_count_and_sample(invoke, tmp_path) -> None:
    names = [f"p{k}" for k in range(1000)]
    path = tmp_path / "wide.ltl"
    path.write_text(" & ".join(names) + "\t" + ";".join(names[:3]) + ";{" + " & ".join(names) + "}\n")
    count = invoke("renamings", path, "--count")
    assert count.exit_code == 0 and int(count.stdout) == math.factorial(1000)
    pooled = invoke("renamings", path, "--count", "--aps", "p0..p1001")
    assert pooled.exit_code == 0 and int(pooled.stdout) == math.factorial(1002) // 2
    sample = invoke("renamings", path, "--sample", "3", "--seed", "1", "--format", "jsonl")
    assert sample.exit_code == 0
    texts = [json.loads(line)["text"] for line in sample.stdout.splitlines()]
    assert len(texts) == 3
    for text in texts:  # each variant renames formula and trace together
        formula, trace = text.split("\t")
        assert sorted(parse_formula(formula).aps()) == sorted(names)
        assert check(parse_formula(formula), parse_trace(trace)).holds is False
    assert invoke("canon", path).exit_code == 0
    assert invoke("ltl", "check", "-f", path).exit_code == 1  # it fails: p3 may be false at step 0
    deep = tmp_path / "deep.ltl"
    deep.write_text("X " * 1500 + "a\t" + "1;" * 1500 + "{a}\n")
    assert invoke("ltl", "check", "-f", deep).stdout.startswith("line 1: holds")
    assert invoke("renamings", deep, "--count", "--aps", "a,b,c").stdout.strip() == "3"


# ------------------------------------------------------------ invar data ltl
@pytest.mark.parametrize(
    "args, message",
    [
        (["--timeout", "0"], "--timeout must be more than 0 seconds, not 0"),
        (["--timeout", "-1"], "--timeout must be more than 0 seconds, not -1"),
        (["--ops", "&,U"], "binary operators alone (&, U) build only odd sizes, and 1..35 includes 2"),
        (["--ops", "&", "--min-size", "4", "--max-size", "4"], "includes 4"),
        (["--ops", "", "--max-size", "3"], "no operators (--ops) build a formula larger than one AP"),
        (["--ops", "!,Q"], "unknown operator(s) Q"),
        (["--min-size", "9", "--max-size", "3"], "--min-size: error: sizes must satisfy 1 <= min (9) <= max (3)"),
        (["--max-states", "0"], "--max-states"),
        (["--num", "-1"], "--num"),
        (["--aps", "27"], "--aps"),
        (["--aps", "0"], "--aps"),
    ],
)
def test_data_ltl_refuses_impossible_settings(invoke, tmp_path, args, message) -> None:
    out = tmp_path / "d.txt"
    result = invoke("data", "ltl", "--num", "2", "--out", out, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not out.exists()


def test_data_ltl_binary_operators_alone_build_odd_sizes(invoke) -> None:
    result = invoke(
        "data", "ltl", "--num", "3", "--ops", "&,U", "--min-size", "7", "--max-size", "7", "--jobs", "1", "--out", "-"
    )
    assert result.exit_code == 0
    for formula, trace in zip(*[iter(result.stdout.splitlines())] * 2):
        assert parse_formula(formula).size == 7 and check(parse_formula(formula), parse_trace(trace)).holds


def test_data_ltl_fails_when_records_are_given_up(invoke, tmp_path) -> None:
    out = tmp_path / "d.txt"
    result = invoke(
        "data",
        "ltl",
        "--num",
        "2",
        "--max-states",
        "1",
        "--min-size",
        "30",
        "--max-size",
        "30",
        "--jobs",
        "1",
        "--out",
        out,
    )
    assert result.exit_code == 1
    assert "wrote 0 formulas" in result.stdout
    assert result.stderr.strip().startswith(f"{out}: error: 2 of 2 records given up")


def test_data_ltl_output_is_locked(invoke, tmp_path) -> None:
    """A second run on the same --out refuses at once while the first
    writes; Ctrl-C stops the first (exit 130), which releases the lock, and
    the file resumes cleanly."""
    out = tmp_path / "d.txt"
    meta = tmp_path / "d.txt.meta.json"
    args = ["data", "ltl", "--max-size", "20", "--seed", "4", "--jobs", "1", "--out", str(out)]
    with open(tmp_path / "stderr", "wb") as err, sigint_delivered():
        first = subprocess.Popen(
            [sys.executable, "-m", "invar", *args, "--num", "1000000"], stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        deadline = time.monotonic() + 180  # a loaded machine can be slow to start Python
        while not meta.exists():  # written once the first run holds the lock
            assert first.poll() is None, (tmp_path / "stderr").read_text()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for extra in ([], ["--overwrite"]):
            start = time.perf_counter()
            second = invoke(*args, "--num", "40", *extra)
            assert time.perf_counter() - start < 60  # at once, not after the first run's million formulas
            assert second.exit_code == 1
            assert second.stderr.strip().startswith(f"{out}: error: is being written by another run")
        assert first.poll() is None  # the refusals touched nothing of the first run
    finally:
        first.send_signal(signal.SIGINT)
        try:
            first.wait(30)  # the command stops within 2 s; the bound allows for a loaded machine
        except subprocess.TimeoutExpired:
            first.kill()
            first.wait()
    assert first.returncode == 130, (tmp_path / "stderr").read_text()
    assert (tmp_path / "stderr").read_text().strip() == "interrupted"
    assert not list(tmp_path.glob("*.tmp"))
    held = json.loads(meta.read_text())["next"]  # records up to the last checkpoint
    resumed = invoke(*args, "--num", str(held + 40))
    assert resumed.exit_code == 0, resumed.stderr
    pairs = list(read_dataset(out.read_text()))
    after = json.loads(meta.read_text())
    assert after["next"] == held + 40 and len(pairs) == after["stats"]["written"] >= 40  # dropped ones counted apart
    for formula, trace in pairs:
        assert check(parse_formula(formula), parse_trace(trace)).holds


def test_a_held_lock_refuses_generate_file(tmp_path) -> None:
    from invar.errors import DataError
    from invar.frontends.ltl.generate import GeneratorConfig, generate_file

    out = tmp_path / "d.txt"
    out.write_bytes(b"held")
    with open(out, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(DataError) as info:
            generate_file(GeneratorConfig(num=3, max_size=5), out, jobs=1, overwrite=True)
        assert "another run" in info.value.message
    assert out.read_bytes() == b"held"  # not truncated
    generate_file(GeneratorConfig(num=3, max_size=5), out, jobs=2, overwrite=True)
    assert len(list(read_dataset(out.read_text()))) == 3
    assert os.path.exists(f"{out}.meta.json")


def test_a_formula_whose_space_cannot_be_built_is_its_own_error_record(invoke):
    """Formulas over APs outside --aps fail one by one, each at its place;
    the others are counted, and the JSON is one whole document."""
    fj = FIXTURES / "ltl" / "fj.txt"
    result = invoke("renamings", fj, "--lang", "ltl", "--aps", "f,g,h,i", "--count", "--format", "json")
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    failed = [r for r in records if "error" in r]
    assert len(records) == len(fj.read_text().splitlines()) // 2 and len(failed) == 9
    assert all(r["error"].startswith("AP 'j' is not in the pool") for r in failed)
    assert [r["location"] for r in failed] == [
        line.split(": error: ")[0] for line in result.stderr.splitlines() if ": error: " in line
    ]
    assert all(isinstance(r["count"], int) for r in records if "error" not in r)


@pytest.mark.parametrize(
    "args",
    [
        ["renamings", FIXTURES / "python" / "arith.py", "--names", "a,for", "--count"],
        ["renamings", FIXTURES / "ltl" / "paper.ltl", "--aps", "a,B", "--count"],
    ],
)
def test_a_pool_that_cannot_name_a_variable_is_a_usage_error_at_its_option(invoke, args):
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 2 and json.loads(result.stdout) == []
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{args[2]}: error: ")


@pytest.mark.parametrize(
    "option, pool, message",
    [
        ("--names", "v9..v0", "the name range 'v9..v0' is empty; write its lower end first"),
        ("--names", ",,,", "the name pool ',,,' holds no name"),
        ("--names", "", "the name pool '' holds no name"),
        ("--names", "a,b,a", "the name pool repeats a name"),
        ("--names", "@{tmp}/pool.txt", "the name pool repeats a name"),  # a file's pool is checked alike
        ("--aps", "p3..p1", "the name range 'p3..p1' is empty; write its lower end first"),
    ],
)
def test_a_pool_that_cannot_be_read_is_a_usage_error_at_its_option(invoke, tmp_path, option, pool, message):
    """No pool is no renaming: an empty pool was read as one, and every count was 0."""
    file = FIXTURES / ("ltl/paper.ltl" if option == "--aps" else "python/arith.py")
    (tmp_path / "pool.txt").write_text("a\nb\na\n")
    result = invoke("renamings", file, option, pool.format(tmp=tmp_path), "--count")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"{option}: error: {message}"
