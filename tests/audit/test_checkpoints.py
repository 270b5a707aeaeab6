"""Audits of invar checkpoints: the shipped renamer is invariant to renamings
on the shipped blocks (the first 141 of the 282 of their test split:
violation rate 0, alpha-covariance 1, spread 0) and the shipped vanilla is
not; an spe model is invariant to permutations; the
report does not depend on the batch size; TorchScript files are audited too."""

from __future__ import annotations

import math
from typing import List

import pytest
import torch

from invar import checkpoint
from invar.audit import audit
from invar.data.bhive import read_split
from invar.encoding import Vocab
from invar.nn.config import preset
from invar.nn.model import Model
from invar.tasks.bhive import TASK
from tests.conftest import FIXTURES

BLOCKS = str(FIXTURES / "blocks")
RENAMER = str(FIXTURES / "models" / "renamer.pt")
VANILLA = str(FIXTURES / "models" / "vanilla.pt")


#: the shipped test blocks audited: the first half (every referent count of the 282 is among them)
SHIPPED = 141

#: what a report records of how it was run, not of what was measured
HOW = {".run", ".config.batch_size"}


def comparable(a, b, rel: float = 1e-5, path: str = "") -> None:
    """``a`` and ``b`` are the same report, floats up to ``rel``, how it was run aside."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for k in a:
            if f"{path}.{k}" not in HOW:
                comparable(a[k], b[k], rel, f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            comparable(x, y, rel, f"{path}[{k}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-12), (path, a, b)
    else:
        assert a == b, (path, a, b)


@pytest.fixture(scope="module")
def shipped():
    return {
        name: audit(path, BLOCKS, limit=SHIPPED, variants=8, threads=1)
        for name, path in (("renamer", RENAMER), ("vanilla", VANILLA))
    }


def test_the_shipped_renamer_is_invariant_to_renamings(shipped):
    r = shipped["renamer"]
    assert (r.transform, r.task_symmetry, r.dataset["split"]) == ("renamings", True, "test")
    assert r.audited == r.examples == SHIPPED and r.errors == 0
    assert r.violation_rate == 0.0 and r.violations == 0
    assert r.alpha_covariance["mean"] == 1.0
    assert all(g["alpha_covariance"] == 1.0 for g in r.alpha_covariance["by_referents"])
    assert r.spread["range"]["max"] == 0.0 and r.spread["relative_range"]["max"] == 0.0
    assert r.metric["name"] == "MAPE" and r.metric["original"] < 60


def test_the_shipped_vanilla_is_not(shipped):
    v = shipped["vanilla"]
    assert v.audited == shipped["renamer"].audited
    assert v.violation_rate > 0.2 and v.alpha_covariance["mean"] < 1.0
    assert v.spread["relative_range"]["max"] > 0.01
    assert v.metric["worst"] > v.metric["original"]
    worst = v.worst_examples[0]
    assert worst["most_different"]["renaming"] and worst["most_different"]["changed"]


def test_an_spe_model_is_invariant_to_permutations(tmp_path):
    torch.manual_seed(0)
    programs = [TASK.parse(e.source) for e in read_split(BLOCKS, "train")[:200]]
    vocab = Vocab.build(programs)
    for arch in ("spe", "vanilla"):
        model = Model("bhive", preset(arch, "tiny").with_vocab(vocab), vocab)
        checkpoint.save(tmp_path / f"{arch}.pt", checkpoint.model_payload(model))
    spe = audit(str(tmp_path / "spe.pt"), BLOCKS, transform="permutations", limit=32, variants=8, threads=1)
    assert spe.task_symmetry is False
    assert spe.exhaustive < spe.audited == 32, "some blocks have more than 8 orders"
    assert spe.violation_rate == 0.0 and spe.alpha_covariance["mean"] == 1.0
    # the check has teeth: an untrained vanilla model moves under the same orders
    vanilla = audit(str(tmp_path / "vanilla.pt"), BLOCKS, transform="permutations", limit=32, variants=8, threads=1)
    assert vanilla.violation_rate > 0.3


def test_the_report_does_not_depend_on_the_batch_size():
    one = audit(VANILLA, BLOCKS, limit=20, variants=6, batch_size=1, threads=1)
    many = audit(VANILLA, BLOCKS, limit=20, variants=6, batch_size=64, threads=1)
    assert one.violations == many.violations > 0
    comparable(one.report, many.report)
    again = audit(VANILLA, BLOCKS, limit=20, variants=6, batch_size=64, threads=1)
    assert again.records == many.records and {k: v for k, v in again.report.items() if k != "run"} == {
        k: v for k, v in many.report.items() if k != "run"
    }


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_torchscript_model_reads_texts(tmp_path):
    class Percent(torch.nn.Module):
        def forward(self, texts: List[str]) -> torch.Tensor:
            out: List[float] = []
            for t in texts:
                out.append(float(t.count("%")) + 0.5)
            return torch.tensor(out)

    path = tmp_path / "percent.pt"
    torch.jit.script(Percent()).save(str(path))
    result = audit(str(path), BLOCKS, limit=20, variants=4)
    assert result.model == {"kind": "torchscript", "path": str(path)}
    assert result.audited == 20 and result.violation_rate == 0.0


def test_a_checkpoint_of_another_task_or_an_unsafe_file_is_refused(invoke, tmp_path):
    import pickle

    evil = tmp_path / "evil.pt"
    torch.save({"format": "invar-checkpoint", "fn": pickle.loads}, evil)
    result = invoke("audit", "--model", evil, "--dataset", BLOCKS)
    assert result.exit_code == 1 and "refused: the file holds objects other than weights" in result.stderr
    result = invoke("audit", "--model", RENAMER, "--task", "classify", "--dataset", BLOCKS)
    assert result.exit_code == 1 and "a checkpoint of the 'bhive' task, not 'classify'" in result.stderr


#: what schema 3 adds to a report (docs/audit.md): everything else is as schema 2 had it
SCHEMA_3 = ("config", "intervals", "paired", "noise", "sensitivity", "replies")


def test_a_checkpoints_default_report_is_schema_2s_apart_from_the_new_fields(monkeypatch):
    """The report the previous release wrote for this audit (tests/audit/data/schema2-vanilla.json,
    `invar audit --model fixtures/models/vanilla.pt --dataset fixtures/blocks --limit 70 --variants 4
    --threads 1 --format json`) is today's, field for field, once the fields schema 3 adds are set
    aside; float for float to float32 rounding (the file holds what another CPU's vector instructions
    computed, which round the same sums differently in the last bits)."""
    import json

    from invar.audit import audit
    from tests.conftest import ROOT

    monkeypatch.chdir(ROOT)
    before = json.loads((ROOT / "tests" / "audit" / "data" / "schema2-vanilla.json").read_text())
    now = audit("fixtures/models/vanilla.pt", "fixtures/blocks", limit=70, variants=4, threads=1).report
    assert now["schema"] == 3 and now["intervals"]["violation_rate"] is not None
    assert now["paired"] is None and now["noise"] is None and now["sensitivity"] is None and now["replies"] is None
    assert now["trivial"].pop("insensitive") is None
    assert now["dataset"].pop("files_without_programs") == 0  # added to schema 3 later, optional
    assert now.pop("labels_offered") is None  # as is this: a classify prompt's labels
    assert now.pop("labels_unanswerable") is None  # and those of them no reply can be read as
    kept = {k: v for k, v in now.items() if k not in SCHEMA_3 + ("run", "schema")}
    assert _close(kept, {k: v for k, v in before.items() if k not in ("run", "schema")})


def _close(a, b, path: str = "") -> bool:
    """``a`` and ``b`` alike, key for key and item for item, their floats to float32 rounding."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), (path, sorted(a.keys() ^ b.keys()))
        return all(_close(a[k], b[k], f"{path}.{k}") for k in a)
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        return all(_close(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6), (path, a, b)
        return True
    assert a == b, (path, a, b)
    return True
