"""``invar audit``: measure a model's invariance over a dataset; ``invar audit
merge``: combine shards."""

from __future__ import annotations

import enum
import io
import json
import os
import sys
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from ..audit.config import AuditConfig
from ..errors import InvarError, UsageError
from .configured import with_config
from .console import command, stderr, stdout
from .options import TableFormat
from .outputs import destination, folder_destination, make_folders

audit_app = typer.Typer(
    name="audit",
    no_args_is_help=True,
    invoke_without_command=True,
    subcommand_metavar="[merge FILE... | compare A B]",  # the audit itself takes options alone
    context_settings={"help_option_names": ["-h", "--help"]},
)


class AuditFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"


FormatOpt = Annotated[
    AuditFormat,
    typer.Option(
        "--format",
        help=(
            "Output format: a table for people, JSON (the summary) or JSONL (header, one record per example, summary)."
        ),
    ),
]
OutOpt = Annotated[
    Optional[str], typer.Option("--out", "-o", help="Write the output to FILE instead of standard output.")
]
FailOverOpt = Annotated[
    Optional[List[str]],
    typer.Option(
        "--fail-over",
        metavar="METRIC=VALUE",
        help=(
            "METRIC=VALUE: exit 1 when the report's METRIC (violation_rate, metric.worst, spread.relative_range.max, "
            "errors …) exceeds VALUE (repeatable)."
        ),
    ),
]
FailUnderOpt = Annotated[
    Optional[List[str]],
    typer.Option(
        "--fail-under",
        metavar="METRIC=VALUE",
        help="METRIC=VALUE: exit 1 when METRIC (alpha_covariance …) falls below VALUE (repeatable).",
    ),
]
ReportOpt = Annotated[
    Optional[str],
    typer.Option(
        "--report",
        "--html",
        help="Also write a self-contained HTML page: summary, spread histogram, worst examples beside their variant.",
    ),
]
PlotOpt = Annotated[
    Optional[str],
    typer.Option(
        "--plot",
        help=(
            "Also plot the spread (with --example: every variant's prediction) to a .png or .svg file (needs "
            "matplotlib: the package's plot extra)."
        ),
    ),
]
ModelOpt = Annotated[
    Optional[str],
    typer.Option(
        "--model",
        "-m",
        help=(
            "An invar checkpoint, a TorchScript file, package.module:function, an OpenAI-compatible endpoint "
            "http://HOST:PORT/v1, or hf:DIR, a local Hugging Face transformers model (the last two with --task)."
        ),
    ),
]
DatasetOpt = Annotated[
    Optional[str],
    typer.Option(
        "--dataset",
        "-d",
        help=(
            "bhive (--data-dir or INVAR_DATA, else BHive's CSVs downloaded into invar's cache), a dataset "
            "directory, a file of programs, a directory of sources, or CSV/JSONL (none with --suite)."
        ),
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on standard error.")]


@audit_app.callback()
@command
@with_config(AuditConfig)
def audit_command(
    ctx: typer.Context,
    model: ModelOpt = None,
    dataset: DatasetOpt = None,
    fmt: FormatOpt = AuditFormat.table,
    out: OutOpt = None,
    fail_over: FailOverOpt = None,
    fail_under: FailUnderOpt = None,
    plot: PlotOpt = None,
    report_file: ReportOpt = None,
    quiet: QuietOpt = False,
    config: AuditConfig = AuditConfig(),
) -> None:
    """Audit a model's invariance over a dataset: violation rate, alpha-covariance, spread, task metric.

    For each example, K semantics-preserving variants are drawn uniformly
    (all of them when there are at most K), the model predicts the original
    and every variant, and the report compares them. Exit status 0 when every
    --fail-over/--fail-under bound holds, 1 when one does not, 2 for usage
    errors. Several processes: torchrun --nproc-per-node N -m invar audit … .

    With --suite, a versioned set of audits (examples, seeds and variants
    fixed by its version) in place of --dataset: one JSONL report per task
    and a summary under --out DIR.

    Example: invar audit --model fixtures/models/renamer.pt --dataset fixtures/blocks
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..audit import audit

    if config.suite is not None:
        _suite(model, dataset, config, fmt, out, _bounds(fail_over, fail_under), report_file or plot, quiet)
        return
    if model is None or dataset is None:
        raise UsageError("--model and --dataset are required (or: invar audit merge FILE…)")
    # every option error before the work: bounds, the split, where the report goes
    from ..audit.datasets import check_columns, check_split

    over, under = _bounds(fail_over, fail_under, config)
    check_split(dataset, config.split, config.data_dir)
    check_columns(dataset, config.program_column, config.label_column)
    _destinations(out, report_file, plot)
    rank = int(os.environ.get("RANK", "0"))
    if dataset == "bhive" and not (config.data_dir or os.environ.get("INVAR_DATA")) and not quiet and rank == 0:
        from ..data.bhive import default_cache_dir, pending

        if missing := pending():
            stderr.print(
                f"downloading {len(missing)} of BHive's CSVs into {default_cache_dir()} (once)",
                markup=False,
                highlight=False,
            )
    with _progress(quiet or rank != 0) as progress:
        result = audit(model, dataset, config, progress=progress, warn=_warn)
    if rank == 0:
        from ..audit.datasets import unlabelled_note
        from ..audit.report import fallback_note
        from ..tasks import get_task

        _emit(result.header, result.records, result.report, fmt, out, report_file, plot)
        # a metric measured needs no label (a language model's is its own loss); nothing audited, nothing to label
        note = (
            result.report["metric"] is None
            and result.report["audited"]
            and unlabelled_note(
                result.header["dataset"], get_task(result.header["task"]), config.oracle, config.label_column
            )
        )
        if note:
            stderr.print(f"note: {note}", markup=False, highlight=False)
        fell = fallback_note(result.header["model"], result.report["run"])
        if fell:  # once per run: the batches the model answered wrongly were asked again one program at a time
            stderr.print(f"note: {fell}", markup=False, highlight=False)
    _check(result.report, over, under)


def _suite(
    model: str | None,
    dataset: str | None,
    config: AuditConfig,
    fmt: AuditFormat,
    out: str | None,
    bounds,
    drawn: str | None,
    quiet: bool,
) -> None:
    """``--suite``: every member audited, its JSONL and the summary under
    ``--out DIR`` (default ``suite-NAME-VERSION``), the summary table (or
    JSON) on standard output; exit 1 when a member failed or a bound broke."""
    from ..audit.suite import check_settings, get_suite, run_suite

    if model is None:
        raise UsageError("--model is required")
    if dataset is not None:
        raise UsageError("--suite audits its own datasets: give no --dataset", path="--dataset")
    if drawn is not None:
        raise UsageError(
            "--report and --plot draw one audit: a suite writes its reports under --out DIR", path="--report"
        )
    if fmt is AuditFormat.jsonl:
        raise UsageError(
            "a suite writes each task's JSONL under --out DIR: choose --format table or json", path="--format"
        )
    suite = get_suite(config.suite)
    check_settings(config, suite)
    if out == "-":
        folder_destination(out, "--out")  # a suite writes a folder of reports: not standard output
    folder = Path(out or f"suite-{suite.name}-{suite.version}")
    if folder.exists() and not folder.is_dir():
        raise UsageError("is a file: with --suite, --out names the folder of the reports", path=str(folder))
    destination(folder / "summary.json", "--out")

    def started(member, k: int, n: int) -> None:
        if not quiet:
            stderr.print(f"suite {suite.id}: {member.task} ({k + 1} of {n})", markup=False, highlight=False)

    with _progress(quiet) as progress:
        summary = run_suite(model, suite, folder, config, started=started, progress=progress, warn=_warn)
    _show_suite(summary, fmt, folder)
    _check_suite(summary, folder, bounds)


def _show_suite(summary: dict, fmt: AuditFormat, folder) -> None:
    if fmt is AuditFormat.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return
    from rich.table import Table

    from ..audit.suite import COLUMNS, table

    model = summary["model"].get("name") or summary["model"].get("path")
    shown = Table(title=f"suite {summary['suite']}@{summary['version']}: {model}")
    for column in COLUMNS:
        shown.add_column(column)
    for row in table(summary):
        shown.add_row(*row)
    stdout.print(shown)
    stdout.print(
        f"reports: {folder}/ (TASK.jsonl, summary.json, summary.md); compare two models with "
        f"invar audit compare A/TASK.jsonl B/TASK.jsonl",
        markup=False,
        highlight=False,
    )


def _check_suite(summary: dict, folder, bounds) -> None:
    """Exit 1 (an InvarError) when a member failed or broke a bound; the
    bounds' warnings as for one audit."""
    from ..audit import exceeded
    from ..audit.report import caveats, read_jsonl

    broken = [f"{m['task']}: {m['reason']}" for m in summary["members"] if m["status"] == "failed"]
    for m in summary["members"]:
        if m["status"] == "audited" and (bounds[0] or bounds[1]):
            report = read_jsonl(str(folder / m["report"]))[2]
            for message in caveats(report, *bounds):
                stderr.print(f"invar: warning: {m['task']}: {message}", markup=False, highlight=False)
            broken += [f"{m['task']}: {b}" for b in exceeded(report, *bounds)]
    if broken:
        raise InvarError("; ".join(broken))


@audit_app.command("merge")
@command
def merge_command(
    files: Annotated[
        List[str], typer.Argument(help="The shards' JSONL files (--shard I/N --format jsonl).", metavar="FILE")
    ],
    fmt: FormatOpt = AuditFormat.table,
    out: OutOpt = None,
    fail_over: FailOverOpt = None,
    fail_under: FailUnderOpt = None,
    plot: PlotOpt = None,
    report_file: ReportOpt = None,
) -> None:
    """Combine the JSONL of shards into the report one run would give.

    Every shard 1..N must be there once, audited with the same settings,
    and every example in exactly one record: otherwise exit 1, naming the
    examples missing or repeated. Exit status as for invar audit. Each shard
    is an audit run with --shard I/N --format jsonl --out FILE.

    Example: invar audit merge shard1.jsonl shard2.jsonl --format json
    """
    from ..audit import merge

    over, under = _bounds(fail_over, fail_under)
    _destinations(out, report_file, plot)
    header, records, result = merge(files)
    _emit(header, records, result, fmt, out, report_file, plot)
    _check(result, over, under)


@audit_app.command("compare")
@command
def compare_command(
    a: Annotated[str, typer.Argument(help="The first model's audit (--format jsonl).", metavar="A")],
    b: Annotated[
        str, typer.Argument(help="The second model's audit of the same examples (--format jsonl).", metavar="B")
    ],
    fmt: Annotated[TableFormat, typer.Option("--format", help="Output format.")] = TableFormat.table,
    out: OutOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resamples.")] = 0,
    bootstrap: Annotated[int, typer.Option("--bootstrap", min=1, help="Bootstrap resamples.")] = 1000,
    confidence: Annotated[float, typer.Option("--confidence", min=0, max=1, help="Coverage of the intervals.")] = 0.95,
) -> None:
    """Compare two models audited on the same examples, with paired tests.

    Each model's violation rate, alpha-covariance and metric, and their
    differences (A - B) over the examples both audited: McNemar's exact test
    on violations and on right answers, a paired bootstrap on the rest. Two
    audits of other examples, datasets, seeds or transforms are refused.
    Each audit is one written with --format jsonl --out FILE.

    Example: invar audit compare renamer.jsonl vanilla.jsonl
    """
    from ..audit import compare
    from ..audit.compare import render

    destination(out, "--out")
    result = compare(a, b, resamples=bootstrap, level=confidence, seed=seed)
    if fmt is TableFormat.json:
        text = json.dumps(result, indent=2) + "\n"
    else:
        from rich.console import Console

        buf = io.StringIO()
        render(result, Console(file=buf, width=100, soft_wrap=True, highlight=False, emoji=False))
        text = buf.getvalue()
    if out is not None:
        from ..files import write_atomic

        make_folders(out)
        write_atomic(out, lambda f: f.write(text.encode()))
    else:
        sys.stdout.write(text)


def _destinations(out: str | None, report_file: str | None, plot: str | None) -> None:
    """Every file the report goes to can be written (and --plot drawn):
    checked before the audit, not after it."""
    destination(out, "--out")
    destination(report_file, "--report")
    destination(plot, "--plot")
    if plot is not None:
        from ..audit.render import check_plot

        check_plot(plot)


def _bounds(fail_over, fail_under, config: AuditConfig | None = None):
    """The bounds, each naming a number of the report's schema that the
    settings (``config``, where given) measure: checked before the audit,
    not after it."""
    from ..audit.config import check_measurable, check_measure
    from ..audit.report import parse_bound

    bounds = (
        [parse_bound(b, "--fail-over") for b in fail_over or ()],
        [parse_bound(b, "--fail-under") for b in fail_under or ()],
    )
    for option, given in zip(("--fail-over", "--fail-under"), bounds):
        for name, _ in given:
            check_measure(name, option)
            if config is not None:
                check_measurable(name, config, option)
    return bounds


def _check(result: dict, over, under) -> None:
    """Exit 1 (an InvarError) when no example was audited, or when a bound
    does not hold; the bounds' warnings first."""
    from ..audit import exceeded
    from ..audit.report import caveats, unaudited

    nothing = unaudited(result)
    if nothing:  # the model or the dataset could not be read at all: no bound can be judged, none passes
        raise InvarError(nothing)

    # a bound on invariance alone, met by a constant or chance-level model, says so
    for message in caveats(result, over, under):
        stderr.print(f"invar: warning: {message}", markup=False, highlight=False)
    broken = exceeded(result, over, under)
    if broken:
        raise InvarError("; ".join(broken))


def _warn(message: str) -> None:
    """A warning of the audit's on its settings (labels no reply can give), before the model is asked anything."""
    stderr.print(f"invar: warning: {message}", markup=False, highlight=False)


class _progress:
    """A progress bar on standard error, only when it is a terminal."""

    def __init__(self, quiet: bool) -> None:
        self.bar = None
        if not quiet and stderr.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("examples"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=stderr,
                transient=True,
            )

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.__enter__()
        task = self.bar.add_task("audit", total=None)
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


def _emit(
    header: dict,
    records: list,
    result: dict,
    fmt: AuditFormat,
    out: str | None,
    report_file: str | None,
    plot: str | None,
) -> None:
    """The audit's output: its failures on standard error, its result in
    ``fmt`` to ``out`` or standard output, and the HTML page and the plot
    when asked for."""
    from ..audit import render

    _print_failures(result["failed"])
    _write_result(header, records, result, fmt, out)
    if report_file is not None:
        from ..files import write_atomic

        page = render.html_page(result)
        make_folders(report_file)
        write_atomic(report_file, lambda f: f.write(page.encode()))
    if plot is not None:
        _plot(records, result, plot)


#: the model's failures printed before the rest are left to the JSON
_FAILURES_SHOWN = 20


def _print_failures(failed: list[dict]) -> None:
    """Every example that does not parse, located, as every command reports
    them; the model's failures up to a screenful (all of them are in the JSON)."""
    shown = 0
    for f in failed:
        if f["stage"] == "parse":
            stderr.print(f["error"], markup=False, highlight=False)
        elif shown < _FAILURES_SHOWN:
            shown += 1
            stderr.print(
                f"{f['location']}:1: error: the model failed on this example: {f['error']}",
                markup=False,
                highlight=False,
            )
    hidden = sum(1 for f in failed if f["stage"] != "parse") - shown
    if hidden:
        stderr.print(
            f"… and {hidden:,} more examples the model failed on (listed under failed in --format json)",
            markup=False,
            highlight=False,
        )


def _write_result(header: dict, records: list, result: dict, fmt: AuditFormat, out: str | None) -> None:
    """The result as JSON, JSON lines or tables, to ``out`` (written
    atomically) or to standard output."""
    from ..audit import render
    from ..audit.report import jsonl_lines

    if fmt is AuditFormat.json:
        text = json.dumps(result, indent=2) + "\n"
    elif fmt is AuditFormat.jsonl:
        text = "\n".join(jsonl_lines(header, records, result)) + "\n"
    elif out is None:
        render.tables(result, stdout)
        return
    else:
        from rich.console import Console

        buf = io.StringIO()
        render.tables(result, Console(file=buf, width=100, soft_wrap=True, highlight=False, emoji=False))
        text = buf.getvalue()
    if out is None:
        sys.stdout.write(text)
        return
    from ..files import write_atomic

    make_folders(out)
    write_atomic(out, lambda f: f.write(text.encode()))


def _plot(records: list, result: dict, plot: str) -> None:
    """One example's predictions over its variants, or the spread of every
    example's, as a histogram in ``plot``."""
    from ..audit import render

    ok = [r for r in records if r["error"] is None]
    if result["example"] is not None and ok:
        values = [ok[0]["prediction"]] + list(ok[0].get("predictions", []))
        title, xlabel, ylabel = f"{len(values) - 1:,} variants of {ok[0]['id']}", "prediction", "predictions"
    else:
        values = [r["relative_range"] for r in ok if r["relative_range"] is not None]
        title, xlabel, ylabel = f"spread over {len(values):,} examples", "relative range of the predictions", "examples"
    make_folders(plot)
    render.plot(
        values,
        plot,
        title=f"{result['model'].get('arch') or result['model']['kind']}: {title}",
        xlabel=xlabel,
        ylabel=ylabel,
        nonnegative=result["example"] is None,
    )
