"""BHive data: reading, dedup, batched llvm-mca labels, rejected blocks,
downloads, resumption and the hash split."""

from __future__ import annotations

import functools
import http.server
import json
import random
import subprocess
import threading
from collections import Counter

import pytest

from invar.data import bhive
from invar.errors import DataError
from invar.frontends.x86.hexblock import decode
from tests.conftest import BHIVE, FIXTURES, bhive_blocks, bhive_files

BLOCKS_CSV = FIXTURES / "x86" / "blocks.csv"
AVX512 = "62f17f486fc8"  # vmovdqu8 %zmm0, %zmm1: llvm-mca -mcpu=haswell refuses it


def _mca_one(text: str) -> int:
    out = subprocess.run(
        ["llvm-mca", "-mcpu=haswell", "-iterations=100", "-"],
        input=text + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out.split("Total Cycles:")[1].split()[0])


@pytest.fixture(scope="module")
def blocks() -> list[str]:
    """Every distinct BHive block, read once for the tests that sample them."""
    return bhive_blocks()


def test_batched_labels_equal_one_process_per_block(blocks):
    texts = [decode(h).render() for h in random.Random(0).sample(blocks, 20)]
    batched = bhive.label_texts(texts)
    assert [c for c, _ in batched] == [_mca_one(t) for t in texts]


def test_figure1a_reads_1_68_cycles_per_iteration():
    text = (FIXTURES / "x86" / "figure1a.s").read_text().strip()
    assert bhive.label_texts([text]) == [(168, "")]


def test_a_block_llvm_mca_refuses_is_listed_and_its_chunk_still_labelled(blocks):
    hexes = [h for h in random.Random(1).sample(blocks, 6)]
    records = bhive.label_chunk((hexes[:3] + [AVX512] + hexes[3:] + ["0f0bff"], "haswell", 100))
    by_hex = {r["hex"]: r for r in records}
    assert len(records) == 8
    assert by_hex[AVX512]["stage"] == "llvm-mca" and "unsupported instruction" in by_hex[AVX512]["reason"]
    assert by_hex["0f0bff"]["stage"] == "invar" and "decode" in by_hex["0f0bff"]["reason"]
    assert all("cycles" in by_hex[h] for h in hexes)


