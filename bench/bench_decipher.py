"""In-context deciphering, the lexinvariant paper's section 3.3: the
perplexity of character LMs of code on test windows put through a random
substitution cipher of the lowercase letters, beside their perplexity on the
plain windows; and, with ``--probe-steps``, the paper's probe reading the
key back from each frozen model.

    python bench/bench_decipher.py --data DIR --models learned-s0=DIR/learned-s0.pt lexinvariant-s0=... \\
        [--windows 200] [--split test] [--seed 0] [--threads 1] [--device cpu] \\
        [--probe-steps 0] [--probe-batch 32] [--probe-lr 1e-3] [--probe-hidden 0] [--probe-windows 0] \\
        [--key-window 100] [--report PATH]

DIR is an ``invar data lm --vocab char`` dataset (bench/bench_lm_curves.py
writes one as OUTDIR/data); the first ``--windows`` full-length test windows
are scored. Each window gets its own key (a uniformly random permutation of
a–z, seeded), applied as a renaming of the window's characters (an id remap
of its encoding, never a re-parse). A standard LM has learned what each
letter is and loses it under the cipher; a lexinvariant LM reads every
character through a random vector, so a ciphered window is, for it, just
another window: its perplexity should barely move (invariance in
distribution; exact only with its table permuted along, which
tests/nn/test_lm.py checks). Perplexity is reported over the whole window
and over the first and last thirds of the context, as the gap should close
as context grows. Models whose names differ only by a ``-sK`` suffix are
seeds of one model (mean ± sd).

**The probe** (``--probe-steps N`` > 0; :mod:`invar.nn.probe`): for each
model, a two-layer MLP with its own learned output embedding is trained for
N steps on the frozen model's last hidden state to name the plain character
at each position of a ciphered window (train split, full-length windows, all
of them or every k-th to keep ``--probe-windows``; a fresh key per window
and, for a lexinvariant model, a fresh random table per window, as it was
trained). On the scored test windows (their own seeded keys, fresh tables)
it reports the per-token deciphering accuracy (every position, and the
positions holding a letter) and the key precision of the paper's majority
vote over a window of ``--key-window`` positions (first, middle and last
window of the sequence, as many as fit), averaged over the windows that
hold a letter there. The paper: 99.6 % for the last window.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import string
import time

import numpy as np
import torch
from common import closed, finish, joined, load_line, mean_sd, opened, seed_group

import invar
from invar.encoding import renamed
from invar.nn import probe as decipher_probe
from invar.nn.lm import position_losses
from invar.tasks import lm

LETTERS = string.ascii_lowercase


def keys(n: int, seed: int) -> list[dict[str, str]]:
    """``n`` substitution ciphers of a–z, each a uniformly random permutation."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        shuffled = list(LETTERS)
        rng.shuffle(shuffled)
        out.append(dict(zip(LETTERS, shuffled)))
    return out


def windows(data: str, n: int, split: str = "test") -> list:
    """The first ``n`` full-length windows of an lm dataset's ``split``, as programs."""
    seq_len = lm.meta_of(data)["seq_len"]
    out = []
    for ex in lm.read_split(data, split):
        program = lm.parse(ex.source)
        if len(program.tokens) == seq_len:
            out.append(program)
        if len(out) == n:
            break
    if not out:
        raise SystemExit(f"{data}: the {split} split holds no window of {seq_len} characters")
    return out


def perplexities(model, encoded: list, device: str) -> dict[str, float]:
    """Perplexity over each window's whole context, its first third and its last third."""
    losses = np.stack(position_losses(model.network, encoded, device=device))  # (N, T-1)
    third = losses.shape[1] // 3
    return {
        "all": math.exp(losses.mean()),
        "first third": math.exp(losses[:, :third].mean()),
        "last third": math.exp(losses[:, -third:].mean()),
    }


