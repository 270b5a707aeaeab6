"""Audit throughput on real BHive blocks, and the Renamer paper's Figure 2 end to end.

    python bench/bench_audit.py --models vanilla=V.pt renamer=R.pt [--blocks 256] [--variants 16]
                                [--naive 32] [--mca 2000] [--figure2 100000] [--threads 1] [--repeat 3]
                                [--report audit-throughput.json]

Throughput, per model, on the first ``--blocks`` BHive blocks (every
distinct block of ../shared/data/bhive, in hash order, at most 128 tokens),
``--variants`` renamings each, all three paths on the same variants:

* **batched audit**: ``invar.audit`` as the CLI runs it (variants by id
  remap, batches of 64); with the share of its time spent outside the
  network's forward pass;
* **naive loop**: one variant at a time, as one writes it by hand: render
  the renamed text, parse it, encode it, predict it alone (a prefix of the
  blocks: it is slow);
* **batched llvm-mca**: the variants' texts labelled by llvm-mca itself,
  1,000 per process (``invar data bhive``'s batching; a prefix too): what the
  surrogate replaces.

Figure 2: 100,000 renamings of one block through each model, end to end
(``invar audit --example … --variants 100000`` in a fresh process: start,
load, draw, encode, predict, report), beside the paper's vanilla range of
1.11 to 4.86 cycles. Two blocks: Figure 1(a) (3,360 renamings: the audit
takes every one) and the first BHive block in hash order of at most 32
tokens with at least 100,000 renamings.

``--blocks 0`` leaves the throughput out, ``--figure2 0`` Figure 2. With
``--report`` all of it is written as JSON with the machine, torch's and
llvm-mca's versions, the arguments and the load average; :func:`table`
renders that report (the throughput table of docs/benchmarks/audit.md, the
Figure 2 table of docs/benchmarks/bhive.md, whichever it holds).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, finish, load_range, machine, measure

import invar
from invar.audit import audit
from invar.audit.datasets import load
from invar.audit.run import draw, example_seed, variant_text
from invar.data.bhive import label_texts, llvm_mca_version
from invar.frontends.x86.hexblock import decode

BHIVE = ROOT.parent / "shared" / "data" / "bhive"
PAPER_RANGE = (1.11, 4.86)


def blocks(n: int) -> list:
    """The first n BHive blocks (hash order) of at most 128 tokens, as programs."""
    data = load("bhive", data_dir=str(BHIVE))
    out = []
    for ex in data.examples:
        if ex.error is not None:
            continue
        try:
            p = decode(ex.source)
        except invar.InvarError:
            continue
        if len(p.tokens) <= 128:
            out.append(p)
        if len(out) == n:
            break
    return out


def variants_of(programs: list, k: int, seed: int) -> list[list[str]]:
    """The texts of the variants the audit draws (same seed, same ids)."""
    out = []
    for i, p in enumerate(programs):
        drawn = draw(p, "renamings", k, random.Random(example_seed(seed, f"#{i}")))
        out.append([variant_text(p, drawn.rspace, v) for v in drawn.variants])
    return out


def batched(path: str, programs: list, args) -> tuple[float, float, int, float]:
    """(predictions/s, share of time outside the forward pass, predictions, seconds)."""
    result = audit(path, programs, variants=args.variants, batch_size=64, threads=args.threads)
    run = result.report["run"]
    return (
        run["predictions"] / run["seconds"],
        1 - run["forward_seconds"] / run["seconds"],
        run["predictions"],
        run["seconds"],
    )


def naive(model, programs: list, texts: list[list[str]]) -> float:
    """Predictions/s of the loop one writes by hand: render, parse, encode and
    predict one variant at a time."""
    n = 0
    t = time.perf_counter()
    for i, p in enumerate(programs):
        model.predict([p], batch_size=1)
        for text in texts[i]:
            model.predict([invar.parse(text, "x86")], batch_size=1)
        n += 1 + len(texts[i])
    return n / (time.perf_counter() - t)


def throughput(models: dict, programs: list, texts: list[list[str]], args) -> list[dict]:
    """Each path ``--repeat`` times, the models taking turns; medians."""
    import torch

    torch.set_num_threads(args.threads)
    loaded = {name: invar.load_model(path) for name, path in models.items()}
    runs: dict[str, dict[str, list]] = {name: {"batched": [], "outside": [], "naive": []} for name in models}
    for _ in range(args.repeat):
        for name, path in models.items():
            rate, outside, predictions, _seconds = batched(path, programs, args)
            runs[name]["batched"].append(rate)
            runs[name]["outside"].append(outside)
            runs[name]["naive"].append(naive(loaded[name], programs[: args.naive], texts))
    return [
        {"model": name, "predictions": predictions, **{k: statistics.median(v) for k, v in r.items()}}
        for name, r in runs.items()
    ]


def mca_rate(programs: list, texts: list[list[str]], limit: int, repeat: int) -> float:
    """Predictions/s of llvm-mca itself on the same texts, 1,000 per process; median."""
    flat = []
    for p, ts in zip(programs, texts):
        flat += [p.render()] + ts
    flat = flat[:limit]
    rates = []
    for _ in range(repeat):
        t = time.perf_counter()
        for lo in range(0, len(flat), 1000):
            label_texts(flat[lo : lo + 1000])
        rates.append(len(flat) / (time.perf_counter() - t))
    return statistics.median(rates)


def figure2(models: dict, n: int, threads: int) -> list[dict]:
    big = None
    for ex in load("bhive", data_dir=str(BHIVE)).examples:
        if ex.error is None:
            try:
                p = decode(ex.source)
            except invar.InvarError:
                continue
            if len(p.tokens) <= 32 and invar.renamings(p).count() >= n:
                big = p
                break
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("Figure 1(a)", str(ROOT / "fixtures" / "x86" / "figure1a.s"), "figure1a.s:1")]
        bigfile = Path(tmp) / "block.s"
        bigfile.write_text(big.render() + "\n")
        cases.append((f"BHive block, {invar.renamings(big).count():,} renamings", str(bigfile), "block.s:1"))
        for label, dataset, example in cases:
            text = Path(dataset).read_text()
            cycles = label_texts([text])[0][0] / 100  # llvm-mca's label of the block, for scale
            for name, path in models.items():
                out = Path(tmp) / "r.json"
                seconds, rss = measure(
                    [
                        "audit",
                        "--model",
                        path,
                        "--task",
                        "bhive",
                        "--dataset",
                        dataset,
                        "--example",
                        example,
                        "--variants",
                        str(n),
                        "--threads",
                        str(threads),
                        "--quiet",
                        "--format",
                        "json",
                        "--out",
                        str(out),
                    ],
                    timeout=1800,
                )
                rep = json.loads(out.read_text())["example"] if seconds is not None else None
                rows.append(
                    {
                        "block": label,
                        "model": name,
                        "seconds": seconds,
                        "rss_mb": (rss or 0) / 1024,
                        "cycles": cycles,
                        "predictions": rep["variants"] + 1 if rep else None,
                        "min": rep["min"] if rep else None,
                        "max": rep["max"] if rep else None,
                        "distinct": rep["distinct"] if rep else None,
                    }
                )
    return rows


def throughput_table(report: dict) -> str:
    """Each model's batched audit and naive loop, against llvm-mca's batched labelling."""
    args, mca = report["args"], report["llvm_mca_per_s"]
    lines = [
        "| model | batched audit, predictions/s | naive loop, predictions/s | batched / naive "
        "| batched / llvm-mca | audit time outside the forward pass |",
        "|---|---|---|---|---|---|",
    ]
    for r in report["throughput"]:
        lines.append(
            f"| {r['model']} | {r['batched']:,.0f} | {r['naive']:,.0f} | {r['batched'] / r['naive']:.1f}× "
            f"| {r['batched'] / mca:.1f}× | {100 * r['outside']:.0f} % |"
        )
    lines += [
        f"| llvm-mca {report['llvm_mca']}, batched ({report['llvm_mca_variants']:,} variants) | {mca:,.0f} | | | | |",
        "",
        f"{report['blocks_audited']:,} BHive blocks × (1 + {args['variants']} renamings), "
        f"{report['throughput'][0]['predictions']:,} predictions; the naive loop on the first "
        f"{min(args['naive'], report['blocks_audited']):,} blocks; "
        + (f"medians of {args['repeat']} runs" if args["repeat"] > 1 else "one run")
        + f", the models taking turns; torch {report['torch']}, {args['threads']} "
        + ("thread." if args["threads"] == 1 else "threads."),
    ]
    return "\n".join(lines)


def figure2_table(report: dict) -> str:
    """Figure 2: each block's renamings through each model, end to end in a fresh process."""
    n = report["args"]["figure2"]
    lines = [
        f"Figure 2: {n:,} renamings of one block, end to end (fresh process); the paper's vanilla: "
        f"{PAPER_RANGE[0]} to {PAPER_RANGE[1]} cycles",
        "",
        "| block (llvm-mca cycles) | model | predictions | wall time | predicted range (cycles) "
        "| distinct predictions | peak memory |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report["figure2"]:
        if r["seconds"] is None:
            lines.append(f"| {r['block']} ({r['cycles']:.2f}) | {r['model']} | failed | | | | |")
            continue
        lines.append(
            f"| {r['block']} ({r['cycles']:.2f}) | {r['model']} | {r['predictions']:,} | {r['seconds']:.1f} s "
            f"| {r['min']:.2f} to {r['max']:.2f} | {r['distinct']:,} | {r['rss_mb']:.0f} MB |"
        )
    return "\n".join(lines)


def table(report: dict) -> str:
    """The report's throughput table and its Figure 2 table (those it holds), then the load average."""
    parts = []
    if "throughput" in report:
        parts.append(throughput_table(report))
    if "figure2" in report:
        parts.append(figure2_table(report))
    parts.append(f"Load average (1 min) at the start and at the end: {load_range(report)}.")
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> dict:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", required=True, help="NAME=CHECKPOINT (tiny models trained on BHive)")
    ap.add_argument("--blocks", type=int, default=256, help="blocks for the throughput (0: no throughput)")
    ap.add_argument("--variants", type=int, default=16)
    ap.add_argument("--naive", type=int, default=32, help="blocks for the naive loop")
    ap.add_argument("--mca", type=int, default=2000, help="variants for llvm-mca")
    ap.add_argument("--figure2", type=int, default=100000, help="renamings of each Figure 2 block (0: no Figure 2)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each throughput path (medians)")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    # absolute: Figure 2's fresh processes run from the repository's root
    models = {name: str(Path(path).resolve()) for name, path in (m.split("=", 1) for m in args.models)}
    print(f"# {machine()}; torch threads {args.threads}; load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    report = {
        "bench": "audit",
        "machine": machine(),
        "torch": torch.__version__,
        "llvm_mca": llvm_mca_version(),
        "args": vars(args),
        "load_average_before": os.getloadavg(),
    }
    started = time.perf_counter()
    if args.blocks:
        programs = blocks(args.blocks)
        texts = variants_of(programs, args.variants, args.seed)
        report["blocks_audited"] = len(programs)
        report["throughput"] = throughput(models, programs, texts, args)
        report["llvm_mca_per_s"] = mca_rate(programs, texts, args.mca, args.repeat)
        report["llvm_mca_variants"] = min(args.mca, sum(1 + len(t) for t in texts))
    if args.figure2:
        report["figure2"] = figure2(models, args.figure2, args.threads)
    report["load_average_after"] = os.getloadavg()
    report["wall_seconds"] = time.perf_counter() - started
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
