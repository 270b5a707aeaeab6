"""The audit's measures on predictions whose answers are worked out by hand."""

from __future__ import annotations

import math
import re

import pytest

from invar.audit import metrics


@pytest.mark.parametrize(
    "a, b, tol, expected",
    [
        (1.0, 1.0, 0.0, True),
        (1.0, 1.0 + 1e-9, 1e-6, True),
        (1.0, 1.001, 1e-6, False),
        (100.0, 100.00005, 1e-6, True),  # relative: 5e-7 of 100
        (0.0, 0.0, 1e-6, True),
        (0.0, 1e-12, 1e-6, False),
    ],
)
def test_numbers_are_the_same_within_a_relative_tolerance(a, b, tol, expected):
    assert metrics.same(a, b, tol, False) is expected
    assert metrics.violates(a, [a, b], tol, False) is (not expected)


def test_discrete_predictions_compare_by_value():
    assert metrics.same(["x", 1], ["x", 1], 0.5, True)
    assert not metrics.same("1", 1, 0.5, True)
    assert metrics.violates("a", ["a", "b"], 0.0, True)
    assert not metrics.violates("a", ["a", "a"], 0.0, True)


@pytest.mark.parametrize(
    "preds, tol, u, alpha",
    [
        ([2.0, 2.0, 2.0, 2.0], 0.0, 1, 1.0),  # all agree
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.0, 5, 0.0),  # all differ
        ([1.0, 1.0, 2.0, 2.0, 3.0], 0.0, 3, 0.5),  # (5 - 3) / 4
        ([1.0, 1.0 + 1e-8, 1.0 - 1e-8], 1e-6, 1, 1.0),
        ([1.0, 1.5, 1.5 + 1e-9], 1e-6, 2, 0.5),
    ],
)
def test_alpha_covariance(preds, tol, u, alpha):
    assert metrics.distinct(preds, tol, False) == u
    assert metrics.alpha_covariance(len(preds), u) == alpha


def test_alpha_covariance_of_discrete_predictions_and_of_one_prediction():
    assert metrics.distinct(["a", "b", "a", ["a"]], 0, True) == 3
    assert metrics.alpha_covariance(4, 3) == pytest.approx(1 / 3)
    assert metrics.alpha_covariance(1, 1) is None


def test_distinct_cuts_runs_at_the_tolerance_of_their_first_value():
    # 1.0, 1.0000008 and 1.0000016: each within 1e-6 of its neighbour, the
    # last not within 1e-6 of the first, so two runs
    assert metrics.distinct([1.0, 1.0000008, 1.0000016], 1e-6, False) == 2


@pytest.mark.parametrize(
    "original, variants, tol",
    [
        # issue 35, item 4: every variant within the tolerance of the original, two of them 1.8e-6 apart
        (1.0, [1.0000009, 0.9999991, 1.0000009, 0.9999991], 1e-6),
        (1.0, [1.0000009, 0.9999991, 1.0000025], 1e-6),  # one variant beyond: a violation
        (2.0, [2.0000019, 1.9999981, 1.999998], 1e-6),
        ("a", ["a", "a"], 0.0),
        ("a", ["a", "b", "c"], 0.0),
    ],
)
def test_distinct_and_violation_agree_on_sameness(original, variants, tol):
    """A violation is a variant not the same as the original; U counts the
    classes anchored at the original: so an example without a violation has
    one class (alpha-covariance 1), and one with a violation more than one."""
    discrete = isinstance(original, str)
    violated = metrics.violates(original, variants, tol, discrete)
    u = metrics.distinct([original, *variants], tol, discrete)
    assert (u > 1) is violated
    assert (metrics.alpha_covariance(1 + len(variants), u) == 1.0) is (not violated)


