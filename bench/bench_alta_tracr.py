"""ALTA programs beside Tracr's for the functions both express: sort of
distinct values, reverse and histogram. Layers, heads, residual width, MLP
widths and parameters of each compiled model, and whether the two answer
alike on random inputs.

    python bench/bench_alta_tracr.py [--symbols abcde] [--max-length 16] [--inputs 100] \
        [--mlp-exactness 100 1000] [--report alta-tracr.json]

Tracr (github.com/google-deepmind/tracr, with jax and dm-haiku) is not a
dependency of invar and is not on PyPI: install it beside invar to run this
script; without it the script prints invar's side and says that Tracr is
missing. Tracr's programs are those of its ``compiler/lib.py``
(``make_sort_unique(tokens, tokens)``, ``make_reverse(tokens)``,
``make_hist()``), compiled with a BOS token over the same symbols and the
same maximum length, and ``--mlp-exactness`` (Tracr's default 100: the
resolution of the MLPs that turn a numerical value, such as a selector
width, into a category). Its layers are attention + MLP pairs, as ALTA's; a
Tracr model runs each layer once, an ALTA model applies its one shared
layer until it halts (the layers given are those of the longest input).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from common import finish, opened  # noqa: E402

from invar.alta import compile, get_program, run  # noqa: E402

#: invar's program and Tracr's library function for each function both express
FUNCTIONS = {
    "sort": ("sort", "make_sort_unique"),
    "reverse": ("reverse", "make_reverse"),
    "histogram": ("histogram", "make_hist"),
}


def random_inputs(name: str, symbols: str, max_length: int, n: int, rng: random.Random) -> list[list[str]]:
    """``n`` inputs: distinct symbols for sort, else any symbols, of lengths 1 … the longest."""
    if name == "sort":
        return [rng.sample(symbols, rng.randint(1, len(symbols))) for _ in range(n)]
    return [[rng.choice(symbols) for _ in range(rng.randint(1, max_length - 1))] for _ in range(n)]


def expected(name: str, x: list[str]) -> list:
    """The function itself, written here: what both compilers should answer."""
    if name == "sort":
        return sorted(x)
    if name == "reverse":
        return x[::-1]
    return [x.count(c) for c in x]


def alta_side(name: str, symbols: str, max_length: int, inputs: list[list[str]]) -> dict:
    """invar's compiled program: its sizes, the layers its longest input takes, its answers."""
    options = {"symbols": symbols} if name == "sort" else {"symbols": symbols, "max_length": max_length}
    program = get_program(FUNCTIONS[name][0], **options)
    model = compile(program)
    runs = [run(program, x) for x in inputs]
    nulls = sum(r.null for r in program.rules)
    return {
        "layers": max(r.layers for r in runs),
        "heads": len(program.heads),
        "width": model.layout.width,
        "mlp": f"{len(program.rules)} rules ({nulls} null resets), {model.layout.onehot_width} one-hots",
        "params": sum(p.numel() for p in model.parameters()),
        "answers": [_alta_answer(name, program, r.outputs, len(x)) for r, x in zip(runs, inputs)],
    }


def _alta_answer(name: str, program, outputs: list, n: int) -> list:
    """The answer at the input's positions (markers dropped)."""
    labelled = [program.label(v) for v in outputs] if program.labels else outputs
    if name == "sort":
        return labelled[1 : n + 1]  # after the start marker
    return labelled[:n]


