"""bench/bench_splits.py on small corpora: the corpora are made as the
studies' (tests and other packages left out), each dataset's row says what
its build wrote, and the tables render every row."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile

import pytest

from tests.bench import bench_module
from tests.conftest import FIXTURES, bhive_files


@pytest.fixture(scope="module")
def bench():
    return bench_module("bench_splits")


def test_the_stdlib_corpus_keeps_the_packages_and_leaves_their_tests_out(bench, tmp_path, monkeypatch):
    stdlib = tmp_path / "lib"
    for rel in ("json/__init__.py", "json/tests/test_x.py", "re/_parser.py", "re/test/t.py", "os.py", "xml/dom/m.py"):
        (stdlib / rel).parent.mkdir(parents=True, exist_ok=True)
        (stdlib / rel).write_text("def f():\n    return 1\n")
    monkeypatch.setattr(bench, "STDLIB_PACKAGES", ["json", "re", "xml"])
    corpus = bench.stdlib_corpus(stdlib, tmp_path / "corpus")
    kept = sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*.py"))
    assert kept == ["json/__init__.py", "re/_parser.py", "xml/dom/m.py"]


def test_the_jdk_corpus_holds_its_packages_under_java_base(bench, tmp_path):
    src = tmp_path / "src.zip"
    with zipfile.ZipFile(src, "w") as zf:
        for name in ("java.base/java/util/List.java", "java.base/java/util/concurrent/Lock.java",
                     "java.base/java/net/URL.java", "java.desktop/java/awt/Color.java",
                     "java.base/java/lang/doc-files/x.html"):  # fmt: skip
            zf.writestr(name, "class A { int f() { return 1; } }\n")
    corpus = bench.jdk_corpus(src, tmp_path / "jdk")
    kept = sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file())
    assert kept == ["java.base/java/util/List.java", "java.base/java/util/concurrent/Lock.java"]


@pytest.mark.parametrize("name", ["names-stdlib", "bugs-stdlib"])
def test_a_source_row_is_what_the_build_wrote(bench, tmp_path, name):
    row = bench.source_row(name, FIXTURES / "python", tmp_path, jobs=1)
    meta = json.loads((tmp_path / name / "meta.json").read_text())
    assert row["splits"] == {s: meta[s] for s in ("train", "valid", "test")}
    assert row["files"] == meta["files"] > 0 and row["skipped"] == meta["skipped"]["functions"]
    for split, n in row["splits"].items():
        with open(tmp_path / name / f"{split}.csv", newline="") as f:
            assert len(list(csv.reader(f))) == n + 1  # a header, then a row a function
    assert (row["bugs"] is not None) == (name == "bugs-stdlib")


def test_the_report_and_its_tables(bench, tmp_path, monkeypatch):
    monkeypatch.setitem(bench.LTL, "ltl-size5", dict(num=300, max_size=5, unique=True))
    monkeypatch.setitem(bench.LTL, "ltl-two-aps", dict(num=200, max_size=6, distinct=2))
    stdlib = tmp_path / "lib"
    shutil.copytree(FIXTURES / "python", stdlib / "fixtures")
    monkeypatch.setattr(bench, "STDLIB_PACKAGES", ["fixtures"])
    monkeypatch.setitem(bench.BHIVE, "bhive-25000", 30)
    (tmp_path / "bhive").mkdir()
    with open(bhive_files()[0]) as f:  # real blocks, the first 60 rows of one of BHive's files
        (tmp_path / "bhive" / "b.csv").write_text("".join(line for _, line in zip(range(60), f)))
    argv = ["--out", str(tmp_path / "out"), "--stdlib", str(stdlib), "--bhive", str(tmp_path / "bhive"), "--jobs", "1"]
    only = ["names-stdlib", "ltl-size5", "ltl-two-aps", "bhive-25000"]
    bench.main([*argv, "--only", *only, "--report", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    assert (
        report["args"]["out"] == "DIR" and report["args"]["stdlib"] == "STDLIB" and report["args"]["bhive"] == "BHIVE"
    )
    rows = {row["dataset"]: row for row in report["rows"]}
    assert set(rows) == set(only)
    meta = json.loads((tmp_path / "out" / "bhive-25000" / "meta.json").read_text())
    assert sum(rows["bhive-25000"]["splits"].values()) == rows["bhive-25000"]["labelled"] <= 30
    assert rows["bhive-25000"]["splits"] == meta["splits"]
    assert set(rows["ltl-two-aps"]["test_by_aps"]) == {"2"}  # every formula holds exactly two
    assert sum(rows["ltl-size5"]["test_by_aps"].values()) == rows["ltl-size5"]["splits"]["test"]
    assert sum(rows["ltl-size5"]["splits"].values()) < 300  # each formula once: the repeats are gone
    names = bench.names_bugs(report).splitlines()
    assert len(names) == 3 and names[2].startswith("| names-stdlib | ")
    ltl = bench.ltl_table(report).splitlines()
    assert [line.split(" | ")[0] for line in ltl[2:]] == ["| ltl-size5", "| ltl-two-aps"]
    assert "exactly 2" in ltl[3] and "each formula once" in ltl[2]
    assert bench.bhive_table(report).splitlines()[2].startswith("| bhive-25000 | 30 | ")
    assert bench.table(report).count("\n\n") == 2  # names and bugs, LTL, BHive


def test_a_jdk_dataset_without_the_sources_is_one_line(bench, tmp_path):
    with pytest.raises(SystemExit, match="--src-zip"):
        bench.main(["--out", str(tmp_path), "--only", "names-jdk"])
