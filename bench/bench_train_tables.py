"""The Renamer paper's Tables 1 and 2 on CPU: test MAPE on original and on
renamed BHive test blocks for every architecture, and epochs to reach
vanilla's best validation MAPE.

    python bench/bench_train_tables.py --data DIR --out OUTDIR [--train-limit 30000] [--epochs 10]
                                       [--size tiny] [--archs vanilla renamer …] [--threads 1]
    python bench/bench_train_tables.py --data DIR --out OUTDIR --report   # the tables, from what is done

DIR is what ``invar data bhive`` wrote. Each architecture is trained with
``invar.train`` on the first ``--train-limit`` programs of the training split
(the split is in hash order, so this is a fixed random subset) and validated
every epoch on a quarter as many; its best epoch is then scored on every test
block of at most 128 tokens, and on one uniformly sampled renaming of each
test block, labelled by llvm-mca itself (a renaming keeps llvm-mca's cycles;
the script counts any block where it does not). Finished architectures are
skipped on a rerun (OUTDIR/ARCH.json), so the run can be split and resumed.

``--reorders`` measures what semantics-preserving reorderings do to the
labels on test blocks with more than one order (llvm-mca on up to 5 sampled
orders per block) and what that costs a permutation-invariant model: for
each such block, the best single prediction for all its orders still has
the error computed here.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np
import torch
from common import machine

import invar
from invar.data.bhive import label_texts, read_split
from invar.frontends.x86.hexblock import decode
from invar.nn.config import architectures
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from invar.tasks.bhive import mape

#: the paper's Tiny rows (test MAPE %, original / renamed)
PAPER = {"vanilla": (3.30, 5.26), "augmented": (3.34, 3.44), "canonicalized": (3.03, 3.03), "renamer": (2.39, 2.39)}


def test_blocks(data: Path):
    """Test programs of at most 128 tokens, their labels, and one sampled
    renaming of each with llvm-mca's label for it."""
    cache = data / "cache" / "tables-test.json"
    examples = read_split(data, "test")
    programs, labels = [], []
    for ex in examples:
        p = decode(ex.source)
        if len(p.tokens) <= 128:
            programs.append(p)
            labels.append(ex.label)
    rng = random.Random(0)
    renamed = [renaming_space(p).apply(p, renaming_space(p).sample(1, rng)[0]) for p in programs]
    if cache.exists():
        renamed_labels = json.loads(cache.read_text())
    else:
        renamed_labels = [c / 100 if c is not None else None for c, _ in label_texts([p.render() for p in renamed])]
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(renamed_labels))
    return programs, np.asarray(labels), renamed, renamed_labels


def run_arch(arch: str, args, test) -> dict:
    out = Path(args.out)
    result_path = out / f"{arch}.json"
    if result_path.exists():
        return json.loads(result_path.read_text())
    t0 = time.perf_counter()
    result = invar.train(
        task="bhive",
        data=args.data,
        arch=arch,
        size=args.size,
        epochs=args.epochs,
        out=out / f"{arch}.pt",
        limit=args.train_limit,
        seed=args.seed,
        threads=args.threads,
        resume=True,
        jobs=args.jobs,
    )
    seconds = time.perf_counter() - t0
    model = invar.load_model(out / f"{arch}.pt")
    programs, labels, renamed, renamed_labels = test
    keep = [i for i, y in enumerate(renamed_labels) if y is not None]
    preds = model.predict(programs, batch_size=256)
    preds_renamed = model.predict([renamed[i] for i in keep], batch_size=256)
    record = {
        "arch": arch,
        "size": args.size,
        "epochs": args.epochs,
        "train_programs": result.n_train,
        "valid_programs": result.n_valid,
        "best_epoch": result.best_epoch,
        "valid_history": [h["valid_MAPE"] for h in result.history],
        "train_seconds": round(seconds, 1),
        "test_programs": len(programs),
        "test_MAPE": mape(preds, labels),
        "test_MAPE_renamed": mape(preds_renamed, [renamed_labels[i] for i in keep]),
        "renamings_changing_cycles": int(sum(renamed_labels[i] != labels[i] for i in keep)),
    }
    result_path.write_text(json.dumps(record, indent=2))
    return record


