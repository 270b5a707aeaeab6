"""``invar ltl check``, ``invar data ltl`` and the generic commands on LTL files."""

from __future__ import annotations

import json
import re

import pytest

from invar.frontends.ltl.check import check
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.generate import read_dataset
from invar.frontends.ltl.trace import parse_trace


def test_check_holds_and_fails(invoke) -> None:
    ok = invoke("ltl", "check", "XXGb", "a;&ab;{b}")
    assert ok.exit_code == 0 and ok.stdout.strip() == "holds"
    bad = invoke("ltl", "check", "G a", "a;&ab;{b}")
    assert bad.exit_code == 1
    lines = bad.stdout.strip().splitlines()
    assert lines[0] == "fails" and lines[1].startswith("counterexample: ")
    cex = parse_trace(lines[1].removeprefix("counterexample: "))
    assert not check(parse_formula("G a"), cex).holds


def test_check_json(invoke) -> None:
    result = invoke("ltl", "check", "Fa", "{1}", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["schema"] == 1
    (record,) = data["results"]
    assert record["holds"] is False and record["formula"] == "Fa" and record["counterexample"] == "{!a}"


def test_check_batch(invoke, tmp_path) -> None:
    pairs = tmp_path / "pairs.ltl"
    pairs.write_text("&aXb a;b;{1}\n# the paper's renaming\n&bXa\nb;a;{1}\nXXa a;&ab;{b}\n")
    result = invoke("ltl", "check", "--file", pairs)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "line 1: holds",
        "line 3: holds",
        "line 5: fails",
        "  counterexample: &a!b;&ab;&!ab;{&!ab}",
        "3 pairs: 2 hold, 1 fail",
    ]
    jsonl = invoke("ltl", "check", "--file", pairs, "--format", "jsonl")
    assert [json.loads(line)["holds"] for line in jsonl.stdout.splitlines()] == [True, True, False]


@pytest.mark.parametrize(
    "args, message",
    [
        (("G(a -> F b", "{1}"), "<formula>:1:2: error: unbalanced parenthesis"),
        (("G a", "a;b"), "<trace>:1:4: error: trace has no loop"),
        (("a Q b", "{1}"), "<formula>:1:3: error: unknown operator 'Q'"),
        (("Ga", "{X a}"), "<trace>:1:2: error: temporal operator 'X'"),
    ],
)
def test_check_bad_input(invoke, args, message) -> None:
    result = invoke("ltl", "check", *args)
    assert result.exit_code == 2  # ill-formed input: 1 says that the pair fails
    assert result.stderr.strip() == message or result.stderr.startswith(message)


def test_check_bad_file(invoke, tmp_path) -> None:
    bad = tmp_path / "bad.ltl"
    bad.write_text("Ga {1}\nG(a\n")
    result = invoke("ltl", "check", "-f", bad)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{bad}:2:2: error: unbalanced parenthesis")
    lone = tmp_path / "lone.ltl"
    lone.write_text("Ga\n")
    result = invoke("ltl", "check", "-f", lone)
    assert result.exit_code == 2 and "formula without a trace" in result.stderr
    assert invoke("ltl", "check", "Ga").exit_code == 2


#: (arguments, the --file's bytes or None, exit status, where its first error is): 0 every pair holds,
#: 1 a pair fails or runs over a limit, 2 an input that cannot be read or does not parse
EXIT_STATUSES = [
    (["XXGb", "a;&ab;{b}"], None, 0, None),
    (["Ga", "b;{a}"], None, 1, None),
    (["G(a -> F b) & G(b -> F c) & G(c -> F a)", "{1}", "--max-states", "3"], None, 1, "<formula>:1:1"),
    (["G(a", "b;{a}"], None, 2, "<formula>:1:2"),
    (["Ga", "b;{a"], None, 2, "<trace>:1:3"),
    (["--format", "json", "G(a", "{a}"], None, 2, "<formula>:1:2"),
    (["-f", "{file}"], b"Ga {a}\n", 0, None),
    (["-f", "{file}"], b"Ga {a}\nGa b;{a}\n", 1, None),
    (["-f", "{file}", "--max-states", "3"], b"Ga {a}\nG(a -> F b) & G(b -> F c) & G(c -> F a)\t{1}\n", 1, "{file}:2:1"),
    (["-f", "{file}"], b"Ga b;{a}\nG(a\n", 2, "{file}:2:2"),
    (["-f", "{file}"], b"Ga {a}\nGa\n", 2, "{file}:2:1"),
    (["-f", "{file}"], b"Ga {a}\n\xff\n", 2, "{file}:2:1"),
    (["-f", "{tmp}/nosuch.ltl"], None, 2, "{tmp}/nosuch.ltl: error: no such file"),
    (["-f", "{tmp}"], None, 2, "{tmp}: error: is a directory"),
    (
        ["--format", "jsonl", "-f", "{file}.jsonl"],
        b'{"formula": "Ga", "trace": "{a}"}\nnot json\n',
        2,
        "{file}.jsonl:2:1",
    ),
    (["Ga"], None, 2, "invar: error: give FORMULA and TRACE"),
]


