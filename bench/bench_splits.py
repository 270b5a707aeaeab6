"""The data the methods pages train and test on, built as their studies
build it, and what each dataset holds: its corpus's files, the functions
(formulas) it skipped and why, the bugs it injected, its training,
validation and test splits, and for LTL the test formulas by number of
distinct APs (docs/benchmarks/names-bugs.md and ltl.md, "Data").

The corpora are made from what a machine already has:

- ``stdlib``: the 24 packages of the standard library the names and bugs
  studies read (:data:`STDLIB_PACKAGES`), their ``test`` and ``tests``
  directories left out, copied from ``--stdlib`` (the running interpreter's
  by default);
- ``jdk``: the packages :data:`JDK_PACKAGES` of ``java.base``, subpackages
  included, from a JDK's ``lib/src.zip`` (``--src-zip``), under
  ``java.base/`` as the studies' ``--source`` holds them;
- ``bhive``: BHive's CSV files (``--bhive``, ../shared/data/bhive by
  default), labelled by llvm-mca as ``invar data bhive --limit`` labels
  them (docs/benchmarks/bhive.md, learning curves).

Names and bugs datasets are ``invar data names`` / ``invar data bugs`` over
a corpus; LTL datasets are bench_ltl_train.py's ``prepare`` with the
settings of :data:`LTL`. A corpus or dataset already in ``--out`` is read,
not made again.

    python bench/bench_splits.py --out DIR [--stdlib STDLIB] [--src-zip ZIP]
                                 [--only NAME ...] [--jobs 2] [--report PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sysconfig
import zipfile
from collections import Counter
from pathlib import Path

from bench_ltl_train import prepare
from common import finish, opened

from invar.data.bhive import build as build_bhive
from invar.tasks import bugs, ltl, names

ROOT = Path(__file__).resolve().parents[1]

#: the standard library's packages of the names and bugs studies
STDLIB_PACKAGES = (
    "email asyncio json http xml concurrent multiprocessing logging unittest importlib urllib html "
    "sqlite3 tomllib wsgiref xmlrpc dbm ctypes curses idlelib lib2to3 pydoc_data zoneinfo re"
).split()
#: the packages of java.base the JDK studies read, subpackages included
JDK_PACKAGES = ("java/util", "java/lang", "java/io", "java/text")
#: name -> (task, corpus): the names and bugs datasets
SOURCES = {
    "names-stdlib": ("names", "stdlib"),
    "bugs-stdlib": ("bugs", "stdlib"),
    "names-jdk": ("names", "jdk"),
    "bugs-jdk": ("bugs", "jdk"),
}
#: name -> bench_ltl_train.prepare's settings: the LTL datasets
LTL = {
    "ltl-size5": dict(num=30000, max_size=5, unique=True),
    "ltl-size12": dict(num=8000, max_size=12),
    "ltl-two-aps": dict(num=6000, max_size=12, distinct=2),
    "ltl-size12-4000": dict(num=4000, max_size=12),
}
#: name -> the blocks kept (``invar data bhive --limit``): the BHive datasets, labelled by llvm-mca
BHIVE = {"bhive-25000": 25000}
DATASETS = (*SOURCES, *LTL, *BHIVE)


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the corpora and datasets go here")
    ap.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--src-zip", type=Path, default=None, help="a JDK 17's lib/src.zip (for the jdk datasets)")
    ap.add_argument("--bhive", type=Path, default=ROOT.parent / "shared" / "data" / "bhive", help="BHive's CSV files")
    ap.add_argument("--only", nargs="+", choices=DATASETS, default=list(DATASETS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report", type=Path, default=None)
    return ap.parse_args(argv)


def stdlib_corpus(stdlib: Path, out: Path) -> Path:
    """The standard-library packages of :data:`STDLIB_PACKAGES` under ``out``, tests left out."""
    if not out.exists():
        ignore = shutil.ignore_patterns("test", "tests", "__pycache__")
        for package in STDLIB_PACKAGES:
            shutil.copytree(stdlib / package, out / package, ignore=ignore)
    return out


def jdk_corpus(src_zip: Path, out: Path) -> Path:
    """The ``.java`` files of :data:`JDK_PACKAGES` under ``out/java.base``."""
    if not out.exists():
        prefixes = tuple(f"java.base/{p}/" for p in JDK_PACKAGES)
        with zipfile.ZipFile(src_zip) as zf:
            for name in zf.namelist():
                if name.startswith(prefixes) and name.endswith(".java"):
                    zf.extract(name, out)
    return out


def source_row(name: str, corpus: Path, out: Path, jobs: int) -> dict:
    """A names or bugs dataset of ``corpus`` (built unless ``out/name`` holds
    it already): what its meta.json says."""
    task, _ = SOURCES[name]
    made = out / name / "meta.json"
    if made.exists():
        meta = json.loads(made.read_text())
    else:
        meta = (names if task == "names" else bugs).build(corpus, out / name, jobs=jobs)
    return {
        "dataset": name,
        "files": meta["files"],
        "files_skipped": meta["skipped"]["files"],
        "skipped": meta["skipped"]["functions"],
        "bugs": meta.get("bugs"),
        "splits": {split: meta[split] for split in ("train", "valid", "test")},
    }


def ltl_row(name: str, out: Path, jobs: int) -> dict:
    """An LTL dataset: its splits and its test formulas by number of distinct APs."""
    data = prepare(out / name, general=0, jobs=jobs, **LTL[name])
    splits = {split: len(ltl.read_split(data, split)) for split in ltl.SPLITS}
    aps = Counter(distinct_aps(ltl.parse(ex.source)) for ex in ltl.read_split(data, "test"))
    return {"dataset": name, "settings": LTL[name], "splits": splits, "test_by_aps": dict(sorted(aps.items()))}


def distinct_aps(formula) -> int:
    """The distinct APs of a parsed formula (the referents of its formula line)."""
    return len({t.referent for t in formula.tokens if t.line == 0 and t.referent is not None})


def bhive_row(name: str, source: Path, out: Path, jobs: int) -> dict:
    """A BHive dataset: the distinct blocks read, those labelled and their
    splits, those rejected (resumed from ``out/name`` when it holds them)."""
    summary = build_bhive([str(source)], out / name, limit=BHIVE[name], jobs=jobs).to_dict()
    return {"dataset": name, "limit": BHIVE[name], **{k: summary[k] for k in ("labelled", "splits", "rejected")}}


def rows(args) -> list[dict]:
    made = []
    for name in args.only:
        if name in LTL:
            made.append(ltl_row(name, args.out, args.jobs))
            continue
        if name in BHIVE:
            made.append(bhive_row(name, args.bhive, args.out, args.jobs))
            continue
        corpus = args.out / "corpora" / SOURCES[name][1]
        if SOURCES[name][1] == "stdlib":
            stdlib_corpus(args.stdlib, corpus)
        elif args.src_zip is None:
            raise SystemExit(f"{name}: name a JDK's lib/src.zip with --src-zip")
        else:
            jdk_corpus(args.src_zip, corpus)
        made.append(source_row(name, corpus, args.out, args.jobs))
    return made


def _of(report: dict, datasets) -> list[dict]:
    """The report's rows of ``datasets`` (one of the tables :data:`SOURCES`, :data:`LTL`, :data:`BHIVE`)."""
    return [row for row in report["rows"] if row["dataset"] in datasets]


