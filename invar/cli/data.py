"""``invar data``: generate datasets."""

from __future__ import annotations

import enum
import io
import json
import sys
from typing import Annotated, List, Optional

import typer

from ..errors import DataError
from .console import command, progress_bar, stderr, stdout
from .listing import plural
from .options import SCHEMA, SeedOpt, TableFormat, TableFormatOpt
from .outputs import destination, folder_destination, make_folders

data_app = typer.Typer(
    name="data",
    help="Generate and label datasets.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class DatasetFormat(str, enum.Enum):
    deepltl = "deepltl"
    jsonl = "jsonl"


#: ``invar data ltl --out``: the dataset, its checkpoint beside it
LtlOutOpt = Annotated[
    str,
    typer.Option(
        "--out",
        "-o",
        help="Output file (resumed when it exists with the same settings; its checkpoint is OUT.meta.json, "
        "beside it), or - for standard output.",
    ),
]


@data_app.command("ltl")
@command
def ltl_command(
    out: LtlOutOpt,
    num: Annotated[int, typer.Option("--num", "-n", min=0, help="Number of formulas with traces.")] = 1000,
    aps: Annotated[int, typer.Option("--aps", min=1, max=26, help="Atomic propositions a, b, c, … to draw from.")] = 5,
    max_size: Annotated[int, typer.Option("--max-size", min=1, help="Largest formula size (nodes).")] = 35,
    min_size: Annotated[
        Optional[int],
        typer.Option(
            "--min-size", min=1, help="Smallest formula size (nodes); default 1, or 2K-1 with --distinct-aps K."
        ),
    ] = None,
    distinct_aps: Annotated[
        Optional[int],
        typer.Option(
            "--distinct-aps", min=1, max=26, help="Every formula holds exactly K distinct APs, drawn from the --aps."
        ),
    ] = None,
    seed: SeedOpt = 0,
    ops: Annotated[
        str, typer.Option("--ops", help="Operators to draw from, comma-separated.")
    ] = "!,X,F,G,&,|,->,<->,U,R,W,M",
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="Worker processes (default: every core).")
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds allowed per formula; slower ones are dropped.")
    ] = 10.0,
    max_states: Annotated[int, typer.Option("--max-states", min=1, help="Product states allowed per formula.")] = 20000,
    dataset_format: Annotated[
        Optional[DatasetFormat],
        typer.Option(
            "--dataset-format", help="deepltl (formula line, trace line) or jsonl; default: from --out's extension."
        ),
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Start again even if --out exists.")] = False,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Random LTL formulas, sizes spread evenly up to --max-size, each with a satisfying trace.

    Unsatisfiable formulas and those exceeding --timeout or --max-states are
    dropped and counted; every written trace passes the exact checker. A fixed
    --seed reproduces the file byte for byte. --out is locked while a run
    writes it; exit status 1 when a record had to be given up.

    Beside --out the run writes OUT.meta.json (ltl35.txt.meta.json in the
    example): its settings, progress and counts, from which a run with the
    same settings resumes (--overwrite starts again). --out - writes none.

    --distinct-aps K makes every formula hold exactly K of the --aps (a random
    K of them per formula). A formula of n nodes holds at most (n+1)/2 APs, so
    sizes then start at 2K-1; a --min-size or --max-size below that is an error.

    Example: invar data ltl --num 1000 --aps 5 --max-size 35 --seed 1 --out ltl35.txt
    """
    from ..frontends.ltl.generate import GeneratorConfig, generate_file, generate_stream

    if out != "-":
        destination(out, "--out")
    chosen = dataset_format.value if dataset_format else ("jsonl" if out.endswith(".jsonl") else "deepltl")
    config = GeneratorConfig(
        num=num,
        aps=aps,
        max_size=max_size,
        min_size=min_size,
        seed=seed,
        ops=tuple(o.strip() for o in ops.split(",") if o.strip()),
        max_states=max_states,
        timeout=timeout,
        distinct_aps=distinct_aps,
    )
    with progress_bar("formulas") as progress:
        if out == "-":
            stats = generate_stream(config, sys.stdout.write, fmt=chosen, jobs=jobs, progress=progress)
        else:
            stats = generate_file(config, out, fmt=chosen, jobs=jobs, overwrite=overwrite, progress=progress)
    _ltl_summary(stats, out, fmt, num, config.max_attempts)


def _ltl_summary(stats, out: str, fmt: TableFormat, num: int, max_attempts: int) -> None:
    """What ``invar data ltl`` did, on standard output (standard error when
    standard output carries the data); DataError when a record was given up."""
    summary = {
        "out": out,
        "written": stats.written,
        "unsatisfiable": stats.unsatisfiable,
        "timeouts": stats.timeouts,
        "abandoned": stats.abandoned,
        "sizes": {str(k): v for k, v in sorted(stats.sizes.items())},
    }
    report = stderr if out == "-" else stdout  # standard output carries the data
    if fmt is TableFormat.json:
        report.print(json.dumps({"schema": SCHEMA, **summary}, indent=2), markup=False, highlight=False)
    else:
        report.print(
            f"wrote {plural(stats.written, 'formula')} with traces to "
            f"{out if out != '-' else 'standard output'}; dropped "
            f"{stats.unsatisfiable} unsatisfiable "
            f"and {stats.timeouts} over the limits",
            markup=False,
        )
    if stats.abandoned:
        # nothing goes silently missing: fewer records than asked is a failure
        raise DataError(
            f"{stats.abandoned} of {num} records given up after {max_attempts} formulas each "
            "(unsatisfiable or over --timeout/--max-states); raise the limits",
            path="<stdout>" if out == "-" else out,
        )


class CopySampler(str, enum.Enum):
    distinct = "distinct"
    uniform = "uniform"


@data_app.command("copy")
@command
def copy_command(
    out: Annotated[
        str, typer.Option("--out", "-o", help="Output directory (train.txt, valid.txt, test.txt, meta.json).")
    ],
    train: Annotated[int, typer.Option("--train", min=1, help="Training strings.")] = 10000,
    valid: Annotated[int, typer.Option("--valid", min=1, help="Validation strings.")] = 500,
    test: Annotated[int, typer.Option("--test", min=0, help="Test strings.")] = 3000,
    train_symbols: Annotated[
        int,
        typer.Option(
            "--train-symbols", min=1, max=52, help="Symbols a, b, … the training and validation strings draw from."
        ),
    ] = 5,
    test_symbols: Annotated[
        int,
        typer.Option(
            "--test-symbols", min=1, max=52, help="Most distinct symbols in a test string (drawn from a-z A-Z)."
        ),
    ] = 30,
    max_length: Annotated[int, typer.Option("--max-length", min=1, help="Longest string.")] = 30,
    sampler: Annotated[
        CopySampler,
        typer.Option(
            "--sampler",
            help=(
                "How training and validation strings are drawn: distinct (as test strings are: their number of "
                "distinct symbols first) or uniform (each symbol uniform: long strings hold every symbol)."
            ),
        ),
    ] = CopySampler.distinct,
    seed: SeedOpt = 0,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Random strings for the copy task: train on few symbols, test on many.

    A test string has k distinct symbols (k uniform up to --test-symbols,
    drawn from a-z A-Z) and a length from k to --max-length; training and
    validation strings are drawn the same way from the first
    --train-symbols letters (--sampler distinct), or with each of 1 to
    --max-length symbols uniform (--sampler uniform). One string per line; a
    fixed --seed writes the same files.

    Example: invar data copy --out copy30 --train 10000 --train-symbols 5 --test-symbols 30 --max-length 30
    """
    from ..tasks.copy import generate

    folder_destination(out, "--out")
    meta = generate(
        out,
        train=train,
        valid=valid,
        test=test,
        train_symbols=train_symbols,
        test_symbols=test_symbols,
        max_length=max_length,
        seed=seed,
        sampler=sampler.value,
    )
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, "out": out, **meta}, indent=2), markup=False, highlight=False)
        return
    stdout.print(f"wrote {train} training, {valid} validation and {test} test strings to {out}", markup=False)


