"""The BHive task: MAPE, and which transforms keep its label."""

from __future__ import annotations

import math

import pytest
import torch

from invar.errors import UsageError
from invar.tasks import get_task, task_names
from invar.tasks.bhive import mape, mape_loss


@pytest.mark.parametrize(
    "pred, target, expected",
    [
        ([1.0], [1.0], 0.0),
        ([1.1, 0.9], [1.0, 1.0], 10.0),
        ([2.0, 3.0], [1.0, 4.0], 62.5),  # (100 % + 25 %) / 2
        ([0.0], [2.0], 100.0),
    ],
)
def test_mape(pred, target, expected):
    assert math.isclose(mape(pred, target), expected, rel_tol=1e-12)
    assert math.isclose(float(mape_loss(torch.tensor(pred), torch.tensor(target))) * 100, expected, rel_tol=1e-6)


def test_mape_loss_has_gradients():
    pred = torch.tensor([1.5, 2.0], requires_grad=True)
    mape_loss(pred, torch.tensor([1.0, 4.0])).backward()
    assert pred.grad.tolist() == [0.5, -0.125]


def test_task_declares_its_symmetries():
    task = get_task("bhive")
    assert task.invariances == {"renamings": True, "permutations": False}
    assert (task.head, task.n_labels, task.metric_name, task.lower_is_better) == ("regression", 1, "MAPE", True)
    assert task.splits[0] == "train"
    program = task.parse("488b442440")
    assert program.lang == "x86" and program.render() == "movq 0x40(%rsp), %rax"
    assert task.output(torch.tensor([1.5, 2.0])) == [1.5, 2.0]


def test_unknown_task():
    assert task_names()[:2] == ["bhive", "classify"] and "ltl" in task_names()
    with pytest.raises(UsageError, match="unknown task 'tsp'"):
        get_task("tsp")
