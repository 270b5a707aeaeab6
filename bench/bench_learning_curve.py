"""Sample efficiency on BHive, the Renamer paper's claim: learning curves of
architectures trained to convergence (early stopping) on growing fixed
subsets of the training split, over several seeds.

    python bench/bench_learning_curve.py --data DIR --out OUTDIR [--sizes 1000 4000 16000]
        [--seeds 0 1 2] [--archs vanilla augmented canonicalized renamer] [--size tiny]
        [--patience 5] [--max-epochs 100] [--lr 5e-4] [--schedule cosine|plateau] [--plateau 5]
        [--batch-size 64] [--threads 1] [--device cpu]
        [--precision fp32] [--test-limit N] [--variant NAME=ARCH:field=value,...] [--time-limit SECONDS]
        [--report FILE]
    python bench/bench_learning_curve.py --data DIR --out OUTDIR --report-only [--report FILE]   # what is done

DIR is what ``invar data bhive`` wrote. A run of size N trains with
``invar.train(limit=N)``: the first N programs of the training split (the
split is in hash order, so a fixed random subset, and each size holds the
smaller ones) and validation on the first N/4 of the validation split. It
stops when ``--patience`` epochs in a row bring no better validation MAPE,
or at ``--max-epochs``; with ``--schedule plateau`` the learning rate
stays at its peak and halves after every ``--plateau`` epochs without a
better one, instead of decaying over the cap, so that a run ends by its
patience rather than by a learning rate decayed to nothing; the best epoch is scored on the test split (at most
``--test-limit`` blocks of at most 128 tokens), original and renamed (one
uniformly sampled renaming per block, labelled by llvm-mca itself, so a
renaming that changes the cycles is scored against its own label).

``--time-limit S`` stops each run after its first epoch that ends S seconds
after its start (a wall-clock budget, bench/gpu_studies.sh; its record says
``stopped_by``).

``--variant NAME=ARCH:field=value,...`` adds a model that is ARCH with
config fields overridden (the ablations: ``views=vanilla:embedding=view``
is the view embeddings alone, ``mask=vanilla:attention=referent,mask_layers=1``
the referent mask alone). Each run is a file OUTDIR/runs/NAME-N-sSEED.json,
skipped when done and resumed from its training state when cut, so the
study can be split across processes and machines.

The report (OUTDIR/learning-curve.md and OUTDIR/learning-curve.png, and
with ``--report FILE`` every run's record as JSON for bench/tables.py) gives,
per size and model, mean ± sd over the seeds of: test MAPE on original and
renamed blocks, the best validation MAPE, epochs trained and the best epoch,
and the epochs and optimiser steps to reach vanilla's best validation MAPE
of the same size and seed (``–`` where a seed never reaches it; the count
of seeds that do is given). The JSON report's other views: ``by_seed`` (each
run's figures and the range of validation MAPE its patience waited through)
and ``summary`` (several reports, a row per size: ``renamer`` and
``vanilla`` on original and renamed blocks, the paper's row last).
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
from common import machine, mean_sd

import invar
from invar.data.bhive import label_texts, read_split
from invar.frontends.x86.hexblock import decode
from invar.symmetry.spaces import renaming_space
from invar.tasks.bhive import mape
from invar.train import PRECISIONS, SCHEDULES

#: the Renamer paper, Appendix D (Tiny, trained to convergence on all of BHive)
PAPER = (
    'the Renamer paper (Appendix D, on test error after 500 epochs): "Renamer reaches the best error of the '
    'vanilla model with 213, 123, and 290 fewer epochs for the Tiny, Mini, and Small architectures respectively, '
    'which corresponds to a relative decrease in steps to achieve the same performance of 42.77%, 24.75%, and '
    '59.06%."'
)


def parse_variant(spec: str) -> tuple[str, str, dict]:
    """``NAME=ARCH:field=value,...`` -> (name, arch, overrides); values are
    read as JSON where they parse (numbers, true/false), else as text."""
    name, _, rest = spec.partition("=")
    arch, _, fields = rest.partition(":")
    if not name or not arch:
        raise SystemExit(f"--variant {spec!r}: write NAME=ARCH[:field=value,...]")
    overrides = {}
    for item in filter(None, fields.split(",")):
        key, _, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key] = value
    return name, arch, overrides


def test_set(data: Path, out: Path, limit: int | None):
    """Test programs of at most 128 tokens (the first ``limit``), their
    labels, one sampled renaming of each and llvm-mca's label for it (cached
    in OUTDIR)."""
    programs, labels = [], []
    for ex in read_split(data, "test"):
        p = decode(ex.source)
        if len(p.tokens) <= 128:
            programs.append(p)
            labels.append(ex.label)
        if limit and len(programs) == limit:
            break
    rng = random.Random(0)
    renamed = [renaming_space(p).apply(p, renaming_space(p).sample(1, rng)[0]) for p in programs]
    cache = out / f"test-renamed-{len(programs)}.json"
    if cache.exists():
        renamed_labels = json.loads(cache.read_text())
    else:
        renamed_labels = [c / 100 if c is not None else None for c, _ in label_texts([p.render() for p in renamed])]
        cache.write_text(json.dumps(renamed_labels))
    return programs, np.asarray(labels), renamed, renamed_labels


def run_one(name: str, arch: str, overrides: dict, n: int, seed: int, args, test) -> dict:
    """Train one model to its early stop, score it on the test set, and keep the record."""
    out = Path(args.out) / "runs"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}-{n}-s{seed}.json"
    if path.exists():
        done = json.loads(path.read_text())
        if done.get("schedule", "cosine") != args.schedule:
            raise SystemExit(
                f"{path} was trained with --schedule {done.get('schedule', 'cosine')}, not "
                f"{args.schedule}: give another --out"
            )
        return done
    t0 = time.perf_counter()
    result = invar.train(
        task="bhive",
        data=args.data,
        arch=arch,
        size=args.size,
        epochs=args.max_epochs,
        patience=args.patience,
        out=out / f"{name}-{n}-s{seed}.pt",
        limit=n,
        seed=seed,
        lr=args.lr,
        batch_size=args.batch_size,
        threads=args.threads,
        device=args.device,
        resume=True,
        overrides=overrides or None,
        precision=args.precision,
        schedule=args.schedule,
        plateau=args.plateau if args.schedule == "plateau" else None,
        time_limit=args.time_limit,
    )
    seconds = time.perf_counter() - t0
    model = invar.load_model(out / f"{name}-{n}-s{seed}.pt", device=args.device)
    programs, labels, renamed, renamed_labels = test
    keep = [i for i, y in enumerate(renamed_labels) if y is not None]
    preds = model.predict(programs, batch_size=256)
    preds_renamed = model.predict([renamed[i] for i in keep], batch_size=256)
    record = {
        "name": name,
        "arch": arch,
        "overrides": overrides,
        "train_size": n,
        "seed": seed,
        "size": args.size,
        "train_programs": result.n_train,
        "valid_programs": result.n_valid,
        "patience": args.patience,
        "max_epochs": args.max_epochs,
        "lr": args.lr,
        "batch_size": args.batch_size,
        "precision": args.precision,
        "schedule": args.schedule,
        "plateau": args.plateau,
        "lr_halvings": result.halvings,
        "epochs_run": len(result.history),
        "stopped_early": result.stopped_at is not None,
        "stopped_by": result.stopped_by,
        "time_limit": args.time_limit,
        "best_epoch": result.best_epoch,
        "best_valid_MAPE": result.best_metric,
        "steps_per_epoch": result.steps_per_epoch,
        "valid_history": [h["valid_MAPE"] for h in result.history],
        "test_programs": len(programs),
        "test_MAPE": mape(preds, labels),
        "test_MAPE_renamed": mape(preds_renamed, [renamed_labels[i] for i in keep]),
        "train_seconds": round(seconds, 1),
        "device": args.device,
        "machine": machine(),
        "torch": torch.__version__,
    }
    path.write_text(json.dumps(record, indent=2))
    return record


def _reach(record: dict, target: float) -> int | None:
    """The first epoch whose validation MAPE is at most ``target``."""
    return next((i + 1 for i, m in enumerate(record["valid_history"]) if m <= target), None)


def _rows(records: list[dict]) -> list[dict]:
    """One row per (size, model): the seeds' figures, paired with vanilla's run of the same size and seed."""
    vanilla = {(r["train_size"], r["seed"]): r for r in records if r["name"] == "vanilla"}
    groups: dict[tuple[int, str], list[dict]] = {}
    for r in records:
        groups.setdefault((r["train_size"], r["name"]), []).append(r)
    rows = []
    for (n, name), runs in sorted(groups.items()):
        reach = []
        for r in runs:
            base = vanilla.get((n, r["seed"]))
            epoch = _reach(r, min(base["valid_history"])) if base else None
            reach.append((epoch, epoch * r["steps_per_epoch"] if epoch else None, base is not None))
        rows.append({"n": n, "name": name, "runs": runs, "reach": reach})
    return rows


def table(report: dict) -> str:
    """The table of a ``--report``: every (size, model), mean ± sd over the seeds."""
    return _table(report["records"])


def _table(records: list[dict]) -> str:
    """The markdown table of every (size, model)."""
    plateau = any(r.get("schedule") == "plateau" for r in records)  # runs from before the option were cosine
    lines = [
        "| train blocks | model | seeds | test MAPE | renamed test MAPE | best valid MAPE | epochs run "
        "(stopped early) | best epoch | epochs to vanilla's best valid | steps to it |"
        + (" learning-rate halvings |" if plateau else ""),
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if plateau else ""),
    ]
    for row in _rows(records):
        runs = row["runs"]
        reached = [(e, s) for e, s, paired in row["reach"] if e is not None]
        paired = sum(p for _, _, p in row["reach"])
        reach = f"{mean_sd([e for e, _ in reached], '{:.1f}')} ({len(reached)}/{paired})" if paired else "–"
        steps = mean_sd([s for _, s in reached], "{:.0f}") if reached else "–"
        lines.append(
            f"| {row['n']} | {row['name']} | {len(runs)} | {mean_sd([r['test_MAPE'] for r in runs])} % | "
            f"{mean_sd([r['test_MAPE_renamed'] for r in runs])} % | "
            f"{mean_sd([r['best_valid_MAPE'] for r in runs])} % | "
            f"{mean_sd([r['epochs_run'] for r in runs], '{:.1f}')} ({sum(r['stopped_early'] for r in runs)}) | "
            f"{mean_sd([r['best_epoch'] for r in runs], '{:.1f}')} | {reach} | {steps} |"
            + (f" {', '.join(_halvings(r) for r in runs)} |" if plateau else "")
        )
    return "\n".join(lines)


def _halvings(record: dict) -> str:
    """A plateau run's learning-rate halvings, or its schedule's name."""
    schedule = record.get("schedule", "cosine")
    return str(record["lr_halvings"]) if schedule == "plateau" else schedule


def by_seed(report: dict) -> str:
    """A row per model (and size, where the report has several), a column
    per seed: test MAPE / renamed; the best validation MAPE; epochs run and
    the best; the lowest and highest validation MAPE of the epochs the
    patience waited through."""
    records = report["records"]
    seeds = sorted({r["seed"] for r in records})
    several = len({r["train_size"] for r in records}) > 1
    lines = ["| model | " + " | ".join(f"seed {s}" for s in seeds) + " |", "|---|" + "---|" * len(seeds)]
    for n, name in sorted(
        {(r["train_size"], r["name"]) for r in records}, key=lambda k: (k[0], k[1] != "vanilla", k[1])
    ):
        runs = {r["seed"]: r for r in records if (r["train_size"], r["name"]) == (n, name)}
        label = f"{name}, {n:,}" if several else name
        lines.append(f"| {label} | " + " | ".join(_seed_cell(runs[s]) if s in runs else "–" for s in seeds) + " |")
    return "\n".join(lines)


def programs(report: dict) -> str:
    """A row per training size: the blocks asked for, and the training,
    validation and test programs the runs read (blocks the model cannot
    read, or without a label, are not among them)."""
    lines = ["| blocks asked for | training programs | validation programs | test programs |", "|---|---|---|---|"]
    for n in sorted({r["train_size"] for r in report["records"]}):
        runs = [r for r in report["records"] if r["train_size"] == n]
        cells = [
            " / ".join(dict.fromkeys(f"{r[key]:,}" for r in runs))
            for key in ("train_programs", "valid_programs", "test_programs")
        ]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _seed_cell(r: dict) -> str:
    """One run's cell of :func:`by_seed`."""
    waited = r["valid_history"][r["best_epoch"] :]
    tail = f"{min(waited):.1f}–{max(waited):.1f} %" if waited else "–"
    return (
        f"{r['test_MAPE']:.2f} / {r['test_MAPE_renamed']:.2f} %; {r['best_valid_MAPE']:.2f} %; "
        f"{r['epochs_run']}, {r['best_epoch']}; {tail}"
    )