def test_distinct_classes_are_anchored_at_the_first_prediction():
    # within the tolerance of the original (first): its class, however far apart from each other
    assert metrics.categories([1.0, 1.0000009, 0.9999991], 1e-6, False) == [0, 0, 0]
    # the rest cut into runs from their smallest value, numbered in order of first appearance
    assert metrics.categories([1.0, 1.1, 1.0000009, 1.2, 1.1000001], 1e-6, False) == [0, 1, 0, 2, 1]


def test_distinct_and_violation_agree_on_random_predictions():
    import random

    rng = random.Random(35)
    for _ in range(2000):
        original = rng.choice([1.0, 3.5, 100.0])
        variants = [
            original * (1 + rng.choice([-1, 1]) * rng.choice([0, 4e-7, 9e-7, 1.1e-6, 2e-6, 1e-3]))
            for _ in range(rng.randint(1, 6))
        ]
        violated = metrics.violates(original, variants, 1e-6, False)
        assert (metrics.distinct([original, *variants], 1e-6, False) > 1) is violated, (original, variants)


def test_an_audit_counts_no_violation_and_alpha_covariance_1_within_the_tolerance():
    """Issue 35, item 4, as the audit met it: every variant's prediction
    within the tolerance of the original's, variants 1.8e-6 apart."""
    import zlib

    from invar.audit import audit

    originals = set(TEXTS)

    def model(texts):
        return [1.0 if t in originals else 1.0 + (9e-7 if zlib.crc32(t.encode()) % 2 else -9e-7) for t in texts]

    result = audit(model, TEXTS, task="bhive", lang="x86", variants=8, transform="renamings")
    apart = [r for r in result.records if r["range"] is not None and r["variants"] > 2]
    assert apart and result.violation_rate == 0.0
    assert [r["alpha_covariance"] for r in result.records] == [1.0] * len(TEXTS)
    assert result["alpha_covariance"]["mean"] == 1.0


def test_spread():
    rng, std, rel = metrics.spread(2.0, [2.0, 1.0, 3.0])
    assert (rng, rel) == (2.0, 1.0)
    assert std == pytest.approx(math.sqrt(2 / 3))
    assert metrics.spread(0.0, [0.0, 0.0]) == (0.0, 0.0, 0.0)
    assert metrics.spread(0.0, [0.0, 1.0])[2] is None


def test_most_different_and_worst():
    assert metrics.most_different(2.0, [2.1, 1.5, 2.4], False) == 1
    assert metrics.worst([2.1, 1.5, 2.4], 2.3, False) == 1
    assert metrics.most_different("a", ["a", "b", "c"], True) == 1
    assert metrics.worst(["a", "b"], "a", True) == 1
    assert metrics.worst(["a", "a"], "a", True) == 0
    assert metrics.worst([], 1.0, False) is None


def test_quantiles_and_histogram():
    q = metrics.quantiles([0.0, 1.0, 2.0, 3.0, None])
    assert (q["mean"], q["median"], q["max"]) == (1.5, 1.5, 3.0)
    assert metrics.quantiles([])["mean"] is None
    h = metrics.histogram([0.0, 0.0, 1.0, 2.0], bins=2)
    assert h == {"edges": [0.0, 1.0, 2.0], "counts": [2, 2]}
    assert metrics.histogram([5.0, 5.0]) == {"edges": [5.0, 5.0], "counts": [2]}


# ------------------------------------------------ trivially invariant models
def _mape(pred, labels):
    return 100 * sum(abs(p - y) / abs(y) for p, y in zip(pred, labels)) / len(labels)


def _accuracy(pred, labels):
    return 100 * sum(p == y for p, y in zip(pred, labels)) / len(labels)


