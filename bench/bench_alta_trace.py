"""Trace supervision on the three parity programs, beside the ALTA paper's Table 2.

For each program: the interpreter's MLP inputs and outputs on the training
inputs (lengths 0–20, about as many per number of ones, as in the paper's
D.1) are the training pairs; an MLP from random weights learns them (L2 on
the MLP's change to the stream, Gaussian noise on its input); it replaces
the compiled MLP, every other weight compiled; the model then runs on test
inputs of lengths 0–40 and the last position's output is scored against
``sum(bits) % 2`` on Table 2's slices. Beside it: the minimal version of
the program on the same training inputs, compiled (the paper's Figure 4).

Table 1's settings are the default; ``--hidden`` and ``--steps`` shrink the
two 4 × 4,096 MLPs (1.6 s a step on a 2-core CPU) where the CPU cannot.
``parity-sum-count`` is the variant the paper trained for Sum + Modulo
(the count of ones kept in a categorical variable before its parity).

    python bench/bench_alta_trace.py [--programs parity-relative parity-absolute parity-sum-count]
        [--train 2000] [--test 2000] [--hidden parity-absolute=512x4 ...] [--steps parity-absolute=20000 ...]
        [--lr parity-absolute=1e-3 ...] [--threads 2]
        [--report alta-trace.json]

With ``--report`` the results are written as JSON with the machine, torch's
version, the arguments and the load average (after each program, so that a
long run keeps what it has done); :func:`table` renders that report as the
two tables of docs/benchmarks/alta.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import torch
from common import closed, finish, load_line, so_far, opened

from invar.alta import get_program
from invar.alta.analysis import minimal
from invar.alta.trace import (
    TABLE_1,
    TABLE_2_SLICES,
    TraceConfig,
    balanced_bits,
    parity_accuracy,
    predict,
    supervised_model,
    trace_pairs,
    train_mlp,
)
from invar.alta.compiler import compile_program
from invar.alta.lang import MLPBuilder, numerical, program, qkv, var

#: Table 2 of the paper, as printed (Length ≤ 20, Length > 20, Ones > 20)
PAPER_TABLE_2 = {
    "parity-relative": ("Sequential (Relative)", "100%", "100%", "100%"),
    "parity-absolute": ("Sequential (Absolute)", "100%", "52%", "51%"),
    "parity-sum-mod": ("Sum + Modulo", "100%", "78%", "50%"),
    "parity-sum-count": ("Sum + Modulo", "100%", "78%", "50%"),
}
MAX_ONES = 40


def parity_sum_count(max_length: int = MAX_ONES):
    """Sum + modulo as the paper trained it (D.1): the head's 1 / (ones + 1)
    becomes a categorical count in one layer, the count's parity the next."""
    variables = {
        "parity": var(2),
        "ones": var(max_length + 1),
        "end": numerical((0, 1), token=lambda t: float(t == "</s>")),
        "end_or_one": var(2, token=lambda t: int(t in ("1", "</s>"))),
        "query": var(2, default=1),
    }
    buckets = sorted(1 / k for k in range(1, max_length + 2))
    heads = {"inv_ones": qkv("query", "end_or_one", "end", output=numerical(buckets))}
    x = MLPBuilder(variables, heads)
    for inv_ones in x.get("inv_ones"):
        x.set("ones", round(1 / inv_ones) - 1)
    for ones in x.get("ones"):
        x.set("parity", ones % 2)
    return program(
        variables,
        heads,
        x.rules,
        output="parity",
        alphabet=("0", "1", "</s>"),
        suffix=("</s>",),
        max_layers=2,
        name="parity-sum-count",
    )


def _program(name: str):
    return parity_sum_count() if name == "parity-sum-count" else get_program(name)


def _overrides(items: list[str], parse) -> dict:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = parse(value)
    return out


def _hidden(text: str) -> tuple[int, ...]:
    width, _, count = text.partition("x")
    return (int(width),) * int(count or 1)


def _table_1(name: str) -> TraceConfig:
    return TABLE_1["parity-sum-mod" if name == "parity-sum-count" else name]


