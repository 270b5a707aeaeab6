"""Perplexity by context position (the lexinvariant paper's Figures 3-4) on
code: a standard LM, the lexinvariant LM and the regularised LM (p = 0.2)
trained on the same windows, each scored on the test split position by
position, smoothed as the paper does.

    python bench/bench_lm_curves.py --out OUTDIR [--source DIR] [--vocab char|tokens] [--seq-len 256]
        [--size tiny] [--epochs 2] [--train-windows 4000] [--test-windows 200] [--seeds 0]
        [--models learned lexinvariant regularised] [--p 0.2] [--window 100] [--batch-size 32]
        [--lr 1e-3] [--threads 1] [--device cpu] [--precision fp32] [--files 400] [--patience N]
        [--time-limit SECONDS] [--prepare-only] [--report PATH]

DIR defaults to the running Python's standard library; ``--files N`` takes N
of its ``.py`` and ``.java`` files (site-packages left out), a fixed random
subset (by the hash of the path), linked into OUTDIR/source. ``invar data lm``
cuts them into windows of
``--seq-len`` characters or tokens, split by file; each model trains on the
first ``--train-windows`` training windows (``invar.train(limit=…)``) and is
scored on the first ``--test-windows`` test windows of full length. Per
``--patience N`` stops a model once its validation perplexity has not
improved for N epochs (``--epochs`` is then the cap) and keeps its best
epoch; without it the cosine schedule decays the learning rate over the
``--epochs`` to a tenth of its peak, as the paper's (0.01 to 0.001).
``--time-limit S`` stops a model after its first epoch that ends S seconds
after its start (a wall-clock budget, bench/gpu_studies.sh).
``--random-vectors unit`` gives the lexinvariant model the paper's random
vectors, unit variance per coordinate (default: the model's own, ``small``).
Per model and seed OUTDIR holds the checkpoint and its curve
(``invar.tasks.lm.curve``: within each sequence the loss of positions
i … i + window − 1 averaged, then averaged over the sequences); OUTDIR/
lm-curves.json holds them all (and ``--report PATH`` writes it there too),
OUTDIR/lm-curves.md its tables (``table``: perplexity at chosen context
lengths, mean over seeds, with the ratio to the learned model's; a row per
run) and OUTDIR/lm-curves.png the curves. A model already trained (its
checkpoint exists) is not trained again, so a run over several models'
seeds gathers runs made in parallel; one trained elsewhere or cut
short is described from its resume file (``stopped_early`` only when the
patience ran out, ``cut`` when neither the patience nor the cap ended it).
Four references are counted, not trained (``--models counting-unigram
counting-bigram frequency frequency-seen``): what a model gets from the
window's own characters alone, lexinvariant by construction (mapping the
characters one to one maps their predictions alike): the window's unigram
and bigram (:func:`counting_losses`), and softmaxes whose logits are linear
in the window's character frequencies, with or without a step for a
character seen (:func:`frequency_losses`). Each one's constants are chosen on
the first --test-windows validation windows of full length; they are
scored once, whatever the seeds.
``--prepare-only --report PATH`` writes the data's report instead
(``data_statistics``: the splits, and over the test windows the character
distribution's entropy, a unigram model's perplexity and the share of spaces
and letters; ``data_table`` renders it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sysconfig
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from common import counts_before, finish, joined, load_line, machine, mean_sd, portable, spread

import invar
from invar.tasks import lm
from invar.config import PRECISIONS

#: model name -> (architecture, config overrides); ``regularised`` takes --p; no architecture: a counting
#: reference (:data:`COUNTING`), not trained
MODELS = {
    "learned": ("vanilla", {}),
    "lexinvariant": ("lexinvariant", {}),
    "regularised": ("lexinvariant", None),
    "counting-unigram": (None, {}),
    "counting-bigram": (None, {}),
    "frequency": (None, {}),
    "frequency-seen": (None, {}),
}
#: the smoothing constants a counting reference tries on the validation windows (:func:`reference`)
ALPHAS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
BETAS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: the slopes and seen-weights a frequency reader tries (:func:`frequency_losses`): slopes a quarter of an
#: octave apart, 1 to 64; seen-weights 0 to 6 in halves (0: the plain frequency reader)
SLOPES = tuple(float(2 ** (k / 4)) for k in range(25))
SEEN = tuple(k / 2 for k in range(13))


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--vocab", choices=lm.VOCABS, default="char")
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--train-windows", type=int, default=4000)
    ap.add_argument("--test-windows", type=int, default=200)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=[m for m in MODELS if MODELS[m][0]])
    ap.add_argument("--p", type=float, default=0.2, help="the regularised model's lexinvariant_p")
    ap.add_argument(
        "--random-vectors",
        choices=("small", "unit"),
        default=None,
        help="the lexinvariant model's random vectors: unit, the paper's (default: the model's default)",
    )
    ap.add_argument("--window", type=int, default=lm.WINDOW)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument(
        "--precision", choices=PRECISIONS, default="fp32", help="training precision (invar train --precision)"
    )
    ap.add_argument("--files", type=int, default=400, help="source files taken from --source (0: all)")
    ap.add_argument(
        "--patience",
        type=int,
        default=None,
        help="early stopping: epochs without a better validation perplexity (default: none)",
    )
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="stop a model after the first epoch that ends this many seconds after its start",
    )
    ap.add_argument("--prepare-only", action="store_true", help="write OUTDIR/data and stop")
    ap.add_argument("--report", type=Path, default=None, help="also write the report (OUTDIR/lm-curves.json) here")
    return ap.parse_args(argv)


def source_tree(args) -> Path:
    """--files of --source's files (site-packages aside, a fixed random
    subset by path hash), linked into OUTDIR/source."""
    tree = args.out / "source"
    if tree.exists():
        return tree
    files = [
        p
        for p in args.source.rglob("*")
        if p.suffix in (".py", ".java") and p.is_file() and "site-packages" not in p.relative_to(args.source).parts
    ]
    files.sort(key=lambda p: hashlib.sha256(p.relative_to(args.source).as_posix().encode()).hexdigest())
    for path in files[: args.files or None]:
        link = tree / path.relative_to(args.source)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path.resolve())
    return tree


def dataset(args) -> Path:
    data = args.out / "data"
    if not (data / "meta.json").exists():
        t = time.perf_counter()
        meta = lm.build(source_tree(args), data, vocab=args.vocab, seq_len=args.seq_len)
        print(
            f"data: {meta['train']} / {meta['valid']} / {meta['test']} windows from {meta['files']} files "
            f"({meta['unreadable_files']} unreadable) in {time.perf_counter() - t:.0f} s",
            flush=True,
        )
    return data


def test_windows(data: Path, args) -> list:
    """The first --test-windows test windows of full length."""
    windows = [lm.parse(ex.source) for ex in lm.read_split(data, "test")]
    full = [w for w in windows if len(w.tokens) == args.seq_len]
    return full[: args.test_windows]


def _characters(windows: list) -> str:
    return "".join(t.text for w in windows for t in w.tokens)


def data_statistics(data: Path, windows: list, args) -> dict:
    """What a model of the test windows is measured against: the entropy of
    their characters' distribution (nats), the perplexity on them of a unigram
    model of the first --train-windows training windows (add-one smoothed over
    the characters either holds), and the share of spaces and of ASCII letters."""
    train = [lm.parse(ex.source) for ex in lm.read_split(data, "train")[: args.train_windows]]
    test, fit = _characters(windows), _characters(train)
    alphabet = sorted(set(test) | set(fit))
    index = {c: k for k, c in enumerate(alphabet)}
    counts = np.bincount([index[c] for c in test], minlength=len(alphabet)).astype(float)
    unigram = np.bincount([index[c] for c in fit], minlength=len(alphabet)) + 1.0
    unigram /= unigram.sum()
    shares = counts[counts > 0] / counts.sum()
    meta = lm.meta_of(data)
    return {
        "splits": {split: meta[split] for split in ("train", "valid", "test")},
        "files": meta["files"],
        "training_windows_fitted": len(train),
        "test_windows": len(windows),
        "test_characters": len(test),
        "character_entropy_nats": float(-(shares * np.log(shares)).sum()),
        "unigram_perplexity": float(np.exp(-(counts * np.log(unigram)).sum() / counts.sum())),
        "space_share": test.count(" ") / len(test),
        "letter_share": sum(c.isascii() and c.isalpha() for c in test) / len(test),
    }


def data_table(report: dict) -> str:
    """The data report's table (``--prepare-only --report``)."""
    s = report["statistics"]
    splits = " / ".join(f"{s['splits'][k]:,}" for k in ("train", "valid", "test"))
    rows = [
        ("windows (train / valid / test)", f"{splits} from {s['files']:,} files"),
        ("training windows fitted (the models' and the unigram's)", f"{s['training_windows_fitted']:,}"),
        ("test windows scored", f"{s['test_windows']:,} ({s['test_characters']:,} characters)"),
        ("entropy of the test characters", f"{s['character_entropy_nats']:.2f} nats"),
        ("a unigram model's perplexity on them", f"{s['unigram_perplexity']:.1f}"),
        ("spaces among them", f"{100 * s['space_share']:.1f} %"),
        ("ASCII letters among them", f"{100 * s['letter_share']:.1f} %"),
    ]
    return "\n".join(["| measure | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)])


def counting_losses(text: Sequence[str], size: int, alpha: float, beta: float | None = None) -> np.ndarray:
    """The loss (nats) of each character of ``text`` after the first, predicted from those before it alone:
    a seen character by its count, ``alpha`` of mass spread evenly over the ``size`` characters minus those
    seen (the unigram of the window so far); with ``beta``, the counts of what followed the previous character
    in the window, backed off to that unigram with weight ``beta`` (its bigram). Which character is which
    never enters, only which are equal: a lexinvariant model that only counts."""
    counts: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    after: dict[str, int] = {}
    out = np.empty(max(len(text) - 1, 0))
    for t, char in enumerate(text):
        if t:
            seen = counts.get(char, 0)
            p = seen / (t + alpha) if seen else alpha / (t + alpha) / max(size - len(counts), 1)
            if beta is not None:
                prev = text[t - 1]
                p = (pairs.get((prev, char), 0) + beta * p) / (after.get(prev, 0) + beta)
                pairs[prev, char] = pairs.get((prev, char), 0) + 1
                after[prev] = after.get(prev, 0) + 1
            out[t - 1] = -np.log(p)
        counts[char] = counts.get(char, 0) + 1
    return out


def frequency_losses(text: Sequence[str], size: int, slope: float, seen: float = 0.0) -> np.ndarray:
    """The loss (nats) of each character of ``text`` after the first, by a softmax over the ``size``
    characters whose logits are ``slope`` times each one's frequency in the window so far, plus ``seen``
    for a character seen there. With ``seen`` 0, what a layer that averages the vectors read and is read
    out by those same vectors can write: logits linear in the frequencies. ``seen`` adds the step a count
    needs to set a character once seen apart from one never seen. Lexinvariant as :func:`counting_losses`."""
    if len(text) < 2:
        return np.empty(0)
    codes, counts = counts_before(text)  # (T,) distinct ids; (T-1, K) counts before each target
    logits = slope * counts / np.arange(1, len(text))[:, None] + seen * (counts > 0)  # (T-1, K)
    unseen = size - codes.max() - 1  # characters of the alphabet the whole window never holds: logit 0
    top = logits.max(axis=1, keepdims=True)
    norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1) + unseen * np.exp(-top[:, 0]))
    return norm - logits[np.arange(len(text) - 1), codes[1:]]


