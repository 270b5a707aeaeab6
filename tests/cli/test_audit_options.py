"""Option errors come before the work (issue 35, items 9 and 14): bounds
named against the report's schema, a split where the dataset has none, the
destinations of --out/--report/--plot (and train's --out), matplotlib for
--plot; --html as --report; invar --version.

Each "before the work" case names a dataset (or training data) that does not
exist: had the command started its work, it would have failed there (exit
1, about the data) instead of on the option (exit 2, about the option)."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from invar.audit.config import check_measure
from invar.errors import UsageError
from invar.version import __version__
from tests.conftest import FIXTURES
from tests.test_files import device

BLOCKS = str(FIXTURES / "blocks")
RENAMER = str(FIXTURES / "models" / "renamer.pt")
QUICK = ("--limit", "3", "--variants", "2", "--threads", "1", "--quiet")


def _error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "error" in line]


# ---------------------------------------------------------------- bounds
@pytest.mark.parametrize(
    "bound, known",
    [
        ("violation_rate=0", True),
        ("violations=3", True),
        ("alpha_covariance=1", True),  # its mean
        ("metric.worst=10", True),
        ("metric.f1.original=50", True),
        ("metric.extra.exact.original=1", True),  # a task's extra metric, by name
        ("spread.relative_range.max=0", True),
        ("spread.relative_range=0.1", True),  # its mean
        ("varied.violation_rate=0.5", True),
        ("noise.self_disagreement=0.1", True),
        ("sensitivity.change_rate=0.2", True),
        ("oracle.label_change_rate=0", True),
        ("errors=0", True),
        ("bogus=1", False),
        ("metric.nope=1", False),
        ("spread.relative_range.p42=1", False),
        ("violation_rate.mean=1", False),
        ("trivial.constant=0", False),  # a boolean, not a number
        ("model.kind=1", False),  # a string
        ("intervals.violation_rate=1", False),  # a pair
    ],
)
def test_a_bound_names_a_number_of_the_reports_schema(bound, known):
    if known:
        check_measure(bound.split("=")[0], "--fail-over")
    else:
        with pytest.raises(UsageError) as err:
            check_measure(bound.split("=")[0], "--fail-under")
        name = bound.split("=")[0]
        assert err.value.path == "--fail-under"
        assert err.value.message in (
            f"{name} is not a number in the report",
            f"no measure {name!r} in the report "
            "(for example violation_rate, alpha_covariance, metric.worst, "
            "spread.relative_range.max, errors)",
        )


@pytest.mark.parametrize("option", ["--fail-over", "--fail-under"])
def test_a_bound_on_no_measure_is_refused_before_the_audit(invoke, tmp_path, option):
    result = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", option, "bogus=1", *QUICK)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and errors[0].startswith(option) and "no measure 'bogus' in the report" in errors[0]
    assert "nowhere" not in result.stderr
    known = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", option, "metric.worst=1", *QUICK)
    assert known.exit_code == 1 and "nowhere" in known.stderr  # a good bound lets the audit start


# ----------------------------------------------------------------- splits
@pytest.mark.parametrize(
    "dataset, split, refused",
    [
        ("x86/blocks.csv", "nosuch", "is a file"),
        ("x86/blocks.csv", "valid", "is a file"),
        ("blocks/test.csv", "train", "the test split of"),
        ("blocks", "nosuch", "no split 'nosuch'"),
        ("python", "train", "has no splits"),
        ("blocks/test.csv", "test", None),
        ("blocks", "valid", None),
    ],
)
def test_a_split_the_dataset_lacks_is_refused_before_the_audit(invoke, dataset, split, refused):
    result = invoke(
        "audit", "--model", RENAMER, "--dataset", FIXTURES / dataset, "--split", split, *QUICK, "--format", "json"
    )
    if refused is None:
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["audited"] == 3
        return
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and errors[0].startswith("--split") and refused in errors[0], errors
    assert result.stdout == ""


def test_without_split_a_csv_is_audited(invoke):
    result = invoke("audit", "--model", RENAMER, "--dataset", FIXTURES / "blocks" / "test.csv", *QUICK)
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------ destinations
@pytest.mark.parametrize("option", ["--out", "--report", "--plot"])
def test_an_audit_to_a_directory_is_refused_before_the_work(invoke, tmp_path, option):
    target = tmp_path / "a-folder"
    target.mkdir()
    result = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", option, target, *QUICK)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and str(target) in errors[0] and "is a directory" in errors[0] and option in errors[0]
    assert "nowhere" not in result.stderr


@pytest.mark.parametrize("option, name", [("--out", "r.json"), ("--report", "r.html"), ("--plot", "r.svg")])
def test_a_destination_under_a_file_is_refused_before_the_work(invoke, tmp_path, option, name):
    (tmp_path / "plain").write_text("a file\n")
    target = tmp_path / "plain" / "sub" / name
    result = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", option, target, *QUICK)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and str(target) in errors[0] and "is a file" in errors[0]


def test_an_audit_creates_missing_folders_as_train_does(invoke, tmp_path):
    out, page = tmp_path / "new" / "deep" / "r.json", tmp_path / "pages" / "r.html"
    result = invoke(
        "audit", "--model", RENAMER, "--dataset", BLOCKS, *QUICK, "--format", "json", "--out", out, "--report", page
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["audited"] == 3 and page.read_text().startswith("<!doctype html>")


def test_merge_and_compare_check_their_destinations_first(invoke, tmp_path):
    target = tmp_path / "a-folder"
    target.mkdir()
    merge = invoke("audit", "merge", tmp_path / "nowhere.jsonl", "--out", target)
    compare = invoke("audit", "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--out", target)
    for result in (merge, compare):
        assert result.exit_code == 2, result.output
        assert "is a directory" in result.stderr and "nowhere" not in result.stderr and "a.jsonl" not in result.stderr


def test_train_to_a_directory_is_refused_before_the_work(invoke, tmp_path):
    target = tmp_path / "a-folder"
    target.mkdir()
    result = invoke("train", "--data", tmp_path / "nowhere", "--arch", "renamer", "--out", target)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and str(target) in errors[0] and "is a directory" in errors[0]
    (tmp_path / "plain").write_text("a file\n")
    result = invoke("train", "--data", tmp_path / "nowhere", "--arch", "renamer", "--out", tmp_path / "plain" / "m.pt")
    assert result.exit_code == 2 and "is a file" in result.stderr and "nowhere" not in result.stderr


def test_predict_checks_its_curve_destination_first(invoke, tmp_path):
    target = tmp_path / "a-folder"
    target.mkdir()
    result = invoke("predict", "--model", tmp_path / "nowhere.pt", FIXTURES / "x86" / "figure1a.s", "--curve", target)
    assert result.exit_code == 2 and "is a directory" in result.stderr and "nowhere" not in result.stderr


@pytest.mark.parametrize(
    "argv, kind",
    [
        (["data", "copy", "--train", "5", "--valid", "2", "--test", "2"], "folder"),
        (["data", "names", "--source", "{fixtures}/python", "--jobs", "1"], "folder"),
        (["data", "lm", "--source", "{fixtures}/python", "--jobs", "1"], "folder"),
        (["data", "bugs", "--source", "{fixtures}/python", "--jobs", "1"], "folder"),
        (["data", "exec", "--generate", "2"], "folder"),
        (["data", "bhive", "--source", "{fixtures}/x86/blocks.csv", "--jobs", "1"], "folder"),
        (["data", "ltl", "--num", "2"], "file"),
        (["data", "lookup", "--num", "2"], "file"),
        (["data", "permutation", "--num", "2"], "file"),
    ],
)
def test_every_data_command_checks_its_destination_first(invoke, tmp_path, argv, kind):
    """A dataset's folder named where a file is (or a file's name where a folder is) is a usage error
    naming --out, before any work."""
    (tmp_path / "plain").write_text("a file\n")
    (tmp_path / "a-folder").mkdir()
    target = tmp_path / ("plain" if kind == "folder" else "a-folder")
    result = invoke(*[a.format(fixtures=FIXTURES) for a in argv], "--out", target)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and errors[0].startswith(f"{target}: error: is a ") and "--out" in errors[0]
    assert (tmp_path / "plain").read_text() == "a file\n" and not any((tmp_path / "a-folder").iterdir())


# -------------------------------------------------------------------- plot
def test_plot_without_matplotlib_is_refused_before_the_work_with_both_installs(invoke, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = invoke(
        "audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", "--plot", tmp_path / "x.png", *QUICK
    )
    assert result.exit_code == 2, result.output
    assert "pip install 'invar[plot]'" in result.stderr and "pip install -e '.[plot]'" in result.stderr
    assert "nowhere" not in result.stderr


def test_plot_to_another_format_is_refused_before_the_work(invoke, tmp_path):
    result = invoke(
        "audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", "--plot", tmp_path / "x.pdf", *QUICK
    )
    assert result.exit_code == 2 and ".png or .svg" in result.stderr and "nowhere" not in result.stderr


# -------------------------------------------------------- --html, --version
def test_html_writes_the_page_as_report_does(invoke, tmp_path):
    page = tmp_path / "page.html"
    result = invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, *QUICK, "--html", page)
    assert result.exit_code == 0, result.output
    assert page.read_text().startswith("<!doctype html>")


def test_version(invoke):
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout == f"invar {__version__}\n"


def test_the_library_refuses_a_split_the_dataset_cannot_have(tmp_path):
    from invar.audit import audit
    from invar.errors import UsageError
    from tests.audit import callables

    blocks = tmp_path / "b.s"
    blocks.write_text("addq %rax, %rbx\n")
    with pytest.raises(UsageError, match="audited whole"):
        audit(callables.constant, str(blocks), task="bhive", split="valid")
    with pytest.raises(UsageError, match="list of programs has no splits"):
        audit(callables.constant, ["addq %rax, %rbx"], task="bhive", lang="x86", split="valid")
    assert audit(callables.constant, str(blocks), task="bhive").report["audited"] == 1  # no split given: the file


def test_a_device_destination_is_written_to_not_replaced(invoke, tmp_path):
    null = device(tmp_path, 3)
    result = invoke("audit", "--model", RENAMER, "--dataset", BLOCKS, *QUICK, "--format", "json", "--out", null)
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(null.stat().st_mode) and os.listdir(tmp_path) == [null.name]


def test_a_linked_destination_writes_its_target(invoke, tmp_path):
    (tmp_path / "link.json").symlink_to("report.json")
    result = invoke(
        "audit", "--model", RENAMER, "--dataset", BLOCKS, *QUICK, "--format", "json", "--out", tmp_path / "link.json"
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "link.json").is_symlink() and json.loads((tmp_path / "report.json").read_text())["audited"] == 3


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_a_folder_no_file_can_be_made_in_is_refused_before_the_work(invoke, tmp_path):
    """access() says yes to root in /proc; creating a file there fails: the check creates one."""
    result = invoke("audit", "--model", RENAMER, "--dataset", tmp_path / "nowhere", "--out", "/proc/r.json", *QUICK)
    assert result.exit_code == 2, result.output
    errors = _error_lines(result)
    assert len(errors) == 1 and errors[0].startswith(
        "/proc/r.json: error: cannot write --out here: no file can be made in /proc ("
    )
    assert "nowhere" not in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["audit", "--model", RENAMER, "--dataset", "nowhere", "--limit", "0"],  # a gate that audits nothing
        ["data", "bhive", "--source", "nowhere.csv", "--out", "nowhere", "--limit", "0"],  # an empty dataset
    ],
)
def test_a_limit_of_nothing_is_refused(invoke, command):
    result = invoke(*command)
    assert result.exit_code == 2, result.output
    shown = " ".join(command[: 2 if command[0] == "data" else 1])
    assert _error_lines(result) == [f"--limit: error: 0 is below the least allowed, 1 (invar {shown} -h)"]


@pytest.mark.parametrize(
    "option, value, kind",
    [
        ("--temperature", "0.5", "served over HTTP"),
        ("--concurrency", "2", "served over HTTP"),
        ("--retries", "5", "served over HTTP"),
        ("--budget", "10", "served over HTTP"),
        ("--max-tokens", "5", "that answer in text (HTTP, an hf: language model)"),
        ("--answer-regex", "x", "that answer in text (HTTP, an hf: language model)"),
    ],
)
def test_a_setting_the_model_never_reads_is_refused(invoke, option, value, kind):
    """A checkpoint sends no request and writes no text: these would do nothing."""
    result = invoke("audit", "--model", RENAMER, "--dataset", "nowhere", option, value, *QUICK)
    assert result.exit_code == 2, result.output
    assert _error_lines(result) == [f"{option}: error: {option} is for models {kind}"]
