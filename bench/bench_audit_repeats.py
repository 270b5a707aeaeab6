"""What repeats, controls and intervals cost on the fixture audits, beside
the audit as it was before them (one repeat, no controls, no intervals).

    python bench/bench_audit_repeats.py [--repeat 3] [--report repeats.json]

Two audits, each run in several arms, alternating, medians over repeats:

* the README's main audit: the ``renamer`` checkpoint on the 282 test blocks
  of fixtures/blocks (bhive, 16 renamings each). A checkpoint is asked once
  whatever ``--repeats`` says, so repeats cost only their tests; controls
  need ``--oracle`` for bhive (llvm-mca times them), so those arms are timed
  against ``--oracle`` alone;
* a sampled model, a Python callable that flags functions holding ``==``
  and flips its answer with probability 0.1, on the bugs dataset of
  fixtures/python (the training split's first 120 functions, renamings and
  reorderings together, 8 each): every repeat asks it again, and controls
  (the task's own bugs and the generic kinds) are on by default.

The report holds every run's seconds and each arm's ratio to its baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from common import ROOT, machine, median, repeat

from invar.audit import audit

BASE = {"bootstrap": 0, "repeats": 1, "controls": 0}


def sampled(texts: list[str], _calls=[0]) -> list[int]:
    """A bugs model that samples: ``==`` flagged, flipped one time in ten (a
    hash of the text and of how many calls came before: a fresh draw each call)."""
    _calls[0] += 1
    out = []
    for text in texts:
        draw = int(hashlib.sha256(f"{_calls[0]}\0{text}".encode()).hexdigest(), 16) % 10
        out.append(int("==" in text) ^ (draw == 0))
    return out


def arms(bugs_data: str, llvm: bool) -> dict[str, tuple[str, dict, str]]:
    """arm -> (what it runs, its settings, its baseline arm)."""
    checkpoint = {"model": str(ROOT / "fixtures/models/renamer.pt"), "dataset": str(ROOT / "fixtures/blocks")}
    callable_ = {
        "model": sampled,
        "dataset": bugs_data,
        "task": "bugs",
        "split": "train",
        "limit": 120,
        "transform": "both",
        "variants": 8,
    }
    out = {
        "checkpoint: before (no intervals)": ("checkpoint", {**checkpoint, **BASE}, None),
        "checkpoint: default (intervals)": (
            "checkpoint",
            {**checkpoint, "bootstrap": 1000},
            "checkpoint: before (no intervals)",
        ),
        "checkpoint: --repeats 5": (
            "checkpoint",
            {**checkpoint, **BASE, "repeats": 5},
            "checkpoint: before (no intervals)",
        ),
        "sampled callable: before": ("callable", {**callable_, **BASE}, None),
        "sampled callable: default (controls 4, intervals)": ("callable", {**callable_}, "sampled callable: before"),
        "sampled callable: --repeats 5": (
            "callable",
            {**callable_, "bootstrap": 1000, "repeats": 5},
            "sampled callable: before",
        ),
    }
    if llvm:
        out.update(
            {
                "checkpoint: --oracle": ("checkpoint", {**checkpoint, **BASE, "oracle": True}, None),
                "checkpoint: --oracle, controls 4": (
                    "checkpoint",
                    {**checkpoint, **BASE, "oracle": True, "controls": 4},
                    "checkpoint: --oracle",
                ),
            }
        )
    return out


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/audit.md shows."""
    lines = [
        "| arm | median s | × its baseline | predictions | controls | violation rate |",
        "|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['arm']} | {r['median_seconds']:.2f} | {r['ratio']:.2f} | {r['predictions']:,} | "
            f"{r['controls'] if r['controls'] is not None else '–'} | {r['violation_rate']:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--report", default=None)
    args = parser.parse_args()
    from invar.tasks import bugs

    with tempfile.TemporaryDirectory() as tmp:
        bugs.build(ROOT / "fixtures" / "python", tmp, seed=0)
        table = arms(tmp, shutil.which("llvm-mca") is not None)
        seconds = {name: [] for name in table}
        facts = {}
        for _ in range(args.repeat):
            for name, (_what, settings, _base) in table.items():
                settings = dict(settings)
                model, dataset = settings.pop("model"), settings.pop("dataset")
                result = {}
                seconds[name] += repeat(lambda: result.update(r=audit(model, dataset, **settings)), 1)
                report = result["r"].report
                facts[name] = {
                    "examples": report["audited"],
                    "predictions": report["predictions"],
                    "violation_rate": report["violation_rate"],
                    "controls": (report["sensitivity"] or {}).get("controls"),
                    "self_disagreement": (report["noise"] or {}).get("self_disagreement"),
                }
    rows = []
    for name, (what, _settings, base) in table.items():
        m = median(seconds[name])
        rows.append(
            {
                "arm": name,
                "model": what,
                "median_seconds": m,
                "seconds": seconds[name],
                "ratio": m / median(seconds[base]) if base else 1.0,
                "baseline": base,
                **facts[name],
            }
        )
    report = {"benchmark": "audit_repeats", "machine": machine(), "repeat": args.repeat, "rows": rows}
    print(f"machine: {report['machine']}")
    print(table(report))
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
