"""Audits of hand-built Python callables with known answers on real BHive
blocks: the violation rate, alpha-covariance and spread the audit reports are
the ones computed here independently, from every renaming of every block."""

from __future__ import annotations

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
    assert audit(callables.first_register_number, blocks[:10], task="bhive", variants=5, seed=3).records == a.records[:10]
    other = audit(callables.first_register_number, blocks, task="bhive", variants=5, seed=4)
    assert [r["range"] for r in other.records] != [r["range"] for r in a.records]


def test_discrete_answers_are_compared_exactly(blocks):
    result = audit(callables.uses_rbx, [(p, "no") for p in blocks], task="classify", transform="renamings",
                   variants=K)
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
    raw = [len({callables.first_register_name([invar.renamings(p).render(r)])[0]
                for r in invar.renamings(p).enumerate()}) for p in blocks]
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
