"""Labelling throughput: many blocks per llvm-mca process (code regions)
against one llvm-mca process per block, on the same real BHive blocks.

    python bench/bench_label.py [--blocks 2000] [--single 300] [--repeat 3] [--report label.json]
    python bench/bench_label.py --corpus [--jobs 2] [--report label-corpus.json]

Both paths time the IR's text of each block with
``llvm-mca -mcpu=haswell -iterations=100`` in one process on one core (the
parse into the IR is excluded from both); the batched path is what
``invar data bhive`` runs per chunk (it then runs chunks in parallel). The
per-block path labels a prefix of the same blocks (it is slow); both report
blocks per second, alternating, medians. With ``--corpus`` it times
instead ``invar data bhive`` on every shared BHive file (parse, dedup,
llvm-mca in ``--jobs`` processes, split) into a temporary directory. With ``--report`` every run's
seconds are written as JSON with the machine and the load average;
:func:`table` renders that report.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import time

from common import BHIVE, bhive_blocks, closed, finish, load_row, machine, median, opened, repeat

from invar.data.bhive import label_texts, llvm_mca_version
from invar.frontends.x86.hexblock import decode


def one_by_one(texts: list[str]) -> list[int]:
    out = []
    for text in texts:
        run = subprocess.run(
            [
                "llvm-mca",
                "-mcpu=haswell",
                "-iterations=100",
                "--instruction-info=false",
                "--resource-pressure=false",
                "-",
            ],
            input=text + "\n",
            capture_output=True,
            text=True,
        )
        out.append(int(run.stdout.split("Total Cycles:")[1].split()[0]))
    return out


def measure(texts: list[str], single: int, times: int) -> dict:
    """Seconds of ``times`` alternating runs of the batched path on ``texts`` and of one
    process per block on the first ``single``, after checking that both give the same cycles."""
    batched_cycles = [c for c, _ in label_texts(texts[:single])]
    assert batched_cycles == one_by_one(texts[:single]), "batched and per-block labels differ"
    t_batched, t_single = [], []
    for _ in range(times):
        t_batched += repeat(lambda: label_texts(texts), 1)
        t_single += repeat(lambda: one_by_one(texts[:single]), 1)
    return {"identical_on": single, "batched_seconds": t_batched, "single_seconds": t_single}


def corpus(jobs: int) -> dict:
    """``invar data bhive`` on every shared BHive file into a temporary directory: seconds and its summary."""
    import tempfile

    from invar.data.bhive import build

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = build([str(BHIVE)], tmp, jobs=jobs)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, **summary.to_dict(), "out": None}


def corpus_table(report: dict) -> str:
    """The whole corpus through the command: time, rate and what became of the blocks."""
    c = report["corpus"]
    splits = ", ".join(f"{n:,} {name}" for name, n in c["splits"].items())
    rejected = ", ".join(f"{n:,} by {stage}" for stage, n in c["rejected"].items())
    return "\n".join(
        [
            f"| `invar data bhive --jobs {report['args']['jobs']}`, llvm-mca {report['llvm_mca']} | figure |",
            "|---|---|",
            f"| distinct blocks | {c['blocks']:,} |",
            f"| time | {c['seconds'] / 60:.1f} min ({c['blocks'] / c['seconds']:,.0f} blocks/s) |",
            f"| labelled | {c['labelled']:,} ({splits}) |",
            f"| rejected | {rejected} |",
            load_row(report),
        ]
    )


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/bhive.md shows: blocks per second, medians
    (with ``--corpus``: the whole corpus through the command)."""
    if "corpus" in report:
        return corpus_table(report)
    blocks, single = report["args"]["blocks"], report["args"]["single"]
    rb, rs = blocks / median(report["batched_seconds"]), single / median(report["single_seconds"])
    return "\n".join(
        [
            f"| llvm-mca {report['llvm_mca']}, medians of {len(report['batched_seconds'])} runs | blocks/s |",
            "|---|---|",
            f"| batched: {blocks:,} blocks in one llvm-mca process | {rb:,.0f} |",
            f"| one llvm-mca process per block ({single:,} blocks) | {rs:,.0f} |",
            f"| speed-up | {rb / rs:.1f}× |",
            load_row(report),
        ]
    )


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blocks", type=int, default=2000)
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corpus", action="store_true", help="time the whole corpus through invar data bhive instead")
    ap.add_argument("--jobs", type=int, default=2, help="llvm-mca processes in parallel, with --corpus")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    started = time.time()
    report = opened(args, "label", versions={"llvm_mca": llvm_mca_version()})
    if args.corpus:
        report["corpus"] = corpus(args.jobs)
    else:
        hexes = random.Random(0).sample(bhive_blocks(), args.blocks)
        texts = [decode(h).render() for h in hexes]
        report.update(measure(texts, args.single, args.repeat))
    closed(report, started)
    print(f"machine: {machine()}")
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