def _losses(name: str, texts: list, size: int, a: float, b: float | None) -> list[np.ndarray]:
    """The losses of reference ``name`` with its two constants (alpha and beta; slope and seen)."""
    if name.startswith("frequency"):
        return [frequency_losses(x, size, a, b or 0.0) for x in texts]
    return [counting_losses(x, size, a, b) for x in texts]


#: each reference's grid of constants, and their names in the report
GRIDS = {
    "counting-unigram": ([(a, None) for a in ALPHAS], ("alpha", "beta")),
    "counting-bigram": ([(a, b) for a in ALPHAS for b in BETAS], ("alpha", "beta")),
    "frequency": ([(s, None) for s in SLOPES], ("slope", "seen")),
    "frequency-seen": ([(s, m) for s in SLOPES for m in SEEN], ("slope", "seen")),
}


def reference(name: str, data: Path, windows: list, args) -> dict:
    """Score a reference that is counted, not trained (:func:`counting_losses`, :func:`frequency_losses`):
    its two constants the pair of its :data:`GRIDS` that gives the lowest loss on the first --test-windows
    validation windows of full length; the size of its alphabet, the characters those, the test windows and
    the first --train-windows training windows hold."""
    valid = [w for w in (lm.parse(ex.source) for ex in lm.read_split(data, "valid")) if len(w.tokens) == args.seq_len]
    valid = [[t.text for t in w.tokens] for w in valid[: args.test_windows]]
    test = [[t.text for t in w.tokens] for w in windows]
    train = [lm.parse(ex.source) for ex in lm.read_split(data, "train")[: args.train_windows]]
    size = len(set(_characters(train)) | {c for w in valid + test for c in w})
    grid, names = GRIDS[name]
    scores = {(a, b): float(np.mean(np.concatenate(_losses(name, valid, size, a, b)))) for a, b in grid}
    a, b = min(scores, key=scores.get)
    losses = _losses(name, test, size, a, b)
    print(f"{name}: {names[0]} {a:g}, {names[1]} {b}, validation perplexity {np.exp(scores[a, b]):.2f}", flush=True)
    return {
        "model": name,
        "seed": None,
        "counted": True,
        "smoothing": {names[0]: a, names[1]: b},
        "alphabet": size,
        "valid_perplexity": float(np.exp(scores[a, b])),
        "test_loss": float(np.mean(np.concatenate(losses))),
        "curve": lm.curve(losses, min(args.window, args.seq_len - 1)),
    }


