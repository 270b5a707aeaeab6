"""bench/gpu_studies.sh --tiny: the GPU studies' pipeline end to end on the
CPU (the fixtures, tiny sizes, an epoch each): every study writes its
report, the LTL runs train with the authors' recipe, and the table puts
every figure beside the paper's; bench/gpu_table.py on studies that did
not run."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import torch

from tests.bench import bench_module
from tests.conftest import ROOT

SCRIPT = ROOT / "bench" / "gpu_studies.sh"


@pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("llvm-mca") is None,
    reason="needs bash, and llvm-mca for the BHive study's renamed test labels",
)
def test_the_tiny_studies_run_end_to_end(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", str(SCRIPT), "--tiny", "--out", str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = json.loads((out / "gpu-studies.json").read_text())
    assert [(r["study"].split(",")[0], r["model"]) for r in rows] == [
        ("BHive", "renamer"),
        ("BHive", "vanilla"),
        ("LTL", "dualpart-recipe"),
        ("LTL", "dualpart-recipe-unscaled"),
        ("LM", "learned"),
        ("LM", "lexinvariant"),
    ]
    assert all(r["epochs"] == 1 and r["stopped_by"] == "epoch cap" for r in rows)
    table = (out / "gpu-studies.md").read_text()
    assert table.count("\n") == 2 + len(rows) and "2.39 %" in table and "95.94 %" in table and "×)" in table
    assert table in done.stdout
    for variant, scaling in (("recipe", "sqrtd"), ("recipe-unscaled", "none")):
        record = json.loads((out / "ltl" / f"dualpart-{variant}.json").read_text())
        assert (record["weight_decay"], record["beta2"]) == (0.1, 0.95) and record["test"]["examples"] == 6
        ckpt = torch.load(out / "ltl" / f"dualpart-{variant}.pt", weights_only=True)
        config = ckpt["config"]
        assert (config["n_head"], config["norm_position"], config["random_draw"], config["embed_scaling"]) == (
            8,
            "post",
            "batch",
            scaling,
        )
        groups = torch.load(out / "ltl" / f"dualpart-{variant}.resume.pt", weights_only=True)["optimizer"]
        assert groups["param_groups"][0]["weight_decay"] == 0.1 and groups["param_groups"][0]["betas"] == (0.9, 0.95)
    bhive = json.loads((out / "bhive" / "runs" / "renamer-64-s0.json").read_text())
    assert (bhive["train_size"], bhive["lr"], bhive["time_limit"]) == (64, 3e-4, 600.0)
    lex = json.loads((out / "lm-lexinvariant" / "lm-curves.json").read_text())["runs"][0]
    assert lex["model"] == "lexinvariant" and lex["curve"]["window"] == 20
    assert (
        torch.load(out / "lm-lexinvariant" / "lexinvariant-s0.pt", weights_only=True)["config"]["random_vectors"]
        == "unit"
    )


def test_the_table_says_which_studies_did_not_run(tmp_path, capsys):
    text = bench_module("gpu_table").main([str(tmp_path)])
    rows = text.splitlines()[2:]
    assert len(rows) == 3 and all("not run (no report)" in r for r in rows)
    assert (tmp_path / "gpu-studies.md").read_text() == text + "\n"
