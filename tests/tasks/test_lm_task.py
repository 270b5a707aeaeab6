"""The lm task's data: windows of characters and of frontend tokens, the
split by file, the stored form read back, located errors for bad rows, and
the loss-by-position curve against the paper's formula computed by hand."""

from __future__ import annotations

import csv
import json
import math
import random
import shutil

import numpy as np
import pytest

from invar.errors import DataError, InvarError, UsageError
from invar.frontends import parse_units
from invar.tasks import get_task, lm
from invar.tasks.names import split_of
from tests.conftest import FIXTURES


@pytest.fixture(scope="module", params=["char", "tokens"])
def corpus(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"lm-{request.param}")
    for d in ("a", "b", "c"):  # the fixtures three times, so every split gets some
        (root / "src" / d).mkdir(parents=True)
        for path in sorted((FIXTURES / "python").glob("*.py")) + sorted((FIXTURES / "java").glob("*.java")):
            shutil.copy(path, root / "src" / d / path.name)
    meta = lm.build(root / "src", root / request.param, vocab=request.param, seq_len=50)
    return root, request.param, meta


def _rows(data, split):
    with open(data / f"{split}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_windows_rebuild_every_file_split_by_file(corpus):
    root, vocab, meta = corpus
    data = root / vocab
    assert (meta["task"], meta["vocab"], meta["seq_len"], meta["unreadable_files"]) == ("lm", vocab, 50, 0)
    by_file: dict[str, list] = {}
    for split in ("train", "valid", "test"):
        rows = _rows(data, split)
        assert len(rows) == meta[split] > 0
        for row in rows:
            assert split_of(row["path"]) == split
            by_file.setdefault(row["path"], []).append((int(row["window"]), lm.parse(row["source"])))
    files = sorted(p.relative_to(root / "src").as_posix() for p in (root / "src").rglob("*") if p.is_file())
    assert sorted(by_file) == files
    for rel, windows in by_file.items():
        windows.sort(key=lambda w: w[0])
        text = (root / "src" / rel).read_text(encoding="utf-8")
        programs = [p for _, p in windows]
        assert all(len(p.tokens) <= 50 for p in programs) and all(len(p.tokens) == 50 for p in programs[:-1])
        if vocab == "char":
            assert "".join(p.render() for p in programs) == text
            assert all(t.referent == t.text and t.view == "char" for p in programs for t in p.tokens)
        else:
            lang = "python" if rel.endswith(".py") else "java"
            expected = [(t.text, t.view, t.referent) for u in lm.top_units(parse_units(text, lang)) for t in u.tokens]
            got = [(t.text, t.view, t.referent) for p in programs for t in p.tokens]
            assert got == expected[: len(got)] and len(expected) - len(got) <= meta["single_token_windows"]


def test_nested_units_are_left_out_of_the_token_stream():
    text = "def f(a):\n    def g(b):\n        return b\n    return g(a)\n\n\ndef h(c):\n    return c\n"
    units = parse_units(text, "python")
    assert [u.name for u in units] == ["f", "f.<locals>.g", "h"]
    assert [u.name for u in lm.top_units(units)] == ["f", "h"]
    stream = [t.text for w in lm.token_windows(units, 7) for t in w.tokens]
    assert stream == [t.text for u in (units[0], units[2]) for t in u.tokens]


@pytest.mark.parametrize("text", ["", "a", "ab", "x" * 49, "x" * 50, "x" * 51, "é\n\t" * 40])
def test_char_windows_cover_the_text(text):
    windows = lm.char_windows(text, 50)
    assert "".join(w.render() for w in windows) == text
    assert [w.lines[0].source_line for w in windows] == [1 + text[: 50 * k].count("\n") for k in range(len(windows))]
    for w in windows:
        assert lm.parse(lm.stored(w)).tokens == w.tokens


def test_stored_token_windows_read_back():
    units = parse_units((FIXTURES / "java" / "Shapes.java").read_text(), "java")
    for w in lm.token_windows(units, 33):
        again = lm.parse(lm.stored(w))
        assert (again.lang, again.tokens, again.pinned) == (w.lang, w.tokens, w.pinned)
        assert [li.text for li in again.lines] == [li.text for li in w.lines]


@pytest.mark.parametrize(
    "source, message",
    [
        ("{not json", "not a stored window (JSON"),
        ('""', "an empty window"),
        ('{"lang": "python"}', "not a stored window (KeyError"),
        (
            '{"lang": "python", "lines": ["x = 1"], "first_lines": [1], '
            '"tokens": [["y", "name", "local", null, 0, 0]]}',
            "token 0 ('y') is not where the window says",
        ),
        (
            '{"lang": "python", "lines": ["x"], "first_lines": [1], "tokens": [["x", "name", "local", null, 3, 0]]}',
            "token 0 ('x') is not where the window says",
        ),
        ('{"lang": "python", "lines": [], "first_lines": [], "tokens": []}', "an empty window"),
        ("[1, 2]", "not a stored window"),
    ],
)
def test_bad_stored_windows_are_data_errors(source, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        lm.parse(source)


def test_a_bad_row_is_located_in_its_split(tmp_path):
    lm.build(FIXTURES / "python", tmp_path / "d", seq_len=40)
    path = tmp_path / "d" / "valid.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(lines[0] + '"{broken",x.py,0,1\n' + "".join(lines[1:]), encoding="utf-8")
    examples = lm.split_examples(tmp_path / "d", "valid")
    assert examples[0].error is None and examples[0].line == 2
    from invar.train import train

    with pytest.raises(InvarError) as err:
        train(task="lm", data=tmp_path / "d", arch="vanilla", epochs=1, out=tmp_path / "m.pt", threads=1)
    assert (err.value.path, err.value.line) == (str(path), 2)
    assert "not a stored window" in err.value.message


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"vocab": "bytes"}, UsageError, "--vocab bytes: choose from char, tokens"),
        ({"seq_len": 1}, UsageError, "a window needs at least 2 tokens"),
    ],
)
def test_build_refuses_bad_settings(tmp_path, kwargs, error, message):
    with pytest.raises(error, match=message):
        lm.build(FIXTURES / "python", tmp_path / "d", **kwargs)


