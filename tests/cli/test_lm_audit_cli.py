"""``invar audit --lexinvariant-table own|along`` on language models: the
report (table, JSON, JSONL) says which table was read, a lexinvariant LM with
its table along is exactly invariant, and the option is a usage error for a
model that is no language model."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest

import invar
from invar.audit.render import TABLES_READ
from invar.audit.schema import LINE, REPORT
from invar.tasks import lm
from tests.conftest import FIXTURES

QUICK = ("--split", "valid", "--limit", "6", "--variants", "4", "--threads", "1")


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    """A dataset of character windows and two LMs trained a few steps on it."""
    root = tmp_path_factory.mktemp("lm-audit-cli")
    lm.build(FIXTURES / "python", root / "data", vocab="char", seq_len=64)
    for arch in ("lexinvariant", "vanilla"):
        invar.train(
            task="lm",
            data=root / "data",
            arch=arch,
            epochs=1,
            batch_size=16,
            limit=48,
            threads=1,
            out=root / f"{arch}.pt",
        )
    return root


@pytest.mark.parametrize(
    "arch, table, read, invariant",
    [
        ("lexinvariant", "along", "along", True),
        ("lexinvariant", "own", "own", False),
        ("lexinvariant", None, "own", False),
        ("vanilla", "along", "learned", False),
        ("vanilla", "own", "learned", False),
    ],
)
def test_the_report_says_which_table_it_read(invoke, lms, arch, table, read, invariant):
    option = ("--lexinvariant-table", table) if table else ()
    args = ("audit", "--model", lms / f"{arch}.pt", "--dataset", lms / "data", *QUICK, *option)
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    jsonschema.Draft202012Validator(REPORT).validate(report)
    assert report["table"] == read and report["errors"] == 0
    assert (report["violation_rate"] == 0) == invariant
    if invariant:
        assert report["spread"]["range"]["max"] <= 1e-5
    lines = [json.loads(line) for line in invoke(*args, "--format", "jsonl").stdout.splitlines()]
    for line in lines:
        jsonschema.Draft202012Validator(LINE).validate(line)
    assert lines[0]["table"] == read and lines[-1]["table"] == read
    text = " ".join(invoke(*args).stdout.split())  # as one line, however the console wraps it
    assert TABLES_READ[read] in text
    assert ("exact invariance" in text) == (read == "along")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            (
                "--model",
                FIXTURES / "models" / "renamer.pt",
                "--dataset",
                FIXTURES / "blocks",
                "--lexinvariant-table",
                "along",
            ),
            "--lexinvariant-table: error: --lexinvariant-table along is for invar language models "
            "(lm checkpoints), not a bhive model",
        ),
        (
            (
                "--model",
                "tests.audit.callables:constant",
                "--task",
                "bhive",
                "--dataset",
                FIXTURES / "blocks",
                "--lexinvariant-table",
                "along",
            ),
            "--lexinvariant-table: error: --lexinvariant-table along is for "
            "invar language models (lm checkpoints), not a callable",
        ),
    ],
)
def test_along_for_a_model_that_is_no_language_model_is_a_usage_error(invoke, args, message):
    result = invoke("audit", *args, "--limit", "2")
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert errors == [message] and result.stderr.strip() == message


def test_an_unknown_table_is_a_usage_error(invoke, lms):
    result = invoke(
        "audit", "--model", lms / "lexinvariant.pt", "--dataset", lms / "data", *QUICK, "--lexinvariant-table", "fresh"
    )
    assert result.exit_code == 2 and "fresh" in result.output and "Traceback" not in result.output


def test_an_lm_audit_measures_perplexity_without_labels(invoke, lms):
    """Issue 35, item 9: a language model's prediction is its loss on the
    window, which is its own label; its audit measures perplexity without a
    label column, and is told neither to add one nor to use --oracle (the
    lm task has none)."""
    args = ("audit", "--model", lms / "vanilla.pt", "--dataset", lms / "data", *QUICK)
    table = invoke(*args)
    assert table.exit_code == 0, table.output
    assert "label" not in table.stderr and "--oracle" not in table.stdout and "no metric" not in table.stdout
    assert "perplexity on originals" in table.stdout
    lines = [json.loads(line) for line in invoke(*args, "--format", "jsonl").stdout.splitlines()]
    for line in lines:
        jsonschema.Draft202012Validator(LINE).validate(line)
    records, report = [r for r in lines if r["type"] == "example"], lines[-1]
    metric = report["metric"]
    assert metric["name"] == "perplexity" and metric["examples"] == len(records) == 6
    assert metric["chance"] is None
    losses = [r["prediction"] for r in records]
    assert metric["original"] == pytest.approx(math.exp(sum(losses) / len(losses)))
    variants = [p for r in records for p, n in r["metric"]["variant_predictions"] for _ in range(n)]
    assert len(variants) == sum(r["variants"] for r in records)
    assert metric["variants"] == pytest.approx(math.exp(sum(variants) / len(variants)))
    worst = [max(p for p, _ in r["metric"]["variant_predictions"]) for r in records]
    assert metric["worst"] == pytest.approx(math.exp(sum(worst) / len(worst)))
