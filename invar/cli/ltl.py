"""``invar ltl``: linear temporal logic tools (the exact trace checker)."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from ..errors import InvarError, ParseError, UsageError
from .listing import plural
from .console import command, located, read_text, report, stdout
from .options import SCHEMA, TextFormat, TextFormatOpt

ltl_app = typer.Typer(
    name="ltl",
    help="Linear temporal logic: check symbolic lasso traces against formulas.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@ltl_app.command("check")
@command
def check_command(
    formula: Annotated[Optional[str], typer.Argument(help="Formula, infix (G(a -> F b)) or Polish (&aXb).")] = None,
    trace: Annotated[Optional[str], typer.Argument(help="Lasso trace, e.g. a;&ab;{b}.")] = None,
    file: Annotated[
        Optional[str], typer.Option("--file", "-f", help="Check every pair of a .ltl or .jsonl file (- for stdin).")
    ] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", min=0, help="Seconds allowed per pair.")] = None,
    max_states: Annotated[
        Optional[int], typer.Option("--max-states", min=1, help="Product states allowed per pair.")
    ] = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Decide whether every word of TRACE satisfies FORMULA; print holds or fails.

    A failure comes with a counterexample: a concrete word of the trace that
    violates the formula. With --file, a malformed line and a pair over
    --timeout or --max-states are reported with their location and every
    other pair is still checked. Exit status 0 when every pair holds, 1
    otherwise.

    Example: invar ltl check 'XXGb' 'a;&ab;{b}'
    """
    from ..frontends import ltl

    if file is None:
        if formula is None or trace is None:
            raise UsageError("give FORMULA and TRACE (or --file FILE)")
        for what, text in (("formula", formula), ("trace", trace)):
            try:
                (ltl.parse_formula if what == "formula" else ltl.parse_trace)(text)
            except ParseError as err:
                raise err.located(f"<{what}>")
        unit = ltl.program_of(formula, trace, name="arguments")
        result = located("<formula>", ltl.check_program, unit, timeout=timeout, max_states=max_states)
        _render([(unit, result, None)], fmt, batch=False)
        if not result.holds:
            raise typer.Exit(1)
        return
    if formula is not None or trace is not None:
        raise UsageError("give FORMULA and TRACE, or --file, not both")
    shown = "<stdin>" if file == "-" else file
    text = read_text(file)
    reader = ltl.parse_jsonl_units if file.endswith(".jsonl") else ltl.parse_units
    units = located(file, reader, text, shown)
    # every pair in file order: its verdict, or the error that kept it from one
    items = sorted(
        [(err.line, None, err) for err in units.skipped] + [(unit.lines[0].source_line, unit, None) for unit in units],
        key=lambda item: item[0],
    )
    outcomes = []
    for _, unit, err in items:
        if unit is not None:
            try:
                outcomes.append((unit, ltl.check_program(unit, timeout=timeout, max_states=max_states), None))
                continue
            except InvarError as failure:
                err = failure.located(shown)
        report(err)
        outcomes.append((unit, None, err))
    _render(outcomes, fmt, batch=True)
    if not all(result is not None and result.holds for _, result, _ in outcomes):
        raise typer.Exit(1)


def _record(unit, result, err) -> dict:
    from ..frontends.ltl import to_trace_text

    if err is not None:
        return {
            "unit": unit.name if unit is not None else getattr(err, "unit", f"line {err.line}"),
            "formula": unit.lines[0].text if unit is not None else None,
            "trace": unit.lines[1].text if unit is not None and len(unit.lines) > 1 else None,
            "holds": None,
            "counterexample": None,
            "error": str(err),
        }
    return {
        "unit": unit.name,
        "formula": unit.lines[0].text,
        "trace": unit.lines[1].text,
        "holds": result.holds,
        "counterexample": None if result.counterexample is None else to_trace_text(result.counterexample),
        "error": None,
    }


def _render(outcomes, fmt: TextFormat, batch: bool) -> None:
    records = [_record(*outcome) for outcome in outcomes]
    if fmt is TextFormat.json:
        print(json.dumps({"schema": SCHEMA, "results": records}, indent=2))
        return
    if fmt is TextFormat.jsonl:
        for rec in records:
            print(json.dumps({"schema": SCHEMA, **rec}))
        return
    for rec, (_, _, err) in zip(records, outcomes):
        if err is not None:
            stdout.print(f"{rec['unit']}: not checked: {err.message}", markup=False)
            continue
        verdict = "holds" if rec["holds"] else "fails"
        head = f"{rec['unit']}: {verdict}" if batch else verdict
        stdout.print(head, markup=False)
        if rec["counterexample"] is not None:
            stdout.print(f"{'  ' if batch else ''}counterexample: {rec['counterexample']}", markup=False)
    if batch:
        held = sum(rec["holds"] is True for rec in records)
        failed = sum(rec["holds"] is False for rec in records)
        summary = f"{plural(len(records), 'pair')}: {held} hold, {failed} fail"
        errors = len(records) - held - failed
        stdout.print(summary + (f", {errors} not checked" if errors else ""), markup=False)
