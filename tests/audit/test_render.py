"""The report for people (invar.audit.render): the headline above the table."""

from __future__ import annotations

import pytest

from invar.audit import audit
from invar.audit.render import headline, summary_rows
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