def run(name: str, seed: int, data: Path, windows: list, args) -> dict:
    """Train (unless done) and score one model: its curve and training record."""
    arch, overrides = MODELS[name]
    overrides = {"lexinvariant_p": args.p} if overrides is None else overrides
    if name == "lexinvariant" and args.random_vectors is not None:  # the paper's unit vectors, or the small ones
        overrides = {**overrides, "random_vectors": args.random_vectors}
    path = args.out / f"{name}-s{seed}.pt"
    record = args.out / f"{name}-s{seed}.json"  # what training reported, kept for reruns
    seconds = None
    if not path.exists():
        t = time.perf_counter()
        result = invar.train(
            task="lm",
            data=data,
            arch=arch,
            size=args.size,
            epochs=args.epochs,
            out=path,
            batch_size=args.batch_size,
            lr=args.lr,
            seed=seed,
            device=args.device,
            threads=args.threads,
            limit=args.train_windows,
            overrides=overrides or None,
            patience=args.patience,
            precision=args.precision,
            time_limit=args.time_limit,
        )
        seconds = time.perf_counter() - t
        record.write_text(
            json.dumps(
                {
                    "train_seconds": seconds,
                    "epochs_run": len(result.history),
                    "stopped_early": result.stopped_at is not None,
                    "stopped_by": result.stopped_by,
                    "steps": result.steps_per_epoch * len(result.history),
                }
            )
        )
    trained = json.loads(record.read_text()) if record.exists() else resumed(path, args)
    from invar.nn.lm import position_losses  # imports torch: not on the path of --prepare-only

    model = invar.load_model(path, device=args.device)
    losses = position_losses(model.network, [model.encode(w) for w in windows], device=args.device)
    curve = lm.curve(losses, min(args.window, args.seq_len - 1))
    history, best = model.metrics["history"], model.metrics["best_epoch"]
    valid = min(h["valid_perplexity"] for h in history)  # the kept (best) epoch's
    print(
        f"{name} seed {seed}: validation perplexity {valid:.2f} (best epoch {best} of {trained.get('epochs_run')}), "
        f"test loss "
        f"{np.mean([x.mean() for x in losses]):.3f}" + (f", trained in {seconds:.0f} s" if seconds else ""),
        flush=True,
    )
    return {
        "model": name,
        "seed": seed,
        "arch": arch,
        "overrides": overrides,
        "train_seconds": seconds,
        "valid_perplexity": valid,
        "best_epoch": best,
        "epochs_run": trained.get("epochs_run"),
        "stopped_early": trained.get("stopped_early"),
        "cut": trained.get("cut", False),
        "stopped_by": trained.get("stopped_by"),
        "steps": trained.get("steps"),
        "first_train_seconds": trained.get("train_seconds"),
        "test_loss": float(np.mean(np.concatenate(losses))),
        "valid_history": [h["valid_perplexity"] for h in history],
        "curve": curve,
    }


