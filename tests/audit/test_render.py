"""The report for people (invar.audit.render): the headline above the table,
the rows a model's kind has, and the notes under the table."""

from __future__ import annotations

import pytest

from invar.audit import audit
from invar.audit.render import headline, read_together, summary_rows
from tests.audit import callables

#: one line each, or dependent lines: a single order each
FIXED = [
    "addq %rax, %rbx",
    "movq %rsi, %rdi\nsubq %rdi, %r8",
    "imulq %r10, %r11\naddq %r11, %r12",
    "xorq %rcx, %rdx",
    "movq 8(%rsp), %r9\naddq %r9, %r13",
]
#: two moves that share no register: another order
FREE = "movq %rax, %rbx\nmovq %rcx, %rdx"


def _audit(texts, transform="permutations"):
    return audit(
        callables.first_register_number, texts, task="bhive", lang="x86", variants=4, transform=transform
    ).report


@pytest.mark.parametrize(
    "texts, said",
    [
        (FIXED + [FREE], "only 1 of the 6 audited examples can vary"),  # issue 35, item 10: a small share
        (FIXED[:2] + [FREE, FREE.replace("%rax", "%r14")], None),  # half can: not a small share
        ([FREE, FREE.replace("%rax", "%r14")], None),  # every one can
        (FIXED, None),  # none can: the notes say so (untested)
    ],
)
def test_the_headline_says_when_only_some_examples_can_vary(texts, said):
    report = _audit(texts)
    lines = headline(report)
    told = [line for line in lines if "can vary" in line]
    if said is None:
        assert told == []
        return
    varied = report["varied"]
    assert len(told) == 1 and told[0].startswith(said)
    # beside the violation rate: over all examples, and over those that can vary
    assert f"{varied['violation_rate']:.3f} over them" in told[0]
    assert f"{report['violation_rate']:.3f} over all" in told[0]
    # and the table's rows over the examples that can vary follow
    assert "violation rate, examples that can vary" in [name for name, _, _ in summary_rows(report)]


def test_the_requests_row_is_an_http_models_alone():
    """A callable's failures are counted in ``replies`` (its inputs), but it sends no request: no row."""
    report = audit(callables.fails_on_mov, FIXED, task="bhive", lang="x86", variants=2).report
    assert report["errors"] and report["replies"]["sent"] == 0
    for kind, shown in (("callable", False), ("torchscript", False), ("checkpoint", False), ("http", True)):
        rows = [name for name, _, _ in summary_rows(dict(report, model=dict(report["model"], kind=kind)))]
        assert ("requests" in rows) is shown, kind


@pytest.mark.parametrize(
    "task, fn, said, unsaid",
    [
        ("classify", callables.uses_rbx, "to see both, give the dataset labels (a label column", "--oracle"),
        ("bhive", callables.first_register_number, "to see both, audit with --oracle to label the blocks", None),
    ],
)
def test_the_no_labels_note_under_the_table_is_the_tasks(task, fn, said, unsaid):
    """One home for how to label (invar.audit.datasets.label_ways): no --oracle for a task without one."""
    from invar.audit.datasets import label_ways, unlabelled_note
    from invar.tasks import get_task

    report = audit(fn, FIXED[:2], task=task, lang="x86", variants=2).report
    note = [line for line in read_together(report) if line.startswith("note: no labels")]
    assert len(note) == 1 and said in note[0], note
    assert unsaid is None or unsaid not in note[0]
    stderr_note = unlabelled_note(report["dataset"], get_task(task), oracle=False)
    assert ", or ".join(label_ways(get_task(task))) in note[0] and stderr_note.endswith(
        ", or ".join(label_ways(get_task(task)))
    )
