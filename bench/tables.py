"""The methods pages' tables, made from the benchmarks' reports.

A table stands in a page of docs/benchmarks/ (or in docs/results.md) between
``<!-- table: NAME -->`` and ``<!-- /table -->``; it is ``table(report)`` of
the script that :data:`TABLES` names, over ``docs/benchmarks/reports/NAME.json``
(the report that script wrote with ``--report``). ``<!-- table: NAME/VIEW -->``
renders the same report through the script's function ``VIEW`` instead (the
short tables of docs/results.md); ``<!-- table: NAME+NAME2+.../VIEW -->``
gives ``VIEW`` the list of those reports (of one script), for a table that
sets several studies side by side. ``python bench/tables.py`` rewrites every
such table; tests/bench/test_tables.py fails when a page and its report
disagree, so no number in a table drifts from its report. A table outside
such a block stands only where :data:`QUOTED` (a paper's own table, the
results page's summary) or :data:`UNREPORTED` (a study run before its
script wrote reports) lets it, and the same test says where one does not.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "benchmarks"
REPORTS = PAGES / "reports"
#: report name -> the bench script whose ``table(report)`` renders it
TABLES = {
    "audit-repeats": "bench_audit_repeats",
    "http-overhead": "bench_http_overhead",
    "exec": "bench_exec",
    "hf": "bench_hf",
    "ltl-init": "bench_ltl_init",
    "ltl-size5": "bench_ltl_train",
    "ltl-sqrtd": "bench_ltl_train",
    "ltl-departures-5": "bench_ltl_train",
    "ltl-augmented-pool-5": "bench_ltl_train",
    "ltl-adacos": "bench_ltl_train",
    "ltl-size12": "bench_ltl_train",
    "ltl-size7": "bench_ltl_train",
    "ltl-size35": "bench_ltl_train",
    "ltl-size35-60": "bench_ltl_train",
    "copy-distinct": "bench_copy",
    "copy-uniform": "bench_copy",
    "copy-lexinvariant": "bench_copy",
    "copy-distinct-patience": "bench_copy",
    "copy-uniform-patience": "bench_copy",
    "canonical-seq": "bench_canonical_seq",
    "scaling-depth": "bench_scaling_symmetry",
    "scaling-width": "bench_scaling_symmetry",
    "scaling-python": "bench_scaling_symmetry",
    "scaling-rank": "bench_scaling_symmetry",
    "x86-parse": "bench_x86_parse",
    "listing-c": "bench_listing",
    "scaling-x86": "bench_scaling_x86",
    "scaling-python-stdlib": "bench_scaling_python",
    "scaling-python-flat": "bench_scaling_python",
    "ltl-generate": "bench_ltl",
    "alta-compile": "bench_alta_compile",
    "alta-tracr": "bench_alta_tracr",
    "java": "bench_java",
    "train-throughput": "bench_train",
    "bhive-tables": "bench_train_tables",
    "bhive-curve-500-2000": "bench_learning_curve",
    "bhive-curve-4000": "bench_learning_curve",
    "bhive-curve-8000": "bench_learning_curve",
    "bhive-curve-16000": "bench_learning_curve",
    "dlg-stdlib": "bench_dlg_stdlib",
    "label": "bench_label",
    "label-corpus": "bench_label",
    "linext": "bench_linext",
    "linext-wide": "bench_linext",
    "linext-bhive": "bench_linext_bhive",
    "renamings": "bench_renamings",
    "scaling-referents": "bench_scaling_referents",
    "scaling-referents-zipper": "bench_scaling_referents",
    "register-sweep": "bench_register_sweep",
    "names-archs": "bench_names",
    "names-spe-ablations": "bench_names",
    "names-spe-ablations-patience": "bench_names",
    "bugs-stdlib": "bench_names",
    "names-jdk": "bench_names",
    "bugs-jdk": "bench_names",
    "splits": "bench_splits",
    "lm-512": "bench_lm_curves",
    "lm-512-data": "bench_lm_curves",
    "lm-512-cipher": "bench_decipher",
    "lm-512-incontext": "bench_incontext",
    "lm-512-probe": "bench_decipher",
    "lm-512-regularised": "bench_lm_curves",
    "lm-512-counting": "bench_lm_curves",
    "lm-unigram-corpus": "bench_unigram_corpus",
    "lm-unigram": "bench_lm_curves",
    "lm-unigram-lr3": "bench_lm_curves",
    "lm-unigram-lr10": "bench_lm_curves",
    "lm-512-lr10": "bench_lm_curves",
    "lm-512-lr10-incontext": "bench_incontext",
    "lm-512-regularised-cipher": "bench_decipher",
    "lm-512-regularised-incontext": "bench_incontext",
    "alta-trace": "bench_alta_trace",
    "alta-trace-longer": "bench_alta_trace",
    "alta-end-to-end": "bench_alta_end_to_end",
    "audit-throughput": "bench_audit",
    "audit-figure2": "bench_audit",
}
#: names in :data:`TABLES` whose study is still to be run again to write its
#: report; none stands in a page yet (each leaves this set when its report is
#: written and its table put in its page)
PENDING: set[str] = {"bhive-curve-16000", "ltl-size35", "ltl-size35-60"}
#: the tables that stand in a page outside a generated block, by page and the heading above them.
#: QUOTED: the papers' own tables, as printed, and results.md's at-a-glance summary of its sections.
QUOTED = {
    "benchmarks/alta.md": {"## Parity end to end, beside the paper's Table 3"},
    "benchmarks/ltl.md": {"## The paper's figures"},
    "benchmarks/names-bugs.md": {
        "## The SPE paper's Table 3: every head symmetric, no line positions",
        "## Beside the SPE paper",
    },
    "results.md": {"## At a glance"},
}
#: UNREPORTED: studies run before their scripts wrote reports; each leaves this list when its
#: study is run again with ``--report``.
UNREPORTED: dict[str, set[str]] = {}
BLOCK = re.compile(
    r"(?P<start><!-- table: (?P<name>[\w+-]+)(?:/(?P<view>\w+))? -->\n)(?P<body>.*?)(?P<end><!-- /table -->)", re.S
)


def pages() -> list[Path]:
    """The pages that hold tables: the methods pages, then the results page."""
    return [*sorted(PAGES.glob("*.md")), ROOT / "docs" / "results.md"]


def render(name: str, view: str = "table") -> str:
    """The table of report ``name``, from its script's ``table`` (or ``view``);
    for ``NAME+NAME2+...``, ``view`` of the list of those reports."""
    names = name.split("+")
    unknown = [n for n in names if n not in TABLES]
    if unknown:
        raise KeyError(f"no table named {unknown[0]!r} (known: {', '.join(TABLES)})")
    scripts = {TABLES[n] for n in names}
    if len(scripts) > 1:
        raise KeyError(f"{name!r}: reports of several scripts ({', '.join(sorted(scripts))}) in one table")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        module = importlib.import_module(scripts.pop())
    finally:
        sys.path.remove(str(ROOT / "bench"))
    reports = [json.loads((REPORTS / f"{n}.json").read_text()) for n in names]
    return getattr(module, view)(reports if len(names) > 1 else reports[0])


def unmade(page: str) -> list[tuple[str, int]]:
    """The tables of ``page`` outside its generated blocks (and its code
    blocks): the heading each stands under, and its first line's number."""
    found, heading, fenced, generated, before = [], "", False, False, ""
    for number, line in enumerate(page.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            pass
        elif line.startswith("#"):
            heading = line
        elif line.startswith("<!-- table:"):
            generated = True
        elif line.startswith("<!-- /table"):
            generated = False
        elif line.startswith("|") and not generated and not before.startswith("|"):
            found.append((heading, number))
        before = "" if fenced else line
    return found


def shown(page: str) -> set[str]:
    """The report names whose tables stand in ``page``."""
    return {n for m in BLOCK.finditer(page) for n in m.group("name").split("+")}


def refreshed(page: str) -> str:
    """``page`` with every table made again from its report."""

    def table(m: re.Match) -> str:
        return m.group("start") + render(m.group("name"), m.group("view") or "table") + "\n" + m.group("end")

    return BLOCK.sub(table, page)


def main() -> None:
    for path in pages():
        text = path.read_text()
        new = refreshed(text)
        if new != text:
            path.write_text(new)
            print(f"rewrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