def resumed(path: Path, args) -> dict:
    """What a checkpoint trained elsewhere ran, from its resume file's history."""
    resume = path.with_name(path.name.replace(".pt", ".resume.pt"))
    if not resume.exists():
        return {}
    import torch

    state = torch.load(resume, weights_only=True, map_location="cpu")
    ran, best = len(state["history"]), int(state["best_epoch"])
    # stopped by patience only if the last epoch is that many past the best; short of it and of the cap,
    # the run was cut (a time budget, a kill)
    stopped = bool(args.patience) and ran < args.epochs and ran - best >= args.patience
    return {"epochs_run": ran, "stopped_early": stopped, "cut": ran < args.epochs and not stopped}


#: context lengths the table reads the curves at (those the curves reach, and the last)
POINTS = (1, 10, 25, 50, 100, 150, 200, 300, 400)


def models_of(runs: list[dict]) -> list[str]:
    """The models of ``runs`` in the order they first appear."""
    return list(dict.fromkeys(r["model"] for r in runs))


def curves_table(runs: list[dict], reference: str = "learned", references: dict[str, str] | None = None) -> str:
    """Perplexity at chosen context lengths, mean over seeds, with the ratio to the ``reference`` model's (to
    ``references[model]``'s where it names one)."""
    contexts = runs[0]["curve"]["context"]
    points = sorted({c for c in (*POINTS, contexts[-1]) if c <= contexts[-1]})
    by_model: dict[str, np.ndarray] = {}
    for name in models_of(runs):
        curves = [np.asarray(r["curve"]["perplexity"]) for r in runs if r["model"] == name]
        by_model[name] = np.mean(curves, axis=0)
    head = "| model | " + " | ".join(f"context {c}" for c in points) + " |"
    rows = [head, "|---" * (len(points) + 1) + "|"]
    for name, ppl in by_model.items():
        cells, base = [], (references or {}).get(name, reference)
        for c in points:
            cell = f"{ppl[c - 1]:.2f}"
            if name != base and base in by_model:
                cell += f" ({ppl[c - 1] / by_model[base][c - 1]:.2f}×)"
            cells.append(cell)
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _ended(run: dict) -> str:
    if run.get("stopped_early"):
        return "early"
    return "cut" if run.get("cut") else "at the cap"


