"""``invar alta run / compile / check / info``."""

from __future__ import annotations

import json

import pytest
import torch

from invar.alta import get_program, run
from tests.conftest import FIXTURES

USER_PROGRAM = """\
from invar.alta import MLPBuilder, program, relative, var


def shifted(max_length=None):
    variables = {"bit": var(2, token=lambda t: int(t == "1")), "start": var(2, token=lambda t: int(t == "<s>")),
                 "out": var(2)}
    heads = {"left": relative("bit", -1)}
    x = MLPBuilder(variables, heads)
    for start in x.get("start"):
        if start == 0:
            for left in x.get("left"):
                x.set("out", left)
    return program(variables, heads, x.rules, output="out", alphabet=("0", "1", "<s>"), prefix=("<s>",),
                   max_layers=1)


def broken():
    variables = {"bit": var(2)}
    heads = {"left": relative("nothing", -1)}  # an unknown value
    return program(variables, heads, [], output="bit", alphabet=("0", "1"), max_layers=1)


def leaves():
    import sys

    sys.exit(0)  # the program's exit
"""

BROKEN_LINE = next(i for i, line in enumerate(USER_PROGRAM.splitlines(), 1) if "an unknown value" in line)
EXIT_LINE = next(i for i, line in enumerate(USER_PROGRAM.splitlines(), 1) if "the program's exit" in line)


