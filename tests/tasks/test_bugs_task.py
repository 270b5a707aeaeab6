"""The bugs task: the injections (variable misuse, comparison swap) and the
no-op check, a balanced dataset split by file, training every architecture a
few steps, checkpoints through the audit, and the invariance of ``spe`` and
``renamer+spe`` bug models.

The corpus is fixtures/python and fixtures/java copied into three
directories (so every split gets some) in a temporary directory.
"""

from __future__ import annotations

import csv
import json
import random

import pytest
import torch

from invar import load_model
from invar.nn.config import architectures
from invar.tasks import get_task
from invar.tasks.bugs import SWAPS, accuracy, bug_f1, candidates, check, inject, output, parse, read_split
from invar.tasks.names import split_of
from tests.conftest import FIXTURES
from tests.tasks import sources


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return sources.corpus(tmp_path_factory.mktemp("bugs"), "bugs")


PY = """def f(a, b):
    c = a + b
    if c < b:
        c += a
    return g(a, b, a)
"""

JAVA = """class METHOD_CLASS {
    int f(int a, int b) {
        int c = a + b;
        if (c == b) c = a;
        return c;
    }
}
"""


def _token(program, line, text, nth=0):
    ks = [k for k, t in enumerate(program.tokens) if t.line == line and t.text == text]
    return ks[nth]


@pytest.mark.parametrize(
    "source, line, old, nth, new, expected",
    [
        # variable misuse: a read replaced by another variable defined earlier
        (PY, 1, "a", 0, "b", PY.replace("c = a + b", "c = b + b")),
        (PY, 2, "b", 0, "c", PY.replace("if c < b:", "if c < c:")),
        (PY, 3, "a", 0, "c", PY.replace("c += a", "c += c")),
        (PY, 4, "b", 0, "c", PY.replace("g(a, b, a)", "g(a, c, a)")),
        (JAVA, 1, "b", 0, "a", JAVA.replace("int c = a + b;", "int c = a + a;")),
        (JAVA, 2, "a", 0, "b", JAVA.replace("c = a;", "c = b;")),
        (JAVA, 3, "c", 0, "a", JAVA.replace("return c;", "return a;")),
        # comparison swaps
        (PY, 2, "<", 0, "<=", PY.replace("if c < b:", "if c <= b:")),
        (PY, 2, "<", 0, ">", PY.replace("if c < b:", "if c > b:")),
        (JAVA, 2, "==", 0, "!=", JAVA.replace("c == b", "c != b")),
    ],
)
def test_injections(source, line, old, nth, new, expected):
    program = parse(source)
    k = _token(program, line, old, nth)
    offered = candidates(program, source)
    kind = "swap" if old in SWAPS else "misuse"
    assert (k, new) in {(c[0], c[1]) for c in offered[kind]}
    bugged, why = check(program, k, new)
    assert bugged == expected, why


@pytest.mark.parametrize(
    "source, line, old, nth, new, reason",
    [
        # g(a, b, a) -> g(b, b, a): the line still reads a and b, the order is the same
        (PY, 4, "a", 0, "b", "the dependencies are unchanged"),
        (PY, 4, "a", 1, "b", "the dependencies are unchanged"),
        # the if's line reads its body's reads too: c is still read (c += a), a already was
        (PY, 2, "c", 0, "a", "the dependencies are unchanged"),
        # a variable used before any binding is not offered, and not in scope
        ("def f(a):\n    if a:\n        t = 1\n    return a\n", 3, "a", 0, "t", None),
    ],
)
def test_no_op_and_undefined_misuses_are_rejected(source, line, old, nth, new, reason):
    program = parse(source)
    k = _token(program, line, old, nth)
    if reason is None:  # t is bound deeper than the read: not offered
        assert (k, new) not in {(c[0], c[1]) for c in candidates(program, source)["misuse"]}
        return
    bugged, why = check(program, k, new)
    assert bugged is None and why == reason


def test_definitions_are_never_replaced():
    program = parse(PY)
    offered = {c[0] for c in candidates(program, PY)["misuse"]}
    binds = {_token(program, 1, "c"), _token(program, 3, "c")}  # c = …, c += …
    assert not offered & binds
    assert all(program.tokens[k].line > 0 for k in offered)
    java = parse(JAVA)
    offered = {c[0] for c in candidates(java, JAVA)["misuse"]}
    assert not offered & {_token(java, 1, "c"), _token(java, 2, "c", 1)}  # int c = …, c = a


def test_a_reversal_between_equal_operands_is_rejected():
    source = "def f(x, y):\n    return x < x or y\n"
    program = parse(source)
    k = _token(program, 1, "<")
    assert check(program, k, ">")[0] is None
    assert check(program, k, "<=")[0] == source.replace("x < x", "x <= x")


def test_injection_is_seeded():
    program = parse(PY)
    a = inject(program, PY, random.Random("s"))
    assert a == inject(program, PY, random.Random("s")) and a is not None


