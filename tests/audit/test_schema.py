"""invar.audit.schema: :func:`mismatch`, the check ``audit merge`` and
``audit compare`` make of every example record they read, agrees with
jsonschema (an independent validator) on records whose fields are given
values of every type, and a shard with such a record is refused at its line."""

from __future__ import annotations

import json

import jsonschema
import pytest

from invar.audit.schema import EXAMPLE, mismatch
from tests.conftest import FIXTURES

MODEL = FIXTURES / "models" / "renamer.pt"
#: a value of every JSON type, and the edges the schema's types draw (an integral float, a negative)
VALUES = ["maybe", "", 1.5, 2.0, -1, 0, None, True, [1], [], {"a": 1}, {}]


@pytest.fixture(scope="module")
def shard(tmp_path_factory):
    """The JSONL of a small audit (6 blocks, 2 variants each): its lines."""
    from typer.testing import CliRunner

    from invar.cli.app import app

    out = tmp_path_factory.mktemp("schema") / "a.jsonl"
    argv = ["audit", "--model", MODEL, "--dataset", FIXTURES / "blocks", "--limit", "6", "-k", "2"]
    result = CliRunner().invoke(app, [*map(str, argv), "--bootstrap", "0", "-q", "--format", "jsonl", "--out", out])
    assert result.exit_code == 0, result.output
    return out.read_text().splitlines()


def test_a_written_record_fits(shard):
    for line in shard:
        record = json.loads(line)
        if record["type"] == "example":
            assert mismatch(record, EXAMPLE) is None


def test_mismatch_agrees_with_jsonschema_on_every_field_given_every_type(shard):
    record = next(json.loads(line) for line in shard if json.loads(line)["type"] == "example")
    checked = disagree = 0
    for field in record:
        for value in VALUES:
            changed = {**record, field: value}
            theirs = jsonschema.Draft202012Validator(EXAMPLE).is_valid(changed)
            ours = mismatch(changed, EXAMPLE)
            checked += 1
            if (ours is None) != theirs:
                disagree += 1
                print(field, value, ours, theirs)
            elif ours is not None:
                assert ours.startswith(field) or ours.startswith("the record"), ours  # it names the field
    assert disagree == 0 and checked > 100


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("violation", "maybe", 'violation is "maybe", not boolean or null'),
        ("alpha_covariance", "abc", 'alpha_covariance is "abc", not number or null'),
        ("index", 1.5, "index is 1.5"),
    ],
)
def test_merge_refuses_a_record_of_the_wrong_types_at_its_line(invoke, shard, tmp_path, field, value, said):
    lines = list(shard)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "example")
    lines[at] = json.dumps({**json.loads(lines[at]), field: value})
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for command in (["audit", "merge", path], ["audit", "compare", path, path]):
        result = invoke(*command)
        assert result.exit_code == 1, result.output
        assert result.stderr.splitlines()[0].startswith(f"{path}:{at + 1}:1: error: an example record whose ")
        assert said in result.stderr
