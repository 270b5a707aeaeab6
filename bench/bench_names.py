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
                                [--archs vanilla spe renamer renamer+spe] [--seed 0] [--size tiny] [--ablations]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sysconfig
import time
from pathlib import Path

import torch
from common import machine

import invar
from invar.nn.config import SIZES, SPE_ABLATIONS, SPE_MIN_HEADS
from invar.train import train


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--task", choices=("names", "bugs"), default="names")
    ap.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--train-limit", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--audit", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="seed of the weights, the order and the audit's draws")
    ap.add_argument("--archs", nargs="+", default=["vanilla", "spe", "renamer", "renamer+spe"])
    ap.add_argument("--size", choices=list(SIZES), default="tiny")
    ap.add_argument("--ablations", action="store_true", help="the SPE paper's Table 3 in place of --archs")
    args = ap.parse_args()
    task = importlib.import_module(f"invar.tasks.{args.task}")
    torch.set_num_threads(args.threads)
    data = args.out / "data"
    if not (data / "meta.json").exists():
        meta = task.build(args.source, data)
        print(json.dumps({k: v for k, v in meta.items() if k != "subtokens"}), flush=True)
    rows = {}
    heads = max(SPE_MIN_HEADS, SIZES[args.size][2])
    models = (
        {name: (arch, {"n_head": heads, **fields}) for name, (arch, fields) in SPE_ABLATIONS.items()}
        if args.ablations
        else {arch: (arch, {}) for arch in args.archs}
    )
    for name, (arch, overrides) in models.items():
        suffix = f"-seed{args.seed}" if args.seed else ""
        stem = name.replace("+", "_").replace(" ", "-").replace("(", "").replace(")", "").replace(".", "")
        ckpt = args.out / f"{args.task}-{stem}{'-' + args.size if args.size != 'tiny' else ''}{suffix}.pt"
        t0 = time.perf_counter()
        run = train(
            task=args.task,
            data=data,
            arch=arch,
            size=args.size,
            out=ckpt,
            epochs=args.epochs,
            batch_size=32,
            threads=args.threads,
            lr=1e-3,
            seed=args.seed,
            limit=args.train_limit,
            resume=True,
            overrides=overrides or None,
        )
        seconds = time.perf_counter() - t0
        model = invar.load_model(ckpt)
        test = task.read_split(data, "test")
        programs, labels = [], []
        for ex in test:
            p = task.parse(ex.source)
            if model.fits(p):
                programs.append(p)
                labels.append(ex.label)
        preds = model.predict(programs)
        report = invar.audit(
            model=str(ckpt), dataset=str(data), transform="both", limit=args.audit, variants=4, seed=args.seed
        )
        rows[name] = {
            "test_metric": task.TASK.metric(preds, labels),
            "test_functions": len(programs),
            "extra": {k: m(preds, labels) for k, m in task.TASK.extra_metrics.items()},
            "valid_metric": run.best_metric,
            "best_epoch": run.best_epoch,
            "train_seconds": seconds,
            "violation_rate": report["violation_rate"],
            "audited": report["audited"],
        }
        print(json.dumps({name: rows[name]}), flush=True)
    name = task.TASK.metric_name
    per_function = "F1 (per function)" if args.task == "names" else None
    print(
        f"{machine()}; torch {torch.__version__}; {args.task}: {args.train_limit} training functions, "
        f"{args.epochs} epochs, {args.size}"
        + (f" with {heads} heads" if args.ablations else "")
        + f", seed {args.seed}"
    )
    print(
        f"| architecture | test {name} | "
        + ("test F1 per function | " if per_function else "")
        + f"best valid {name} (epoch) | violation rate, renamings and reorderings | train time |"
    )
    print("|---|---|---|---|---|" + ("---|" if per_function else ""))
    for model, r in rows.items():
        rate = "–" if r["violation_rate"] is None else f"{100 * r['violation_rate']:.1f}%"
        extra = f"{r['extra'][per_function]:.1f}% | " if per_function else ""
        print(
            f"| {model} | {r['test_metric']:.1f}% | {extra}{r['valid_metric']:.1f}% ({r['best_epoch']}) "
            f"| {rate} of {r['audited']} | {r['train_seconds'] / 60:.1f} min |"
        )


if __name__ == "__main__":
    main()
