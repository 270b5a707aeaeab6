"""The lexinvariant paper's synthetic in-context tasks (its Table 1 and
appendix E's Table 2) on character language models of code: LookUp and
Permutation examples over symbols drawn uniformly or by frequency from the
characters of the models' training corpus, scored as generated-token
accuracy (greedy, as many tokens as the answer has).

    python bench/bench_incontext.py --models learned=DIR/learned-s0.pt lexinvariant=DIR/lexinvariant-s0.pt ...
        --corpus DIR/source [--num 1000] [--pairs 8] [--length 4] [--demos 3] [--seed 0] [--device cpu]
        [--report results.json]

The checkpoints are what bench/bench_lm_curves.py trains (``invar train
--task lm`` over ``--vocab char``); ``NAME=PATH`` names a model, and models
whose names differ only by a ``-sK`` suffix are seeds of one model (mean ±
sd). Symbols are the corpus's characters the model's vocabulary holds (so
no prompt holds a character it reads as unknown). The same examples are
given to every model.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from common import closed, each, finish, joined, load_line, mean_sd, opened, seed_group

import invar
from invar.data import incontext
from invar.nn.lm import continuation
from invar.tasks.lm import char_program

#: the paper's Table 1 (uniform symbols) and Table 2 (by frequency), GitHub, char vocabulary:
#: LookUp standard, lexinvariant; Permutation standard, lexinvariant
PAPER = {"uniform": (42.40, 86.65, 21.03, 71.59), "frequency": (66.00, 86.75, 36.62, 70.77)}


def model_pool(model, corpus: incontext.Pool) -> incontext.Pool:
    """The corpus's symbols that the model's vocabulary holds, with their counts."""
    known = set(model.vocab.tokens)
    keep = [(s, w) for s, w in zip(corpus.symbols, corpus.weights) if s in known]
    return incontext.Pool(tuple(s for s, _ in keep), tuple(w for _, w in keep))


@torch.inference_mode()
def answers(model, items: list[incontext.Item], device: str, batch_size: int = 128) -> list[list[str]]:
    """What the model writes after each prompt: greedy, as many tokens as the answer has."""
    out: list[list[str] | None] = [None] * len(items)
    groups: dict[tuple[int, int], list[int]] = {}
    encoded = [model.encode(char_program("".join(item.prompt))) for item in items]
    for k, (item, enc) in enumerate(zip(items, encoded)):
        groups.setdefault((len(enc.tokens), len(item.answer)), []).append(k)
    net = model.network.to(device)
    for (_, steps), members in groups.items():
        for lo in range(0, len(members), batch_size):
            chunk = members[lo : lo + batch_size]
            ids = torch.as_tensor(np.stack([encoded[k].tokens for k in chunk]), dtype=torch.long, device=device)
            written = continuation(net, ids, steps).tolist()
            for k, row in zip(chunk, written):
                out[k] = [model.vocab.tokens[i] for i in row]
    return out


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", required=True, help="NAME=CHECKPOINT")
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--num", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--length", type=int, default=4)
    ap.add_argument("--demos", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--report", "--out", dest="report", default=None, help="write the report (JSON) here")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    corpus = incontext.corpus_pool(args.corpus)
    report = opened(args)
    rows = []
    for spec in args.models:
        name, _, path = spec.partition("=")
        model = invar.load_model(path, task="lm", device=args.device)
        pool = model_pool(model, corpus)
        for draw, source in (("uniform", pool.uniform()), ("frequency", pool)):
            for task, shape in (
                ("lookup", {"pairs": args.pairs}),
                ("permutation", {"length": args.length, "demos": args.demos}),
            ):
                items = incontext.generate(task, args.num, source, seed=args.seed, **shape)
                acc = incontext.accuracy(items, answers(model, items, args.device))
                rows.append(
                    {
                        "model": name,
                        "group": seed_group(name),
                        "draw": draw,
                        "task": task,
                        "accuracy": 100 * acc,
                        "symbols": len(pool.symbols),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    finish(closed({**report, "rows": rows}), table, args.report)
    return rows


def table(report: dict | list[dict]) -> str:
    """Accuracy by model, draw and task, mean ± sd over seeds (in brackets: how many), beside the paper's
    (of one report, or of several side by side: a load line each)."""
    rows = joined(report, "rows")
    lines = [
        "| model | symbols drawn | LookUp | Permutation | paper, GitHub char (standard / lexinvariant) |",
        "|---|---|---|---|---|",
    ]
    groups = sorted({(r["group"], r["draw"]) for r in rows}, key=lambda g: (g[1] != "uniform", g[0]))
    for group, draw in groups:
        cells = []
        for task in ("lookup", "permutation"):
            xs = [r["accuracy"] for r in rows if (r["group"], r["draw"], r["task"]) == (group, draw, task)]
            cells.append(f"{mean_sd(xs)} % ({len(xs)})")
        paper = PAPER[draw]
        lines.append(
            f"| {group} | {draw} | {cells[0]} | {cells[1]} | LookUp {paper[0]:.2f} / {paper[1]:.2f}, "
            f"Permutation {paper[2]:.2f} / {paper[3]:.2f} |"
        )
    loads = "".join(f"\n\n{load_line(r)}" for r in each(report) if "load_average_after" in r)
    return "\n".join(lines) + loads


if __name__ == "__main__":
    main()
