"""``invar predict`` on files of many programs: every program is predicted or
reported at its own location, and the exit status says whether any failed."""

from __future__ import annotations

import json

from ..conftest import FIXTURES

MODEL = str(FIXTURES / "models" / "renamer.pt")


def test_every_csv_row_is_predicted_or_reported_at_its_row(invoke):
    path = FIXTURES / "x86" / "blocks.csv"
    rows = [i for i, line in enumerate(path.read_text().splitlines(), start=1)
            if line.strip() and not line.startswith("#")]
    result = invoke("predict", "--model", MODEL, str(path), "--format", "jsonl")
    assert result.exit_code == 1  # one row is not hex
    records = [json.loads(line) for line in result.stdout.splitlines()]
    predicted = {int(r["location"].rsplit(":", 1)[1]) for r in records}
    reported = {int(line.split(":")[1]) for line in result.stderr.splitlines() if ": error: " in line}
    assert predicted | reported == set(rows) and not predicted & reported and len(reported) == 1
    assert all(isinstance(r["prediction"], float) and r["prediction"] > 0 for r in records)


def test_text_output_is_location_and_value(invoke):
    result = invoke("predict", "--model", MODEL, str(FIXTURES / "x86" / "figure1a.s"))
    assert result.exit_code == 0
    location, value = result.stdout.strip().split("\t")
    assert location.endswith("figure1a.s:1") and float(value) > 0


def test_bad_checkpoint_is_a_located_error(invoke, tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    result = invoke("predict", "--model", str(bad), str(FIXTURES / "x86" / "figure1a.s"))
    assert result.exit_code != 0 and "bad.pt" in result.stderr and "error" in result.stderr
