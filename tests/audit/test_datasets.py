"""Every kind of dataset an audit reads: files of programs, directories of
sources, CSV and JSONL tables, BHive copies and prepared BHive datasets; an
example that does not parse is reported with its location and the rest are
audited."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from invar.audit import datasets
from invar.errors import DataError, InvarError, UsageError
from invar.tasks import get_task
from tests.conftest import BHIVE, FIXTURES

BHIVE_TASK = get_task("bhive")
MODEL = "tests.audit.callables:distinct_registers"


def test_assembly_blocks_separated_by_blank_lines_with_labels(tmp_path):
    path = tmp_path / "b.s"
    path.write_text("# two blocks\naddq %rax, %rbx  # label: 1.5\nimulq %rbx, %rcx\n\n\nmovq 8(%rsp), %rdx\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.id, e.line, e.label) for e in data.examples] == [("b.s:1", 1, 1.5), ("b.s:6", 6, None)]
    assert data.examples[0].parse().render() == "addq %rax, %rbx\nimulq %rbx, %rcx"
    assert data.labelled == 1


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        ("# two\naddq %rax, %rbx  # label: fast\n", 2, 27, "bad label 'fast': not a number"),
        ("addq %rax, %rbx\nimulq %rbx, %rcx # label: 0\n", 2, 27, "bad label '0': throughput 0 must be positive"),
    ],
    ids=["not-a-number", "not-positive"],
)
def test_a_bad_label_comment_is_reported_where_the_label_is(tmp_path, text, line, col, message):
    path = tmp_path / "b.s"
    path.write_text(text)
    (only,) = datasets.load(str(path), task=BHIVE_TASK).examples
    assert (only.error.line, only.error.col) == (line, col) and message in only.error.message, str(only.error)
    assert text.splitlines()[line - 1][col - 1 :].startswith(message.split("'")[1])


def test_assembly_blocks_one_per_line(tmp_path):
    path = tmp_path / "b.s"
    path.write_text("addq %rax, %rbx; subq %rbx, %rcx  # label: 2\nmovq (%rdi), %rsi\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.id, e.label, len(e.parse().lines)) for e in data.examples] == [("b.s:1", 2.0, 2), ("b.s:2", None, 1)]


def test_a_block_that_does_not_parse_is_reported_with_its_location(invoke, tmp_path):
    path = tmp_path / "b.s"
    path.write_text("addq %rax, %rbx\n\nfrobq %rax\n\nmovq (%rdi), %rsi\n")
    result = invoke(
        "audit", "--model", MODEL, "--task", "bhive", "--dataset", path, "--variants", "2", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["examples"], report["audited"], report["unparsable"], report["errors"]) == (3, 2, 1, 0)
    assert report["failed"][0]["id"] == "b.s:3" and report["failed"][0]["stage"] == "parse"
    assert result.stderr.startswith(f"{path}:3:1: error: ")
    # --fail-over gates on what it names: unparsable examples too
    result = invoke(
        "audit",
        "--model",
        MODEL,
        "--task",
        "bhive",
        "--dataset",
        path,
        "--variants",
        "2",
        "--fail-over",
        "unparsable=0",
    )
    assert result.exit_code == 1 and "unparsable is 1, over the bound 0" in result.stderr


def test_a_directory_of_python_sources(invoke, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def f(a, /, b):\n    x = a + 1\n    y = b\n    return x + y\n")
    (tmp_path / "b.py").write_text("def g(n, /):\n    t = n * 2\n    u = n - 1\n    return t, u\n")
    data = datasets.load(str(tmp_path), task=get_task("classify"))
    assert data.kind == "directory" and [e.id for e in data.examples] == ["b.py:1", "pkg/a.py:1"]
    report = invoke.json(
        "audit",
        "--model",
        "tests.audit.callables:uses_rbx",
        "--task",
        "classify",
        "--dataset",
        tmp_path,
        "--variants",
        "4",
        "--format",
        "json",
    )
    # classify keeps its label under renamings and reorderings: both are audited by default
    assert report["transform"] == "both" and report["task_symmetry"] is True
    assert report["audited"] == 2 and report["violation_rate"] == 0.0 and report["spread"] is None
    assert report["dataset"]["files_without_programs"] == 0


def test_a_directorys_files_without_programs_are_counted_not_lost(invoke, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "blank.s").write_text("\n  \n")
    (tmp_path / "comments.s").write_text("# a comment\n\n")
    (tmp_path / "b.py").write_text("def g(n):\n    t = n * 2\n    return t\n")
    data = datasets.load(str(tmp_path), task=get_task("classify"))
    assert [e.id for e in data.examples] == ["b.py:1"]
    assert data.empty == ["blank.s", "comments.s", "pkg/__init__.py"]
    assert data.info()["files_without_programs"] == 3
    args = ("audit", "--model", "tests.audit.callables:uses_rbx", "--task", "classify", "--dataset", tmp_path)
    assert invoke.json(*args, "--format", "json")["dataset"]["files_without_programs"] == 3
    shown = invoke(*args).stdout.splitlines()[0]
    assert shown.endswith(f"on {tmp_path} (3 files holding no program left out)")


def test_csv_and_jsonl_tables(tmp_path):
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("id,code,cycles\nfirst,4801c3,1.25\nsecond,\"addq %rax, %rbx\",\n")
    data = datasets.load(str(csv_path), task=BHIVE_TASK, label_column="cycles")
    assert [(e.id, e.lang, e.label) for e in data.examples] == [("first", "hex", 1.25), ("second", "x86", None)]
    assert data.examples[0].parse().render() == "addq %rax, %rbx"
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text(
        json.dumps({"program": "def f(a, /):\n    return a", "label": "ok"})
        + "\n\n"
        + json.dumps({"program": "", "label": "x"})
        + "\n"
    )
    data = datasets.load(str(jsonl), task=get_task("classify"), lang="python")
    assert [(e.id, e.label, e.error is None) for e in data.examples] == [
        ("t.jsonl:1", "ok", True),
        ("t.jsonl:3", None, False),
    ]
    with pytest.raises(UsageError, match="no program column"):
        datasets.load(str(csv_path), task=BHIVE_TASK, program_column="nothing")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{\n")
    (only,) = datasets.load(str(bad), task=BHIVE_TASK).examples
    assert (only.line, only.error.line) == (1, 1) and "not JSON" in str(only.error)


@pytest.mark.parametrize(
    "task, label, read",
    [  # a JSON value is checked as a model's prediction of the task is; a number of another task read as text
        ("bugs", 1, 1),
        ("bugs", True, 1),
        ("bugs", "buggy", 1),
        ("bugs", 7, DataError("a verdict is 0 or 1")),
        ("bugs", 0.5, DataError("a verdict is 0 or 1")),
        ("bugs", [1], DataError("a verdict is 0 or 1")),
        ("names", ["getName"], ("get", "name")),
        ("names", 3, DataError("a name is text or a list of subtokens")),
        ("bhive", 2, 2.0),
    ],
)
def test_a_jsonl_label_is_checked_whatever_its_json_type(tmp_path, task, label, read):
    program = "addq %rax, %rbx" if task == "bhive" else "def f(a, /):\n    return a"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"program": program, "label": label}) + "\n")
    (only,) = datasets.load(str(path), task=get_task(task), lang="x86" if task == "bhive" else "python").examples
    if isinstance(read, DataError):
        assert only.label is None and str(only.error).startswith(f"{path}:1: error: bad label")
        assert read.message in str(only.error)
    else:
        assert only.error is None and only.label == read


def test_a_bhive_copy_and_a_prepared_dataset(tmp_path, monkeypatch):
    source = sorted(BHIVE.glob("*.csv"))
    assert source, "BHive data not found at ../shared/data/bhive"
    lines = source[0].read_text().splitlines()[:40]
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / source[0].name).write_text("\n".join(lines + lines[:5]) + "\n")  # repeated rows count once
    monkeypatch.setenv("INVAR_DATA", str(copy))
    data = datasets.load("bhive", task=BHIVE_TASK)
    assert data.kind == "bhive-copy" and data.labelled == 0
    assert len(data.examples) == len({line.split(",")[0].lower() for line in lines if line.split(",")[0]})
    assert all(e.id.startswith(source[0].name + ":") for e in data.examples)
    prepared = datasets.load(str(FIXTURES / "blocks"), task=BHIVE_TASK, split="valid", limit=5)
    assert prepared.kind == "bhive" and prepared.split == "valid" and prepared.labelled == 5
    assert [e.id for e in prepared.examples] == [f"valid.csv:{k}" for k in range(2, 7)]
    monkeypatch.delenv("INVAR_DATA")
    # without a directory: BHive's CSVs from the cache, downloaded; offline, a message that says what to do
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("INVAR_BHIVE_URL", "http://127.0.0.1:9/")
    with pytest.raises(DataError, match="cannot download .*--data-dir DIR"):
        datasets.load("bhive", task=BHIVE_TASK)


# ---------------------------------------------------------- malformed rows
GOOD_BLOCK = "addq %rax, %rbx"
GOOD_JSON = json.dumps({"program": GOOD_BLOCK, "label": 1.5})


@pytest.mark.parametrize(
    "bad, message, col",
    [
        (b'{"program": "addq %rax, %rbx", ', "not JSON: Expecting property name", 32),
        (b"not json at all", "not JSON: Expecting value", 1),
        (b'{"program": "addq %rax', "not JSON: Unterminated string", 13),  # the place it names: the column
        (b"[1, 2]", "expected a JSON object per line, found an array", 1),
        (b'"addq %rax, %rbx"', "expected a JSON object per line, found a string", 1),
        (b"3.5", "expected a JSON object per line, found a number", 1),
        (b"null", "expected a JSON object per line, found null", 1),
        (b'{"label": 2}', "no program in column 'program'", 1),
        (b'{"program": 42}', "a number where the program should be text in column 'program'", 1),
        (b'{"program": ["addq %rax, %rbx"]}', "an array where the program should be text", 1),
        (b'{"program": "   "}', "an empty program in column 'program'", 1),
        (b'{"program": "addq %rax, %rbx", "label": "fast"}', "bad label 'fast' in column 'label': not a number", 0),
        (b'{"program": "addq \xff%rax"}', "not UTF-8 text", 19),
        (b"[" * 100_000, "not JSON", 1),
    ],
)
def test_a_malformed_jsonl_line_is_reported_at_its_line_and_the_rest_read(tmp_path, bad, message, col):
    path = tmp_path / "t.jsonl"
    path.write_bytes(GOOD_JSON.encode() + b"\n" + bad + b"\n\n" + GOOD_JSON.encode() + b"\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.line, e.error is None) for e in data.examples] == [(1, True), (2, False), (4, True)]
    err = data.examples[1].error
    assert (err.path, err.line) == (str(path), 2) and message in err.message, str(err)
    assert err.col == col
    assert not err.message.endswith((" at", " starting")), err.message  # json's phrase for a place: the column
    assert [e.parse().render() for e in (data.examples[0], data.examples[2])] == [GOOD_BLOCK] * 2


@pytest.mark.parametrize(
    "bad, message",
    [
        (b'"x"y,1.5', "not a CSV row"),  # text after a closing quote
        (b"addq %rax,1.5,extra", "3 fields; the header names 2"),
        (b",1.5", "no program in column 'program'"),
        (b'"addq %rax, %rbx",slow', "bad label 'slow' in column 'label': not a number"),
        (b'"addq %rax, %rbx",-2', "bad label '-2' in column 'label': throughput -2 must be positive"),
        (b"addq \xfe%rax,1.5", "not UTF-8 text"),
    ],
)
def test_a_malformed_csv_row_is_reported_at_its_line_and_the_rest_read(tmp_path, bad, message):
    path = tmp_path / "t.csv"
    good = b'"addq %rax, %rbx",1.5'
    path.write_bytes(b"program,label\n" + good + b"\n" + bad + b"\n" + good + b"\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.line, e.error is None) for e in data.examples] == [(2, True), (3, False), (4, True)]
    err = data.examples[1].error
    assert (err.path, err.line) == (str(path), 3) and message in err.message, str(err)


def test_a_long_program_is_one_field(tmp_path):
    path = tmp_path / "t.csv"
    body = "\n".join(f"    x{i} = a + {i}" for i in range(20_000))
    path.write_text(f'program,label\n"def f(a):\n{body}\n    return a",ok\n')
    (only,) = datasets.load(str(path), task=get_task("classify"), lang="python").examples
    assert only.error is None and len(only.parse().lines) == 20_002


def test_an_unterminated_quote_is_reported_where_it_opens(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('program,label\n"addq %rax, %rbx",1.5\n"addq %rax, %rbx\n,2\n')
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.line, e.error is None) for e in data.examples] == [(2, True), (3, False)]
    assert "not a CSV row (unexpected end of data)" in data.examples[1].error.message


def test_a_multiline_row_is_located_at_its_first_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('program,label\n"addq %rax, %rbx\nsubq %rcx, %rdx",1.5\n"addq %rax, %rbx",x\n')
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [(e.line, e.error is None) for e in data.examples] == [(2, True), (4, False)]


@pytest.mark.parametrize(
    "name, content",
    [
        ("t.csv", "program,label\n"),
        ("t.csv", "program,label\n\n , \n"),
        ("t.csv", ""),
        ("t.jsonl", ""),
        ("t.jsonl", "\n  \n"),
        ("t.s", "# only a comment\n\n"),
        ("t.hex", "# hex,frequency\nhex\n"),
        ("t.py", ""),
    ],
)
def test_a_dataset_without_examples_is_a_data_error(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataError, match="no examples") as info:
        datasets.load(str(path), task=BHIVE_TASK if not name.endswith(".py") else get_task("classify"))
    assert info.value.path == str(path)


def test_an_empty_undecodable_or_unreadable_source_file_in_a_directory_does_not_stop_the_rest(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "bad.py").write_bytes(b"def f(a):\n    return a + '\xff'\n")
    (tmp_path / "pkg" / "nul.py").write_bytes(b"def g(a):\n\0    return a\n")
    (tmp_path / "pkg" / "ok.py").write_text("def h(a):\n    b = a\n    return b\n")
    (tmp_path / "pkg" / "gone.py").symlink_to(tmp_path / "nowhere.py")  # a link to nothing
    data = datasets.load(str(tmp_path), task=get_task("classify"))
    got = [(e.id, e.error.message if e.error else None) for e in data.examples]
    assert got == [
        ("pkg/bad.py:2", "not UTF-8 (byte 0xff)"),
        ("pkg/gone.py:1", "cannot read: a link to nothing"),
        ("pkg/nul.py:2", "binary input (NUL byte); expected text"),
        ("pkg/ok.py:1", None),
    ]


@pytest.mark.parametrize(
    "bad, message, col",
    [
        (b"4801c", "an odd number of hex digits (5): a byte is two", 5),
        (b"48zz01", "not a hex string: 'z' is not a hex digit", 3),
        (b"48\xff01", "not UTF-8 text", 3),
        # as every command reads the line: a line without hex is a failed example, not left out
        (b",4", "empty hex field", 1),
        (b'"",3', "empty hex field", 2),
        (b'  "48zz01",1', "not a hex string: 'z' is not a hex digit", 6),  # the line's column, not the field's
        (b"  48zz01,1", "not a hex string: 'z' is not a hex digit", 5),
        (b'"4801c3,1', "not a hex string", 1),  # a quote left open
    ],
)
def test_a_bad_line_of_a_hex_file_is_one_failed_example(tmp_path, bad, message, col):
    path = tmp_path / "b.hex"
    path.write_bytes(b'"4801c3",1\n' + bad + b"\n  4829d8 # a comment\n")
    data = datasets.load(str(path), task=BHIVE_TASK)
    assert [e.line for e in data.examples] == [1, 2, 3]
    assert data.examples[0].parse() and data.examples[2].parse()
    with pytest.raises(InvarError) as info:
        data.examples[1].parse()
    assert message in str(info.value) and info.value.path == str(path)
    assert (info.value.line, info.value.col) == (2, col)


def test_an_i386_listing_in_a_directory_is_one_failed_example_and_the_rest_is_audited(tmp_path):
    """A listing refused as a whole (``gcc -m32``) is located at its file and
    line, and keeps no other file of the directory from the audit."""
    (tmp_path / "a32.s").write_text("\t.text\n\t.globl f\nf:\n\tpushl\t%ebp\n\tmovl\t%esp, %ebp\n\tpopl\t%ebp\n\tret\n")
    (tmp_path / "a64.s").write_text("\t.text\n\t.globl g\ng:\n\tmovq\t%rdi, %rax\n\taddq\t$1, %rax\n\tret\n")
    data = datasets.load(str(tmp_path), task=BHIVE_TASK)
    failed = [(e.id, e.path, e.line, type(e.error).__name__) for e in data.examples if e.error is not None]
    assert failed == [("a32.s:4", str(tmp_path / "a32.s"), 4, "ParseError")]
    assert "32-bit" in data.examples[0].error.message and data.examples[0].error.path == str(tmp_path / "a32.s")
    assert [e.id for e in data.examples if e.error is None] == ["a64.s:4"]
    assert data.examples[1].parse()


# ------------------------------------------- datasets invar data wrote, per task
def _written(root, task: str) -> tuple:
    """(directory written by invar data TASK, its test split file) with the
    test split holding only good rows of the train split (for bhive: of
    fixtures/blocks)."""
    from typer.testing import CliRunner

    from invar.cli.app import app

    out = root / task
    if task == "bhive":
        out.mkdir()
        for name in ("meta.json", "test.csv"):
            (out / name).write_text((FIXTURES / "blocks" / name).read_text())
        split = out / "test.csv"
        split.write_text("".join(split.read_text().splitlines(keepends=True)[:3]))
        return out, split
    if task in ("names", "bugs"):
        args = ["--source", str(FIXTURES / "python")]
    elif task == "copy":
        args = ["--train", "20", "--valid", "5", "--test", "2", "--test-symbols", "3", "--max-length", "6"]
    else:
        args = ["--num", "3", "--aps", "2", "--max-size", "4", "--jobs", "1"]
    target = out / "test.txt" if task == "ltl" else out
    result = CliRunner().invoke(app, ["data", task, *args, "--out", str(target)])
    assert result.exit_code == 0, result.output
    if task in ("names", "bugs"):  # two good rows of the training split as the test split
        rows = list(csv.reader((out / "train.csv").open(newline="")))
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows[:3])
        (out / "test.csv").write_text(buf.getvalue())
    return out, out / ("test.csv" if task in ("bhive", "names", "bugs") else "test.txt")


MALFORMED = [
    # (task, appended bytes, message)
    ("bhive", b"4801c3\n", "unlabelled block"),
    ("bhive", b"4801c3,fast\n", "throughput 'fast' is not a number"),
    ("bhive", b"4801c3,-1\n", "must be positive"),
    ("bhive", b"4801c3,nan\n", "must be positive"),
    ("bhive", b"4801c3,1.5,2\n", "3 fields"),
    ("bhive", b"48\xff01,1.5\n", "not UTF-8 text"),
    ("names", b'"def METHOD_NAME(a):\n    return a",\n', "a function without a name"),
    ("names", b'"x"y,get\n', "not a CSV row"),
    ("names", b'"def METHOD_NAME(a):\n    return \xff",get value\n', "not UTF-8 text"),
    ("names", b'"def METHOD_NAME(a):\n    return a,get\n', "not a CSV row (unexpected end of data)"),
    ("bugs", b'"def f(a):\n    return a",2\n', "a label that is not 0 or 1"),
    ("bugs", b'"def f(a):\n    return a"\n', "a label that is not 0 or 1"),
    ("bugs", b'"x"y,1\n', "not a CSV row"),
    ("ltl", b"a U\n1;{a}\n", "cannot read the pair"),
    ("ltl", b"{a}\n", "cannot read the pair"),
    ("ltl", b"F a\n", "a formula without a trace"),
    ("ltl", b"F \xffa\n1;{a}\n", "not UTF-8 text"),
    ("copy", b"ab1\n", "'1' is not a copy symbol"),
    ("copy", b"ab\xffc\n", "not UTF-8 text"),
]


@pytest.mark.parametrize("task, bad, message", MALFORMED)
def test_a_malformed_row_of_a_dataset_invar_data_wrote(tmp_path, task, bad, message):
    """The audit reports the row at its line and reads the others; training
    (read_split) refuses the split at that row."""
    the_task = get_task(task)
    out, split = _written(tmp_path, task)
    before = split.read_bytes()
    if task == "names" and not before.endswith(b"\n"):
        before += b"\n"
    split.write_bytes(before + bad)
    line = before.count(b"\n") + 1
    for spec in (out, split) if task in ("ltl", "copy") else (out,):  # the directory's split, or the file
        data = datasets.load(str(spec), task=the_task, split="test")
        failed = [e for e in data.examples if e.error is not None]
        assert [(e.line, e.error.line) for e in failed] == [(line, line)], [str(e.error) for e in failed]
        assert message in failed[0].error.message and failed[0].error.path == str(split)
        good = [e for e in data.examples if e.error is None]
        assert good and all(e.label is not None and e.parse() for e in good)
    with pytest.raises(DataError, match=re.escape(message)) as info:
        the_task.read_split(out if task != "ltl" else split, "test") if task != "ltl" else __import__(
            "invar.tasks.ltl", fromlist=["read_pairs"]
        ).read_pairs(split)
    assert info.value.line == line


@pytest.mark.parametrize(
    "bad, message",
    [
        (b"not json", "expected a JSON object with a \"formula\" string"),
        (b'{"trace": "{a}"}', "expected a JSON object with a \"formula\" string"),
        (b'{"formula": 3, "trace": "{a}"}', "expected a JSON object with a \"formula\" string"),
        (b'{"formula": "a U", "trace": "{a}"}', "formula:"),
        (b'{"formula": "F a", "trace": "a;"}', "trace:"),
        (b'{"formula": "F a"}', "a formula without a trace"),
    ],
)
def test_a_malformed_record_of_an_ltl_jsonl_file(tmp_path, bad, message):
    path = tmp_path / "pairs.jsonl"
    good = json.dumps({"formula": "F a", "trace": "1;{a}"}).encode()
    path.write_bytes(good + b"\n" + bad + b"\n" + good + b"\n")
    data = datasets.load(str(path), task=get_task("ltl"))
    assert [(e.line, e.error is None) for e in data.examples] == [(1, True), (2, False), (3, True)]
    assert message in data.examples[1].error.message and data.examples[1].error.line == 2


def test_a_bhive_copy_reports_rows_that_are_not_hex(tmp_path):
    lines = sorted(BHIVE.glob("*.csv"))[0].read_text().splitlines()[:5]
    path = tmp_path / "copy.csv"
    path.write_bytes(
        "\n".join(lines[:2]).encode() + b"\nnot hex,3\n48\xff01,1\n" + "\n".join(lines[2:]).encode() + b"\n"
    )
    data = datasets.load("bhive", task=BHIVE_TASK, data_dir=str(path))
    failed = sorted((e.line, e.error.message) for e in data.examples if e.error is not None)
    assert failed == [(3, "not a hex string"), (4, "not UTF-8 (byte 0xff at column 3)")]
    assert len(data.examples) - len(failed) == len({line.split(",")[0] for line in lines})


@pytest.mark.parametrize(
    "name, content, bad_line",
    [
        ("t.jsonl", GOOD_JSON + "\n[1, 2]\n" + GOOD_JSON + "\n", 2),
        ("t.jsonl", "{oops\n" + GOOD_JSON + "\n" + GOOD_JSON + "\n", 1),
        ("t.jsonl", GOOD_JSON + "\n" + GOOD_JSON + '\n{"code": "addq %rax, %rbx"}\n', 3),
        ("t.csv", 'program,label\n"addq %rax, %rbx",1\n"x"y,2\n"addq %rax, %rbx",3\n', 3),
        ("t.csv", 'program,label\n"addq %rax, %rbx",1\n"addq %rax, %rbx",2\n"addq %rax,2,3,4\n', 4),
        ("b.hex", "4801c3\n4801c\n4829d8\n", 2),
        ("b.hex", '"4801c3",1\n"4801c\n"4829d8"\n', 2),  # quoted fields read as CSV reads them
    ],
)
def test_the_audit_reports_a_malformed_row_and_audits_the_rest(invoke, tmp_path, name, content, bad_line):
    path = tmp_path / name
    path.write_text(content)
    result = invoke(
        "audit", "--model", MODEL, "--task", "bhive", "--dataset", path, "--variants", "2", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["examples"], report["audited"], report["unparsable"]) == (3, 2, 1)
    assert result.stderr.startswith(f"{path}:{bad_line}:"), result.stderr
    assert report["failed"][0]["location"] == f"{path}:{bad_line}"


@pytest.mark.parametrize("name, content", [("t.csv", "program,label\n"), ("t.jsonl", "\n"), ("t.hex", "# none\n")])
def test_the_audit_of_a_dataset_without_examples_exits_1(invoke, tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    result = invoke("audit", "--model", MODEL, "--task", "bhive", "--dataset", path)
    assert result.exit_code == 1 and result.stderr.startswith(f"{path}: error: no examples: ")


@pytest.mark.parametrize(
    "spec, option",
    [
        (FIXTURES / "blocks", "program_column"),  # prepared
        (FIXTURES / "x86" / "figure1a.s", "label_column"),
        (FIXTURES / "python", "program_column"),  # a directory of sources
        (["movq %rax, %rbx"], "label_column"),
    ],
)
def test_a_column_named_for_a_dataset_without_columns_is_refused(spec, option):
    task = get_task("bhive")
    with pytest.raises(
        UsageError, match=r"is not read by columns \(a CSV, TSV or JSONL table of programs is\)$"
    ) as err:
        datasets.load(spec if isinstance(spec, list) else str(spec), task=task, **{option: "x"})
    assert err.value.path == "--" + option.replace("_", "-")


def test_a_column_for_bhive_is_refused_before_anything_is_downloaded(invoke, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # an empty cache: the audit would download
    monkeypatch.delenv("INVAR_DATA", raising=False)
    model = FIXTURES / "models" / "renamer.pt"
    result = invoke("audit", "--model", model, "--dataset", "bhive", "--label-column", "y")
    assert result.exit_code == 2 and not list(tmp_path.iterdir())
    assert result.stderr.splitlines() == [
        "--label-column: error: bhive is not read by columns (a CSV, TSV or JSONL table of programs is)"
    ]


HEXES = ("490345404939c5", "4909c6490fafce4989c64c31f2")


@pytest.mark.parametrize(
    "name, text, label_column, said",
    [
        ("t.csv", "code,cycles\n" + "".join(f"{h},1.0\n" for h in HEXES), None, "columns: code, cycles)"),
        ("t.jsonl", "".join(json.dumps({"hex": h, "cycles": 1}) + "\n" for h in HEXES), None, "columns: hex, cycles)"),
        ("t.csv", "code,label\n" + "".join(f"{h},\n" for h in HEXES), None, None),  # a label column, empty
        ("t.csv", "code,cycles\n" + "".join(f"{h},\n" for h in HEXES), "cycles", None),  # the one named, empty
        ("t.hex", "".join(f"{h}\n" for h in HEXES), None, None),  # no columns
    ],
    ids=["csv", "jsonl", "empty-label-column", "named-empty", "not-a-table"],
)
def test_the_no_labels_note_names_a_tables_columns_when_none_is_a_label_column(
    tmp_path, name, text, label_column, said
):
    path = tmp_path / name
    path.write_text(text)
    data = datasets.load(str(path), task=BHIVE_TASK, label_column=label_column)
    note = datasets.unlabelled_note(data.info(), BHIVE_TASK, oracle=False, label_column=label_column)
    assert note.startswith("no example has a label, so no MAPE is measured: ")
    assert note.endswith(
        "audit with --oracle to label the blocks with llvm-mca, or label them once with invar data "
        "bhive --out DIR and audit --dataset DIR"
    )
    if said is None:
        assert "columns" not in note and "--label-column" not in note
    else:  # as the --program-column error lists them
        assert (
            f"no label column (looked for label, throughput, target, y; {said}: name it with --label-column NAME, "
            in note
        )


def test_the_dataset_is_never_read_from_standard_input():
    with pytest.raises(UsageError, match="--dataset does not read standard input") as err:
        datasets.load("-", task=BHIVE_TASK)
    assert err.value.path == "--dataset"


@pytest.mark.parametrize(
    "lang, refused", [(None, False), ("hex", False), ("x86", False), ("X86", False), ("python", True), ("ltl", True)]
)
def test_lang_of_another_language_than_a_bhive_dataset_says_is_refused(lang, refused):
    """A prepared BHive dataset's rows are hex blocks, whatever --lang says:
    a --lang that names another language is a usage error, not ignored."""
    load = lambda: datasets.load(str(FIXTURES / "blocks"), task=BHIVE_TASK, lang=lang, limit=2)  # noqa: E731
    if not refused:
        assert {e.lang for e in load().examples} == {"hex"}
        return
    with pytest.raises(UsageError, match=f"--lang {lang}: .* holds x86 assembly programs, as its format says"):
        load()
