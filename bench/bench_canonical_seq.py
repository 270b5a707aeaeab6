"""Canonicalized sequence models against dualpart, in and out of distribution,
at a tiny scale: correct rate (ltl) and copy error (copy) on inputs with as
many distinct names as training had, and with more; alpha-covariance by the
audit.

LTL: ``invar data ltl`` formulas over 5 APs (sizes spread evenly up to
--max-size), split by a hash of the formula into train/valid/test; the
out-of-distribution set holds formulas with exactly k distinct APs, k = 6..8
(drawn over a..h, each with a satisfying trace from the exact checker). Copy:
``invar data copy`` (training strings over a-e; test strings with up to
--test-symbols distinct symbols of a-z A-Z), the test strings split into
those with at most 5 distinct symbols and those with more.

Each architecture is trained with ``invar.train`` for every seed and its
best epoch audited with ``invar.audit`` under renamings (--variants per
input, beam 3): the audit's metric on the originals and its alpha-covariance.

    python bench/bench_canonical_seq.py --out DIR [--num 2400] [--epochs 8] [--seeds 0 1 2]
                                        [--archs dualpart canonicalized canonicalized+dualpart]
    python bench/bench_canonical_seq.py --out DIR --table [--report REPORT]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import torch
from common import machine

import invar
from invar.frontends.ltl.check import satisfying_trace
from invar.frontends.ltl.formula import to_polish
from invar.frontends.ltl.generate import GeneratorConfig, generate_file, random_formula
from invar.frontends.ltl.trace import to_trace_text
from invar.tasks import copy, ltl
from invar.train import train

OOD = range(6, 9)


def ltl_data(out: Path, num: int, max_size: int, per_k: int) -> tuple[Path, dict[int, Path]]:
    """The dataset directory and one pair file per out-of-distribution AP count."""
    data, raw = out / "ltl", out / "ltl5.txt"
    if not (data / "test.txt").exists():
        generate_file(GeneratorConfig(num=num, aps=5, max_size=max_size, seed=0), raw, jobs=1)
        data.mkdir(parents=True, exist_ok=True)
        for split in ltl.SPLITS:
            rows = ltl.read_split(raw, split)
            (data / f"{split}.txt").write_text("".join(ex.source.replace("\t", "\n") + "\n" for ex in rows))
    wide = {}
    for k in OOD:
        path = wide[k] = out / f"ltl-aps{k}.ltl"
        if path.exists():
            continue
        rng, lines = random.Random(100 + k), []
        while len(lines) < per_k:
            f = random_formula(rng, rng.randint(2 * k, max(2 * k, max_size)), ltl.POOL[:k])
            polish = to_polish(f)
            if len(set(ltl.parse(polish).referents)) != k:
                continue
            trace = satisfying_trace(f, max_states=ltl.CHECK_STATES, timeout=ltl.CHECK_TIMEOUT)
            if trace is not None:
                lines.append(f"{polish}\t{to_trace_text(trace)}\n")
        path.write_text("".join(lines))
    return data, wide


def copy_data(out: Path, n: int, test_symbols: int, max_length: int) -> Path:
    data = out / "copy"
    if not (data / "meta.json").exists():
        copy.generate(
            data, train=n, valid=max(50, n // 10), test=300, test_symbols=test_symbols, max_length=max_length, seed=0
        )
    return data


def audited(path: Path, dataset, limit: int, variants: int) -> dict:
    report = invar.audit(model=str(path), dataset=str(dataset), limit=limit, variants=variants)
    return {
        "metric": report["metric"]["original"],
        "alpha": report["alpha_covariance"]["mean"],
        "violation_rate": report["violation_rate"],
        "errors": report["errors"],
        "audited": report["audited"],
    }


def copy_scores(path: Path, data: Path) -> dict:
    """Mean edit distance and exact copies, for test strings of at most 5 and of more distinct symbols."""
    model = invar.load_model(path)
    test = [ex.source for ex in copy.read_split(data, "test")]
    out = model.predict([copy.parse(s) for s in test])
    rows = {"in": [], "out": []}
    for s, y in zip(test, out):
        rows["in" if len(set(s)) <= 5 else "out"].append(
            (copy.edit_distance(y if isinstance(y, str) else "", s), y == s)
        )
    return {
        f"{part}_{what}": (statistics.mean(r[i] for r in v) * (100 if i else 1) if v else None)
        for part, v in rows.items()
        for i, what in ((0, "edit"), (1, "exact"))
    }


def run(args) -> dict:
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data, wide = ltl_data(out, args.num, args.max_size, args.per_k) if "ltl" in args.tasks else (None, {})
    cdata = copy_data(out, args.copy_train, args.test_symbols, args.max_length) if "copy" in args.tasks else None
    saved = out / "results.json"
    results = json.loads(saved.read_text()) if saved.exists() else {"ltl": {}, "copy": {}}
    results.update(machine=machine(), **{f"args_{t}": vars(args) for t in args.tasks})
    common = dict(epochs=args.epochs, batch_size=64, lr=1e-3, threads=1)
    for arch in args.archs:
        for seed in args.seeds:
            if "ltl" in args.tasks:
                results["ltl"][f"{arch}/{seed}"] = ltl_run(arch, seed, data, wide, out, common, args)
            if "copy" in args.tasks:
                results["copy"][f"{arch}/{seed}"] = copy_run(arch, seed, cdata, out, common, args)
            saved.write_text(json.dumps(results, indent=1))
    return results


def trained(task: str, arch: str, seed: int, data: Path, out: Path, common: dict) -> tuple[Path, dict]:
    """``arch`` trained on ``task`` at ``seed``: its checkpoint, and its row's training seconds and best epoch."""
    path = out / f"{task}-{arch}-{seed}.pt"
    t = time.perf_counter()
    res = train(task=task, data=data, arch=arch, out=path, seed=seed, **common)
    return path, {"seconds": time.perf_counter() - t, "best_epoch": res.best_epoch}


