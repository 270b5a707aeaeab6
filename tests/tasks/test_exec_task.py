"""The exec task (invar/tasks/exec.py): a function and its call, rendered as
CRUXEval renders them; labels and answers compared after the literal
normalisation; answers read or refused; CRUXEval's JSONL layout read, on
rows written here for the test (not taken from the benchmark).
"""

from __future__ import annotations

import csv
import json

import pytest

from invar.audit import audit
from invar.errors import ParseError
from invar.tasks import get_task
from invar.tasks.answers import PROMPTED, prompt, read
from invar.tasks.exec import accuracy, dataset, normal, parse, prediction, render, split

TASK = get_task("exec")

# CRUXEval's layout: the function is f, "input" the call's arguments, "output"
# its result; the outputs are written in varied but equal spellings (1.00,
# double quotes, a set out of order), as hand-written files write them
ROWS = [
    ("def f(nums):\n    return [n * 2 for n in nums if n % 2]\n", "[1, 2, 3]", "[2, 6]"),
    ("def f(s):\n    return s[::-1].upper()\n", "'abc'", '"CBA"'),
    ("def f(a, b):\n    total = a + b\n    half = total / 2\n    return half\n", "1, 1", "1.00"),
    ("def f(text):\n    words = text.split()\n    count = len(words)\n    return count\n", "'a b  c'", "3"),
    (
        "def f(xs):\n    seen = set()\n    for x in xs:\n        seen.add(x % 3)\n    return seen\n",
        "[4, 5, 6]",
        "{2, 0, 1}",
    ),
    (
        "def f(d):\n    keys = sorted(d)\n    vals = [d[k] for k in keys]\n    return (keys, vals)\n",
        "{'b': 1, 'a': 2}",
        "(['a', 'b'], [2, 1])",
    ),
    ("def f(n):\n    acc = 1\n    for i in range(1, n + 1):\n        acc *= i\n    return acc\n", "5", "120"),
    ("def f(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n", "10", "55"),
    ("def f(s, ch):\n    pos = s.find(ch)\n    return pos\n", "'hello', 'z'", "-1"),
    (
        "def f(xs):\n    out = {}\n    for x in xs:\n        out[x] = out.get(x, 0) + 1\n    return out\n",
        "['a', 'b', 'a']",
        "{'a': 2, 'b': 1}",
    ),
    ("def f(x):\n    return x is None\n", "None", "True"),
    ("def f(s):\n    parts = s.split(',')\n    parts.reverse()\n    return ','.join(parts)\n", "'1,2,3'", "'3,2,1'"),
    ("def f(xs, k):\n    shifted = xs[k:] + xs[:k]\n    return shifted\n", "[1, 2, 3, 4], 1", "[2, 3, 4, 1]"),
    ("def f(n):\n    digits = [int(c) for c in str(n)]\n    return sum(digits)\n", "9875", "29"),
    (
        "def f(s):\n    vowels = 'aeiou'\n    kept = [c for c in s if c not in vowels]\n    return ''.join(kept)\n",
        "'education'",
        "'dctn'",
    ),
    ("def f(a, b):\n    q, r = divmod(a, b)\n    return (q, r)\n", "17, 5", "(3, 2)"),
    ("def f(xs):\n    xs = sorted(xs, reverse=True)\n    return xs[:2]\n", "[3, 9, 1, 7]", "[9, 7]"),
    ("def f(text):\n    title = text.title()\n    return title.swapcase()\n", "'ab cd'", "'aB cD'"),
    (
        "def f(n):\n    res = []\n    while n > 0:\n        res.append(n % 2)\n        n //= 2\n    return res\n",
        "6",
        "[0, 1, 1]",
    ),
    (
        "def f(d, key):\n    value = d.pop(key, 'missing')\n    return (value, len(d))\n",
        "{'a': 1}, 'b'",
        "('missing', 1)",
    ),
    ("def f(x):\n    y = x * 0.5\n    return y\n", "3", "1.5"),
    ("def f(xs):\n    pairs = list(zip(xs, xs[1:]))\n    return pairs\n", "[1, 2, 3]", "[(1, 2), (2, 3)]"),
    ("def f(s):\n    n = s.count('a')\n    m = len(s) - n\n    return n > m\n", "'aab'", "True"),
    (
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            continue\n"
        "        total += x\n    return total\n",
        "[-1, 2, -3, 4]",
        "6",
    ),
    ("def f(s):\n    return s.strip('*').center(5, '-')\n", "'*ab*'", "'--ab-'"),
    ("def f(n):\n    return [i * i for i in range(n)][-1]\n", "4", "9"),
    (
        "def f(words):\n    lengths = {w: len(w) for w in words}\n    return lengths\n",
        "['hi', 'you']",
        "{'hi': 2, 'you': 3}",
    ),
    ("def f(a):\n    b = a[:]\n    b.append(0)\n    return (a, b)\n", "[1]", "([1], [1, 0])"),
    ("def f(s):\n    return s.replace('x', '')\n", "'xaxbx'", "'ab'"),
    ("def f(n):\n    flag = n % 2 == 0\n    return 'even' if flag else 'odd'\n", "7", '"odd"'),
]


