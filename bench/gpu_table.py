"""The table of bench/gpu_studies.sh: each study's figures beside the
paper's, from the reports the studies wrote under OUT.

    python bench/gpu_table.py OUT      # prints the table, writes OUT/gpu-studies.md and OUT/gpu-studies.json

A study that did not run (no report) is a row that says so. The papers'
figures are quoted from ../shared/papers (the table or section is named in
each row); ours are one seed each, trained for what the wall-clock budget
allowed, so the columns *epochs* and *stopped by* say how far each run got.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: the Renamer paper, Tables 1 and 2 (MAPE on the original / renamed test set, Tiny)
RENAMER_PAPER = {"vanilla": (3.30, 5.26), "renamer": (2.39, 2.39)}
#: the interchangeable-token paper, Table 2 (LTLRandom35, perturbed, the proposed dual-part model)
LTL_PAPER = "95.94 % correct, 76.45 % exact, alpha-cov. 97.66 / 97.76 / 98.29 % at 3 / 4 / 5 APs (Table 2, Proposed)"
#: the lexinvariant paper, section 1 and Figure 3 (the Pile, characters, 150M parameters)
LM_PAPER = "gap 9× → under 1× the standard model's perplexity by 512 characters: ratio ~10 → under 2 (§1, Fig. 3)"
#: context lengths the language models' ratio is read at
CONTEXTS = (1, 10, 100)


def _load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _stopped(record: dict) -> str:
    return record.get("stopped_by") or "epoch cap"


def bhive_rows(out: Path) -> list[dict]:
    """The Renamer comparison: test MAPE, original and renamed, per model."""
    runs = sorted((out / "bhive" / "runs").glob("*.json")) if (out / "bhive" / "runs").exists() else []
    rows = []
    for r in filter(None, map(_load, runs)):
        paper = RENAMER_PAPER.get(r["name"])
        rows.append(
            {
                "study": f"BHive, {r['train_programs']:,} training blocks, {r['size']}",
                "model": r["name"],
                "ours": f"test MAPE {r['test_MAPE']:.2f} % (renamed {r['test_MAPE_renamed']:.2f} %)",
                "paper": (
                    f"{paper[0]:.2f} % (renamed {paper[1]:.2f} %), Tables 1-2, Tiny, 500 epochs" if paper else "–"
                ),
                "epochs": r["epochs_run"],
                "stopped_by": _stopped(r),
                "minutes": r["train_seconds"] / 60,
            }
        )
    return rows or [_missing("BHive (Renamer comparison)")]


def ltl_rows(out: Path) -> list[dict]:
    """Dual-part LTL: correct, exact and alpha-covariance on the audited test formulas."""
    rows = []
    for path in sorted((out / "ltl").glob("*.json"), key=lambda p: p.stem) if (out / "ltl").exists() else []:
        r = _load(path)
        if not r or "test" not in r:
            continue
        t = r["test"]
        alpha = "–" if t.get("alpha_covariance") is None else f"{100 * t['alpha_covariance']:.1f} %"
        exact = "–" if t.get("exact") is None else f"{t['exact']:.1f} %"
        rows.append(
            {
                "study": f"LTL, {r['n_train']:,} training pairs, batch {r.get('batch_size', '?')}",
                "model": path.stem,
                "ours": f"{t['correct']:.1f} % correct, {exact} exact, alpha-cov. {alpha} ({t['examples']} formulas)",
                "paper": LTL_PAPER,
                "epochs": r["epochs_run"],
                "stopped_by": _stopped(r),
                "minutes": r.get("epoch_seconds", r["train_seconds"]) / 60,
            }
        )
    return rows or [_missing("LTL (dual-part, the authors' recipe)")]


def lm_rows(out: Path) -> list[dict]:
    """The language models: perplexity by context, and the lexinvariant
    model's over the learned model's at each of :data:`CONTEXTS` and the last."""
    runs = {}
    for report in sorted(out.glob("lm-*/lm-curves.json")):
        for r in (_load(report) or {}).get("runs", []):
            runs.setdefault(r["model"], r)
    rows = []
    learned = runs.get("learned")
    for name, r in runs.items():
        ppl, contexts = r["curve"]["perplexity"], r["curve"]["context"]
        points = [c for c in CONTEXTS if c < contexts[-1]] + [contexts[-1]]
        cells = []
        for c in points:
            cell = f"{ppl[c - 1]:.2f}"
            if name != "learned" and learned is not None:
                cell += f" ({ppl[c - 1] / learned['curve']['perplexity'][c - 1]:.2f}×)"
            cells.append(f"{c}: {cell}")
        rows.append(
            {
                "study": f"LM, characters, windows of {contexts[-1] + r['curve']['window']}",
                "model": name,
                "ours": "perplexity at context " + ", ".join(cells),
                "paper": LM_PAPER if name != "learned" else "–",
                "epochs": r.get("epochs_run"),
                "stopped_by": _stopped(r),
                "minutes": (r.get("train_seconds") or r.get("first_train_seconds") or 0) / 60,
            }
        )
    return rows or [_missing("LM (lexinvariant against learned)")]


def _missing(study: str) -> dict:
    return {
        "study": study,
        "model": "–",
        "ours": "not run (no report)",
        "paper": "–",
        "epochs": None,
        "stopped_by": "–",
        "minutes": None,
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| study | model | ours | the paper's | epochs | stopped by | training (min) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        minutes = "–" if r["minutes"] is None else f"{r['minutes']:.1f}"
        epochs = "–" if r["epochs"] is None else str(r["epochs"])
        lines.append(
            f"| {r['study']} | {r['model']} | {r['ours']} | {r['paper']} | {epochs} | {r['stopped_by']} | {minutes} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python bench/gpu_table.py OUT")
    out = Path(args[0])
    rows = bhive_rows(out) + ltl_rows(out) + lm_rows(out)
    text = table(rows)
    (out / "gpu-studies.md").write_text(text + "\n")
    (out / "gpu-studies.json").write_text(json.dumps(rows, indent=1))
    print(text)
    return text


if __name__ == "__main__":
    main()
