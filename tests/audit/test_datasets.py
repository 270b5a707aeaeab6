"""Every kind of dataset an audit reads: files of programs, directories of
sources, CSV and JSONL tables, BHive copies and prepared BHive datasets; an
example that does not parse is reported with its location and the rest are
audited."""

from __future__ import annotations

import json

import pytest

from invar.audit import datasets
from invar.errors import DataError, UsageError
from invar.tasks import get_task
from tests.conftest import BHIVE, FIXTURES

BHIVE_TASK = get_task("bhive")
MODEL = "tests.audit.callables:distinct_registers"


def test_assembly_blocks_separated_by_blank_lines_with_labels(tmp_path):
    path = tmp_path / "b.s"
    path.write_text("# two blocks\naddq %rax, %rbx  # label: 1.5\nimulq %rbx, %rcx\n\n\nmovq 8(%rsp), %rdx\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.id, e.line, e.label) for e in data.examples] == [("b.s:1", 1, 1.5), ("b.s:6", 6, None)]
    assert data.examples[0].parse().render() == "addq %rax, %rbx\nimulq %rbx, %rcx"
    assert data.labelled == 1


def test_assembly_blocks_one_per_line(tmp_path):
    path = tmp_path / "b.s"
    path.write_text("addq %rax, %rbx; subq %rbx, %rcx  # label: 2\nmovq (%rdi), %rsi\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.id, e.label, len(e.parse().lines)) for e in data.examples] == [("b.s:1", 2.0, 2), ("b.s:2", None, 1)]


def test_a_block_that_does_not_parse_is_reported_with_its_location(invoke, tmp_path):
    path = tmp_path / "b.s"
    path.write_text("addq %rax, %rbx\n\nfrobq %rax\n\nmovq (%rdi), %rsi\n")
    result = invoke("audit", "--model", MODEL, "--task", "bhive", "--dataset", path, "--variants", "2",
                    "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["examples"], report["audited"], report["unparsable"], report["errors"]) == (3, 2, 1, 0)
    assert report["failed"][0]["id"] == "b.s:3" and report["failed"][0]["stage"] == "parse"
    assert result.stderr.startswith(f"{path}:3:1: error: ")
    # --fail-over gates on what it names: unparsable examples too
    result = invoke("audit", "--model", MODEL, "--task", "bhive", "--dataset", path, "--variants", "2",
                    "--fail-over", "unparsable=0")
    assert result.exit_code == 1 and "unparsable is 1, over the bound 0" in result.stderr


def test_a_directory_of_python_sources(invoke, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def f(a, /, b):\n    x = a + 1\n    y = b\n    return x + y\n")
    (tmp_path / "b.py").write_text("def g(n, /):\n    t = n * 2\n    u = n - 1\n    return t, u\n")
    data = datasets.load(str(tmp_path), task=get_task("classify"))
    assert data.kind == "directory" and [e.id for e in data.examples] == ["b.py:1", "pkg/a.py:1"]
    result = invoke("audit", "--model", "tests.audit.callables:uses_rbx", "--task", "classify", "--dataset",
                    tmp_path, "--variants", "4", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # classify keeps its label under renamings and reorderings: both are audited by default
    assert report["transform"] == "both" and report["task_symmetry"] is True
    assert report["audited"] == 2 and report["violation_rate"] == 0.0 and report["spread"] is None


def test_csv_and_jsonl_tables(tmp_path):
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("id,code,cycles\nfirst,4801c3,1.25\nsecond,\"addq %rax, %rbx\",\n")
    data = datasets.load(str(csv_path), task=BHIVE_TASK, label_column="cycles")
    assert [(e.id, e.lang, e.label) for e in data.examples] == [("first", "hex", 1.25), ("second", "x86", None)]
    assert data.examples[0].parse().render() == "addq %rax, %rbx"
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text(json.dumps({"program": "def f(a, /):\n    return a", "label": "ok"}) + "\n\n"
                     + json.dumps({"program": "", "label": "x"}) + "\n")
    data = datasets.load(str(jsonl), task=get_task("classify"), lang="python")
    assert [(e.id, e.label, e.error is None) for e in data.examples] == [("t.jsonl:1", "ok", True),
                                                                         ("t.jsonl:3", None, False)]
    with pytest.raises(UsageError, match="no program column"):
        datasets.load(str(csv_path), task=BHIVE_TASK, program_column="nothing")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{\n")
    with pytest.raises(DataError, match="not JSON"):
        datasets.load(str(bad), task=BHIVE_TASK)


def test_a_bhive_copy_and_a_prepared_dataset(tmp_path, monkeypatch):
    source = sorted(BHIVE.glob("*.csv"))
    assert source, "BHive data not found at ../shared/data/bhive"
    lines = source[0].read_text().splitlines()[:40]
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / source[0].name).write_text("\n".join(lines + lines[:5]) + "\n")  # repeated rows count once
    monkeypatch.setenv("INVAR_DATA", str(copy))
    data = datasets.load("bhive", task=BHIVE_TASK)
    assert data.kind == "bhive-copy" and data.labelled == 0
    assert len(data.examples) == len({line.split(",")[0].lower() for line in lines if line.split(",")[0]})
    assert all(e.id.startswith(source[0].name + ":") for e in data.examples)
    prepared = datasets.load(str(FIXTURES / "blocks"), task=BHIVE_TASK, split="valid", limit=5)
    assert prepared.kind == "bhive" and prepared.split == "valid" and prepared.labelled == 5
    assert [e.id for e in prepared.examples] == [f"valid.csv:{k}" for k in range(2, 7)]
    monkeypatch.delenv("INVAR_DATA")
    with pytest.raises(UsageError, match="needs --data-dir"):
        datasets.load("bhive", task=BHIVE_TASK)
