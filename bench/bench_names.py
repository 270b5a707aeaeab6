"""Function-name prediction (or, with ``--task bugs``, bug detection) on real
code, on CPU: the task's metric and the audit's violation rate under
renamings and reorderings together, for the architectures that should and
should not be invariant.

The dataset is ``invar data names`` (``invar data bugs``) on a source
directory (the running interpreter's standard library by default: split by
file). Each architecture is trained with ``invar.train`` on the first
``--train-limit`` training functions; its best epoch is scored on the test
split (names: subtoken F1 as code2seq defines it, micro-averaged, and
averaged per function; bugs: accuracy) and audited with ``--transform both``
on the first ``--audit`` test functions.

``--ablations`` trains the SPE paper's Table 3 instead (``spe``, ``spe
(all)``: the symmetry mask on every head, ``spe (w.o. pe)``: no line
positions; :data:`invar.nn.config.SPE_ABLATIONS`), with at least 4 heads so
that the head split keeps all three kinds (2 / 1 / 1).

    python bench/bench_names.py --out DIR [--task names|bugs] [--source DIR] [--train-limit 2000] [--epochs 4]
                                [--archs vanilla spe renamer renamer+spe] [--seeds 0 1 2] [--size tiny] [--ablations]
                                [--report FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sysconfig
import time
from pathlib import Path

import torch
from common import machine, mean_sd

import invar
from invar.nn.config import SIZES, SPE_ABLATIONS, SPE_MIN_HEADS
from invar.train import train

#: the names task's second F1, averaged over functions
PER_FUNCTION = "F1 (per function)"


def _models(args) -> dict[str, tuple[str, dict]]:
    """name -> (architecture, config overrides) of the run."""
    if args.ablations:
        heads = max(SPE_MIN_HEADS, SIZES[args.size][2])
        return {name: (arch, {"n_head": heads, **fields}) for name, (arch, fields) in SPE_ABLATIONS.items()}
    return {arch: (arch, {}) for arch in args.archs}


def _run(args, task, data: Path, name: str, arch: str, overrides: dict, seed: int) -> dict:
    """Train ``name`` with ``seed``, score its best epoch on the test split, audit it."""
    suffix = f"-seed{seed}" if seed else ""
    stem = name.replace("+", "_").replace(" ", "-").replace("(", "").replace(")", "").replace(".", "")
    stem = f"ablation-{stem}" if args.ablations else stem
    ckpt = args.out / f"{args.task}-{stem}{'-' + args.size if args.size != 'tiny' else ''}{suffix}.pt"
    t0 = time.perf_counter()
    run = train(
        task=args.task,
        data=data,
        arch=arch,
        size=args.size,
        out=ckpt,
        epochs=args.epochs,
        patience=args.patience,
        batch_size=32,
        threads=args.threads,
        lr=1e-3,
        seed=seed,
        limit=args.train_limit,
        resume=True,
        overrides=overrides or None,
    )
    seconds = time.perf_counter() - t0
    model = invar.load_model(ckpt)
    programs, labels = [], []
    for ex in task.read_split(data, "test"):
        p = task.parse(ex.source)
        if model.fits(p):
            programs.append(p)
            labels.append(ex.label)
    preds = model.predict(programs)
    report = invar.audit(model=str(ckpt), dataset=str(data), transform="both", limit=args.audit, variants=4, seed=seed)
    return {
        "seed": seed,
        "test_metric": task.TASK.metric(preds, labels),
        "test_functions": len(programs),
        "extra": {k: m(preds, labels) for k, m in task.TASK.extra_metrics.items()},
        "valid_metric": run.best_metric,
        "best_epoch": run.best_epoch,
        "epochs_run": len(run.history),
        "train_seconds": seconds,
        "violation_rate": report["violation_rate"],
        "audited": report["audited"],
    }


def table(report: dict) -> str:
    """The table of a ``--report``: a row per model, mean ± sd over its seeds."""
    name = report["metric"]
    per_function = report["task"] == "names"
    seeds = {len(rs) for rs in report["runs"].values()}
    epochs = report.get("settings", {}).get("epochs", 0)  # runs recorded before epochs_run ran every epoch
    head = (
        f"| architecture | test {name} | "
        + ("test F1 per function | " if per_function else "")
        + "best epoch / run | violation rate, renamings and reorderings | audited | training (min) |"
    )
    rows = [head, "|---" * (6 + per_function) + "|"]
    for model, rs in report["runs"].items():
        rates = [100 * r["violation_rate"] for r in rs if r["violation_rate"] is not None]
        extra = f"{mean_sd([r['extra'][PER_FUNCTION] for r in rs], '{:.1f}', ' %')} | " if per_function else ""
        rows.append(
            f"| {model} | {mean_sd([r['test_metric'] for r in rs], '{:.1f}', ' %')} | {extra}"
            f"{mean_sd([r['best_epoch'] for r in rs], '{:.1f}')} / {max(r.get('epochs_run', epochs) for r in rs)} | "
            f"{mean_sd(rates, '{:.1f}', ' %') if rates else '–'} | "
            f"{' / '.join(str(r['audited']) for r in rs)} | "
            f"{statistics.mean(r['train_seconds'] for r in rs) / 60:.1f} |"
        )
    if seeds != {1}:
        rows.append("")
        rows.append(f"Mean ± sd over seeds {', '.join(str(r['seed']) for r in next(iter(report['runs'].values())))}.")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--task", choices=("names", "bugs"), default="names")
    ap.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--train-limit", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--patience", type=int, default=None, help="stop once N epochs bring no better validation F1")
    ap.add_argument("--audit", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=None, help="one seed of the weights, the order and the audit's draws")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="several seeds, each a run of every model")
    ap.add_argument("--archs", nargs="+", default=["vanilla", "spe", "renamer", "renamer+spe"])
    ap.add_argument("--size", choices=list(SIZES), default="tiny")
    ap.add_argument("--ablations", action="store_true", help="the SPE paper's Table 3 in place of --archs")
    ap.add_argument("--report", type=Path, default=None, help="write the runs to this JSON file")
    args = ap.parse_args()
    seeds = [args.seed] if args.seed is not None else args.seeds
    task = importlib.import_module(f"invar.tasks.{args.task}")
    torch.set_num_threads(args.threads)
    data = args.out / "data"
    if not (data / "meta.json").exists():
        meta = task.build(args.source, data)
        print(json.dumps({k: v for k, v in meta.items() if k != "subtokens"}), flush=True)
    runs: dict[str, list[dict]] = {}
    for seed in seeds:
        for name, (arch, overrides) in _models(args).items():
            runs.setdefault(name, []).append(_run(args, task, data, name, arch, overrides, seed))
            print(json.dumps({name: runs[name][-1]}), flush=True)
    report = {
        "machine": machine(),
        "torch": torch.__version__,
        "task": args.task,
        "metric": task.TASK.metric_name,
        "settings": {
            "train_limit": args.train_limit,
            "epochs": args.epochs,
            "patience": args.patience,
            "size": args.size,
            "heads": max(SPE_MIN_HEADS, SIZES[args.size][2]) if args.ablations else SIZES[args.size][2],
            "audit": args.audit,
            "threads": args.threads,
            "seeds": seeds,
        },
        "runs": runs,
    }
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    print(table(report))


if __name__ == "__main__":
    main()
