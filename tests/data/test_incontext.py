"""The LookUp and Permutation generators: reproducible by seed, every
example's answer recomputed by an independent reading of the prompt text,
symbols drawn only from the pool (uniformly or by frequency), and bad input
refused with a located one-line error."""

from __future__ import annotations

import collections
import io
import json
import re

import pytest

from invar.data import incontext
from invar.errors import DataError, UsageError
from tests.conftest import FIXTURES, ROOT


# ------------------------------------------------------ independent answers
def lookup_answer(prompt: str) -> str:
    """The value of the asked key, read off the text with a regular expression."""
    *entries, query = prompt.split(" ")
    table = {}
    for entry in entries:
        match = re.fullmatch(r"(.)->(.)", entry, re.S)
        assert match, entry
        assert match.group(1) not in table, "keys are distinct"
        table[match.group(1)] = match.group(2)
    assert query.endswith("->") and len(query) == 3
    return table[query[0]]


def permutation_answer(prompt: str) -> str:
    """The last tuple reordered as every demonstration is (checked consistent)."""
    *demos, query = prompt.split("\n")
    order = None
    for demo in demos:
        left, right = demo.split("->")
        assert len(set(left)) == len(left) and sorted(left) == sorted(right)
        this = [left.index(c) for c in right]
        assert order in (None, this), "one permutation throughout"
        order = this
    assert order != sorted(order), "never the identity"
    assert query.endswith("->") and len(set(query[:-2])) == len(query) - 2
    return "".join(query[i] for i in order)


def token_answer(item: incontext.Item) -> tuple[str, ...]:
    tokens = list(item.prompt)
    if item.task == "lookup":
        entries = [tokens[i : i + 4] for i in range(0, len(tokens) - 2, 4)]
        table = {k: v for k, arrow, v, gap in entries if arrow == "->" and gap == ";"}
        return (table[tokens[-2]],)
    lines, line = [], []
    for t in tokens:
        if t == ";":
            lines.append(line)
            line = []
        else:
            line.append(t)
    split = line.index("->")
    query = line[:split]
    demo = lines[0]
    cut = demo.index("->")
    return tuple(query[demo[:cut].index(t)] for t in demo[cut + 1 :])


CASES = [
    ("lookup", {"pairs": 1}),
    ("lookup", {"pairs": 8}),
    ("lookup", {"pairs": 30}),
    ("permutation", {"length": 2, "demos": 1}),
    ("permutation", {"length": 4, "demos": 3}),
    ("permutation", {"length": 9, "demos": 5}),
]


@pytest.mark.parametrize("task, shape", CASES)
@pytest.mark.parametrize("pool", ["alphabet", "corpus", "corpus-frequency"])
def test_every_answer_is_what_the_prompt_says(task, shape, pool):
    source = {
        "alphabet": incontext.alphabet_pool(),
        "corpus": incontext.corpus_pool([FIXTURES / "python"]).uniform(),
        "corpus-frequency": incontext.corpus_pool([FIXTURES / "python"]),
    }[pool]
    items = incontext.generate(task, 300, source, seed=7, **shape)
    answer = lookup_answer if task == "lookup" else permutation_answer
    for item in items:
        data = item.to_json()
        assert answer(data["prompt"]) == data["answer"]
        symbols = set(data["prompt"]) - set("->\n ")
        assert symbols <= set(source.symbols)
    assert len({i.to_json()["prompt"] for i in items}) > 200  # examples differ


@pytest.mark.parametrize("task, shape", CASES)
def test_token_examples_answer_too(task, shape, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(f"tok{i}\t{i + 1}" for i in range(40)) + "\n")
    pool = incontext.symbols_pool(vocab)
    for item in incontext.generate(task, 100, pool, seed=3, **shape):
        assert item.vocab == "tokens" and token_answer(item) == item.answer


@pytest.mark.parametrize("task, shape", CASES)
def test_the_same_seed_writes_the_same_file(task, shape):
    def text(seed):
        buffer = io.StringIO()
        incontext.write(incontext.generate(task, 50, incontext.alphabet_pool(), seed=seed, **shape), buffer)
        return buffer.getvalue()

    assert text(1) == text(1) and text(1) != text(2)


def test_by_frequency_follows_the_counts():
    pool = incontext.Pool(("a", "b", "c", "d"), (70.0, 20.0, 9.0, 1.0))
    items = incontext.generate("lookup", 4000, pool, seed=0, pairs=1)
    values = collections.Counter(i.answer[0] for i in items)
    assert values["a"] > values["b"] > values["c"] > values["d"]
    assert abs(values["a"] / 4000 - 0.7) < 0.03
    uniform = collections.Counter(
        i.answer[0] for i in incontext.generate("lookup", 4000, pool.uniform(), seed=0, pairs=1)
    )
    assert all(abs(n / 4000 - 0.25) < 0.03 for n in uniform.values())


