"""``invar data lm``, ``invar train --task lm`` and ``invar predict`` on a
language model: each embedding trains and its loss falls, checkpoints
round-trip, p = 0 trains the learned model exactly, and bad input is a
located one-line error."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from invar import load_model
from invar.nn.lm import position_losses
from invar.tasks import lm
from invar.train import train
from tests.conftest import FIXTURES, LM_EMBEDDINGS, char_windows

QUICK = {"batch_size": 16, "threads": 1, "limit": 160, "lr": 2e-3}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return char_windows(tmp_path_factory.mktemp("lm") / "chars")


@pytest.fixture(scope="module")
def trained(data, tmp_path_factory):
    """embedding -> (checkpoint, every step's loss) after 3 quick epochs."""
    root = tmp_path_factory.mktemp("lm-models")
    out = {}
    for name, (arch, overrides) in LM_EMBEDDINGS.items():
        steps = []
        train(
            task="lm",
            data=data,
            arch=arch,
            epochs=3,
            out=root / f"{name}.pt",
            overrides=overrides,
            progress=lambda event, **info: steps.append(info["loss"]) if event == "step" else None,
            **QUICK,
        )
        out[name] = (root / f"{name}.pt", steps)
    return out


@pytest.mark.parametrize("name", list(LM_EMBEDDINGS))
def test_each_embedding_trains_and_its_loss_falls(trained, name):
    path, steps = trained[name]
    assert len(steps) == 3 * 10
    assert np.mean(steps[-5:]) < np.mean(steps[:5]) - 0.3, steps
    model = load_model(path)
    assert (model.task, model.config.head, model.config.positions, model.languages) == (
        "lm",
        "lm",
        "rotary",
        ("chars",),
    )
    history = model.metrics["history"]
    assert history[-1]["valid_perplexity"] == pytest.approx(np.exp(history[-1]["valid_loss"]))
    assert model.config.lexinvariant_p == (LM_EMBEDDINGS[name][1] or {}).get("lexinvariant_p")


def test_p0_trains_the_learned_model_exactly(data, tmp_path):
    """Two short runs alike but for the embedding (two epochs of two steps:
    the steps are the same at any length) end with the same weights."""
    quick = {**QUICK, "limit": 32}
    arch, overrides = LM_EMBEDDINGS["learned"]
    train(task="lm", data=data, arch=arch, epochs=2, out=tmp_path / "learned.pt", overrides=overrides, **quick)
    train(
        task="lm",
        data=data,
        arch="lexinvariant",
        epochs=2,
        out=tmp_path / "p0.pt",
        overrides={"lexinvariant_p": 0.0},
        **quick,
    )
    a = load_model(tmp_path / "learned.pt").network.state_dict()
    b = load_model(tmp_path / "p0.pt").network.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("name", list(LM_EMBEDDINGS))
def test_checkpoints_round_trip_through_predict(invoke, data, trained, name, tmp_path):
    path = trained[name][0]
    model = load_model(path)
    windows = [lm.parse(ex.source) for ex in lm.read_split(data, "valid")]
    expected = position_losses(model.network, [model.encode(w) for w in windows])
    result = invoke("predict", "--model", path, data / "valid.csv", "--format", "json")
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)["predictions"]
    assert [r["prediction"] for r in records] == pytest.approx([x.mean() for x in expected], abs=1e-6)
    assert records[0]["location"] == f"{data / 'valid.csv'}:2"
    result = invoke(
        "predict",
        "--model",
        path,
        FIXTURES / "python" / "arith.py",
        "--per-position",
        "--curve",
        tmp_path / "curve.json",
        "--window",
        "20",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(windows)  # arith.py is the validation file, cut the same way
    first = lines[0].split("\t")
    assert first[0] == f"{FIXTURES / 'python' / 'arith.py'}:1"
    assert [float(x) for x in first[2].split()] == pytest.approx(expected[0].tolist(), abs=1e-4)
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert curve["window"] == 20 and curve["loss"] == pytest.approx(lm.curve(expected, 20)["loss"])


def test_data_lm_command(invoke, tmp_path):
    meta = invoke.json(
        "data",
        "lm",
        "--source",
        FIXTURES / "java",
        "--out",
        tmp_path / "d",
        "--vocab",
        "tokens",
        "--seq-len",
        "100",
        "--format",
        "json",
    )
    assert (meta["vocab"], meta["seq_len"], meta["languages"]) == ("tokens", 100, ["java"])
    result = invoke("data", "lm", "--source", FIXTURES / "java", "--out", tmp_path / "d")
    assert (
        result.stdout.startswith("wrote ") and "windows of 256 characters from 6 files" in result.stdout
    )  # java17 too


#: the Python and Java fixtures the token model trains on (63 training windows of the fixtures' 234)
TOKEN_SOURCES = ["python/arith.py", "python/control.py", "python/lists.py", "python/strings.py"]
TOKEN_SOURCES += ["java/Arith.java", "java/Lists.java"]


def test_a_token_model_reads_its_languages_only(invoke, tmp_path):
    """--vocab tokens: the frontends' Python and Java tokens; a file in
    another language is refused at its location, the others predicted."""
    source = tmp_path / "src"  # a few files of each language: every split gets windows
    for name in TOKEN_SOURCES:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text((FIXTURES / name).read_text())
    lm.build(source, tmp_path / "d", vocab="tokens", seq_len=64)
    result = invoke(
        "train",
        "--task",
        "lm",
        "--data",
        tmp_path / "d",
        "--arch",
        "lexinvariant",
        "--epochs",
        "1",
        "--batch-size",
        "32",
        "--threads",
        "1",
        "--out",
        tmp_path / "m.pt",
    )
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "m.pt")
    assert model.languages == ("java", "python") and model.config.random_tokens == "all"
    result = invoke("predict", "--model", tmp_path / "m.pt", FIXTURES / "lm" / "gcd.py", "--per-position")
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()  # 53 tokens: one window
    where, loss, positions = line.split("\t")
    assert where == f"{FIXTURES / 'lm' / 'gcd.py'}:1" and len(positions.split()) == 52
    assert float(loss) == pytest.approx(np.mean([float(x) for x in positions.split()]), abs=1e-3)
    line = _error(invoke("predict", "--model", tmp_path / "m.pt", FIXTURES / "x86" / "figure1a.s"))
    assert line == (
        f"{FIXTURES / 'x86' / 'figure1a.s'}:1:1: error: the program is in x86 assembly; this lm model "
        "was trained on Java or Python only"
    )


