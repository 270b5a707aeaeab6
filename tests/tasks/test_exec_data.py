"""``invar data exec`` (invar/tasks/exec_data.py, exec_source.py,
exec_generate.py): generated programs hold the constructs docs/semantics.md
covers and can vary; every label is the result of two runs that agree, and a
third run gives it again; functions of a directory are called with arguments
drawn from their annotations or given in a file; what cannot be labelled
(non-deterministic, raising, looping) is left out and counted.
"""

from __future__ import annotations

import ast
import json
import random
import re
import symtable

import pytest
from typer.testing import CliRunner

from invar.cli.app import app
from invar.errors import DataError
from invar.sandbox import Limits, literal
from invar.tasks.exec import dataset, oracle, render
from invar.tasks.exec_data import build_generated, build_source
from invar.tasks.exec_generate import CONSTRUCTS, generate
from invar.tasks.exec_source import drawer, read_inputs, targets

QUICK = Limits(seconds=1.0, memory=256 << 20)


# ------------------------------------------------------------------ generated
def _held(code: str) -> set[str]:
    """The constructs a program holds, read from its syntax tree (not from
    what the generator says it wrote)."""
    tree = ast.parse(code)
    f = tree.body[0]
    nodes = list(ast.walk(f))
    kinds = {type(n) for n in nodes}
    nested = [n for n in nodes if isinstance(n, ast.FunctionDef) and n is not f]
    table = symtable.symtable(code, "<gen>", "exec").get_children()[0]
    # a function nested in f that reads one of f's locals (a decorator's wrapper reads its decorator's)
    frees = {name for child in table.get_children() if child.get_type() == "function" for name in child.get_frees()}
    found = {
        "comprehension": bool(kinds & {ast.ListComp, ast.SetComp, ast.DictComp}),
        "closure": bool(frees),
        "loop": bool(kinds & {ast.For, ast.While}),
        "exception": ast.Try in kinds,
        "class": ast.ClassDef in kinds,
        "decorator": any(n.decorator_list for n in nested),
        "walrus": ast.NamedExpr in kinds,
        "match": ast.Match in kinds,
        "iterator": any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "next" for n in nodes),
    }
    return {c for c, held in found.items() if held}


def test_generated_programs_are_seeded_hold_every_construct_and_say_which():
    assert generate(3) == generate(3) and generate(3) != generate(4)
    programs = [generate(f"constructs:{k}") for k in range(150)]
    seen = set()
    for g in programs:
        held = _held(g.code)
        assert set(g.constructs) <= held, g.code  # a closure's or a walrus's template may hold a comprehension
        seen |= held
    assert seen == set(CONSTRUCTS)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("exec") / "gen"
    return out, build_generated(120, out, seed=5, limits=QUICK)


def test_generated_examples_are_labelled_and_can_vary(generated):
    out, meta = generated
    rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert meta["test"] == len(rows) == 120 and meta["task"] == "exec"
    assert meta["variable"]["either"] >= 0.9 * len(rows)
    assert meta["variable"]["renamings"] >= 0.9 * len(rows) and meta["variable"]["permutations"] >= 0.9 * len(rows)
    assert sum(meta["constructs"].values()) >= 2 * len(rows) and all(meta["constructs"].values())
    assert len({row["code"] for row in rows}) == len(rows)


def test_every_label_is_given_again_by_a_third_run(generated):
    out, _meta = generated
    examples = dataset(str(out), "test")
    again = oracle([ex.source for ex in examples])
    assert [value for value, _ in again] == [ex.label for ex in examples]
    assert all(ex.label == literal(ast.literal_eval(ex.label)) for ex in examples)


def test_the_same_seed_writes_the_same_dataset(generated, tmp_path):
    out, _meta = generated
    build_generated(120, tmp_path / "again", seed=5, limits=QUICK)
    assert (tmp_path / "again" / "test.jsonl").read_bytes() == (out / "test.jsonl").read_bytes()


