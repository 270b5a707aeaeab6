"""A classify audit of a chat model offers the dataset's labels: the shipped
prompt (or the user's, through ``{labels}``) lists them, and a reply is read
as one of them (case, spaces, ``-`` and ``_`` aside) or is that example's
error; a dataset without labels leaves the shipped prompt's line out, and a
placeholder that cannot be filled is a usage error."""

from __future__ import annotations

import re

import pytest

from invar.audit import audit
from invar.errors import UsageError
from tests.audit.chat_servers import LoopbackChat

PROGRAMS = [
    ("def order(xs):\n    ys = list(xs)\n    ys.sort()\n    return ys\n", "sorting"),
    ("def find(xs, x):\n    lo = 0\n    hi = len(xs)\n    return lo < hi and x in xs\n", "binary_search"),
    ("def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n", "summing"),
]
SETTINGS = dict(task="classify", lang="python", variants=2, controls=0, seed=1, cache=False)


class Labeller(LoopbackChat):
    """Answers with a label spelled its own way: ``SORTING`` for a program
    that sorts, ``Binary search`` for one that looks something up, and for
    any other ``O(n)``, which no dataset here offers. Keeps every prompt."""

    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    def reply(self, request: dict) -> str:
        prompt = request["messages"][0]["content"]
        with self.lock:
            self.prompts.append(prompt)
        program = prompt.split("```\n", 1)[1].split("\n```", 1)[0]
        return f"The function has {len(program.splitlines())} lines.\nAnswer: {_label(program)}"


def _label(program: str) -> str:
    if "sort" in program:
        return "SORTING"
    if " in " in program and "for " not in program:
        return "Binary search"
    return "O(n)"


def test_the_prompt_lists_the_labels_and_the_replies_are_read_as_them():
    with Labeller() as server:
        result = audit(server.url, PROGRAMS, **SETTINGS)
    assert {re.search(r"^The labels: (.*)$", p, re.M).group(1) for p in server.prompts} == {
        "binary_search, sorting, summing"
    }
    report = result.report
    assert report["labels_offered"] == ["binary_search", "sorting", "summing"]
    assert (report["examples"], report["audited"], report["errors"]) == (3, 2, 1)
    predictions = sorted(r["prediction"] for r in result.records if r.get("error") is None)
    assert predictions == ["binary_search", "sorting"]
    (failed,) = [r for r in result.records if r.get("error") is not None]
    assert "'O(n)' is none of the 3 labels the prompt offered" in failed["error"]


def test_a_limited_audit_offers_every_label_of_the_dataset():
    with Labeller() as server:
        result = audit(server.url, PROGRAMS, **SETTINGS, limit=1)
    assert result.report["examples"] == 1 and result.report["labels_offered"] == ["binary_search", "sorting", "summing"]
    assert all("The labels: binary_search, sorting, summing\n" in p for p in server.prompts)


def test_without_labels_the_shipped_prompt_leaves_their_line_out_and_reads_any_label():
    with Labeller() as server:
        result = audit(server.url, [program for program, _ in PROGRAMS], **SETTINGS)
    assert server.prompts and not any("labels" in p.lower() for p in server.prompts)
    assert result.report["labels_offered"] is None
    assert sorted(r["prediction"] for r in result.records) == ["Binary search", "O(n)", "SORTING"]


@pytest.mark.parametrize(
    "task, message",
    [
        ("classify", "the dataset has none"),
        ("bugs", "stands for a classify dataset's labels; this audit is of the bugs task"),
    ],
)
def test_a_placeholder_that_cannot_be_filled_is_a_usage_error(task, message):
    prompt = "Labels: {labels}\n```\n{program}\n```\n"
    programs = [program for program, _ in PROGRAMS]
    with Labeller() as server, pytest.raises(UsageError, match=re.escape(message)) as err:
        audit(server.url, programs, **{**SETTINGS, "task": task, "prompt": prompt})
    assert err.value.path == "--prompt" and not server.prompts
