"""A Java file is a batch of methods: good methods around bad ones all get
their answer, each bad one is reported with its file, line and column, a
summary says how many were skipped and why, and the command exits 1. Methods
of enums, enum constants, records and interfaces are units like any other."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import messages

SOURCE = """\
import java.util.List;

class Batch {
    int s;

    int first(int a, int b) {
        var x = a + 1;
        int y = b * 2;
        return x + y;
    }

    int broken(int a) {
        int y = a +;
        return y;
    }

    int second(Object o, int a) {
        int k = switch (a) {
            case 1 -> 2;
            default -> 3;
        };
        int m = a - 1;
        return k + m;
    }

    int ambiguous(Object o) {
        if (o instanceof String s) {
            return s.length();
        }
        return s;
    }

    record Pair(int left, int right) {
        Pair {
            int sum = left + right;
            int diff = left - right;
        }
    }

    enum Mode {
        ON;

        int flip(int v) {
            int w = -v;
            int z = v + 1;
            return w + z;
        }
    }
}
"""
GOOD = ["Batch.first", "Batch.second", "Batch.Pair.Pair", "Batch.Mode.flip"]
#: line, column and message of each bad method's error
BAD = [(13, 20, "Expected expression"), (30, 16, "cannot tell whether 's' means the pattern variable of line 27")]


@pytest.fixture
def batch(tmp_path):
    path = tmp_path / "Batch.java"
    path.write_text(SOURCE)
    return path


def _check_errors(stderr: str, path) -> None:
    lines = messages(stderr)
    assert len(lines) == len(BAD) + 1, stderr
    for line, (n, col, message) in zip(lines, BAD):
        assert line.startswith(f"{path}:{n}:{col}: error: ") and message in line, line
    assert lines[-1] == f"{path}: 2 skipped: 1 syntax error, 1 unsupported construct"


def test_renamings_count(invoke, batch):
    result = invoke("renamings", batch, "--count")
    assert result.exit_code == 1
    counts = dict(line.split(": ") for line in result.stdout.splitlines())
    assert counts == {"Batch.first": "4", "Batch.second": "4", "Batch.Pair.Pair": "2", "Batch.Mode.flip": "2"}
    _check_errors(result.stderr, batch)


def test_permutations_count(invoke, batch):
    result = invoke("permutations", batch, "--count", "--format", "jsonl")
    assert result.exit_code == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    units = [r for r in records if "unit" in r]
    assert [r["unit"] for r in units] == GOOD
    assert [r["count"] for r in units] == [2, 2, 2, 2]
    errors = [f"{r['location']}: error: {r['error']}" for r in records if "error" in r]  # each failed unit too
    assert errors and all(line in result.stderr.splitlines() for line in errors)
    _check_errors(result.stderr, batch)


@pytest.mark.parametrize("command", [["dlg"], ["canon"], ["parse"]])
def test_every_good_method_is_processed(invoke, batch, command):
    result = invoke(command[0], batch, *command[1:])
    assert result.exit_code == 1
    out = result.stdout
    if command[0] == "canon":
        assert out.count("int v0") >= 3 and "Pair {" in out and "int flip(int v0)" in out
    else:
        assert all(name in out for name in GOOD)
    _check_errors(result.stderr, batch)


def test_enums_and_do_bodies_are_read_whole(invoke, tmp_path):
    path = tmp_path / "E.java"
    path.write_text(
        "enum E {\n    A {\n        int w(int a) {\n            return a;\n        }\n    };\n\n"
        "    int count(int a) {\n        int n = 0;\n        do {\n            int step = a % 3;\n"
        "            n += step;\n            a /= 3;\n        } while (a > 0);\n        return n;\n    }\n}\n"
    )
    result = invoke("renamings", path, "--count")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["E.A.w: 1", "E.count: 2"]  # n and step swap