# --------------------------------------------------------------------- source
SOURCE = '''\
import random
import time

LIMIT = 3


def double_all(xs: list[int], k: int = 2) -> list[int]:
    out = [x * k for x in xs]
    return out


def greet(name: "str", punct=".", *rest, loud: bool = False):
    text = "hi " + name + punct
    return text.upper() if loud else text


def uses_global(n: int) -> int:
    return n + LIMIT


def rolls(n: int) -> float:
    import random
    return random.random() + n


def clock(n: int) -> float:
    import time
    return time.time() + n


def ident(n: int) -> int:
    return id(object()) + n


def unordered(n: int) -> list:
    return list({"apple", "pear", "fig", "plum", "kiwi", "lime", "date", "sloe"})[: n % 3 + 5]


def fails(n: int) -> int:
    return n // 0


def spins(n: int) -> int:
    while True:
        n += 1


def untyped(a, b):
    return a + b


async def later(n: int) -> int:
    return n


class Holder:
    def method(self, n: int) -> int:
        return n
'''


@pytest.fixture()
def source(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "funcs.py").write_text(SOURCE)
    return tmp_path / "src"


@pytest.mark.parametrize(
    "rows, line, said",
    [
        ('{"function": "nope", "input": "1"}\n', 2, "a function that is not in {src}: nope"),
        ('{"function": "untyped", "path": "other.py", "input": "1, 2"}\n', 2, "a function .*: other.py:untyped"),
        # several: located at the first line that asks for one, all of them named
        (
            '{"function": "untyped", "input": "3, 4"}\n{"function": "zz", "input": "1"}\n'
            '{"function": "aa", "input": "1"}\n',
            3,
            "functions that are not in {src}: zz, aa",
        ),
    ],
)
def test_inputs_calling_a_function_that_is_not_there_are_refused(source, tmp_path, rows, line, said):
    """Left out unsaid, such a line would vanish from the dataset with no count;
    the error is located at the inputs file's line, where the fix is."""
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"function": "untyped", "input": "1, 2"}\n' + rows)
    with pytest.raises(DataError, match=f"calls {said.format(src=re.escape(str(source)))}") as caught:
        build_source(source, tmp_path / "out", seed=1, calls=2, inputs=inputs, limits=QUICK, jobs=1)
    assert (caught.value.path, caught.value.line) == (str(inputs), line)


def test_functions_of_a_directory_are_called_and_what_cannot_be_labelled_is_counted(source, tmp_path):
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(
        '{"function": "untyped", "input": "1, 2"}\n{"function": "untyped", "input": "\'a\', \'b\'"}\n'
        '{"function": "spins", "path": "funcs.py", "input": "1"}\n'
        '{"function": "uses_global", "input": "1"}\n'  # skipped: its call is counted, not lost
    )
    meta = build_source(source, tmp_path / "out", seed=1, calls=2, inputs=inputs, limits=QUICK, jobs=2)
    rows = [json.loads(line) for line in (tmp_path / "out" / "test.jsonl").read_text().splitlines()]
    by = {}
    for row in rows:
        by.setdefault(row["function"], []).append(row)
    assert set(by) == {"double_all", "greet", "untyped"}
    assert [(r["input"], r["output"]) for r in by["untyped"]] == [("1, 2", "3"), ("'a', 'b'", "'ab'")]
    for r in by["double_all"] + by["greet"]:
        assert r["output"] == oracle([render(r["code"], r["input"], r["function"])])[0][0]
    assert all("loud=" in r["input"] or "," not in r["input"] for r in by["greet"])  # keyword-only by name
    assert meta["left_out"] == {
        "non-deterministic (two runs differ)": 2 * 4,
        "raised an exception": 2,
        "ran past the time limit": 1,
        "given for a function skipped: not self-contained (it reads a global)": 1,
    }
    assert meta["skipped_functions"] == {
        "async": 1,
        "not a top-level function": 1,
        "not self-contained (it reads a global)": 1,
    }
    assert meta["functions"] == 9 and meta["calls"] == 2 * 8 + 1 + 1
    assert meta["calls"] == meta["test"] + sum(meta["left_out"].values())  # every call labelled or counted