#: the options every dataset of source files takes (names, bugs, lm)
_SourceOpt = Annotated[
    str, typer.Option("--source", help="A directory of Python and Java files (searched recursively).")
]
_SplitsOpt = Annotated[
    str, typer.Option("--out", "-o", help="Output directory (train.csv, valid.csv, test.csv, meta.json).")
]
_JobsOpt = Annotated[
    Optional[int],
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Worker processes reading the files (default: every core); the dataset is the same whatever their number.",
    ),
]


def _skipped(meta: dict, written: dict[str, int]) -> str:
    """What a dataset of source files left out, each kind (files,
    functions, windows) with its share of those ``written`` and its reasons,
    the commonest first: ``skipped 2 of 17 files (11.8 %: 1 not UTF-8, 1
    unparsable) and 5 of 107 functions (4.7 %: …)``; ``nothing skipped``."""
    parts = []
    for kind, counts in meta["skipped"].items():
        n = sum(counts.values())
        if not n:
            continue
        why = ", ".join(f"{k} {reason}" for reason, k in sorted(counts.items(), key=lambda c: (-c[1], c[0])))
        if kind in written:
            total = written[kind] + n
            parts.append(f"{n:,} of {total:,} {kind} ({100 * n / total:.1f} %: {why})")
        else:  # left out of what was written, not instead of it (functions the frontend skips in a token stream)
            parts.append(f"{n:,} {kind} ({why})")
    return "skipped " + " and ".join(parts) if parts else "nothing skipped"


