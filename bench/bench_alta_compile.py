"""Compiled ALTA programs: compile time, sizes, and forward throughput
against the interpreter on the same inputs.

For every shipped program (default options): the median compile time over
``--repeat`` runs; the residual width, heads, rules (and generated null
resets among them), the MLP's widths; then ``--batch`` random inputs of the
program's kind (bit strings for parity, symbol strings for the probes) run
through the compiled module (batched, one forward) and through the
interpreter one by one, the outputs compared at every position, and
inputs per second for each (addition: two six-digit numbers; SUBLEQ:
random 16-register memories, 85 % addresses, run to 60 layers). Run with ``--device cuda`` on a GPU as well.

    python bench/bench_alta_compile.py --batch 256 --repeat 5 [--report alta-compile.json]

With ``--report`` every program's row is written as JSON with the machine,
torch's version and the load average; :func:`table` renders that report.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from common import closed, finish, load_range, machine, median, opened, repeat  # noqa: E402

from invar.alta import PROGRAMS, compile, get_program  # noqa: E402
from invar.alta.arithmetic import addition_input, subleq_input  # noqa: E402
from invar.alta.interpreter import interpreter  # noqa: E402

#: the input length each program is timed at
LENGTH = 12


def inputs(program, n: int, rng: random.Random) -> list[str]:
    """``n`` inputs the program reads: symbols of its alphabet that are not markers
    (addition: two numbers of ``LENGTH // 2`` digits; SUBLEQ: random memories)."""
    if program.name == "addition":
        half = LENGTH // 2
        return [" ".join(addition_input(rng.randrange(10**half), rng.randrange(10**half))) for _ in range(n)]
    if program.name == "subleq":
        m = program.max_length
        return [
            " ".join(
                subleq_input([rng.randrange(0, m) if rng.random() < 0.85 else rng.randrange(-m, 0) for _ in range(m)])
            )
            for _ in range(n)
        ]
    markers = set(program.prefix) | set(program.suffix)
    symbols = [s for s in program.alphabet if s not in markers]
    positional = any(v.init.kind == "position" for v in program.variables)
    room = (program.max_length or LENGTH) - len(program.prefix) - len(program.suffix) if positional else LENGTH
    length = max(1, min(LENGTH, room))
    if program.name.startswith("sort"):  # distinct values
        return [" ".join(rng.sample(symbols, min(len(symbols), length))) for _ in range(n)]
    return [" ".join(rng.choice(symbols) for _ in range(length)) for _ in range(n)]


def measure(name: str, batch: int, times: int, device: str, rng: random.Random) -> dict:
    program = get_program(name)
    compile_s = median(repeat(lambda: compile(program), times))
    model = compile(program).to(device)
    texts = inputs(program, batch, rng)
    ids, valid, _ = model.batch(texts, device=device)
    with torch.inference_mode():
        model(ids, valid)  # warm-up
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t = time.perf_counter()
        outputs, _layers = model(ids, valid)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        compiled_s = time.perf_counter() - t
    run = interpreter(program)
    t = time.perf_counter()
    expected = [run.run(x).outputs for x in texts]
    interpreter_s = time.perf_counter() - t
    got = outputs.cpu().tolist()
    agree = sum(got[k][: len(e)] == e for k, e in enumerate(expected))
    nulls = sum(r.null for r in program.rules)
    return {
        "program": name,
        "compile_ms": 1000 * compile_s,
        "width": model.layout.width,
        "heads": len(program.heads),
        "rules": len(program.rules) - nulls,
        "null_rules": nulls,
        "onehot": model.layout.onehot_width,
        "compiled_per_s": batch / compiled_s,
        "interpreter_per_s": batch / interpreter_s,
        "ratio": interpreter_s / compiled_s,
        "agree": agree,
        "batch": batch,
        "length": len(texts[0].split()),
    }


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/alta.md shows, then the
    spread of the ratio over the programs of under 1,000 rules and the ratio
    the other way round for the larger ones."""
    lines = [
        "| program | length | compile (ms) | width | heads | rules (+ null resets) | MLP one-hots "
        "| compiled inputs/s | interpreter inputs/s | interpreter time / compiled time | agree |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in report["rows"]:
        lines.append(
            f"| {m['program']} | {m['length']} | {m['compile_ms']:.1f} | {m['width']} | {m['heads']} "
            f"| {m['rules'] + m['null_rules']:,} ({m['rules']:,} + {m['null_rules']}) | {m['onehot']} "
            f"| {m['compiled_per_s']:,.0f} | {m['interpreter_per_s']:,.0f} | {m['ratio']:.2f}× "
            f"| {m['agree']}/{m['batch']} |"
        )
    small = sorted((m for m in report["rows"] if m["rules"] + m["null_rules"] < 1000), key=lambda m: m["ratio"])
    if small:
        lines += [
            "",
            f"Programs of under 1,000 rules ({len(small)}): the compiled forward is {small[0]['ratio']:.1f}× "
            f"({small[0]['program']}) to {small[-1]['ratio']:.1f}× ({small[-1]['program']}) as fast as the "
            f"interpreter, median {median([m['ratio'] for m in small]):.1f}×.",
        ]
    large = [m for m in report["rows"] if m["rules"] + m["null_rules"] >= 1000]
    if large:
        each = " and ".join(f"{1 / m['ratio']:.1f}× ({m['program']})" for m in large)
        lines += ["", f"Programs of 1,000 rules or more: the interpreter is {each} as fast as the compiled forward."]
    lines += ["", f"Load average (1 min) at the start and at the end: {load_range(report)}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    rng = random.Random(0)
    print(
        f"{machine()}; torch {torch.__version__}, {args.threads} thread(s), device {args.device}; "
        f"batch {args.batch}, compile time the median of {args.repeat}",
        flush=True,
    )
    started = time.time()
    report = {**opened(args, "alta-compile"), "rows": []}
    for name in PROGRAMS:
        report["rows"].append(measure(name, args.batch, args.repeat, args.device, rng))
        print(f"  {name}: done", flush=True)
    return finish(closed(report, started), table, args.report)


if __name__ == "__main__":
    main()
