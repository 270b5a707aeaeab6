"""A corpus where counting is all there is to learn: each file draws its own
unigram distribution over 96 characters from a symmetric Dirichlet, then its
characters from that distribution, independently. No character is more
common than another across files, so a model can predict a file only from the
file itself; and the best any model can do is known exactly, the Bayes
predictive of the Dirichlet-multinomial,

    p(x_t = v | x_1 ... x_{t-1}) = (c_v + a) / (t - 1 + K a)

(c_v the count of v before t, a the concentration, K = 96 characters). That
predictor is lexinvariant: it counts and never asks which character is which.

    python bench/bench_unigram_corpus.py --out DIR [--files 2500] [--length 512] [--concentration 0.1]
        [--seed 0] [--window 100] [--report PATH]

writes DIR/f00000.py … (``.py`` so that ``invar data lm`` and
bench/bench_lm_curves.py take them; they are no Python) and reports the
Bayes loss over the files bench_lm_curves.py scores: the test split's
(``invar.tasks.names.split_of``, by path hash), the first 200 of full length
(--test-windows), with their curve by context position, the moving average
bench_lm_curves.py draws (``invar.tasks.lm.curve``).
"""

from __future__ import annotations

import argparse
import json
import string
from pathlib import Path

import numpy as np
from common import counts_before, finish, machine, portable

from invar.tasks import lm
from invar.tasks.names import split_of

#: the characters: printable ASCII and the newline, 96 as in the standard-library windows
ALPHABET = "".join(chr(c) for c in range(32, 127)) + "\n"
assert len(ALPHABET) == 96 and set(ALPHABET) <= set(string.printable)


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--files", type=int, default=2500)
    ap.add_argument("--length", type=int, default=512, help="characters per file (one window of this length)")
    ap.add_argument("--concentration", type=float, default=0.1, help="the symmetric Dirichlet's a")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test-windows", type=int, default=200, help="test files scored (bench_lm_curves.py's)")
    ap.add_argument("--window", type=int, default=lm.WINDOW, help="the curve's moving average")
    ap.add_argument("--report", type=Path, default=None)
    return ap.parse_args(argv)


def texts(files: int, length: int, concentration: float, seed: int) -> list[str]:
    """``files`` texts of ``length`` characters, each from its own unigram distribution."""
    rng = np.random.default_rng(seed)
    alphabet = np.array(list(ALPHABET))
    out = []
    for _ in range(files):
        p = rng.dirichlet(np.full(len(ALPHABET), concentration))
        out.append("".join(alphabet[rng.choice(len(ALPHABET), size=length, p=p)]))
    return out


def bayes_losses(text: str, concentration: float, size: int = len(ALPHABET)) -> np.ndarray:
    """The Bayes predictive's loss (nats) of each character after the first (the module docstring)."""
    codes, before = counts_before(text)  # (T-1, K): counts before each target
    seen = before[np.arange(len(text) - 1), codes[1:]]
    return -np.log((seen + concentration) / (np.arange(1, len(text)) + size * concentration))


def name(k: int) -> str:
    return f"f{k:05d}.py"


def table(report: dict) -> str:
    s = report["scored"]
    curve = s["curve"]
    points = [c for c in (1, 10, 100, 200, 300, 400) if c <= curve["context"][-1]] + [curve["context"][-1]]
    cells = " | ".join(f"{curve['perplexity'][c - 1]:.2f}" for c in dict.fromkeys(points))
    head = " | ".join(f"context {c}" for c in dict.fromkeys(points))
    return "\n".join(
        [
            f"{report['files']:,} files of {report['settings']['length']} characters; "
            f"{s['files']} test files scored, Bayes loss {s['loss']:.3f} nats/char "
            f"(perplexity {np.exp(s['loss']):.2f})",
            "",
            f"| reference | {head} |",
            "|---" * (len(dict.fromkeys(points)) + 1) + "|",
            f"| bayes | {cells} |",
        ]
    )


def main(argv=None) -> dict:
    args = arguments(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    written = texts(args.files, args.length, args.concentration, args.seed)
    for k, text in enumerate(written):
        (args.out / name(k)).write_text(text, encoding="utf-8")
    # the files bench_lm_curves.py scores: the test split's, in its order (sorted paths), the first --test-windows
    test = [t for path, t in sorted((name(k), t) for k, t in enumerate(written)) if split_of(path) == "test"]
    losses = [bayes_losses(t, args.concentration) for t in test[: args.test_windows]]
    report = {
        "machine": machine(),
        "settings": portable(args, {"out": "DIR"}),
        "files": args.files,
        "scored": {
            "files": len(losses),
            "loss": float(np.mean(np.concatenate(losses))) if losses else None,
            "curve": lm.curve(losses, min(args.window, args.length - 1)),
        },
    }
    (args.out / "corpus.json").write_text(json.dumps(report, indent=1))
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