def test_run_prints_the_output_at_every_position(invoke):
    result = invoke("alta", "run", "parity-relative", "--input", "1 0 1 1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["input", "<s>", "1", "0", "1", "1"]
    expected = run(get_program("parity-relative"), "1 0 1 1")
    assert lines[1].split() == ["output", *map(str, expected.outputs)]
    assert lines[2] == f"{expected.layers} layers, halted"


def test_run_trace_shows_each_stage_with_changes_marked(invoke):
    result = invoke("alta", "run", "parity-absolute", "--max-len", "8", "--input", "1 0 1", "--trace")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for title in ("initial", "layer 1: attention", "layer 1: MLP", "layer 2: attention", "layer 2: MLP"):
        assert title in out
    assert "layer 3" not in out
    assert ">parity" in out and "*" in out


def test_run_json_trace_matches_the_interpreter(invoke):
    result = invoke("alta", "run", "parity-relative", "-i", "1 1 0", "--trace", "--format", "json")
    data = json.loads(result.stdout)
    expected = run(get_program("parity-relative"), "1 1 0", trace=True)
    assert data["outputs"] == expected.outputs and data["layers"] == expected.layers
    assert len(data["trace"]["layers"]) == expected.layers
    assert data["trace"]["layers"][0]["rules"] == expected.trace.layers[0].rules


def test_compile_info_check_round_trip(invoke, tmp_path):
    path = tmp_path / "parity.pt"
    result = invoke("alta", "compile", "parity-absolute", "--max-len", "6", "-o", path, "--lambda", "50")
    assert result.exit_code == 0, result.output
    data = torch.load(path, weights_only=True)
    assert data["arch"] == "alta" and data["config"]["lam"] == 50.0
    assert json.loads(data["program"])["name"] == "parity-absolute"
    info = invoke("alta", "info", path, "--format", "json")
    assert json.loads(info.stdout)["rules"] == len(get_program("parity-absolute", max_length=6).rules)
    check = invoke("alta", "check", path, "--max-length", "6")
    assert check.exit_code == 0, check.output
    assert check.stdout.startswith(f"{2**7 - 2} inputs of 1 to 6 symbols")


def test_check_reports_the_first_disagreement(invoke):
    result = invoke("alta", "check", "parity-absolute", "--max-len", "6", "--max-length", "5", "--lambda", "0.5")
    assert result.exit_code == 1
    text = result.stdout
    assert text.startswith("disagreement after ")
    for word in ("input '", "layer ", "position ", "variable '", "interpreter ", "compiled "):
        assert word in text


def test_a_program_from_a_file(invoke, tmp_path):
    source = tmp_path / "progs.py"
    source.write_text(USER_PROGRAM)
    result = invoke("alta", "run", f"{source}:shifted", "-i", "1 0 1 0")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].split() == ["output", "0", "0", "1", "0", "1"]
    check = invoke("alta", "check", f"{source}:shifted", "--max-length", "5")
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize(
    "args,words",
    [
        (["run", "nope", "-i", "1"], "unknown program 'nope'"),
        (["run", "parity-relative", "-i", "1 2"], "symbol '2' at position 2"),
        (["run", "parity-relative", "--max-len", "5", "-i", "1"], "takes no max_length"),
        (["run", "parity-absolute", "--max-len", "3", "-i", "1 0 1 1"], "--input: error: outside parity-absolute's"),
        # an input outside the program's domain is the input's error; the rule it trips keeps its place
        (["run", "sort", "-i", "c a c"], "--input: error: outside sort's domain: input '<s> c a c', layer 2"),
        (["run", "{dir}/missing.py:f", "-i", "1"], "no such file"),
        (["run", "{dir}/folder.py:f", "-i", "1"], "is a directory, not a file"),
        (["run", "{dir}/progs.py:leaves", "-i", "1"], f"progs.py:{EXIT_LINE}: error: SystemExit: 0"),
        (["info", "{dir}"], "is a directory, not a checkpoint"),
        (["run", "{dir}/progs.py:nothing", "-i", "1"], "no function 'nothing'"),
        (["run", "{dir}/progs.py:broken", "-i", "1"], f"progs.py:{BROKEN_LINE}: error: unknown variable 'nothing'"),
        (["info", "{dir}/progs.py"], "not a readable checkpoint"),
        (["check", "parity-relative", "--max-length", "2", "--min-length", "3"], "above --max-length"),
        (["compile", "parity-relative", "-o", "{dir}/m.pt", "--lambda", "inf"], "--lambda: error: inf: give a finite"),
        (["check", "parity-relative", "--max-length", "2", "--lambda", "inf"], "--lambda: error: inf: give a finite"),
        (["compile", "parity-relative", "-o", "{dir}/m.pt", "--lambda", "nan"], "--lambda: error: "),
        (
            ["compile", "parity-relative", "-o", "{dir}/m.pt", "--lambda", "0"],
            "--lambda: error: 0: give a number above 0",
        ),
        (
            ["check", "parity-relative", "--max-length", "2", "--lambda", "0"],
            "--lambda: error: 0: give a number above 0",
        ),
        (["minimal", "parity-relative", "--train", "{dir}/progs.py", "--lambda", "0"], "--lambda: error: 0: give a"),
        (["check", "sort", "--max-length", "6"], "sort has positions for 5 symbols"),
        (["check", "palindrome", "--max-len", "4", "--max-length", "5"], "palindrome has positions for 4 symbols"),
    ],
)
def test_bad_input_is_one_located_line(invoke, tmp_path, args, words):
    (tmp_path / "progs.py").write_text(USER_PROGRAM)
    (tmp_path / "folder.py").mkdir()
    result = invoke("alta", *[a.format(dir=tmp_path) for a in args])
    assert result.exit_code in (1, 2)
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


#: (arguments, exit status, the one error line): a PROG that names no program (a file without its
#: function too), and an option it cannot take, are usage errors (2), as a bad option is; a file that is
#: missing or not a model, or an input outside the program's domain, is bad input (1), at the file
NAMES = "addition, contains-a, distinct-count, first-is-a, histogram, palindrome, parity-absolute, parity-relative, "
NAMES += "parity-sum-mod, reverse, sort, subleq"
UNKNOWN = f"give a shipped name ({NAMES}) or FILE.py:FUNCTION"