@pytest.mark.parametrize("args, content, status, where", EXIT_STATUSES)
def test_check_exit_statuses(invoke, tmp_path, args, content, status, where) -> None:
    file = tmp_path / "pairs.ltl"
    if content is not None:
        target = file.with_name(file.name + ".jsonl") if any(a.endswith(".jsonl") for a in args) else file
        target.write_bytes(content)
    result = invoke("ltl", "check", *[_placed(a, file, tmp_path) for a in args])
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    if where is None:
        assert result.stderr == ""
    else:
        assert result.stderr.startswith(_placed(where, file, tmp_path)), result.stderr


def _placed(text: str, file, tmp_path) -> str:
    """``text`` with {file} and {tmp} filled in (a trace's own braces kept)."""
    return text.replace("{file}", str(file)).replace("{tmp}", str(tmp_path))


def test_check_help_gives_the_exit_statuses(invoke) -> None:
    shown = " ".join(invoke("ltl", "check", "--help").stdout.split())
    assert "Exit status: 0 when every pair holds; 1 when a pair fails" in shown
    assert "2, as for a usage error, when an input cannot be read or is not well formed" in shown


def test_renamings_and_parse_on_ltl(invoke, tmp_path) -> None:
    path = tmp_path / "pair.ltl"
    path.write_text("&aXb a;b;{1}\n")
    count = invoke("renamings", path, "--aps", "a,b,c,d", "--count")
    assert count.exit_code == 0 and count.stdout.strip() == "12"
    listed = invoke("renamings", path, "--aps", "a,b,c,d", "--format", "jsonl")
    texts = [json.loads(line)["text"] for line in listed.stdout.splitlines()]
    assert len(texts) == 12 and "&cXd c;d;{1}" in texts and "&bXa b;a;{1}" in texts
    five = tmp_path / "five.ltl"
    five.write_text("G(a -> F b) & (c U d) & X e\n")
    assert invoke("renamings", five, "--aps", "a,b,c,d,e,f,g,h,i,j", "--count").stdout.strip() == "30240"
    sampled = invoke("renamings", path, "--aps", "a,b,c,d", "--sample", "3", "--seed", "1")
    assert (
        sampled.exit_code == 0
        and sampled.stdout == invoke("renamings", path, "--aps", "a,b,c,d", "--sample", "3", "--seed", "1").stdout
    )
    missing = invoke("renamings", path, "--aps", "a,c")
    assert missing.exit_code == 1 and ":1:4: error: AP 'b' is not in the pool" in missing.stderr
    parsed = invoke("parse", path, "--format", "json")
    tokens = json.loads(parsed.stdout)["units"][0]["tokens"]
    assert [(t["text"], t["view"], t["referent"]) for t in tokens if t["kind"] == "ap"] == [
        ("a", "ap", "a"),
        ("b", "ap", "b"),
        ("a", "ap", "a"),
        ("b", "ap", "b"),
    ]