def run(models: list[str], data: str, n: int, seed: int, device: str, split: str = "test") -> list[dict]:
    programs = windows(data, n, split)
    ciphers = keys(len(programs), seed)
    rows = []
    for spec in models:
        name, _, path = spec.partition("=")
        model = invar.load_model(path, task="lm", device=device)
        plain = [model.encode(p) for p in programs]
        known = set(model.vocab.referents)
        ciphered = [
            renamed(e, {a: b for a, b in key.items() if a in known and b in known}, model.vocab)
            for e, key in zip(plain, ciphers)
        ]
        row = {"model": name, "group": seed_group(name), "windows": len(programs)}
        for kind, encoded in (("plain", plain), ("ciphered", ciphered)):
            for span, value in perplexities(model, encoded, device).items():
                row[f"{kind} {span}"] = value
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def cipher_table(rows: list[dict]) -> str:
    """Perplexity plain and ciphered, and their ratio over the window and its thirds, mean ± sd over seeds."""
    lines = [
        "| model | seeds | plain | ciphered | ratio | ratio, first third | ratio, last third |",
        "|---|---|---|---|---|---|---|",
    ]
    for group in dict.fromkeys(r["group"] for r in rows):
        rs = [r for r in rows if r["group"] == group]
        cell = mean_sd

        ratio = lambda span: [r[f"ciphered {span}"] / r[f"plain {span}"] for r in rs]  # noqa: E731
        lines.append(
            f"| {group} | {len(rs)} | {cell([r['plain all'] for r in rs])} | "
            f"{cell([r['ciphered all'] for r in rs])} | {cell(ratio('all'))}× | "
            f"{cell(ratio('first third'))}× | {cell(ratio('last third'))}× |"
        )
    return "\n".join(lines)


