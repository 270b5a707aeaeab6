"""The copy task of the interchangeable-token paper on CPU: train on strings
over 5 symbols, test on strings with up to 30 distinct symbols.

A dataset is written as ``invar data copy`` writes it; each architecture is
trained with ``invar.train`` and its best epoch predicts every test string
(greedy decoding, the model's beam otherwise). Reported: mean edit distance
between prediction and string by number of distinct symbols (buckets of 5),
and the share copied exactly; then each architecture's table by (distinct
symbols, length) cell, as the interchangeable-token paper lays its copy
results out (``invar.tasks.copy.by_cell``: a refused string counts as an
empty output, its distance its length). ``vanilla`` has a fixed vocabulary:
a test string with a symbol it never saw is refused, and counted as refused.
``--sampler distinct`` draws the training strings as the test strings are
(the number of distinct symbols first; ``invar.tasks.copy``).

``--beam K ...`` decodes the test strings with each beam width (1: greedy,
as the paper decodes its copy models and as the task's models do by
default); the first gives the report's figures, each in ``decodings``.
``--rescore REPORT`` decodes the checkpoints a report's runs left in
``--out`` again, with ``--beam``, and writes the report anew to ``--report``
(else in place; training fields kept; one seed's report, not a merged one).

    python bench/bench_copy.py --out DIR [--train 10000] [--epochs 10] [--archs dualpart lexinvariant vanilla]
                               [--sampler uniform|distinct] [--seed 0] [--patience N] [--beam 1 3]
                               [--report FILE.json]
    python bench/bench_copy.py --out DIR --rescore OLD.json --beam 1 3 --report FILE.json
    python bench/bench_copy.py --out DIR --merge SEED0.json SEED1.json ... --report FILE.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch
from common import machine, mean_sd, spread

import invar
from invar.errors import ModelError
from invar.tasks import copy
from invar.train import train


def evaluate(path: Path, data: Path, beams: list[int] | None = None) -> dict:
    """The checkpoint's test figures decoded with the first of ``beams``
    (None: the model's own beam), and under ``decodings`` with each."""
    model = invar.load_model(path)
    beams = beams or [model.config.beam]
    decodings = {str(k): _decoded(model, data, k) for k in beams}
    return {**decodings[str(beams[0])], "beam": beams[0], "decodings": decodings}


def _decoded(model, data: Path, beam: int, batch: int = 64) -> dict:
    examples = copy.read_split(data, "test")
    buckets: dict[int, list[float]] = {}
    predictions: list = []
    exact = refused = 0
    for start in range(0, len(examples), batch):
        chunk = examples[start : start + batch]
        programs = [copy.parse(ex.source) for ex in chunk]
        try:
            outs = model.predict(programs, beam=beam)
        except ModelError:  # one refused string refuses the batch: go one by one
            outs = []
            for p in programs:
                try:
                    outs.append(model.predict([p], beam=beam)[0])
                except ModelError:
                    outs.append(None)
        predictions += outs
        for ex, out in zip(chunk, outs):
            k = (len(set(ex.source)) - 1) // 5
            if out is None:
                refused += 1
                continue
            buckets.setdefault(k, []).append(copy.edit_distance(out, ex.source))
            exact += out == ex.source
    rows = {f"{5 * k + 1}-{5 * k + 5}": (statistics.fmean(v), len(v)) for k, v in sorted(buckets.items())}
    cells = copy.by_cell([ex.source for ex in examples], predictions)
    return {
        "by_symbols": rows,
        "exact": exact / len(examples),
        "refused": refused,
        "n": len(examples),
        "by_cell": cells.markdown(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--train", type=int, default=10000)
    ap.add_argument("--test", type=int, default=1500)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--patience", type=int, default=None, help="stop once N epochs bring no better validation")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--archs", nargs="+", default=["dualpart", "lexinvariant", "vanilla"])
    ap.add_argument(
        "--sampler",
        choices=copy.SAMPLERS,
        default="uniform",
        help="how training strings are drawn (distinct: as the test strings are)",
    )
    ap.add_argument("--seed", type=int, default=0, help="the training seed (the data's is 0)")
    ap.add_argument("--report", type=Path, default=None, help="also write the results to this JSON file")
    ap.add_argument("--merge", type=Path, nargs="+", default=None, help="write one report of these seeds' reports")
    ap.add_argument("--beam", type=int, nargs="+", default=None, help="decode the test strings with these beam widths")
    ap.add_argument("--rescore", type=Path, default=None, help="decode a report's checkpoints in --out again")
    args = ap.parse_args()
    if args.rescore:
        report = json.loads(args.rescore.read_text())
        if "seeds" in report:
            raise SystemExit(f"{args.rescore}: a merged report; decode each seed's report again, then --merge")
        torch.set_num_threads(args.threads)
        for arch, result in report["results"].items():
            result.update(evaluate(args.out / f"{arch}.pt", args.out / "data", args.beam))
        (args.report or args.rescore).write_text(json.dumps(report, indent=1) + "\n")
        print(table(report))
        return
    if args.merge:
        report = merged([json.loads(path.read_text()) for path in args.merge])
        args.report.write_text(json.dumps(report, indent=1) + "\n")
        print(table(report))
        return
    torch.set_num_threads(args.threads)
    data = args.out / "data"
    if not (data / "meta.json").exists():
        copy.generate(
            data,
            train=args.train,
            valid=500,
            test=args.test,
            train_symbols=5,
            test_symbols=30,
            max_length=30,
            seed=0,
            sampler=args.sampler,
        )
    results = {}
    for arch in args.archs:
        ckpt = args.out / f"{arch}.pt"
        t0 = time.perf_counter()
        run = train(
            task="copy",
            data=data,
            arch=arch,
            out=ckpt,
            epochs=args.epochs,
            patience=args.patience,
            batch_size=args.batch_size,
            threads=args.threads,
            lr=1e-3,
            seed=args.seed,
            resume=True,
        )
        seconds = time.perf_counter() - t0
        results[arch] = {
            **evaluate(ckpt, data, args.beam),
            "train_seconds": seconds,
            "best_epoch": run.best_epoch,
            "epochs_run": len(run.history),
            "valid": run.best_metric,
        }
        print(json.dumps({arch: results[arch]}), flush=True)
    report = {
        "machine": machine(),
        "torch": torch.__version__,
        "train": args.train,
        "epochs": args.epochs,
        "patience": args.patience,
        "sampler": args.sampler,
        "seed": args.seed,
        "results": results,
    }
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{machine()}; torch {torch.__version__}; {args.train} training strings, {args.epochs} epochs, tiny")
    print(table(report))


def _buckets(tables) -> list[str]:
    """The buckets of distinct symbols (``"1-5"``, …) some ``by_symbols`` holds, in order."""
    return sorted({b for t in tables for b in t}, key=lambda b: int(b.split("-")[0]))


def _cells(by_symbols: dict, buckets: list[str]) -> list[str]:
    """Mean edit distance per bucket, ``–`` where the run has none."""
    return [f"{by_symbols[b][0]:.2f}" if b in by_symbols else "–" for b in buckets]


def merged(reports: list[dict]) -> dict:
    """One report of several seeds' reports of the same settings (``--merge``)."""
    keys = ("train", "epochs", "patience", "sampler")
    if len({tuple(r.get(k) for k in keys) for r in reports}) != 1:
        raise SystemExit("--merge: the reports were run with other settings")
    return {**{k: reports[0].get(k) for k in ("machine", "torch", *keys)}, "seeds": reports}


def seeds_table(report: dict) -> str:
    """A merged report's table: a row per seed and architecture (mean edit
    distance by distinct symbols, copied exactly, epochs), then mean ± sd."""
    runs = [(r["seed"], arch, x) for r in report["seeds"] for arch, x in r["results"].items()]
    buckets = _buckets(x["by_symbols"] for _, _, x in runs)
    lines = [
        "| architecture, seed | "
        + " | ".join(f"{b} symbols" for b in buckets)
        + " | copied exactly | best epoch / run | training (min) |",
        "|---|" + "---|" * (len(buckets) + 3),
    ]
    for seed, arch, x in runs:
        cells = " | ".join(_cells(x["by_symbols"], buckets))
        lines.append(
            f"| {arch}, {seed} | {cells} | {100 * x['exact']:.1f} % | {x['best_epoch']} / {x.get('epochs_run', '–')} "
            f"| {x['train_seconds'] / 60:.0f} |"
        )
    for arch in dict.fromkeys(a for _, a, _ in runs):
        xs = [x for _, a, x in runs if a == arch]
        cells = " | ".join(mean_sd([x["by_symbols"][b][0] for x in xs if b in x["by_symbols"]]) for b in buckets)
        exact = mean_sd([100 * x["exact"] for x in xs], "{:.1f}", " %")
        lines.append(f"| **{arch}**, mean ± sd | {cells} | **{exact}** | | |")
    return "\n".join(lines)


def decodings(report: dict | list[dict]) -> str:
    """Each run decoded with each beam width of ``--beam``: mean edit
    distance by distinct symbols and the share copied exactly (a merged
    report: a row per seed, then mean ± sd per beam; several reports: each
    one's rows, its sampler named)."""
    reports = report if isinstance(report, list) else [report]
    runs = [
        (r["seed"] if len(reports) == 1 else f"{r['sampler']}, {r['seed']}", a, x)
        for one in reports
        for r in one.get("seeds", [one])
        for a, x in r["results"].items()
    ]
    beams = list(runs[0][2]["decodings"])
    buckets = _buckets(d["by_symbols"] for _, _, x in runs for d in x["decodings"].values())
    who = "architecture, seed" if len(reports) == 1 else "architecture (sampler, seed)"
    lines = [
        f"| {who} | decoding | " + " | ".join(f"{b} symbols" for b in buckets) + " | copied exactly |",
        "|---|---|" + "---|" * (len(buckets) + 1),
    ]

    def decoding(k: str) -> str:
        return "greedy" if k == "1" else f"beam {k}"

    for seed, arch, x in runs:
        for k in beams:
            d = x["decodings"][k]
            cells = " | ".join(_cells(d["by_symbols"], buckets))
            run = f"{arch}, {seed}" if len(reports) == 1 else f"{arch} ({seed})"
            lines.append(f"| {run} | {decoding(k)} | {cells} | {100 * d['exact']:.1f} % |")
    if len(reports) == 1 and len(runs) > 1:
        for arch in dict.fromkeys(a for _, a, _ in runs):
            for k in beams:
                ds = [x["decodings"][k] for _, a, x in runs if a == arch]
                by = [[d["by_symbols"][b][0] for d in ds if b in d["by_symbols"]] for b in buckets]
                cells = " | ".join(mean_sd(xs) for xs in by)
                exact = mean_sd([100 * d["exact"] for d in ds], "{:.1f}", " %")
                lines.append(f"| **{arch}**, mean ± sd | {decoding(k)} | {cells} | **{exact}** |")
    return "\n".join(lines)


#: the buckets of distinct symbols docs/results.md shows
BUCKETS = ("1-5", "6-10", "11-15", "16-20", "21-25", "26-30")


def summary(reports: list[dict]) -> str:
    """docs/results.md's table: a row per architecture of each report (mean ±
    sd over the seeds of a merged one), mean edit distance by distinct
    symbols and the share copied exactly; then `vanilla` (it refuses every
    test string: tests/tasks/test_copy_task.py) and the paper, quoted."""
    lines = [
        "| model | " + " | ".join(b.replace("-", "–") for b in BUCKETS) + " | copied exactly |",
        "|---|" + "---|" * (len(BUCKETS) + 1),
    ]
    for report in reports:
        seeds = report.get("seeds", [report])
        for arch in seeds[0]["results"]:
            xs = [r["results"][arch] for r in seeds]
            budget = f"{report['epochs']} epochs"
            if report.get("patience"):
                budget = f"to a patience of {report['patience']}"
            runs = f"{len(xs)} seeds" if len(xs) > 1 else f"seed {seeds[0]['seed']}"
            cells = [spread([x["by_symbols"][b][0] for x in xs]) for b in BUCKETS]
            exact = spread([100 * x["exact"] for x in xs], "{:.1f}", " %")
            model = f"`{arch}`, {report['sampler']} training strings, {budget}, {runs}"
            lines.append(f"| {model} | " + " | ".join(cells) + f" | {exact} |")
    lines.append("| `vanilla` | every test string refused |" + " |" * len(BUCKETS))
    lines.append(
        "| *paper (section 5.1.1)* | *0.0 for 20 of 27 dual-part models, up to 30 symbols* |" + " |" * len(BUCKETS)
    )
    return "\n".join(lines)


def table(report: dict) -> str:
    """The report's table: mean edit distance by distinct symbols (buckets
    of 5), the share copied exactly, then each architecture's table by
    (distinct symbols, length) cell; a merged report's, :func:`seeds_table`."""
    if "seeds" in report:
        return seeds_table(report)
    results = report["results"]
    buckets = _buckets(r["by_symbols"] for r in results.values())
    lines = [
        "| architecture (sampler, seed) | "
        + " | ".join(f"{b} symbols" for b in buckets)
        + " | copied exactly | refused | best epoch |",
        "|---|" + "---|" * (len(buckets) + 3),
    ]
    for arch, r in results.items():
        cells = _cells(r["by_symbols"], buckets)
        lines.append(
            f"| {arch} ({report['sampler']}, {report['seed']}) | "
            + " | ".join(cells)
            + f" | {100 * r['exact']:.1f} % | {r['refused']} of {r['n']} | {r['best_epoch']} |"
        )
    for arch, r in results.items():
        lines.append(f"\n{arch}: mean edit distance by (distinct symbols, length)\n\n{r['by_cell']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