def summary(reports: list[dict] | dict) -> str:
    """Test MAPE by training size over several reports: ``renamer``,
    ``vanilla`` and ``vanilla`` on renamed blocks (mean ± sd over seeds),
    then the Renamer paper's Tables 1 and 2 (Tiny, all of BHive)."""
    records = [r for rep in (reports if isinstance(reports, list) else [reports]) for r in rep["records"]]
    lines = ["| training blocks | `renamer` | `vanilla` | `vanilla`, renamed blocks |", "|---|---|---|---|"]
    for n in sorted({r["train_size"] for r in records}):
        runs = {m: [r for r in records if (r["train_size"], r["name"]) == (n, m)] for m in ("renamer", "vanilla")}
        cells = [
            mean_sd([r["test_MAPE"] for r in runs["renamer"]], unit=" %"),
            mean_sd([r["test_MAPE"] for r in runs["vanilla"]], unit=" %"),
            mean_sd([r["test_MAPE_renamed"] for r in runs["vanilla"]], unit=" %"),
        ]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines.append("| *paper: all of BHive, 500 epochs (Tables 1, 2)* | *2.39%* | *3.30%* | *5.26%* |")
    return "\n".join(lines)


def findings(records: list[dict]) -> dict:
    """The JSON report of ``records`` (``--report FILE``): the runs' records,
    the machines they ran on, and the paper's claim they answer."""
    return {
        "bench": "bench_learning_curve",
        "machines": sorted({r.get("machine", "not recorded") for r in records}),
        "paper": PAPER,
        "records": sorted(records, key=lambda r: (r["train_size"], r["name"], r["seed"])),
    }


