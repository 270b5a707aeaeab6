"""``invar train``: a summary on success; a located one-line error, exit 1,
no traceback, on bad input."""

from __future__ import annotations

import json

import pytest
import torch

from invar import load_model
from invar.data import bhive
from invar.frontends.x86.hexblock import decode
from invar.nn.embeddings import PinnedViewEmbedding
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("bhive")
    bhive.build([str(FIXTURES / "x86" / "blocks.csv")], out, jobs=1)
    return out


def test_train_writes_a_checkpoint_and_reports(invoke, dataset, tmp_path):
    out = tmp_path / "m.pt"
    result = invoke("train", "--data", dataset, "--arch", "renamer", "--epochs", "2", "--batch-size", "8",
                    "--threads", "1", "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {out}: renamer tiny on bhive, 37 training programs, best validation MAPE ")
    assert "epoch 1/2: train loss" in result.stderr and "(best, saved)" in result.stderr
    result = invoke("train", "--data", dataset, "--arch", "spe", "--epochs", "1", "--limit", "8", "--threads", "1",
                    "--out", out, "--format", "json")
    summary = json.loads(result.stdout)
    assert (summary["schema"], summary["arch"], summary["train"], summary["valid"]) == (1, "spe", 8, 1)


def test_pinned_tokens_trains_a_renamer_that_reads_pinned_registers(invoke, dataset, tmp_path):
    out = tmp_path / "pinned.pt"
    result = invoke("train", "--data", dataset, "--arch", "renamer", "--pinned-tokens", "token", "--epochs", "1",
                    "--batch-size", "8", "--threads", "1", "--out", out)
    assert result.exit_code == 0, result.output
    model = load_model(out)
    assert model.config.pinned_tokens == "token" and isinstance(model.network.encoder.embed, PinnedViewEmbedding)
    programs = [decode(ex.source) for ex in bhive.read_split(dataset, "train")]
    assert any(model.encode(p).pinned.any() for p in programs)  # the fixture has pinned registers to read
    line = _error(invoke("train", "--data", dataset, "--arch", "vanilla", "--pinned-tokens", "token",
                         "--out", tmp_path / "v.pt"))
    assert "error: pinned_tokens applies to embedding='view', not 'learned'" in line


def _error(result) -> str:
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and result.stderr.strip().endswith(errors[0]), result.stderr
    return errors[0]


def test_unknown_architecture(invoke, dataset, tmp_path):
    line = _error(invoke("train", "--data", dataset, "--arch", "bert", "--out", tmp_path / "m.pt"))
    assert line.startswith("--arch: error: unknown architecture 'bert': choose from vanilla, augmented")


def test_missing_dataset(invoke, tmp_path):
    line = _error(invoke("train", "--data", tmp_path / "nowhere", "--arch", "renamer", "--out", tmp_path / "m.pt"))
    assert line == f"{tmp_path / 'nowhere'}: error: no such dataset directory (label blocks with: invar data bhive --out DIR)"


@pytest.mark.parametrize(
    "train_csv, expected",
    [
        ("hex,throughput\n", "train.csv: error: the train split is empty"),
        ("hex,throughput\n4801c3\n", "train.csv:2:1: error: unlabelled block (expected hex,throughput)"),
        ("hex,throughput\n4801c3,1.0\nzz,2.0\n", "train.csv:3:1: error: cannot read the stored program: not an even-length hex string"),
    ],
)
def test_empty_or_unlabelled_dataset(invoke, tmp_path, train_csv, expected):
    (tmp_path / "train.csv").write_text(train_csv)
    (tmp_path / "valid.csv").write_text("hex,throughput\n4801c3,1.0\n")
    line = _error(invoke("train", "--data", tmp_path, "--arch", "vanilla", "--out", tmp_path / "m.pt"))
    assert line.endswith(expected), line


def test_corrupt_or_foreign_training_state(invoke, dataset, tmp_path):
    out = tmp_path / "m.pt"
    state = tmp_path / "m.resume.pt"
    state.write_bytes(b"\x00garbage")
    line = _error(invoke("train", "--data", dataset, "--arch", "vanilla", "--out", out, "--resume", "--threads", "1"))
    assert line.startswith(f"{state}: error: not a readable checkpoint")
    invoke("train", "--data", dataset, "--arch", "vanilla", "--epochs", "1", "--out", out, "--threads", "1")
    line = _error(invoke("train", "--data", dataset, "--arch", "renamer", "--epochs", "2", "--out", out, "--resume",
                         "--threads", "1"))
    assert line.startswith(f"{state}: error: the saved training state is for other settings")
    saved = torch.load(state, weights_only=True)
    torch.save({**saved, "kind": "model"}, state)
    line = _error(invoke("train", "--data", dataset, "--arch", "vanilla", "--epochs", "2", "--out", out, "--resume",
                         "--threads", "1"))
    assert line == f"{state}: error: a model file, not a resume checkpoint"


def test_usage_errors_exit_2(invoke, dataset, tmp_path):
    result = invoke("train", "--data", dataset, "--arch", "renamer", "--out", tmp_path / "m.pt", "--size", "huge")
    assert result.exit_code == 2
    result = invoke("train", "--data", dataset, "--arch", "renamer", "--out", tmp_path / "m.pt", "--device", "cuda",
                    "--threads", "1")
    if not torch.cuda.is_available():
        assert result.exit_code == 2 and "no CUDA device" in result.stderr
