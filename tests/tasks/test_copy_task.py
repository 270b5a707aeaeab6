"""The copy task on fixtures/copy (tools/make_seq_fixtures.py): the data
command, the samplers of training strings, training of the extendable
architectures (their loss falls), strings over symbols training never used,
a vanilla model's refusal, results by cell, and the audit."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import torch

import invar
from invar.errors import ModelError
from invar.symmetry.spaces import renaming_space
from invar.tasks import copy
from invar.train import train
from tests.tasks.seq import COPY, COPY_QUICK


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = tmp_path_factory.mktemp("copy")
    quick = {**COPY_QUICK, "limit": 128}  # 3 epochs on the first 128 strings (32 validation ones)
    return {
        arch: (out / f"{arch}.pt", train(arch=arch, out=out / f"{arch}.pt", **quick))
        for arch in ("vanilla", "dualpart", "lexinvariant")
    }


def test_data_command_writes_the_fixture_again(tmp_path, invoke):
    result = invoke(
        "data",
        "copy",
        "--out",
        tmp_path,
        "--train",
        "400",
        "--valid",
        "50",
        "--test",
        "60",
        "--test-symbols",
        "10",
        "--max-length",
        "12",
        "--sampler",
        "uniform",
    )  # the sampler the fixture was written with
    assert result.exit_code == 0, result.output
    for name in ("train.txt", "valid.txt", "test.txt", "meta.json"):
        assert (tmp_path / name).read_text() == (COPY / name).read_text(), name
    train_symbols = set("".join(ex.source for ex in copy.read_split(COPY, "train")))
    assert train_symbols <= set("abcde")
    test = copy.read_split(COPY, "test")
    assert max(len(set(ex.source)) for ex in test) == 10 and max(len(ex.source) for ex in test) <= 12


def _distinct_counts(path) -> Counter:
    return Counter(len(set(line)) for line in path.read_text().split())


def _total_variation(a: Counter, b: Counter) -> float:
    na, nb = sum(a.values()), sum(b.values())
    return 0.5 * sum(abs(a[k] / na - b[k] / nb) for k in set(a) | set(b))


@pytest.mark.parametrize("sampler, close", [("distinct", True), ("uniform", False)])
def test_training_strings_drawn_like_test_strings_have_their_distinct_counts(tmp_path, sampler, close):
    """Over 4,000 draws of each split (test strings over as many symbols as
    training's, so that the two samplers can agree): the distinct sampler's
    training strings have the test strings' distribution of distinct counts
    (uniform on 1..5) and of lengths given the count; the uniform sampler's
    hold all five symbols about half the time and one symbol rarely."""
    meta = copy.generate(
        tmp_path,
        train=4000,
        valid=10,
        test=4000,
        train_symbols=5,
        test_symbols=5,
        max_length=20,
        seed=1,
        sampler=sampler,
    )
    train, test = _distinct_counts(tmp_path / "train.txt"), _distinct_counts(tmp_path / "test.txt")
    assert set(test) == {1, 2, 3, 4, 5} and max(abs(test[k] / 4000 - 0.2) for k in test) < 0.03
    assert (_total_variation(train, test) < 0.04) == close, (train, test)
    if close:
        for k in (1, 5):  # a length uniform in k..max_length, for each count
            lengths = [len(s) for s in (tmp_path / "train.txt").read_text().split() if len(set(s)) == k]
            assert abs(sum(lengths) / len(lengths) - (k + 20) / 2) < 1.0
    else:
        assert train[5] / 4000 > 0.4 and train[1] / 4000 < 0.1  # test strings: 0.2 each
    assert set("".join((tmp_path / "train.txt").read_text().split())) <= set("abcde")
    assert json.loads((tmp_path / "meta.json").read_text()).get("sampler") == (sampler if close else None)
    assert meta.get("sampler") == (sampler if close else None)


def test_the_samplers_share_the_test_split_and_unknown_ones_are_refused(tmp_path):
    """Test strings are drawn alike under either sampler (their law: at most
    --test-symbols distinct, at most --max-length long); an unknown sampler
    is a usage error."""
    copy.generate(tmp_path / "a", train=5, valid=5, test=50, test_symbols=10, max_length=12, sampler="distinct")
    test = (tmp_path / "a" / "test.txt").read_text().split()
    assert len(test) == 50 and max(len(set(s)) for s in test) <= 10 and max(len(s) for s in test) <= 12
    with pytest.raises(invar.errors.UsageError, match="--sampler"):
        copy.generate(tmp_path / "b", sampler="zipf")
    with pytest.raises(invar.errors.UsageError, match="is shorter than --test-symbols") as refused:
        copy.generate(tmp_path / "c", test_symbols=10, max_length=3)
    assert refused.value.path == "--max-length"  # the option named at the error's head


def test_results_by_cell_as_the_paper_lays_them_out():
    strings = ["ab", "ab", "aab", "abc", "a"]
    predictions = ["ab", "a", "aab", None, "b"]  # None: refused, as empty
    cells = copy.by_cell(strings, predictions)
    assert cells.distinct == (1, 2, 3) and cells.lengths == (1, 2, 3)
    assert cells.cells == {(2, 2): (0.5, 2), (2, 3): (0.0, 1), (3, 3): (3.0, 1), (1, 1): (1.0, 1)}
    assert cells.mean(2, 2) == 0.5 and cells.mean(3, 1) is None
    table = cells.markdown(1).splitlines()
    assert table[0] == "| distinct \\ length | 1 | 2 | 3 |"
    assert table[2:] == ["| 1 | 1.0 | – | – |", "| 2 | – | 0.5 | 0.0 |", "| 3 | – | – | 3.0 |"]


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
    test = [copy.parse(ex.source) for ex in copy.read_split(COPY, "test")]
    out = model.predict(test)
    assert all(set(y) <= set(p.lines[0].text) for p, y in zip(test, out))
    assert any(set(y) - set("abcde") for y in out)


def test_vanilla_refuses_symbols_it_never_saw(models):
    model = invar.load_model(models["vanilla"][0])
    with pytest.raises(ModelError, match="uses symbols? .*unsupported"):
        model.predict([copy.parse("aXbY")])


def test_checkpoint_round_trips_through_the_audit(models, invoke):
    path = models["dualpart"][0]
    report = invar.audit(model=str(path), dataset=str(COPY), limit=10, variants=3)
    assert report["dataset"]["split"] == "test" and report["audited"] == 10
    assert report["task"]["name"] == "copy" and report["metric"]["name"] == "edit distance"
    assert report["metric"]["original"] >= 0 and report["metric"]["f1"] is None
    assert all(g["metric"] is not None for g in report["alpha_covariance"]["by_referents"])
    result = invoke(
        "audit", "--model", path, "--dataset", COPY / "test.txt", "--limit", "4", "--variants", "2", "--quiet"
    )
    assert result.exit_code == 0, result.output
    assert "edit distance on originals" in result.stdout


@pytest.mark.parametrize("arch", ["vanilla", "dualpart", "lexinvariant"])
def test_copy_models_decode_greedily_unless_told(models, arch):
    """The paper decodes its copy models greedily; a beam is an option."""
    path, _ = models[arch]
    model = invar.load_model(path)
    assert model.config.beam == 1
    programs = [copy.parse(ex.source) for ex in copy.read_split(COPY, "test") if set(ex.source) <= set("abcde")][:8]
    encoded = [model.encode(p) for p in programs]
    assert model.predict(programs) == model.predict_encoded(encoded, beam=1)
    assert model.predict(programs, beam=3) == model.predict_encoded(encoded, beam=3)


def test_a_state_saved_with_another_beam_resumes(tmp_path):
    """The beam only says how a trained model decodes: a copy run cut while
    its models decoded with a beam of 3 resumes under the greedy default."""

    def interrupt(event, **info):
        if event == "epoch" and info["epoch"] == 1:
            raise KeyboardInterrupt

    quick = {**COPY_QUICK, "epochs": 2, "limit": 32}  # two batches an epoch: resuming is exact at any size
    train(arch="dualpart", out=tmp_path / "whole.pt", **quick)
    with pytest.raises(KeyboardInterrupt):
        train(arch="dualpart", out=tmp_path / "m.pt", progress=interrupt, overrides={"beam": 3}, **quick)
    run = train(arch="dualpart", out=tmp_path / "m.pt", resume=True, **quick)
    assert run.resumed_from == (1, 0) and invar.load_model(tmp_path / "m.pt").config.beam == 1
    # and it ends where the run that was never cut ends
    whole = invar.load_model(tmp_path / "whole.pt").network.state_dict()
    cut = invar.load_model(tmp_path / "m.pt").network.state_dict()
    assert [k for k in whole if not torch.equal(whole[k], cut[k])] == []
