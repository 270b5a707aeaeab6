"""Canonicalized sequence models trained a few steps on fixtures/ltl and
fixtures/copy: exactly alpha-covariant on every formula (string) of the
fixture set under every renaming up to a bound, greedy and beam; the audit
(library and ``invar audit --format json``) reports alpha-covariance 1.0 and
no violation; they answer inputs with more distinct names than training saw;
``invar train``, ``invar predict`` and checkpoints reach them."""

from __future__ import annotations

import random

import pytest

import invar
from invar.encoding import renamed
from invar.frontends.ltl.check import satisfying_trace
from invar.frontends.ltl.formula import to_polish
from invar.frontends.ltl.generate import random_formula
from invar.frontends.ltl.trace import to_trace_text
from invar.symmetry.renamings import Renaming
from invar.symmetry.spaces import renaming_space
from invar.tasks import copy, ltl
from invar.train import train
from tests.tasks.seq import AE, COPY, COPY_QUICK, FJ, LTL_QUICK, audit_json, train_ltl

ARCHS = ("canonicalized", "canonicalized+dualpart")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = tmp_path_factory.mktemp("canonical")
    trained = {}
    for arch in ARCHS:
        # a dual-part model's inputs, scaled by sqrt(d), start slower: after three epochs it writes no correct
        # trace yet, after six it does (six epochs on the first 160 formulas are enough: 13 of 40 right);
        # the first 160 formulas are enough for the other too (11 of 40 right, as after all 305)
        epochs = 6 if arch.endswith("dualpart") else LTL_QUICK["epochs"]
        quick = {**LTL_QUICK, "epochs": epochs, "limit": 160}
        trained["ltl", arch] = (out / f"ltl-{arch}.pt", train(arch=arch, out=out / f"ltl-{arch}.pt", **quick))
    trained["copy", "canonicalized+dualpart"] = (  # exact by construction: 64 strings are enough for its loss to fall
        out / "copy.pt",
        train(arch="canonicalized+dualpart", out=out / "copy.pt", **{**COPY_QUICK, "limit": 64}),
    )
    return trained


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A pair file of formulas over 6 to 8 distinct APs (training's have at
    most 5), each with a satisfying trace."""
    rng = random.Random(7)
    lines = []
    while len(lines) < 10:
        k = rng.randint(6, 8)
        f = random_formula(rng, rng.randint(2 * k, 2 * k + 4), ltl.POOL[:k])
        polish = to_polish(f)
        trace = satisfying_trace(f, max_states=2000, timeout=5)
        if len(set(ltl.parse(polish).referents)) >= 6 and trace is not None:
            lines.append(f"{polish}\t{to_trace_text(trace)}\n")
    path = tmp_path_factory.mktemp("wide") / "wide.ltl"
    path.write_text("".join(lines))
    return path


def _ltl(path, n=None):
    return [ltl.parse(ex.source) for ex in ltl.read_pairs(path)][:n]


def _renamings(program, pool, extra=2, limit=60):
    """Every renaming into the program's own names and ``extra`` more of the
    pool, up to ``limit`` (lexicographic order), and one into the pool's far end."""
    used = list(dict.fromkeys(program.referents))
    fresh = [n for n in pool if n not in used][:extra]
    return list(renaming_space(program, pool=used + fresh).enumerate(limit=limit)) + [
        Renaming(tuple(zip(used, reversed(pool))))
    ]


def _assert_covariant(model, programs, pool, beam):
    task = model._task
    encoded = [model.encode(p) for p in programs]
    before = model.predict_encoded(encoded, beam=beam)
    n = 0
    for program, enc, y in zip(programs, encoded, before):
        rs = _renamings(program, pool)
        got = model.predict_encoded([renamed(enc, r, model.vocab) for r in rs], beam=beam)
        for r, out in zip(rs, got):
            assert out == task.undo(y, dict(r.mapping)), (program.render(), r.mapping, y, out)
        n += len(rs)
    return before, n


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("beam", [1, 3])
def test_trained_ltl_models_are_exactly_covariant(models, arch, beam):
    path, result = models["ltl", arch]
    losses = [h["train_loss"] for h in result.history]
    assert losses[-1] < 0.75 * losses[0], losses
    model = invar.load_model(path)
    assert model.config.canonicalize and model.config.head == "generate" and model.config.arch == arch
    programs = _ltl(AE, 40)
    before, n = _assert_covariant(model, programs, ltl.POOL, beam)
    assert n > 600
    assert sum(ltl.is_correct(y, ltl.label_of(p)) for p, y in zip(programs, before)) >= 10  # it has learned


