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

Controlled runs: ``--aps N --distinct-aps K`` makes every formula of the
dataset hold exactly K of N APs (``invar data ltl --distinct-aps``);
``--seeds`` trains each architecture once per seed (a result file per
seed, ``ARCH[-LABEL][-sSEED].json``) and the report gives mean ± sd;
``--set FIELD=VALUE`` sets a model config field (``random_part=hypercube``,
``adacos=false``, ...) for the runs it labels ``--label``; ``--general 0``
skips the files of 6-10 APs; ``--patience N`` stops a run once N epochs
bring no better validation *correct* (``--epochs`` is then the cap);
``--schedule plateau`` halves the learning rate after every ``--plateau``
epochs without improvement instead of decaying it over the cap, so that
the patience, not the schedule, ends a run;
``--device cuda`` trains and audits on a GPU.

The interchangeable-token paper's authors' recipe: ``--set n_head=8 --set
norm_position=post --set random_draw=batch --weight-decay 0.1 --beta2 0.95
--batch-size 768`` (dual-part models scale their inputs by sqrt(d) by
default; ``--set embed_scaling=none`` is invar's earlier dual-part model).
``--valid-limit N`` keeps the first N validation pairs (each epoch decodes
them all), ``--time-limit S`` stops a run after its first epoch that ends S
seconds after its start (a wall-clock budget, bench/gpu_studies.sh).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from pathlib import Path

from common import machine, mean_sd, spread

import invar
from invar.frontends.ltl.generate import GeneratorConfig, generate_file
from invar.tasks import ltl
from invar.config import PRECISIONS, SCHEDULES

GENERAL = range(6, 11)


def prepare(
    out: Path,
    num: int,
    max_size: int,
    general: int,
    jobs: int,
    aps: int = 5,
    distinct: int | None = None,
    exact: bool = False,
    unique: bool = False,
    valid_limit: int | None = None,
) -> Path:
    """The dataset directory (train/valid/test) and the files gen6..gen10
    (none when ``general`` is 0); with ``exact``, every formula of genK
    holds exactly K distinct APs, sizes up to max(``max_size``, 2K); with
    ``unique``, each formula once (the generator spreads sizes evenly, and
    there are only ``aps`` formulas of size 1, so small ones repeat); with
    ``valid_limit``, the validation split's first pairs only."""
    data = out / "data"
    raw = out / (f"ltl{aps}.txt" if distinct is None else f"ltl{aps}-k{distinct}.txt")
    if not (data / "test.txt").exists():
        generate_file(
            GeneratorConfig(num=num, aps=aps, max_size=max_size, seed=0, distinct_aps=distinct), raw, jobs=jobs
        )
        data.mkdir(parents=True, exist_ok=True)
        for split in ltl.SPLITS:  # the split hashes the formula: a repeat never crosses splits
            rows = ltl.read_split(raw, split)
            rows = first_of_each(rows) if unique else rows
            rows = rows[:valid_limit] if split == "valid" and valid_limit else rows
            (data / f"{split}.txt").write_text("".join(ex.source.replace("\t", "\n") + "\n" for ex in rows))
    for k in GENERAL if general else ():
        path = out / f"gen{k}.txt"
        if not path.exists() or Path(f"{path}.meta.json").exists() and _unfinished(path):
            config = (
                GeneratorConfig(num=general, aps=k, max_size=max(max_size, 2 * k), seed=100 + k, distinct_aps=k)
                if exact
                else GeneratorConfig(num=general, aps=k, max_size=max_size, seed=100 + k)
            )
            generate_file(config, path, jobs=jobs)
    return data


def first_of_each(rows: list) -> list:
    """``rows`` with each formula's first pair only."""
    seen: set[str] = set()
    kept = []
    for ex in rows:
        formula = ex.source.split("\t", 1)[0]
        if formula not in seen:
            seen.add(formula)
            kept.append(ex)
    return kept


def _unfinished(path: Path) -> bool:
    meta = json.loads(Path(f"{path}.meta.json").read_text())
    return meta.get("next", 0) < meta.get("num", 0)


def audit(ckpt: Path, dataset: Path, limit: int | None, variants: int, device: str = "cpu") -> dict:
    """Correct/exact/alpha-covariance overall and by AP count; refused
    formulas (per-example errors) count as incorrect."""
    rep = invar.audit(
        model=str(ckpt),
        dataset=str(dataset),
        transform="renamings",
        limit=limit,
        variants=variants,
        split="test" if dataset.is_dir() else None,  # a directory's test split; a file (gen6.txt) whole
        device=device,
    )
    metric = rep["metric"] or {}
    scored = metric.get("examples", 0)
    n = rep["examples"]
    scale = scored / n if n else 0.0
    extra = metric.get("extra") or {}
    groups = {}
    for g in rep["alpha_covariance"]["by_referents"]:
        groups[g["referents"]] = {
            "examples": g["examples"],
            "correct": g.get("metric"),
            "exact": (g.get("extra") or {}).get("exact"),
            "alpha_covariance": g["alpha_covariance"],
        }
    return {
        "examples": n,
        "refused": rep["errors"] + rep["unparsable"],
        "correct": scale * metric["original"] if scored else 0.0,
        "exact": scale * extra["exact"]["original"] if scored and "exact" in extra else None,
        "alpha_covariance": rep["alpha_covariance"]["mean"],
        "by_aps": groups,
    }


def ap_counts(out: Path) -> dict[int, int]:
    """Formulas of the files gen6..gen10 by number of distinct APs."""
    counts: dict[int, int] = {}
    for k in GENERAL:
        if not (out / f"gen{k}.txt").exists():
            continue
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
        groups = [g["by_aps"][str(n)] for g in result.get("general", {}).values() if str(n) in g["by_aps"]]
        scored = sum(g["examples"] for g in groups)
        total = counts.get(n, 0)

        def mean(key):
            vals = [(g[key], g["examples"]) for g in groups if g[key] is not None]
            return sum(v * w for v, w in vals) / sum(w for _, w in vals) if vals else None

        correct, exact, alpha = mean("correct"), mean("exact"), mean("alpha_covariance")
        out[n] = {
            "formulas": total,
            "refused": total - scored,
            "correct": None if correct is None else correct * scored / total if total else None,
            "exact": None if exact is None else exact * scored / total if total else None,
            "alpha_covariance": alpha,
        }
    return out


def report(out: Path, archs: list[str], epochs: int, size: str) -> None:
    results = {a: json.loads((out / f"{a}.json").read_text()) for a in archs if (out / f"{a}.json").exists()}
    counts = ap_counts(out)
    import torch  # heavy, and only the training and its reports need it (--prepare-only does not)

    print(f"{machine()}; torch {torch.__version__}; {epochs} epochs, {size}")
    print(
        "| architecture | correct | exact | alpha-cov. 3 APs | 4 APs | 5 APs | correct 3 / 4 / 5 APs "
        "| best valid correct (epoch) | training |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for arch, r in results.items():
        by = {int(k): v for k, v in r["test"]["by_aps"].items()}
        alpha = [
            _pct(100 * by[k]["alpha_covariance"]) if k in by and by[k]["alpha_covariance"] is not None else "–"
            for k in (3, 4, 5)
        ]
        cor = " / ".join(f"{by[k]['correct']:.1f}" if k in by else "–" for k in (3, 4, 5))
        print(
            f"| {arch} | {_pct(r['test']['correct'])} | {_pct(r['test']['exact'])} | "
            + " | ".join(alpha)
            + f" | {cor} | {r['valid_correct']:.2f}% ({r['best_epoch']}) | {r['train_seconds'] / 60:.0f} min |"
        )
    print()
    print(
        "Formulas over more APs than training saw (files gen6..gen10 pooled, by distinct APs): "
        "correct (refused count as incorrect) / alpha-covariance"
    )
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
                cells.append(
                    f"{_pct(g['correct'])} / "
                    f"{_pct(None if g['alpha_covariance'] is None else 100 * g['alpha_covariance'])}"
                )
        print(f"| {arch} | " + " | ".join(cells) + " |")


def _pct(x) -> str:
    return "–" if x is None else f"{x:.2f}%"


def run_name(arch: str, label: str, seed: int) -> str:
    """The name of one run's checkpoint and result file (seed 0 unsuffixed)."""
    return arch + (f"-{label}" if label else "") + (f"-s{seed}" if seed else "")


#: config fields for which ``none`` is a value of their own, not the absence of one
TEXT_NONE = ("positions", "attention", "embed_scaling")


def setting(text: str) -> tuple[str, object]:
    """``FIELD=VALUE`` -> (field, value): true/false/none, a number, or text
    (``none`` stays text for the fields of :data:`TEXT_NONE`)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set takes FIELD=VALUE, not {text!r}")
    low = value.lower()
    if low == "none" and key in TEXT_NONE:
        return key, "none"
    if low in ("true", "false", "none"):
        return key, {"true": True, "false": False, "none": None}[low]
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def _mean_sd(values: list[float]) -> str:
    return mean_sd(values, "{:.1f}", " %")


def _runs(out: Path, archs: list[str], label: str, seeds: list[int]) -> dict[str, list[dict]]:
    """Each architecture's result files in ``out``, one per seed that has one
    (architectures with none left out)."""
    found = {
        arch: [
            json.loads(p.read_text()) for seed in seeds if (p := out / f"{run_name(arch, label, seed)}.json").exists()
        ]
        for arch in archs
    }
    return {arch: runs for arch, runs in found.items() if runs}


def summary(out: Path, archs: list[str], label: str, seeds: list[int]) -> None:
    """Mean ± sd over the seeds of each architecture's runs in ``out``:
    correct and exact on the audited test formulas, correct by distinct
    APs, alpha-covariance, best validation correct and training minutes
    (the epochs' own time, resumed runs included)."""
    print(
        "| run | seeds | correct | exact | correct, 1 / 2 / 3 APs | alpha-cov. | best valid correct | training (min) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for arch, runs in _runs(out, archs, label, seeds).items():
        name = run_name(arch, label, 0)
        test = [r["test"] for r in runs]
        by_aps = " / ".join(
            _mean_sd([t["by_aps"][str(k)]["correct"] for t in test if str(k) in t["by_aps"]]).replace(" %", "")
            for k in (1, 2, 3)
        )
        alpha = _mean_sd([100 * t["alpha_covariance"] for t in test if t["alpha_covariance"] is not None])
        print(
            f"| {name} | {len(runs)} | {_mean_sd([t['correct'] for t in test])} "
            f"| {_mean_sd([t['exact'] for t in test if t['exact'] is not None])} | {by_aps} | {alpha} "
            f"| {_mean_sd([r['valid_correct'] for r in runs])} "
            f"| {statistics.mean(r.get('epoch_seconds', r['train_seconds']) for r in runs) / 60:.1f} |"
        )


def summary_by_aps(out: Path, archs: list[str], label: str, seeds: list[int]) -> None:
    """Mean ± sd over the seeds, by number of distinct APs: alpha-covariance
    on the test formulas (the paper's Table 2 columns) and, on the files
    gen6..gen10, correct (refused formulas count as incorrect) and
    alpha-covariance (Table 3's); then how the runs stopped."""
    runs = _runs(out, archs, label, seeds)
    counts = ap_counts(out)
    test_aps = sorted({int(k) for rs in runs.values() for r in rs for k in r["test"]["by_aps"]})
    print(
        "| run | "
        + " | ".join(f"alpha-cov. {k} APs" for k in test_aps)
        + " | "
        + " | ".join(f"{k} APs ({counts.get(k, 0)}): correct / alpha-cov." for k in GENERAL)
        + " |"
    )
    print("|---|" + "---|" * (len(test_aps) + len(GENERAL)))
    for arch, rs in runs.items():
        alpha = [
            _mean_sd(
                [
                    100 * r["test"]["by_aps"][str(k)]["alpha_covariance"]
                    for r in rs
                    if str(k) in r["test"]["by_aps"] and r["test"]["by_aps"][str(k)]["alpha_covariance"] is not None
                ]
            )
            for k in test_aps
        ]
        pools = [pooled(r, counts) for r in rs if r.get("general")]
        cells = []
        for k in GENERAL:
            groups = [p[k] for p in pools if p[k]["formulas"]]
            if not groups:
                cells.append("–")
                continue
            correct = _mean_sd([g["correct"] or 0.0 for g in groups])
            covariance = [100 * g["alpha_covariance"] for g in groups if g["alpha_covariance"] is not None]
            cells.append(f"{correct} / {_mean_sd(covariance) if covariance else 'refused'}")
        print(f"| {run_name(arch, label, 0)} | " + " | ".join(alpha + cells) + " |")
    print()
    print("| run | epochs run | best epoch | stopped early | schedule (learning-rate halvings) |")
    print("|---|---|---|---|---|")
    for arch, rs in runs.items():
        if all("epochs_run" in r for r in rs):
            print(
                f"| {run_name(arch, label, 0)} | {', '.join(str(r['epochs_run']) for r in rs)} | "
                f"{', '.join(str(r['best_epoch']) for r in rs)} | {sum(r['stopped_early'] for r in rs)} of {len(rs)} "
                f"| {_schedule(rs)} |"
            )


def findings(out: Path, archs: list[str], labels: list[str], seeds: list[int]) -> dict:
    """The report of the runs in ``out`` (``--report``): per architecture,
    label and seed, the test metrics, the 6–10 AP files' correct, how it
    stopped, and what it changed from the defaults (``--set`` and the
    optimiser's settings)."""
    counts = ap_counts(out)
    runs = {}
    for arch, label in itertools.product(archs, labels):
        done = [
            (seed, json.loads(p.read_text()))
            for seed in seeds
            if (p := out / f"{run_name(arch, label, seed)}.json").exists()
        ]
        if not done:
            continue
        runs[run_name(arch, label, 0)] = [
            {
                "arch": arch,
                "seed": seed,
                "correct": r["test"]["correct"],
                "exact": r["test"]["exact"],
                "correct_by_aps": {k: v["correct"] for k, v in r["test"]["by_aps"].items()},
                "alpha_covariance": r["test"]["alpha_covariance"],
                "alpha_covariance_by_aps": {k: v["alpha_covariance"] for k, v in r["test"]["by_aps"].items()},
                "general_correct": {str(k): g["correct"] for k, g in pooled(r, counts).items() if g["formulas"]},
                "general_alpha_covariance": {
                    str(k): g["alpha_covariance"] for k, g in pooled(r, counts).items() if g["formulas"]
                },
                "valid_correct": r["valid_correct"],
                "best_epoch": r["best_epoch"],
                "epochs_run": r["epochs_run"],
                "lr_halvings": r.get("lr_halvings"),
                "minutes": r.get("epoch_seconds", r["train_seconds"]) / 60,
                "changes": changes(r),
                "valid_history": r.get("valid_history", []),
                "train_loss_history": r.get("train_loss_history", []),
            }
            for seed, r in done
        ]
    import torch  # heavy, and only the training and its reports need it (--prepare-only does not)

    return {"machine": machine(), "torch": torch.__version__, "runs": runs}


#: the training settings a result file records, and their defaults here
OPTIMISER_DEFAULTS = {"batch_size": 64, "weight_decay": 0.01, "beta2": 0.999}


def changes(result: dict) -> dict:
    """What one run changed from the defaults: its ``--set`` fields, then
    the optimiser settings that differ from :data:`OPTIMISER_DEFAULTS`."""
    moved = {k: result[k] for k, default in OPTIMISER_DEFAULTS.items() if result.get(k, default) != default}
    return {**result.get("settings", {}), **moved}


def ablation(report: dict) -> str:
    """A row per arm of a ``--report``: what it changed, then mean ± sd over
    its seeds (test correct, exact, two-AP alpha-covariance, 6–10 APs
    correct, best epoch, minutes)."""
    rows = [
        "| run | changes | seeds | correct | exact | alpha-cov. 2 APs | 6–10 APs correct | best epoch "
        "| training (min) |",
        "|---" * 9 + "|",
    ]
    for name, rs in report["runs"].items():
        changed = rs[0].get("changes", {})
        said = ", ".join(f"`{k}={v}`" for k, v in changed.items()) or "none"
        general = [_general(r) for r in rs]
        pct = [spread(xs, "{:.1f}", " %") for xs in ([r["correct"] for r in rs], [r["exact"] for r in rs])]
        alpha = spread([100 * r["alpha_covariance_by_aps"]["2"] for r in rs], "{:.1f}", " %")
        rows.append(
            f"| {name} | {said} | {len(rs)} | {pct[0]} | {pct[1]} | {alpha} "
            f"| {'refused' if None in general else spread(general, '{:.1f}', ' %')} "
            f"| {spread([r['best_epoch'] for r in rs], '{:.0f}')} | {statistics.mean(r['minutes'] for r in rs):.1f} |"
        )
    return "\n".join(rows)


def with_loss(report: dict) -> str:
    """A row per arm of a ``--report``: what it changed, then mean ± sd over
    its seeds (test correct, exact, alpha-covariance, best validation
    correct), the range of its last epoch's training loss, and minutes."""
    rows = [
        "| run | changes | seeds | correct | exact | alpha-covariance | best valid correct "
        "| training loss, last epoch | training (min) |",
        "|---" * 9 + "|",
    ]
    for name, rs in report["runs"].items():
        said = ", ".join(f"`{k}={v}`" for k, v in rs[0].get("changes", {}).items()) or "none"
        cells = [spread([r[k] for r in rs], "{:.1f}", " %") for k in ("correct", "exact")]
        cells.append(spread([100 * r["alpha_covariance"] for r in rs], "{:.1f}", " %"))
        cells.append(spread([r["valid_correct"] for r in rs], "{:.1f}", " %"))
        last = [r["train_loss_history"][-1] for r in rs if (r.get("train_loss_history") or [None])[-1] is not None]
        cells.append(f"{min(last):.3f}–{max(last):.3f}" if last else "not recorded")
        minutes = statistics.mean(r["minutes"] for r in rs)
        rows.append(f"| {name} | {said} | {len(rs)} | " + " | ".join(cells) + f" | {minutes:.1f} |")
    return "\n".join(rows)


def _none_scored(record: dict) -> str:
    """What a run that scored no formula of 6–10 APs shows: ``refused``, or
    ``–`` where the study had none."""
    return "refused" if record["general_correct"] else "–"


def _general(record: dict) -> float | None:
    """A run's mean correct over the formulas of 6–10 APs, or None where it refused them all."""
    scored = [v for v in record["general_correct"].values() if v is not None]
    return statistics.mean(scored) if scored else None


def by_aps(report: dict) -> str:
    """Mean ± sd over each run's seeds: alpha-covariance on the test formulas
    of 2 and 3 APs, then correct / alpha-covariance on the formulas of 6 … 10
    APs (``refused`` where every seed refused them all)."""
    ks = sorted({k for rs in report["runs"].values() for r in rs for k in r["general_correct"]}, key=int)
    rows = [
        "| run | seeds | alpha-cov. 2 APs | 3 APs | " + " | ".join(f"{k} APs" for k in ks) + " |",
        "|---" * (4 + len(ks)) + "|",
    ]
    for name, rs in report["runs"].items():
        cells = [spread([100 * r["alpha_covariance_by_aps"][n] for r in rs], "{:.1f}", " %") for n in ("2", "3")]
        for k in ks:
            correct = [r["general_correct"].get(k) for r in rs]
            alpha = [r.get("general_alpha_covariance", {}).get(k) for r in rs]
            if all(c is None for c in correct):
                cells.append("refused")
                continue
            said = spread([c or 0.0 for c in correct], "{:.1f}")
            alphas = [100 * a for a in alpha if a is not None]
            cells.append(f"{said} / {spread(alphas, '{:.1f}', ' %')}" if alphas else said + " %")
        rows.append(f"| {name} | {len(rs)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


#: the interchangeable-token paper's Table 3 (alpha-covariance at 3 APs, then 6 … 10 APs), as printed; its
#: models trained on formulas over 5 APs, so 6 to 10 are beyond their training vocabulary
PAPER_TABLE_3 = {
    "Alpha-Renaming": ("50.64%", ("37.49%", "30.80%", "30.30%", "28.76%", "25.57%")),
    "Proposed": ("54.30%", ("41.88%", "33.89%", "35.29%", "33.18%", "28.34%")),
}


def beside_table_3(report: dict) -> str:
    """:func:`by_aps`, then the paper's Table 3 rows under the same columns
    (alpha-covariance only; it has no two-AP column)."""
    rows = by_aps(report).splitlines()
    ks = [c.split()[0] for c in rows[0].strip("|").split("|")[4:]]
    for model, (three, beyond) in PAPER_TABLE_3.items():
        cells = [f"*{beyond[int(k) - 6]}*" if 6 <= int(k) <= 10 else "" for k in ks]
        rows.append(f"| *paper Table 3: {model} (alpha-cov.)* | | | *{three}* | " + " | ".join(cells) + " |")
    return "\n".join(rows)


#: the interchangeable-token paper's Table 2 (correct, exact, alpha-covariance on 3 APs), as printed, by the
#: architecture that is its model here; its formulas reach size 35 (799,909 training pairs)
PAPER_TABLE_2 = {
    "vanilla": ("Normal, Baseline", "98.23%", "83.23%", "96.87%"),
    "augmented": ("Perturbed, Alpha-Renaming", "97.96%", "77.66%", "99.55%"),
    "dualpart": ("Perturbed, Proposed", "95.94%", "76.45%", "97.66%"),
}


def beside_paper(report: dict) -> str:
    """Mean ± sd over each run's seeds (correct, exact, two-AP and three-AP
    alpha-covariance), each architecture the paper has after its Table 2 row."""
    rows = ["| model | correct | exact | alpha-cov. 2 APs | alpha-cov. 3 APs |", "|---" * 5 + "|"]
    for name, rs in report["runs"].items():
        arch = next((a for a in PAPER_TABLE_2 if name == a or name.startswith(a + "-")), None)
        if arch:
            row, correct, exact, alpha = PAPER_TABLE_2[arch]
            rows.append(f"| *paper: {row}* | *{correct}* | *{exact}* | | *{alpha}* |")
        cells = [spread([r[k] for r in rs], "{:.1f}", " %") for k in ("correct", "exact")]
        cells += [spread([100 * r["alpha_covariance_by_aps"][n] for r in rs], "{:.1f}", " %") for n in ("2", "3")]
        rows.append(f"| `{name}` ({len(rs)} seed{'s' if len(rs) > 1 else ''}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def results(reports: dict | list[dict]) -> str:
    """The results page's table: every run of the reports, mean ± sd over its
    seeds, best correct first, named by its architecture and what it changed
    from the defaults; then the paper's Table 2 rows."""
    runs = [rs for report in (reports if isinstance(reports, list) else [reports]) for rs in report["runs"].values()]
    rows = ["| model | seeds | correct | exact | alpha-cov. 2 APs | correct, 6–10 APs |", "|---" * 6 + "|"]
    for rs in sorted(runs, key=lambda rs: -statistics.mean(r["correct"] for r in rs)):
        said = ", ".join(f"`{k}={v}`" for k, v in rs[0].get("changes", {}).items())
        general = [v for r in rs for v in r["general_correct"].values() if v is not None]
        cells = [spread([r[k] for r in rs], "{:.1f}", " %") for k in ("correct", "exact")]
        cells.append(spread([100 * r["alpha_covariance_by_aps"]["2"] for r in rs], "{:.1f}", " %"))
        cells.append(f"{min(general):.1f}–{max(general):.1f} %" if general else _none_scored(rs[0]))
        rows.append(
            f"| `{rs[0].get('arch', '?')}`{', ' + said if said else ''} | {len(rs)} | " + " | ".join(cells) + " |"
        )
    for row, correct, exact, alpha in PAPER_TABLE_2.values():
        rows.append(f"| *paper: {row}* | | *{correct}* | *{exact}* | *{alpha}* (3 APs) | |")
    return "\n".join(rows)


#: the validation correct (%) whose first epoch :func:`epochs_to` gives
MILESTONES = (80, 90, 95)


def epochs_to(report: dict) -> str:
    """Each run and seed: the first epoch whose validation correct reached
    each of :data:`MILESTONES` (``never`` where none did), and its best."""
    rows = [
        "| run | seed | " + " | ".join(f"epoch to {m} %" for m in MILESTONES) + " | best valid correct (epoch) |",
        "|---" * (3 + len(MILESTONES)) + "|",
    ]
    for name, rs in report["runs"].items():
        for r in rs:
            history = r.get("valid_history", [])
            firsts = [next((str(i + 1) for i, v in enumerate(history) if v >= m), "never") for m in MILESTONES]
            rows.append(
                f"| {name} | {r['seed']} | "
                + " | ".join(firsts)
                + f" | {r['valid_correct']:.1f} % ({r['best_epoch']}) |"
            )
    return "\n".join(rows)


def table(report: dict) -> str:
    """The table of a ``--report``: a row per run, then mean ± sd over its seeds."""
    head = (
        "| run | seed | correct | exact | correct, 1 / 2 / 3 APs | alpha-cov. | alpha-cov. 2 APs "
        "| 6–10 APs correct | best epoch / epochs run | halvings | training (min) |\n" + "|---" * 11 + "|"
    )
    rows = [head]
    for name, rs in report["runs"].items():
        for r in rs:
            by = " / ".join(
                f"{r['correct_by_aps'][str(k)]:.1f}" if str(k) in r["correct_by_aps"] else "–" for k in (1, 2, 3)
            )
            general = [v for v in r["general_correct"].values() if v is not None]
            span = f"{min(general):.1f}–{max(general):.1f} %" if general else _none_scored(r)
            rows.append(
                f"| {name} | {r['seed']} | {r['correct']:.1f} % | {r['exact']:.1f} % | {by} "
                f"| {100 * r['alpha_covariance']:.1f} % | {_alpha_2(r)} "
                f"| {span} | {r['best_epoch']} / {r['epochs_run']} "
                f"| {r['lr_halvings']} | {r['minutes']:.1f} |"
            )
        by = " / ".join(_by_aps_mean(rs, str(k)) for k in (1, 2, 3))
        rows.append(
            f"| **{name}** | {len(rs)} seed{'s' if len(rs) > 1 else ''} | **{_mean_sd([r['correct'] for r in rs])}** "
            f"| {_mean_sd([r['exact'] for r in rs])} | {by} "
            f"| {_mean_sd([100 * r['alpha_covariance'] for r in rs])} "
            f"| {_alpha_2_mean(rs)} | | "
            f"{mean_sd([r['best_epoch'] for r in rs], '{:.0f}')} | | "
            f"{statistics.mean(r['minutes'] for r in rs):.1f} |"
        )
    return "\n".join(rows)


def _alpha_2(record: dict) -> str:
    """A run's alpha-covariance on the test formulas of two APs, or ``–``
    where it had none."""
    by = record["alpha_covariance_by_aps"]
    return f"{100 * by['2']:.1f} %" if "2" in by else "–"


def _alpha_2_mean(runs: list[dict]) -> str:
    """Mean ± sd of the runs' alpha-covariance on two-AP test formulas, or ``–``."""
    values = [100 * r["alpha_covariance_by_aps"]["2"] for r in runs if "2" in r["alpha_covariance_by_aps"]]
    return _mean_sd(values) if values else "–"


def _by_aps_mean(runs: list[dict], k: str) -> str:
    """Mean ± sd of the runs' correct on formulas of ``k`` APs, without the
    unit; ``–`` where no test formula held ``k`` (a study of one AP count)."""
    values = [r["correct_by_aps"][k] for r in runs if k in r["correct_by_aps"]]
    return _mean_sd(values).replace(" %", "") if values else "–"


def _schedule(runs: list[dict]) -> str:
    """The runs' schedule, with each plateau run's halvings (runs from
    before the option were cosine)."""
    names = {r.get("schedule", "cosine") for r in runs}
    if names != {"plateau"}:
        return ", ".join(sorted(names))
    return f"plateau ({', '.join(str(r['lr_halvings']) for r in runs)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--num", type=int, default=40000, help="formulas over --aps APs (80 %% train)")
    ap.add_argument("--aps", type=int, default=5, help="APs a, b, ... of the training formulas")
    ap.add_argument("--distinct-aps", type=int, default=None, help="every formula holds exactly this many of --aps")
    ap.add_argument("--max-size", type=int, default=35)
    ap.add_argument("--unique", action="store_true", help="each formula once in the splits (repeats dropped)")
    ap.add_argument("--general", type=int, default=300, help="formulas per AP count 6..10 (0: none)")
    ap.add_argument(
        "--general-exact",
        action="store_true",
        help="each file genK holds exactly K distinct APs (sizes up to max(--max-size, 2K))",
    )
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--weight-decay", type=float, default=0.01, help="AdamW weight decay (the authors': 0.1)")
    ap.add_argument("--beta2", type=float, default=0.999, help="AdamW beta 2 (the authors': 0.95)")
    ap.add_argument("--valid-limit", type=int, default=None, help="validation pairs kept (the split's first)")
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="stop a run after the first epoch that ends this many seconds after its start",
    )
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="a run per seed (training and its draws)")
    ap.add_argument(
        "--set",
        dest="overrides",
        type=setting,
        action="append",
        default=[],
        help="FIELD=VALUE: a model config field for these runs (repeatable)",
    )
    ap.add_argument(
        "--label",
        nargs="+",
        default=[""],
        help="names these runs' files (ARCH-LABEL[-sSEED]); with --report-only, several labels: one report",
    )
    ap.add_argument("--device", default="cpu", help="cpu or cuda: where training and the audits run")
    ap.add_argument("--audit", type=int, default=1000, help="test formulas audited (the test split's first)")
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--patience",
        type=int,
        default=None,
        help="early stopping: epochs without a better validation correct (--epochs is then the cap)",
    )
    ap.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="cosine",
        help="learning rate after the warm-up: cosine decay over --epochs, or halved on plateaus",
    )
    ap.add_argument("--plateau", type=int, default=5, help="--schedule plateau: epochs without improvement per halving")
    ap.add_argument(
        "--precision", choices=PRECISIONS, default="fp32", help="training precision (invar train --precision)"
    )
    ap.add_argument("--jobs", type=int, default=1, help="processes generating the data")
    ap.add_argument("--prepare-only", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="print the tables of the results in --out")
    ap.add_argument(
        "--report",
        type=Path,
        default=None,
        help="with --report-only and several seeds: also write the runs' figures to this JSON",
    )
    ap.add_argument("--archs", nargs="+", default=["vanilla", "augmented", "dualpart"])
    args = ap.parse_args()
    labels, args.label = args.label, args.label[0]
    several = args.seeds != [0] or args.label or not args.general
    if args.report_only:
        if several:
            for args.label in labels:
                summary(args.out, args.archs, args.label, args.seeds)
                print()
                summary_by_aps(args.out, args.archs, args.label, args.seeds)
            if args.report:
                args.report.write_text(json.dumps(findings(args.out, args.archs, labels, args.seeds), indent=1))
        else:
            report(args.out, args.archs, args.epochs, args.size)
        return
    if len(labels) > 1:
        ap.error("--label: one label for the runs it trains (several only with --report-only)")
    data = prepare(
        args.out,
        args.num,
        args.max_size,
        args.general,
        args.jobs,
        args.aps,
        args.distinct_aps,
        args.general_exact,
        args.unique,
        args.valid_limit,
    )
    if args.prepare_only:
        return
    import torch  # heavy, and only the training needs it (--prepare-only does not)

    torch.set_num_threads(args.threads)
    for arch in args.archs:
        for seed in args.seeds:
            name = run_name(arch, args.label, seed)
            result = run(args, arch, seed, data)
            print(json.dumps({name: result}), flush=True)
            (args.out / f"{name}.json").write_text(json.dumps(result, indent=1))
    if several:
        summary(args.out, args.archs, args.label, args.seeds)
        print()
        summary_by_aps(args.out, args.archs, args.label, args.seeds)
    else:
        report(args.out, args.archs, args.epochs, args.size)


def run(args: argparse.Namespace, arch: str, seed: int, data: Path) -> dict:
    """Train one architecture at one seed, then audit its best epoch."""
    from invar.train import train  # imports torch: not on the path of --prepare-only

    ckpt = args.out / f"{run_name(arch, args.label, seed)}.pt"
    t0 = time.perf_counter()
    trained = train(
        task="ltl",
        data=data,
        arch=arch,
        size=args.size,
        out=ckpt,
        epochs=args.epochs,
        batch_size=args.batch_size,
        threads=args.threads,
        lr=args.lr,
        seed=seed,
        resume=True,
        device=args.device,
        overrides=dict(args.overrides),
        patience=args.patience,
        schedule=args.schedule,
        plateau=args.plateau if args.schedule == "plateau" else None,
        precision=args.precision,
        weight_decay=args.weight_decay,
        betas=(0.9, args.beta2),
        time_limit=args.time_limit,
    )
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    test = audit(ckpt, data, args.audit, args.variants, args.device)
    general = {
        k: audit(ckpt, args.out / f"gen{k}.txt", None, args.variants, args.device) for k in GENERAL if args.general
    }
    return {
        "train_seconds": seconds,
        "audit_seconds": time.perf_counter() - t0,
        "best_epoch": trained.best_epoch,
        "valid_correct": trained.best_metric,
        "n_train": trained.n_train,
        "epochs_run": len(trained.history),
        "stopped_early": trained.stopped_at is not None,
        "stopped_by": trained.stopped_by,
        "time_limit": args.time_limit,
        "patience": args.patience,
        "max_epochs": args.epochs,
        "batch_size": args.batch_size,
        "weight_decay": args.weight_decay,
        "beta2": args.beta2,
        "schedule": args.schedule,
        "plateau": args.plateau,
        "lr_halvings": trained.halvings,
        "valid_history": [h["valid_correct"] for h in trained.history],
        "train_loss_history": [h["train_loss"] for h in trained.history],
        "epoch_seconds": sum(h["seconds"] for h in trained.history),  # all epochs, resumed ones too
        "settings": dict(args.overrides),
        "test": test,
        "general": general,
    }


if __name__ == "__main__":
    main()
