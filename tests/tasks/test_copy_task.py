"""The copy task on fixtures/copy (tools/make_seq_fixtures.py): the data
command, training of the extendable architectures (their loss falls), strings
over symbols training never used, a vanilla model's refusal, and the audit."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import invar
from invar.cli.app import app
from invar.errors import ModelError
from invar.symmetry.spaces import renaming_space
from invar.tasks import copy
from invar.train import train
from tests.conftest import FIXTURES

DATA = FIXTURES / "copy"
QUICK = dict(task="copy", data=DATA, epochs=3, batch_size=16, threads=1, lr=1e-3, seed=2, limit=200)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = tmp_path_factory.mktemp("copy")
    return {arch: (out / f"{arch}.pt", train(arch=arch, out=out / f"{arch}.pt", **QUICK))
            for arch in ("vanilla", "dualpart", "lexinvariant")}


def test_data_command_writes_the_fixture_again(tmp_path):
    result = CliRunner().invoke(app, ["data", "copy", "--out", str(tmp_path), "--train", "400", "--valid", "50",
                                      "--test", "60", "--test-symbols", "10", "--max-length", "12"])
    assert result.exit_code == 0, result.output
    for name in ("train.txt", "valid.txt", "test.txt", "meta.json"):
        assert (tmp_path / name).read_text() == (DATA / name).read_text(), name
    train_symbols = set("".join(ex.source for ex in copy.read_split(DATA, "train")))
    assert train_symbols <= set("abcde")
    test = copy.read_split(DATA, "test")
    assert max(len(set(ex.source)) for ex in test) == 10 and max(len(ex.source) for ex in test) <= 12


def test_programs_rename_input_and_output_together():
    program = copy.parse("abca")
    assert program.lang == "copy" and program.render() == "abca\nabca"
    space = renaming_space(program)
    assert space.count() == 6
    assert {space.apply(program, r).render() for r in space.enumerate()} >= {"bacb\nbacb", "cbac\ncbac"}
    assert copy.undo("xyx", {"x": "a", "y": "b"}) == "aba"
    assert copy.edit_distance("kitten", "sitting") == 3
    with pytest.raises(invar.errors.ParseError, match="not a copy symbol"):
        copy.parse("ab1")


@pytest.mark.parametrize("arch", ["vanilla", "dualpart", "lexinvariant"])
def test_training_lowers_the_loss(models, arch):
    _, result = models[arch]
    losses = [h["train_loss"] for h in result.history]
    assert losses[-1] < losses[0], losses
    assert invar.load_model(models[arch][0]).config.head == "generate"


@pytest.mark.parametrize("arch", ["dualpart", "lexinvariant"])
def test_extendable_models_copy_symbols_they_never_saw(models, arch):
    model = invar.load_model(models[arch][0])
    test = [copy.parse(ex.source) for ex in copy.read_split(DATA, "test")]
    out = model.predict(test)
    assert all(set(y) <= set(p.lines[0].text) for p, y in zip(test, out))
    assert any(set(y) - set("abcde") for y in out)


def test_vanilla_refuses_symbols_it_never_saw(models):
    model = invar.load_model(models["vanilla"][0])
    with pytest.raises(ModelError, match="uses symbols? .*unsupported"):
        model.predict([copy.parse("aXbY")])


def test_checkpoint_round_trips_through_the_audit(models):
    path = models["dualpart"][0]
    report = invar.audit(model=str(path), dataset=str(DATA), limit=10, variants=3)
    assert report["dataset"]["split"] == "test" and report["audited"] == 10
    assert report["task"]["name"] == "copy" and report["metric"]["name"] == "edit distance"
    assert report["metric"]["original"] >= 0 and report["metric"]["f1"] is None
    assert all(g["metric"] is not None for g in report["alpha_covariance"]["by_referents"])
    result = CliRunner().invoke(app, ["audit", "--model", str(path), "--dataset", str(DATA / "test.txt"),
                                      "--limit", "4", "--variants", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "edit distance on originals" in result.stdout
