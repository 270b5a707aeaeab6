"""``invar audit`` and ``invar audit merge`` from the command line: the JSON
schema, --fail-over exit statuses, shards merged and torchrun processes
giving the report of one process, one example's histogram with its plot and
HTML page, usage errors, and the README's main command in a fresh copy of the
repository without LLVM or network."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from invar.audit.schema import LINE, REPORT
from tests.conftest import FIXTURES, ROOT, Invoke, torchrun

BLOCKS = str(FIXTURES / "blocks")
RENAMER = str(FIXTURES / "models" / "renamer.pt")
VANILLA = str(FIXTURES / "models" / "vanilla.pt")
QUICK = ("--limit", "70", "--variants", "4", "--threads", "1")
#: the audit of the vanilla model on the fixture blocks
VANILLA_AUDIT = ("audit", "--model", VANILLA, "--dataset", BLOCKS)


def without_run(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "run"}


@pytest.fixture(scope="module")
def single():
    """One process over 70 examples (three chunks of 32): the reference."""
    from typer.testing import CliRunner

    from invar.cli.app import app

    result = CliRunner().invoke(app, [*VANILLA_AUDIT, *QUICK, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_and_jsonl_follow_the_schema(invoke, single):
    jsonschema.Draft202012Validator.check_schema(LINE)
    jsonschema.Draft202012Validator(REPORT).validate(single)
    assert single["schema"] == 3 and 0 < single["violation_rate"] <= 1
    assert single["trivial"] == {
        "constant": False,
        "prediction": None,
        "no_better_than_chance": False,
        "insensitive": None,
        "notes": [],
    }
    assert single["metric"]["chance"]["rule"] == "mean label"
    result = invoke(*VANILLA_AUDIT, *QUICK, "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    validator = jsonschema.Draft202012Validator(LINE)
    for line in lines:
        validator.validate(line)
    assert [line["type"] for line in lines] == ["header"] + ["example"] * 70 + ["summary"]
    assert without_run(lines[-1]) == dict(without_run(single), type="summary")
    if shutil.which("jq"):
        jq = subprocess.run(["jq", ".violation_rate"], input=json.dumps(single), capture_output=True, text=True)
        assert float(jq.stdout) == single["violation_rate"]


#: sixteen examples: enough for the bounds below to be met or not (vanilla violates on each, and is
#: alpha-covariant on one of them; the renamer on every one)
GATED = ("--limit", "16", "--variants", "4", "--threads", "1")


def test_fail_over_gates_a_pipeline(invoke):
    result = invoke(*VANILLA_AUDIT, *GATED, "--fail-over", "violation_rate=0")
    assert result.exit_code == 1
    assert re.search(
        r"invar: error: violation_rate is [\d.]+, over the bound 0 \(--fail-over violation_rate=0\)", result.stderr
    ), result.stderr
    assert "violation rate" in result.stdout, "the report is written before the verdict"
    result = invoke(
        "audit",
        "--model",
        RENAMER,
        "--dataset",
        BLOCKS,
        *GATED,
        "--fail-over",
        "violation_rate=0",
        "--fail-under",
        "alpha_covariance=1",
        "--fail-over",
        "spread.relative_range.max=0",
    )
    assert result.exit_code == 0, result.output
    result = invoke(*VANILLA_AUDIT, *GATED, "--fail-under", "alpha_covariance=0.999")
    assert result.exit_code == 1 and "alpha_covariance is 0." in result.stderr
    for bad in ("violation_rate", "nothing=1", "violation_rate=x"):
        result = invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, *GATED, "--fail-over", bad)
        assert result.exit_code == 2, (bad, result.output)


@pytest.mark.parametrize(
    "bound, settings, measured_only_with",
    [
        ("oracle.label_change_rate=0", (), "--oracle"),
        ("noise.violations=0", ("--repeats", "1"), "--repeats 2 or more"),
        ("intervals.resamples=0", ("--bootstrap", "0"), "--bootstrap above 0"),
        ("sensitivity.change_rate=0", ("--controls", "0"), "controls"),
    ],
)
def test_a_bound_on_what_the_settings_do_not_measure_is_refused_before_the_audit(
    invoke, bound, settings, measured_only_with, monkeypatch
):
    import invar.audit

    monkeypatch.setattr(invar.audit, "audit", lambda *a, **k: pytest.fail("the audit ran"))
    result = invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, *settings, "--fail-over", bound)
    assert result.exit_code == 2, result.output
    name = bound.split("=")[0]
    assert f"--fail-over: error: {name} is measured only with {measured_only_with}" in result.stderr


def test_an_audit_where_every_example_failed_exits_1_and_says_why(invoke, tmp_path):
    """An endpoint down (or a wrong address, a key refused) fails every
    example: nothing is audited, and no bound can pass it, nor can its absence."""
    blocks = tmp_path / "blocks.s"
    blocks.write_text("addq %rax, %rbx\n\nsubq %rcx, %rdx\n")
    dead = "http://127.0.0.1:9/v1#m"  # the discard port: nothing listens
    for bounds in ((), ("--fail-over", "violation_rate=0.5")):
        result = invoke(
            "audit",
            "--model",
            dead,
            "--dataset",
            blocks,
            "--task",
            "bhive",
            "--no-cache",
            "--retries",
            "0",
            "--format",
            "json",
            *bounds,
        )
        assert result.exit_code == 1, result.output
        assert json.loads(result.stdout)["audited"] == 0, "the report is written before the verdict"
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("invar: error: no example was audited: all 2 failed in the model (first: "), last


def test_two_shards_merged_give_the_report_of_one_run(invoke, single, tmp_path):
    parts = []
    for i in (1, 2):
        out = tmp_path / f"shard{i}.jsonl"
        result = invoke(*VANILLA_AUDIT, *QUICK, "--shard", f"{i}/2", "--format", "jsonl", "--out", out)
        assert result.exit_code == 0, result.output
        parts.append(out)
    counts = [sum(1 for line in p.read_text().splitlines() if '"type": "example"' in line) for p in parts]
    assert counts == [38, 32]  # chunks 1 and 3 (32 and 6 examples), then chunk 2
    result = invoke("audit", "merge", *parts, "--format", "json")
    assert result.exit_code == 0, result.output
    merged = json.loads(result.stdout)
    assert without_run(merged) == without_run(single)
    assert merged["run"]["shards"] == 2
    result = invoke("audit", "merge", parts[0])
    assert result.exit_code == 1 and "shard 2/2 missing" in result.stderr
    other = tmp_path / "other.jsonl"
    invoke(*VANILLA_AUDIT, *QUICK, "--seed", "1", "--shard", "2/2", "--format", "jsonl", "--out", other)
    result = invoke("audit", "merge", parts[0], other)
    assert result.exit_code == 1 and "audited with other settings" in result.stderr and "seed" in result.stderr


def test_two_torchrun_processes_give_the_report_of_one(single, tmp_path):
    run = torchrun(*VANILLA_AUDIT, *QUICK, "--format", "json", "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["run"]["processes"] == 2
    assert without_run(report) == without_run(single)


def test_one_example_as_a_histogram_with_a_plot_and_a_page(invoke, tmp_path):
    import invar
    from invar.audit.datasets import load

    # the first test block with more than 1,000 renamings: they are sampled
    example = next(e for e in load(BLOCKS).examples if invar.renamings(e.parse()).count() > 1000)
    plot, page = tmp_path / "fig2.svg", tmp_path / "report.html"
    result = invoke(*VANILLA_AUDIT, "--example", example.id, "--variants", "1000", "--plot", plot, "--report", page)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    head = next(line for line in lines if line.startswith(f"example {example.id}: 1,000 variants"))
    assert "range" in head and sum(1 for line in lines if line.rstrip().endswith("#")) >= 3
    assert plot.read_text().lstrip().startswith("<?xml") and "<svg" in plot.read_text()
    assert {"prediction", "predictions"} <= set(re.findall(r"<text[^>]*>([^<]*)</text>", plot.read_text()))
    html = page.read_text()
    assert html.startswith("<!doctype html>") and "<svg" in html and "<mark>" in html
    assert "http" not in html.replace("http://www.w3.org/2000/svg", ""), "the page is self-contained"
    # a small space is taken whole
    result = invoke(*VANILLA_AUDIT, "--example", "0", "--variants", "100000", "--format", "json")
    report = json.loads(result.stdout)
    assert report["exhaustive"] == 1 and report["example"]["variants"] == report["predictions"] - 1 < 100000


def test_plot_without_matplotlib_says_how_to_install_it(invoke, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, "--limit", "3", "--plot", tmp_path / "x.png")
    assert result.exit_code == 2 and "pip install 'invar[plot]'" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "--model and --dataset are required"),
        (("--model", RENAMER, "--dataset", BLOCKS, "--shard", "3/2"), "'3/2': write I/N with 1 <= I <= N"),
        (("--model", RENAMER, "--dataset", BLOCKS, "--example", "nope"), "no example 'nope'"),
        (("--model", "tests.audit.callables:distinct_registers", "--dataset", "x.s"), "name the task with --task"),
        # a file has no splits, not even the default one named: refused, not read whole in silence
        (
            ("--model", RENAMER, "--dataset", FIXTURES / "x86" / "blocks.csv", "--split", "test"),
            "--split: error: 'test': ",
        ),
        (("--model", RENAMER, "--dataset", "-"), "--dataset: error: '-': --dataset does not read standard input"),
    ],
)
def test_usage_errors_exit_2(invoke, args, message, monkeypatch):
    monkeypatch.delenv("INVAR_DATA", raising=False)
    result = invoke("audit", "--quiet", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and result.stdout == "", result.output  # one located line, before the audit


def test_missing_model_or_dataset_exit_1(invoke, tmp_path):
    result = invoke("audit", "--model", tmp_path / "none.pt", "--dataset", BLOCKS)
    assert result.exit_code == 1 and "none.pt: error: no such model file" in result.stderr
    result = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "none")
    assert result.exit_code == 1 and "none: error: no such file or directory" in result.stderr
    result = invoke("audit", "--model", "tests.audit.nothing_here:f", "--task", "bhive", "--dataset", BLOCKS)
    assert result.exit_code == 1 and "cannot import tests.audit.nothing_here" in result.stderr
    result = invoke("audit", "--model", "tests.audit.exits_on_import:predict", "--task", "bhive", "--dataset", BLOCKS)
    assert result.exit_code == 1 and "cannot import tests.audit.exits_on_import (SystemExit: 4)" in result.stderr


def test_the_readme_main_command_runs_in_a_fresh_copy_without_llvm_or_network(tmp_path):
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"(invar audit --model fixtures/models/\S+ --dataset fixtures/\S+)", readme).group(1)
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    clone = tmp_path / "clone"
    for name in listed:
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, clone / name)
    bin_dir = tmp_path / "bin"  # a PATH with nothing of LLVM in it
    bin_dir.mkdir()
    env = {
        "PATH": str(bin_dir),
        "PYTHONPATH": str(clone),
        "HOME": str(tmp_path),
        "OMP_NUM_THREADS": "2",
        "http_proxy": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
    }
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from invar.cli.app import main; sys.argv[0] = 'invar'; main()",
            *command.split()[1:],
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert shutil.which("llvm-mca", path=env["PATH"]) is None
    assert "violation rate" in run.stdout and "alpha-covariance" in run.stdout


def _shards(invoke, tmp_path, n: int = 3, *extra) -> list:
    """The JSONL lines of an audit of 100 examples in ``n`` shards (a callable: quick)."""
    out = []
    for i in range(1, n + 1):
        path = tmp_path / f"s{i}.jsonl"
        result = invoke(
            "audit",
            "--model",
            "tests.audit.callables:distinct_registers",
            "--task",
            "bhive",
            "--dataset",
            BLOCKS,
            "--limit",
            "100",
            "--variants",
            "2",
            "--shard",
            f"{i}/{n}",
            "--format",
            "jsonl",
            "--out",
            path,
            *extra,
        )
        assert result.exit_code == 0, result.output
        out.append([json.loads(line) for line in path.read_text().splitlines()])
    return out


@pytest.fixture(scope="module")
def three_shards(tmp_path_factory) -> Path:
    """The folder of the three shards of :func:`_shards` (s1.jsonl …), audited
    once for the tests that copy and edit them."""
    folder = tmp_path_factory.mktemp("shards")
    _shards(Invoke(), folder)
    return folder


def _by_index(shards, k):
    return next(r for part in shards for r in part if r.get("index") == k)


def _drop(*indices):
    def edit(shards):
        for part in shards:
            part[:] = [r for r in part if r.get("index") not in indices]

    return edit


def _copy_into(target, *indices):
    def edit(shards):
        for k in indices:
            shards[target].insert(-1, dict(_by_index(shards, k)))

    return edit


def _reindex(old, new):
    def edit(shards):
        _by_index(shards, old)["index"] = new

    return edit


def _without(field):
    def edit(shards):
        del _by_index(shards, 4)[field]

    return edit


#: the three shards' examples (--limit 100, chunks of 32): shard 1 audits 0-31 and 96-99, shard 2 32-63,
#: shard 3 64-95. Each case: the edit, the message, and where the error is: the shard (1, 2, 3) that
#: lost an example, or (shard, index) for the record that is one too many there (the last of that
#: index in the shard's file), or None where the file's own line is at fault (read_jsonl's errors).
MERGE_FAULTS = [
    (
        _drop(3, *range(40, 52)),
        "the shards hold 87 of the dataset's 100 examples: 13 missing (positions from 0: 3, 40-51), which "
        "shards 1/3 and 2/3 audit (s1.jsonl, s2.jsonl)",
        1,
    ),
    (_drop(0), "the shards hold 99 of the dataset's 100 examples: 1 missing (positions from 0: 0), which shard 1/3", 1),
    (_drop(40), "1 missing (positions from 0: 40), which shard 2/3 audits", 2),
    (_drop(70, 71), "2 missing (positions from 0: 70-71), which shard 3/3 audits", 3),
    (_drop(98), "1 missing (positions from 0: 98), which shard 1/3 audits", 1),
    (_drop(*range(0, 100, 2)), "50 missing (positions from 0: 0, 2, 4, 6, 8, 10, 12, 14 and 42 more ranges)", 1),
    (
        _copy_into(0, 7),
        "the shards hold 100 of the dataset's 100 examples: 1 in more than one record (positions 7; in s1.jsonl)",
        (1, 7),
    ),
    (_copy_into(2, 7), "1 in more than one record (positions 7; in s1.jsonl, s3.jsonl)", (3, 7)),
    (_copy_into(0, 40), "1 in more than one record (positions 40; in s1.jsonl, s2.jsonl)", (1, 40)),
    (_copy_into(1, 9, 10), "2 in more than one record (positions 9-10; in s1.jsonl, s2.jsonl)", (2, 9)),
    (
        _reindex(5, 6),
        "99 of the dataset's 100 examples: 1 missing (positions from 0: 5), which shard 1/3 audits; 1 in more "
        "than one record (positions 6; in s1.jsonl)",
        1,
    ),
    (
        _reindex(70, 100),
        "99 of the dataset's 100 examples: 1 missing (positions from 0: 70), which shard 3/3 audits; 1 beyond "
        "the dataset's 100 (positions 100)",
        3,
    ),
    (_without("violation"), "an example record without violation", None),
    (_reindex(4, "4"), "an example record whose index is '4', not a position", None),
    (_reindex(4, -1), "an example record whose index is -1, not a position", None),
]


@pytest.mark.parametrize("edit, message, where", MERGE_FAULTS)
def test_merge_refuses_shards_that_lose_or_repeat_examples(invoke, tmp_path, three_shards, edit, message, where):
    for i in (1, 2, 3):
        shutil.copyfile(three_shards / f"s{i}.jsonl", tmp_path / f"s{i}.jsonl")
    shards = [[json.loads(line) for line in (tmp_path / f"s{i}.jsonl").read_text().splitlines()] for i in (1, 2, 3)]
    result = invoke("audit", "merge", *(tmp_path / f"s{i}.jsonl" for i in (1, 2, 3)), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["examples"] == 100
    edit(shards)
    for i, part in enumerate(shards, start=1):
        (tmp_path / f"s{i}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))
    result = invoke("audit", "merge", *(tmp_path / f"s{i}.jsonl" for i in (1, 2, 3)), "--format", "json")
    assert result.exit_code == 1, result.output
    said = result.stderr.replace(f"{tmp_path}/", "")
    assert message in said, result.stderr
    if isinstance(where, int):  # the shard that lost the example, no line: the record is not there
        assert said.startswith(f"s{where}.jsonl: error: "), said
    elif where is not None:  # the record one too many, at its line
        shard, index = where
        line = max(n for n, r in enumerate(shards[shard - 1], start=1) if r.get("index") == index)
        assert said.startswith(f"s{shard}.jsonl:{line}: error: "), said
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_merge_names_the_shards_given_when_one_is_missing(invoke, three_shards):
    files = [three_shards / f"s{i}.jsonl" for i in (1, 3)]
    result = invoke("audit", "merge", *files)
    assert result.exit_code == 1
    assert result.stderr == f"invar: error: shard 2/3 missing (given: {files[0]} as 1/3, {files[1]} as 3/3)\n"


def test_merge_of_one_audited_example(invoke, tmp_path):
    shards = _shards(invoke, tmp_path, 2, "--example", "test.csv:17")
    assert sum(r["type"] == "example" for part in shards for r in part) == 1
    files = [tmp_path / "s1.jsonl", tmp_path / "s2.jsonl"]
    result = invoke("audit", "merge", *files, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["example"]["id"] == "test.csv:17"
    holder = next(f for f, part in zip(files, shards) if any(r["type"] == "example" for r in part))
    assert holder == files[0]  # the one example is the whole of what is audited: shard 1's
    lines = holder.read_text().splitlines()
    holder.write_text("\n".join(lines[:2] + lines[1:]) + "\n")
    result = invoke("audit", "merge", *files)
    assert result.exit_code == 1 and "the shards hold 2 records of one audited example (test.csv:17)" in result.stderr
    assert result.stderr.startswith(f"{holder}:3: error: ")  # the second record, not the first
    other = files[1].read_text().splitlines()
    files[1].write_text("\n".join(other[:1] + lines[1:2] + other[1:]) + "\n")
    holder.write_text("\n".join(lines) + "\n")
    result = invoke("audit", "merge", *files)
    assert result.exit_code == 1 and "the shards hold 2 records of one audited example" in result.stderr
    assert result.stderr.startswith(f"{files[1]}:2: error: ")  # shard 2's record: shard 1 audits it
    files[1].write_text("\n".join(other) + "\n")
    holder.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    result = invoke("audit", "merge", *files)
    assert result.exit_code == 1 and "no shard holds the audited example test.csv:17" in result.stderr
    assert result.stderr.startswith(f"{holder}: error: ")
    record = json.loads(lines[1])
    holder.write_text("\n".join([lines[0], json.dumps({**record, "id": "test.csv:99"}), *lines[2:]]) + "\n")
    result = invoke("audit", "merge", *files)  # the one record is of another example: said where it is
    assert result.exit_code == 1, result.output
    assert result.stderr == f"{holder}:2: error: a record of test.csv:99, not of the audited example test.csv:17\n"


CONSTANT = "tests.audit.callables:constant"


def _audit_40(invoke, model: str, *options):
    """``invar audit`` of 40 fixture blocks, 3 variants each."""
    return invoke(
        "audit", "--model", model, "--task", "bhive", "--dataset", BLOCKS, "--limit", "40", "--variants", "3", *options
    )


@pytest.mark.parametrize(
    "model, bounds, warned, exit_code",
    [
        (CONSTANT, ("--fail-over", "violation_rate=0"), ["--fail-over violation_rate=0: the model predicts 2.5"], 0),
        (
            CONSTANT,
            ("--fail-under", "alpha_covariance=1", "--fail-over", "spread.relative_range.max=0"),
            ["--fail-over spread.relative_range.max=0, --fail-under alpha_covariance=1: the model predicts 2.5"],
            0,
        ),
        (CONSTANT, ("--fail-over", "metric.original=1"), [], 1),  # a bound on the metric needs no warning
        (CONSTANT, (), [], 0),
        ("tests.audit.callables:distinct_registers", ("--fail-over", "violation_rate=0"), [], 0),
    ],
)
def test_a_bound_on_invariance_met_by_a_constant_model_says_so(invoke, model, bounds, warned, exit_code):
    result = _audit_40(invoke, model, *bounds)
    assert result.exit_code == exit_code, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("invar: warning: ")]
    # a callable is asked once per input: under a bound on invariance, the report's
    # note that its noise floor was not measured is a warning too
    noise = [line for line in warnings if "noise floor was not measured" in line]
    assert len(noise) == (1 if bounds and "violation_rate=0" in bounds or "alpha_covariance=1" in bounds else 0)
    warnings = [line for line in warnings if line not in noise]
    assert len(warnings) == len(warned)
    for line, start in zip(warnings, warned):
        assert line.startswith(f"invar: warning: {start} for every program and variant of the 40 audited examples")
    if model == CONSTANT:  # the table sends the reader to the metric, beside the chance level
        assert "note: the model predicts 2.5 for every program and variant" in result.stdout
        assert "MAPE at chance (mean label: " in result.stdout


@pytest.mark.parametrize(
    "bounds, warned, exit_code",
    [
        (("--fail-over", "violation_rate=0"), True, 0),
        (("--fail-over", "violation_rate=0", "--fail-over", "errors=0"), False, 1),  # the failures gate the run
        ((), False, 0),
    ],
)
def test_bounds_judged_over_a_minority_of_the_examples_say_so(invoke, bounds, warned, exit_code):
    result = _audit_40(invoke, "tests.audit.callables:fails_on_mov", *bounds)
    assert result.exit_code == exit_code, result.output
    said = [line for line in result.stderr.splitlines() if "judged over" in line]
    assert said == (
        [
            "invar: warning: --fail-over violation_rate=0: judged over 9 of the 40 examples (31 failed); "
            "--fail-over errors=0 makes the failures fail the run"
        ]
        if warned
        else []
    )


def test_the_report_of_a_constant_model_follows_the_schema(invoke, tmp_path):
    result = _audit_40(invoke, CONSTANT, "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    validator = jsonschema.Draft202012Validator(LINE)
    for line in lines:
        validator.validate(line)
    trivial = lines[-1]["trivial"]
    assert trivial["constant"] is True and trivial["prediction"] == 2.5 and len(trivial["notes"]) >= 1
    # shards of the old schema (the same records) still merge, into the new schema
    old = tmp_path / "old.jsonl"
    lines[0]["schema"] = 1
    old.write_text("".join(json.dumps(line) + "\n" for line in lines[:-1]))
    merged = invoke("audit", "merge", old, "--format", "json")
    assert merged.exit_code == 0, merged.output
    assert without_run(json.loads(merged.stdout)) == without_run({**lines[-1], "type": "report"})


@pytest.mark.parametrize(
    "model, invariant", [(RENAMER, True), ("tests.audit.callables:distinct_registers", True), (VANILLA, False)]
)
def test_the_spread_plot_counts_examples_from_zero(invoke, tmp_path, model, invariant):
    plot = tmp_path / "spread.svg"
    result = _audit_40(invoke, model, "--plot", plot)
    assert result.exit_code == 0, result.output
    svg = plot.read_text()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "examples" in texts and "relative range of the predictions" in texts and "variants" not in texts
    assert not any(t.startswith(("\u2212", "-")) for t in texts), "no negative relative range"
    x = [float(t) for t in texts if re.fullmatch(r"\d+\.\d+", t)]  # the y axis counts: whole numbers
    y = [int(t) for t in texts if re.fullmatch(r"\d+", t)]
    assert min(x) == 0.0 and min(y) == 0 and len(y) >= 2
    if invariant:  # every example at 0: one bar at 0, on an axis from 0 to 1
        assert max(x) == 1.0 and 40 <= max(y) <= 45


def test_the_violation_rate_says_how_many_examples_could_violate(invoke, tmp_path):
    blocks = tmp_path / "blocks.s"
    blocks.write_text("addq %rax, %rbx\n\nmovq %rsi, %rdi\nsubq %rdi, %r8\n\nmovq %rax, %rbx\nmovq %rcx, %rdx\n")

    def audit(*options):
        """The permutations of ``blocks`` audited on the first register's number."""
        model = "tests.audit.callables:first_register_number"
        return invoke(
            "audit", "--model", model, "--task", "bhive", "--dataset", blocks, "--transform", "permutations", *options
        )

    result = audit("--variants", "4")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if "violation rate" in line and line.startswith("│")]
    assert "0.333 (1 of 3)" in rows[0] and "violation rate, examples that can vary" in rows[1]
    # under half can vary: the headline says so above the table (issue 35, item 10)
    assert (
        "only 1 of the 3 audited examples can vary (33 %; the others have no variant besides the original): "
        "violation rate 1.000 over them, 0.333 over all"
    ) in result.stdout.splitlines()
    assert "1.000 (1 of 1)" in rows[1]
    alpha = [line for line in result.stdout.splitlines() if "alpha-covariance" in line]
    # the block with two orders: original, identity and swap give two answers, (3 - 2) / (3 - 1)
    assert "0.833" in alpha[0] and "examples that can vary" in alpha[1] and "0.500" in alpha[1]
    untested = audit("--limit", "2", "--fail-over", "violation_rate=0")
    assert untested.exit_code == 0, untested.output
    assert (
        "note: none of the 2 audited examples has a variant besides the original under permutations" in untested.stdout
    )
    assert "--fail-over violation_rate=0: none of the 2 audited examples" in untested.stderr
    varied = audit("--fail-over", "varied.violation_rate=0.5")
    assert varied.exit_code == 1 and "varied.violation_rate is 1, over the bound 0.5" in varied.stderr


