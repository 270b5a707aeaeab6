"""Compiled programs as models of exactly known invariance: the audit of a
compiled checkpoint against the interpreter run on every member of each
example's space, and ``invar predict`` on it against ``invar alta run``."""

from __future__ import annotations

import json
import random

import pytest
import torch
from typer.testing import CliRunner

import invar
from invar.alta import get_program, run
from invar.alta.model import CompiledModel
from invar.alta.store import payload
from invar.checkpoint import save
from invar.cli.app import app
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from invar.tasks import alta

SYMBOLS = "abcde"
#: every space here has at most 5! members: audited whole
VARIANTS = 200


def _inputs(seed: int, n: int, distinct: bool) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randint(1, 5)
        chosen = rng.sample(SYMBOLS, k) if distinct else [rng.choice(SYMBOLS) for _ in range(k)]
        out.append(" ".join(chosen))
    return out


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("alta")
    out = {}
    for name in ("distinct-count", "histogram", "palindrome", "sort", "contains-a", "first-is-a", "reverse"):
        options = {"symbols": SYMBOLS} if name == "sort" else {"symbols": SYMBOLS, "max_length": 8}
        compiled = invar.alta.compile(get_program(name, **options))
        save(root / f"{name}.pt", payload(compiled))
        out[name] = root / f"{name}.pt"
    return out


def _dataset(tmp_path, inputs: list[str]):
    path = tmp_path / "inputs.txt"
    path.write_text("".join(x + "\n" for x in inputs))
    return path


def test_a_compiled_checkpoint_loads_as_weights_and_data(checkpoints):
    data = torch.load(checkpoints["sort"], weights_only=True)
    assert data["arch"] == "alta" and isinstance(data["program"], str)
    model = invar.load_model(checkpoints["sort"])
    assert isinstance(model, CompiledModel) and model.task == "alta"
    assert model.predict_texts(["c a d"]) == ["a c d"] == [model.oracle(["c a d"])[0][0]]


@pytest.mark.parametrize(
    "name, transform, distinct",
    [
        ("distinct-count", "renamings", False),
        ("histogram", "renamings", False),
        ("palindrome", "renamings", False),
        ("sort", "permutations", True),
        ("reverse", "renamings", False),
    ],
)
def test_invariant_programs_show_no_violation(tmp_path, checkpoints, name, transform, distinct):
    data = _dataset(tmp_path, _inputs(1, 12, distinct))
    result = invar.audit(str(checkpoints[name]), str(data), transform=transform, variants=VARIANTS, oracle=True)
    assert all(r["error"] is None and r["exhaustive"] for r in result.records)
    assert result.violation_rate == 0.0
    assert result["alpha_covariance"]["mean"] == 1.0
    assert result["oracle"]["violations_without_label_change"] == 0


def _truth(name: str, text: str) -> tuple[bool, float]:
    """Whether some renaming moves the program's answer, and the example's
    alpha-covariance, from the interpreter on every member of the space."""
    program = get_program(name, symbols=SYMBOLS) if name == "sort" else get_program(name, symbols=SYMBOLS, max_length=8)
    first = len(program.prefix)

    def answer(tokens: list[str]) -> list[str]:
        outputs = run(program, tokens).outputs[first : first + len(tokens)]
        return [program.label(v) for v in outputs]

    source = alta.parse(text)
    space = renaming_space(source, pool=tuple(SYMBOLS))  # the symbols the compiled model reads
    original = answer(text.split())
    undone = []
    for r in space.enumerate():
        back = r.inverse()
        undone.append([back.get(t, t) for t in answer(space.apply(source, r).render().split())])
    n = 1 + len(undone)
    distinct = len({tuple(u) for u in undone} | {tuple(original)})
    return any(u != original for u in undone), (n - distinct) / (n - 1)


@pytest.mark.parametrize("name, distinct", [("contains-a", False), ("first-is-a", False), ("sort", True)])
def test_violations_are_the_interpreters_on_the_whole_space(tmp_path, checkpoints, name, distinct):
    inputs = _inputs(2, 14, distinct) + ["a b c d e", "d"]
    data = _dataset(tmp_path, inputs)
    result = invar.audit(str(checkpoints[name]), str(data), transform="renamings", variants=VARIANTS, oracle=True)
    truths = [_truth(name, text) for text in inputs]
    assert [r["violation"] for r in result.records] == [v for v, _ in truths]
    assert [r["alpha_covariance"] for r in result.records] == pytest.approx([a for _, a in truths])
    assert result.violation_rate == pytest.approx(sum(v for v, _ in truths) / len(truths))
    if name != "first-is-a":  # which symbol comes first moves under any renaming but the identity
        assert 0 < result.violation_rate < 1  # the sample holds both kinds
    assert result["oracle"]["violations_without_label_change"] == 0


def test_permutations_are_audited_whole(tmp_path, checkpoints):
    inputs = _inputs(3, 6, True)
    result = invar.audit(
        str(checkpoints["sort"]), str(_dataset(tmp_path, inputs)), transform="permutations", variants=VARIANTS
    )
    assert [r["variants"] for r in result.records] == [PermutationSpace(alta.parse(x)).count() for x in inputs]


def test_predict_equals_alta_run(tmp_path, checkpoints):
    inputs = _inputs(4, 8, True)
    data = _dataset(tmp_path, inputs)
    result = CliRunner().invoke(app, ["predict", "--model", str(checkpoints["sort"]), str(data)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for text, line in zip(inputs, lines, strict=True):
        ran = CliRunner().invoke(app, ["alta", "run", "sort", "--input", text, "--format", "json"])
        assert ran.exit_code == 0, ran.output
        shown = json.loads(ran.output)["shown"][1:]  # the prefix marker's output left out
        assert line == f"{text}\t{' '.join(shown)}"


def test_predict_reports_a_symbol_outside_the_alphabet(tmp_path, checkpoints):
    data = tmp_path / "inputs.txt"
    data.write_text("a b\nz a\n")
    result = CliRunner().invoke(app, ["predict", "--model", str(checkpoints["sort"]), str(data)])
    assert result.exit_code == 1
    assert "inputs.txt:2" in result.output and "'z'" in result.output
    assert "a b\ta b" in result.output.splitlines()
