"""Training, prediction and the audit on a CUDA device: the same programs
give the same answers as on the CPU (within float tolerance for numbers,
exactly for written sequences on a model this small). These tests run where
``torch.cuda.is_available()`` and are reported as skipped elsewhere; where
no device is present, asking for one is a usage error (exit 2) with a
one-line message."""

from __future__ import annotations

import json
import math
import shutil

import pytest
import torch

import invar
from invar.data import bhive
from invar.train import train
from tests.conftest import FIXTURES

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no CUDA device on this machine")
BLOCKS = FIXTURES / "blocks"


def _programs(limit: int = 40):
    from invar.tasks.bhive import TASK

    return [TASK.parse(ex.source) for ex in list(bhive.read_split(BLOCKS, "test"))[:limit]]


@pytest.fixture(scope="module")
def blocks(tmp_path_factory):
    out = tmp_path_factory.mktemp("blocks")
    shutil.copytree(BLOCKS, out / "data")
    return out / "data"


@needs_cuda
@pytest.mark.parametrize("arch", ["vanilla", "renamer", "renamer+spe", "dualpart"])
def test_training_on_cuda_then_predicting_on_either_device(arch, blocks, tmp_path):
    out = tmp_path / "m.pt"
    result = train(data=blocks, arch=arch, epochs=2, out=out, batch_size=16, limit=200, device="cuda", seed=1)
    assert len(result.history) == 2 and result.best_epoch >= 1
    on_gpu = invar.load_model(out, device="cuda").predict(_programs())
    on_cpu = invar.load_model(out).predict(_programs())
    assert on_gpu == pytest.approx(on_cpu, rel=1e-3)


@needs_cuda
def test_a_sequence_model_on_cuda(tmp_path):
    out = tmp_path / "copy.pt"
    train(
        task="copy", data=FIXTURES / "copy", arch="dualpart", epochs=1, batch_size=16, limit=100, device="cuda", out=out
    )
    model = invar.load_model(out, device="cuda")
    from invar.tasks import get_task

    task = get_task("copy")
    programs = [task.parse(ex.source) for ex in list(task.dataset(str(FIXTURES / "copy"), "test"))[:10]]
    assert model.predict(programs) == invar.load_model(out).predict(programs)


@needs_cuda
@pytest.mark.parametrize("precision", ["tf32", "bf16"])
def test_lower_precision_training_on_cuda(precision, blocks, tmp_path):
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    result = train(
        data=blocks,
        arch="renamer",
        epochs=3,
        out=tmp_path / "m.pt",
        batch_size=16,
        limit=200,
        device="cuda",
        seed=1,
        precision=precision,
        lr=1e-3,
    )
    losses = [h["train_loss"] for h in result.history]
    assert all(math.isfinite(x) for x in losses) and losses[-1] < losses[0], losses
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before
    predictions = invar.load_model(tmp_path / "m.pt", device="cuda").predict(_programs())
    assert all(math.isfinite(p) and p > 0 for p in predictions)


@needs_cuda
def test_predict_and_audit_on_cuda_from_the_command_line(invoke):
    model = str(FIXTURES / "models" / "renamer.pt")
    on_gpu = invoke.json(
        "audit",
        "--model",
        model,
        "--dataset",
        str(BLOCKS),
        "--limit",
        "20",
        "--variants",
        "3",
        "--device",
        "cuda",
        "--format",
        "json",
    )
    result = invoke(
        "audit", "--model", model, "--dataset", str(BLOCKS), "--limit", "20", "--variants", "3", "--format", "json"
    )
    on_cpu = json.loads(result.stdout)
    assert on_gpu["violation_rate"] == on_cpu["violation_rate"] == 0 and on_gpu["audited"] == on_cpu["audited"]
    blocks_file = str(FIXTURES / "x86" / "blocks.csv")
    gpu = invoke("predict", "--model", model, blocks_file, "--device", "cuda", "--format", "json")
    cpu = invoke("predict", "--model", model, blocks_file, "--format", "json")
    assert gpu.exit_code == cpu.exit_code
    assert [p["prediction"] for p in json.loads(gpu.stdout)["predictions"]] == pytest.approx(
        [p["prediction"] for p in json.loads(cpu.stdout)["predictions"]], rel=1e-3
    )


@pytest.mark.skipif(CUDA, reason="a CUDA device is present")
@pytest.mark.parametrize(
    "command",
    [
        ("predict", "--model", str(FIXTURES / "models" / "vanilla.pt"), str(FIXTURES / "x86" / "blocks.csv")),
        ("audit", "--model", str(FIXTURES / "models" / "vanilla.pt"), "--dataset", str(BLOCKS), "--limit", "2"),
        ("train", "--data", str(BLOCKS), "--arch", "vanilla", "--out", "never.pt", "--limit", "8"),
    ],
)
def test_asking_for_cuda_without_a_device_is_a_usage_error(invoke, command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*command, "--device", "cuda")
    assert result.exit_code == 2, result.output
    assert "--device cuda: no CUDA device is available" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "never.pt").exists()