def test_compare_pairs_two_audits_and_refuses_a_summary(invoke, tmp_path):
    for name, model in (("renamer", RENAMER), ("vanilla", VANILLA)):
        result = invoke(
            "audit",
            "--model",
            model,
            "--dataset",
            BLOCKS,
            *QUICK,
            "--format",
            "jsonl",
            "--out",
            tmp_path / f"{name}.jsonl",
        )
        assert result.exit_code == 0, result.output
    result = invoke("audit", "compare", tmp_path / "renamer.jsonl", tmp_path / "vanilla.jsonl", "--format", "json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert compared["type"] == "comparison" and compared["paired"]["examples"] == 70
    # the renamer never violates and vanilla does on every example: McNemar's discordant pairs say so
    violations = compared["paired"]["violation_rate"]
    assert (violations["a_only"], violations["b_only"]) == (0, 70) and violations["p"] < 1e-20
    table = invoke("audit", "compare", tmp_path / "renamer.jsonl", tmp_path / "vanilla.jsonl")
    assert table.exit_code == 0 and "violation rate" in table.stdout
    invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, *QUICK, "--format", "json", "--out", tmp_path / "r.json")
    result = invoke("audit", "compare", tmp_path / "r.json", tmp_path / "vanilla.jsonl")
    assert result.exit_code == 1 and "--format jsonl" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "name, content",
    [
        ("a.s", b"\xff\xfe not text\n"),  # the unit's first line
        ("a.s", b"movq %rax, %rbx\nsubqq %rax, %rbx\n"),  # a later line of the unit
        ("a.py", b"def f(:\n    pass\n"),
    ],
    ids=["first-line", "later-line", "python"],
)
def test_an_audit_that_could_parse_nothing_names_the_first_failure_once(invoke, tmp_path, name, content):
    data = tmp_path / "ds"
    data.mkdir()
    (data / name).write_bytes(content)
    result = invoke("audit", "--model", FIXTURES / "models" / "renamer.pt", "--dataset", data, "-q")
    assert result.exit_code == 1, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("invar: error: no example was audited: none of the 1 could be parsed (first: "), last
    assert last.count(str(data / name)) == 1, last  # the place once, not "a.s:1: a.s:2:1: error: …"
    assert "no example has a label" not in result.stderr  # nothing was audited: labels are not the matter
