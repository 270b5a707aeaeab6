"""The alta task: token sequences as programs (an element per line, symbols
renamable, other tokens fixed), its datasets, and the audit of a model that
reads texts and carries its own oracle, checked against every member of the
exact spaces."""

from __future__ import annotations

import math

import pytest

import invar
from invar.errors import DataError, ParseError
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from invar.tasks import alta, get_task


@pytest.mark.parametrize(
    "text, kinds, referents",
    [
        ("a b a", ["symbol", "symbol", "symbol"], ["a", "b", "a"]),
        ("1 0 1 1", ["fixed"] * 4, [None] * 4),
        ("12 + 3 x", ["fixed", "fixed", "fixed", "symbol"], [None, None, None, "x"]),
        ("  z\tz  ", ["symbol", "symbol"], ["z", "z"]),
    ],
)
def test_elements_are_lines_and_symbols_are_referents(text, kinds, referents):
    program = alta.parse(text)
    assert program.lang == "alta" and program.render() == " ".join(text.split())
    assert [t.kind for t in program.tokens] == kinds and [t.referent for t in program.tokens] == referents
    assert [t.view for t in program.tokens] == [("sym" if r else t.text) for t, r in zip(program.tokens, referents)]
    assert all(line.block == 0 and not line.reads and not line.writes for line in program.lines)
    assert PermutationSpace(program).count() == math.factorial(len(kinds))


@pytest.mark.parametrize(
    "text, pool, count", [("a b a", None, 2), ("a b a", alta.POOL, 26 * 25), ("1 0 1", None, 1), ("x 1 y", "xyz", 6)]
)
def test_renamings_map_the_symbols_used_into_the_pool(text, pool, count):
    program = alta.parse(text)
    space = renaming_space(program, pool=pool)
    assert space.count() == count
    for r in space.enumerate(limit=20):
        renamed = space.apply(program, r).render().split()
        assert [a for a in renamed if a not in alta.POOL] == [a for a in text.split() if a not in alta.POOL]


def test_bad_inputs_are_located():
    with pytest.raises(ParseError, match="empty input"):
        alta.parse("   ")
    with pytest.raises(invar.errors.UsageError, match="not an alta symbol"):
        renaming_space(alta.parse("a b"), pool=["a", "B"])


def test_dataset_lines_with_and_without_labels(tmp_path):
    f = tmp_path / "inputs.txt"
    f.write_text("a b a\t1 1 1\n\n1 0 1\n\t0\nb  c\t c  b \n")
    examples = alta.dataset(str(f), "test")
    assert [(e.source, e.label, e.line) for e in examples] == [
        ("a b a", "1 1 1", 1),
        ("1 0 1", None, 3),
        ("", None, 4),
        ("b  c", "c b", 5),
    ]
    assert isinstance(examples[2].error, DataError) and examples[2].error.line == 4
    with pytest.raises(DataError, match="line 4|:4:"):
        alta.read_split(f, "test")
    assert alta.undo("x y z", {"x": "a", "y": "b"}) == "a b z"
    assert alta.exact_match(["1 1", "0 1"], ["1 1", "1 1"]) == 50.0


class _TextModel:
    """A model that reads texts, as a compiled program is read: ``answer``
    maps an input's tokens to its output tokens, and is its own oracle."""

    reads_text = True
    task = "alta"
    languages = ("alta",)

    def __init__(self, answer):
        self.answer = answer

    def info(self) -> dict:
        return {"arch": "alta", "size": self.answer.__name__}

    def predict_texts(self, texts, device=None):
        return [" ".join(self.answer(t.split())) for t in texts]

    def oracle(self, texts):
        return [(p, "") for p in self.predict_texts(texts)]


def contains_a(xs):
    return ["1" if "a" in xs else "0"] * len(xs)


def reverse(xs):
    return list(reversed(xs))


def first_is_a(xs):
    return ["1" if xs[0] == "a" else "0"] * len(xs)


INPUTS = ["a b c", "b c", "c a c a", "d e d", "a", "b b b a"]


@pytest.mark.parametrize("answer", [contains_a, first_is_a, reverse])
def test_audit_of_a_text_model_equals_the_whole_renaming_space(tmp_path, answer):
    """Every space is small enough to be audited whole: each example's
    violation and alpha-covariance are those of running the answer on every
    member of RenamingSpace.enumerate() (undone into the original's symbols)."""
    data = tmp_path / "inputs.txt"
    data.write_text("".join(x + "\n" for x in INPUTS))
    result = invar.audit(_TextModel(answer), str(data), task="alta", transform="renamings", variants=1000, oracle=True)
    assert result.header["model"]["arch"] == "alta"
    records = {r["id"]: r for r in result.records}
    assert len(records) == len(INPUTS)
    for text, rec in zip(INPUTS, result.records):
        program = alta.parse(text)
        space = renaming_space(program)
        outputs = []
        for r in space.enumerate():
            renamed = space.apply(program, r).render().split()
            back = {target: source for source, target in r.mapping}
            outputs.append(" ".join(back.get(t, t) for t in answer(renamed)))
        original = " ".join(answer(text.split()))
        distinct = len(set(outputs))
        assert rec["variants"] == space.count(), text
        assert rec["violation"] == any(o != original for o in outputs), text
        n = 1 + len(outputs)  # the original and every member (docs/audit.md)
        assert rec["alpha_covariance"] == pytest.approx((n - distinct) / (n - 1)), text
        # the model is its own oracle: a label changes (in the original's
        # symbols) exactly where the prediction does
        assert rec["oracle"]["changed"] == rec["violation"], text


def test_the_task_is_registered():
    task = get_task("alta")
    assert task.languages == ("alta",) and task.discrete and not task.lower_is_better
