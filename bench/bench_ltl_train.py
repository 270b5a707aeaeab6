"""LTL solving on CPU, the interchangeable-token paper's Tables 2 and 3:
train on formulas over 5 APs, test on formulas over 5 APs and over 6-10.

Data: ``invar data ltl`` formulas (sizes spread evenly up to --max-size, each
with a satisfying trace), split by a hash of the formula into train, valid
and test files; then one file per AP count k = 6..10 of formulas drawn over
k APs (a..j), which a model trained on a-e has partly never seen.

Each architecture (``vanilla``: a fixed AP vocabulary; ``augmented``: every
training pair renamed into a-z each time it is drawn; ``dualpart``: random
parts for the APs) is trained with ``invar.train`` and its best epoch is
audited with ``invar.audit`` under AP renamings (permutations of each
formula's own APs): the audit's report gives the share of beam-3 predictions
the exact checker accepts (*correct*), the share equal to the reference
trace (*exact*) and alpha-covariance, each by number of distinct APs.
A formula a model refuses (``vanilla`` on an AP it never saw) counts as
incorrect and is reported as refused.

    python bench/bench_ltl_train.py --out DIR [--num 40000] [--epochs 10] [--archs vanilla augmented dualpart]
                                    [--audit 1000] [--general 300] [--variants 4]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from common import machine

import invar
from invar.frontends.ltl.generate import GeneratorConfig, generate_file
from invar.tasks import ltl
from invar.train import train

GENERAL = range(6, 11)


def prepare(out: Path, num: int, max_size: int, general: int, jobs: int) -> Path:
    """The dataset directory (train/valid/test) and the files gen6..gen10."""
    data = out / "data"
    raw = out / "ltl5.txt"
    if not (data / "test.txt").exists():
        generate_file(GeneratorConfig(num=num, aps=5, max_size=max_size, seed=0), raw, jobs=jobs)
        data.mkdir(parents=True, exist_ok=True)
        for split in ltl.SPLITS:
            rows = ltl.read_split(raw, split)
            (data / f"{split}.txt").write_text("".join(ex.source.replace("\t", "\n") + "\n" for ex in rows))
    for k in GENERAL:
        path = out / f"gen{k}.txt"
        if not path.exists() or Path(f"{path}.meta.json").exists() and _unfinished(path):
            generate_file(GeneratorConfig(num=general, aps=k, max_size=max_size, seed=100 + k), path, jobs=jobs)
    return data


def _unfinished(path: Path) -> bool:
    meta = json.loads(Path(f"{path}.meta.json").read_text())
    return meta.get("next", 0) < meta.get("num", 0)


def audit(ckpt: Path, dataset: Path, limit: int | None, variants: int) -> dict:
    """Correct/exact/alpha-covariance overall and by AP count; refused
    formulas (per-example errors) count as incorrect."""
    rep = invar.audit(model=str(ckpt), dataset=str(dataset), transform="renamings", limit=limit,
                      variants=variants, split="test")
    metric = rep["metric"] or {}
    scored = metric.get("examples", 0)
    n = rep["examples"]
    scale = scored / n if n else 0.0
    extra = metric.get("extra") or {}
    groups = {}
    for g in rep["alpha_covariance"]["by_referents"]:
        groups[g["referents"]] = {"examples": g["examples"], "correct": g.get("metric"),
                                  "exact": (g.get("extra") or {}).get("exact"),
                                  "alpha_covariance": g["alpha_covariance"]}
    return {"examples": n, "refused": rep["errors"] + rep["unparsable"],
            "correct": scale * metric["original"] if scored else 0.0,
            "exact": scale * extra["exact"]["original"] if scored and "exact" in extra else None,
            "alpha_covariance": rep["alpha_covariance"]["mean"], "by_aps": groups}


def ap_counts(out: Path) -> dict[int, int]:
    """Formulas of the files gen6..gen10 by number of distinct APs."""
    counts: dict[int, int] = {}
    for k in GENERAL:
        for ex in ltl.read_pairs(out / f"gen{k}.txt"):
            formula = ltl.parse(ex.source)
            n = len({t.referent for t in formula.tokens if t.line == 0 and t.referent is not None})
            counts[n] = counts.get(n, 0) + 1
    return counts


def pooled(result: dict, counts: dict[int, int]) -> dict[int, dict]:
    """Correct, exact and alpha-covariance over the files gen6..gen10 by
    number of distinct APs; a refused formula is in the count, not in a
    group, so it counts as incorrect."""
    out = {}
    for n in GENERAL:
        groups = [g["by_aps"][str(n)] for g in result["general"].values() if str(n) in g["by_aps"]]
        scored = sum(g["examples"] for g in groups)
        total = counts.get(n, 0)

        def mean(key):
            vals = [(g[key], g["examples"]) for g in groups if g[key] is not None]
            return sum(v * w for v, w in vals) / sum(w for _, w in vals) if vals else None

        correct, exact, alpha = mean("correct"), mean("exact"), mean("alpha_covariance")
        out[n] = {"formulas": total, "refused": total - scored,
                  "correct": None if correct is None else correct * scored / total if total else None,
                  "exact": None if exact is None else exact * scored / total if total else None,
                  "alpha_covariance": alpha}
    return out


def report(out: Path, archs: list[str], epochs: int, size: str) -> None:
    results = {a: json.loads((out / f"{a}.json").read_text()) for a in archs if (out / f"{a}.json").exists()}
    counts = ap_counts(out)
    print(f"{machine()}; torch {torch.__version__}; {epochs} epochs, {size}")
    print("| architecture | correct | exact | alpha-cov. 3 APs | 4 APs | 5 APs | correct 3 / 4 / 5 APs "
          "| best valid correct (epoch) | training |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arch, r in results.items():
        by = {int(k): v for k, v in r["test"]["by_aps"].items()}
        alpha = [_pct(100 * by[k]["alpha_covariance"]) if k in by and by[k]["alpha_covariance"] is not None
                 else "–" for k in (3, 4, 5)]
        cor = " / ".join(f"{by[k]['correct']:.1f}" if k in by else "–" for k in (3, 4, 5))
        print(f"| {arch} | {_pct(r['test']['correct'])} | {_pct(r['test']['exact'])} | " + " | ".join(alpha)
              + f" | {cor} | {r['valid_correct']:.2f}% ({r['best_epoch']}) | {r['train_seconds'] / 60:.0f} min |")
    print()
    print("Formulas over more APs than training saw (files gen6..gen10 pooled, by distinct APs): "
          "correct (refused count as incorrect) / alpha-covariance")
    print("| architecture | " + " | ".join(f"{n} APs ({counts.get(n, 0)})" for n in GENERAL) + " |")
    print("|---|" + "---|" * len(GENERAL))
    for arch, r in results.items():
        p = pooled(r, counts)
        cells = []
        for n in GENERAL:
            g = p[n]
            if not g["formulas"]:
                cells.append("–")
            elif g["refused"] == g["formulas"]:
                cells.append("refused")
            else:
                cells.append(f"{_pct(g['correct'])} / {_pct(None if g['alpha_covariance'] is None else 100 * g['alpha_covariance'])}")
        print(f"| {arch} | " + " | ".join(cells) + " |")


def _pct(x) -> str:
    return "–" if x is None else f"{x:.2f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--num", type=int, default=40000, help="formulas over 5 APs (80 %% train)")
    ap.add_argument("--max-size", type=int, default=35)
    ap.add_argument("--general", type=int, default=300, help="formulas per AP count 6..10")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--audit", type=int, default=1000, help="test formulas audited (the test split's first)")
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="processes generating the data")
    ap.add_argument("--prepare-only", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="print the tables of the results in --out")
    ap.add_argument("--archs", nargs="+", default=["vanilla", "augmented", "dualpart"])
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.report_only:
        report(args.out, args.archs, args.epochs, args.size)
        return
    data = prepare(args.out, args.num, args.max_size, args.general, args.jobs)
    if args.prepare_only:
        return
    results = {}
    for arch in args.archs:
        ckpt = args.out / f"{arch}.pt"
        t0 = time.perf_counter()
        run = train(task="ltl", data=data, arch=arch, size=args.size, out=ckpt, epochs=args.epochs,
                    batch_size=args.batch_size, threads=args.threads, lr=args.lr, seed=0, resume=True)
        seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        test = audit(ckpt, data, args.audit, args.variants)
        general = {k: audit(ckpt, args.out / f"gen{k}.txt", None, args.variants) for k in GENERAL}
        results[arch] = {"train_seconds": seconds, "audit_seconds": time.perf_counter() - t0,
                         "best_epoch": run.best_epoch, "valid_correct": run.best_metric, "n_train": run.n_train,
                         "test": test, "general": general}
        print(json.dumps({arch: results[arch]}), flush=True)
        (args.out / f"{arch}.json").write_text(json.dumps(results[arch], indent=1))
    report(args.out, list(results), args.epochs, args.size)


if __name__ == "__main__":
    main()