@data_app.command("names")
@command
def names_command(
    source: _SourceOpt, out: _SplitsOpt, jobs: _JobsOpt = None, fmt: TableFormatOpt = TableFormat.table
) -> None:
    """Functions and their names, for the names task, split by file into train, valid and test.

    Every function of every .py and .java file under --source (methods and
    nested functions included) with its name hidden (METHOD_NAME) and its name's
    subtokens as the label. A file goes wholly to one split, by a hash of
    its path relative to --source: 80/10/10. meta.json lists the training
    subtokens, the model's labels. Files and functions that cannot be read
    are skipped; the summary and meta.json say how many and why.

    Example: invar data names --source fixtures/python --out names --jobs 4
    """
    from ..tasks.names import build

    folder_destination(out, "--out")
    with progress_bar("files") as progress:
        meta = build(source, out, jobs=jobs, progress=progress)
    if fmt is TableFormat.json:
        shown = {k: v for k, v in meta.items() if k != "subtokens"}
        stdout.print(
            json.dumps({"schema": SCHEMA, "out": out, **shown, "subtokens": len(meta["subtokens"])}, indent=2),
            markup=False,
            highlight=False,
        )
        return
    functions = meta["train"] + meta["valid"] + meta["test"]
    stdout.print(
        f"wrote {meta['train']} training, {meta['valid']} validation and {meta['test']} test functions "
        f"from {plural(meta['files'], 'file')} to {out} ({len(meta['subtokens'])} training subtokens); "
        f"{_skipped(meta, {'files': meta['files'], 'functions': functions})}",
        markup=False,
    )


class LMVocab(str, enum.Enum):
    char = "char"
    tokens = "tokens"


