"""An error is located as far as it is known, and no further: ``FILE:LINE:COL:``
with a line and a column, ``FILE:LINE:`` with a line alone, ``FILE:`` with
neither (a missing file, a bad option's value), never a ``:0:0:`` that
points nowhere."""

from __future__ import annotations

import json

import pytest

from invar.errors import DataError, InvarError, UsageError
from tests.conftest import FIXTURES


@pytest.mark.parametrize(
    "err, shown",
    [
        (InvarError("bad operand", path="a.s", line=3, col=7), "a.s:3:7: error: bad operand"),
        (InvarError("unknown variable", path="p.py", line=12), "p.py:12: error: unknown variable"),
        (InvarError("no such file", path="nope.s"), "nope.s: error: no such file"),
        (UsageError("no measure 'nonsense'", path="--fail-over"), "--fail-over: error: no measure 'nonsense'"),
        (DataError("not a CSV row", path="t.csv", line=1, col=1), "t.csv:1:1: error: not a CSV row"),
        (InvarError("bad token", line=2, col=5), "<input>:2:5: error: bad token"),
        (InvarError("bad line", line=4), "<input>:4: error: bad line"),
        (InvarError("no examples"), "invar: error: no examples"),
        # a column without a line locates nothing more than the file
        (InvarError("odd", path="f.s", col=9), "f.s: error: odd"),
    ],
)
def test_an_error_shows_the_place_it_knows(err, shown):
    assert str(err) == shown


def test_relocating_an_error_shows_its_new_place():
    err = InvarError("bad operand", path="a.s")
    assert str(err) == "a.s: error: bad operand"
    assert str(err.at(5, 2)) == "a.s:5:2: error: bad operand"


@pytest.mark.parametrize(
    "argv, status, shown",
    [
        (["parse", "{tmp}/nope.s"], 1, "{tmp}/nope.s: error: no such file"),
        (["parse", "{tmp}"], 1, "{tmp}: error: is a directory, not a file"),
        (
            ["data", "names", "--source", "{tmp}/nowhere", "--out", "{tmp}/out"],
            1,
            "{tmp}/nowhere: error: no such source directory",
        ),
        (["predict", "--model", "{tmp}/model.pt", "{fixtures}/x86/figure1a.s"], 1, "{tmp}/model.pt: error: "),
        # a located line still carries its line and column
        (["parse", "{fixtures}/x86/figure1a.s", "--lang", "python"], 1, "{fixtures}/x86/figure1a.s:1:"),
        # --inputs that cannot be read: located there, before any call runs (not an internal error)
        (
            ["data", "exec", "--source", "{fixtures}", "--inputs", "{tmp}/none.jsonl", "--out", "{tmp}/out"],
            1,
            "{tmp}/none.jsonl: error: no such file",
        ),
        (
            ["data", "exec", "--source", "{fixtures}", "--inputs", "{tmp}", "--out", "{tmp}/out"],
            1,
            "{tmp}: error: is a directory, not a file",
        ),
    ],
)
def test_commands_print_no_line_and_column_where_there_is_none(invoke, tmp_path, argv, status, shown):
    result = invoke(*[a.format(tmp=tmp_path, fixtures=FIXTURES) for a in argv])
    assert result.exit_code == status, result.output
    line, *rest = result.stderr.splitlines()
    assert line.startswith(shown.format(tmp=tmp_path, fixtures=FIXTURES)), line
    assert ":0:" not in line
    # a caret under the column follows only where the column is known
    assert rest == [] or (len(rest) == 2 and rest[1].strip() == "^" and line.split(":")[2].isdigit())


@pytest.mark.parametrize(
    "source_line, col, shown",
    [
        ("abc!def", 4, ["  abc!def", "     ^"]),
        ("abc", 0, []),  # no column: no caret
        (None, 3, []),  # no source line: no caret
        ("ab", 9, []),  # a column past the line is not drawn
    ],
)
def test_a_caret_follows_the_located_line_where_the_column_and_line_are_known(source_line, col, shown):
    from invar.cli.console import caret_lines
    from invar.errors import ParseError

    assert caret_lines(ParseError("bad", path="f", line=2, col=col, source_line=source_line)) == shown


def test_a_bad_symbol_in_a_copy_dataset_is_shown_with_a_caret(invoke, tmp_path):
    import shutil

    data = tmp_path / "copy"
    shutil.copytree(FIXTURES / "copy", data)
    lines = (data / "train.txt").read_text().splitlines()
    lines[0] = lines[0][:3] + "#" + lines[0][4:]
    (data / "train.txt").write_text("\n".join(lines) + "\n")
    result = invoke(
        "train", "--task", "copy", "--data", data, "--arch", "dualpart", "--epochs", "1", "--out", tmp_path / "m.pt"
    )
    assert result.exit_code == 1
    first, source, caret = result.stderr.splitlines()[:3]  # no blank line first: no bar off a terminal
    assert first.startswith(f"{data / 'train.txt'}:1:4: error: ")
    assert source == f"  {lines[0]}" and caret == "     ^"


