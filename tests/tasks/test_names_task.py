"""The names task: subtokens, the hidden name, the split by file, training
every architecture a few steps, checkpoints through the audit, and the
invariance of ``spe`` and ``renamer+spe`` name models.

The corpus is fixtures/python and fixtures/java copied into three
directories (so every split gets some) in a temporary directory.
"""

from __future__ import annotations

import csv
import json
import math
import random

import pytest
import torch

from invar import load_model, parse_units
from invar.audit import audit
from invar.encoding import Vocab, encode, renamed
from invar.nn.config import architectures
from invar.symmetry.spaces import renaming_space
from invar.tasks import get_task
from invar.tasks.names import PLACEHOLDER, counts, f1, function_text, output, read_split, split_of, subtokens
from tests.tasks import sources


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return sources.corpus(tmp_path_factory.mktemp("names"), "names")


@pytest.fixture(scope="module")
def rows(corpus):
    """Each split's CSV rows, each with its function parsed: once for the
    module's tests (parsing a thousand functions takes seconds)."""
    out = {}
    for split in ("train", "valid", "test"):
        with open(corpus / "data" / f"{split}.csv", newline="") as f:
            out[split] = [(row, sources.parsed("names", row["source"])) for row in csv.DictReader(f)]
    return out


@pytest.mark.parametrize(
    "name, expected",
    [
        ("foo", ["foo"]),
        ("foo_bar", ["foo", "bar"]),
        ("fooBar", ["foo", "bar"]),
        ("FooBar", ["foo", "bar"]),
        ("FOO_BAR", ["foo", "bar"]),
        ("getHTTPResponse", ["get", "http", "response"]),
        ("HTTPServer", ["http", "server"]),
        ("parseXML2json", ["parse", "xml", "2", "json"]),
        ("__init__", ["init"]),
        ("_private_helper", ["private", "helper"]),
        ("to_utf8", ["to", "utf", "8"]),
        ("snake_and_camelCase", ["snake", "and", "camel", "case"]),
        ("x", ["x"]),
        ("_", []),
        # any letters, as Python identifiers may hold: a letter outside ASCII splits nothing
        ("get_välue", ["get", "välue"]),
        ("naïveBayes", ["naïve", "bayes"]),
        ("getÄrger", ["get", "ärger"]),
        ("ÉCOLE_ok", ["école", "ok"]),
        ("$scope", ["scope"]),
    ],
)
def test_subtokens(name, expected):
    assert subtokens(name) == expected


TEXT = '''
class Tree:
    def countLeaves(self, node):
        if node is None:
            return 0
        return self.countLeaves(node.left) + self.countLeaves(node.right)


def fact_iter(n):
    """the factorial"""
    return 1 if n < 2 else n * fact_iter(n - 1)


def shadow(shadow_x):
    shadow = shadow_x + 1
    return shadow
'''


JAVA = """
class Tree {
    int countLeaves(Node node) {
        if (node == null) return 0;
        return countLeaves(node.left) + this.countLeaves(node.right);
    }
}
"""


def test_a_java_method_stands_in_a_fixed_class():
    (unit,) = parse_units(JAVA, "java", path="Tree.java")
    text = function_text(unit)
    assert text.startswith("class METHOD_CLASS {\n    int METHOD_NAME(Node node) {\n")
    assert "countLeaves" not in text and text.count(PLACEHOLDER) == 3
    program = get_task("names").parse(text)
    assert program.lang == "java" and [t.text for t in program.tokens].count(PLACEHOLDER) == 3


@pytest.mark.parametrize("lang", ["python", "java"])
def test_renaming_by_id_remap_is_encoding_the_renamed_function(rows, lang):
    rng = random.Random(3)
    units = [u for _, u in rows["train"] if u.lang == lang]
    vocab = Vocab.build(units)
    checked = 0
    for unit in units[:40]:
        space = renaming_space(unit)
        for r in space.sample(3, rng):
            a, b = renamed(encode(unit, vocab), r, vocab), encode(space.apply(unit, r), vocab)
            for field in ("tokens", "views", "referents", "corefs"):
                assert (getattr(a, field) == getattr(b, field)).all(), field
            checked += 1
    assert checked >= 60


def test_the_name_and_recursive_references_are_hidden():
    units = {u.name: u for u in parse_units(TEXT, "python", path="t.py")}
    method = function_text(units["Tree.countLeaves"])
    assert method.startswith(f"def {PLACEHOLDER}(self, node):\n")
    assert "countLeaves" not in method and method.count(PLACEHOLDER) == 3
    assert f"self.{PLACEHOLDER}(node.left)" in method
    fact = function_text(units["fact_iter"])
    assert "fact_iter" not in fact and fact.count(PLACEHOLDER) == 2
    assert fact.startswith(f"def {PLACEHOLDER}(n):")
    # a local variable that happens to share the name is the body's own: kept
    shadow = function_text(units["shadow"])
    assert shadow.startswith(f"def {PLACEHOLDER}(shadow_x):") and "    shadow = shadow_x + 1" in shadow
    assert "return shadow" in shadow