@data_app.command("lm")
@command
def lm_command(
    source: _SourceOpt,
    out: _SplitsOpt,
    vocab: Annotated[
        LMVocab,
        typer.Option("--vocab", help="char: the files' characters; tokens: the frontends' Python and Java tokens."),
    ] = LMVocab.char,
    seq_len: Annotated[int, typer.Option("--seq-len", min=2, help="Window length, in characters or tokens.")] = 256,
    jobs: _JobsOpt = None,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Windows of code for a language model (invar train --task lm), split by file into train, valid and test.

    Every .py and .java file under --source is cut into non-overlapping
    windows of --seq-len characters (--vocab char) or frontend tokens
    (--vocab tokens: the file's functions in order, as the Python and Java
    frontends read them); a file's last window may be shorter. A file goes
    wholly to one split, by a hash of its path relative to --source:
    80/10/10. Files the frontend cannot read, and windows of a single token,
    are skipped; the summary and meta.json say how many and why.

    Example: invar data lm --source fixtures/python --out lm --vocab char --seq-len 256
    """
    from ..tasks.lm import build

    folder_destination(out, "--out")
    with progress_bar("files") as progress:
        meta = build(source, out, vocab=vocab.value, seq_len=seq_len, jobs=jobs, progress=progress)
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, "out": out, **meta}, indent=2), markup=False, highlight=False)
        return
    windows = meta["train"] + meta["valid"] + meta["test"]
    stdout.print(
        f"wrote {meta['train']} training, {meta['valid']} validation and {meta['test']} test windows of "
        f"{seq_len} {'characters' if vocab is LMVocab.char else 'tokens'} from {plural(meta['files'], 'file')} to "
        f"{out}; {_skipped(meta, {'files': meta['files'], 'windows': windows})}",
        markup=False,
    )


@data_app.command("bugs")
@command
def bugs_command(
    source: _SourceOpt,
    out: _SplitsOpt,
    seed: SeedOpt = 0,
    jobs: _JobsOpt = None,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Functions with and without an injected bug, for the bugs task, split by file into train, valid and test.

    Every function of every .py and .java file under --source is written as
    it is (label 0) and with one seeded bug (label 1): a read of a local
    variable replaced by another one defined earlier, or a comparison
    operator swapped. Every bug parses and changes the function's
    dependencies (or its comparison); functions without one, and files and
    functions that cannot be read, are skipped; the summary and meta.json
    say how many and why. A file goes wholly to one split, by a hash of its
    path relative to --source: 80/10/10.

    Example: invar data bugs --source fixtures/python --out bugs --jobs 4
    """
    from ..tasks.bugs import build

    folder_destination(out, "--out")
    with progress_bar("files") as progress:
        meta = build(source, out, seed=seed, jobs=jobs, progress=progress)
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, "out": out, **meta}, indent=2), markup=False, highlight=False)
        return
    functions = (meta["train"] + meta["valid"] + meta["test"]) // 2
    stdout.print(
        f"wrote {meta['train']} training, {meta['valid']} validation and {meta['test']} test functions "
        f"(half of them bugged) from {plural(meta['files'], 'file')} to {out}; "
        f"{_skipped(meta, {'files': meta['files'], 'functions': functions})}",
        markup=False,
    )


