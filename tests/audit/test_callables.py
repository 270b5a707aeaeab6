"""Audits of hand-built Python callables with known answers on real BHive
blocks: the violation rate, alpha-covariance and spread the audit reports are
the ones computed here independently, from every renaming of every block."""

from __future__ import annotations

import json
import math

import pytest

import invar
from invar.audit import audit
from invar.frontends.x86.hexblock import decode
from tests.audit import callables
from tests.conftest import bhive_blocks

K = 256  # at least every space below, so the audit takes every renaming


@pytest.fixture(scope="module")
def blocks():
    """The first 30 BHive blocks (in file order) with at most K renamings."""
    out = []
    for h in bhive_blocks():
        try:
            p = decode(h)
        except invar.InvarError:
            continue
        if 2 <= invar.renamings(p).count() <= K:
            out.append(p)
        if len(out) == 30:
            break
    assert len(out) == 30
    return out


def expected(fn, programs):
    """(violation rate, mean alpha-covariance, ranges) from every renaming."""
    violations, alphas, ranges = 0, [], []
    for p in programs:
        space = invar.renamings(p)
        preds = fn([p.render()] + [space.render(r) for r in space.enumerate()])
        violations += any(v != preds[0] for v in preds[1:])
        u = len(set(preds))
        alphas.append((len(preds) - u) / (len(preds) - 1))
        ranges.append(max(preds) - min(preds))
    return violations / len(programs), sum(alphas) / len(alphas), ranges


@pytest.mark.parametrize("fn", [callables.distinct_registers, callables.first_register_number])
def test_callable_measures_match_an_independent_count(fn, blocks):
    result = audit(fn, blocks, task="bhive", variants=K, tolerance=0.0)
    rate, alpha, ranges = expected(fn, blocks)
    assert result.audited == 30 and result.exhaustive == 30 and result.errors == 0
    assert result.violation_rate == pytest.approx(rate, abs=1e-12)
    assert result.alpha_covariance["mean"] == pytest.approx(alpha, abs=1e-12)
    assert [r["range"] for r in result.records] == ranges
    assert result.predictions == sum(1 + invar.renamings(p).count() for p in blocks)
    if fn is callables.distinct_registers:  # invariant: nothing moves
        assert (rate, alpha, max(ranges)) == (0.0, 1.0, 0.0)
        assert result.spread["relative_range"]["max"] == 0.0 and result.worst_examples == []
    else:  # a renaming moves the first register
        assert rate > 0.9 and alpha < 0.9  # (a block whose first register is %rsp keeps it)
        worst = result.worst_examples[0]
        assert worst["most_different"]["changed"], "the respelled tokens are located"


def test_sampled_variants_depend_on_the_seed_and_the_example_only(blocks):
    a = audit(callables.first_register_number, blocks, task="bhive", variants=5, seed=3)
    assert all(not r["exhaustive"] and r["variants"] == 5 for r in a.records)
    assert audit(callables.first_register_number, blocks, task="bhive", variants=5, seed=3).records == a.records
    # the first ten examples keep their ids in a shorter dataset, and so their variants
    assert (
        audit(callables.first_register_number, blocks[:10], task="bhive", variants=5, seed=3).records == a.records[:10]
    )
    other = audit(callables.first_register_number, blocks, task="bhive", variants=5, seed=4)
    assert [r["range"] for r in other.records] != [r["range"] for r in a.records]


def test_discrete_answers_are_compared_exactly(blocks):
    result = audit(callables.uses_rbx, [(p, "no") for p in blocks], task="classify", transform="renamings", variants=K)
    answers = [callables.uses_rbx([p.render()])[0] for p in blocks]
    assert result.task["discrete"] and result.spread is None
    assert result.metric["original"] == pytest.approx(100 * answers.count("no") / 30)
    # some renaming of any block with a general-purpose register names rbx, some does not
    assert result.violation_rate > 0.5
    assert result.metric["worst"] <= result.metric["variants"] <= 100


def test_answers_that_name_registers_are_renamed_back_before_they_are_compared(blocks):
    # the answer follows the renaming: mapped back through the variant's
    # renaming, every variant gives the original's answer
    result = audit(callables.first_register_name, blocks, task="classify", transform="renamings", variants=K)
    assert result.audited == 30 and result.violation_rate == 0.0 and result.alpha_covariance["mean"] == 1.0
    raw = [
        len({callables.first_register_name([invar.renamings(p).render(r)])[0] for r in invar.renamings(p).enumerate()})
        for p in blocks
    ]
    assert max(raw) > 1, "without mapping back the answers would differ"


