"""Each task's ``prediction``: a model's answer as Python returns it is read
into the form the task's metric compares, or refused (a ValueError, which
the audit makes that example's error), never misread."""

from __future__ import annotations

import pytest

from invar.tasks import get_task

CASES = [
    # task, what the model returned, what the metric compares (None: refused)
    ("bugs", 1, 1),
    ("bugs", 0, 0),
    ("bugs", True, 1),
    ("bugs", 1.0, 1),
    ("bugs", "buggy", 1),
    ("bugs", "correct", 0),
    ("bugs", 0.7, None),  # a probability is no verdict, and no 0
    ("bugs", 2, None),
    ("bugs", "maybe", None),
    ("bugs", [1], None),
    ("names", "getName", ("get", "name")),
    ("names", "get name", ("get", "name")),
    ("names", ["get", "name"], ("get", "name")),
    ("names", ("size",), ("size",)),
    ("names", ["getName"], ("get", "name")),
    ("names", ["Get"], ("get",)),
    ("names", "", ()),
    ("names", 3, None),
    ("names", ["get", 2], None),
    ("names", {"get": 1}, None),
    ("copy", "abca", "abca"),
    ("copy", "", ""),
    ("copy", ["a", "b"], None),
    ("copy", 12, None),
    ("ltl", "a ; {b}", "a ; {b}"),
    ("ltl", ["a", "{b}"], None),
    ("ltl", 1, None),
]


@pytest.mark.parametrize("task, value, read", CASES, ids=[f"{t}-{v!r}" for t, v, _ in CASES])
def test_a_prediction_is_read_or_refused(task, value, read):
    check = get_task(task).prediction
    if read is None:
        with pytest.raises(ValueError):
            check(value)
    else:
        assert check(value) == read


@pytest.mark.parametrize("task", ["bhive", "classify", "exec", "alta", "lm"])
def test_tasks_with_no_check_take_any_json_value(task):
    assert get_task(task).prediction is None