def _reasons(counts: dict[str, int]) -> str:
    """``{reason: count}`` as "N reason; M other" (0 for none)."""
    return "; ".join(f"{n:,} {why}" for why, n in sorted(counts.items())) or "0"


def _count(n: int | None) -> str:
    return "–" if n is None else f"{n:,}"


def table(report: dict) -> str:
    """Every dataset of the report: names and bugs, LTL, BHive."""
    return "\n\n".join([names_bugs(report), ltl_table(report), bhive_table(report)])


def names_bugs(report: dict) -> str:
    """The names and bugs datasets: files, what was skipped and injected, the splits."""
    lines = [
        "| dataset | files read | files skipped | functions skipped | bugs injected | training | validation | test |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in _of(report, SOURCES):
        files = _reasons(row["files_skipped"])
        skipped = _reasons(row["skipped"])
        injected = "; ".join(f"{n:,} {kind}" for kind, n in sorted((row["bugs"] or {}).items())) or "–"
        splits = " | ".join(_count(row["splits"][s]) for s in ("train", "valid", "test"))
        lines.append(f"| {row['dataset']} | {row['files']:,} | {files} | {skipped} | {injected} | {splits} |")
    return "\n".join(lines)


def ltl_table(report: dict) -> str:
    """The LTL datasets: settings, splits, test formulas by distinct APs."""
    lines = [
        "| dataset | formulas drawn | sizes up to | APs per formula | training | validation | test "
        "| test formulas by distinct APs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in _of(report, LTL):
        s = row["settings"]
        per = f"exactly {s['distinct']}" if s.get("distinct") else "1 to 5"
        per += ", each formula once" if s.get("unique") else ""
        splits = " | ".join(_count(row["splits"][k]) for k in ("train", "valid", "test"))
        by_aps = ", ".join(f"{k}: {n:,}" for k, n in row["test_by_aps"].items())
        lines.append(f"| {row['dataset']} | {s['num']:,} | {s['max_size']} | {per} | {splits} | {by_aps} |")
    return "\n".join(lines)


def bhive_table(report: dict) -> str:
    """The BHive datasets: blocks kept, labelled, rejected, and the splits."""
    lines = [
        "| dataset | blocks kept (smallest hash) | labelled | rejected | training | validation | test |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in _of(report, BHIVE):
        rejected = "; ".join(f"{n:,} by {who}" for who, n in sorted(row["rejected"].items()))
        splits = " | ".join(_count(row["splits"][k]) for k in ("train", "valid", "test"))
        lines.append(f"| {row['dataset']} | {row['limit']:,} | {row['labelled']:,} | {rejected} | {splits} |")
    return "\n".join(lines)


def main(argv=None) -> dict:
    args = arguments(argv)
    report = opened(args, "splits", {"out": "DIR", "stdlib": "STDLIB", "src_zip": "SRC_ZIP", "bhive": "BHIVE"})
    report["rows"] = rows(args)
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