def plot(records: list[dict], path: Path) -> None:
    """Test MAPE against training blocks (mean ± sd over seeds), and each
    run's validation curve at the largest size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = sorted({r["name"] for r in records})
    sizes = sorted({r["train_size"] for r in records})
    for name in names:
        xs, ys, sds = [], [], []
        for n in sizes:
            vals = [r["test_MAPE"] for r in records if r["name"] == name and r["train_size"] == n]
            if vals:
                xs.append(n)
                ys.append(statistics.mean(vals))
                sds.append(statistics.stdev(vals) if len(vals) > 1 else 0.0)
        left.errorbar(xs, ys, yerr=sds, marker="o", capsize=3, label=name)
    left.set(xscale="log", xlabel="training blocks", ylabel="test MAPE (%)", title="test MAPE (mean ± sd over seeds)")
    left.set_xticks(sizes, [f"{n:,}" for n in sizes])  # each size studied, and no other tick
    left.minorticks_off()
    left.legend()
    colours = {name: f"C{i}" for i, name in enumerate(names)}
    for r in records:
        if r["train_size"] == sizes[-1]:
            right.plot(
                range(1, len(r["valid_history"]) + 1),
                r["valid_history"],
                color=colours[r["name"]],
                alpha=0.7,
                label=f"{r['name']}" if r["seed"] == min(x["seed"] for x in records) else None,
            )
    finals = [min(r["valid_history"]) for r in records if r["train_size"] == sizes[-1]]
    right.set_ylim(0.8 * min(finals), 3 * statistics.median(finals))  # the first epochs can be far off
    right.set(xlabel="epoch", ylabel="validation MAPE (%)", title=f"validation curves, {sizes[-1]} blocks")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(args) -> str:
    """Write the table and the plot of every finished run; return the table's text."""
    out = Path(args.out)
    records = (
        [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))] if (out / "runs").exists() else []
    )
    if not records:
        return "nothing trained yet"
    text = "\n".join([f"machine: {machine()}; torch {torch.__version__}", "", _table(records), "", PAPER])
    (out / "learning-curve.md").write_text(text + "\n")
    plot(records, out / "learning-curve.png")
    if args.report:
        Path(args.report).write_text(json.dumps(findings(records), indent=1) + "\n")
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--archs", nargs="*", default=["vanilla", "augmented", "canonicalized", "renamer"])
    ap.add_argument("--variant", action="append", default=[], help="NAME=ARCH:field=value,... (repeatable)")
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="cosine",
        help="cosine: decay over --max-epochs; plateau: halve after --plateau epochs without improvement",
    )
    ap.add_argument("--plateau", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument(
        "--precision", choices=PRECISIONS, default="fp32", help="training precision (invar train --precision)"
    )
    ap.add_argument("--test-limit", type=int, default=None)
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="stop each run after the first epoch that ends this many seconds after its start",
    )
    ap.add_argument("--report-only", action="store_true", help="train nothing: the table and plot of what is done")
    ap.add_argument("--report", type=Path, help="also write every finished run's record to this JSON (bench/tables.py)")
    args = ap.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        torch.set_num_threads(args.threads)
        models = [(a, a, {}) for a in args.archs] + [parse_variant(v) for v in args.variant]
        test = test_set(Path(args.data), Path(args.out), args.test_limit)
        for n in args.sizes:
            for seed in args.seeds:
                for name, arch, overrides in models:
                    r = run_one(name, arch, overrides, n, seed, args, test)
                    print(
                        f"{name} n={n} seed={seed}: test MAPE {r['test_MAPE']:.2f} % after {r['epochs_run']} "
                        f"epochs (best {r['best_epoch']})",
                        flush=True,
                    )
    print(report(args))


if __name__ == "__main__":
    main()
