"""What invar adds to a local transformers model (``--model hf:DIR``), and
what the code-reasoning suite takes against a local server.

    python bench/bench_hf.py [--programs 48] [--variants 4] [--max-tokens 8] [--repeat 3] [--report hf.json]

**hf: overhead.** A GPT-2 of random weights (the tests' builder,
tests/audit/test_hf.py, wider: 64 wide, 2 layers; a tokenizer built here)
answers the classify task for the first ``--programs`` functions of
fixtures/python and ``--variants`` renamings and reorderings of each, greedy,
``--max-tokens`` tokens. Three arms, in turn, medians over ``--repeat``: the
audit (``invar.audit("hf:DIR", …)``, batches of 8: the variants drawn,
rendered, prompted, generated, read, measured); transformers called directly
in a loop on the same texts, one at a time; and in batches of 8 as the
adapter makes them (left-padded). invar's share is (audit − direct,
batched) / audit.

**The suite's wall time.** ``code-reasoning@1`` as shipped (100 examples per
task, 6 variants, 3 repeats, controls) against a chat endpoint that answers
at once in its own process (tests/audit/test_suite.py's, every answer in the
form the shipped prompt asks for), the reply cache off, the fixture blocks
standing for BHive (no download). The first run makes the examples (the
standard library's names and bugs datasets, the exec task's 100 programs run
twice in its sandbox); later runs find them made.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, median

sys.path.insert(0, str(ROOT))

#: programs per batch, in the audit and in the direct batched loop
BATCH = 8


def _programs(n: int) -> list:
    import invar

    units = []
    for path in sorted((ROOT / "fixtures" / "python").glob("*.py")):
        units += invar.parse_units(path.read_text(), "python", path=str(path))
    return [(u, "sorting") for u in units[:n]]


def _direct(directory: Path, texts: list[str], max_tokens: int, batch: int) -> list[str]:
    """transformers called directly on ``texts``, ``batch`` at a time (left-padded when more than one)."""
    import torch
    import transformers

    from tests.audit.test_hf import PROMPT

    tok = transformers.AutoTokenizer.from_pretrained(directory)
    tok.padding_side = "left"
    model = transformers.AutoModelForCausalLM.from_pretrained(directory).eval()
    out = []
    with torch.inference_mode():
        for lo in range(0, len(texts), batch):
            chats = [
                tok.apply_chat_template(
                    [{"role": "user", "content": PROMPT.replace("{program}", t)}],
                    add_generation_prompt=True,
                    tokenize=False,
                )
                for t in texts[lo : lo + batch]
            ]
            ids = tok(chats, return_tensors="pt", padding=True, add_special_tokens=False)
            made = model.generate(**ids, do_sample=False, max_new_tokens=max_tokens, pad_token_id=tok.pad_token_id)
            out += tok.batch_decode(made[:, ids["input_ids"].shape[1] :], skip_special_tokens=True)
    return out


def overhead(args, where: Path) -> dict:
    """The three arms of the hf: overhead, medians over ``args.repeat``."""
    import torch

    from invar.audit import audit
    from tests.audit.test_hf import PROMPT, save_causal

    torch.set_num_threads(1)
    model = save_causal(where / "model", width=64)
    data = _programs(args.programs)
    settings = {
        "task": "classify",
        "prompt": PROMPT,
        "max_tokens": args.max_tokens,
        "variants": args.variants,
        "batch_size": BATCH,
        "controls": 0,
        "seed": 0,
        "threads": 1,
    }
    texts: list[str] = []
    audit(lambda batch: texts.extend(batch) or ["sorting"] * len(batch), data, **settings)
    times: dict[str, list[float]] = {
        "invar audit, hf:": [],
        "transformers directly, one at a time": [],
        f"transformers directly, batches of {BATCH}": [],
    }
    predictions = 0
    for _ in range(args.repeat):
        t = time.perf_counter()
        result = audit(f"hf:{model}", data, **settings)
        times["invar audit, hf:"].append(time.perf_counter() - t)
        predictions = result.report["predictions"]
        for arm, batch in (
            (f"transformers directly, batches of {BATCH}", BATCH),
            ("transformers directly, one at a time", 1),
        ):
            t = time.perf_counter()
            _direct(model, texts, args.max_tokens, batch)
            times[arm].append(time.perf_counter() - t)
    return {
        "texts": len(texts),
        "predictions": predictions,
        "seconds": times,
        "median_seconds": {arm: median(ts) for arm, ts in times.items()},
    }


def _serve(ports) -> None:
    from tests.audit.test_suite import Served

    with Served("steady") as served:
        ports.put(served.url)
        while True:
            time.sleep(3600)


def suite(args, where: Path) -> dict:
    """The suite's wall time: the first run (examples made) and ``args.repeat`` more (examples kept)."""
    from invar.audit.config import AuditConfig
    from invar.audit.suite import run_suite

    urls = multiprocessing.get_context("spawn").Queue()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(urls,), daemon=True)
    server.start()
    url = urls.get(timeout=120)
    config = AuditConfig(data_dir=str(ROOT / "fixtures" / "blocks"), cache=False)
    runs = []
    try:
        for k in range(1 + args.repeat):
            t = time.perf_counter()
            summary = run_suite(url, "code-reasoning@1", where / f"run{k}", config, cache=where / "cache")
            runs.append(
                {
                    "seconds": time.perf_counter() - t,
                    "members": {
                        m["task"]: {"status": m["status"], "audited": m.get("audited"), "reason": m["reason"]}
                        for m in summary["members"]
                    },
                }
            )
    finally:
        server.terminate()
    requests = 0
    for m in summary["members"]:
        if m["status"] == "audited":
            report = json.loads((where / f"run{args.repeat}" / m["report"]).read_text().splitlines()[-1])
            requests += report["replies"]["sent"]
    return {
        "first": runs[0]["seconds"],
        "kept": [r["seconds"] for r in runs[1:]],
        "median_kept": median([r["seconds"] for r in runs[1:]]),
        "requests": requests,
        "runs": runs,
    }


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/audit.md shows."""
    o, s = report["overhead"], report["suite"]
    batched = o["median_seconds"][f"transformers directly, batches of {BATCH}"]
    lines = ["| arm | median s | answers | answers/s | beside transformers in batches |", "|---|---|---|---|---|"]
    for arm, seconds in o["median_seconds"].items():
        lines.append(
            f"| {arm} | {seconds:.2f} | {o['texts']:,} | {o['texts'] / seconds:,.1f} | {seconds / batched:.2f}× |"
        )
    lines.append(
        f"| suite code-reasoning@1, examples made (first run) | {s['first']:.1f} | {s['requests']:,} | "
        f"{s['requests'] / s['first']:,.0f} | |"
    )
    lines.append(
        f"| suite code-reasoning@1, examples kept | {s['median_kept']:.1f} | {s['requests']:,} | "
        f"{s['requests'] / s['median_kept']:,.0f} | |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=48)
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-suite", action="store_true", help="measure the hf: overhead alone")
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = {
            "machine": machine(),
            "load_average": os.getloadavg()[0],
            "args": vars(args),
            "overhead": overhead(args, Path(tmp)),
        }
        report["invar_share"] = 1 - (
            report["overhead"]["median_seconds"][f"transformers directly, batches of {BATCH}"]
            / report["overhead"]["median_seconds"]["invar audit, hf:"]
        )
        if not args.no_suite:
            report["suite"] = suite(args, Path(tmp))
    if report.get("suite"):
        print(table(report))
    print(f"invar's share of the hf: audit's wall time: {100 * report['invar_share']:+.1f} %")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
