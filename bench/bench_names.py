"""Function-name prediction on real code, on CPU: subtoken F1 and the audit's
violation rate under renamings and reorderings together, for the
architectures that should and should not be invariant.

The dataset is ``invar data names`` on a source directory (the running
interpreter's standard library by default: split by file, names hidden).
Each architecture is trained with ``invar.train`` on the first
``--train-limit`` training functions; its best epoch is scored on the test
split (subtoken F1 as code2seq defines it) and audited with
``--transform both`` on the first ``--audit`` test functions.

    python bench/bench_names.py --out DIR [--source DIR] [--train-limit 2000] [--epochs 4]
                                [--archs vanilla spe renamer renamer+spe]
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
from invar.train import train

names = importlib.import_module("invar.tasks.names")  # the package also has a names() function


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--train-limit", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--audit", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--archs", nargs="+", default=["vanilla", "spe", "renamer", "renamer+spe"])
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    data = args.out / "data"
    if not (data / "meta.json").exists():
        meta = names.build(args.source, data)
        print(json.dumps({k: v for k, v in meta.items() if k != "subtokens"}), flush=True)
    rows = {}
    for arch in args.archs:
        ckpt = args.out / f"{arch.replace('+', '_')}.pt"
        t0 = time.perf_counter()
        run = train(task="names", data=data, arch=arch, out=ckpt, epochs=args.epochs, batch_size=32,
                    threads=args.threads, lr=1e-3, seed=0, limit=args.train_limit, resume=True)
        seconds = time.perf_counter() - t0
        model = invar.load_model(ckpt)
        test = names.read_split(data, "test")
        programs, labels = [], []
        for ex in test:
            p = names.parse(ex.source)
            if model.fits(p):
                programs.append(p)
                labels.append(ex.label)
        preds = model.predict(programs)
        report = invar.audit(model=str(ckpt), dataset=str(data), transform="both", limit=args.audit, variants=4)
        rows[arch] = {"test_f1": names.f1(preds, labels), "test_functions": len(programs),
                      "valid_f1": run.best_metric, "best_epoch": run.best_epoch, "train_seconds": seconds,
                      "violation_rate": report["violation_rate"], "audited": report["audited"]}
        print(json.dumps({arch: rows[arch]}), flush=True)
    print(f"{machine()}; torch {torch.__version__}; {args.train_limit} training functions, {args.epochs} epochs, tiny")
    print("| architecture | test F1 | best valid F1 (epoch) | violation rate, renamings and reorderings | train time |")
    print("|---|---|---|---|---|")
    for arch, r in rows.items():
        rate = "–" if r["violation_rate"] is None else f"{100 * r['violation_rate']:.1f}%"
        print(f"| {arch} | {r['test_f1']:.1f}% | {r['valid_f1']:.1f}% ({r['best_epoch']}) "
              f"| {rate} of {r['audited']} | {r['train_seconds'] / 60:.1f} min |")


if __name__ == "__main__":
    main()