def tracr_side(name: str, symbols: str, max_length: int, inputs: list[list[str]], exactness: int = 100) -> dict | None:
    """Tracr's compiled program, or None where Tracr is not installed."""
    try:
        from tracr.compiler import compiling, lib
        from tracr.rasp import rasp
    except ImportError:
        return None
    make = getattr(lib, FUNCTIONS[name][1])
    sop = make() if name == "histogram" else make(rasp.tokens, rasp.tokens) if name == "sort" else make(rasp.tokens)
    length = len(symbols) if name == "sort" else max_length
    model = compiling.compile_rasp_to_model(
        sop, vocab=set(symbols), max_seq_len=length, compiler_bos="BOS", mlp_exactness=exactness
    )
    config = model.model_config
    params = sum(int(v.size) for layer in model.params.values() for v in layer.values())
    answers = [list(model.apply(["BOS", *x]).decoded[1:]) for x in inputs]
    return {
        "layers": config.num_layers,
        "heads": config.num_heads,
        "width": len(model.residual_labels),
        "mlp": f"{config.mlp_hidden_size} hidden",
        "params": params,
        "answers": answers,
    }


def tracr_version() -> str | None:
    """Tracr's installed version, the versions of jax and dm-haiku beside it, or None without Tracr."""
    from importlib import metadata

    try:
        import tracr  # noqa: F401
    except ImportError:
        return None
    found = []
    for package in ("jax", "dm-haiku"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} (version unknown)")
    return ", ".join(found)


def compare(name: str, inputs: list[list[str]], symbols: str, max_length: int, exactness: int) -> list[dict]:
    """One row per compiler for function ``name``: sizes, answers right, answers alike."""
    alta = alta_side(name, symbols, max_length, inputs)
    tracr = tracr_side(name, symbols, max_length, inputs, exactness)
    agree = None if tracr is None else sum(a == t for a, t in zip(alta["answers"], tracr["answers"]))
    rows = []
    for label, side in (("invar ALTA", alta), ("Tracr", tracr)):
        if side is None:
            continue
        right = sum(a == expected(name, x) for a, x in zip(side["answers"], inputs))
        sizes = {k: v for k, v in side.items() if k != "answers"}
        rows.append(
            {"function": name, "compiler": label, **sizes, "right": right, "agree": agree, "inputs": len(inputs)}
        )
    return rows


def table(report: dict) -> str:
    """The report as docs/benchmarks/alta.md shows it: one table per ``mlp_exactness``."""
    parts = []
    for exactness, rows in report["rows"].items():
        lines = [
            f"Tracr's `mlp_exactness` {exactness}:",
            "",
            "| function | compiler | layers | heads | residual width | MLP | parameters | right | same as the other |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            agree = "—" if r["agree"] is None else f"{r['agree']}/{r['inputs']}"
            lines.append(
                f"| {r['function']} | {r['compiler']} | {r['layers']} | {r['heads']} | {r['width']} | {r['mlp']} "
                f"| {r['params']:,} | {r['right']}/{r['inputs']} | {agree} |"
            )
        parts.append("\n".join(lines))
    with_tracr = report["tracr"] or "Tracr not installed: invar's side only"
    parts.append(f"{report['machine']}; torch {report['torch']}; {with_tracr}.")
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbols", default="abcde")
    parser.add_argument("--max-length", type=int, default=16)
    parser.add_argument("--inputs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--mlp-exactness",
        type=int,
        nargs="+",
        default=[100],
        help="Tracr's mlp_exactness (its default 100), or several",
    )
    parser.add_argument("--report", default=None, help="write the rows to this JSON file")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    report = {**opened(args, "alta-tracr"), "tracr": tracr_version(), "rows": {}}
    print(
        f"symbols {args.symbols!r}, max length {args.max_length} (sort: one place per symbol), "
        f"{args.inputs} random inputs each",
        flush=True,
    )
    for exactness in args.mlp_exactness:
        rng = random.Random(args.seed)
        report["rows"][str(exactness)] = [
            row
            for name in FUNCTIONS
            for row in compare(
                name,
                random_inputs(name, args.symbols, args.max_length, args.inputs, rng),
                args.symbols,
                args.max_length,
                exactness,
            )
        ]
    if report["tracr"] is None:
        print("Tracr is not installed (it needs jax and dm-haiku): only invar's side is shown.")
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
