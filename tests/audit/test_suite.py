"""Audit suites: a versioned set of audits run against one model, one report
per task and a summary; two models' reports of one version compare.

The suite runs end to end against a chat model on loopback that answers
every member's shipped prompt in the form it asks for (``Answer: 7``,
``Answer: get_value``, ``Answer: 0``, ``Answer: 2.5 cycles``). To stay fast
the tests audit a copy of the suite with fewer examples and variants, over a
few fixture files standing for the standard library and the fixture blocks
for BHive; the real suite's definition is pinned by its own test."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from invar.audit import compare
from invar.audit.config import AuditConfig, choices_of
from invar.audit.schema import EXAMPLE, HEADER, REPORT
from invar.audit.suite import (
    CODE_REASONING_1,
    FIXED,
    SUITES,
    Member,
    check_settings,
    get_suite,
    markdown,
    run_suite,
    suite_names,
    table,
)
from invar.errors import UsageError
from tests.audit.chat_servers import LoopbackChat, _unit
from tests.conftest import FIXTURES, Invoke

_FENCE = re.compile(r"```[a-z]*\n(.*)\n```", re.S)


def answer(prompt: str, flavour: str) -> str:
    """A reply to one of invar's shipped prompts: ``steady`` answers one
    value per task whatever the program; ``names-and-order`` a value drawn by
    a hash of the program's text (so renamings and reorderings move it)."""
    program = _FENCE.search(prompt).group(1)
    pick = 0.0 if flavour == "steady" else _unit(program)
    if "what the call returns" in prompt:
        value = str(int(pick * 3))
    elif "identifier" in prompt:
        value = ("get_value", "compute", "parse")[int(pick * 3)]
    elif "cycles" in prompt:
        value = f"{1 + int(pick * 3)}.5 cycles"
    else:
        value = str(int(pick * 2))
    return f"Reading the code.\nAnswer: {value}"


class Served(LoopbackChat):
    """A chat model on 127.0.0.1 answering invar's shipped prompts (:func:`answer`)."""

    def __init__(self, flavour: str) -> None:
        self.model = self.flavour = flavour
        super().__init__()

    def reply(self, request: dict) -> str:
        return answer(request["messages"][0]["content"], self.flavour)


#: the suite of the tests: version 1's members, fewer examples, variants and repeats, the
#: standard library's stand-ins in their train split (the few fixture files hold no test split)
SMALL = replace(
    CODE_REASONING_1,
    members=tuple(
        replace(m, limit=6, variants=3, repeats=4, split="train" if m.source == "stdlib" else m.split)
        for m in CODE_REASONING_1.members
    ),
)
#: smaller still, for the tests of how a suite runs (the command, a failing or skipped member), not of what
#: its reports measure
TINY = replace(SMALL, members=tuple(replace(m, limit=2, variants=2, repeats=2) for m in SMALL.members))
SETTINGS = {"data_dir": str(FIXTURES / "blocks"), "concurrency": 4, "cache": False, "bootstrap": 200}


@pytest.fixture(scope="module")
def stdlib(tmp_path_factory) -> Path:
    """Three fixture files standing for the standard library's top-level modules."""
    where = tmp_path_factory.mktemp("stdlib")
    for name in ("control.py", "lists.py", "strings.py"):
        shutil.copyfile(FIXTURES / "python" / name, where / name)
    (where / "package").mkdir()  # a subpackage: not a top-level module, left out
    (where / "package" / "inner.py").write_text("def hidden(a):\n    b = a\n    return b\n")
    return where


@pytest.fixture(scope="module")
def runs(tmp_path_factory, stdlib) -> dict[str, tuple[Path, dict]]:
    """The small suite against both flavours of model: (reports folder, summary)."""
    cache = tmp_path_factory.mktemp("cache")
    out = {}
    for flavour in ("steady", "names-and-order"):
        folder = tmp_path_factory.mktemp(flavour)
        with Served(flavour) as served:
            out[flavour] = (
                folder,
                run_suite(served.url, SMALL, folder, AuditConfig(**SETTINGS), stdlib=stdlib, cache=cache),
            )
    return out


