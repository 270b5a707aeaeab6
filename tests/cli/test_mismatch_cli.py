"""A model given what it was not trained on: ``invar predict`` and ``invar
audit`` refuse a dataset ``invar data`` wrote for another task with one
message (exit 1), and a program in a language the model was not trained on
at that program's location (the audit reports it and audits the rest).

Models: the committed bhive checkpoint (written before checkpoints named
their languages: x86 is inferred from its task) and names, ltl and copy
checkpoints trained a few steps here (each names the languages it saw).
"""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from invar.cli.app import app
from invar.train import train

from ..conftest import FIXTURES

BHIVE_MODEL = FIXTURES / "models" / "renamer.pt"
QUICK = {"epochs": 1, "batch_size": 16, "threads": 1, "limit": 48, "size": "tiny"}


def _data(*args: str) -> None:
    result = CliRunner().invoke(app, ["data", *args])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Datasets of every task, written by invar data, and a model of each task."""
    root = tmp_path_factory.mktemp("mismatch")
    src = root / "src"
    for d in ("a", "b", "c"):  # three directories so that every split gets files
        (src / d).mkdir(parents=True)
        for name in ("arith.py", "control.py", "lists.py", "strings.py"):  # a few files, and a test split
            shutil.copy(FIXTURES / "python" / name, src / d / name)
    _data("names", "--source", str(src), "--out", str(root / "names"))
    _data(
        "copy",
        "--out",
        str(root / "copy"),
        "--train",
        "60",
        "--valid",
        "20",
        "--test",
        "10",
        "--test-symbols",
        "4",
        "--max-length",
        "6",
    )
    _data("ltl", "--num", "6", "--aps", "2", "--max-size", "4", "--jobs", "1", "--out", str(root / "pairs.txt"))
    ltl_dir = root / "ltl"
    ltl_dir.mkdir()
    lines = (FIXTURES / "ltl" / "ae.txt").read_text().splitlines(keepends=True)
    for split, (lo, hi) in {"train": (0, 160), "valid": (160, 200), "test": (200, 220)}.items():
        (ltl_dir / f"{split}.txt").write_text("".join(lines[lo:hi]))
    models = {"bhive": BHIVE_MODEL}
    for task, data, arch in (
        ("names", root / "names", "renamer"),
        ("copy", root / "copy", "dualpart"),
        ("ltl", ltl_dir, "dualpart"),
    ):
        models[task] = root / f"{task}.pt"
        train(task=task, data=data, arch=arch, out=models[task], **QUICK)
    datasets = {"bhive": FIXTURES / "blocks", "names": root / "names", "copy": root / "copy", "ltl": root / "pairs.txt"}
    splits = {
        "bhive": FIXTURES / "blocks" / "test.csv",
        "names": root / "names" / "train.csv",
        "copy": root / "copy" / "test.txt",
        "ltl": root / "pairs.txt",
    }
    return {"root": root, "models": models, "datasets": datasets, "splits": splits}


def test_a_trained_checkpoint_names_its_languages(world):
    import torch

    stored = {task: torch.load(path, weights_only=True).get("languages") for task, path in world["models"].items()}
    assert stored == {"bhive": None, "names": ["python"], "copy": ["copy"], "ltl": ["ltl"]}
    from invar import load_model

    assert load_model(BHIVE_MODEL).languages == ("x86",)  # inferred from the task


PAIRS = [(m, d) for m in ("bhive", "names", "copy", "ltl") for d in ("bhive", "names", "copy", "ltl") if m != d]
ARTICLE = {"bhive": "a", "names": "a", "copy": "a", "ltl": "an"}


@pytest.mark.parametrize("model, dataset", PAIRS)
def test_a_dataset_of_another_task_is_refused_with_one_message(invoke, world, model, dataset):
    for target in (world["datasets"][dataset], world["splits"][dataset]):
        for command in (
            ("audit", "--model", world["models"][model], "--dataset", target, "--variants", "2"),
            ("predict", "--model", world["models"][model], target),
        ):
            result = invoke(*command)
            assert result.exit_code == 1, (command, result.output)
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"{target}:"), result.stderr
            assert (
                f"error: {ARTICLE[dataset]} {dataset} dataset" in lines[0]
                and f"not {ARTICLE[model]} {model} one" in lines[0]
            ), lines[0]
            assert result.stdout == ""


def _programs(root):
    """One file per language: (path, language as messages name it, first line of each program)."""
    py = root / "prog.py"
    py.write_text("def add(a, b):\n    c = a + b\n    return c\n\n\ndef sub(a, b):\n    d = a - b\n    return d\n")
    java = root / "Prog.java"
    java.write_text("class Prog {\n    int add(int a, int b) {\n        int c = a + b;\n        return c;\n    }\n}\n")
    asm = root / "prog.s"
    asm.write_text("addq %rax, %rbx\nimulq %rbx, %rcx\nmovq 8(%rsp), %rdx\n")
    hexfile = root / "prog.hex"
    hexfile.write_text("4801c3\n4829d8\n")
    ltl = root / "prog.ltl"
    ltl.write_text("a U b\n{b}\n\nF a\n{a}\n")
    return {
        "python": (py, "Python", [1, 6]),
        "java": (java, "Java", [2]),
        "x86": (asm, "x86 assembly", [1]),
        "hex": (hexfile, "x86 assembly", [1, 2]),
        "ltl": (ltl, "LTL", [1, 4]),
    }


TRAINED = {"bhive": ("x86", "hex"), "names": ("python",), "copy": (), "ltl": ("ltl",)}
SHOWN = {"bhive": "x86 assembly", "names": "Python", "copy": "copy strings", "ltl": "LTL"}


@pytest.mark.parametrize("model", ["bhive", "names", "copy", "ltl"])
def test_predict_refuses_each_program_in_another_language_at_its_line(invoke, world, tmp_path, model):
    for lang, (path, shown, lines) in _programs(tmp_path).items():
        result = invoke("predict", "--model", world["models"][model], path, "--format", "jsonl")
        if lang in TRAINED[model]:
            assert result.exit_code == 0, result.output
            assert len(result.stdout.splitlines()) == len(lines)
            continue
        assert result.exit_code == 1, (lang, result.output)
        expected = [
            f"{path}:{line}:1: error: the program is in {shown}; this {model} model was trained on {SHOWN[model]} only"
            for line in lines
        ]
        assert result.stderr.splitlines() == expected, result.stderr
        records = [json.loads(line) for line in result.stdout.splitlines()]  # each refusal a record too
        assert [f"{r['location']}: error: {r['error']}" for r in records] == expected


def test_the_audit_reports_programs_in_other_languages_and_audits_the_rest(invoke, world, tmp_path):
    programs = _programs(tmp_path)
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for lang in ("python", "x86", "hex"):
        shutil.copy(programs[lang][0], mixed)
    for model, good, bad in (("names", 2, ("prog.hex", "prog.s")), ("bhive", 3, ("prog.py",))):
        result = invoke(
            "audit", "--model", world["models"][model], "--dataset", mixed, "--variants", "2", "--format", "json"
        )
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        failed = [f for f in report["failed"] if "was trained on" in f["error"]]
        assert report["examples"] == good + len(failed) and report["audited"] == good
        assert sorted({f["location"].split("/")[-1].split(":")[0] for f in failed}) == sorted(bad)
        for f in failed:
            assert f["error"] in result.stderr and f["error"].startswith(str(mixed))
    # nothing in a language the model reads: one message for the dataset
    only = tmp_path / "only"
    only.mkdir()
    shutil.copy(programs["java"][0], only)
    shutil.copy(programs["ltl"][0], only)
    result = invoke("audit", "--model", world["models"]["names"], "--dataset", only, "--variants", "2")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"{only}: error: no program in a language the model was trained on (Python): 1 Java program, 2 LTL programs"
    )


def test_a_dataset_of_the_model_s_own_task_is_read_as_its_split(invoke, world):
    """A split file of the model's own task is read as that split, not as
    programs of its extension (a names CSV is not BHive hex rows)."""
    split = world["splits"]["names"]
    predict_run = invoke("predict", "--model", world["models"]["names"], split, "--format", "jsonl")
    audit_run = invoke(
        "audit",
        "--model",
        world["models"]["names"],
        "--dataset",
        split,
        "--variants",
        "2",
        "--limit",
        "5",
        "--format",
        "json",
    )
    for result in (predict_run, audit_run):
        assert "hex" not in result.stderr, result.stderr
    records = [json.loads(line) for line in predict_run.stdout.splitlines()]
    predicted = [r for r in records if "error" not in r]  # a program the model cannot take: its location, error
    assert predicted and all(isinstance(r["prediction"], list) for r in predicted)