@pytest.mark.parametrize(
    "text, lang, hidden",
    [
        ("def f(a):\n    return a\n\n\ndef f(a, b):\n    return f(a) + b\n", "python", [1, 2]),
        (
            "class Ov {\n    int m(int a) { return a; }\n    int m(int a, int b) { return m(a) + b; }\n"
            "    int k(int a) { return a; } int k(long a) { return (int) a; }\n}\n",
            "java",
            [1, 2, 2, 2],  # the two on one line share it, so each text holds both
        ),
    ],
)
def test_overloads_and_redefinitions_have_their_name_hidden(text, lang, hidden):
    """Units named apart by ``@LINE`` are still functions of their own name."""
    units = parse_units(text, lang, path="t." + ("py" if lang == "python" else "java"))
    assert len({u.name for u in units}) == len(units) and all("@" in u.name for u in units)
    texts = [function_text(u) for u in units]
    assert [t.count(PLACEHOLDER) for t in texts] == hidden


def test_a_model_hides_the_name_of_any_function_it_reads(models):
    """Predicting on a source file: the function is read as the dataset
    stores it (same tokens, views and coreference), its name hidden."""
    model = load_model(models["renamer+spe"][0])
    for unit in parse_units(TEXT, "python", path="t.py"):
        a, b = model.encode(unit), model.encode(get_task("names").parse(function_text(unit)))
        for field in ("tokens", "views", "referents", "corefs", "lines"):
            assert (getattr(a, field) == getattr(b, field)).all(), (unit.name, field)
    assert (
        model.predict(list(parse_units(TEXT, "python", path="t.py")))[0]
        == model.predict([get_task("names").parse(function_text(parse_units(TEXT, "python")[0]))])[0]
    )


def test_the_dataset_is_split_by_file(corpus, rows):
    data = corpus / "data"
    meta = json.loads((data / "meta.json").read_text())
    split_of_path = {}
    for split in ("train", "valid", "test"):
        assert meta[split] > 0
        assert len(rows[split]) == meta[split] == len(read_split(data, split))
        for row, unit in rows[split]:
            assert split_of_path.setdefault(row["path"], split) == split == split_of(row["path"])
            assert unit.lang == ("java" if row["path"].endswith(".java") else "python")
            assert PLACEHOLDER in [t.text for t in unit.tokens]
            assert not [t for t in unit.tokens if t.text == row["name"] and t.referent is None]
            assert row["label"].split() == subtokens(row["name"])
    assert len(split_of_path) == meta["files"] == 3 * (10 + 5)
    labels = {s for ex in read_split(data, "train") for s in ex.label}
    assert meta["subtokens"] == sorted(labels)


def test_f1_is_micro_averaged_over_subtokens():
    preds = [("get", "name"), ("set",), ("foo", "bar")]
    labels = [("get", "file", "name"), ("set", "value"), ("baz",)]
    assert counts(preds, labels) == (3, 2, 3)  # tp, fp, fn
    assert f1(preds, labels) == pytest.approx(200 * 3 / (6 + 2 + 3))
    assert f1([("a",)], [("b",)]) == 0.0
    logits = torch.tensor([[2.0, -1.0, 0.5], [-3.0, -1.0, -2.0]])
    assert output(logits, ["x", "y", "z"]) == [("x", "z"), ("y",)]  # never empty: the most probable


def test_f1_per_function_averages_each_functions_own_f1():
    """The other way the SPE paper's F1 can be read: each function's F1,
    then their mean; beside the micro average among the task's metrics."""
    from invar.tasks.names import TASK, f1_per_function

    preds = [("get", "name"), ("set",), ("foo", "bar")]
    labels = [("get", "file", "name"), ("set", "value"), ("baz",)]
    each = [2 * 2 / (2 + 3), 2 * 1 / (1 + 2), 0.0]  # 2|W ∩ W'| / (|W| + |W'|)
    assert f1_per_function(preds, labels) == pytest.approx(100 * sum(each) / 3)
    assert f1_per_function(preds, labels) < f1(preds, labels) == pytest.approx(200 * 3 / 11)
    assert f1_per_function([("a", "b")], [("a", "b")]) == 100.0 and math.isnan(f1_per_function([], []))
    assert TASK.extra_metrics["F1 (per function)"] is f1_per_function and TASK.metric is f1


@pytest.fixture(scope="module")
def models(corpus, tmp_path_factory):
    return sources.train_all("names", corpus / "data", tmp_path_factory.mktemp("models"))


