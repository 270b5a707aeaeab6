"""In-context deciphering, the lexinvariant paper's section 3.3, first half:
the perplexity of character LMs of code on test windows put through a
random substitution cipher of the lowercase letters, beside their
perplexity on the plain windows.

    python bench/bench_decipher.py --data DIR --models learned-s0=DIR/learned-s0.pt lexinvariant-s0=... \\
        [--windows 200] [--split test] [--seed 0] [--threads 1] [--device cpu]

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

Not here: the paper's probe (an MLP trained on the frozen lexinvariant LM to
read the key back); see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import string

import numpy as np
import torch
from common import machine, mean_sd, seed_group

import invar
from invar.encoding import renamed
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
    return {"all": math.exp(losses.mean()), "first third": math.exp(losses[:, :third].mean()),
            "last third": math.exp(losses[:, -third:].mean())}


def run(models: list[str], data: str, n: int, seed: int, device: str, split: str = "test") -> list[dict]:
    programs = windows(data, n, split)
    ciphers = keys(len(programs), seed)
    rows = []
    for spec in models:
        name, _, path = spec.partition("=")
        model = invar.load_model(path, task="lm", device=device)
        plain = [model.encode(p) for p in programs]
        known = set(model.vocab.referents)
        ciphered = [renamed(e, {a: b for a, b in key.items() if a in known and b in known}, model.vocab)
                    for e, key in zip(plain, ciphers)]
        row = {"model": name, "group": seed_group(name), "windows": len(programs)}
        for kind, encoded in (("plain", plain), ("ciphered", ciphered)):
            for span, value in perplexities(model, encoded, device).items():
                row[f"{kind} {span}"] = value
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| model | seeds | plain | ciphered | ratio | ratio, first third | ratio, last third |",
             "|---|---|---|---|---|---|---|"]
    for group in dict.fromkeys(r["group"] for r in rows):
        rs = [r for r in rows if r["group"] == group]
        cell = mean_sd

        ratio = lambda span: [r[f"ciphered {span}"] / r[f"plain {span}"] for r in rs]  # noqa: E731
        lines.append(f"| {group} | {len(rs)} | {cell([r['plain all'] for r in rs])} | "
                     f"{cell([r['ciphered all'] for r in rs])} | {cell(ratio('all'))}× | "
                     f"{cell(ratio('first third'))}× | {cell(ratio('last third'))}× |")
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
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = run(args.models, args.data, args.windows, args.seed, args.device, args.split)
    print(f"machine: {machine()}; torch {torch.__version__}")
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