def reorders(args) -> dict:
    path = Path(args.out) / "reorders.json"
    if path.exists():
        return json.loads(path.read_text())
    rng = random.Random(1)
    blocks = []
    for ex in read_split(args.data, "test"):
        p = decode(ex.source)
        if len(p.tokens) > 128:
            continue
        space = PermutationSpace(p)
        if space.exact_sampling and space.count() < 2:
            continue
        orders = {t.order for t in space.sample(5, rng)} - {tuple(range(len(p.lines)))}
        if orders:
            blocks.append((p, [p.reordered(order) for order in sorted(orders)]))
    texts = [v.render() for p, vs in blocks for v in [p] + vs]
    cycles = [c for c, _ in label_texts(texts)]
    changed, changes, floor = 0, [], []
    k = 0
    for p, vs in blocks:
        ys = [c for c in cycles[k : k + 1 + len(vs)] if c is not None]
        k += 1 + len(vs)
        if len(ys) < 2:
            continue
        base = ys[0]
        rel = [abs(y - base) / base for y in ys[1:]]
        changed += max(rel) > 0
        changes += [r for r in rel if r > 0]
        # the best one prediction for every order of the block (a median of the labels minimises MAPE
        # up to the weighting; scan the labels themselves as candidates)
        floor.append(min(np.mean([abs(c - y) / y for y in ys]) for c in ys))
    record = {
        "blocks_with_orders": len(floor),
        "blocks_changed": changed,
        "median_change": statistics.median(changes) if changes else 0.0,
        "max_change": max(changes, default=0.0),
        "invariant_floor_MAPE_on_them": 100 * float(np.mean(floor)) if floor else 0.0,
    }
    path.write_text(json.dumps(record, indent=2))
    return record


def report(args) -> None:
    out = Path(args.out)
    rows = {a: json.loads((out / f"{a}.json").read_text()) for a in architectures() if (out / f"{a}.json").exists()}
    print(f"machine: {machine()}; torch {torch.__version__}")
    if not rows:
        print("nothing trained yet")
        return
    any_row = next(iter(rows.values()))
    print(
        f"{any_row['size']}, {any_row['train_programs']} training programs, {any_row['valid_programs']} validation, "
        f"{any_row['test_programs']} test, {any_row['epochs']} epochs"
    )
    vanilla_best = min(rows["vanilla"]["valid_history"]) if "vanilla" in rows else None
    print(
        "| architecture | test MAPE | renamed test MAPE | paper (Tiny) | best epoch | epochs to vanilla's best valid "
        "| train time |"
    )
    print("|---|---|---|---|---|---|---|")
    for arch, r in rows.items():
        paper = PAPER.get(arch)
        reach = "–"
        if vanilla_best is not None:
            hits = [i + 1 for i, m in enumerate(r["valid_history"]) if m <= vanilla_best]
            reach = str(hits[0]) if hits else f"not in {r['epochs']}"
        print(
            f"| {arch} | {r['test_MAPE']:.2f}% | {r['test_MAPE_renamed']:.2f}% | "
            f"{f'{paper[0]:.2f}% / {paper[1]:.2f}%' if paper else '–'} | {r['best_epoch']} | {reach} | "
            f"{r['train_seconds'] / 60:.0f} min |"
        )
    epochs = max(len(r["valid_history"]) for r in rows.values())
    print()
    print("| validation MAPE by epoch | " + " | ".join(str(e + 1) for e in range(epochs)) + " |")
    print("|---|" + "---|" * epochs)
    for arch, r in rows.items():
        print(f"| {arch} | " + " | ".join(f"{m:.1f}" for m in r["valid_history"]) + " |")
    print()
    moved = sum(r["renamings_changing_cycles"] for r in rows.values())
    print(f"renamed test blocks whose llvm-mca cycles differ from the original's: {moved // max(1, len(rows))}")
    reorder_path = out / "reorders.json"
    if reorder_path.exists():
        r = json.loads(reorder_path.read_text())
        print(
            f"reorderings: {r['blocks_changed']} of {r['blocks_with_orders']} test blocks with more than one order "
            f"change llvm-mca's cycles under a sampled order (median change {100 * r['median_change']:.1f}%, "
            f"max {100 * r['max_change']:.1f}%); a permutation-invariant model's MAPE on those blocks is at least "
            f"{r['invariant_floor_MAPE_on_them']:.2f}%"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--train-limit", type=int, default=30000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--archs", nargs="*", default=architectures())
    ap.add_argument("--reorders", action="store_true")
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.report:
        report(args)
        return
    torch.set_num_threads(args.threads)
    if args.reorders:
        print(json.dumps(reorders(args)), flush=True)
    if args.archs:
        test = test_blocks(Path(args.data))
        for arch in args.archs:
            print(json.dumps(run_arch(arch, args, test)), flush=True)
    report(args)


if __name__ == "__main__":
    main()
