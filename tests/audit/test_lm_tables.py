"""The audit of a language model under lexical permutations (renamings of
the characters a window uses), with ``lexinvariant_table`` ``own`` or
``along``: a lexinvariant LM read with its table permuted along is exactly
invariant, with its own table it is not; a learned LM is not, either way,
and the report says which table was read. Untrained and trained models."""

from __future__ import annotations

import pytest
import torch

import invar
from invar import load_model
from invar.audit.models import CheckpointAdapter
from invar.audit.run import Settings, run_chunk
from invar.audit.datasets import load
from invar.errors import UsageError
from invar.nn.model import Model
from invar.tasks import get_task, lm
from tests.conftest import FIXTURES, LM_EMBEDDINGS, char_windows

QUICK = {"epochs": 2, "batch_size": 16, "limit": 64, "threads": 1, "lr": 2e-3}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return char_windows(tmp_path_factory.mktemp("lm-audit") / "chars")


@pytest.fixture(scope="module")
def models(data, tmp_path_factory):
    """(embedding, trained) -> a loaded model; untrained: the trained one's
    config and vocabulary with fresh weights."""
    root = tmp_path_factory.mktemp("lm-audit-models")
    out = {}
    for name, (arch, overrides) in LM_EMBEDDINGS.items():
        invar.train(task="lm", data=data, arch=arch, out=root / f"{name}.pt", overrides=overrides, **QUICK)
        trained = load_model(root / f"{name}.pt")
        torch.manual_seed(7)
        out[name, True] = trained
        out[name, False] = Model("lm", trained.config, trained.vocab, languages=trained.languages)
    return out


def _records(model, data, table: str, n: int = 8, k: int = 6) -> list[dict]:
    """Every example's record with every variant's loss (``predictions``)."""
    task = get_task("lm")
    examples = load(str(data), task=task, split="valid", limit=n).examples
    settings = Settings(variants=k, keep_predictions=True)
    return run_chunk(examples, CheckpointAdapter(model, table=table), task, settings)


@pytest.mark.parametrize("trained", [False, True], ids=["untrained", "trained"])
def test_lexinvariant_with_its_table_along_is_exactly_invariant(models, data, trained):
    model = models["lexinvariant", trained]
    records = _records(model, data, "along")
    assert records and all(r["error"] is None for r in records)
    for r in records:
        assert len(r["predictions"]) == 6 and not r["exhaustive"] and int(r["space"]) > 6
        assert all(abs(p - r["prediction"]) < 1e-5 for p in r["predictions"]), r["predictions"]
    report = invar.audit(model, str(data), split="valid", limit=8, variants=6, lexinvariant_table="along")
    assert report.violation_rate == 0 and report["table"] == "along" and report.header["table"] == "along"
    assert report["spread"]["range"]["max"] <= 1e-5


@pytest.mark.parametrize("trained", [False, True], ids=["untrained", "trained"])
def test_lexinvariant_with_its_own_table_is_invariant_in_distribution_only(models, data, trained):
    model = models["lexinvariant", trained]
    records = _records(model, data, "own")
    gaps = [abs(p - r["prediction"]) for r in records for p in r["predictions"]]
    assert max(gaps) > 1e-3
    report = invar.audit(model, str(data), split="valid", limit=8, variants=6)
    assert report.violation_rate > 0 and report["table"] == "own"


@pytest.mark.parametrize("name", ["learned", "regularised"])
@pytest.mark.parametrize("trained", [False, True], ids=["untrained", "trained"])
def test_a_learned_table_is_not_invariant_either_way_and_along_changes_nothing(models, data, name, trained):
    model = models[name, trained]
    own, along = _records(model, data, "own"), _records(model, data, "along")
    assert own == along
    assert max(abs(p - r["prediction"]) for r in own for p in r["predictions"]) > 1e-3
    for table in ("own", "along"):
        report = invar.audit(model, str(data), split="valid", limit=8, variants=6, lexinvariant_table=table)
        assert report.violation_rate > 0 and report["table"] == "learned"


@pytest.mark.parametrize("trained", [False, True], ids=["untrained", "trained"])
def test_a_batch_of_different_renamings_gives_each_ones_loss(models, data, trained):
    """Windows under different renamings, read with their tables along in
    one forward (the model batches windows of one length) and one at a time."""
    import random

    from invar.encoding import renamed

    model = models["lexinvariant", trained]
    rng = random.Random(4)
    originals, variants, maps = [], [], set()
    for ex in lm.read_split(data, "valid")[:10]:
        window = lm.parse(ex.source)
        enc = model.encode(window)
        renaming = lm.renaming_space(window).sample(1, rng)[0]
        originals.append(enc)
        variants.append(renamed(enc, renaming, model.vocab))
        maps.add(tuple(renaming.mapping))
    assert len(maps) == len(variants)
    together = model.predict_encoded(variants, batch_size=16, along=originals)
    alone = [model.predict_encoded([v], batch_size=1, along=[o])[0] for o, v in zip(originals, variants)]
    assert together == pytest.approx(alone, abs=1e-6)
    own = model.predict_encoded(originals, batch_size=16)
    assert together == pytest.approx(own, abs=1e-5)


@pytest.mark.parametrize(
    "model, what",
    [(str(FIXTURES / "models" / "renamer.pt"), "a bhive model"), (lambda texts: [1.0] * len(texts), "a callable")],
)
def test_along_is_refused_for_a_model_that_is_no_language_model(model, what):
    with pytest.raises(UsageError, match=f"along is for invar language models \\(lm checkpoints\\), not {what}$"):
        invar.audit(model, str(FIXTURES / "blocks"), limit=2, lexinvariant_table="along", task="bhive")


def test_own_is_the_default_and_no_language_model_reports_no_table():
    with pytest.raises(UsageError, match="choose from own, along"):
        invar.audit(
            str(FIXTURES / "models" / "renamer.pt"), str(FIXTURES / "blocks"), limit=2, lexinvariant_table="fresh"
        )
    report = invar.audit(str(FIXTURES / "models" / "renamer.pt"), str(FIXTURES / "blocks"), limit=2)
    assert report["table"] is None


@pytest.fixture(scope="module")
def token_lm(tmp_path_factory):
    """A lexinvariant LM over the Python frontend's token streams (windows of 48 tokens)."""
    root = tmp_path_factory.mktemp("lm-audit-tokens")
    lm.build(FIXTURES / "python", root / "data", vocab="tokens", seq_len=48)
    invar.train(task="lm", data=root / "data", arch="lexinvariant", out=root / "m.pt", **QUICK)
    return root


def test_token_windows_along_are_exact_or_fail_saying_why(token_lm):
    """Renamings of a token window's referents: with the table along, every
    audited window keeps its loss; a window whose renaming reaches a name the
    vocabulary lacks (its unknown id, shared) fails, saying so; with its own
    table the model is not invariant."""
    how = {"split": "train", "limit": 40, "variants": 6, "transform": "both"}
    along = invar.audit(str(token_lm / "m.pt"), str(token_lm / "data"), lexinvariant_table="along", **how)
    assert along.violation_rate == 0 and along["audited"] >= 10
    assert all("no table can be permuted along it" in f["error"] and f["stage"] == "model" for f in along["failed"])
    assert any(int(r["space"]) > 1 for r in along.records if r["error"] is None)
    own = invar.audit(str(token_lm / "m.pt"), str(token_lm / "data"), **how)
    assert own.violation_rate > 0 and own["errors"] == 0
