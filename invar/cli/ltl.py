"""``invar ltl``: linear temporal logic tools (the exact trace checker)."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from ..errors import ParseError, UsageError
from .app import SCHEMA, TextFormat, TextFormatOpt, app, command, read_text, stdout

ltl_app = typer.Typer(
    name="ltl",
    help="Linear temporal logic: check symbolic lasso traces against formulas.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(ltl_app, name="ltl")


@ltl_app.command("check")
@command
def check_command(
    formula: Annotated[Optional[str], typer.Argument(help="Formula, infix (G(a -> F b)) or Polish (&aXb).")] = None,
    trace: Annotated[Optional[str], typer.Argument(help="Lasso trace, e.g. a;&ab;{b}.")] = None,
    file: Annotated[
        Optional[str], typer.Option("--file", "-f", help="Check every pair of a .ltl or .jsonl file (- for stdin).")
    ] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", min=0, help="Seconds allowed per pair.")] = None,
    max_states: Annotated[Optional[int], typer.Option("--max-states", min=1, help="Product states allowed per pair.")] = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Decide whether every word of TRACE satisfies FORMULA; print holds or fails.

    A failure comes with a counterexample: a concrete word of the trace that
    violates the formula. Exit status 0 when every pair holds, 1 otherwise.

    Example: invar ltl check 'XXGb' 'a;&ab;{b}'
    """
    from ..frontends import ltl

    if file is not None:
        if formula is not None or trace is not None:
            raise UsageError("give FORMULA and TRACE, or --file, not both")
        shown = "<stdin>" if file == "-" else file
        text = read_text(file)
        try:
            units = ltl.parse_jsonl_units(text, shown) if file.endswith(".jsonl") else ltl.parse_units(text, shown)
        except ParseError as err:
            raise err.located(shown)
    else:
        if formula is None or trace is None:
            raise UsageError("give FORMULA and TRACE (or --file FILE)")
        units = []
        for what, text in (("formula", formula), ("trace", trace)):
            try:
                (ltl.parse_formula if what == "formula" else ltl.parse_trace)(text)
            except ParseError as err:
                raise err.located(f"<{what}>")
        units = [ltl.program_of(formula, trace, name="arguments")]
        shown = None
    results = []
    for unit in units:
        try:
            results.append((unit, ltl.check_program(unit, timeout=timeout, max_states=max_states)))
        except ParseError as err:
            raise err.located(shown)
    _render(results, fmt, batch=file is not None)
    if not all(r.holds for _, r in results):
        raise typer.Exit(1)


def _render(results, fmt: TextFormat, batch: bool) -> None:
    from ..frontends.ltl import to_trace_text

    records = [
        {
            "unit": unit.name,
            "formula": unit.lines[0].text,
            "trace": unit.lines[1].text,
            "holds": r.holds,
            "counterexample": None if r.counterexample is None else to_trace_text(r.counterexample),
        }
        for unit, r in results
    ]
    if fmt is TextFormat.json:
        print(json.dumps({"schema": SCHEMA, "results": records}, indent=2))
        return
    if fmt is TextFormat.jsonl:
        for rec in records:
            print(json.dumps({"schema": SCHEMA, **rec}))
        return
    for rec in records:
        verdict = "holds" if rec["holds"] else "fails"
        head = f"{rec['unit']}: {verdict}" if batch else verdict
        stdout.print(head, markup=False)
        if rec["counterexample"] is not None:
            stdout.print(f"{'  ' if batch else ''}counterexample: {rec['counterexample']}", markup=False)
    if batch:
        failed = sum(not rec["holds"] for rec in records)
        stdout.print(f"{len(records)} pairs: {len(records) - failed} hold, {failed} fail", markup=False)