def test_a_directory_without_a_function_to_call_is_a_data_error(tmp_path):
    (tmp_path / "a.py").write_text("X = 1\n\ndef f(n):\n    return n + X\n")
    with pytest.raises(DataError, match="not self-contained"):
        build_source(tmp_path, tmp_path / "out", limits=QUICK)


@pytest.mark.parametrize(
    "annotation, check",
    [
        ("int", lambda v: type(v) is int and -5 <= v <= 10),
        ("float", lambda v: type(v) is float and -10 <= v <= 10),
        ("bool", lambda v: type(v) is bool),
        ("str", lambda v: type(v) is str and len(v) <= 8 and set(v) <= set("abcxyz ")),
        ("bytes", lambda v: type(v) is bytes),
        ("None", lambda v: v is None),
        ("list[int]", lambda v: type(v) is list and len(v) <= 5 and all(type(x) is int for x in v)),
        ("List[str]", lambda v: type(v) is list and all(type(x) is str for x in v)),
        ("list", lambda v: type(v) is list and all(type(x) is int for x in v)),
        ("tuple[int, ...]", lambda v: type(v) is tuple and len(v) <= 5),
        ("tuple[int, str]", lambda v: type(v) is tuple and [type(x) for x in v] == [int, str]),
        ("typing.Set[int]", lambda v: type(v) is set),
        (
            "dict[str, list[int]]",
            lambda v: type(v) is dict and len(v) <= 4 and all(type(x) is list for x in v.values()),
        ),
        ("dict", lambda v: type(v) is dict),
        ("Optional[int]", lambda v: v is None or type(v) is int),
        ("int | str", lambda v: type(v) in (int, str)),
        ("Union[int, None]", lambda v: v is None or type(v) is int),
        ("'list[int]'", lambda v: type(v) is list),
    ],
)
def test_annotations_are_drawn_as_documented(annotation, check):
    draw = drawer(ast.parse(annotation, mode="eval").body)
    rng = random.Random(0)
    assert all(check(draw(rng)) for _ in range(50))


@pytest.mark.parametrize("annotation", ["Any", "MyClass", "list[MyClass]", "Callable[[int], int]", "dict[int]"])
def test_an_annotation_of_no_literal_type_draws_nothing(annotation):
    assert drawer(ast.parse(annotation, mode="eval").body) is None