@pytest.mark.parametrize(
    "args, status, message",
    [
        (["run", "nosuch", "-i", "1"], 2, f"invar: error: unknown program 'nosuch': {UNKNOWN}"),
        (["compile", "nosuch", "-o", "{dir}/m.pt"], 2, f"invar: error: unknown program 'nosuch': {UNKNOWN}"),
        (["check", "nosuch", "--max-length", "2"], 2, f"invar: error: unknown program 'nosuch': {UNKNOWN}"),
        (["minimal", "nosuch", "--train", "{dir}/bits.txt"], 2, f"invar: error: unknown program 'nosuch': {UNKNOWN}"),
        (["run", "sotr", "-i", "1"], 2, f"invar: error: unknown program 'sotr': did you mean sort? {UNKNOWN}"),
        (
            ["run", "parity", "-i", "1"],
            2,
            "invar: error: unknown program 'parity': did you mean parity-absolute, parity-relative or "
            f"parity-sum-mod? {UNKNOWN}",
        ),
        (["run", "{dir}/user.txt:f", "-i", "1"], 2, f"invar: error: unknown program '{{dir}}/user.txt:f': {UNKNOWN}"),
        (
            ["run", "{dir}/progs.py", "-i", "1"],
            2,
            "invar: error: unknown program '{dir}/progs.py': name the function in it that builds the program: "
            "{dir}/progs.py:FUNCTION",
        ),
        (
            ["run", "sort", "--max-len", "4", "-i", "a"],
            2,
            "--max-len: error: sort takes no max_length (it has no length bound to set)",
        ),
        (
            ["info", "parity-relative"],
            2,
            "invar: error: 'parity-relative' is a shipped program, not a compiled model: compile it first (invar alta "
            "compile parity-relative -o FILE.pt) or run it (invar alta run parity-relative -i INPUT)",
        ),
        (["info", "{dir}/none.pt"], 1, "{dir}/none.pt: error: no such checkpoint"),
        (["check", "{dir}/none.pt", "--max-length", "2"], 1, "{dir}/none.pt: error: no such checkpoint"),
        (["run", "{dir}/none.py:f", "-i", "1"], 1, "{dir}/none.py: error: no such file"),
        # a missing file is said, with or without a function (the shipped names were listed), before the rest
        (["run", "{dir}/none.py", "-i", "1"], 1, "{dir}/none.py: error: no such file"),
        (["run", "{dir}/none.py:", "-i", "1"], 1, "{dir}/none.py: error: no such file"),
        (["compile", "{dir}/none.py", "-o", "{dir}/m.pt"], 1, "{dir}/none.py: error: no such file"),
        (["check", "{dir}/none.py", "--max-length", "2"], 1, "{dir}/none.py: error: no such file"),
        (["run", "{dir}/folder.py", "-i", "1"], 1, "{dir}/folder.py: error: is a directory, not a file"),
        # an empty function name: name the function (the shipped names were listed)
        (
            ["run", "{dir}/progs.py:", "-i", "1"],
            2,
            "invar: error: unknown program '{dir}/progs.py:': name the function in it that builds the program: "
            "{dir}/progs.py:FUNCTION",
        ),
        # a FILE.py:FUNCTION that takes no max_length: as a shipped program, at --max-len (it was exit 1, unlocated)
        (
            ["run", "{dir}/progs.py:broken", "--max-len", "3", "-i", "1"],
            2,
            "--max-len: error: {dir}/progs.py:broken takes no max_length (it has no length bound to set)",
        ),
        (
            ["compile", "{dir}/progs.py:broken", "--max-len", "3", "-o", "{dir}/m.pt"],
            2,
            "--max-len: error: {dir}/progs.py:broken takes no max_length (it has no length bound to set)",
        ),
        (
            ["check", "{dir}/progs.py:leaves", "--max-len", "3", "--max-length", "2"],
            2,
            "--max-len: error: {dir}/progs.py:leaves takes no max_length (it has no length bound to set)",
        ),
        (["run", "{dir}/progs.py:shifted", "--max-len", "3", "-i", "1"], 0, None),
        (["run", "parity-relative", "-i", "1 0"], 0, None),
    ],
)
def test_unknown_programs_are_usage_errors(invoke, tmp_path, args, status, message):
    (tmp_path / "progs.py").write_text(USER_PROGRAM)
    (tmp_path / "bits.txt").write_text("1 0\n")
    (tmp_path / "folder.py").mkdir()
    result = invoke("alta", *[a.replace("{dir}", str(tmp_path)) for a in args])
    assert result.exit_code == status, result.output
    if message is None:
        assert result.stderr == ""
    else:
        assert result.stderr == message.replace("{dir}", str(tmp_path)) + "\n"


