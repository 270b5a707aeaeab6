"""What the tests of the source-code tasks (names, bugs) share: the fixture
corpus as a dataset, every architecture trained a few steps on it, a
checkpoint through the audit, and sampled renamed / reordered / both
variants of its functions."""

from __future__ import annotations

import functools
import random
import shutil
from pathlib import Path

import pytest
import torch

from invar import load_model
from invar.encoding import permuted
from invar.nn.config import architectures
from invar.nn.model import to_device
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from invar.tasks import get_task
from invar.train import train
from tests.conftest import FIXTURES, Invoke

QUICK = {"batch_size": 16, "threads": 1, "limit": 96}


def corpus(root: Path, task: str) -> Path:
    """fixtures/python and fixtures/java copied into three directories of
    ``root/src`` (so every split gets some) and ``invar data TASK`` on them
    into ``root/data``; returns ``root``."""
    for d in ("a", "b", "c"):
        (root / "src" / d).mkdir(parents=True)
        for path in sorted((FIXTURES / "python").glob("*.py")) + sorted((FIXTURES / "java").glob("*.java")):
            shutil.copy(path, root / "src" / d / path.name)
    result = Invoke()("data", task, "--source", root / "src", "--out", root / "data", "--format", "json")
    assert result.exit_code == 0, result.output
    return root


def train_all(task: str, data: Path, out: Path) -> dict:
    """arch -> (checkpoint, the loss of every step, the TrainResult) of 2
    quick epochs of every architecture."""
    trained = {}
    for arch in architectures():
        steps = []
        result = train(
            task=task,
            data=data,
            arch=arch,
            epochs=2,
            out=out / f"{arch}.pt",
            progress=lambda event, **info: steps.append(info["loss"]) if event == "step" else None,
            **QUICK,
        )
        trained[arch] = (out / f"{arch}.pt", steps, result)
    return trained


def audit_round_trip(checkpoint: Path, root: Path, task: str) -> dict:
    """``invar audit`` of a checkpoint on the corpus at ``root`` (both
    transforms, 12 functions, JSON): the report names ``task``, audits at
    least 8 (the rest too long for the model) and finds no violation;
    returns the report."""
    report = Invoke().json(
        "audit",
        "--model",
        checkpoint,
        "--dataset",
        root / "data",
        "--transform",
        "both",
        "--variants",
        "4",
        "--limit",
        "12",
        "--format",
        "json",
    )
    assert report["task"]["name"] == task and report["task_symmetry"] is True
    assert report["audited"] + report["errors"] == 12 and report["audited"] >= 8
    assert all("this model takes 1 to 128" in f["error"] for f in report["failed"])  # only functions too long
    assert report["violation_rate"] == 0.0
    return report


def variants(model, data: Path, n: int = 15, lang: str = "python") -> list[tuple]:
    """(encoding, renamed encodings, reordered encodings, both) of up to
    ``n`` functions of the train and test splits with more than one renaming
    and more than one order."""
    rng = random.Random(2)
    task = get_task(model.task)
    out = []
    for ex in task.read_split(data, "train") + task.read_split(data, "test"):
        unit = parsed(model.task, ex.source)
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
    assert len(out) >= min(n, 15)
    return out


@functools.cache
def parsed(task: str, source: str):
    """``source`` parsed by ``task``: once for the session, as every call of
    :func:`variants` reads the same functions of the same splits."""
    return get_task(task).parse(source)


def spe_cases(test):
    """``test`` run for each language and each SPE architecture with the
    transforms it is invariant to (the kinds of :func:`assert_spe_invariant`)."""
    test = pytest.mark.parametrize("arch, kinds", [("spe", (2,)), ("renamer+spe", (1, 2, 3))])(test)
    return pytest.mark.parametrize("lang", ["python", "java"])(test)


def assert_spe_invariant(models: dict, root: Path, arch: str, kinds: tuple, lang: str, vanilla_moves: float) -> None:
    """``arch``'s logits agree within 1e-5 on each of 10 functions of the
    corpus at ``root`` in ``lang`` and its variants of ``kinds`` (1 renamed,
    2 reordered, 3 both); vanilla's move by more than ``vanilla_moves`` on at
    least 5 of 15 functions renamed and reordered."""
    model = load_model(models[arch][0])
    for group in variants(model, root / "data", n=10, lang=lang):
        for kind in kinds:
            out = logits(model, [group[0], *group[kind]])
            assert (out - out[0]).abs().max() <= 1e-5
    assert vanilla_moved(models["vanilla"][0], root, lang, vanilla_moves) >= 5


@functools.cache
def vanilla_moved(checkpoint: Path, root: Path, lang: str, by: float) -> int:
    """How many functions of the corpus at ``root`` in ``lang``, renamed and
    reordered, move the logits of the vanilla model at ``checkpoint`` by
    more than ``by``: computed once for the SPE architectures that compare
    against it (the same seeded variants of the same checkpoint)."""
    vanilla = load_model(checkpoint)
    moved = 0
    for group in variants(vanilla, root / "data", lang=lang):
        out = logits(vanilla, [group[0], *group[3]])
        moved += bool((out - out[0]).abs().max() > by)
    return moved


def logits(model, encoded) -> torch.Tensor:
    """(len(encoded), outputs): the network's raw outputs, one program at a time."""
    with torch.inference_mode():
        return torch.cat([model.network(to_device(model.collate([e]), "cpu")).reshape(1, -1) for e in encoded])
