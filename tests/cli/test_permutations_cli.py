"""``invar permutations`` and ``invar dlg`` driven through the CLI.

Most cases read a tiny assignment language registered for the test (``.toy``:
``unit NAME`` starts a unit, every other line is ``target = expr`` or
``return expr``; dependencies are read/write conflicts on names), so the
commands are checked apart from any real frontend; x86 hex checks the path
through a real one.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from invar import frontends
from invar.program import Line, Program, Token

EARNINGS = """unit earnings
income = rent + salary
bonus = lottery
income = income * 12
income = income + bonus
return income
unit Shapes.xyz
x = 1
y = x
z = 2
"""


def _unit(name: str, rows: list[tuple[int, str]]) -> Program:
    lines, tokens, deps = [], [], []
    for i, (lineno, text) in enumerate(rows):
        target, _, expr = text.partition(" = ") if " = " in text else ("", "", text.removeprefix("return "))
        reads = frozenset(w for w in expr.split() if w.isidentifier())
        writes = frozenset([target]) if target else frozenset()
        for j, prev in enumerate(lines):
            if not target or prev.writes & (reads | writes) or writes & prev.reads:
                deps.append((j, i))
        lines.append(Line(text, reads=reads, writes=writes, source_line=lineno))
        for m in re.finditer(r"[A-Za-z_]\w*|\S+", text):
            word = m.group()
            tokens.append(
                Token(word, "name", "local", word if word.isidentifier() and word != "return" else None, i, m.start())
            )
    return Program("toy", tuple(lines), tuple(tokens), deps=tuple(sorted(set(deps))), name=name)


def parse_units(text: str, path: str | None = None) -> list[Program]:
    """The ``.toy`` frontend (``return`` depends on every earlier line)."""
    units, name, rows = [], None, []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if raw.startswith("unit "):
            if name is not None:
                units.append(_unit(name, rows))
            name, rows = raw.split()[1], []
        elif raw.strip():
            rows.append((lineno, raw.strip()))
    if name is not None:
        units.append(_unit(name, rows))
    return units


@pytest.fixture
def toy(tmp_path, monkeypatch):
    monkeypatch.setitem(frontends.FRONTENDS, "toy", __name__)
    monkeypatch.setitem(frontends.EXTENSIONS, ".toy", "toy")
    path = tmp_path / "earnings.toy"
    path.write_text(EARNINGS)
    return str(path)


def _fence(tmp_path) -> Path:
    """A fence (b_i after a_i and a_{i+1}) written as ``wide.toy``: neither
    series nor parallel, so its down-set table is needed, and it has more than
    100 down-sets."""
    wide = tmp_path / "wide.toy"
    wide.write_text(
        "unit wide\n"
        + "".join(f"a{i} = {i}\n" for i in range(7))
        + "".join(f"b{i} = a{i} + a{i + 1}\n" for i in range(6))
    )
    return wide


def jsonl(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_count_per_unit(toy, invoke):
    result = invoke("permutations", toy, "--count", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    records = {r["unit"]: r for r in jsonl(result.stdout)}
    assert records["earnings"]["count"] == 3 and records["earnings"]["exact"]
    assert records["Shapes.xyz"]["count"] == 3
    text = invoke("permutations", toy, "--count")
    assert text.exit_code == 0 and "earnings" in text.stdout and "Shapes.xyz" in text.stdout


def test_enumeration_prints_source_in_documented_order_and_never_the_bad_swap(toy, invoke):
    result = invoke("permutations", toy, "--function", "earnings", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    records = jsonl(result.stdout)
    assert [r["order"] for r in records] == [[0, 1, 2, 3, 4], [0, 2, 1, 3, 4], [1, 0, 2, 3, 4]]
    assert [r["index"] for r in records] == [0, 1, 2]
    assert records[2]["text"].splitlines()[0] == "bonus = lottery"
    assert all("income = income + bonus\nincome = income * 12" not in r["text"] for r in records)
    text = invoke("permutations", toy, "--function", "earnings", "--limit", "2")
    assert text.exit_code == 0
    assert text.stdout.count("# earnings: order") == 2
    assert (
        "# earnings: order 1: 0 2 1 3 4\nincome = rent + salary\nincome = income * 12\nbonus = lottery\n" in text.stdout
    )


def test_function_selects_by_last_part_of_a_qualified_name(toy, invoke):
    result = invoke("permutations", toy, "--function", "xyz", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    orders = [r["order"] for r in jsonl(result.stdout)]
    assert {r["unit"] for r in jsonl(result.stdout)} == {"Shapes.xyz"}
    assert [2, 1, 0] not in orders and len(orders) == 3
    missing = invoke("permutations", toy, "--function", "nope")
    assert missing.exit_code == 2
    assert "no function 'nope'" in missing.output and "earnings" in missing.output


def test_sample_is_seeded_and_valid(toy, invoke):
    args = ("permutations", toy, "--sample", "50", "--seed", "4", "--format", "jsonl")
    first, second = invoke(*args), invoke(*args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    records = jsonl(first.stdout)
    assert len(records) == 100
    valid = {(0, 1, 2, 3, 4), (0, 2, 1, 3, 4), (1, 0, 2, 3, 4), (0, 1, 2), (0, 2, 1), (2, 0, 1)}
    assert {tuple(r["order"]) for r in records} == valid


def test_too_wide_reports_bounds_not_a_number(toy, tmp_path, invoke):
    wide = _fence(tmp_path)
    result = invoke("permutations", str(wide), "--count", "--max-states", "100", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    (record,) = jsonl(result.stdout)
    assert record["count"] is None and not record["exact"]
    exact = jsonl(invoke("permutations", str(wide), "--count", "--format", "jsonl").stdout)[0]
    assert exact["exact"] and record["lower"] <= exact["count"] <= record["upper"]
    text = invoke("permutations", str(wide), "--count", "--max-states", "100")
    assert "too wide" in text.stdout
    sampled = invoke("permutations", str(wide), "--sample", "2", "--max-states", "100", "--format", "jsonl")
    assert sampled.exit_code == 0 and len(jsonl(sampled.stdout)) == 2
    assert "Bubley-Dyer" in sampled.stderr


def test_usage_errors(toy, invoke):
    both = invoke("permutations", toy, "--count", "--sample", "3")
    assert both.exit_code == 2 and "exclusive" in both.output
    assert invoke("dlg", toy, "--format", "dot", "--mask").exit_code == 2


def test_dlg_json_text_and_dot(toy, invoke):
    result = invoke("dlg", toy, "--function", "xyz", "--format", "json", "--mask")
    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout)
    assert record["layers"] == [[0, 2], [1]]
    assert record["edges"] == [[0, 1]]
    assert record["mask"] == [[1, 1, 1], [0, 1, 0], [1, 0, 1]]
    text = invoke("dlg", toy, "--function", "earnings", "--mask")
    assert text.exit_code == 0 and "symmetry mask" in text.stdout and "bonus = lottery" in text.stdout
    dot = invoke("dlg", toy, "--format", "dot")
    assert dot.exit_code == 0
    assert dot.stdout.count("digraph") == 2 and "n0 -> n1;" in dot.stdout


def test_x86_hex_counts_match_brute_force(tmp_path, invoke):
    blocks = ["5331f64889fb4883c010488907", "4883c4285b5d415c415d"]
    path = tmp_path / "blocks.hex"
    path.write_text("\n".join(blocks) + "\n")
    result = invoke("permutations", str(path), "--count", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    units = frontends.parse_units(path.read_text(), "hex")
    for unit, record in zip(units, jsonl(result.stdout)):
        n = len(unit.lines)
        brute = sum(all(o.index(i) < o.index(j) for i, j in unit.deps) for o in itertools.permutations(range(n)))
        assert record["count"] == brute
    listed = invoke("permutations", str(path), "--function", "line1", "--limit", "1")
    assert listed.stdout.splitlines()[1] == "pushq %rbx"


PYTHON = '''def earnings(rent, salary, lottery):
    income = rent + salary
    bonus = lottery
    income = income * 12
    income = income + bonus
    return income


class Shapes:
    def xyz(self):
        x = 1
        y = x
        z = 2
        return y + z
'''


@pytest.fixture
def python_file(tmp_path):
    path = tmp_path / "earnings.py"
    path.write_text(PYTHON)
    return str(path)


def test_python_counts_and_orders(python_file, invoke):
    result = invoke("permutations", python_file, "--count", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    assert {r["unit"]: r["count"] for r in jsonl(result.stdout)} == {"earnings": 3, "Shapes.xyz": 3}
    listed = invoke("permutations", python_file, "--format", "jsonl")
    texts = {r["unit"]: [] for r in jsonl(listed.stdout)}
    for r in jsonl(listed.stdout):
        texts[r["unit"]].append(r["text"])
    assert len(texts["earnings"]) == 3 and len(texts["Shapes.xyz"]) == 3
    swapped = "    income = income + bonus\n    income = income * 12"
    assert all(swapped not in t for t in texts["earnings"])
    assert all(t.index("x = 1") < t.index("y = x") for t in texts["Shapes.xyz"])
    # statements keep their original text: every variant has the same lines
    for variants in texts.values():
        assert all(sorted(v.splitlines()) == sorted(variants[0].splitlines()) for v in variants)


def test_python_sample_and_dlg(python_file, invoke):
    sampled = invoke("permutations", python_file, "--function", "earnings", "--sample", "30", "--seed", "1")
    assert sampled.exit_code == 0, sampled.output
    assert sampled.stdout.count("# earnings: order") == 30
    assert "income = income + bonus\n    income = income * 12" not in sampled.stdout
    graph = invoke("dlg", python_file, "--function", "Shapes.xyz", "--format", "json")
    (record,) = json.loads(graph.stdout)
    layer_of = {i: h for h, layer in enumerate(record["layers"]) for i in layer}
    x, y, z = (record["lines"].index(f"        {s}") for s in ("x = 1", "y = x", "z = 2"))
    assert layer_of[x] == layer_of[z] and layer_of[y] == layer_of[x] + 1


def test_chain_steps_trade_the_certificate_for_speed(toy, tmp_path, invoke):
    wide = _fence(tmp_path)
    args = ("permutations", str(wide), "--sample", "3", "--max-states", "100", "--format", "jsonl", "--seed", "2")
    certified = invoke(*args)
    assert certified.exit_code == 0 and "steps per draw" in certified.stderr and "not certified" not in certified.stderr
    quick = invoke(*args, "--chain-steps", "50")
    assert quick.exit_code == 0 and "not certified" in quick.stderr
    orders = [tuple(r["order"]) for r in jsonl(quick.stdout)]
    assert len(orders) == 3 and quick.stdout != certified.stdout
    deps = parse_units(wide.read_text())[0].deps
    for order in orders:  # fewer steps, still orders that keep every dependency
        position = {line: at for at, line in enumerate(order)}
        assert sorted(order) == list(range(13)) and all(position[i] < position[j] for i, j in deps)
