"""bench/bench_incontext.py end to end on a character LM trained for a few
steps on the fixtures: every model, draw and task scored; and, with the
model's decoding replaced by an independent solver of the prompt it is
given (read back from the ids), 100 % accuracy, so prompts reach the model
and answers come back faithfully."""

from __future__ import annotations

import json


import pytest

import invar
from tests.bench import bench_module
from tests.conftest import FIXTURES, ROOT
from tests.data.test_incontext import lookup_answer, permutation_answer

SCRIPT = ROOT / "bench" / "bench_incontext.py"


def _module():
    return bench_module("bench_incontext")


@pytest.fixture
def checkpoint(char_lm):
    return char_lm / "m.pt"


def test_every_model_draw_and_task_is_scored(checkpoint, tmp_path):
    rows = _module().main(
        [
            "--models",
            f"a-s0={checkpoint}",
            f"a-s1={checkpoint}",
            "--corpus",
            str(FIXTURES / "python"),
            "--num",
            "30",
            "--pairs",
            "4",
            "--report",
            str(tmp_path / "report.json"),
        ]
    )
    assert {(r["model"], r["draw"], r["task"]) for r in rows} == {
        (m, d, t) for m in ("a-s0", "a-s1") for d in ("uniform", "frequency") for t in ("lookup", "permutation")
    }
    assert all(0 <= r["accuracy"] <= 100 and r["symbols"] > 20 for r in rows)
    by = {(r["model"], r["draw"], r["task"]): r["accuracy"] for r in rows}
    assert all(by[("a-s0", d, t)] == by[("a-s1", d, t)] for _, d, t in by)  # same model, same examples
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["rows"] == rows and "| a | uniform |" in _module().table(report)
    before, after = report["load_average_before"][0], report["load_average_after"][0]
    assert _module().table(report).endswith(f"at the start and at the end: {before:.1f} → {after:.1f}.")
    # a model scored later, in a report of its own: its rows beside, a load line for each report
    later = {**report, "rows": [{**r, "model": "b-s0", "group": "b"} for r in rows]}
    together = _module().table([report, later])
    assert "| a | uniform |" in together and "| b | uniform |" in together
    assert together.count("Load average") == 2


def test_an_oracle_in_the_models_place_scores_everything_right(checkpoint, monkeypatch):
    bench = _module()
    model = invar.load_model(checkpoint)

    def solve(net, ids, steps):
        import torch

        out = []
        for row in ids.tolist():
            prompt = "".join(model.vocab.tokens[i] for i in row)
            answer = (
                lookup_answer(prompt)
                if "\n" not in prompt and prompt.count("->") > 1 and len(prompt.split(" ")[0]) == 4
                else permutation_answer(prompt)
            )
            assert len(answer) == steps
            out.append([model.vocab.token_id(c, "char") for c in answer])
        return torch.as_tensor(out)

    monkeypatch.setattr(bench, "continuation", solve)
    rows = bench.main(
        [
            "--models",
            f"m={checkpoint}",
            "--corpus",
            str(FIXTURES / "python"),
            "--num",
            "40",
            "--pairs",
            "5",
            "--length",
            "3",
            "--demos",
            "2",
        ]
    )
    assert [r["accuracy"] for r in rows] == [100.0] * 4