def full_windows(data: str, split: str, keep: int = 0) -> list:
    """The full-length windows of ``split``: all of them, or evenly spaced to keep ``keep``."""
    seq_len = lm.meta_of(data)["seq_len"]
    out = [p for p in (lm.parse(ex.source) for ex in lm.read_split(data, split)) if len(p.tokens) == seq_len]
    if not out:
        raise SystemExit(f"{data}: the {split} split holds no window of {seq_len} characters")
    return out[:: max(1, len(out) // keep)][:keep] if keep else out


def key_windows(seq_len: int, size: int) -> list[tuple[int, int]]:
    """The first, middle and last window of ``size`` positions (those that fit; the whole sequence if shorter)."""
    if seq_len <= size:
        return [(0, seq_len)]
    return [(lo, lo + size) for lo in sorted({0, (seq_len - size) // 2, seq_len - size})]


def key_precisions(
    ciphered: np.ndarray, deciphered: np.ndarray, keys: np.ndarray, symbols: list[int], spans: list[tuple[int, int]]
) -> list[float]:
    """Each span's key precision, the mean over the windows with a letter in it."""
    out = []
    for lo, hi in spans:
        values = [
            decipher_probe.key_precision(
                decipher_probe.cipher_key(c[lo:hi], d[lo:hi], symbols), decipher_probe.inverse_key(k, symbols)
            )
            for c, d, k in zip(ciphered, deciphered, keys)
        ]
        out.append(float(np.nanmean(values)) if not all(math.isnan(v) for v in values) else float("nan"))
    return out


def probe_run(
    models: list[str], data: str, n: int, seed: int, device: str, opts: dict, split: str = "test"
) -> list[dict]:
    """Train a probe on each model and score it on the first ``n`` full-length ``split`` windows."""
    programs = windows(data, n, split)
    train_programs = full_windows(data, "train", opts.get("windows", 0))
    spans = key_windows(len(programs[0].tokens), opts.get("key_window", 100))
    rows = []
    for spec in models:
        name, _, path = spec.partition("=")
        model = invar.load_model(path, task="lm", device=device)
        symbols = [model.vocab.token_id(c, lm.VIEW) for c in LETTERS if c in model.vocab.referents]
        as_ids = lambda ps: torch.tensor(np.stack([model.encode(p).tokens for p in ps])).long()  # noqa: E731
        sym = torch.tensor(symbols)
        started = time.perf_counter()
        probe, losses = decipher_probe.train_probe(
            model.network,
            as_ids(train_programs),
            sym,
            steps=opts["steps"],
            batch_size=opts.get("batch", 32),
            lr=opts.get("lr", 1e-3),
            hidden=opts.get("hidden", 0),
            seed=seed,
            device=device,
        )
        seconds = time.perf_counter() - started
        ciphered, deciphered, keys = decipher_probe.decipher(
            model.network, probe, as_ids(programs), sym, seed=seed, device=device
        )
        plain = as_ids(programs).numpy()
        letters = np.isin(plain, symbols)
        row = {
            "model": name,
            "group": seed_group(name),
            "windows": len(programs),
            "train windows": len(train_programs),
            "steps": opts["steps"],
            "seconds": seconds,
            "first loss": float(np.mean(losses[:10])),
            "last loss": float(np.mean(losses[-10:])),
            "accuracy": float((deciphered == plain).mean()),
            "letter accuracy": float((deciphered == plain)[letters].mean()),
            "spans": spans,
            "precision": key_precisions(ciphered, deciphered, keys, symbols, spans),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def probe_table(rows: list[dict]) -> str:
    """Deciphering accuracy and key precision by window, mean ± sd over seeds, in %."""
    spans = rows[0]["spans"]
    head = " | ".join(f"key precision, positions {lo}–{hi - 1}" for lo, hi in spans)
    lines = [
        f"| model | seeds | probe loss, first → last 10 steps | accuracy, all | accuracy, letters | {head} |",
        "|---|---|---|---|---|" + "---|" * len(spans),
    ]
    pct = lambda xs: mean_sd([100 * x for x in xs], "{:.1f}", " %")  # noqa: E731
    for group in dict.fromkeys(r["group"] for r in rows):
        rs = [r for r in rows if r["group"] == group]
        cells = " | ".join(pct([r["precision"][k] for r in rs]) for k in range(len(spans)))
        lines.append(
            f"| {group} | {len(rs)} | {mean_sd([r['first loss'] for r in rs])} → "
            f"{mean_sd([r['last loss'] for r in rs])} | {pct([r['accuracy'] for r in rs])} | "
            f"{pct([r['letter accuracy'] for r in rs])} | {cells} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--models", nargs="+", required=True, help="NAME=CHECKPOINT")
    ap.add_argument("--windows", type=int, default=200)
    ap.add_argument("--split", default="test")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--probe-steps", type=int, default=0, help="train the deciphering probe this many steps")
    ap.add_argument("--probe-batch", type=int, default=32)
    ap.add_argument("--probe-lr", type=float, default=1e-3)
    ap.add_argument("--probe-hidden", type=int, default=0, help="the probe's hidden width (0: twice the LM's)")
    ap.add_argument("--probe-windows", type=int, default=0, help="train windows kept, evenly spaced (0: all)")
    ap.add_argument("--key-window", type=int, default=100, help="positions of one majority vote")
    ap.add_argument("--report", default=None, help="write the report (JSON) here")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    report = opened(args)
    rows = run(args.models, args.data, args.windows, args.seed, args.device, args.split)
    probed = []
    if args.probe_steps > 0:
        opts = {
            "steps": args.probe_steps,
            "batch": args.probe_batch,
            "lr": args.probe_lr,
            "hidden": args.probe_hidden,
            "windows": args.probe_windows,
            "key_window": args.key_window,
        }
        probed = probe_run(args.models, args.data, args.windows, args.seed, args.device, opts, args.split)
    finish(closed({**report, "rows": rows, "probe": probed}), table, args.report)
    return rows + probed


def summary(report: dict | list[dict]) -> str:
    """docs/results.md's table: the cipher's alone (of one report, or of several side by side)."""
    return cipher_table(joined(report, "rows"))


def probe(report: dict) -> str:
    """The probe's table alone (the cipher's of the same models stands in another report)."""
    return probe_table(report["probe"]) + ("\n\n" + load_line(report) if "load_average_before" in report else "")


def table(report: dict) -> str:
    """The cipher's table, then the probe's when the report holds one."""
    parts = [cipher_table(report["rows"])]
    if report.get("probe"):
        parts.append(probe_table(report["probe"]))
    if "load_average_before" in report:
        parts.append(load_line(report))
    return "\n\n".join(parts)


if __name__ == "__main__":
    main()
