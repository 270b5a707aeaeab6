"""A hex file or BHive CSV is a batch: good lines around bad ones all get
their answer, each bad line is reported with its file, line and column, and
the command exits 1. Only a file with no good line fails as a whole."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import messages

from tests.conftest import BHIVE

GOOD = {1: "4883c2014883fa40", 4: "4889d8", 7: "4801c3", 10: "4889d84883c2014889c1"}
#: line -> (content, column, message, reason in the summary)
BAD = {
    2: (",0.3", 1, "empty hex field", "empty hex field"),
    3: ("4883c201zz,1.0", 9, "'z' is not a hex digit", "not hex"),
    5: ("4883c", 5, "an odd number of hex digits (5)", "odd number of hex digits"),
    6: ("  0f,2", 3, "cannot decode the bytes at offset 0", "undecodable bytes"),
    8: ("4889d8cf", 7, "capstone produced 'iretl'", "instruction rejected"),
    9: ("8d24e7", 1, "unknown register '%riz'", "instruction rejected"),
}


@pytest.fixture
def batch(tmp_path):
    rows = {n: f"{h},0.5" if n % 2 else h for n, h in GOOD.items()}
    rows.update({n: content for n, (content, *_rest) in BAD.items()})
    path = tmp_path / "blocks.hex"
    path.write_text("\n".join(rows[n] for n in sorted(rows)) + "\n\n# a comment\n")
    return path


def _check_errors(stderr: str, path) -> None:
    assert stderr.splitlines()[:3] == [f"{path}:2:1: error: empty hex field", "  ,0.3", "  ^"]  # as a compiler shows it
    lines = messages(stderr)
    assert len(lines) == len(BAD) + 1
    for line, (n, (_content, col, message, _reason)) in zip(lines, sorted(BAD.items())):
        assert line.startswith(f"{path}:{n}:{col}: error: ") and message in line, line
    assert lines[-1] == (
        f"{path}: 6 skipped: 1 empty hex field, 1 not hex, 1 odd number of hex digits, "
        "1 undecodable bytes, 2 instructions rejected"
    )


def test_renamings_count(invoke, batch):
    result = invoke("renamings", batch, "--count")
    assert result.exit_code == 1
    counts = dict(line.split(": ") for line in result.stdout.splitlines())
    assert list(counts) == [f"line{n}" for n in sorted(GOOD)]
    assert counts["line4"] == "240" and counts["line1"] == "16"
    _check_errors(result.stderr, batch)


def _check_error_records(records: list[dict], path) -> None:
    """A JSON output's records of the bad lines: each where stderr reported it, with its message."""
    assert [r["location"] for r in records] == [f"{path}:{n}:{col}" for n, (_c, col, *_r) in sorted(BAD.items())]
    assert all(message in r["error"] for r, (_c, _col, message, _r) in zip(records, [BAD[n] for n in sorted(BAD)]))


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_permutations_count(invoke, batch, fmt):
    result = invoke("permutations", batch, "--count", "--format", fmt)
    assert result.exit_code == 1
    records = [json.loads(line) for line in result.stdout.splitlines()] if fmt == "jsonl" else json.loads(result.stdout)
    units = [r for r in records if "unit" in r]
    assert [r["unit"] for r in units] == [f"line{n}" for n in sorted(GOOD)]
    assert all(r["exact"] and r["count"] >= 1 for r in units)
    _check_error_records([r for r in records if "error" in r], batch)
    assert len(records) == len(GOOD) + len(BAD)  # a record for every line, good or bad
    _check_errors(result.stderr, batch)


def test_parse(invoke, batch):
    result = invoke("parse", batch, "--format", "json")
    assert result.exit_code == 1
    units = json.loads(result.stdout)["units"]
    _check_error_records(json.loads(result.stdout)["errors"], batch)
    assert [u["name"] for u in units] == [f"line{n}" for n in sorted(GOOD)]
    assert units[2]["lines"][0]["text"] == "addq %rax, %rbx"
    _check_errors(result.stderr, batch)


def test_dlg_and_canon(invoke, batch):
    for command in ("dlg", "canon"):
        result = invoke(command, batch)
        assert result.exit_code == 1 and result.stdout.strip()
        _check_errors(result.stderr, batch)


