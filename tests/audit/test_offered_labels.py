"""A classify audit of a chat model offers the dataset's labels: the shipped
prompt (or the user's, through ``{labels}``) lists them, and a reply is read
as one of them (case, spaces, ``-`` and ``_`` aside) or is that example's
error; a dataset without labels leaves the shipped prompt's line out, and a
placeholder that cannot be filled is a usage error. Labels no reply can be
read as (written alike, empty), and very many labels, are warned of before
any request, and the audit goes on."""

from __future__ import annotations

import json
import re

import pytest

from invar.audit import audit
from invar.audit.schema import HEADER, REPORT, mismatch
from invar.errors import UsageError
from invar.audit.render import summary_rows
from invar.tasks import answers
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
    assert ("labels the prompt offers", "3", "") in summary_rows(report)
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


# ------------------------------------------------------- labels no reply gives
@pytest.mark.parametrize(
    "labels, never",
    [
        (("sorting", "binary_search"), ()),
        ((3, "3", "sorting"), (3, "3")),  # written alike
        ((True, "true"), (True, "true")),
        (([1, 2], "[1, 2]"), ([1, 2], "[1, 2]")),
        ((1.0, "1.0"), (1.0, "1.0")),
        ((1, 1.0), ()),  # written apart: 1 and 1.0
        (("", "sorting"), ("",)),  # an answer is never empty
        ((" ",), (" ",)),
        ((" sorting", "Sorting"), (" sorting",)),  # spaces around it, and alike but for case
        ((" 2", 2), (" 2",)),  # alike, and the same number
        ((" sorting", "binary_search"), ()),  # read as sorting: alike, and alone
        ((" -3", "3"), ()),  # read as -3.0: alike as 3, but alone as a number
        (("Sorting", "sorting"), ()),  # each written as it is
        (("binary search", "binary_search", "Binary-Search"), ()),
        ((), ()),
    ],
)
def test_the_labels_no_reply_can_be_read_as_are_those_the_reader_never_returns(labels, never):
    assert answers.unanswerable(labels) == never
    read = set()
    for form in {form for x in labels for form in _forms(x)}:
        try:
            read.add(_key(answers.read("classify", f"It is this one.\nAnswer: {form}", labels=labels).value))
        except answers.Unreadable:
            continue
    assert read == {_key(x) for x in labels} - {_key(x) for x in never}


def _forms(label) -> list[str]:
    """The ways a reply may write ``label``: as the prompt does, as JSON, alike (case and spaces aside), as a
    number."""
    text = label if isinstance(label, str) else json.dumps(label)
    forms = [text.strip(), json.dumps(label), " ".join(text.split()).upper(), " ".join(text.split()).title()]
    try:
        forms.append(repr(float(text)))
    except ValueError:
        pass
    return forms


def _key(label) -> str:
    return json.dumps(label, sort_keys=True)


MANY = [(PROGRAMS[k % 3][0], f"class_{k}") for k in range(101)]


@pytest.mark.parametrize(
    "examples, never, says",
    [
        (PROGRAMS, [], []),
        (
            [(p, label) for (p, _), label in zip(PROGRAMS, (3, "3", "sorting"))],
            ["3", 3],  # in the order offered
            ['no reply can be read as 2 of the 3 labels the prompt offers ("3", 3)'],
        ),
        (
            [(p, label) for (p, _), label in zip(PROGRAMS, ("", "sorting", "summing"))],
            [""],
            ['no reply can be read as 1 of the 3 labels the prompt offers ("")'],
        ),
        (MANY, [], ["the prompt offers 101 labels (more than 100), 999 characters in every request"]),
    ],
)
def test_labels_no_reply_gives_and_very_many_are_warned_of_before_any_request(examples, never, says):
    warned = []  # each warning, and how many requests had been sent then
    with Labeller() as server:
        result = audit(server.url, examples, **SETTINGS, limit=1, warn=lambda m: warned.append((m, server.prompts[:])))
    assert [(m[: len(s)], asked) for (m, asked), s in zip(warned, says)] == [(s, []) for s in says]
    assert len(warned) == len(says)
    assert result.header["labels_unanswerable"] == result.report["labels_unanswerable"] == never
    header, *_, report = (json.loads(line) for line in result.jsonl())
    assert mismatch(header, HEADER) is None and mismatch(report, REPORT) is None
    assert result.report["examples"] == 1 and server.prompts  # audited all the same


def test_from_python_without_warn_a_warning_is_a_user_warning():
    examples = [(p, label) for (p, _), label in zip(PROGRAMS, (3, "3", "sorting"))]
    with Labeller() as server, pytest.warns(UserWarning, match=re.escape('labels the prompt offers ("3", 3)')):
        audit(server.url, examples, **SETTINGS, limit=1)


def test_the_command_line_warns_on_standard_error_and_audits(invoke, tmp_path):
    data = tmp_path / "programs.jsonl"
    labels = (3, "3", "sorting")
    data.write_text("".join(json.dumps({"program": p, "label": x}) + "\n" for (p, _), x in zip(PROGRAMS, labels)))
    options = ["--task", "classify", "--lang", "python", "--variants", "2", "--controls", "0", "--no-cache"]
    with Labeller() as server:
        result = invoke("audit", "--model", server.url, "--dataset", data, *options, "--format", "json")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stderr.splitlines() if "warning" in line]
    assert line.startswith('invar: warning: no reply can be read as 2 of the 3 labels the prompt offers ("3", 3)')
    assert json.loads(result.stdout)["labels_unanswerable"] == ["3", 3]
    # the text report has a row for them
    with Labeller() as server:
        shown = invoke("audit", "--model", server.url, "--dataset", data, *options)
    assert shown.exit_code == 0, shown.output
    cells = " ".join(" ".join(line.split("│")[1:3]) for line in shown.stdout.splitlines() if line.count("│") >= 3)
    assert '3; no reply can be read as 2 of them ("3", 3)' in " ".join(cells.split())  # the cell may wrap