@pytest.fixture()
def cruxeval(tmp_path):
    path = tmp_path / "cruxeval.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"sample_{k}", "code": code, "input": arguments, "output": output}) + "\n"
            for k, (code, arguments, output) in enumerate(ROWS)
        )
    )
    return path


# --------------------------------------------------------------------- texts
def test_the_model_reads_the_function_then_its_call_and_transforms_keep_the_call():
    text = render("import math\n\ndef f(xs):\n    a = len(xs)\n    b = math.pi\n    return (a, b)\n", "[1]")
    assert text.endswith("    return (a, b)\nassert f([1]) == ??\n")
    program = parse(text)
    assert program.render() == text
    assert (program.name, program.prefix, program.suffix) == ("f", "import math\n\n", "\nassert f([1]) == ??\n")
    renamed = program.with_token_texts({k: "zz" for k, t in enumerate(program.tokens) if t.text == "a"})
    assert renamed.render().endswith("return (zz, b)\nassert f([1]) == ??\n")
    assert program.reordered([0, 2, 1, 3]).render().endswith("assert f([1]) == ??\n")
    assert split(text)[1:] == ("f([1])", "f")


def test_renamings_touch_locals_and_parameters_keep_their_names():
    from invar.symmetry.spaces import renaming_space

    program = parse(
        render("def f(xs, /, k):\n    total = k\n    for x in xs:\n        total += x\n    return total\n", "[1], 2")
    )
    renamable = {r.split(":")[-1] for r in renaming_space(program).referents}
    assert renamable == {"xs", "total", "x"}  # k can be passed by keyword; xs is positional-only


@pytest.mark.parametrize(
    "text, message",
    [
        ("def f(x):\n    return x\n", "no call"),
        ("def f(x):\n    return x\nassert f(1) == ??\nprint(1)\n", "last one"),
        ("def f(x):\n    return x\nassert f(1) + 1 == ??\n", "not a call"),
        ("def f(x):\n    return x\nassert f(1 == ??\n", "not a Python expression"),
        ("def g(x):\n    return x\nassert f(1) == ??\n", "no top-level function 'f'"),
    ],
)
def test_a_text_that_is_no_function_and_call_is_a_parse_error(text, message):
    with pytest.raises(ParseError, match=message):
        parse(text)


# ------------------------------------------------------------------ literals
@pytest.mark.parametrize(
    "a, b, same",
    [
        ("1.0", "1.00", True),
        ("'a'", '"a"', True),
        ("{2, 1}", "{1, 2}", True),
        ("(1,)", "( 1 , )", True),
        ("1", "1.0", False),
        ("True", "1", False),
        ("[1, 2]", "(1, 2)", False),
        ("{'a': 1, 'b': 2}", "{'b': 2, 'a': 1}", False),
        ("-0.0", "0.0", False),
        ("1_000", "1000", True),
        ("0x10", "16", True),
    ],
)
def test_labels_compare_after_the_literal_normalisation(a, b, same):
    assert (normal(a) == normal(b)) is same
    assert (TASK.label(a) == TASK.label(b)) is same


@pytest.mark.parametrize("text", ["f(1)", "inf", "frozenset({1})", "x", "", "[1, 2", "1 + 1j * 2"])
def test_what_is_no_literal_is_no_label(text):
    with pytest.raises(ValueError):
        TASK.label(text)


# ------------------------------------------------------------------- answers
@pytest.mark.parametrize(
    "reply, value",
    [
        ("Answer: [2, 4]", "[2, 4]"),
        ("<think>f doubles</think>\nAnswer: {'b', 'a'}", "{'a', 'b'}"),
        ("It loops.\n```python\nassert f([1, 2]) == [2, 4]\n```", "[2, 4]"),
        ("f(3) == 'x == y'", "'x == y'"),
        ("**Answer:** `'__init__'`", "'__init__'"),
        ("Answer: '*a*'", "'*a*'"),
        ("Answer: **1.50**", "1.5"),
        ("Final answer: [1, 2].", "[1, 2]"),
        ("Output: None", "None"),
        ("The result is\n\\boxed{(1, 'a')}", "(1, 'a')"),
    ],
)
def test_a_reply_is_read_for_its_literal(reply, value):
    assert read(TASK, reply).value == value == TASK.answer(reply)


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("Answer: 6.", "reads as 6.0 or"),
        ("The values:\n- 3", "a list item or"),
        ("Answer: six", "no Python literal"),
        ("Answer: [1, 2", "no Python literal"),
        ("<think>it is 3", "never closed"),
    ],
)
def test_a_reply_that_cannot_be_read_for_sure_is_refused(reply, reason):
    with pytest.raises(ValueError, match=reason):
        read(TASK, reply)


