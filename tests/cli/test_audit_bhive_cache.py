"""``invar audit --dataset bhive`` without ``--data-dir``: BHive's public CSVs
downloaded into invar's cache (from a local HTTP server on 127.0.0.1 laid
out as BHive's repository, serving a few real rows of each file), audited
without labels (no metric, a note on how to label), and with ``--oracle``
labelled by llvm-mca (checked against llvm-mca run here directly)."""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import threading

import pytest

from invar.data import bhive
from invar.frontends.x86.hexblock import decode

from ..conftest import BHIVE, FIXTURES, bhive_files

MODEL = str(FIXTURES / "models" / "renamer.pt")
ROWS = 3


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """BHive's layout served on 127.0.0.1 (ROWS real rows per file), the
    cache in tmp_path; yields (served directory, cache directory, server)."""
    bhive_files()  # fails when the shared data is absent
    served = tmp_path / "served"
    served.mkdir()
    for name in bhive.BHIVE_FILES:
        lines = (BHIVE / name).read_text().splitlines()[:ROWS]
        (served / name).write_text("\n".join(lines) + "\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(served)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("INVAR_BHIVE_URL", f"http://127.0.0.1:{server.server_address[1]}/")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("INVAR_DATA", raising=False)
    try:
        yield served, tmp_path / "cache" / "invar" / "bhive", server
    finally:
        server.shutdown()


def test_bhive_without_a_directory_downloads_into_the_cache_and_audits_unlabelled(invoke, mirror):
    served, cache, server = mirror
    args = ("audit", "--model", MODEL, "--dataset", "bhive", "--limit", "6", "--variants", "2", "--format", "json")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dataset"]["kind"] == "bhive-copy" and report["dataset"]["labelled"] == 0
    assert report["audited"] == 6 and report["metric"] is None and report["violation_rate"] is not None
    assert "note: no example has a label, so no MAPE is measured: audit with --oracle" in result.stderr
    assert result.stderr.startswith(f"downloading {len(bhive.BHIVE_FILES)} of BHive's CSVs into {cache} (once)")
    assert sorted(p.name.split("-", 1)[1] for p in cache.iterdir()) == sorted(bhive.BHIVE_FILES)
    # the same examples as a local copy of the same rows gives, by id
    local = invoke(
        "audit",
        "--model",
        MODEL,
        "--dataset",
        "bhive",
        "--data-dir",
        served,
        "--limit",
        "6",
        "--variants",
        "2",
        "--format",
        "jsonl",
    )
    ids = [json.loads(line)["id"] for line in local.stdout.splitlines() if '"type": "example"' in line]
    again = invoke(*args[:-2], "--format", "jsonl")
    assert [json.loads(line)["id"] for line in again.stdout.splitlines() if '"type": "example"' in line] == ids
    # once cached, no server is needed, and nothing is said about downloads
    server.shutdown()
    result = invoke(*args)
    assert result.exit_code == 0 and "downloading" not in result.stderr


def _mca_throughput(hexcode: str) -> float:
    """llvm-mca's Total Cycles / 100 for one block, run here directly."""
    text = decode(hexcode).render()
    out = subprocess.run(
        ["llvm-mca", "-mcpu=haswell", "-iterations=100"], input=text + "\n", capture_output=True, text=True, check=True
    ).stdout
    return int(re.search(r"Total Cycles:\s+(\d+)", out).group(1)) / 100


def test_with_oracle_the_audited_blocks_are_labelled_by_llvm_mca(invoke, mirror):
    result = invoke(
        "audit",
        "--model",
        MODEL,
        "--dataset",
        "bhive",
        "--limit",
        "4",
        "--variants",
        "2",
        "--oracle",
        "--format",
        "jsonl",
    )
    assert result.exit_code == 0, result.output
    assert "note:" not in result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    records = [r for r in lines if r["type"] == "example"]
    summary = lines[-1]
    assert len(records) == 4 and summary["metric"] is not None and summary["metric"]["name"] == "MAPE"
    shown = {path.name: path.read_text().splitlines() for path in mirror[0].iterdir()}
    for r in records:
        name, line = r["id"].rsplit(":", 1)
        hexcode = shown[name][int(line) - 1].split(",")[0]
        assert r["label"] == pytest.approx(_mca_throughput(hexcode)), r["id"]
        assert r["metric"] is not None and r["oracle"]["label"] == r["label"]
