"""What the tests of the source-code tasks (names, bugs) share: the fixture
corpus as a dataset, every architecture trained a few steps on it, and
sampled renamed / reordered / both variants of its functions."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import torch
from typer.testing import CliRunner

from invar.cli.app import app
from invar.encoding import permuted
from invar.nn.config import architectures
from invar.nn.model import to_device
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from invar.tasks import get_task
from invar.train import train
from tests.conftest import FIXTURES

QUICK = {"batch_size": 16, "threads": 1, "limit": 96}


def corpus(root: Path, task: str) -> Path:
    """fixtures/python and fixtures/java copied into three directories of
    ``root/src`` (so every split gets some) and ``invar data TASK`` on them
    into ``root/data``; returns ``root``."""
    for d in ("a", "b", "c"):
        (root / "src" / d).mkdir(parents=True)
        for path in sorted((FIXTURES / "python").glob("*.py")) + sorted((FIXTURES / "java").glob("*.java")):
            shutil.copy(path, root / "src" / d / path.name)
    result = CliRunner().invoke(
        app, ["data", task, "--source", str(root / "src"), "--out", str(root / "data"), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    return root


def train_all(task: str, data: Path, out: Path) -> dict:
    """arch -> (checkpoint, the loss of every step, the TrainResult) of 4
    quick epochs of every architecture."""
    trained = {}
    for arch in architectures():
        steps = []
        result = train(
            task=task,
            data=data,
            arch=arch,
            epochs=4,
            out=out / f"{arch}.pt",
            progress=lambda event, **info: steps.append(info["loss"]) if event == "step" else None,
            **QUICK,
        )
        trained[arch] = (out / f"{arch}.pt", steps, result)
    return trained


def variants(model, data: Path, n: int = 30, lang: str = "python") -> list[tuple]:
    """(encoding, renamed encodings, reordered encodings, both) of up to
    ``n`` functions of the train and test splits with more than one renaming
    and more than one order."""
    rng = random.Random(2)
    task = get_task(model.task)
    out = []
    for ex in task.read_split(data, "train") + task.read_split(data, "test"):
        unit = task.parse(ex.source)
        if unit.lang != lang or not model.fits(unit):
            continue
        names, orders = renaming_space(unit), PermutationSpace(unit)
        if names.count() < 2 or orders.count() < 2:
            continue
        enc = model.encode(unit)
        renamed = [model.encode(names.apply(unit, r)) for r in names.sample(4, rng)]
        reordered = [permuted(enc, t) for t in orders.sample(4, rng)]
        both = [
            permuted(model.encode(names.apply(unit, r)), t) for r, t in zip(names.sample(4, rng), orders.sample(4, rng))
        ]
        out.append((enc, renamed, reordered, both))
        if len(out) == n:
            break
    assert len(out) >= 15
    return out


def logits(model, encoded) -> torch.Tensor:
    """(len(encoded), outputs): the network's raw outputs, one program at a time."""
    with torch.inference_mode():
        return torch.cat([model.network(to_device(model.collate([e]), "cpu")).reshape(1, -1) for e in encoded])