@pytest.mark.parametrize(
    "task, labels, rule, prediction, value",
    [
        ("bhive", [1.0, 2.0, 6.0], "mean label", 3.0, _mape([3.0] * 3, [1.0, 2.0, 6.0])),
        ("bhive", [4.0, 4.0], "mean label", 4.0, 0.0),
        ("classify", ["no", "yes", "no", "maybe"], "most common label", "no", 50.0),
        ("classify", ["b", "a", "a", "b"], "most common label", "a", 50.0),  # a tie: the first in order
        ("bugs", [1, 0, 0, 0, 0], "most common label", 0, 80.0),
    ],
)
def test_chance_is_the_metric_of_one_prediction_for_every_example(task, labels, rule, prediction, value):
    from invar.audit.report import chance
    from invar.tasks import get_task

    got = chance(get_task(task), labels)
    assert (got["rule"], got["prediction"]) == (rule, prediction)
    assert got["value"] == pytest.approx(value)


def test_chance_is_not_taken_for_sequence_tasks_or_one_label():
    from invar.audit.report import chance
    from invar.tasks import get_task

    assert chance(get_task("ltl"), [{"formula": "a", "trace": "a"}] * 3) is None
    assert chance(get_task("bhive"), [2.0]) is None


TEXTS = [
    "addq %rax, %rbx",
    "movq %rsi, %rdi\nsubq %rdi, %r8",
    "imulq %r10, %r11\naddq %r11, %r12",
    "xorq %rcx, %rdx",
    "movq 8(%rsp), %r9\naddq %r9, %r13",
]


def _labelled(labels):
    return [(t, y) for t, y in zip(TEXTS, labels)]


@pytest.mark.parametrize(
    "fn, task, labels, constant, prediction, at_chance",
    [
        # constant models, numbers and labels: invariant whatever they read
        ("constant", "bhive", [2.0, 2.5, 2.5, 2.5, 5.0], True, 2.5, False),  # better than the mean, 2.9
        ("almost_constant", "bhive", [2.0, 2.5, 2.5, 2.5, 5.0], True, 2.5, False),
        ("constant", "bhive", [2.0, 3.0, 3.0, 2.0, 3.0], True, 2.5, True),  # as good as the mean, 2.6
        ("says_no", "classify", ["no", "yes", "yes", "yes", "no"], True, "no", True),
        ("no_bug", "bugs", [1, 0, 0, 0, 0], True, 0, True),  # the majority class: exactly chance
        ("constant", "bhive", None, True, 2.5, None),  # no labels: constant all the same
        # useful and invariant: nothing to say
        ("distinct_registers", "bhive", [2.0, 3.0, 3.0, 2.0, 3.0], False, None, False),
        # invariant, not constant, and worse than predicting the mean label
        ("distinct_registers", "bhive", [10.0, 11.0, 10.0, 11.0, 10.0], False, None, True),
        ("uses_rbx", "classify", ["no", "no", "no", "no", "yes"], False, None, True),
        # not invariant, not constant, at chance
        ("register_count_then_zero", "bhive", [2.0, 3.0, 3.0, 2.0, 3.0], False, None, True),
    ],
)
def test_trivially_invariant_models_are_named(fn, task, labels, constant, prediction, at_chance):
    from invar.audit import audit
    from tests.audit import callables

    model = getattr(callables, fn)
    data = TEXTS if labels is None else _labelled(labels)
    result = audit(
        model, data, task=task, lang="x86", variants=4, batch_size=3 if "then" in fn else 64, transform="renamings"
    )
    t = result.trivial
    assert (t["constant"], t["no_better_than_chance"]) == (constant, at_chance)
    assert t["prediction"] == (pytest.approx(prediction) if isinstance(prediction, float) else prediction)
    # a percentage says so (bhive's MAPE and classify's accuracy alike)
    said = [n for n in t["notes"] if "no better than chance" in n]
    assert len(said) == bool(at_chance) and all(re.search(r"originals, [\d.]+ %, .*: [\d.]+ % for", n) for n in said)
    # a callable asked once per input: its noise floor is not measured, and the report says so
    unmeasured = [n for n in t["notes"] if "noise floor was not measured" in n]
    assert len(unmeasured) == 1
    named = [n for n in t["notes"] if n not in unmeasured and "controls" not in n]
    assert len(named) == bool(constant) + bool(at_chance)
    if constant:
        assert result.violation_rate == 0.0 and "for every program and variant of the 5 audited" in named[0]
    if labels is not None and task != "classify" or labels is not None and fn == "says_no":
        # the chance level, computed here from the labels alone
        preds = [r["prediction"] for r in result.records]
        if task == "bhive":
            mean = sum(labels) / len(labels)
            assert result.metric["chance"]["value"] == pytest.approx(_mape([mean] * 5, labels))
            assert result.metric["original"] == pytest.approx(_mape(preds, labels))
        else:
            majority = max(sorted(set(labels)), key=labels.count)
            assert result.metric["chance"]["value"] == pytest.approx(_accuracy([majority] * 5, labels))


