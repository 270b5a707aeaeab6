"""The x86 register sweep, whole: every instruction form of BHive (and of
the generated-block oracle's blocks), every register in each of its slots,
timed by llvm-mca on each CPU model.

    python bench/bench_register_sweep.py [--cpus haswell,ivybridge,skylake] [--jobs 2]
        [--json sweep.json] [--rules invar/frontends/x86/register_rules.py]

Prints the forms swept, the register-dependent forms per CPU model and their
list, and the run time. ``--json`` keeps every finding (the cycles per
register); ``--rules`` writes the table of renaming rules that invar's x86
frontend reads (invar/frontends/x86/register_rules.py is generated this way;
``--from-json`` rewrites it from a kept run without timing again). The sweep
itself is tests/oracles/x86_register_sweep.py (an oracle: it shares no code
with invar's renamings).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bhive_blocks, machine  # noqa: E402
from tests.oracles import x86_register_sweep as S  # noqa: E402


def evex_forms() -> list[S.Form]:
    return [S.form_of(m, o) for m, o in S.EVEX_ONLY_SAMPLES]


def _one(cpu: str) -> dict:
    if cpu == "evex":  # EVEX-only instructions over all 32 vector registers
        out = S.sweep(evex_forms(), ["skylake-avx512"], evex=True, log=lambda m: print(f"  [evex] {m}", flush=True))
    else:
        forms = S.swept_forms(bhive_blocks())
        out = S.sweep(forms, [cpu], log=lambda m: print(f"  [{cpu}] {m}", flush=True))
    out["findings"] = [asdict(f) for f in out["findings"]]
    for f in out["findings"]:
        f["cycles"] = {shape: dict(sorted(v.items())) for shape, v in f["cycles"].items()}
    return out


def rules_from(findings: list[dict], forms: dict[str, S.Form]) -> dict:
    """(form, slot group) -> special registers (the union over CPUs) and the CPUs."""
    rules: dict = {}
    for f in findings:
        form = forms[f["form"]]
        group = tuple((form.slots[i].operand, form.slots[i].role) for i in f["group"])
        entry = rules.setdefault((form.mnemonic, form.kinds), {}).setdefault(group, [set(), set()])
        entry[0] |= set(f["special"])
        entry[1].add(f["cpu"])
    return rules


def write_rules(path: Path, rules: dict, summary: str) -> None:
    lines = [
        '"""Instruction forms whose llvm-mca timing depends on which register an',
        "operand names (generated: do not edit).",
        "",
        "Measured by the register sweep (tests/oracles/x86_register_sweep.py) over",
        "every instruction form of BHive and of the generated-block oracle; regenerate with",
        "",
        "    python bench/bench_register_sweep.py --json sweep.json --rules invar/frontends/x86/register_rules.py",
        "",
        "(or from a kept run: ``--from-json sweep.json --rules ...``).",
        "",
        f"{summary}",
        "",
        "``RULES[(mnemonic, operand kinds)]`` maps a group of slots, each",
        "``(operand index, role)`` with role ``reg``, ``base`` or ``index``, tied to",
        "one register (one slot, or two naming the same register), to the registers",
        "(referents) that llvm-mca times differently there and the CPU models where",
        "it does. :mod:`invar.frontends.x86.rename` keeps such a register in such a",
        "slot and lets no other register of the slot become it.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "RULES: dict[tuple[str, tuple[str, ...]], dict[tuple[tuple[int, str], ...], tuple[frozenset[str], tuple[str, "
        "...]]]] = {",
    ]
    for (mnemonic, kinds), groups in sorted(rules.items()):
        lines.append(f"    ({mnemonic!r}, {tuple(kinds)!r}): {{")
        for group, (special, cpus) in sorted(groups.items()):
            lines.append(f"        {group!r}: (frozenset({sorted(special)!r}), {tuple(sorted(cpus))!r}),")
        lines.append("    },")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def merge(runs: list[dict]) -> dict:
    """Runs of the sweep on disjoint CPU models, as one."""
    out = dict(runs[0])
    for run in runs[1:]:
        out["cpus"] = out["cpus"] + run["cpus"]
        out["blocks"] += run["blocks"]
        out["seconds"] = out["seconds"] + run["seconds"]
        out["refused"] = {**out["refused"], **run["refused"]}
        out["findings"] = out["findings"] + run["findings"]
        out["evex"] = out.get("evex") or run.get("evex")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpus", default=",".join(S.CPUS))
    ap.add_argument("--no-evex", action="store_true", help="leave out the EVEX-only instructions (32 vector registers)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every finding here")
    ap.add_argument("--from-json", type=Path, nargs="+", help="read the findings of earlier runs instead of timing")
    ap.add_argument("--rules", type=Path, help="write the rule table (a Python module) here")
    args = ap.parse_args()
    cpus = args.cpus.split(",")
    bhive = {f.key for f in S.bhive_forms(bhive_blocks())}
    forms = {f.key: f for f in S.swept_forms(bhive_blocks())}
    n_forms = len(forms)
    forms.update({f.key: f for f in evex_forms()})
    if args.from_json:
        data = merge([json.loads(p.read_text()) for p in args.from_json])
    else:
        jobs = cpus + ([] if args.no_evex else ["evex"])
        print(
            f"machine: {machine()}; {n_forms} forms ({len(bhive)} from BHive, {n_forms - len(bhive)} more from "
            f"generated blocks); CPUs {', '.join(cpus)}; {args.jobs} processes",
            flush=True,
        )
        start = time.perf_counter()
        with Pool(min(args.jobs, len(jobs))) as pool:
            parts = dict(zip(jobs, pool.map(_one, jobs)))
        elapsed = time.perf_counter() - start
        data = {
            "forms": parts[cpus[0]]["forms"],
            "cpus": cpus,
            "seconds": round(elapsed, 1),
            "machine": machine(),
            "instances": parts[cpus[0]]["instances"],
            "rejected": parts[cpus[0]]["rejected"],
            "blocks": sum(parts[c]["blocks"] for c in cpus),
            "refused": {c: parts[c]["refused"][c] for c in cpus},
            "findings": [f for c in cpus for f in parts[c]["findings"]],
            "evex": None
            if args.no_evex
            else {
                "forms": parts["evex"]["forms"],
                "instances": parts["evex"]["instances"],
                "blocks": parts["evex"]["blocks"],
                "findings": parts["evex"]["findings"],
            },
        }
        if args.json:
            args.json.write_text(json.dumps(data, indent=1) + "\n")
    findings = data["findings"]
    per_cpu = {c: sorted({f["form"] for f in findings if f["cpu"] == c}) for c in data["cpus"]}
    every = sorted({f["form"] for f in findings})
    print(
        f"forms swept: {data['forms']} ({len(bhive)} from BHive); instances: {data['instances']} "
        f"({data['rejected']} more rejected by llvm-mc); blocks timed: {data['blocks']}"
    )
    for c in data["cpus"]:
        print(f"{c}: {len(per_cpu[c])} register-dependent forms; {len(data['refused'][c])} forms its model refuses")
    print(f"register-dependent on some CPU: {len(every)} ({len([f for f in every if f in bhive])} of them BHive forms)")
    evex = data.get("evex")
    if evex:
        print(
            f"EVEX-only instructions over %xmm0-31/%ymm0-31 on skylake-avx512: {evex['forms']} forms, "
            f"{evex['instances']} instances, {len({f['form'] for f in evex['findings']})} register-dependent"
        )
        findings = findings + evex["findings"]
    rules = rules_from(findings, forms)
    for (mnemonic, kinds), groups in sorted(rules.items()):
        for group, (special, cpus_of) in sorted(groups.items()):
            print(f"  {mnemonic} {','.join(kinds)}  slots {group}  special {sorted(special)}  on {sorted(cpus_of)}")
    print(f"run time: {data['seconds']} s")
    if args.rules:
        summary = (
            f"{data['forms']} forms swept on {', '.join(data['cpus'])}; "
            + "; ".join(f"{c}: {len(per_cpu[c])} register-dependent" for c in data["cpus"])
            + "."
        )
        write_rules(args.rules, rules, summary)


if __name__ == "__main__":
    main()
