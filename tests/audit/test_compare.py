"""Comparing two audits of the same examples: real audits of hand-built
callables on Python functions, whose violations and right answers are
counted here independently from every renaming, give the comparison's
McNemar counts; audits that did not measure the same examples are refused
with one located line."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
import pytest

import invar
from invar.audit import audit
import importlib
from invar.audit.compare import COMPARISON, compare, render
from invar.errors import DataError

#: the module (the package names its function ``compare``)
compare_module = importlib.import_module("invar.audit.compare")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "python"
K = 24  # at least every space below: each audit takes every renaming, so the counts are exact


@pytest.fixture(scope="module")
def programs():
    """40 Python functions with at most K renamings (one to 24 each)."""
    found = []
    for path in sorted(FIXTURES.glob("*.py")):
        found += [p for p in invar.parse_units(path.read_text(), lang="python") if invar.renamings(p).count() <= K]
    assert len(found) >= 40
    return found[:40]


def label(program) -> str:
    return "long" if len(program.lines) > 5 else "short"


# the models: each takes program texts and answers "long" or "short"
def by_lines(texts):
    """Invariant: the number of lines, which no renaming changes."""
    return ["long" if len(t.splitlines()) > 4 else "short" for t in texts]


def by_letters(texts):
    """Reads names: the parity of the letters the text spells (a renaming
    that swaps names of different lengths changes it)."""
    return ["long" if len(re.findall(r"[a-z]", t)) % 2 == 0 else "short" for t in texts]


def by_letters_not_loops(texts):
    """by_letters, except that it fails on every function with a loop."""
    if any(re.search(r"\b(for|while)\b", t) for t in texts):
        raise ValueError("no loops")
    return by_letters(texts)


def expected(model, programs) -> tuple[list[bool], list[bool]]:
    """(whether the model violates, whether it is right on the original) per
    program, from every renaming of it."""
    violates, right = [], []
    for p in programs:
        space = invar.renamings(p)
        answers = model([p.render()] + [space.render(r) for r in space.enumerate()])
        violates.append(any(a != answers[0] for a in answers[1:]))
        right.append(answers[0] == label(p))
    return violates, right


def write(tmp_path: Path, name: str, model, programs, **options) -> str:
    """One real audit of ``model`` written as JSONL; its path."""
    options = {"task": "classify", "transform": "renamings", "variants": K, **options}
    result = audit(model, [(p, label(p)) for p in programs], **options)
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(result.jsonl()) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def audits(programs, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audits")
    return {
        name: write(tmp, name, model, programs)
        for name, model in (("lines", by_lines), ("letters", by_letters), ("loops", by_letters_not_loops))
    }


def counts(x: list[bool], y: list[bool]) -> tuple[int, int]:
    return sum(a and not b for a, b in zip(x, y)), sum(b and not a for a, b in zip(x, y))


# ------------------------------------------------------------------ pairing
def test_two_real_audits_give_the_independently_counted_mcnemar_table(programs, audits):
    result = compare(audits["lines"], audits["letters"], resamples=500, seed=3)
    va, ra = expected(by_lines, programs)
    vb, rb = expected(by_letters, programs)
    assert not any(va) and 5 <= sum(vb) <= 35, "the invariant model never violates; the other sometimes"
    paired = result["paired"]
    assert paired["examples"] == 40 and paired["left_out"] == {"a": 0, "b": 0, "both": 0}
    v = paired["violation_rate"]
    assert (v["a_only"], v["b_only"]) == counts(va, vb) == (0, sum(vb))
    assert v["a"] == 0.0 and v["b"] == pytest.approx(sum(vb) / 40) and v["difference"] == pytest.approx(-sum(vb) / 40)
    assert v["p"] == pytest.approx(2 * 0.5 ** sum(vb))  # McNemar with b = 0: 2 * P(X = 0)
    assert v["interval"][0] <= v["difference"] <= v["interval"][1] < 0
    c = paired["correct"]
    assert (c["a_only"], c["b_only"]) == counts(ra, rb) and c["a_only"] + c["b_only"] > 0
    assert c["a"] == pytest.approx(sum(ra) / 40) and c["b"] == pytest.approx(sum(rb) / 40)
    m = paired["metric"]  # accuracy per example: 100 or 0
    assert m["name"] == "accuracy" and m["examples"] == 40
    assert m["difference"] == pytest.approx(100 * (sum(ra) - sum(rb)) / 40)
    alpha = paired["alpha_covariance"]
    assert alpha["a"] == 1.0 and alpha["b"] < 1.0 and alpha["difference"] > 0


def test_each_models_own_measures_come_from_its_summary(audits):
    result = compare(audits["lines"], audits["letters"])
    for side, path in (("a", audits["lines"]), ("b", audits["letters"])):
        summary = json.loads(Path(path).read_text().splitlines()[-1])
        own = result[side]
        assert own["path"] == path and own["model"] == summary["model"]
        assert own["violation_rate"] == summary["violation_rate"]
        assert own["alpha_covariance"] == summary["alpha_covariance"]["mean"]
        assert own["metric"]["original"] == summary["metric"]["original"]
        assert own["metric"]["worst"] == summary["metric"]["worst"]


def test_swapping_the_audits_swaps_the_table(audits):
    ab = compare(audits["lines"], audits["letters"], seed=1)["paired"]
    ba = compare(audits["letters"], audits["lines"], seed=1)["paired"]
    for key in ("violation_rate", "correct"):
        assert (ab[key]["a_only"], ab[key]["b_only"]) == (ba[key]["b_only"], ba[key]["a_only"])
        assert ab[key]["p"] == ba[key]["p"]
        assert ab[key]["difference"] == pytest.approx(-ba[key]["difference"])


def test_an_audit_against_itself_differs_nowhere(audits):
    paired = compare(audits["letters"], audits["letters"])["paired"]
    for key in ("violation_rate", "correct"):
        row = paired[key]
        assert (row["a_only"], row["b_only"], row["difference"], row["p"]) == (0, 0, 0.0, 1.0)
    assert paired["alpha_covariance"]["interval"] == [0.0, 0.0]


def test_examples_that_failed_in_either_audit_are_left_out_and_counted(programs, audits):
    loops = [bool(re.search(r"\b(for|while)\b", p.render())) for p in programs]
    assert 3 <= sum(loops) <= 37
    result = compare(audits["letters"], audits["loops"])
    paired = result["paired"]
    assert paired["left_out"] == {"a": 0, "b": sum(loops), "both": 0}
    assert paired["examples"] == 40 - sum(loops)
    # on the examples both audited the two models answer alike
    assert paired["violation_rate"]["a_only"] == paired["violation_rate"]["b_only"] == 0
    assert result["b"]["errors"] == sum(loops) and result["b"]["audited"] == 40 - sum(loops)
    assert compare(audits["loops"], audits["letters"])["paired"]["left_out"] == {"a": sum(loops), "b": 0, "both": 0}


def test_the_comparison_is_seeded(audits):
    one = compare(audits["lines"], audits["letters"], seed=5)
    assert compare(audits["lines"], audits["letters"], seed=5) == one
    other = compare(audits["lines"], audits["letters"], seed=6)
    assert other["paired"]["violation_rate"]["p"] == one["paired"]["violation_rate"]["p"]  # exact: no seed
    assert other["statistics"]["seed"] == 6


def test_the_result_is_json_that_its_schema_accepts(audits):
    for a, b in (("lines", "letters"), ("letters", "loops")):
        result = compare(audits[a], audits[b])
        assert result["type"] == "comparison" and result["schema"] == 1
        jsonschema.Draft202012Validator(COMPARISON).validate(json.loads(json.dumps(result, allow_nan=False)))


def test_the_schema_refuses_what_is_not_a_comparison(audits):
    result = compare(audits["lines"], audits["letters"])
    for broken in (
        {**result, "type": "report"},
        {**result, "paired": {**result["paired"], "extra": 1}},
        {k: v for k, v in result.items() if k != "a"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, COMPARISON)


def test_render_shows_the_paired_tests(audits):
    from rich.console import Console

    result = compare(audits["lines"], audits["letters"])
    buf = io.StringIO()
    render(result, Console(file=buf, width=200, highlight=False))
    text = buf.getvalue()
    v = result["paired"]["violation_rate"]
    assert f"McNemar 0/{v['b_only']}" in text  # McNemar's discordant pairs: A only, B only
    assert "paired: A - B over the 40 examples both audited" in text
    for row in ("violation rate", "alpha-covariance", "accuracy on originals", "correct on originals"):
        assert row in text
    assert f"{v['p']:.3g}" in text


def test_a_numeric_task_has_no_right_or_wrong(tmp_path):
    from tests.audit import callables

    blocks = "fixtures/blocks"
    a = audit(callables.distinct_registers, blocks, task="bhive", limit=12, variants=4)
    b = audit(callables.first_register_number, blocks, task="bhive", limit=12, variants=4)
    paths = []
    for name, result in (("a", a), ("b", b)):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("\n".join(result.jsonl()))
    paired = compare(*map(str, paths))["paired"]
    assert paired["correct"] is None
    assert paired["metric"]["name"] == "MAPE" and paired["metric"]["lower_is_better"] is True
    mape_a = [r["metric"]["original"] for r in a.records if r["error"] is None]
    assert paired["metric"]["a"] == pytest.approx(sum(mape_a) / len(mape_a))


# ------------------------------------------------------------------ refusals
def _refused(a: str, b: str) -> str:
    with pytest.raises(DataError) as info:
        compare(a, b)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{info.value.path}:"), "one located line"
    return text


@pytest.mark.parametrize(
    "options, message",
    [
        ({"seed": 1}, "seed 1 here, 0 there"),
        ({"variants": 8}, "variants 8 here, 24 there"),
        ({"transform": "both"}, 'transform "both" here, "renamings" there'),
        ({"tolerance": 0.5}, "tolerance 0.5 here, 1e-06 there"),
        ({"limit": 30}, "limit 30 here, null there"),
    ],
)
def test_audits_with_other_settings_are_refused(programs, audits, tmp_path, options, message):
    other = write(tmp_path, "other", by_letters, programs, **options)
    text = _refused(audits["lines"], other)
    assert text.startswith(f"{other}:1:1: error: not audited as {audits['lines']} was")
    assert message in text


def test_another_dataset_is_refused(programs, audits, tmp_path):
    fewer = write(tmp_path, "fewer", by_letters, programs[:30])
    assert "dataset examples 30 here, 40 there" in _refused(audits["lines"], fewer)
    # as many programs, but others: the ids (#0 …) agree, the programs do not
    others = write(tmp_path, "others", by_letters, programs[1:] + programs[:1])
    assert "other examples than" in _refused(audits["lines"], others)


def test_another_task_is_refused(programs, audits, tmp_path):
    result = audit(lambda texts: [0] * len(texts), programs, task="bugs", transform="renamings", variants=K)
    other = tmp_path / "bugs.jsonl"
    other.write_text("\n".join(result.jsonl()))
    other = str(other)
    assert 'task "bugs" here, "classify" there' in _refused(audits["lines"], other)


def test_other_labels_are_refused(programs, audits, tmp_path):
    result = audit(by_letters, [(p, "long") for p in programs], task="classify", transform="renamings", variants=K)
    other = tmp_path / "relabelled.jsonl"
    other.write_text("\n".join(result.jsonl()))
    assert "other labels than" in _refused(audits["lines"], str(other))


def test_other_example_ids_are_refused(audits, tmp_path):
    lines = Path(audits["letters"]).read_text().splitlines()
    record = json.loads(lines[3])
    lines[3] = json.dumps(dict(record, id="elsewhere.py:7"))
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines))
    assert "record 3 is elsewhere.py:7 here, #2 there" in _refused(audits["lines"], str(edited))


@pytest.mark.parametrize("indent", [2, None])
def test_a_json_report_is_refused_with_how_to_write_one_that_pairs(programs, tmp_path, audits, indent):
    result = audit(by_letters, [(p, label(p)) for p in programs], task="classify", transform="renamings", variants=K)
    report = tmp_path / "report.json"
    report.write_text(json.dumps(result.report, indent=indent))
    text = _refused(audits["lines"], str(report))
    assert "holds no example records to pair" in text and "--format jsonl" in text
    assert _refused(str(report), audits["lines"]).startswith(f"{report}:")


def test_a_jsonl_audit_without_example_records_is_refused(audits, tmp_path):
    lines = Path(audits["letters"]).read_text().splitlines()
    bare = tmp_path / "bare.jsonl"
    bare.write_text("\n".join([lines[0], lines[-1]]))
    assert "no example records to pair" in _refused(audits["lines"], str(bare))


def test_a_missing_file_is_a_located_error(audits, tmp_path):
    assert _refused(audits["lines"], str(tmp_path / "nowhere.jsonl")).endswith("error: no such file")


@pytest.mark.parametrize(
    "p, test, resamples, shown",
    [
        (0.0, "paired bootstrap", 1000, "< 0.002"),  # no resample on the other side of 0: below 2 / resamples
        (0.0, "mcnemar", 1000, "0"),  # an exact test's p is what it is
        (0.0421, "paired bootstrap", 1000, "0.0421"),
        (None, "paired bootstrap", 1000, "-"),
    ],
)
def test_a_bootstrap_p_of_zero_is_shown_as_a_bound(p, test, resamples, shown):
    assert compare_module._p_shown({"p": p, "test": test}, resamples) == shown
