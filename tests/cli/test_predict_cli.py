"""``invar predict`` on files of many programs: every program is predicted or
reported at its own location, and the exit status says whether any failed."""

from __future__ import annotations

import json

import pytest

from ..conftest import FIXTURES

MODEL = str(FIXTURES / "models" / "renamer.pt")


def test_every_csv_row_is_predicted_or_reported_at_its_row(invoke):
    path = FIXTURES / "x86" / "blocks.csv"
    rows = [
        i for i, line in enumerate(path.read_text().splitlines(), start=1) if line.strip() and not line.startswith("#")
    ]
    result = invoke("predict", "--model", MODEL, str(path), "--format", "jsonl")
    assert result.exit_code == 1  # one row is not hex
    records = [json.loads(line) for line in result.stdout.splitlines()]
    predictions = [r for r in records if "prediction" in r]
    predicted = {int(r["location"].rsplit(":", 1)[1]) for r in predictions}
    reported = {int(line.split(":")[1]) for line in result.stderr.splitlines() if ": error: " in line}
    assert predicted | reported == set(rows) and not predicted & reported and len(reported) == 1
    assert all(isinstance(r["prediction"], float) and r["prediction"] > 0 for r in predictions)
    assert [int(r["location"].split(":")[1]) for r in records if "error" in r] == sorted(reported)


def test_text_output_is_location_and_value(invoke):
    result = invoke("predict", "--model", MODEL, str(FIXTURES / "x86" / "figure1a.s"))
    assert result.exit_code == 0
    location, value = result.stdout.strip().split("\t")
    assert location.endswith("figure1a.s:1") and float(value) > 0


def test_a_beam_width_is_refused_for_a_model_that_writes_no_sequences(invoke):
    result = invoke("predict", "--model", MODEL, str(FIXTURES / "x86" / "figure1a.s"), "--beam", "3")
    assert result.exit_code == 2 and not result.stdout
    assert result.stderr.strip() == (
        "--beam: error: --beam is for a model that writes sequences (ltl, copy), not this one (task bhive)"
    )


def test_a_window_without_a_curve_is_refused(invoke):
    """--window smooths --curve alone: without it, it would do nothing."""
    result = invoke("predict", "--model", MODEL, str(FIXTURES / "x86" / "figure1a.s"), "--window", "5")
    assert result.exit_code == 2 and not result.stdout
    assert result.stderr.strip() == "--window: error: --window is the moving average of --curve; give --curve too"


def test_bad_checkpoint_is_a_located_error(invoke, tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    result = invoke("predict", "--model", str(bad), str(FIXTURES / "x86" / "figure1a.s"))
    assert result.exit_code != 0 and "bad.pt" in result.stderr and "error" in result.stderr


# ------------------------------------------------ a names model's answers (issue 35, item 8)
@pytest.fixture(scope="module")
def names_model(tmp_path_factory):
    """A names model trained one quick epoch on the Python fixtures."""
    import invar
    from invar.tasks import names

    root = tmp_path_factory.mktemp("names-predict")
    names.build(FIXTURES / "python", root / "data")
    invar.train(
        task="names",
        data=root / "data",
        arch="vanilla",
        epochs=1,
        batch_size=16,
        limit=32,
        threads=1,
        out=root / "names.pt",
    )
    return root / "names.pt"


def test_a_names_prediction_is_words_in_text_and_a_list_in_json(invoke, names_model):
    source = FIXTURES / "python" / "arith.py"
    text = invoke("predict", "--model", names_model, source)
    assert text.exit_code == 0, text.output
    rows = [line.split("\t") for line in text.stdout.splitlines()]
    records = [
        json.loads(line)
        for line in invoke("predict", "--model", names_model, source, "--format", "jsonl").stdout.splitlines()
    ]
    assert len(rows) == len(records) > 0
    for (location, shown), record in zip(rows, records):
        assert isinstance(record["prediction"], list) and record["prediction"]
        assert location == record["location"] and shown == " ".join(record["prediction"])
    whole = json.loads(invoke("predict", "--model", names_model, source, "--format", "json").stdout)
    assert [p["prediction"] for p in whole["predictions"]] == [r["prediction"] for r in records]


def test_an_audit_of_a_names_model_shows_its_answers_as_words(invoke, names_model):
    args = (
        "audit",
        "--model",
        names_model,
        "--dataset",
        FIXTURES / "python" / "arith.py",
        "--variants",
        "4",
        "--quiet",
    )
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "('" not in result.stdout and "',)" not in result.stdout
    worst = json.loads(invoke(*args, "--format", "json").stdout)["worst_examples"]
    assert worst  # this model, so trained, answers some variant differently
    for w in worst[:5]:
        row = next(line for line in result.stdout.splitlines() if f" {w['id']} " in line)
        assert f" {' '.join(w['prediction'])} " in row and f" {' '.join(w['most_different']['prediction'])} " in row