def test_round_trip_and_accuracy(tmp_path):
    items = incontext.generate("permutation", 20, incontext.alphabet_pool(), seed=0)
    path = tmp_path / "p.jsonl"
    with path.open("w") as f:
        incontext.write(items, f)
    assert incontext.read(path) == items
    right = [i.answer for i in items]
    assert incontext.accuracy(items, right) == 1.0
    half = [a[:2] for a in right]  # two of four tokens written, both right
    assert incontext.accuracy(items, half) == 0.5
    shifted = [a[1:] + a[:1] for a in right]
    assert incontext.accuracy(items, shifted) < 1.0


def _dead_link(path):
    """The directory of ``path``, holding a link to nothing besides it: a corpus whose one bad file is named."""
    (path.parent / "gone.py").symlink_to(path.parent / "nowhere")
    return path.parent


def _bytes(path, data: bytes):
    """``path`` with ``data`` written to it."""
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda p: incontext.alphabet_pool("ab c"), UsageError, "markup"),
        (lambda p: incontext.alphabet_pool("a"), UsageError, "at least 2"),
        (lambda p: incontext.generate("lookup", 1, incontext.alphabet_pool("abc"), pairs=4), UsageError, "--pairs 4"),
        (
            lambda p: incontext.generate("permutation", 1, incontext.alphabet_pool("abc"), length=4),
            UsageError,
            "--length",
        ),
        (lambda p: incontext.generate("sort", 1, incontext.alphabet_pool()), UsageError, "unknown task"),
        (lambda p: incontext.symbols_pool(p("a\t1\nb\tmany\n")), DataError, "not a number"),
        (lambda p: incontext.symbols_pool(p("a\n->\n")), DataError, "cannot be a symbol"),
        (
            lambda p: incontext.symbols_pool(p("a\nb\na\n")),
            DataError,
            r"f.txt:3: .*'a' is listed twice \(first on line 1\)",
        ),
        (lambda p: incontext.symbols_pool(p("a\t1e400\nb\t1\n")), DataError, "f.txt:1: .*finite positive"),
        (lambda p: incontext.symbols_pool(p("a\t1\nb\tnan\n")), DataError, "f.txt:2: .*finite positive"),
        (lambda p: incontext.symbols_pool(p("a\t1\nb\t-inf\n")), DataError, "finite positive"),
        (
            lambda p: incontext.symbols_pool(_bytes(p(""), b"a\nb\xbd\n")),
            DataError,
            r"f.txt:2:2: .*not UTF-8 \(byte 0xbd\)",
        ),
        (lambda p: incontext.corpus_pool([_bytes(p(""), b"ab\xbdc")]), DataError, r"f.txt:1:3: .*not UTF-8"),
        (lambda p: incontext.corpus_pool([_dead_link(p(""))]), DataError, r"gone.py: error: cannot read"),
        (lambda p: incontext.read(p('{"task": "lookup", "prompt": "a->"}\n')), DataError, "not an in-context"),
        (lambda p: incontext.corpus_pool([p("").parent / "missing"]), DataError, "no such file"),
    ],
)
def test_bad_input_is_a_located_error(make, error, message, tmp_path):
    def write(text):
        path = tmp_path / "f.txt"
        path.write_text(text)
        return path

    with pytest.raises(error, match=message) as caught:
        make(write)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "args, code",
    [
        (["lookup", "--num", "5", "--pairs", "3", "--seed", "2"], 0),
        (["permutation", "--num", "5", "--corpus", str(FIXTURES / "python"), "--by-frequency"], 0),
        (["lookup", "--by-frequency"], 2),
        (["permutation", "--alphabet", "ab", "--corpus", "x"], 2),
        (["lookup", "--alphabet", ""], 2),  # an empty alphabet is no alphabet, not the default one
        (["lookup", "--symbols", ""], 2),
    ],
)
def test_the_commands(args, code, tmp_path, invoke, monkeypatch):
    out = tmp_path / "x.jsonl"
    monkeypatch.chdir(ROOT)
    result = invoke("data", *args, "--out", out, "--format", "json")
    assert result.exit_code == code, result.stderr
    if code == 0:
        assert json.loads(result.stdout)["examples"] == 5 and len(incontext.read(out)) == 5
    else:
        assert len(result.stderr.strip().splitlines()) == 1
