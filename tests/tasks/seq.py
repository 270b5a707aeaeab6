"""What the tests of the sequence tasks (ltl, copy) share: their fixture
data (tools/make_seq_fixtures.py), the settings of a few quick epochs, one
epoch of ``invar train`` on the ltl fixture, and ``invar audit`` read as
JSON."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES, Invoke

AE = FIXTURES / "ltl" / "ae.txt"
FJ = FIXTURES / "ltl" / "fj.txt"
COPY = FIXTURES / "copy"
LTL_QUICK = dict(task="ltl", data=AE, epochs=3, batch_size=16, threads=1, lr=1e-3, seed=1)
COPY_QUICK = dict(task="copy", data=COPY, epochs=3, batch_size=16, threads=1, lr=1e-3, seed=2, limit=200)


def train_ltl(arch: str, out: Path, *options):
    """``invar train`` of ``arch``: one epoch on 64 formulas of ae.txt,
    written to ``out``; exits 0. Returns the result."""
    result = Invoke()(
        "train",
        "--task",
        "ltl",
        "--data",
        AE,
        "--arch",
        arch,
        "--epochs",
        "1",
        "--batch-size",
        "32",
        "--threads",
        "1",
        "--limit",
        "64",
        *options,
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    return result


def audit_json(model: Path, dataset: Path, limit: int, variants: int, *options) -> dict:
    """``invar audit --format json --quiet`` of a checkpoint; exits 0.
    Returns the report."""
    return Invoke().json(
        "audit",
        "--model",
        model,
        *options,
        "--dataset",
        dataset,
        "--limit",
        limit,
        "--variants",
        variants,
        "--format",
        "json",
        "--quiet",
    )