def test_every_bug_is_checked_and_the_dataset_is_balanced_and_split_by_file(corpus):
    data = corpus / "data"
    meta = json.loads((data / "meta.json").read_text())
    assert meta["invar"] == "bugs" and meta["functions_without_bug"] > 0
    assert meta["bugs"]["misuse"] > 0 and meta["bugs"]["swap"] > 0
    split_of_path = {}
    total = 0
    for split in ("train", "valid", "test"):
        assert meta[split] > 0
        with open(data / f"{split}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == meta[split] == len(read_split(data, split))
        assert [r["label"] for r in rows] == ["0", "1"] * (len(rows) // 2)  # balanced: each original, then its bug
        for original, bugged in zip(rows[::2], rows[1::2]):
            assert split_of_path.setdefault(original["path"], split) == split == split_of(original["path"])
            assert bugged["path"] == original["path"] and bugged["line"] == original["line"]
            program = sources.parsed("bugs", original["source"])  # parsed once for the module's tests
            assert program.lang == ("java" if original["path"].endswith(".java") else "python")
            b = sources.parsed("bugs", bugged["source"])
            changed = [k for k, (x, y) in enumerate(zip(program.tokens, b.tokens)) if x.text != y.text]
            assert len(changed) == 1 and len(program.tokens) == len(b.tokens)
            k = changed[0]
            assert bugged["bug"].split()[0] == ("swap" if program.tokens[k].text in SWAPS else "misuse")
            put = None if program.tokens[k].text in SWAPS else b.tokens[k].referent
            assert check(program, k, b.tokens[k].text, put)[0] == bugged["source"]  # passes the no-op check
            total += 2
    assert total == meta["train"] + meta["valid"] + meta["test"] == 2 * sum(meta["bugs"].values())
    assert len(split_of_path) <= meta["files"] == 3 * (10 + 5)


def test_accuracy_and_bug_f1():
    assert accuracy([1, 0, 1, 1], [1, 0, 0, 1]) == 75.0
    assert bug_f1([1, 0, 1, 1], [1, 0, 0, 1]) == pytest.approx(200 * 2 / (4 + 1 + 0))
    assert output(torch.tensor([0.3, -0.1, 0.0])) == [1, 0, 1]
    assert get_task("bugs").label("1") == 1 and get_task("bugs").answer("Yes, it has a bug") == 1


@pytest.fixture(scope="module")
def models(corpus, tmp_path_factory):
    return sources.train_all("bugs", corpus / "data", tmp_path_factory.mktemp("models"))


@pytest.mark.parametrize("arch", architectures())
def test_every_architecture_trains_and_its_loss_falls(models, arch):
    path, steps, result = models[arch]
    assert len(steps) == 2 * 6
    assert sum(steps[-4:]) < sum(steps[:4]), steps
    model = load_model(path)
    assert model.task == "bugs" and model.config.arch == arch and model.config.head == "binary"
    assert model.config.n_labels == 1 and 0 <= result.best_metric <= 100


def test_a_checkpoint_round_trips_through_the_audit(models, corpus):
    report = sources.audit_round_trip(models["renamer+spe"][0], corpus, "bugs")
    assert report["metric"]["name"] == "accuracy" and set(report["metric"]["extra"]) == {"F1 (bug)"}


@sources.spe_cases
def test_spe_bug_models_are_invariant(models, corpus, arch, kinds, lang):
    """Their logits agree within 1e-5 under sampled reorderings (and, for
    renamer+spe, renamings and both), Python functions and Java methods
    alike; vanilla's move."""
    sources.assert_spe_invariant(models, corpus, arch, kinds, lang, vanilla_moves=1e-5)


def test_a_model_reads_any_function_as_the_dataset_stores_it(models):
    from invar import parse_units
    from invar.tasks.bugs import function_text

    model = load_model(models["renamer+spe"][0])
    text = (FIXTURES / "java" / "Arith.java").read_text()
    for unit in parse_units(text, "java", path="Arith.java")[:5]:
        a, b = model.encode(unit), model.encode(parse(function_text(unit)))
        for field in ("tokens", "views", "referents", "corefs", "lines"):
            assert (getattr(a, field) == getattr(b, field)).all(), (unit.name, field)


@pytest.mark.parametrize(
    "text, lang, seeded",
    [
        ("def f(a):\n    return a\n\n\ndef f(b):\n    return b\n", "python", ["f", "f"]),
        (
            "class Ov {\n    int f(int a) { return a; }\n    int f(long a) { return 1; }\n"
            "    int g(int a) { return a; } int g(long a) { return 2; }\n}\n",
            "java",
            ["Ov.f@2", "Ov.f@3", "Ov.g@4", "Ov.g@4"],
        ),
    ],
)
def test_draws_are_seeded_by_the_names_units_had_before_they_were_told_apart(text, lang, seeded):
    """A bugs dataset keeps its bugs: units sharing a name seed by what they were called before."""
    from invar import parse_units
    from invar.tasks.bugs import _seed_name

    assert [_seed_name(u) for u in parse_units(text, lang)] == seeded
