"""``invar audit``: measure a model's invariance over a dataset; ``invar audit
merge``: combine shards."""

from __future__ import annotations

import enum
import json
import os
from typing import Annotated, List, Optional

import typer

from ..errors import InvarError, UsageError
from .console import command, stderr, stdout
from .options import Device, LexinvariantTable, LexinvariantTableOpt, SeedOpt

audit_app = typer.Typer(
    name="audit",
    no_args_is_help=True,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class AuditFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"


class Transform(str, enum.Enum):
    renamings = "renamings"
    permutations = "permutations"
    both = "both"


FormatOpt = Annotated[AuditFormat, typer.Option("--format", help="Output format: a table for people, JSON (the summary) or JSONL (header, one record per example, summary).")]
OutOpt = Annotated[Optional[str], typer.Option("--out", "-o", help="Write the output to FILE instead of standard output.")]
FailOverOpt = Annotated[Optional[List[str]], typer.Option("--fail-over", help="METRIC=VALUE: exit 1 when the report's METRIC (violation_rate, metric.worst, spread.relative_range.max, errors …) exceeds VALUE (repeatable).")]
FailUnderOpt = Annotated[Optional[List[str]], typer.Option("--fail-under", help="METRIC=VALUE: exit 1 when METRIC (alpha_covariance …) falls below VALUE (repeatable).")]
ReportOpt = Annotated[Optional[str], typer.Option("--report", help="Also write a self-contained HTML page: summary, spread histogram, worst examples beside their variant.")]
PlotOpt = Annotated[Optional[str], typer.Option("--plot", help="Also plot the spread (with --example: every variant's prediction) to a .png or .svg file (needs matplotlib: pip install 'invar[plot]').")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on standard error.")]


@audit_app.callback()
@command
def audit_command(
    ctx: typer.Context,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="An invar checkpoint, a TorchScript file, package.module:function, or an OpenAI-compatible endpoint http://HOST:PORT/v1 (with --prompt).")] = None,
    dataset: Annotated[Optional[str], typer.Option("--dataset", "-d", help="bhive (--data-dir or INVAR_DATA, else BHive's CSVs downloaded into invar's cache), a dataset directory, a file of programs, a directory of sources, or CSV/JSONL.")] = None,
    transform: Annotated[Optional[Transform], typer.Option("--transform", help="Which transforms to audit; default: the task's own symmetries.")] = None,
    variants: Annotated[int, typer.Option("--variants", "-k", min=1, help="Variants per example, drawn uniformly (all of them when the space has at most this many).")] = 16,
    limit: Annotated[Optional[int], typer.Option("--limit", min=0, help="Audit the first N examples.")] = None,
    seed: SeedOpt = 0,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Inputs per model call.")] = 64,
    device: Annotated[Device, typer.Option("--device", help="Where checkpoints and TorchScript models run.")] = Device.cpu,
    tolerance: Annotated[float, typer.Option("--tolerance", min=0, help="Relative difference below which two numeric predictions count as the same.")] = 1e-6,
    fmt: FormatOpt = AuditFormat.table,
    out: OutOpt = None,
    fail_over: FailOverOpt = None,
    fail_under: FailUnderOpt = None,
    task: Annotated[Optional[str], typer.Option("--task", help="The task (bhive, classify, names, bugs); invar checkpoints carry theirs.")] = None,
    data_dir: Annotated[Optional[str], typer.Option("--data-dir", help="Where --dataset bhive lies: a directory written by invar data bhive, or a copy of BHive's CSVs (default: $INVAR_DATA, else BHive's public CSVs in ~/.cache/invar/bhive, downloaded once).")] = None,
    split: Annotated[str, typer.Option("--split", help="Split of a prepared dataset to audit.")] = "test",
    lang: Annotated[Optional[str], typer.Option("--lang", help="Language of the programs (x86, hex, python, java, ltl) when the dataset does not say.")] = None,
    program_column: Annotated[Optional[str], typer.Option("--program-column", help="CSV/JSONL column holding the programs.")] = None,
    label_column: Annotated[Optional[str], typer.Option("--label-column", help="CSV/JSONL column holding the labels.")] = None,
    oracle: Annotated[bool, typer.Option("--oracle", help="Also measure the label's own change on the same variants with the task's oracle (bhive: llvm-mca).")] = False,
    example: Annotated[Optional[str], typer.Option("--example", help="Audit one example (its id, or its position from 0) and show every prediction as a histogram.")] = None,
    plot: PlotOpt = None,
    report_file: ReportOpt = None,
    shard: Annotated[Optional[str], typer.Option("--shard", help="I/N: audit the I-th of N shards (1-based); combine the JSONL with invar audit merge.")] = None,
    prompt: Annotated[Optional[str], typer.Option("--prompt", help="Prompt template file for an HTTP model; {program} stands for the program.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="HTTP requests in flight at once.")] = 8,
    timeout: Annotated[Optional[float], typer.Option("--timeout", min=0.001, help="Seconds an HTTP request (default 60) or a call of a Python callable (default: no limit) may take; a call past it is that input's error.")] = None,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Tries again after an HTTP request fails in transit (refused, reset, timed out, cut short, not HTTP or not JSON) or gets a 408, 429 or 5xx status.")] = 2,
    threads: Annotated[Optional[int], typer.Option("--threads", min=1, help="Torch threads per process (default: 1, fastest for small models; raise it for large ones).")] = None,
    lexinvariant_table: LexinvariantTableOpt = LexinvariantTable.own,
    quiet: QuietOpt = False,
) -> None:
    """Audit a model's invariance over a dataset: violation rate, alpha-covariance, spread, task metric.

    For each example, K semantics-preserving variants are drawn uniformly
    (all of them when there are at most K), the model predicts the original
    and every variant, and the report compares them. Exit status 0 when every
    --fail-over/--fail-under bound holds, 1 when one does not, 2 for usage
    errors. Several processes: torchrun --nproc-per-node N -m invar audit … .

    Example: invar audit --model fixtures/models/renamer.pt --dataset fixtures/blocks
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..audit import audit

    if model is None or dataset is None:
        raise UsageError("--model and --dataset are required (or: invar audit merge FILE…)")
    over, under = _bounds(fail_over, fail_under)
    template = None
    if prompt is not None:
        from .console import read_text

        template = read_text(prompt)
    rank = int(os.environ.get("RANK", "0"))
    if dataset == "bhive" and not (data_dir or os.environ.get("INVAR_DATA")) and not quiet and rank == 0:
        from ..data.bhive import default_cache_dir, pending

        if missing := pending():
            stderr.print(f"downloading {len(missing)} of BHive's CSVs into {default_cache_dir()} (once)",
                         markup=False, highlight=False)
    with _progress(quiet or rank != 0) as progress:
        result = audit(
            model, dataset, transform=transform.value if transform else None, variants=variants, limit=limit,
            seed=seed, batch_size=batch_size, device=device.value, tolerance=tolerance, task=task,
            data_dir=data_dir, split=split, lang=lang, program_column=program_column, label_column=label_column,
            oracle=oracle, example=example, shard=shard, prompt=template, concurrency=concurrency, timeout=timeout,
            retries=retries, threads=threads, lexinvariant_table=lexinvariant_table.value, progress=progress,
        )
    if rank == 0:
        from ..audit.datasets import unlabelled_note
        from ..tasks import get_task

        _emit(result.header, result.records, result.report, fmt, out, report_file, plot)
        note = unlabelled_note(result.header["dataset"], get_task(result.header["task"]), oracle)
        if note:
            stderr.print(f"note: {note}", markup=False, highlight=False)
    _check(result.report, over, under)


@audit_app.command("merge")
@command
def merge_command(
    files: Annotated[List[str], typer.Argument(help="The shards' JSONL files (--shard I/N --format jsonl).", metavar="FILE...")],
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
    examples missing or repeated. Exit status as for invar audit.

    Example: invar audit merge shard1.jsonl shard2.jsonl --format json
    """
    from ..audit import merge

    over, under = _bounds(fail_over, fail_under)
    header, records, result = merge(files)
    _emit(header, records, result, fmt, out, report_file, plot)
    _check(result, over, under)


def _bounds(fail_over, fail_under):
    from ..audit.report import parse_bound

    return ([parse_bound(b, "--fail-over") for b in fail_over or ()],
            [parse_bound(b, "--fail-under") for b in fail_under or ()])


def _check(result: dict, over, under) -> None:
    from ..audit import exceeded
    from ..audit.report import caveats

    # a bound on invariance alone, met by a constant or chance-level model, says so
    for message in caveats(result, over, under):
        stderr.print(f"invar: warning: {message}", markup=False, highlight=False)
    broken = exceeded(result, over, under)
    if broken:
        raise InvarError("; ".join(broken))


class _progress:
    """A progress bar on standard error, only when it is a terminal."""

    def __init__(self, quiet: bool) -> None:
        self.bar = None
        if not quiet and stderr.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("examples"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=stderr, transient=True)

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


def _emit(header: dict, records: list, result: dict, fmt: AuditFormat, out: str | None, report_file: str | None,
          plot: str | None) -> None:
    from ..audit import render
    from ..audit.report import jsonl_lines

    # every example that does not parse, located, as every command reports
    # them; the model's failures up to a screenful (all of them are in the JSON)
    shown = 0
    for f in result["failed"]:
        if f["stage"] == "parse":
            stderr.print(f["error"], markup=False, highlight=False)
        elif shown < 20:
            shown += 1
            stderr.print(f"{f['location']}:1: error: the model failed on this example: {f['error']}", markup=False,
                         highlight=False)
    hidden = sum(1 for f in result["failed"] if f["stage"] != "parse") - shown
    if hidden:
        stderr.print(f"… and {hidden:,} more examples the model failed on (listed under failed in --format json)",
                     markup=False, highlight=False)
    if fmt is AuditFormat.json:
        text = json.dumps(result, indent=2) + "\n"
    elif fmt is AuditFormat.jsonl:
        text = "\n".join(jsonl_lines(header, records, result)) + "\n"
    else:
        text = None
    if out is not None:
        from ..files import write_atomic

        if text is None:
            import io

            from rich.console import Console

            buf = io.StringIO()
            render.tables(result, Console(file=buf, width=100, soft_wrap=True, highlight=False))
            text = buf.getvalue()
        write_atomic(out, lambda f: f.write(text.encode()))
    elif text is not None:
        import sys

        sys.stdout.write(text)
    else:
        render.tables(result, stdout)
    if report_file is not None:
        from ..files import write_atomic

        page = render.html_page(result)
        write_atomic(report_file, lambda f: f.write(page.encode()))
    if plot is not None:
        ok = [r for r in records if r["error"] is None]
        if result["example"] is not None and ok:
            values = [ok[0]["prediction"]] + list(ok[0].get("predictions", []))
            title, xlabel, ylabel = f"{len(values) - 1:,} variants of {ok[0]['id']}", "prediction", "predictions"
        else:
            values = [r["relative_range"] for r in ok if r["relative_range"] is not None]
            title, xlabel, ylabel = (f"spread over {len(values):,} examples", "relative range of the predictions",
                                     "examples")
        render.plot(values, plot, title=f"{result['model'].get('arch') or result['model']['kind']}: {title}",
                    xlabel=xlabel, ylabel=ylabel, nonnegative=result["example"] is None)