def test_reading_dedups_and_locates(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("hex,throughput\n4801c3,1\n\n4801C3,2\n# a comment\nxyz,3\n")
    b.write_text("90\n4801c3\n901,odd\n")
    blocks, rejected = bhive.read_blocks(bhive.source_files([str(tmp_path)]))
    assert blocks == {"4801c3": f"{a}:2", "90": f"{b}:1"}
    assert [(r.hex, r.reason, r.source) for r in rejected] == [
        ("xyz", "not a hex string", f"{a}:6"),
        ("901", "odd number of hex digits", f"{b}:3"),
    ]


@pytest.mark.parametrize(
    "row, block, reason",
    [
        ("4801ca,2.5", "4801ca", None),
        ('"4801ca",2.5', "4801ca", None),  # quoted as the csv module writes it
        ('"4801CA"', "4801ca", None),
        ('  "4801ca",2.5', "4801ca", None),  # spaces before the opening quote
        ('"4801ca","2.5"', "4801ca", None),
        ('"hex","throughput"', None, None),  # a quoted header row is still a header
        ('"48,01",2', "48,01", "not a hex string"),  # a quoted comma is the field's own
        ('"48 01",3', "48 01", "not a hex string"),
        ('"4801c",1', "4801c", "odd number of hex digits"),
        ('"",1', "", "no hex before the first comma"),
        ('"4801c0', '"4801c0', "malformed CSV quoting"),  # a quote left open
        ('"48"01,2', '"48"01', "malformed CSV quoting"),  # text after the closing quote
        ('"4801ca" ,2', "4801ca", None),  # spaces after the closing quote, as every command reads them
        ('48"01",2', '48"01"', "not a hex string"),  # a quote inside a bare field is text
        # what follows the first field is never read: its quoting cannot reject the block
        ('4801d8,"abc', "4801d8", None),
        ('4801c1,"x"y', "4801c1", None),
    ],
)
def test_source_rows_are_read_with_csv_quoting(tmp_path, row, block, reason):
    path = tmp_path / "s.csv"
    path.write_text(f"90,1\n{row}\n")
    blocks, rejected = bhive.read_blocks([(str(path), path)])
    found = [(r.hex, r.stage, r.reason, r.source) for r in rejected]
    if reason is None:
        assert found == []
        assert blocks == {"90": f"{path}:1", **({block: f"{path}:2"} if block else {})}
    else:
        assert found == [(block, "invar", reason, f"{path}:2")] and blocks == {"90": f"{path}:1"}


def test_split_is_stable_and_80_10_10(blocks):
    first = blocks[:20000]
    counts = Counter(bhive.split_of(h) for h in first)
    assert abs(counts["train"] / len(first) - 0.8) < 0.01
    assert abs(counts["valid"] / len(first) - 0.1) < 0.01
    # pinned: the split never changes from machine to machine
    pinned = (
        "5331f64889fb4883c010488907",
        "0f1f00488b03410fb675004889df",
        "415741564155415455534883ec284885ff48897c2418",
    )
    assert [bhive.split_of(h) for h in pinned] == ["train", "valid", "test"]


def test_build_writes_splits_and_lists_rejected_blocks(tmp_path):
    summary = bhive.build([str(BLOCKS_CSV)], tmp_path / "out", jobs=1)
    out = tmp_path / "out"
    assert summary.blocks == 41 and summary.labelled == 39
    assert summary.rejected == {"invar": 1, "llvm-mca": 1}
    rows = (out / "rejected.csv").read_text().splitlines()
    assert rows[0] == "hex,stage,reason,source"
    assert any(r.startswith(f"{AVX512},llvm-mca,") and r.endswith(f"{BLOCKS_CSV}:42") for r in rows)
    labelled = {}
    for split in bhive.SPLITS:
        lines = (out / f"{split}.csv").read_text().splitlines()
        assert lines[0] == "hex,throughput"
        for line in lines[1:]:
            h, y = line.split(",")
            assert bhive.split_of(h) == split
            labelled[h] = float(y)
    assert len(labelled) == 39
    assert labelled["488b44244048836d38018b4010"] == 1.68  # Figure 1(a)
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["mcpu"], meta["iterations"], meta["labelled"]) == ("haswell", 100, 39)


def _serve(directory):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_download_gives_the_same_dataset_as_local_files(tmp_path, monkeypatch):
    """Two BHive CSVs served over HTTP, by file URL and by a base URL laid
    out as BHive's, give byte-identical datasets to --source on the files."""
    local = tmp_path / "local"
    local.mkdir()
    names = ["gzip-compress.csv", "openblas-dasum.goto.csv"]
    rng = random.Random(2)
    for name in names:
        lines = (BHIVE / name).read_text().splitlines()
        (local / name).write_text("\n".join(rng.sample(lines, 40)) + "\n")
    server = _serve(local)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        by_file = bhive.build([base + n for n in names], tmp_path / "a", jobs=1, cache_dir=tmp_path / "cache")
        monkeypatch.setattr(bhive, "BHIVE_FILES", names)
        by_base = bhive.build([base], tmp_path / "b", jobs=1, cache_dir=tmp_path / "cache2")
        monkeypatch.setattr(bhive, "BHIVE_URL", base)
        by_default = bhive.build(None, tmp_path / "c", jobs=1, cache_dir=tmp_path / "cache3")
    finally:
        server.shutdown()
    by_dir = bhive.build([str(local)], tmp_path / "d", jobs=1)
    assert by_file.labelled == by_base.labelled == by_default.labelled == by_dir.labelled > 60
    for out in ("a", "b", "c"):
        for name in ("train.csv", "valid.csv", "test.csv", "rejected.csv"):
            assert (tmp_path / out / name).read_bytes() == (tmp_path / "d" / name).read_bytes(), (out, name)
    assert sorted(p.name.split("-", 1)[1] for p in (tmp_path / "cache").iterdir()) == sorted(names)