def run_one(name: str, train: list, test: list, config: TraceConfig) -> dict:
    prog = _program(name)
    t0 = time.perf_counter()
    pairs = trace_pairs(prog, train)
    t1 = time.perf_counter()
    learned, losses = train_mlp(prog, pairs, config)
    t2 = time.perf_counter()
    # a trained model may never halt: it gets the layers the longest test input needs, and some to spare
    cap = max(len(t) for t in test) + 5
    trained = parity_accuracy(
        predict(supervised_model(prog, learned), test, max_layers=cap if prog.halt else None), test, TABLE_2_SLICES
    )
    reduced = minimal(prog, train)
    minimal_acc = parity_accuracy(predict(compile_program(reduced), test), test, TABLE_2_SLICES)
    compiled_acc = parity_accuracy(predict(compile_program(prog), test), test, TABLE_2_SLICES)
    tail = losses[-max(1, len(losses) // 100) :]
    return {
        "program": name,
        "config": dataclasses.asdict(config),
        "pairs": int(len(pairs.inputs)),
        "pairs_seconds": t1 - t0,
        "train_seconds": t2 - t1,
        "loss_first": losses[0] if losses else None,
        "loss_last": sum(tail) / len(tail) if tail else None,
        "trained": trained,
        "minimal": minimal_acc,
        "compiled": compiled_acc,
        "rules": len(prog.rules),
        "minimal_rules": len(reduced.rules),
    }


def _pct(cell) -> str:
    share, n = cell
    return f"{100 * share:.0f}% ({n})"


def accuracy_table(results: list[dict]) -> str:
    """Each program's row from the paper's Table 2 (as printed), then the trace-supervised
    model, the minimal program compiled and the full program compiled, on Table 2's slices."""
    slices = list(TABLE_2_SLICES)
    head = "| program | model | " + " | ".join(slices) + " |"
    lines = [head, "|" + "---|" * (len(slices) + 2)]
    for r in results:
        paper = PAPER_TABLE_2[r["program"]]
        lines.append(f"| {r['program']} | paper, trace supervision ({paper[0]}) | " + " | ".join(paper[1:]) + " |")
        for key, label in (
            ("trained", "trace supervision here"),
            ("minimal", "minimal program, compiled"),
            ("compiled", "full program, compiled"),
        ):
            lines.append(f"| {r['program']} | {label} | " + " | ".join(_pct(r[key][s]) for s in slices) + " |")
    return "\n".join(lines)


def _seconds(x: float) -> str:
    return f"{x:.1f} s" if x < 10 else f"{x:,.0f} s"


def _loss(x: float | None) -> str:
    return "–" if x is None else f"{x:#.2g}"


def _mlp(config: dict) -> str:
    hidden = config["hidden"]
    if hidden is None:
        shape = "compiled widths"
    elif len(set(hidden)) == 1:
        shape = f"{len(hidden)} × {hidden[0]:,}"
    else:
        shape = " + ".join(f"{h:,}" for h in hidden)
    return f"{shape}, {config['optimizer'].title()} {config['lr']:g}, {config['steps']:,} steps"


def training_table(results: list[dict]) -> str:
    """Each program's training: the MLP, its pairs, the time to make them and to train,
    the loss (first step, mean of the last 1 % of steps), the rules of the full and minimal programs."""
    lines = [
        "| program | MLP, optimizer, steps | training pairs | pairs time | training time "
        "| loss, first step → last 1 % | rules, full → minimal |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['program']} | {_mlp(r['config'])} | {r['pairs']:,} | {_seconds(r['pairs_seconds'])} "
            f"| {_seconds(r['train_seconds'])} | {_loss(r['loss_first'])} → {_loss(r['loss_last'])} "
            f"| {r['rules']:,} → {r['minimal_rules']:,} |"
        )
    return "\n".join(lines)


def summary(report: dict | list[dict]) -> str:
    """docs/results.md's rows: each program's trace-supervised model on Table 2's
    slices, the steps it trained, and the paper's figures beside (as printed);
    several reports' rows one after another."""
    slices = list(TABLE_2_SLICES)
    lines = ["| model | " + " | ".join(slices) + " | the paper (Table 2) |", "|---|" + "---|" * (len(slices) + 1)]
    for r in (r for one in (report if isinstance(report, list) else [report]) for r in one["results"]):
        name, *paper = PAPER_TABLE_2[r["program"]]
        cells = " | ".join(f"{100 * r['trained'][s][0]:.0f}%" for s in slices)
        model = f"{name} (`{r['program']}`), from traces, {r['config']['steps']:,} steps"
        lines.append(f"| {model} | {cells} | *{' / '.join(paper)}* |")
    return "\n".join(lines)


def _threads(n: int) -> str:
    return f"{n} thread" if n == 1 else f"{n} threads"


def table(report: dict) -> str:
    """The report as docs/benchmarks/alta.md shows it: the accuracy table beside the
    paper's Table 2, the training table, and the load average."""
    args = report["args"]
    lines = [
        accuracy_table(report["results"]),
        "",
        training_table(report["results"]),
        "",
        f"{args['train']:,} training inputs of lengths 0–20, {args['test']:,} test inputs of lengths 0–40; "
        f"torch {report['torch']}, {_threads(args['threads'])}.",
    ]
    if "load_average_after" in report:
        lines += ["", load_line(report)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", nargs="+", default=["parity-relative", "parity-absolute", "parity-sum-count"])
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--test", type=int, default=2000)
    ap.add_argument("--hidden", nargs="*", default=[], help="NAME=WIDTHxLAYERS")
    ap.add_argument("--steps", nargs="*", default=[], help="NAME=STEPS")
    ap.add_argument("--lr", nargs="*", default=[], help="NAME=LEARNING_RATE")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--report", default=None, help="write the results to this JSON file")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    hidden, steps, lrs = _overrides(args.hidden, _hidden), _overrides(args.steps, int), _overrides(args.lr, float)
    train = balanced_bits(args.train, 0, 20, seed=0)
    test = balanced_bits(args.test, 0, 40, seed=1)
    report = {**opened(args, "alta-trace"), "results": []}
    started = time.perf_counter()
    for name in args.programs:
        config = _table_1(name)
        config = dataclasses.replace(
            config,
            hidden=hidden.get(name, config.hidden),
            steps=steps.get(name, config.steps),
            lr=lrs.get(name, config.lr),
        )
        result = run_one(name, train, test, config)
        print(json.dumps(result), flush=True)
        report["results"].append(result)
        so_far(report, args.report)
    report["wall_seconds"] = time.perf_counter() - started
    print(f"\nmachine: {report['machine']}\n")
    return finish(closed(report), table, args.report)


if __name__ == "__main__":
    main()