def test_the_suite_runs_end_to_end_and_writes_a_report_per_task_and_its_summary(runs):
    folder, summary = runs["names-and-order"]
    assert [m["task"] for m in summary["members"]] == ["exec", "names", "bugs", "bhive"]
    assert [m["status"] for m in summary["members"]] == ["audited"] * 4, summary["members"]
    assert json.loads((folder / "summary.json").read_text()) == summary
    assert (folder / "summary.md").read_text() == markdown(summary)
    assert (summary["suite"], summary["version"], summary["type"]) == ("code-reasoning", 1, "suite")
    assert summary["model"]["name"] == "names-and-order"
    import jsonschema

    # each schema checked once, then one validator a schema (jsonschema.validate checks it at every call)
    for schema in (HEADER, REPORT, EXAMPLE):
        jsonschema.Draft202012Validator.check_schema(schema)
    header_of, report_of, example_of = (jsonschema.Draft202012Validator(s) for s in (HEADER, REPORT, EXAMPLE))
    for m in summary["members"]:
        lines = [json.loads(line) for line in (folder / m["report"]).read_text().splitlines()]
        header, records, report = lines[0], lines[1:-1], lines[-1]
        header_of.validate(header)
        report_of.validate(report)
        for r in records:
            example_of.validate(r)
        member = next(x for x in SMALL.members if x.task == m["task"])
        # every report says which suite it belongs to, and holds the member's fixed settings
        assert report["config"]["suite"] == "code-reasoning@1"
        assert (report["settings"]["variants"], report["settings"]["seed"], report["config"]["repeats"]) == (
            member.variants,
            member.seed,
            member.repeats,
        )
        assert report["examples"] == member.limit == len(records)
        assert (m["original"], m["violation_rate"]) == (report["metric"]["original"], report["violation_rate"])
        assert m["noise_floor"] == report["noise"]["self_disagreement"] == 0.0  # the model never samples


def test_the_summary_holds_each_tasks_measures(runs):
    steady = {m["task"]: m for m in runs["steady"][1]["members"]}
    moved = {m["task"]: m for m in runs["names-and-order"][1]["members"]}
    for task in steady:
        assert steady[task]["violation_rate"] == 0.0  # one answer whatever the program
        assert steady[task]["violation_rate_interval"] == [0.0, 0.0]
    # a model that reads the text's spelling moves under renamings and reorderings
    assert sum(moved[t]["violation_rate"] for t in moved) > 0
    assert steady["bugs"]["sensitivity"] == 0.0 and moved["bugs"]["sensitivity"] is not None
    assert steady["names"]["sensitivity"] is None  # no controls: a name does not follow a changed constant
    assert steady["bhive"]["metric"] == "MAPE" and steady["bhive"]["original"] is not None
    rows = table(runs["steady"][1])
    assert [r[0] for r in rows] == ["exec", "names", "bugs", "bhive"]
    assert rows[2][6] == "0.000 [0.000, 0.000]" and rows[1][8] == "no controls"
    assert rows[3][1] == "MAPE (lower is better)" and rows[3][3].endswith(" %") and rows[2][2] == "6/6, 6 vary"


def test_two_models_reports_of_one_version_compare(runs):
    for task in ("exec", "names", "bugs", "bhive"):
        a, b = (runs[f][0] / f"{task}.jsonl" for f in ("steady", "names-and-order"))
        result = compare(str(a), str(b))
        assert result["paired"]["examples"] >= 1, task


