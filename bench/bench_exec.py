"""What labelling by execution costs (``invar data exec``), and the sandbox's
share of it: generated programs labelled end to end (each call run twice, in
two sandboxes), then the same calls run once in the sandbox and once in this
process with no sandbox at all (compile, call, write the literal), medians
over repeats.

    python bench/bench_exec.py [--programs 1000] [--repeat 3] [--report exec.json]

Labelling is timed alone (:func:`invar.tasks.exec_data.labels`) and as the
whole command (generating, labelling, counting each example's variation in
invar's spaces, writing). The sandbox's overhead per program is (sandbox − in process) / programs: a
child process per batch of 500 calls (its start, the guard, the limits, the
JSON both ways), and a fresh module per call. A child's start alone is
measured too, on one trivial call.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import types

from common import finish, machine, median, repeat

from invar.sandbox import Call, Limits, literal, run
from invar.tasks.exec_data import Item, build_generated, labels
from invar.tasks.exec_generate import generate


def in_process(calls: list[Call]) -> list[str]:
    """The calls' literals, run here: what the sandbox adds nothing to."""
    out = []
    for c in calls:
        module = types.ModuleType("program")
        exec(compile(c.source, "<program>", "exec"), module.__dict__)
        out.append(literal(eval(compile(c.expression, "<call>", "eval"), module.__dict__)))
    return out


def measure(programs: int, times: int) -> dict:
    generated = [generate(f"bench:{k}") for k in range(programs)]
    calls = [Call(g.code, f"f({g.arguments})") for g in generated]
    assert [o.value for o in run(calls)] == in_process(calls)  # the same literals either way
    sandboxed = median(repeat(lambda: run(calls), times))
    here = median(repeat(lambda: in_process(calls), times))
    startup = median(repeat(lambda: run([Call("", "1")]), times))
    items = [Item(str(k), g.code, g.arguments, "f", "generated", k) for k, g in enumerate(generated)]
    labelling = {}
    for jobs in (1, 2):
        seconds = median(repeat(lambda: labels(items, Limits(), jobs), times))
        labelling[str(jobs)] = {"seconds": seconds, "programs_per_second": programs / seconds}
    with tempfile.TemporaryDirectory() as tmp:
        seconds = median(repeat(lambda: build_generated(programs, f"{tmp}/out", seed=0), times))
    command = {"seconds": seconds, "programs_per_second": programs / seconds}
    return {
        "labelling": labelling,
        "command": command,
        "sandbox": {
            "calls": programs,
            "sandbox_seconds": sandboxed,
            "in_process_seconds": here,
            "overhead_ms_per_call": 1000 * (sandboxed - here) / programs,
            "child_start_ms": 1000 * startup,
            "limits": Limits().__dict__,
        },
    }


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/exec.md shows."""
    n = report["args"]["programs"]
    s = report["sandbox"]
    lines = ["| what | median s | programs/s | per program |", "|---|---|---|---|"]
    rows = [(f"labels: two runs each, --jobs {jobs}", row) for jobs, row in report["labelling"].items()]
    rows.append(("invar data exec --generate (written, variation counted)", report["command"]))
    for what, row in rows:
        lines.append(
            f"| {what} | {row['seconds']:.2f} | {row['programs_per_second']:,.0f} | "
            f"{1000 / row['programs_per_second']:.2f} ms |"
        )
    lines.append(
        f"| one run in the sandbox | {s['sandbox_seconds']:.2f} | {n / s['sandbox_seconds']:,.0f} | "
        f"{1000 * s['sandbox_seconds'] / n:.2f} ms |"
    )
    lines.append(
        f"| one run in this process, no sandbox | {s['in_process_seconds']:.2f} | "
        f"{n / s['in_process_seconds']:,.0f} | {1000 * s['in_process_seconds'] / n:.2f} ms |"
    )
    lines.append(f"| the sandbox's overhead | – | – | {s['overhead_ms_per_call']:.2f} ms |")
    lines.append(f"| a child's start (one trivial call) | {s['child_start_ms'] / 1000:.3f} | – | – |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    started = time.time()
    report = {"bench": "exec", "machine": machine(), "args": vars(args), **measure(args.programs, args.repeat)}
    report["wall_seconds"] = time.time() - started
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