def runs_table(runs: list[dict]) -> str:
    """A row per model and seed: validation perplexity, epochs, how the run ended, test loss, training time."""
    rows = [
        "| model | seed | best validation perplexity | best epoch | epochs run | stopped | last 5 epochs "
        "| test loss (nats/char) | training |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in models_of([r for r in runs if not r.get("counted")]):
        for r in (r for r in runs if r["model"] == name):
            seconds = r.get("first_train_seconds") or r.get("train_seconds")
            rows.append(
                f"| {name} | {r['seed']} | {r['valid_perplexity']:.2f} | {r['best_epoch']} | {r['epochs_run']} "
                f"| {_ended(r)} | {_last_epochs(r.get('valid_history'))} | {r['test_loss']:.3f} | "
                + (f"{seconds:,.0f} s |" if seconds else "– |")
            )
        mine = [r for r in runs if r["model"] == name]
        if len(mine) > 1:
            valid = mean_sd([r["valid_perplexity"] for r in mine])
            loss = mean_sd([r["test_loss"] for r in mine], "{:.3f}")
            rows.append(f"| **{name}** | {len(mine)} seeds | **{valid}** | | | | | {loss} | |")
    return "\n".join(rows)


def _last_epochs(history: list[float] | None, n: int = 5) -> str:
    """How much the validation perplexity moved over the last ``n`` epochs, in %: a run
    still improving at its cap shows it here."""
    if not history or len(history) <= n:
        return "–"
    change = 100 * (history[-1] - history[-1 - n]) / history[-1 - n]
    return f"{change:+.1f} %"


def summary(report: dict | list[dict]) -> str:
    """docs/results.md's table: per model, its seeds' validation perplexity and the
    ratio of its perplexity to the learned model's at each decade of context and the last
    (of one report, or of several run on the same data)."""
    runs = joined(report, "runs")
    contexts = runs[0]["curve"]["context"]
    points = sorted({c for c in (1, 10, 100, 1000, contexts[-1]) if c <= contexts[-1]})
    mean = {
        name: np.mean([r["curve"]["perplexity"] for r in runs if r["model"] == name], axis=0)
        for name in models_of(runs)
    }
    rows = [
        "| model | seeds | validation perplexity | "
        + " | ".join(f"ratio to learned, context {c}" for c in points)
        + " |",
        "|---|---|---|" + "---|" * len(points),
    ]
    for name in models_of(runs):
        mine = [r for r in runs if r["model"] == name]
        ratios = " | ".join(
            f"{mean[name][c - 1] / mean['learned'][c - 1]:.2f}×" if "learned" in mean else "–" for c in points
        )
        counted = mine[0].get("counted")
        valid = [r["valid_perplexity"] for r in mine]
        shown = spread(valid) if counted else mean_sd(valid)
        rows.append(f"| {name} | {'counted' if counted else len(mine)} | {shown} | {ratios} |")
    return "\n".join(rows)


def counted_table(runs: list[dict]) -> str:
    """A row per counting reference: its smoothing, alphabet, validation perplexity and test loss."""
    rows = [
        "| reference | constants (chosen on validation) | alphabet | validation perplexity | test loss (nats/char) |",
        "|---|---|---|---|---|",
    ]
    for r in (r for r in runs if r.get("counted")):
        constants = ", ".join(f"{k} {v:.3g}" for k, v in r["smoothing"].items() if v is not None)
        rows.append(
            f"| {r['model']} | {constants} | {r['alphabet']} | {r['valid_perplexity']:.2f} | {r['test_loss']:.3f} |"
        )
    return "\n".join(rows)


def curves(report: dict | list[dict]) -> str:
    """The curves' table of one report, or of several on the same test windows (trained models beside the
    counting references), then the references' own table."""
    runs = joined(report, "runs")
    counted = "\n\n" + counted_table(runs) if any(r.get("counted") for r in runs) else ""
    return curves_table(runs) + counted


def by_rate(reports: list[dict]) -> str:
    """The curves of reports on the same test windows that trained at different peak learning rates: each
    trained model named with its rate, its ratio to the learned model at the same rate where one is among
    them, else to the first report's (a learned model's too); the counting references once, beside the first
    report's."""
    runs, counted = [], {}
    for report in reports:
        lr = float(report["settings"]["lr"])
        for r in report["runs"]:
            if r.get("counted"):
                counted.setdefault(r["model"], r)
            else:
                runs.append({**r, "model": f"{r['model']}, lr {lr:g}", "lr": lr})
    learned = {r["lr"]: r["model"] for r in runs if r["model"].startswith("learned,")}
    references = {
        r["model"]: learned[r["lr"]] for r in runs if r["lr"] in learned and r["model"] not in learned.values()
    }
    reference = f"learned, lr {float(reports[0]['settings']['lr']):g}"
    return curves_table(runs + list(counted.values()), reference, references)


def table(report: dict) -> str:
    """The curves' table, then the runs' (``report`` as ``--report`` writes it)."""
    runs = report["runs"]
    load = f"{load_line(report)}\n\n" if "load_average_before" in report else ""
    trained = "\n\n" + runs_table(runs) if any(not r.get("counted") for r in runs) else ""
    counted = "\n\n" + counted_table(runs) if any(r.get("counted") for r in runs) else ""
    return load + curves_table(runs) + trained + counted


def plot(runs: list[dict], args, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name in args.models:
        curves = [r["curve"] for r in runs if r["model"] == name]
        ax.plot(curves[0]["context"], np.mean([c["perplexity"] for c in curves], axis=0), label=name)
    ax.set_xlabel("context length (tokens read)")
    ax.set_ylabel(f"perplexity (moving average over {runs[0]['curve']['window']})")
    ax.set_yscale("log")
    ax.set_title(f"{args.vocab} vocabulary, {args.size}, {args.train_windows} training windows")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _settings(args) -> dict[str, str]:
    """The options as a report holds them: the directories as DIR and STDLIB (or SOURCE)."""
    stdlib = args.source == Path(sysconfig.get_paths()["stdlib"])
    return portable(args, {"out": "DIR", "source": "STDLIB" if stdlib else "SOURCE"})


def main(argv=None) -> None:
    args = arguments(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    data = dataset(args)
    if args.prepare_only and not args.report:
        return
    windows = test_windows(data, args)
    if not windows:
        raise SystemExit(f"no test window of {args.seq_len} tokens in {data}")
    if args.prepare_only:
        report = {"machine": machine(), "settings": _settings(args), "statistics": data_statistics(data, windows, args)}
        finish(report, data_table, args.report)
        return
    load_before = os.getloadavg()
    runs = [
        reference(name, data, windows, args) if MODELS[name][0] is None else run(name, seed, data, windows, args)
        for seed in args.seeds
        for name in args.models
        if MODELS[name][0] is not None or seed == args.seeds[0]
    ]
    report = {
        "machine": machine(),
        "settings": _settings(args),
        "test_windows": len(windows),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "runs": runs,
    }
    (args.out / "lm-curves.json").write_text(json.dumps(report, indent=1))
    (args.out / "lm-curves.md").write_text(table(report) + "\n")
    plot(runs, args, args.out / "lm-curves.png")
    finish(report, table, args.report)


if __name__ == "__main__":
    main()