def test_the_examples_are_made_once_and_kept(runs, tmp_path, stdlib):
    # a third run finds the examples made by the first: same ids, nothing built again
    cache = next(p for p in Path(runs["steady"][0]).parent.iterdir() if p.name.startswith("cache"))
    built = sorted(p.name for p in (cache / "code-reasoning-1").rglob("meta.json"))
    with Served("steady") as served:
        summary = run_suite(served.url, SMALL, tmp_path, AuditConfig(**SETTINGS), stdlib=stdlib, cache=cache)
    assert sorted(p.name for p in (cache / "code-reasoning-1").rglob("meta.json")) == built
    ids = [json.loads(line)["id"] for line in (tmp_path / "names.jsonl").read_text().splitlines()[1:-1]]
    first = [json.loads(line)["id"] for line in (runs["steady"][0] / "names.jsonl").read_text().splitlines()[1:-1]]
    assert ids == first and summary["members"][1]["status"] == "audited"


def test_a_member_that_cannot_be_audited_fails_alone(tmp_path, stdlib):
    with Served("steady") as served:
        summary = run_suite(
            served.url,
            TINY,
            tmp_path,
            AuditConfig(**{**SETTINGS, "data_dir": str(tmp_path / "no")}),
            stdlib=stdlib,
            cache=tmp_path / "cache",
        )
    status = {m["task"]: (m["status"], m["reason"]) for m in summary["members"]}
    assert status["bhive"][0] == "failed" and str(tmp_path / "no") in status["bhive"][1]
    assert [status[t][0] for t in ("exec", "names", "bugs")] == ["audited"] * 3
    assert not (tmp_path / "bhive.jsonl").exists()
    assert "| bhive | failed |" in (tmp_path / "summary.md").read_text()


def test_the_exec_member_is_skipped_with_its_reason_until_the_task_exists(tmp_path, stdlib, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "invar.tasks.exec_data", None)  # as if invar had no exec task
    only = replace(TINY, members=TINY.members[:1])
    with Served("steady") as served:
        summary = run_suite(served.url, only, tmp_path, AuditConfig(**SETTINGS), stdlib=stdlib, cache=tmp_path)
    assert summary["members"][0]["status"] == "skipped"
    assert "exec task" in summary["members"][0]["reason"]


# ------------------------------------------------------------- the definition
def test_version_1_is_what_it_was():
    # a version's members never change (two models' reports must compare): change one, make a new version
    assert [
        (m.task, m.source, m.limit, m.split, m.seed, m.variants, m.controls, m.repeats)
        for m in CODE_REASONING_1.members
    ] == [
        ("exec", "generated", 100, None, 0, 6, 4, 3),
        ("names", "stdlib", 100, "test", 0, 6, 0, 3),
        ("bugs", "stdlib", 100, "test", 0, 6, 4, 3),
        ("bhive", "bhive", 100, None, 0, 6, None, 3),
    ]
    assert set(asdict(CODE_REASONING_1.members[0])) == {
        "task",
        "source",
        "limit",
        "split",
        "seed",
        "variants",
        "controls",
        "repeats",
        "about",
    }


def test_the_suite_option_offers_every_suite():
    field = next(f for f in AuditConfig.__dataclass_fields__.values() if f.name == "suite")
    assert choices_of(field, AuditConfig) == tuple(suite_names()) == ("code-reasoning", "code-reasoning@1")


@pytest.mark.parametrize("name, version", [("code-reasoning", 1), ("code-reasoning@1", 1)])
def test_a_suite_is_named_with_or_without_its_version(name, version):
    assert get_suite(name).version == version and get_suite(name) is SUITES["code-reasoning"][version]


@pytest.mark.parametrize("name", ["code-reasoning@2", "code-reasoning@x", "reasoning", "code-reasoning@"])
def test_an_unknown_suite_is_refused(name):
    with pytest.raises(UsageError, match="no suite"):
        get_suite(name)


@pytest.mark.parametrize(
    "setting",
    [
        {"seed": 1},
        {"variants": 3},
        {"limit": 5},
        {"repeats": 3},
        {"task": "bugs"},
        {"prompt": "{program}"},
        {"controls": 0},
    ],
)
def test_a_setting_the_suite_fixes_is_refused(setting):
    with pytest.raises(UsageError, match="fixes"):
        check_settings(AuditConfig(**setting), CODE_REASONING_1)


