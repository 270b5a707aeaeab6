"""A unit whose transformation space cannot be built is that unit's error:
reported at its first line, a record of its own naming it (``--format
json``), the other units still written, exit status 1. Here the failure is
forced on one unit of a file, for each command that transforms units."""

from __future__ import annotations

import json

import pytest

from invar.errors import SpaceError
from tests.conftest import FIXTURES

ARITH = FIXTURES / "python" / "arith.py"


def _failing_on(name: str, real):
    """``real``, which raises a SpaceError (no line of its own) for the unit named ``name``."""

    def call(unit, *args, **kwargs):
        if unit.name == name:
            raise SpaceError("forced for this test")
        return real(unit, *args, **kwargs)

    return call


@pytest.mark.parametrize(
    "module, attribute, args",
    [
        ("invar.cli.canon", "canonical", ["canon"]),
        ("invar.cli.renamings", "renaming_space", ["renamings", "--count"]),
        ("invar.cli.permutations", "PermutationSpace", ["permutations", "--count"]),
        ("invar.cli.permutations", "PermutationSpace", ["permutations", "--limit", "1"]),
    ],
)
def test_one_failing_unit_is_its_own_record_and_the_others_are_written(invoke, monkeypatch, module, attribute, args):
    import importlib

    target = importlib.import_module(module)
    monkeypatch.setattr(target, attribute, _failing_on("quadratic", getattr(target, attribute)))
    result = invoke(*args[:1], ARITH, *args[1:], "--format", "json")
    assert result.exit_code == 1, result.output
    records = json.loads(result.stdout)
    failed = [r for r in records if "error" in r]
    assert failed == [{"schema": 1, "location": f"{ARITH}:12", "error": "forced for this test", "unit": "quadratic"}]
    assert {r["unit"] for r in records} >= {"earnings", "quadratic", "rect_stats"}
    assert [line for line in result.stderr.splitlines() if ": error: " in line] == [
        f"{ARITH}:12: error: forced for this test"
    ]