def test_a_model_that_raises_returns_nan_or_loses_predictions_loses_no_example():
    programs = [decode(h) for h in bhive_blocks()[:60]]
    texts = [p.render() for p in programs]

    def why(t):
        if "lea" in t:
            return "ValueError: lea is not supported"
        if "imul" in t:
            return "returned nan"
        if "shl" in t:
            return "returned 0 predictions for 1 program"
        return None

    reasons = [why(t) for t in texts]
    assert sum(r is not None for r in reasons) >= 5 and reasons.count(None) >= 10
    result = audit(callables.flaky, programs, task="bhive", variants=4, batch_size=8)
    assert result.examples == 60 and result.errors == sum(r is not None for r in reasons)
    assert result.audited == reasons.count(None)
    failed = {f["index"]: f for f in result.failed}
    for k, reason in enumerate(reasons):
        if reason is None:
            assert k not in failed and result.records[k]["prediction"] == callables.distinct_registers([texts[k]])[0]
        else:
            assert failed[k]["stage"] == "model" and failed[k]["error"] == f"original: {reason}"
    assert result.violation_rate == 0.0
    assert not math.isnan(result.spread["range"]["max"])


# ------------------------------------------------- a callable per failure kind
#: small blocks, some with a lea (where the callables below fail), some without
TEXTS = [
    "addq %rax, %rbx",
    "leaq 8(%rax), %rcx\naddq %rcx, %rdx",
    "movq %rsi, %rdi\nsubq %rdi, %r8",
    "leaq (%rbx), %rax",
    "subq %r8, %r9",
    "imulq %r10, %r11\naddq %r11, %r12",
]
LEA = [k for k, t in enumerate(TEXTS) if "lea" in t]


@pytest.mark.parametrize(
    "fn, error",
    [
        # answers that are not a list of predictions are refused, not read
        (callables.returns_dict, "returned a dict, not a list of predictions (one per program)"),
        (callables.returns_generator, "returned a generator, not a list of predictions (one per program)"),
        (callables.returns_str, "returned a str, not a list of predictions (one per program)"),
        (callables.returns_set, "returned a set, not a list of predictions (one per program)"),
        (callables.returns_none, "returned None, not a list of predictions (one per program)"),
        (callables.returns_number, "returned a float, not a list of predictions (one per program)"),
        (callables.returns_0d_array, "returned a float, not a list of predictions (one per program)"),
        # predictions that are not numbers
        (callables.returns_huge_int, f"returned 1{'0' * 56}..., not a number"),
        (callables.returns_complex, "returned (1+2j), not a number"),
        (callables.returns_numeric_text, "returned '2.5', not a number"),
        (callables.returns_bytes, "returned b'2.5', not a number"),
        (callables.returns_bool, "returned True, not a number"),
        # exceptions outside Exception's hierarchy are the call's error too
        (callables.exits, "SystemExit: 3"),
        (callables.exits_quietly, "SystemExit"),
        (callables.raises_base_exception, "Abort: stop everything"),
    ],
)
def test_a_callable_that_fails_fails_only_its_examples(fn, error):
    result = audit(fn, TEXTS, task="bhive", variants=2, batch_size=4)
    assert (result.examples, result.errors, result.audited) == (len(TEXTS), len(LEA), len(TEXTS) - len(LEA))
    assert {f["index"]: f["error"] for f in result.failed} == {k: f"original: {error}" for k in LEA}
    for k, rec in enumerate(result.records):
        if k not in LEA:
            assert rec["prediction"] == callables.distinct_registers([TEXTS[k]])[0]


@pytest.mark.parametrize(
    "fn",
    [
        callables.returns_tuple,
        callables.returns_array,
        callables.returns_tensor,
        callables.returns_deque,
        callables.distinct_registers,
    ],
)
def test_a_sequence_of_predictions_of_any_kind_is_read(fn):
    result = audit(fn, TEXTS, task="bhive", variants=2, batch_size=4)
    assert result.errors == 0 and [r["prediction"] for r in result.records] == callables.distinct_registers(TEXTS)
    assert result.violation_rate == 0.0