@pytest.mark.parametrize(
    "setting",
    [
        {"concurrency": 2},
        {"max_tokens": 64},
        {"data_dir": "x"},
        {"oracle": True},
        {"temperature": 0.5},
        {"suite": "code-reasoning"},
    ],
)
def test_a_setting_the_suite_leaves_free_is_taken(setting):
    check_settings(AuditConfig(**setting), CODE_REASONING_1)
    assert {k for k in setting} & set(FIXED) == set()


# ------------------------------------------------------------ the command line
def _run_suite(out: Path, data_dir: Path, *options):
    """``invar audit --suite code-reasoning --quiet`` against a steady chat model."""
    with Served("steady") as served:
        return Invoke()(
            "audit",
            "--model",
            served.url,
            "--suite",
            "code-reasoning",
            "--out",
            out,
            "--data-dir",
            data_dir,
            *options,
            "--quiet",
        )


def test_the_command_runs_a_suite(tmp_path, stdlib, monkeypatch):
    import invar.audit.suite as suites

    monkeypatch.setitem(suites.SUITES, "code-reasoning", {1: TINY})
    monkeypatch.setattr(suites, "stdlib_dir", lambda: stdlib)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # a warning on a member's settings (offered labels no reply can give) is told once, with its task
    monkeypatch.setattr("invar.audit.orchestrate._label_warnings", lambda labels, unanswerable: ["a note"])
    result = _run_suite(
        tmp_path / "reports", FIXTURES / "blocks", "--no-cache", "--format", "json", "--fail-over", "violation_rate=0"
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [m["status"] for m in summary["members"]] == ["audited"] * 4
    told = [line for line in result.stderr.splitlines() if line.endswith(": a note")]
    assert told == [f"invar: warning: {m['task']}: a note" for m in summary["members"]]
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [
        "bhive.jsonl",
        "bugs.jsonl",
        "exec.jsonl",
        "names.jsonl",
        "summary.json",
        "summary.md",
    ]
    assert (tmp_path / "cache" / "invar" / "suites" / "code-reasoning-1").is_dir()


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--dataset", "x.jsonl"], "give no --dataset"),
        (["--seed", "3"], "fixes --seed"),
        (["--format", "jsonl"], "choose --format table or json"),
        (["--report", "r.html"], "draw one audit"),
        (["--suite", "nothing"], "nothing"),
    ],
)
def test_the_command_refuses_what_a_suite_cannot_take(extra, says, tmp_path):
    args = ["audit", "--model", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "r")]
    args += extra if "--suite" in extra else ["--suite", "code-reasoning", *extra]
    result = Invoke()(*args)
    assert result.exit_code == 2 and says in result.output + result.stderr, result.output
    assert not (tmp_path / "r").exists()


def test_the_command_exits_1_when_a_member_fails(tmp_path, stdlib, monkeypatch):
    import invar.audit.suite as suites

    monkeypatch.setitem(suites.SUITES, "code-reasoning", {1: replace(TINY, members=TINY.members[3:])})
    result = _run_suite(tmp_path / "r", tmp_path / "none")
    assert result.exit_code == 1 and "bhive:" in result.output + result.stderr
    assert "bhive" in (tmp_path / "r" / "summary.md").read_text()


def test_a_member_of_another_source_is_refused(tmp_path):
    odd = replace(SMALL, members=(Member("names", "elsewhere", 1, None, 0, 1, 0, 1, "nowhere"),))
    summary = run_suite("http://127.0.0.1:9/v1", odd, tmp_path, AuditConfig(cache=False), cache=tmp_path)
    assert summary["members"][0]["status"] == "failed" and "elsewhere" in summary["members"][0]["reason"]