def test_a_foreign_checkpoint_is_refused(invoke, tmp_path):
    from invar.checkpoint import save

    path = tmp_path / "other.pt"
    save(path, {"kind": "model", "task": "copy", "config": {}, "state_dict": {}})
    result = invoke("alta", "info", path)
    assert result.exit_code == 1 and "not a compiled ALTA model: its arch is None, not 'alta'" in result.stderr


def _bits(path, rng, lengths, n):
    path.write_text("".join(" ".join(rng.choice("01") for _ in range(rng.randint(*lengths))) + "\n" for _ in range(n)))
    return str(path)


@pytest.mark.parametrize("name, agrees", [("parity-relative", True), ("parity-absolute", False)])
def test_minimal_reports_rules_kept_and_agreement_on_longer_inputs(invoke, tmp_path, name, agrees):
    """§4.1: minimal on short inputs, compared on longer ones: sequential
    relative parity carries over, sequential absolute does not (its
    positions past the training lengths start at the default)."""
    import random

    rng = random.Random(0)
    train = _bits(tmp_path / "train.txt", rng, (1, 8), 60)
    test = _bits(tmp_path / "test.txt", rng, (9, 16), 30)
    result = invoke("alta", "minimal", name, "--train", train, "--test", test, "--format", "json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["train"] == 60 and record["test"] == 30
    assert record["minimal_rules"]["rules"] <= record["rules"]["rules"]
    kept = record["minimal_rules"]["rules"] + record["minimal_rules"]["null_resets"]
    assert record["satisfied_rules"] + record["mixture_resets"] == kept
    assert (record["streams_agree"] == 30) is agrees and (record["first_disagreement"] is None) is agrees


def test_minimal_refuses_an_empty_file(invoke, tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n")
    result = invoke("alta", "minimal", "parity-relative", "--train", str(tmp_path / "empty.txt"))
    assert result.exit_code == 1 and "empty.txt:1:1: error: empty input" in result.output


@pytest.mark.parametrize(
    "content, where, said",
    [
        (b"1 0 1\n1 2 1\n", ":2:3:", "symbol '2' is not in parity-relative's alphabet"),
        (b"1 0\n\x00\x01", ":2:1:", "binary input (NUL byte)"),
        (b"1 0\n1 \xff\n", ":2:3:", "not UTF-8"),
    ],
)
def test_minimal_locates_a_bad_input_line(invoke, tmp_path, content, where, said):
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    for option in ("--train", "--test"):
        other = ["--train", str(FIXTURES / "alta" / "bits-short.txt")] if option == "--test" else []
        result = invoke("alta", "minimal", "parity-relative", *other, option, str(path))
        assert result.exit_code == 1, result.output
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"{path}{where} error: ") and said in first, first


@pytest.mark.parametrize(
    "name, bound, content, where",
    [
        ("sort", [], "a b\nb a\nc a c\n", ":3:1:"),  # a repeated symbol: a head's output undefined
        ("parity-absolute", ["--max-len", "3"], "1 0\n1 0 1 1\n", ":2:1:"),  # past its positions
    ],
)
def test_minimal_locates_an_input_outside_the_domain_at_its_line(invoke, tmp_path, name, bound, content, where):
    path = tmp_path / "in.txt"
    path.write_text(content)
    good = tmp_path / "good.txt"
    good.write_text(content.splitlines()[0] + "\n")
    for option in ("--train", "--test"):
        other = ["--train", str(good)] if option == "--test" else []
        result = invoke("alta", "minimal", name, *bound, *other, option, str(path))
        assert result.exit_code == 1, result.output
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"{path}{where} error: outside {name}'s domain: "), first