def _error(result, status: int = 1) -> str:
    assert result.exit_code == status, result.output
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and result.stderr.strip().endswith(errors[0]), result.stderr
    return errors[0]


def test_bad_input_is_a_located_one_line_error(invoke, data, trained, tmp_path):
    line = _error(
        invoke("train", "--task", "lm", "--data", tmp_path / "nowhere", "--arch", "vanilla", "--out", tmp_path / "m.pt")
    )
    assert line.startswith(f"{tmp_path / 'nowhere' / 'meta.json'}: error: no lm dataset here")
    line = _error(
        invoke(
            "train",
            "--task",
            "lm",
            "--data",
            data,
            "--arch",
            "vanilla",
            "--lexinvariant-p",
            "0.2",
            "--out",
            tmp_path / "m.pt",
        ),
        status=2,  # options that make no model: a usage error
    )
    assert line.endswith(
        "--lexinvariant-p: error: --lexinvariant-p and random_tokens apply to embedding='lexinvariant', not 'learned'"
    )
    line = _error(
        invoke("train", "--task", "lm", "--data", data, "--arch", "renamer", "--out", tmp_path / "m.pt"), status=2
    )
    assert line.endswith("--arch: error: --task lm takes --arch vanilla or lexinvariant (not renamer)")
    line = _error(
        invoke(
            "train", "--task", "lm", "--data", data, "--arch", "vanilla", "--max-len", "32", "--out", tmp_path / "m.pt"
        )
    )
    assert "no program of at most 32 tokens" in line
    path = trained["learned"][0]
    line = _error(
        invoke("predict", "--model", path, FIXTURES / "python" / "arith.py", "--curve", tmp_path / "c.json"), status=2
    )
    assert line.startswith("--window: error: no sequence has 100 predicted positions (the longest has 63)")
    line = _error(
        invoke(
            "predict", "--model", FIXTURES / "models" / "renamer.pt", FIXTURES / "x86" / "figure1a.s", "--per-position"
        ),
        status=2,
    )
    assert line == "--per-position: error: --per-position and --curve are for a language model (lm), not a bhive model"
    line = _error(invoke("predict", "--model", path, tmp_path / "missing.py"))
    assert line == f"{tmp_path / 'missing.py'}: error: no such file"
    (tmp_path / "one.py").write_text("x")  # one character: a window with nothing to predict
    line = _error(invoke("predict", "--model", path, tmp_path / "one.py", "--curve", tmp_path / "c.json"))
    assert line.startswith(f"{tmp_path / 'one.py'}:1:1: error: no window of two tokens or more")
    empty = tmp_path / "empty"  # a split of a dataset with no row
    empty.mkdir()
    (empty / "meta.json").write_text((data / "meta.json").read_text())
    (empty / "test.csv").write_text((data / "test.csv").read_text().splitlines()[0] + "\n")
    line = _error(invoke("predict", "--model", path, empty / "test.csv"))
    assert line == f"{empty / 'test.csv'}:1:1: error: no program found in input"