def test_build_refuses_a_missing_source_and_counts_unreadable_files(tmp_path):
    with pytest.raises(DataError, match="no such source directory"):
        lm.build(tmp_path / "nowhere", tmp_path / "d")
    (tmp_path / "src").mkdir()
    for k in range(12):
        (tmp_path / "src" / f"ok{k}.py").write_text(f"def f{k}(x):\n    return x + {k}\n")
    (tmp_path / "src" / "bad.py").write_text("def (:\n")
    (tmp_path / "src" / "latin.py").write_bytes(b"x = '\xe9'\n")
    assert lm.build(tmp_path / "src", tmp_path / "c", vocab="char")["unreadable_files"] == 1  # not UTF-8
    assert lm.build(tmp_path / "src", tmp_path / "t", vocab="tokens")["unreadable_files"] == 2
    (tmp_path / "src" / "gone.py").symlink_to(tmp_path / "nowhere.py")  # a link to nothing is counted, not dropped
    assert lm.build(tmp_path / "src", tmp_path / "l", vocab="char")["unreadable_files"] == 2


def _paper_curve(losses, k):
    """P(x_{i+1} … x_{i+k} | x_1 … x_i)^(1/k) per sequence, as perplexity,
    averaged in log space over the sequences long enough (by hand, loops)."""
    out = []
    for i in range(max(len(x) for x in losses) - k + 1):
        logs = []
        for x in losses:
            if len(x) >= i + k:
                log_p = -sum(x[i + j] for j in range(k))  # log of the product of the k conditionals
                logs.append(-log_p / k)
        out.append((i + 1, sum(logs) / len(logs), len(logs)))
    return out


def test_curve_is_the_papers_moving_average():
    rng = random.Random(0)
    losses = [np.asarray([rng.uniform(0, 5) for _ in range(n)]) for n in (30, 30, 22, 9, 30, 17)]
    got = lm.curve(losses, 10)
    expected = _paper_curve(losses, 10)
    assert got["context"] == [c for c, _, _ in expected]
    assert got["loss"] == pytest.approx([v for _, v, _ in expected])
    assert got["perplexity"] == pytest.approx([math.exp(v) for _, v, _ in expected])
    assert got["sequences_at"] == [n for _, _, n in expected]
    assert got["raw_loss"][25] == pytest.approx(np.mean([x[25] for x in losses if len(x) > 25]))
    assert lm.curve(losses, 1)["loss"] == pytest.approx(got["raw_loss"])
    with pytest.raises(UsageError, match="no sequence has 31 predicted positions"):
        lm.curve(losses, 31)


def test_the_task_is_registered():
    task = get_task("lm")
    assert (task.head, task.metric_name, task.lower_is_better) == ("lm", "perplexity", True)
    assert task.metric([1.0, 3.0]) == pytest.approx(math.exp(2.0))
    assert json.loads(lm.stored(lm.char_program('a"\n'))) == 'a"\n'