def test_data_ltl(invoke, tmp_path) -> None:
    out = tmp_path / "d.txt"
    args = ("data", "ltl", "--num", "70", "--aps", "5", "--max-size", "35", "--seed", "5", "-j", "1")
    result = invoke(*args, "--out", out, "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["written"] == 70 and sum(summary["sizes"].values()) == 70
    for formula, trace in read_dataset(out.read_text()):
        assert check(parse_formula(formula), parse_trace(trace)).holds
    assert invoke("ltl", "check", "-f", out).exit_code == 0
    again = tmp_path / "again.txt"
    assert invoke(*args, "--out", again).exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    other = invoke("data", "ltl", "--num", "70", "--seed", "6", "--out", out)
    assert other.exit_code == 1 and "other settings" in other.stderr
    assert invoke("data", "ltl", "--num", "3", "--aps", "30", "--out", tmp_path / "x.txt").exit_code == 2


@pytest.mark.parametrize("k,aps,max_size", [(2, 2, 8), (3, 6, 12), (6, 10, 15)])
def test_data_ltl_distinct_aps(invoke, k, aps, max_size) -> None:
    args = (
        "data",
        "ltl",
        "--num",
        "12",
        "--aps",
        str(aps),
        "--distinct-aps",
        str(k),
        "--max-size",
        str(max_size),
        "--seed",
        "4",
        "-j",
        "1",
        "--out",
        "-",
    )
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    pairs = list(read_dataset(result.stdout))
    assert len(pairs) == 12
    for formula, trace in pairs:
        f = parse_formula(formula)
        assert len(set(f.aps())) == k and 2 * k - 1 <= f.size <= max_size
        assert check(f, parse_trace(trace)).holds
    assert invoke(*args).stdout == result.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ("--aps", "3", "--distinct-aps", "4"),
            "--distinct-aps: error: --distinct-aps must be between 1 and --aps (3), not 4",
        ),
        (
            ("--distinct-aps", "4", "--max-size", "6"),
            "--max-size: error: --max-size must be at least 7 for --distinct-aps 4",
        ),
        (
            ("--distinct-aps", "4", "--min-size", "2"),
            "--min-size: error: --min-size (or leave it out) must be at least 7",
        ),
        (("--distinct-aps", "2", "--ops", "!,G"), "--distinct-aps: error: --distinct-aps 2 needs a binary operator"),
    ],
)
def test_data_ltl_distinct_aps_refused(invoke, tmp_path, args, message) -> None:
    result = invoke("data", "ltl", "--num", "3", *args, "--out", tmp_path / "x.txt")
    assert result.exit_code == 2
    assert result.stderr.startswith(message) and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.txt").exists()


def test_data_ltl_to_standard_output(invoke):
    """--out - streams the dataset on stdout and reports on stderr."""
    from invar.frontends.ltl import check as ltl_check
    from invar.frontends.ltl.formula import parse_formula
    from invar.frontends.ltl.trace import parse_trace

    result = invoke("data", "ltl", "--num", "6", "--max-size", "9", "--seed", "3", "--jobs", "1", "--out", "-")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 12
    for formula, trace in zip(lines[::2], lines[1::2]):
        assert ltl_check.check(parse_formula(formula), parse_trace(trace)).holds
    assert "wrote 6 formulas with traces to standard output" in result.stderr
    again = invoke("data", "ltl", "--num", "6", "--max-size", "9", "--seed", "3", "--jobs", "1", "--out", "-")
    assert again.stdout == result.stdout


@pytest.mark.parametrize(
    "out, meta", [("pairs.txt", "pairs.txt.meta.json"), ("p.jsonl", "p.jsonl.meta.json"), ("-", None)]
)
def test_data_ltl_writes_its_checkpoint_beside_out_as_its_help_says(invoke, tmp_path, monkeypatch, out, meta) -> None:
    shown = " ".join(re.sub("[│╭╮╰╯─]", " ", invoke("data", "ltl", "--help").stdout).split())  # the boxes' lines
    assert "Beside --out the run writes OUT.meta.json" in shown and "its checkpoint is OUT.meta.json" in shown
    monkeypatch.chdir(tmp_path)
    result = invoke("data", "ltl", "--num", "2", "--aps", "2", "--max-size", "4", "--jobs", "1", "--out", out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out, meta] if meta else [])
    if meta:
        assert json.loads((tmp_path / meta).read_text())["next"] == 2