def test_checkpoints_round_trip_through_the_audit(invoke, data, trained):
    """The audit reads an LM checkpoint and its dataset: each window's
    prediction is its loss, as invar predict gives it, and the lexical
    permutations of a character window are its renamings."""
    path = trained["lexinvariant"][0]
    result = invoke(
        "audit",
        "--model",
        path,
        "--dataset",
        data,
        "--split",
        "valid",
        "--limit",
        "5",
        "--variants",
        "3",
        "--transform",
        "renamings",
        "--format",
        "jsonl",
    )
    assert result.exit_code in (0, 1), result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    examples = [r for r in rows if r["type"] == "example"]
    assert len(examples) == 5 and all(r["variants"] == 3 and r["exact"] for r in examples)
    predicted = json.loads(invoke("predict", "--model", path, data / "valid.csv", "--format", "json").stdout)
    assert [r["prediction"] for r in examples] == pytest.approx(
        [r["prediction"] for r in predicted["predictions"][:5]], abs=1e-5
    )
    window = lm.parse(lm.read_split(data, "valid")[0].source)
    assert int(examples[0]["space"]) == math.factorial(len(window.referents))


def test_a_trained_lexinvariant_lm_is_invariant_with_its_table_permuted_along(data, trained):
    """The trained model's per-window loss under a lexical permutation of
    the window (a renaming of its characters, an id remap) is its loss on the
    window itself once the inference table's rows move with the ids."""
    import random

    from invar.encoding import UNK, renamed

    model = load_model(trained["lexinvariant"][0])
    net, vocab = model.network, model.vocab
    rng = random.Random(11)
    fixed = net.embed.fixed.clone()
    for ex in lm.read_split(data, "valid")[:12]:
        window = lm.parse(ex.source)
        enc = model.encode(window)
        # characters the vocabulary lacks share its one unknown id: a permutation of the vocabulary keeps them
        unknown = [c for c in window.referents if vocab.referent_id(c) == UNK]
        renaming = lm.renaming_space(window, pins=unknown).sample(1, rng)[0]
        moved = renamed(enc, renaming, vocab)
        sigma = torch.arange(len(vocab))
        for a, b in renaming.as_dict().items():
            sigma[vocab.token_id(a, "char")] = vocab.token_id(b, "char")
        base = position_losses(net, [enc])[0].mean()
        net.embed.fixed = fixed
        plain = position_losses(net, [moved])[0].mean()
        table = fixed.clone()
        table[sigma] = fixed
        net.embed.fixed = table
        along = position_losses(net, [moved])[0].mean()
        net.embed.fixed = fixed
        assert abs(along - base) < 1e-5
        assert abs(plain - base) > 1e-4
