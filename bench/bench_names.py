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

Every run is also audited under each transform alone (reorderings,
renamings, both), each count also over the functions whose space holds a
variant besides the original (the audit's ``varied``): :func:`by_transform`.
``--transforms-of REPORT`` adds those audits to a report written before
they were, from its checkpoints in ``--out``.

    python bench/bench_names.py --out DIR [--task names|bugs] [--source DIR] [--corpus NAME] [--train-limit 2000]
                                [--epochs 4] [--archs vanilla spe renamer renamer+spe] [--seeds 0 1 2] [--size tiny]
                                [--ablations] [--report FILE]
    python bench/bench_names.py --out DIR --transforms-of FILE
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
from common import machine, mean_sd, spread

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


#: the transforms each run is audited under, alone
TRANSFORMS = ("permutations", "renamings", "both")


def _checkpoint(out: Path, task: str, name: str, size: str, seed: int, ablations: bool) -> Path:
    suffix = f"-seed{seed}" if seed else ""
    stem = name.replace("+", "_").replace(" ", "-").replace("(", "").replace(")", "").replace(".", "")
    stem = f"ablation-{stem}" if ablations else stem
    return out / f"{task}-{stem}{'-' + size if size != 'tiny' else ''}{suffix}.pt"


def _transforms(ckpt: Path, data: Path, limit: int, seed: int) -> dict:
    """The audit of ``ckpt`` under each transform alone: the examples audited
    and violated, and those of them whose space can vary."""
    out = {}
    for transform in TRANSFORMS:
        r = invar.audit(model=str(ckpt), dataset=str(data), transform=transform, limit=limit, variants=4, seed=seed)
        r = r.report
        varied = (r["varied"] or {}).get("examples") or 0
        out[transform] = {
            "audited": r["audited"],
            "violations": r["violations"],
            "varied": varied,
            "varied_violations": round(r["varied"]["violation_rate"] * varied) if varied else 0,
        }
    return out


def _corpus(source: Path) -> str:
    return "standard library" if source == Path(sysconfig.get_paths()["stdlib"]) else source.name


def _run(args, task, data: Path, name: str, arch: str, overrides: dict, seed: int) -> dict:
    """Train ``name`` with ``seed``, score its best epoch on the test split, audit it."""
    ckpt = _checkpoint(args.out, args.task, name, args.size, seed, args.ablations)
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
    audits = _transforms(ckpt, data, args.audit, seed)
    both = audits["both"]
    return {
        "seed": seed,
        "test_metric": task.TASK.metric(preds, labels),
        "test_functions": len(programs),
        "extra": {k: m(preds, labels) for k, m in task.TASK.extra_metrics.items()},
        "valid_metric": run.best_metric,
        "best_epoch": run.best_epoch,
        "epochs_run": len(run.history),
        "train_seconds": seconds,
        "violation_rate": both["violations"] / both["audited"] if both["audited"] else None,
        "audited": both["audited"],
        "transforms": audits,
    }


def _scored(runs: list[dict]) -> str:
    """The test functions that fit in the model and are scored (one count when every seed's is the same)."""
    return " / ".join(dict.fromkeys(f"{r['test_functions']:,}" if "test_functions" in r else "–" for r in runs))


def _audited(runs: list[dict]) -> str:
    """Each seed's audited test functions, then how many of them have a variant besides the original."""
    varied = dict.fromkeys(str(r["transforms"]["both"]["varied"]) for r in runs if "transforms" in r)
    return " / ".join(str(r["audited"]) for r in runs) + (f" ({' / '.join(varied)} can vary)" if varied else "")


def table(report: dict) -> str:
    """The table of a ``--report``: a row per model, mean ± sd over its seeds."""
    name = report["metric"]
    per_function = report["task"] == "names"
    seeds = {len(rs) for rs in report["runs"].values()}
    epochs = report.get("settings", {}).get("epochs", 0)  # runs recorded before epochs_run ran every epoch
    head = (
        f"| architecture | test {name} | "
        + ("test F1 per function | " if per_function else "")
        + "best epoch / run | violation rate, renamings and reorderings | scored | audited | training (min) |"
    )
    rows = [head, "|---" * (7 + per_function) + "|"]
    for model, rs in report["runs"].items():
        rates = [100 * r["violation_rate"] for r in rs if r["violation_rate"] is not None]
        extra = f"{mean_sd([r['extra'][PER_FUNCTION] for r in rs], '{:.1f}', ' %')} | " if per_function else ""
        rows.append(
            f"| {model} | {mean_sd([r['test_metric'] for r in rs], '{:.1f}', ' %')} | {extra}"
            f"{mean_sd([r['best_epoch'] for r in rs], '{:.1f}')} / {max(r.get('epochs_run', epochs) for r in rs)} | "
            f"{mean_sd(rates, '{:.1f}', ' %') if rates else '–'} | "
            f"{_scored(rs)} | {_audited(rs)} | "
            f"{statistics.mean(r['train_seconds'] for r in rs) / 60:.1f} |"
        )
    if seeds != {1}:
        rows.append("")
        rows.append(f"Mean ± sd over seeds {', '.join(str(r['seed']) for r in next(iter(report['runs'].values())))}.")
    return "\n".join(rows)


#: the SPE paper's rows beside :func:`summary`'s, as printed (Python, then Java)
PAPER = {
    "names": [
        ("paper: SPE (Tables 1, 5, 7)", "37.1", "0", "39.0", "0"),
        ("paper: CodeLlama (Tables 1, 5, 7)", "32.9", "14.2", "31.7", "18"),
    ],
    "bugs": [("paper, Table 4 (Defect4J, F1)", "", "", "SPE 71.3, SYMC 68.8", "0")],
}


def summary(reports: list[dict]) -> str:
    """docs/results.md's table: a row per model, its metric and its violation
    rate (renamings and reorderings together) on each report's corpus, mean
    ± sd over the seeds, and the paper's rows beside."""
    task, metric = reports[0]["task"], reports[0]["metric"]
    head = "| model |"
    for report in reports:
        corpus = report["settings"].get("corpus", "standard library")
        seeds = len(report["settings"]["seeds"])
        head += f" {corpus} {metric}, {seeds} seed{'s' if seeds > 1 else ''} | violations |"
    rows = [head, "|---" * (1 + 2 * len(reports)) + "|"]
    for model in reports[0]["runs"]:
        cells = []
        for report in reports:
            runs = report["runs"][model]
            rates = [100 * r["violation_rate"] for r in runs if r["violation_rate"] is not None]
            rate = spread(rates, "{:.1f}", " %") if rates else "–"
            cells += [spread([r["test_metric"] for r in runs], "{:.1f}", " %"), rate]
        rows.append(f"| `{model}` | " + " | ".join(cells) + " |")
    if len(reports) == 2:
        rows += ["| " + " | ".join(f"*{c}*" if c else "" for c in row) + " |" for row in PAPER[task]]
    return "\n".join(rows)


def by_transform(reports: list[dict]) -> str:
    """The first seed (0 where there is one) of each model of each report,
    audited under each transform alone: violations of all audited and of
    those that can vary."""
    heads = {"permutations": "reorderings", "renamings": "renamings", "both": "both"}
    task = reports[0]["task"]
    rows = [
        f"| {task}, first seed | test {reports[0]['metric']} | "
        + " | ".join(f"{heads[t]}: all | {heads[t]}: can vary" for t in TRANSFORMS)
        + " |",
        "|---" * (2 + 2 * len(TRANSFORMS)) + "|",
    ]

    def cell(n: int, of: int) -> str:
        return f"{100 * n / of:.1f} % ({n} of {of})" if of else "– (0 of 0)"

    for report in reports:
        corpus = report["settings"].get("corpus", "standard library")
        for model, runs in report["runs"].items():
            run = min(runs, key=lambda r: r["seed"])
            audits = run["transforms"]
            cells = [
                f"{cell(a['violations'], a['audited'])} | {cell(a['varied_violations'], a['varied'])}"
                for a in (audits[t] for t in TRANSFORMS)
            ]
            rows.append(f"| {corpus}, `{model}` | {run['test_metric']:.1f} % | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _add_transforms(args) -> None:
    """Audit the checkpoints of a report written before its runs were
    audited under each transform alone, and write the audits into it."""
    report = json.loads(args.transforms_of.read_text())
    settings = report["settings"]
    data = args.out / "data"
    for name, runs in report["runs"].items():
        for run in runs:
            ablations = settings.get("ablations", args.ablations)
            ckpt = _checkpoint(args.out, report["task"], name, settings["size"], run["seed"], ablations)
            if not ckpt.exists():
                raise SystemExit(f"{ckpt}: no checkpoint for {name}, seed {run['seed']}")
            run["transforms"] = _transforms(ckpt, data, settings["audit"], run["seed"])
            print(json.dumps({name: {"seed": run["seed"], **run["transforms"]}}), flush=True)
    args.transforms_of.write_text(json.dumps(report, indent=1) + "\n")


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
    ap.add_argument("--corpus", default=None, help="the corpus's name in the tables (default: the source's)")
    ap.add_argument("--transforms-of", type=Path, default=None, help="audit a report's runs under each transform")
    args = ap.parse_args()
    if args.transforms_of:
        _add_transforms(args)
        return
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
            "corpus": args.corpus or _corpus(args.source),
            "ablations": args.ablations,
        },
        "runs": runs,
    }
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    print(table(report))


if __name__ == "__main__":
    main()