def test_the_shipped_prompt_has_one_placeholder_and_its_example_is_read():
    assert "exec" in PROMPTED
    text = prompt("exec")
    assert text.count("{program}") == 1
    [example] = [line for line in text.splitlines() if line.startswith("Answer:")]
    assert read("exec", example).value == "[2, 4]"


@pytest.mark.parametrize(
    "output, value",
    [
        ([2, 4], "[2, 4]"),
        ("[2, 4]", "[2, 4]"),
        ({"b", "a"}, "{'a', 'b'}"),
        ("'x'", "'x'"),
        ("Answer: 3", "3"),
        ((1,), "(1,)"),
        (None, "None"),
    ],
)
def test_a_callable_may_return_the_value_or_its_text(output, value):
    assert prediction(output) == value


def test_accuracy_compares_literals_and_an_unreadable_answer_is_wrong():
    assert accuracy(["[2, 6]", "\"CBA\"", 1.0, "what?", object()], ["[2, 6]", "'CBA'", "1.00", "1", "1"]) == 60.0


# ----------------------------------------------------------------- datasets
def test_cruxeval_rows_are_read_with_their_labels_normalised(cruxeval):
    examples = dataset(str(cruxeval), "test")
    assert len(examples) == len(ROWS) and all(ex.error is None for ex in examples)
    assert [ex.label for ex in examples[:5]] == ["[2, 6]", "'CBA'", "1.0", "3", "{0, 1, 2}"]
    assert examples[0].source == render(ROWS[0][0], ROWS[0][1])
    assert all(parse(ex.source).name == "f" for ex in examples)


def test_a_bad_row_is_its_own_error_and_a_table_of_other_columns_is_not_exec(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(
        '{"code": "def f():\\n    return 1\\n", "input": "", "output": "1"}\nnot json\n'
        '{"code": "def f():\\n    return 1\\n", "input": "", "output": "f()"}\n'
    )
    good, bad_json, bad_label = dataset(str(path), "test")
    assert good.label == "1" and good.error is None
    assert "not a JSON object" in bad_json.error.message and bad_json.error.line == 2
    assert "bad output" in bad_label.error.message
    other = tmp_path / "other.csv"
    other.write_text("hex,label\n4889c3,1.0\n")
    assert dataset(str(other), "test") is None


def test_a_rendered_source_column_is_read_too(tmp_path):
    path = tmp_path / "rendered.csv"
    text = render("def f(x):\n    return x + 1\n", "1")
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([("source", "label"), (text, "2")])
    [ex] = dataset(str(path), "test")
    assert (ex.source, ex.label) == (text, "2")


def test_an_audit_of_cruxeval_rows_scores_answers_and_the_oracle_agrees_with_every_label(cruxeval):
    answers = {render(code, arguments): output for code, arguments, output in ROWS}
    right = set(list(answers)[::2])

    def model(texts):  # half right, spelled as the dataset spells them; the other half a wrong value
        out = []
        for t in texts:
            original = next((s for s in answers if s.splitlines()[-1] == t.splitlines()[-1]), None)
            out.append(answers[original] if original in right else "'wrong'")
        return out

    report = audit(model, str(cruxeval), task="exec", variants=4, transform="both", oracle=True).report
    assert report["metric"]["original"] == pytest.approx(100.0 * len(right) / len(ROWS))
    assert report["oracle"]["examples"] == len(ROWS)
    assert (report["oracle"]["errors"], report["oracle"]["label_changes"]) == (0, 0)


def test_audit_oracle_labels_equal_the_dataset_labels(cruxeval):
    examples = dataset(str(cruxeval), "test")
    got = TASK.oracle([ex.source for ex in examples])
    assert [value for value, _why in got] == [ex.label for ex in examples]


def test_controls_of_an_exec_audit_run_no_code_without_oracle(tmp_path, monkeypatch):
    """A control's label change is checked by running it only under --oracle:
    without it, the audit runs nothing (the sandbox is never called)."""
    from invar import sandbox
    from invar.audit import audit

    calls = []
    real = sandbox.run
    monkeypatch.setattr(sandbox, "run", lambda *a, **k: calls.append(a) or real(*a, **k))
    data = tmp_path / "t.jsonl"
    data.write_text(
        '{"code": "def f(x):\\n    y = x + 1\\n    z = y * 2\\n    return z\\n", "input": "3", "output": "8"}\n'
    )
    report = audit(lambda texts: ["8"] * len(texts), str(data), task="exec", controls=4).report
    assert report["audited"] == 1 and report["sensitivity"]["unchecked"] == report["sensitivity"]["controls"] > 0
    assert calls == []
    report = audit(lambda texts: ["8"] * len(texts), str(data), task="exec", controls=4, oracle=True).report
    assert calls and report["sensitivity"]["label_changed"] > 0


def test_a_text_defining_its_function_twice_reads_the_last_definition():
    unit = parse("def f(a):\n    return 1\n\n\ndef f(b):\n    return b\nassert f(1) == ??")
    assert {t.text for t in unit.tokens if t.referent is not None} == {"b"}