def test_one_audited_example_is_not_called_constant():
    from invar.audit import audit
    from tests.audit import callables

    result = audit(callables.constant, TEXTS[:1], task="bhive", variants=4)
    notes = result.trivial.pop("notes")
    assert result.trivial == {"constant": None, "prediction": None, "no_better_than_chance": None, "insensitive": None}
    assert len(notes) == 1 and "noise floor was not measured" in notes[0]  # a callable asked once


#: two moves that share no register (nor flags): the one block of these with another order
INDEPENDENT = "movq %rax, %rbx\nmovq %rcx, %rdx"


@pytest.mark.parametrize(
    "texts, transform, varied, violations, untested",
    [
        # every block of TEXTS is one line or one chain of dependent lines: a single order each
        (TEXTS, "permutations", 0, 0, True),
        (TEXTS + [INDEPENDENT], "permutations", 1, 1, False),  # its other order moves the first register
        (TEXTS, "renamings", 5, 5, False),  # every block has registers to rename
    ],
)
def test_only_examples_with_a_variant_besides_the_original_can_violate(texts, transform, varied, violations, untested):
    from invar.audit import audit
    from tests.audit import callables

    result = audit(callables.first_register_number, texts, task="bhive", lang="x86", variants=4, transform=transform)
    assert result.audited == len(texts) and result.violations == violations
    assert result.varied["examples"] == varied
    assert result.varied["examples"] == sum(1 for r in result.records if r["varies"])
    # x86 spaces hold the original: a space of one is the original alone
    assert all(r["varies"] == (r["space"] is None or int(r["space"]) > 1) for r in result.records)
    assert result.violation_rate == violations / len(texts)
    assert result.varied["violation_rate"] == (violations / varied if varied else None)
    movable = [r["alpha_covariance"] for r in result.records if r["varies"]]
    assert result.varied["alpha_covariance"] == (pytest.approx(sum(movable) / len(movable)) if movable else None)
    if varied < len(texts):  # the examples that cannot vary agree with themselves, and lift the mean
        assert result.alpha_covariance["mean"] > (result.varied["alpha_covariance"] or 0)
    notes = [n for n in result.trivial["notes"] if "has a variant besides the original" in n]
    assert notes == (
        [
            f"none of the {len(texts)} audited examples has a variant besides the original under "
            f"{transform}, so none can violate: this audit tests no invariance"
        ]
        if untested
        else []
    )


#: a Java method whose one local may not keep its name (``length`` is also
#: the field read through ``value.length``): its space is one renaming, not
#: the original's names
KEPT_NAME = """class A {
    int[] value;
    void trim() {
        int length = value.length - 1;
        value = java.util.Arrays.copyOf(value, length);
    }
}
"""


def test_a_space_of_one_renaming_that_is_not_the_original_can_violate():
    from invar.audit import audit

    result = audit(lambda texts: [t.count("length") for t in texts], [KEPT_NAME], task="classify", lang="java")
    [record] = result.records
    assert (record["space"], record["varies"], record["violation"]) == (1, True, True)
    assert result.varied["examples"] == 1 and result.varied["violation_rate"] == 1.0