@pytest.mark.parametrize("arch", ARCHS)
def test_they_answer_formulas_with_more_aps_than_training_had(models, arch, wide, invoke):
    model = invar.load_model(models["ltl", arch][0])
    programs = _ltl(wide)
    before, _ = _assert_covariant(model, programs, ltl.POOL, beam=3)
    for p, y in zip(programs, before):
        assert isinstance(y, str) and {c for c in y if c.isalpha() and c.islower()} <= set(p.referents)
    result = invoke("predict", "--model", models["ltl", arch][0], wide)
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[1] for line in result.stdout.splitlines()] == before


@pytest.mark.parametrize("arch", ARCHS)
def test_the_audit_reports_exact_alpha_covariance(models, arch, wide):
    path = models["ltl", arch][0]
    for dataset in (AE, wide):
        report = audit_json(path, dataset, 40, 12, "--task", "ltl")
        assert report["errors"] == 0 and report["audited"] == min(40, len(_ltl(dataset)))
        assert report["violation_rate"] == 0.0 and report["alpha_covariance"]["mean"] == 1.0
        assert all(g["alpha_covariance"] == 1.0 for g in report["alpha_covariance"]["by_referents"])
    groups = {g["referents"] for g in report["alpha_covariance"]["by_referents"]}
    assert max(groups) >= 6


def test_trained_copy_model_is_exactly_covariant_past_its_symbols(models):
    path, result = models["copy", "canonicalized+dualpart"]
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    model = invar.load_model(path)
    test = [copy.parse(ex.source) for ex in copy.read_split(COPY, "test")[:30]]
    assert max(len(set(p.referents)) for p in test) > 5  # training strings use a-e only
    before, n = _assert_covariant(model, test, copy.POOL, beam=3)
    assert n > 1000 and all(set(y) <= set(p.lines[0].text) for p, y in zip(test, before))
    report = audit_json(path, COPY, 30, 12, "--task", "copy")
    assert report["audited"] == 30 and report["violation_rate"] == 0.0
    assert report["alpha_covariance"]["mean"] == 1.0


def test_train_command_reaches_it_and_the_checkpoint_round_trips(tmp_path, invoke):
    out = tmp_path / "m.pt"
    train_ltl("canonicalized+lexinvariant", out)
    a, b = invar.load_model(out), invar.load_model(out)
    assert a.config == b.config and a.config.canonicalize and a.config.embedding == "lexinvariant"
    assert a.config.adacos  # random embeddings train as the interchangeable-token paper's
    programs = _ltl(FJ, 12)
    assert a.predict(programs) == b.predict(programs)
    result = invoke(
        "train", "--task", "bhive", "--data", tmp_path, "--arch", "canonicalized+dualpart", "--out", tmp_path / "x.pt"
    )
    assert result.exit_code == 2 and "for sequence tasks" in result.stderr and "Traceback" not in result.output


def test_an_output_it_cannot_map_back_is_that_program_error(tmp_path, invoke):
    """restrict_output=False: a canonical name the input lacks is reported
    at that program's location by invar predict (exit 1) and as that
    example's error by the audit; every other program is answered."""
    from invar import checkpoint
    from tests.nn.test_canonical import _model

    model = _model("ltl", "canonicalized+lexinvariant", seed=0, restrict_output=False)
    path = tmp_path / "open.pt"
    checkpoint.save(path, checkpoint.model_payload(model))
    formulas = ["Xa", "Fb", "Gc", "!d", "&aXa", "Fe", "XXa", "GFb", "&a&b&c&d&e&f&g&hi", "|a|b|c|d|e|f|g|h|i|j|kl"]
    data = tmp_path / "f.ltl"
    data.write_text("".join(f"{f}\ta;{{1}}\n" for f in formulas))
    out = invar.load_model(path).predict([ltl.parse(f) for f in formulas])
    bad = [k for k, y in enumerate(out) if not isinstance(y, str)]
    assert bad and len(bad) < len(formulas)
    result = invoke("predict", "--model", path, data)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.stdout.splitlines()) == len(formulas) - len(bad)
    for k in bad:
        assert f"{data}:{k + 1}:1: error: the model wrote" in result.stderr
    report = invar.audit(model=str(path), dataset=str(data), variants=3)
    assert report["errors"] >= len(bad) and report["audited"] + report["errors"] == len(formulas)
    assert any("a canonical name the input does not hold" in f["error"] for f in report["failed"])
