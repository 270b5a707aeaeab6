"""``invar data bhive``: a summary on stdout, rejected blocks listed, errors located."""

from __future__ import annotations

import json

from tests.conftest import FIXTURES

BLOCKS = FIXTURES / "x86" / "blocks.csv"


def test_labels_and_lists_rejections(invoke, tmp_path):
    out = tmp_path / "d"
    result = invoke("data", "bhive", "--source", BLOCKS, "--out", out, "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (
        f"41 distinct blocks: 39 labelled (train 37, valid 1, test 1), 2 rejected (invar 1, llvm-mca 1; "
        f"listed in {out}/rejected.csv)"
    )
    assert "labelled 40 blocks now; 0 came from" in result.stderr
    again = invoke("data", "bhive", "--source", BLOCKS, "--out", out, "--format", "json")
    assert "labelled 0 blocks now; 40 came from" in again.stderr
    summary = json.loads(again.stdout)
    assert (summary["schema"], summary["labelled"], summary["rejected"]) == (1, 39, {"invar": 1, "llvm-mca": 1})
    assert sorted(p.name for p in out.iterdir()) == [
        "labels.jsonl",
        "meta.json",
        "rejected.csv",
        "test.csv",
        "train.csv",
        "valid.csv",
    ]


def test_errors(invoke, tmp_path):
    result = invoke("data", "bhive", "--source", tmp_path / "none", "--out", tmp_path / "d")
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{tmp_path / 'none'}: error: no such file or directory"
    (tmp_path / "empty").mkdir()
    result = invoke("data", "bhive", "--source", tmp_path / "empty", "--out", tmp_path / "d")
    assert result.exit_code == 1 and "error: no *.csv files in this directory" in result.stderr
    (tmp_path / "blank.csv").write_text("\n# nothing\n")
    result = invoke("data", "bhive", "--source", tmp_path / "blank.csv", "--out", tmp_path / "d")
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{tmp_path / 'blank.csv'}: error: no blocks in the sources"