def test_download_failure_is_a_located_data_error(tmp_path):
    server = _serve(tmp_path)
    url = f"http://127.0.0.1:{server.server_address[1]}/missing.csv"
    try:
        with pytest.raises(DataError, match="cannot download .*missing.csv.*--source DIR"):
            bhive.source_files([url], tmp_path / "cache")
    finally:
        server.shutdown()


def test_labelling_resumes_and_parallel_runs_agree(tmp_path):
    files = [str(f) for f in bhive_files()[:3]]
    first = bhive.build(files, tmp_path / "out", jobs=1, limit=30, chunk=7)
    assert first.new == 30
    labels = tmp_path / "out" / "labels.jsonl"
    # an interrupted run leaves a cut line: it is ignored and relabelled
    text = labels.read_text()
    labels.write_text(text[: text.rstrip("\n").rfind("\n") + 1] + '{"hex": "48')
    second = bhive.build(files, tmp_path / "out", jobs=2, limit=60, chunk=7)
    assert (second.new, second.cached) == (31, 29)
    bhive.build(files, tmp_path / "fresh", jobs=2, limit=60, chunk=11)
    for name in ("train.csv", "valid.csv", "test.csv", "rejected.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()
    with pytest.raises(DataError, match="other settings.*--overwrite") as info:
        bhive.build(files, tmp_path / "out", mcpu="skylake", limit=5)
    assert info.value.path.endswith("labels.jsonl") and info.value.line == 1
    assert bhive.build(files, tmp_path / "out", mcpu="skylake", limit=5, overwrite=True).new == 5


@pytest.mark.parametrize("cut", ["", '{"schema": 1, "mc'])
def test_a_labels_file_interrupted_before_its_header_was_whole_is_started_over(tmp_path, cut):
    files = [str(f) for f in bhive_files()[:1]]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "labels.jsonl").write_text(cut)
    assert bhive.build(files, tmp_path / "out", jobs=1, limit=5).new == 5
    assert bhive.build(files, tmp_path / "out", jobs=1, limit=5).cached == 5


@pytest.mark.parametrize(
    "content, message, line",
    [
        ("hex,throughput\n4801c3\n", "unlabelled block", 2),
        ("hex,throughput\n4801c3,fast\n", "'fast' is not a number", 2),
        ("hex,throughput\n4801c3,1.5\n90,0\n", "must be positive", 3),
    ],
)
def test_read_split_errors(tmp_path, content, message, line):
    (tmp_path / "train.csv").write_text(content)
    with pytest.raises(DataError, match=message) as info:
        bhive.read_split(tmp_path, "train")
    assert (info.value.path, info.value.line) == (str(tmp_path / "train.csv"), line)


def test_read_split_missing(tmp_path):
    with pytest.raises(DataError, match="no valid split"):
        bhive.read_split(tmp_path, "valid")
    with pytest.raises(DataError, match="no such dataset directory"):
        bhive.read_split(tmp_path / "nope", "train")


def test_the_default_source_is_the_mirror_invar_bhive_url_names(tmp_path, monkeypatch):
    names = ["gzip-compress.csv", "sqlite.csv"]
    served = tmp_path / "served"
    served.mkdir()
    for name in names:
        (served / name).write_text("\n".join((BHIVE / name).read_text().splitlines()[:4]) + "\n")
    server = _serve(served)
    monkeypatch.setattr(bhive, "BHIVE_FILES", names)
    monkeypatch.setenv("INVAR_BHIVE_URL", f"http://127.0.0.1:{server.server_address[1]}/")
    try:
        files = bhive.source_files(None, tmp_path / "cache")
    finally:
        server.shutdown()
    assert [shown.rsplit("/", 1)[1] for shown, _ in files] == names
    assert [path.read_text() for _, path in files] == [(served / n).read_text() for n in names]
    monkeypatch.delenv("INVAR_BHIVE_URL")
    assert bhive.bhive_url() == bhive.BHIVE_URL