def test_a_file_with_no_good_line_fails(invoke, tmp_path):
    path = tmp_path / "bad.hex"
    path.write_text("hex,frequency\n,1\nzz,2\n")  # a header row, then nothing but bad lines
    result = invoke("renamings", path, "--count")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{path}:2:1: error: empty hex field (and 1 more bad lines; no line is a block)",
        "  ,1",
        "  ^",
    ]


def test_a_published_bhive_csv(invoke):
    """gzip-compress.csv as published has an empty hex field on line 1881:
    every other row is answered."""
    path = BHIVE / "gzip-compress.csv"
    rows = path.read_text().splitlines() if path.exists() else []
    assert len(rows) > 1800, f"BHive data not found at ../shared/data/bhive (looked for {path.name})"
    bad = [n for n, row in enumerate(rows, 1) if not row.split(",", 1)[0].strip()]
    assert bad == [1881]
    result = invoke("renamings", path, "--lang", "hex", "--count")
    assert result.exit_code == 1
    answered = [line.split(":")[0] for line in result.stdout.splitlines()]
    assert answered == [f"line{n}" for n in range(1, len(rows) + 1) if n not in bad]
    assert messages(result.stderr) == [
        f"{path}:1881:1: error: empty hex field",
        f"{path}: 1 skipped: 1 empty hex field",
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ["renamings", "--count", "--format", "json"],
        ["renamings", "--count", "--format", "jsonl"],
        ["renamings", "--limit", "1", "--format", "json"],
        ["canon", "--format", "json"],
        ["canon", "--format", "jsonl"],
        ["dlg", "--format", "json"],
        ["permutations", "--limit", "1", "--format", "json"],
    ],
)
def test_json_outputs_hold_a_record_for_every_line_good_or_bad(invoke, batch, argv):
    """One JSON document (or a record a line) in which a bad line is its location and error, as
    stderr reports it: a pipeline reading only stdout loses no unit."""
    result = invoke(argv[0], batch, *argv[1:])
    assert result.exit_code == 1
    text = result.stdout
    records = json.loads(text) if "json" in argv else [json.loads(line) for line in text.splitlines()]
    _check_error_records([r for r in records if "error" in r], batch)
    assert [r["unit"] for r in records if "unit" in r] == [f"line{n}" for n in sorted(GOOD)]


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_predict_json_names_every_line_it_could_not_predict(invoke, batch, fmt):
    from tests.conftest import FIXTURES

    result = invoke("predict", "--model", FIXTURES / "models" / "renamer.pt", batch, "--format", fmt)
    assert result.exit_code == 1
    if fmt == "json":
        data = json.loads(result.stdout)
        predictions, errors = data["predictions"], data["errors"]
        assert data["refused"] == len(BAD)
    else:
        records = [json.loads(line) for line in result.stdout.splitlines()]
        predictions, errors = [r for r in records if "prediction" in r], [r for r in records if "error" in r]
    _check_error_records(errors, batch)
    assert [int(r["location"].rsplit(":", 1)[1]) for r in predictions] == sorted(GOOD)


@pytest.mark.parametrize(
    "row, counted, error",
    [
        ('"4889d8",0.5', "240", None),  # BHive's CSV as a spreadsheet writes it
        (' "4889d8" ,0.5', "240", None),
        ('"4889d8"', "240", None),
        (
            '"4889d8,0.5',
            None,
            "2:1: error: not a hex string: '\"' is not a hex digit",
        ),  # a quote left open: refused where it stands
        ('"48"89d8,0.5', None, "2:1: error: not a hex string: '\"' is not a hex digit"),
        ('""', None, "2:2: error: empty hex field"),
    ],
)
def test_a_quoted_hex_field_is_read_as_csv_reads_it(invoke, tmp_path, row, counted, error):
    path = tmp_path / "q.hex"
    path.write_text(f'"hex","throughput"\n{row}\n')  # the header row quoted too: skipped
    result = invoke("renamings", path, "--lang", "hex", "--count")
    if counted is not None:
        assert (result.exit_code, result.stdout.strip()) == (0, counted), result.output
    else:
        assert result.stderr.splitlines()[0] == f"{path}:{error}", result.output