@pytest.mark.parametrize("arch", architectures())
def test_every_architecture_trains_and_its_loss_falls(models, corpus, arch):
    path, steps, result = models[arch]
    assert len(steps) == 2 * 6
    assert sum(steps[-6:]) < sum(steps[:6]), steps  # the last epoch's steps against the first's
    model = load_model(path)
    assert model.task == "names" and model.config.arch == arch and model.config.head == "multilabel"
    assert model.labels == json.loads((corpus / "data" / "meta.json").read_text())["subtokens"]
    assert model.config.n_labels == len(model.labels) and 0 <= result.best_metric <= 100


def test_a_checkpoint_round_trips_through_the_audit(models, corpus):
    report = sources.audit_round_trip(models["renamer+spe"][0], corpus, "names")
    assert report["metric"]["name"] == "F1"
    assert set(report["metric"]["extra"]) == {"precision", "recall", "F1 (per function)"}


@sources.spe_cases
def test_spe_name_models_are_invariant(models, corpus, arch, kinds, lang):
    """Their logits agree within 1e-5 under sampled reorderings (and, for
    renamer+spe, renamings and both), Python functions and Java methods
    alike; vanilla's move."""
    sources.assert_spe_invariant(models, corpus, arch, kinds, lang, vanilla_moves=1e-3)


def test_the_audit_of_a_renamer_spe_names_model_finds_no_violation(models, corpus):
    """Trained a few steps, a model predicts almost the same subtokens for
    everything; with its output bias cleared its predictions differ from
    function to function, and still never under a transform (vanilla's do)."""
    rates = {}
    for arch in ("renamer+spe", "vanilla"):
        model = load_model(models[arch][0])
        with torch.no_grad():
            model.network.head.out.bias.zero_()
        result = audit(model, str(corpus / "data"), transform="both", variants=4, limit=15, seed=1)
        report = result.report
        assert report["audited"] >= 12 and all("this model takes" in f["error"] for f in report["failed"])
        preds = {json.dumps(r["prediction"]) for r in result.records if r.get("prediction")}  # each original's
        assert len(preds) > 3  # not a constant model
        rates[arch] = report["violation_rate"]
    assert rates["renamer+spe"] == 0.0
    assert rates["vanilla"] > 0.2, rates


@pytest.mark.parametrize(
    "name, data, found",
    [
        (
            "m.py",
            b"\xef\xbb\xbfdef f(x):\n    y = x + 1\n    return y\n",
            ["f"],
        ),  # a byte-order mark, as every command reads
        ("m.py", b"# -*- coding: latin-1 -*-\ndef g(x):\n    s = '\xe9'\n    return s\n", ["g"]),  # PEP 263
        ("m.py", b"def f(x):\r\n    y = x\r\n    return y\r\n", ["f"]),
        ("m.py", b"", []),  # an empty __init__.py holds no function, and is no failure
        ("I.java", b"interface I { int f(); }\n", []),  # nor an interface: no method with a body
        ("package-info.java", b"package a.b;\n", []),
        ("A.java", b"class A { int f( }\n", "unparsable"),
        ("m.py", b"def f(x):\n    return '\xff'\n", "not UTF-8"),
        ("m.py", b"def f(x):\n\0", "unparsable"),
        ("m.py", b"def f(:\n", "unparsable"),
    ],
)
def test_a_source_file_is_read_as_the_commands_read_it(tmp_path, name, data, found):
    from invar.tasks.names import read_units

    path = tmp_path / name
    path.write_bytes(data)
    units, why = read_units(path, name)
    assert (why if units is None else [u.name for u in units]) == found


@pytest.mark.parametrize(
    "task, files, message",
    [
        ("names", {}, "no .py or .java file here (searched recursively)"),
        ("bugs", {}, "no .py or .java file here (searched recursively)"),
        # a.py's path hashes to the test split: a row, but none to train on
        ("names", {"a.py": "def f(a):\n    return a\n"}, "no row in a training file: 1 in test; each file goes"),
        # b.py goes to train, but its one function admits no bug
        ("bugs", {"b.py": "def f(a):\n    return a\n"}, "no function of the 1 file made a row (1 without a bug"),
        ("names", {"b.py": "x = 1\n"}, "no function of the 1 file made a row (1 with their name not in their text)"),
    ],
)
def test_a_dataset_with_nothing_to_train_on_says_why(tmp_path, task, files, message):
    from invar.errors import DataError
    from invar.tasks import bugs, names

    source = tmp_path / "src"
    source.mkdir()
    for name, text in files.items():
        (source / name).write_text(text)
    with pytest.raises(DataError) as refused:
        {"names": names, "bugs": bugs}[task].build(source, tmp_path / "out", jobs=1)
    assert refused.value.message.startswith(message), refused.value.message
    assert refused.value.path == str(source) and not (tmp_path / "out").exists()