def ltl_run(arch: str, seed: int, data: Path, wide: dict, out: Path, common: dict, args) -> dict:
    path, row = trained("ltl", arch, seed, data, out, common)
    row["test"] = audited(path, data / "test.txt", args.audit, args.variants)
    for k, file in wide.items():
        row[f"aps{k}"] = audited(path, file, args.audit, args.variants)
    print(arch, seed, "ltl", json.dumps(row), flush=True)
    return row


def copy_run(arch: str, seed: int, cdata: Path, out: Path, common: dict, args) -> dict:
    path, timing = trained("copy", arch, seed, cdata, out, common)
    row = {**timing, **copy_scores(path, cdata), "audit": audited(path, cdata / "test.txt", args.audit, args.variants)}
    print(arch, seed, "copy", json.dumps(row), flush=True)
    return row


def _ms(xs: list) -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "–"
    return f"{statistics.mean(xs):.1f} ± {statistics.stdev(xs):.1f}" if len(xs) > 1 else f"{xs[0]:.1f}"


def table(results: dict) -> str:
    archs = list(dict.fromkeys(k.split("/")[0] for part in ("ltl", "copy") for k in results[part]))
    lines = [
        "| architecture | correct, 5 APs (test) | "
        + " | ".join(f"correct, {k} APs" for k in OOD)
        + " | alpha-covariance (test / 6–8 APs) | violation rate | training |",
        "|---" * (5 + len(OOD)) + "|",
    ]
    for arch in archs:
        rows = [v for k, v in results["ltl"].items() if k.split("/")[0] == arch]
        if not rows:
            continue
        alphas = [r["test"]["alpha"] for r in rows]
        wide = [r[f"aps{k}"]["alpha"] for r in rows for k in OOD]
        viol = [r["test"]["violation_rate"] for r in rows] + [r[f"aps{k}"]["violation_rate"] for r in rows for k in OOD]
        lines.append(
            f"| {arch} | {_ms([r['test']['metric'] for r in rows])} % | "
            + " | ".join(_ms([r[f'aps{k}']['metric'] for r in rows]) + " %" for k in OOD)
            + f" | {min(alphas):.3f}–{max(alphas):.3f} / {min(wide):.3f}–{max(wide):.3f}"
            + f" | {max(viol):.3f} max | {statistics.mean(r['seconds'] for r in rows) / 60:.1f} min |"
        )
    lines += [
        "",
        "| architecture | edit distance, ≤ 5 symbols | edit distance, > 5 | copied exactly, ≤ 5 | "
        "copied exactly, > 5 | alpha-covariance | training |",
        "|---" * 7 + "|",
    ]
    for arch in archs:
        rows = [v for k, v in results["copy"].items() if k.split("/")[0] == arch]
        if not rows:
            continue
        alphas = [r["audit"]["alpha"] for r in rows]
        lines.append(
            f"| {arch} | {_ms([r['in_edit'] for r in rows])} | {_ms([r['out_edit'] for r in rows])} | "
            f"{_ms([r['in_exact'] for r in rows])} % | {_ms([r['out_exact'] for r in rows])} % | "
            f"{min(alphas):.3f}–{max(alphas):.3f} | "
            f"{statistics.mean(r['seconds'] for r in rows) / 60:.1f} min |"
        )
    return "\n".join(lines)


def reported(results: dict) -> dict:
    """``results`` as a report: each task's arguments without the paths
    of the machine it ran on (the output directory, the report)."""
    private = ("out", "report", "table")
    return {
        k: ({a: v for a, v in value.items() if a not in private} if k.startswith("args_") else value)
        for k, value in results.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--num", type=int, default=2400, help="LTL formulas generated (train/valid/test 80/10/10)")
    ap.add_argument("--max-size", type=int, default=15)
    ap.add_argument("--per-k", type=int, default=60, help="out-of-distribution formulas per AP count")
    ap.add_argument("--copy-train", type=int, default=2000)
    ap.add_argument("--test-symbols", type=int, default=12)
    ap.add_argument("--max-length", type=int, default=15)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--archs", nargs="*", default=["dualpart", "canonicalized", "canonicalized+dualpart"])
    ap.add_argument("--audit", type=int, default=120, help="inputs audited per set")
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--tasks", nargs="*", default=["ltl", "copy"], help="ltl, copy (results add up in DIR)")
    ap.add_argument("--table", action="store_true", help="only print the table of DIR/results.json")
    ap.add_argument("--report", type=Path, default=None, help="with --table: also write DIR/results.json here")
    args = ap.parse_args()
    if args.table:
        results = json.loads((Path(args.out) / "results.json").read_text())
        print(table(results))
        if args.report:
            args.report.write_text(json.dumps(reported(results), indent=1))
        return
    print(table(run(args)))


if __name__ == "__main__":
    main()