def test_a_real_number_of_any_type_is_read_as_a_float():
    result = audit(callables.returns_fraction, TEXTS, task="bhive", variants=2, batch_size=4)
    assert result.errors == 0
    for k, rec in enumerate(result.records):
        assert rec["prediction"] == (2.5 if k in LEA else callables.distinct_registers([TEXTS[k]])[0])


@pytest.mark.parametrize(
    "fn, error",
    [
        (callables.returns_objects, "returned an object, not a JSON value"),
        (callables.returns_sets, "returned a set, not a JSON value"),
        (callables.returns_nan_label, "returned nan, not a JSON value"),
    ],
)
def test_a_discrete_prediction_must_be_a_json_value(fn, error):
    result = audit(fn, TEXTS, task="classify", lang="x86", transform="renamings", variants=2)
    assert {f["index"]: f["error"] for f in result.failed} == {k: f"original: {error}" for k in LEA}
    assert result.jsonl()  # the records are written
    json.dumps(result.report)


def test_an_interrupt_stops_the_audit():
    with pytest.raises(KeyboardInterrupt):
        audit(callables.interrupted, TEXTS, task="bhive", variants=2)


#: one block with a lea (its calls hang), two without
HANG = ["addq %rax, %rbx", "leaq (%rbx), %rax", "subq %r8, %r9"]


def test_a_hung_call_times_out_and_the_audit_goes_on():
    callables.RELEASE.clear()
    try:
        # a generous timeout: the other calls answer at once, the hung ones never
        result = audit(callables.hangs, HANG, task="bhive", variants=1, batch_size=64, timeout=3)
    finally:
        callables.RELEASE.set()
    assert [f["index"] for f in result.failed] == [1]
    assert result.failed[0]["error"] == "original: timed out: no answer in 3 s"
    assert [r["prediction"] for r in result.records] == [2.0, None, 2.0]


def test_timeout_from_the_command_line_applies_to_callables(invoke, tmp_path):
    (tmp_path / "blocks.s").write_text("\n\n".join(HANG) + "\n")
    callables.RELEASE.clear()
    try:
        result = invoke(
            "audit",
            "--model",
            "tests.audit.callables:hangs",
            "--task",
            "bhive",
            "--dataset",
            tmp_path / "blocks.s",
            "--variants",
            "1",
            "--batch-size",
            "1",
            "--timeout",
            "3",
            "--format",
            "json",
        )
    finally:
        callables.RELEASE.set()
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["errors"], report["audited"]) == (1, 2)
    assert report["failed"][0]["error"] == "original: timed out: no answer in 3 s"
    assert "blocks.s:3:1: error: the model failed on this example: original: timed out" in result.stderr


#: Python functions for the bugs task (the callables below answer by their text)
FUNCTIONS = ["def f(a, b):\n    return a < b\n", "def g(x):\n    y = x + 1\n    return y\n"]


def verdicts(texts):
    return [0.7 if "<" in t else 1 for t in texts]


def test_an_answer_outside_the_tasks_answers_is_that_examples_error():
    """bugs reads 0 or 1: a probability of 0.7 is refused, not read as 0."""
    result = audit(verdicts, FUNCTIONS, task="bugs", variants=2)
    assert {f["index"]: f["error"] for f in result.failed} == {
        0: "original: returned 0.7, not one of the task's answers (a verdict is 0 or 1)"
    }
    assert [r["prediction"] for r in result.records] == [None, 1]


def test_a_batch_answered_with_the_wrong_count_is_asked_again_and_said_once(invoke, tmp_path):
    """The fallback to one call per program is kept (docs/audit.md), but said: once on standard
    error, and in the report's notes; the predictions are those of the single calls."""
    (tmp_path / "blocks.s").write_text("\n\n".join(TEXTS[:3]) + "\n")
    model = "tests.audit.callables:first_only"
    args = ("--model", model, "--task", "bhive", "--dataset", tmp_path / "blocks.s", "--variants", "2")
    result = invoke("audit", *args, "--format", "json", "--fail-over", "violation_rate=1")  # once, not a caveat too
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["errors"] == 0 and report["run"]["fallbacks"]["batches"] == 1
    said = f"{model} returned 1 prediction for 9 programs; it was called once per program instead (1 batch retried so)"
    assert said in report["trivial"]["notes"]
    assert [line for line in result.stderr.splitlines() if "called once per program" in line] == [f"note: {said}"]
    table = invoke("audit", *args, "--quiet")  # the table says it under itself too
    assert f"note: {said}." in table.stdout and "requests" not in table.stdout  # a callable sends no request
