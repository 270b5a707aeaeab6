"""--oracle: llvm-mca labels the variants themselves, so an audit tells model
error from task change. A block whose llvm-mca cycles depend on its order
(one of our generated blocks: 4.10 cycles in its own order, 5.08 in the two
others) changes label under permutations, and never under renamings."""

from __future__ import annotations

import json

import pytest

BLOCK = """\
movq %r15, (%rsp,%r13,4)
addq 8(%r13), %r11
vaddps %ymm1, %ymm10, %ymm5
cvtsi2sdq %r11, %xmm1
"""
MODEL = "tests.audit.callables:distinct_registers"


@pytest.fixture
def block(tmp_path):
    path = tmp_path / "order.s"
    path.write_text(BLOCK)
    return path


@pytest.fixture
def audit(invoke, block):
    """``invar audit`` of the block's variants under ``transform`` on a model counting registers."""

    def run(transform: str, *options):
        return invoke(
            "audit", "--model", MODEL, "--task", "bhive", "--dataset", block, "--transform", transform, *options
        )

    return run


def test_oracle_sees_the_label_change_under_permutations(audit):
    result = audit("permutations", "--variants", "8", "--oracle", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    record, report = lines[1], lines[-1]
    assert report["task_symmetry"] is False and record["exhaustive"] and record["space"] == 3
    assert record["oracle"]["label"] == 4.1 and record["oracle"]["changed"] is True
    assert record["oracle"]["distinct"] == 2 and record["oracle"]["range"] == pytest.approx(0.98)
    assert report["oracle"]["label_changes"] == 1 and report["oracle"]["label_change_rate"] == 1.0
    # the model counts registers: it does not move, the label does
    assert report["violation_rate"] == 0.0 and report["oracle"]["violations_without_label_change"] == 0


def test_oracle_sees_no_change_under_renamings(audit):
    result = audit("renamings", "--variants", "6", "--oracle", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["task_symmetry"] is True
    assert report["oracle"]["examples"] == 1 and report["oracle"]["label_changes"] == 0
    assert report["oracle"]["relative_range"]["max"] == 0.0


def test_a_transform_that_is_not_a_task_symmetry_says_so(audit):
    result = audit("permutations")
    assert result.exit_code == 0, result.output
    assert (
        "permutations (not a task symmetry of bhive: its labels may change; --oracle measures how much)"
        in result.stdout
    )


def test_a_task_without_an_oracle_is_a_usage_error(invoke, block):
    result = invoke("audit", "--model", MODEL, "--task", "classify", "--dataset", block, "--oracle")
    assert result.exit_code == 2
    assert "--oracle: error: the classify task has no oracle" in result.stderr
