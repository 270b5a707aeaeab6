"""The x86 register sweep, whole: every instruction form of BHive (and of
the generated-block oracle's blocks), every register in each of its slots,
timed by llvm-mca on each CPU model.

    python bench/bench_register_sweep.py [--cpus haswell,ivybridge,skylake] [--jobs 2]
        [--json sweep.json] [--rules invar/frontends/x86/register_rules.py] [--report PATH]

Prints the forms swept, the register-dependent forms per CPU model and their
list, and the run time. ``--json`` keeps every finding (the cycles per
register); ``--rules`` writes the table of renaming rules that invar's x86
frontend reads (invar/frontends/x86/register_rules.py is generated this way;
``--from-json`` rewrites it from a kept run without timing again). The sweep
itself is tests/oracles/x86_register_sweep.py (an oracle: it shares no code
with invar's renamings). ``--report`` writes what the methods page shows of
a run (the counts, the load average, each register-dependent form with its
special registers and CPU models) as JSON; :func:`table` renders that
report as the tables of docs/benchmarks/symmetry.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bhive_blocks, load_range, machine  # noqa: E402
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


def timed(args: argparse.Namespace, cpus: list[str]) -> dict:
    """One sweep on ``cpus`` (and the EVEX-only instructions), in ``args.jobs`` processes."""
    jobs = cpus + ([] if args.no_evex else ["evex"])
    load_before = os.getloadavg()
    start = time.perf_counter()
    with Pool(min(args.jobs, len(jobs))) as pool:
        parts = dict(zip(jobs, pool.map(_one, jobs)))
    elapsed = time.perf_counter() - start
    return {
        "forms": parts[cpus[0]]["forms"],
        "cpus": cpus,
        "seconds": round(elapsed, 1),
        "machine": machine(),
        "jobs": args.jobs,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
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


def summary(data: dict, bhive: set[str], forms: dict[str, S.Form], rules: dict) -> dict:
    """What the methods page shows of a sweep: the counts, and each register-dependent form
    with its special registers, the CPU models where it is one, and whether BHive has it."""
    found: dict[str, dict] = {}
    evex = data.get("evex") or {}
    for f in data["findings"] + evex.get("findings", []):
        entry = found.setdefault(
            f["form"], {"mnemonic": forms[f["form"]].mnemonic, "bhive": f["form"] in bhive, "cpus": [], "special": []}
        )
        entry["cpus"] = sorted({*entry["cpus"], f["cpu"]})
        entry["special"] = sorted({*entry["special"], *f["special"]})
    keep = ("forms", "cpus", "seconds", "machine", "instances", "rejected", "blocks")
    return {
        "bench": "register-sweep",
        **{k: data[k] for k in keep},
        "jobs": data.get("jobs"),
        "load_average_before": data.get("load_average_before"),
        "load_average_after": data.get("load_average_after"),
        "bhive_forms": len(bhive),
        "refused": {c: len(v) for c, v in data["refused"].items()},
        "evex": {k: v for k, v in evex.items() if k != "findings"} or None,
        "evex_dependent": sorted({f["form"] for f in evex.get("findings", [])}),
        "dependent": {c: sorted({f["form"] for f in data["findings"] if f["cpu"] == c}) for c in data["cpus"]},
        "found": dict(sorted(found.items())),
        "rule_groups": sum(len(groups) for groups in rules.values()),
    }


def table(report: dict) -> str:
    """The report as the tables docs/benchmarks/symmetry.md shows."""
    found, evex = report["found"], report["evex"]
    n, nb = report["forms"], report["bhive_forms"]
    load = f"{load_range(report)}" if report.get("load_average_before") else "–"
    extra = f" + {evex['blocks']:,} EVEX-only" if evex else ""
    jobs = f", {report['jobs']} processes" if report.get("jobs") else ""
    lines = [
        "| | |",
        "|---|---|",
        f"| forms swept | {n:,} ({nb:,} from BHive, {n - nb:,} more from generated blocks) |",
        f"| instances timed | {report['instances']:,} ({report['rejected']:,} more that llvm-mc rejects) |",
        f"| blocks timed | {report['blocks']:,} (two shapes per instance, {len(report['cpus'])} CPU models){extra} |",
        f"| run time | {report['seconds']:.0f} s (wall clock{jobs}) |",
        f"| load average (1 min), start → end | {load} |",
        f"| rule table (slot groups) | {report['rule_groups']:,} |",
        "",
        "| CPU model | register-dependent forms | of them BHive forms | forms its model refuses |",
        "|---|---|---|---|",
    ]
    for cpu, dependent in report["dependent"].items():
        of_bhive = sum(found[k]["bhive"] for k in dependent)
        lines.append(f"| {cpu} | {len(dependent)} | {of_bhive} | {report['refused'][cpu]} |")
    if evex:
        lines.append(
            f"| skylake-avx512, EVEX-only over %xmm0-31/%ymm0-31 | {len(report['evex_dependent'])} of "
            f"{evex['forms']} | – | – |"
        )
    lines += ["", "| mnemonic | forms (BHive) | special registers | CPU models |", "|---|---|---|---|"]
    by: dict[str, list[dict]] = {}
    for entry in found.values():
        by.setdefault(entry["mnemonic"], []).append(entry)
    for mnemonic, entries in sorted(by.items()):
        special = sorted({r for e in entries for r in e["special"]})
        cpus = sorted({c for e in entries for c in e["cpus"]})
        where = "all" if cpus == sorted(report["cpus"]) else ", ".join(cpus)
        bhive = sum(e["bhive"] for e in entries)
        lines.append(f"| `{mnemonic}` | {len(entries)} ({bhive}) | {', '.join(special)} | {where} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpus", default=",".join(S.CPUS))
    ap.add_argument("--no-evex", action="store_true", help="leave out the EVEX-only instructions (32 vector registers)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every finding here")
    ap.add_argument("--from-json", type=Path, nargs="+", help="read the findings of earlier runs instead of timing")
    ap.add_argument("--rules", type=Path, help="write the rule table (a Python module) here")
    ap.add_argument("--report", type=Path, help="write what the methods page shows of the sweep to this JSON file")
    args = ap.parse_args()
    cpus = args.cpus.split(",")
    bhive = {f.key for f in S.bhive_forms(bhive_blocks())}
    forms = {f.key: f for f in S.swept_forms(bhive_blocks())}
    n_forms = len(forms)
    forms.update({f.key: f for f in evex_forms()})
    if args.from_json:
        data = merge([json.loads(p.read_text()) for p in args.from_json])
    else:
        print(
            f"machine: {machine()}; {n_forms} forms ({len(bhive)} from BHive, {n_forms - len(bhive)} more from "
            f"generated blocks); CPUs {', '.join(cpus)}; {args.jobs} processes",
            flush=True,
        )
        data = timed(args, cpus)
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
        summary_line = (
            f"{data['forms']} forms swept on {', '.join(data['cpus'])}; "
            + "; ".join(f"{c}: {len(per_cpu[c])} register-dependent" for c in data["cpus"])
            + "."
        )
        write_rules(args.rules, rules, summary_line)
    if args.report:
        args.report.write_text(json.dumps(summary(data, bhive, forms, rules), indent=1) + "\n")


if __name__ == "__main__":
    main()
