"""``invar data bhive``: a summary on stdout, rejected blocks listed, errors located."""

from __future__ import annotations

import csv
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
    # 41 = 40 sent to llvm-mca (39 labelled, 1 rejected) + 1 invar could not decode
    assert "llvm-mca labelled or rejected 40 blocks now (invar rejected 1 before it); 0 came from" in result.stderr
    again = invoke("data", "bhive", "--source", BLOCKS, "--out", out, "--format", "json")
    assert "llvm-mca labelled or rejected 0 blocks now (invar rejected 1 before it); 40 came from" in again.stderr
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


def test_an_unknown_cpu_is_refused_before_anything_is_read(invoke, tmp_path):
    result = invoke("data", "bhive", "--source", BLOCKS, "--out", tmp_path / "d", "--mcpu", "bogus")
    assert result.exit_code == 2, result.output
    assert (
        result.stderr.strip() == "--mcpu: error: 'bogus': llvm-mca knows no such CPU (llvm-mca -mcpu=help lists them)"
    )
    assert not (tmp_path / "d").exists()


def test_a_run_that_labels_no_block_says_so_and_exits_1(invoke, tmp_path):
    (tmp_path / "bad.csv").write_bytes(b"zz,1\n\xbd\xbe,2\n")
    for fmt in ("table", "json"):
        result = invoke("data", "bhive", "--source", tmp_path / "bad.csv", "--out", tmp_path / fmt, "--format", fmt)
        assert result.exit_code == 1, result.output
        assert "0 labelled" in result.stdout or json.loads(result.stdout)["labelled"] == 0
        assert result.stderr.strip().endswith(
            f"error: none of the 2 blocks could be labelled (why: {tmp_path / fmt}/rejected.csv)"
        )
    reasons = (tmp_path / "json" / "rejected.csv").read_text().splitlines()[1:]
    assert [r.split(",")[-2:] for r in reasons] == [
        ["not a hex string", f"{tmp_path / 'bad.csv'}:1"],
        ["not UTF-8 (byte 0xbd at column 1)", f"{tmp_path / 'bad.csv'}:2"],
    ]


def test_quoted_fields_are_blocks_and_bad_quoting_is_rejected(invoke, tmp_path):
    source = tmp_path / "quoted.csv"
    source.write_text('"hex","throughput"\n"4801ca",2.5\n4801d8,1.0\n"4801c0\n"48"01,2\n')
    out = tmp_path / "d"
    result = invoke("data", "bhive", "--source", source, "--out", out, "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("4 distinct blocks: 2 labelled"), result.stdout
    labelled = [
        row.split(",")[0]
        for split in ("train", "valid", "test")
        for row in (out / f"{split}.csv").read_text().splitlines()[1:]
    ]
    assert sorted(labelled) == ["4801ca", "4801d8"]
    with open(out / "rejected.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert rows == [
        ['"4801c0', "invar", "malformed CSV quoting", f"{source}:4"],
        ['"48"01', "invar", "malformed CSV quoting", f"{source}:5"],
    ]
