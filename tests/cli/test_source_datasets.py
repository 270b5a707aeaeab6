"""``invar data names``, ``bugs`` and ``lm``: the same dataset, byte for byte,
whatever ``--jobs``; a summary that says what share was skipped and why; a
progress bar on a terminal and nothing on standard error elsewhere (as every
``invar data`` command); a ``--source`` that is a file named as one."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from invar.cli import console
from tests.conftest import FIXTURES

#: (command, its options besides --source and --out)
COMMANDS = [
    ("names", []),
    ("bugs", ["--seed", "3"]),
    ("lm", ["--vocab", "char", "--seq-len", "64"]),
    ("lm", ["--vocab", "tokens", "--seq-len", "32"]),
]
IDS = ["names", "bugs", "lm-char", "lm-tokens"]


#: the fixtures of the corpus, half of them: the work of each command is in proportion, and sixteen
#: files are still plenty for three workers
CORPUS = ["python/arith.py", "python/closures.py", "python/control.py", "python/lists.py", "python/strings.py"]
CORPUS += ["java/Arith.java", "java/Strings.java"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Python and Java fixtures (:data:`CORPUS`) in two directories, and a
    file of each kind that cannot be read."""
    root = tmp_path_factory.mktemp("src")
    for d in ("a", "b"):
        (root / d).mkdir()
        for name in CORPUS:
            shutil.copy(FIXTURES / name, root / d / Path(name).name)
    (root / "a" / "latin.py").write_bytes(b"def f(x):\n    return '\xe9'\n")
    (root / "b" / "broken.py").write_text("def (:\n")
    return root


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("command, options", COMMANDS, ids=IDS)
def test_the_dataset_is_the_same_byte_for_byte_whatever_the_jobs(invoke, corpus, tmp_path, command, options):
    written = []
    for jobs in ("1", "3"):
        out = tmp_path / f"jobs{jobs}"
        result = invoke("data", command, "--source", corpus, "--out", out, "--jobs", jobs, *options)
        assert result.exit_code == 0, result.output
        written.append(_files(out))
    assert written[0] == written[1]
    assert set(written[0]) == {"train.csv", "valid.csv", "test.csv", "meta.json"}


def _source(root: Path) -> Path:
    """Twelve files: 10 readable ones, with 12 functions in all, one named
    ``_`` (no subtokens) and one without a comparison or a second variable
    (no bug); a file that is not UTF-8 and one that does not parse."""
    src = root / "src"
    src.mkdir()
    for k in range(9):
        (src / f"ok{k}.py").write_text(
            f"def add_{k}(a, b):\n    c = a + b\n    if c < {k}:\n        return a\n    return c\n"
        )
    (src / "odd.py").write_text(
        "def _(a, b):\n    c = a + b\n    if c < 0:\n        return a\n    return c\n\n\n"
        "def constant():\n    return 1\n\n\n"
        "def twice(x):\n    y = x * 2\n    if y > x:\n        return y\n    return x\n"
    )
    (src / "latin.py").write_bytes(b"def f(x):\n    return '\xe9'\n")
    (src / "broken.py").write_text("def (:\n")
    return src


@pytest.mark.parametrize(
    "command, options, summary, skipped",
    [
        (
            "names",
            [],
            "skipped 2 of 12 files (16.7 %: 1 not UTF-8, 1 unparsable) and 1 of 12 functions (8.3 %: 1 without a name)",
            {"files": {"unparsable": 1, "not UTF-8": 1}, "functions": {"without a name": 1}},
        ),
        (
            "bugs",
            [],
            "skipped 2 of 12 files (16.7 %: 1 not UTF-8, 1 unparsable) and 1 of 12 functions (8.3 %: 1 "
            "without a bug that passes the checks)",
            {"files": {"unparsable": 1, "not UTF-8": 1}, "functions": {"without a bug that passes the checks": 1}},
        ),
        # characters: a file that does not parse is still text
        (
            "lm",
            ["--vocab", "char"],
            "skipped 1 of 12 files (8.3 %: 1 not UTF-8)",
            {"files": {"not UTF-8": 1}, "functions": {}, "windows": {}},
        ),
        # 22 tokens in each of the nine files of one function: windows of 21 and 1
        (
            "lm",
            ["--vocab", "tokens", "--seq-len", "21"],
            "skipped 2 of 12 files (16.7 %: 1 not UTF-8, 1 unparsable) "
            "and 9 of 21 windows (42.9 %: 9 of a single token)",
            {"files": {"unparsable": 1, "not UTF-8": 1}, "functions": {}, "windows": {"of a single token": 9}},
        ),
    ],
    ids=IDS,
)
def test_the_summary_says_what_share_was_skipped_and_why(invoke, tmp_path, command, options, summary, skipped):
    out = tmp_path / "out"
    result = invoke("data", command, "--source", _source(tmp_path), "--out", out, "--jobs", "2", *options)
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    assert line.startswith("wrote ") and f" to {out}" in line and summary in line, line
    assert result.stderr == ""
    meta = json.loads((out / "meta.json").read_text())
    assert meta["skipped"] == skipped
    assert meta["unreadable_files"] == sum(skipped["files"].values()) and meta["files"] == 12 - meta["unreadable_files"]


@pytest.mark.parametrize(
    "argv",
    [
        ["names"],
        ["bugs"],
        ["lm"],
        ["ltl", "--num", "3", "--max-size", "5", "--jobs", "1"],
        ["copy", "--train", "5", "--valid", "2", "--test", "2"],
    ],
    ids=lambda a: a[0],
)
def test_a_progress_bar_on_a_terminal_and_nothing_elsewhere(invoke, monkeypatch, tmp_path, argv):
    few = tmp_path / "src"
    few.mkdir()
    for name in ("arith.py", "control.py", "lists.py"):
        shutil.copy(FIXTURES / "python" / name, few / name)
    source = [] if argv[0] in ("ltl", "copy") else ["--source", few]
    out = tmp_path / ("out.txt" if argv[0] == "ltl" else "out")
    result = invoke("data", *argv, *source, "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # not a terminal: no bar, no blank line where it was
    screen = io.StringIO()
    monkeypatch.setattr(console, "stderr", Console(file=screen, force_terminal=True, width=100))
    again = invoke("data", *argv, *source, "--out", tmp_path / ("again.txt" if argv[0] == "ltl" else "again"))
    assert again.exit_code == 0, again.output
    shown = screen.getvalue()
    if argv[0] == "copy":  # a few milliseconds of work: no bar
        assert shown == ""
    else:  # the bar's frames (the last one drawn may be short of the end: it is a live display)
        what, total = ("formulas", 3) if argv[0] == "ltl" else ("files", 3)
        assert what in shown and f"/{total}" in shown, shown


@pytest.mark.parametrize("command", ["names", "bugs", "lm"])
def test_a_file_as_source_is_named_as_a_file(invoke, tmp_path, command):
    source = FIXTURES / "python" / "arith.py"
    result = invoke("data", command, "--source", source, "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"{source}: error: a file, not a directory: --source takes a directory of .py and "
        ".java files (searched recursively)\n"
    )
    result = invoke("data", command, "--source", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert result.stderr == f"{tmp_path / 'nowhere'}: error: no such source directory\n"