@pytest.mark.parametrize(
    "argv, shown",
    [
        (
            ["renamings", "{fixtures}/x86/figure1a.s", "--limit", "-1"],
            "--limit: error: -1 is below the least allowed, 0 ",
        ),
        (["renamings", "{fixtures}/x86/figure1a.s", "--limit", "abc"], "--limit: error: 'abc' is not a whole number"),
        (["renamings", "{fixtures}/x86/figure1a.s", "--limit", "1.5"], "--limit: error: '1.5' is not a whole number"),
        (["alta", "check", "--lambda", "x", "--max-length", "1", "sort"], "--lambda: error: 'x' is not a number"),
        (["train", "--lr", "-1e-3"], "--lr: error: -1e-3 is below the least allowed, 0 "),  # 0.0 shown as 0
        (["train", "--lr", "nan"], "--lr: error: nan: give a finite number"),
        (["data", "ltl", "--aps", "27", "--out", "{tmp}/x.txt"], "--aps: error: 27 is above the most allowed, 26 "),
        (  # a whole-number bound is written whole, however large
            ["renamings", "{fixtures}/x86/figure1a.s", "--sample", "99999999999999999999"],
            "--sample: error: 99999999999999999999 is above the most allowed, 9223372036854775807",
        ),
        # an error about one option's value is placed at that option, wherever invar finds it
        (
            ["renamings", "{fixtures}/x86/figure1a.s", "--lang", "cobol"],
            "--lang: error: --lang 'cobol': unknown language",
        ),
        (["renamings", "{fixtures}/x86/figure1a.s", "--pin", "rzz"], "--pin: error: --pin 'rzz': unknown register"),
        (
            ["data", "ltl", "--num", "3", "--timeout", "0", "--out", "{tmp}/x.txt"],
            "--timeout: error: --timeout must be",
        ),
        (
            ["data", "ltl", "--num", "3", "--distinct-aps", "4", "--max-size", "6", "--out", "{tmp}/x.txt"],
            "--max-size: error: ",
        ),
        (
            ["alta", "check", "--max-len", "3", "--max-length", "1", "{fixtures}/models/renamer.pt"],
            "--max-len: error: ",
        ),
        (["renamings", "{fixtures}/x86/figure1a.s", "--format", "yaml"], "--format: error: 'yaml' is not one of"),
        (["renamings", "{fixtures}/x86/figure1a.s", "--bogus"], "invar: error: No such option: --bogus"),
        (["renamings"], "invar: error: Missing argument 'FILE'"),
        (
            ["train", "--arch", "bogus", "--data", "{tmp}/x", "--out", "{tmp}/m.pt"],
            "--arch: error: unknown architecture",
        ),
        (
            ["train", "--arch", "renamer", "--heads", "3", "--data", "{fixtures}/blocks", "--out", "{tmp}/m.pt"],
            "--heads: error: d_model=128 is not divisible by --heads=3",
        ),
        (  # the model field a refusal names first is the option it is placed at, and spelt as that option
            ["train", "--arch", "renamer", "--pool-size", "3", "--data", "{fixtures}/blocks", "--out", "{tmp}/m.pt"],
            "--pool-size: error: --pool-size applies to head='generate', not 'regression'",
        ),
        (["audit", "--model", "http://[::1", "--dataset", "{fixtures}/blocks"], "--model: error: 'http://[::1' is not"),
        (["audit", "--model", "http://", "--dataset", "{fixtures}/blocks"], "--model: error: 'http://' names no host"),
        (
            ["audit", "--model", "{fixtures}/models/renamer.pt", "--dataset", "{tmp}/x", "--fail-over", "errors=nan"],
            "--fail-over: error: 'errors=nan': the bound is nan, not a finite number",
        ),
    ],
)
def test_a_usage_error_is_one_line_naming_its_option_and_exits_2(invoke, tmp_path, argv, shown):
    result = invoke(*[a.format(tmp=tmp_path, fixtures=FIXTURES) for a in argv])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [result.stderr.strip()], result.stderr  # one line, no framed panel
    assert result.stderr.startswith(shown), result.stderr


def test_dlg_refuses_a_mask_too_large_to_print_and_prints_one_that_is_not(invoke, tmp_path, monkeypatch):
    from invar.cli import dlg

    monkeypatch.setattr(dlg, "MASK_MOST_LINES", 3)
    block = tmp_path / "b.s"
    block.write_text("mov %rax, %rbx\nadd %rbx, %rcx\nsub %rcx, %rdx\nimul %rdx, %rax\n")
    result = invoke("dlg", block, "--mask", "--format", "json")
    assert result.exit_code == 2 and result.stderr.startswith(f"{block}: error: --mask of ")
    block.write_text("mov %rax, %rbx\nadd %rbx, %rcx\n")
    shown = invoke("dlg", block, "--mask", "--format", "json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)[0]["mask"] == [[1, 1], [0, 1]]


@pytest.mark.parametrize(
    "inputs, stdin, shown",
    [
        # a row's error is at its line, in the file or on standard input (`-` was an internal error)
        ("{tmp}/in.jsonl", None, '{tmp}/in.jsonl:2:1: error: "path" is [1], not a file'),
        ("-", '{"function": "f", "input": "1"}\n{"function": "f", "input": "1", "path": [1]}\n', "<stdin>:2:1: "),
        ("-", '{"function": "f", "input": "1"}\n{"function": "f"}\n', '<stdin>:2:1: error: expected {"function"'),
        ("-", '{"function": "nope", "input": "1"}\n', "<stdin>:1:1: error: calls a function that is not in "),
        ("-", "", "<stdin>:1:1: error: empty input"),
    ],
)
def test_data_exec_inputs_errors_are_located_at_their_line(invoke, tmp_path, inputs, stdin, shown):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def f(n: int) -> int:\n    return n + 1\n")
    (tmp_path / "in.jsonl").write_text(
        '{"function": "f", "input": "1"}\n{"function": "f", "input": "1", "path": [1]}\n'
    )
    argv = [
        "data",
        "exec",
        "--source",
        tmp_path / "src",
        "--inputs",
        inputs.format(tmp=tmp_path),
        "--out",
        tmp_path / "o",
    ]
    result = invoke(*argv, input=stdin)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[0].startswith(shown.replace("{tmp}", str(tmp_path))), result.stderr
    assert not (tmp_path / "o").exists()  # said before any call runs, nothing written