# ------------------------------------------------------------------------ CLI
def test_the_command_writes_a_dataset_the_audit_reads(tmp_path):
    out = tmp_path / "gen"
    result = CliRunner().invoke(
        app, ["data", "exec", "--generate", "6", "--seed", "2", "--out", str(out), "--timeout", "2", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    meta = json.loads(result.stdout)
    assert meta["test"] == 6 and meta["out"] == str(out) and meta["limits"]["seconds"] == 2.0
    result = CliRunner().invoke(app, ["data", "exec", "--generate", "3", "--out", str(tmp_path / "g2")])
    assert result.exit_code == 0 and "wrote 3 examples labelled by two runs" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --source DIR or --generate N"),
        (["--generate", "2", "--source", "."], "give --source DIR or --generate N"),
        (["--generate", "2", "--inputs", "x.jsonl"], "--inputs gives the calls"),
    ],
)
def test_the_command_takes_one_source_of_programs(tmp_path, args, message):
    result = CliRunner().invoke(app, ["data", "exec", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2 and message in result.output + result.stderr


def test_a_redefined_function_is_a_target_called_by_its_own_name(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(a: int) -> int:\n    return a + 1\n\n\ndef f(a: int, b: int = 2) -> int:\n    return a * b\n"
    )
    found, skipped, left_out = targets(tmp_path, seed=0, calls=2)
    assert [(t.name, t.line) for t in found] == [("f", 1), ("f", 5)] and not skipped and not left_out


# ---------------------------------------------------------------- inputs file
GOOD = '{"function": "f", "input": "1"}\n'


@pytest.mark.parametrize(
    "row, said",
    [
        # "path" is a file's name: a string, else an error at its line (an array was a crash, a number a key)
        ('{"function": "f", "input": "1", "path": [1]}', '"path" is [1], not a file'),
        ('{"function": "f", "input": "1", "path": 5}', '"path" is 5, not a file'),
        ('{"function": "f", "input": "1", "path": ""}', '"path" is "", not a file'),
        ('{"function": "f", "input": "1", "path": true}', '"path" is true, not a file'),
        # a long value is cut short
        (
            '{"function": "f", "input": "1", "path": {"a": "' + "b" * 40 + '"}}',
            '"path" is {"a": "' + "b" * 22 + "…, not",
        ),
        # a row that is not one call
        ('{"function": "f"}', "expected {"),
        ('{"function": 3, "input": "1"}', "expected {"),
        ('{"function": "f", "input": [1]}', "expected {"),
        ('{"function": "f", "input": "1), g(2"}', "expected {"),  # a tuple of two calls, not arguments
        ('{"function": "f", "input": "1,,"}', "expected {"),
        ("[1]", "expected {"),
        ('"f"', "expected {"),
        ("f(1)", "expected {"),
    ],
)
def test_a_bad_inputs_row_is_an_error_at_its_line(tmp_path, row, said):
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(GOOD + "\n" + row + "\n" + GOOD)
    with pytest.raises(DataError) as caught:
        read_inputs(inputs)
    assert caught.value.message.startswith(said), caught.value.message
    assert (caught.value.path, caught.value.line, caught.value.col) == (str(inputs), 3, 1)


@pytest.mark.parametrize(
    "data, rows, lines",
    [
        # a byte-order mark is dropped, not a misread first row
        (b"\xef\xbb\xbf" + GOOD.encode(), {(None, "f"): ["1"]}, {(None, "f"): 1}),
        (b'{"function": "f", "input": "1", "path": null}\r\n', {(None, "f"): ["1"]}, {(None, "f"): 1}),
        (
            b'\n{"function": "f", "input": "2", "path": "m.py"}\n\n' + GOOD.encode() * 2,
            {("m.py", "f"): ["2"], (None, "f"): ["1", "1"]},  # every line kept, a repeated one too
            {("m.py", "f"): 2, (None, "f"): 4},
        ),
        # a line ends at \n: a string holding U+2028 or a form feed is one row
        ('{"function": "f", "input": "\'a\u2028b\\f\'"}\n'.encode(), {(None, "f"): ["'a\u2028b\f'"]}, {(None, "f"): 1}),
    ],
)
def test_inputs_rows_are_read_as_written(tmp_path, data, rows, lines):
    inputs = tmp_path / "in.jsonl"
    inputs.write_bytes(data)
    read = read_inputs(inputs)
    assert dict(read) == rows and read.lines == lines and read.path == str(inputs)
    again = read_inputs("<stdin>", data.decode("utf-8"))  # text read once, by the caller: the same rows
    assert dict(again) == rows and again.path == "<stdin>"


@pytest.mark.parametrize(
    "data, said",
    [
        (None, "no such file"),
        (b"", "empty input"),
        (b'{"function": "f", "input": "\xff"}\n', "not UTF-8"),
        (b"\0", "binary input"),
    ],
)
def test_an_inputs_file_that_cannot_be_read_is_a_located_data_error(tmp_path, data, said):
    inputs = tmp_path / "in.jsonl"
    if data is not None:
        inputs.write_bytes(data)
    with pytest.raises(DataError, match=said) as caught:
        read_inputs(inputs)
    assert caught.value.path == str(inputs)


#: m.py's useg reads a global (skipped); n.py's is self-contained; both have add and C.m (a method, skipped)
FILES = {
    "m.py": "G = 3\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\ndef useg(n: int) -> int:\n"
    "    return n + G\n\n\nclass C:\n    def m(self, n: int) -> int:\n        return n\n",
    "n.py": "def add(a: int, b: int) -> int:\n    return a * b\n\n\ndef useg(n: int) -> int:\n    return n\n",
}
SKIPPED = "given for a function skipped: not self-contained (it reads a global)"


def _row(function: str, arguments: str, path: str | None = None) -> str:
    return json.dumps({"function": function, "input": arguments, **({"path": path} if path else {})}) + "\n"


@pytest.mark.parametrize(
    "rows, calls, left_out",
    [
        # a row with a path and one without: both used (the one without was dropped), its path's first
        (_row("add", "1, 2", "m.py") + _row("add", "3, 4"), {"m.py:add": ("1, 2", "3, 4"), "n.py:add": ("3, 4",)}, {}),
        (_row("add", "3, 4") + _row("add", "1, 2", "m.py"), {"m.py:add": ("1, 2", "3, 4")}, {}),
        (_row("add", "5, 6", "n.py"), {"n.py:add": ("5, 6",)}, {}),
        # a row for a skipped function is counted, by the reason it was skipped
        (_row("useg", "1", "m.py") + _row("useg", "2", "m.py"), {}, {SKIPPED: 2}),
        # ... unless another function of its name is called with it
        (_row("useg", "1"), {"n.py:useg": ("1",)}, {}),
        (_row("useg", "1", "m.py") + _row("useg", "2"), {"n.py:useg": ("2",)}, {SKIPPED: 1}),
        (_row("C.m", "1"), {}, {"given for a function skipped: not a top-level function": 1}),
    ],
)
def test_every_inputs_row_is_called_or_counted(tmp_path, rows, calls, left_out):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    found, skipped, unused = targets(tmp_path, seed=0, calls=2, inputs=read_inputs("in", rows))
    given = {f"{t.path}:{t.name}": t.inputs for t in found}
    assert {key: given[key] for key in calls} == calls and unused == left_out
    assert skipped == {"not self-contained (it reads a global)": 1, "not a top-level function": 1}
    asked = sum(len(v) for v in read_inputs("in", rows).values())
    used = {arguments for t in found for arguments in t.inputs}
    assert asked == sum(unused.values()) + sum(1 for line in rows.splitlines() if json.loads(line)["input"] in used)


@pytest.mark.parametrize(
    "stdin, status, said",
    [
        (GOOD, 0, "wrote 1 examples"),
        ("\ufeff" + GOOD, 0, "wrote 1 examples"),  # a byte-order mark dropped
        (GOOD + _row("f", "2", "m.py"), 0, "wrote 2 examples"),  # with a path and without: both called
        (GOOD + '{"function": "f"}\n', 1, '<stdin>:2:1: error: expected {"function": NAME'),
        (GOOD + _row("f", "1", "nowhere.py"), 1, "<stdin>:2:1: error: calls a function that is not in"),
        (GOOD + '{"function": "f", "input": "1", "path": [1]}\n', 1, '<stdin>:2:1: error: "path" is [1]'),
        ("", 1, "<stdin>:1:1: error: empty input"),
    ],
)
def test_inputs_are_read_from_standard_input(invoke, tmp_path, stdin, status, said):
    """``--inputs -`` was an internal error: stdin is read once, errors located at ``<stdin>``."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def f(n: int) -> int:\n    return n + 1\n")
    out = tmp_path / "out"
    argv = ["data", "exec", "--source", tmp_path / "src", "--inputs", "-", "--out", out, "--timeout", "2"]
    result = invoke(*argv, input=stdin)
    assert result.exit_code == status, result.output
    assert said in (result.stdout if status == 0 else result.stderr.splitlines()[0])
    if status == 0:
        rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
        assert [(r["function"], r["input"], r["output"]) for r in rows][-1] == ("f", "1", "2")