@data_app.command("exec")
@command
def exec_command(
    out: Annotated[str, typer.Option("--out", "-o", help="Output directory (test.jsonl, meta.json).")],
    source: Annotated[
        Optional[str],
        typer.Option(
            "--source", help="A directory of Python files: its self-contained top-level functions are called."
        ),
    ] = None,
    generate: Annotated[
        Optional[int], typer.Option("--generate", min=1, help="Write N programs generated by invar instead.")
    ] = None,
    inputs: Annotated[
        Optional[str],
        typer.Option(
            "--inputs",
            help=(
                "With --source: JSON lines {\"function\": NAME, \"input\": \"ARGUMENTS\"} giving the calls of the "
                "functions they name (\"path\": the file, relative to --source, when several have that name); "
                "- reads standard input."
            ),
        ),
    ] = None,
    calls: Annotated[
        int, typer.Option("--calls", min=1, help="With --source: calls drawn per function from its parameters' types.")
    ] = 3,
    seed: SeedOpt = 0,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.001, help="Seconds of wall time (and CPU time) one call may take.")
    ] = 2.0,
    memory: Annotated[int, typer.Option("--memory", min=64, help="MiB of address space of each child process.")] = 512,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Child processes running at a time.")] = 1,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Output-prediction examples labelled by running them: a function, a call, and what the call returns.

    This runs code, and only because you ask: each call runs twice, in child
    processes (a batch each) with a wall-time, CPU and memory limit, no
    network (a Python-level guard, not a kernel one), a temporary working
    directory and a scrubbed environment; its label is the result when both
    runs return the same Python literal. Calls that differ between the runs
    (non-deterministic), raise, run past the limits or return no literal
    are left out; the summary and meta.json count them by reason.

    --source DIR calls every self-contained top-level function of its .py
    files (one that reads no global), with --calls arguments drawn from its
    parameters' annotations (docs/semantics.md lists the types) or given by
    --inputs. --generate N writes N programs invar generates (comprehensions,
    closures, loops, exceptions, classes, decorators, walrus, match), each
    with renamable locals and statements that may swap. Audit the result
    with invar audit --task exec --dataset OUT (--oracle re-runs every variant).

    Example: invar data exec --generate 1000 --seed 0 --out exec-gen
    """
    from ..errors import UsageError
    from ..sandbox import Limits
    from ..tasks import exec_data

    if (source is None) == (generate is None):
        raise UsageError("give --source DIR or --generate N (one of them)", path="--source")
    given = _read_inputs(inputs, source)
    folder_destination(out, "--out")
    limits = Limits(seconds=timeout, memory=memory << 20)
    with progress_bar("calls") as progress:  # the source's functions called, or generated programs'
        run = dict(limits=limits, jobs=jobs, progress=progress)
        if source is not None:
            meta = exec_data.build_source(source, out, seed=seed, calls=calls, inputs=given, **run)
        else:
            meta = exec_data.build_generated(generate, out, seed=seed, **run)
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, "out": out, **meta}, indent=2), markup=False, highlight=False)
        return
    left = sum(meta["left_out"].values())
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(meta["left_out"].items(), key=lambda c: (-c[1], c[0])))
    vary = meta["variable"]["either"]
    stdout.print(
        f"wrote {meta['test']} examples labelled by two runs to {out}; left out {left}"
        + (f" ({why})" if why else "")
        + f"; {vary} of {meta['test']} can vary (renamings or orders)",
        markup=False,
    )


def _read_inputs(inputs: str | None, source: str | None):
    """``data exec --inputs``: given with --source, and read once, before
    any call runs (``-``: standard input, its errors located at ``<stdin>``);
    its rows (:func:`invar.tasks.exec_source.read_inputs`) or None."""
    from ..errors import UsageError
    from ..tasks.exec_source import read_inputs
    from .console import read_text

    if inputs is None:
        return None
    if source is None:
        raise UsageError("--inputs gives the calls of --source's functions", path="--inputs")
    return read_inputs("<stdin>" if inputs == "-" else inputs, read_text(inputs))


@data_app.command("bhive")
@command
def bhive_command(
    source: Annotated[
        Optional[List[str]],
        typer.Option(
            "--source",
            metavar="SOURCE",
            help="A directory of CSVs, a CSV file, or a URL (repeatable); a URL ending in / is "
            "laid out as BHive's. Default: BHive's public repository, downloaded into --cache-dir.",
        ),
    ] = None,
    mcpu: Annotated[str, typer.Option("--mcpu", help="CPU model llvm-mca times the blocks for.")] = "haswell",
    out: Annotated[
        Optional[str],
        typer.Option("--out", "-o", help="Output directory (resumed when it exists); default: bhive-MCPU."),
    ] = None,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", min=1, help="Label only the N blocks with the smallest hash (a fixed random subset)."),
    ] = None,
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="llvm-mca processes in parallel (default: every core).")
    ] = None,
    chunk: Annotated[int, typer.Option("--chunk", min=1, help="Blocks per llvm-mca process (as code regions).")] = 1000,
    cache_dir: Annotated[
        Optional[str],
        typer.Option("--cache-dir", help="Where downloaded sources are kept (default: ~/.cache/invar/bhive)."),
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Label again even if --out holds labels.")] = False,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """Label BHive basic blocks with llvm-mca throughput and split them into train, valid and test.

    Reads hex[,anything] per line, keeps every distinct block once, and labels
    it with Total Cycles / 100 from llvm-mca -mcpu=MCPU -iterations=100, many
    blocks per llvm-mca process, in parallel, resumably. Blocks that invar or
    llvm-mca rejects are listed with the reason in OUT/rejected.csv. The split
    is by a hash of the block: 80/10/10.

    Example: invar data bhive --source ../shared/data/bhive --mcpu haswell --out bhive-haswell
    """
    from ..data.bhive import build

    outdir = out or f"bhive-{mcpu}"
    folder_destination(outdir, "--out")
    with progress_bar("blocks") as progress:
        summary = build(
            source,
            outdir,
            mcpu=mcpu,
            jobs=jobs,
            chunk=chunk,
            limit=limit,
            cache_dir=cache_dir,
            overwrite=overwrite,
            progress=progress,
        )
    before = summary.rejected.get("invar", 0)  # refused by invar's decoder, never sent to llvm-mca
    stderr.print(
        f"llvm-mca labelled or rejected {summary.new} blocks now"
        + (f" (invar rejected {before} before it)" if before else "")
        + f"; {summary.cached} came from {outdir}/labels.jsonl",
        markup=False,
    )
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, **summary.to_dict()}, indent=2), markup=False, highlight=False)
        return _refuse_unlabelled(summary, outdir)
    s, r = summary.splits, summary.rejected
    stdout.print(
        f"{summary.blocks} distinct blocks: {summary.labelled} labelled (train {s['train']}, valid {s['valid']}, "
        f"test {s['test']}), {r['invar'] + r['llvm-mca']} rejected (invar {r['invar']}, llvm-mca {r['llvm-mca']}; "
        f"listed in {outdir}/rejected.csv)",
        markup=False,
    )
    _refuse_unlabelled(summary, outdir)


def _refuse_unlabelled(summary, outdir: str) -> None:
    """A run that labels none of its blocks is an error (exit 1), after its summary."""
    if summary.blocks and not summary.labelled:
        raise DataError(f"none of the {summary.blocks} blocks could be labelled (why: {outdir}/rejected.csv)")


# ------------------------------------------------- in-context symbol tasks
_InContextPool = {
    "alphabet": Annotated[
        Optional[str], typer.Option("--alphabet", help="Draw symbols from these characters (default: A-Z a-z 0-9).")
    ],
    "corpus": Annotated[
        Optional[List[str]],
        typer.Option(
            "--corpus",
            metavar="PATH",
            help="Draw symbols from the characters of this file or directory (*.py, *.java, *.txt) (repeatable).",
        ),
    ],
    "symbols": Annotated[
        Optional[str],
        typer.Option(
            "--symbols",
            help="A token vocabulary: one token per line, optionally TAB count; examples are then token lists.",
        ),
    ],
    "by_frequency": Annotated[
        bool,
        typer.Option(
            "--by-frequency",
            help="Draw symbols in proportion to their counts (--corpus, --symbols) instead of uniformly.",
        ),
    ],
}


def _incontext(task: str, out: str, num: int, seed: int, pool_options: dict, fmt: TableFormat, **shape: int) -> None:
    """Generate ``num`` examples of ``task`` into ``out`` (or standard output) and say what was written."""
    from ..data import incontext
    from ..files import write_atomic

    if out != "-":
        destination(out, "--out")
    pool = _incontext_pool(**pool_options)
    items = incontext.generate(task, num, pool, seed=seed, **shape)
    buffer = io.StringIO()
    incontext.write(items, buffer)
    if out == "-":
        typer.echo(buffer.getvalue(), nl=False)
        return
    make_folders(out)
    write_atomic(out, lambda f: f.write(buffer.getvalue().encode("utf-8")))
    summary = {
        "out": out,
        "task": task,
        "examples": num,
        "vocab": pool.vocab,
        "symbols": len(pool.symbols),
        "by_frequency": pool_options["by_frequency"],
        **shape,
    }
    if fmt is TableFormat.json:
        stdout.print(json.dumps({"schema": SCHEMA, **summary}, indent=2), markup=False, highlight=False)
        return
    draw = "by frequency" if pool_options["by_frequency"] else "uniformly"
    stdout.print(f"wrote {num} {task} examples to {out} (symbols drawn {draw} from {len(pool.symbols)})", markup=False)


def _incontext_pool(alphabet: str | None, corpus: list[str] | None, symbols: str | None, by_frequency: bool):
    """The pool the options name (at most one source; --by-frequency needs counts)."""
    from ..data import incontext
    from ..errors import UsageError

    given = [
        name
        for name, value in (("--alphabet", alphabet), ("--corpus", corpus), ("--symbols", symbols))
        if value is not None
    ]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)}: give one source of symbols")
    if symbols == "":
        raise UsageError("give a file of tokens, one a line", path="--symbols")
    if by_frequency and not (corpus or symbols):
        raise UsageError("--by-frequency needs counts: give --corpus or --symbols", path="--by-frequency")
    if corpus is not None:
        pool = incontext.corpus_pool(corpus)
    elif symbols is not None:
        pool = incontext.symbols_pool(symbols)
    else:
        pool = incontext.alphabet_pool(incontext.DEFAULT_ALPHABET if alphabet is None else alphabet)
    return pool if by_frequency else pool.uniform()


@data_app.command("lookup")
@command
def lookup_command(
    out: Annotated[str, typer.Option("--out", "-o", help="Output file (JSON lines), or - for standard output.")],
    num: Annotated[int, typer.Option("--num", "-n", min=1, help="Examples to write.")] = 1000,
    pairs: Annotated[int, typer.Option("--pairs", min=1, help="Entries in each table.")] = 8,
    alphabet: _InContextPool["alphabet"] = None,
    corpus: _InContextPool["corpus"] = None,
    symbols: _InContextPool["symbols"] = None,
    by_frequency: _InContextPool["by_frequency"] = False,
    seed: SeedOpt = 0,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """The lexinvariant paper's LookUp task: a table of keys and values, then a key; the answer is its value.

    A prompt reads "A->2 C->4 D->5 C->" (answer "4"): --pairs distinct keys,
    values drawn independently, one key of the table asked. Symbols are drawn
    from --alphabet, the characters of --corpus, or the tokens of --symbols,
    uniformly or --by-frequency. One JSON object per line (task, prompt,
    answer); a fixed --seed writes the same file.

    Example: invar data lookup --num 1000 --pairs 8 --corpus fixtures/python --seed 0 --out lookup.jsonl
    """
    _incontext(
        "lookup",
        out,
        num,
        seed,
        dict(alphabet=alphabet, corpus=corpus, symbols=symbols, by_frequency=by_frequency),
        fmt,
        pairs=pairs,
    )


@data_app.command("permutation")
@command
def permutation_command(
    out: Annotated[str, typer.Option("--out", "-o", help="Output file (JSON lines), or - for standard output.")],
    num: Annotated[int, typer.Option("--num", "-n", min=1, help="Examples to write.")] = 1000,
    length: Annotated[int, typer.Option("--length", min=2, help="Symbols in each tuple.")] = 4,
    demos: Annotated[
        int, typer.Option("--demos", min=1, help="Demonstrations of the permutation before the question.")
    ] = 3,
    alphabet: _InContextPool["alphabet"] = None,
    corpus: _InContextPool["corpus"] = None,
    symbols: _InContextPool["symbols"] = None,
    by_frequency: _InContextPool["by_frequency"] = False,
    seed: SeedOpt = 0,
    fmt: TableFormatOpt = TableFormat.table,
) -> None:
    """The lexinvariant paper's Permutation task: a fixed reordering shown on a few tuples, then applied to a new one.

    Each line of a prompt is a tuple of --length distinct symbols, "->", and
    the tuple reordered by one permutation (never the identity), --demos
    times; then a fresh tuple and "->" (answer: it reordered). Symbols as for
    invar data lookup. One JSON object per line; a fixed --seed writes the
    same file.

    Example: invar data permutation --num 1000 --length 4 --demos 3 --seed 0 --out permutation.jsonl
    """
    _incontext(
        "permutation",
        out,
        num,
        seed,
        dict(alphabet=alphabet, corpus=corpus, symbols=symbols, by_frequency=by_frequency),
        fmt,
        length=length,
        demos=demos,
    )
