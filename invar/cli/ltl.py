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
    other pair is still checked.

    Exit status: 0 when every pair holds; 1 when a pair fails or runs over
    --timeout or --max-states; 2, as for a usage error, when an input cannot
    be read or is not well formed (a formula or trace that does not parse,
    a file missing or not UTF-8, a line of --file without its pair). With
    --file, 2 outranks 1 and the other pairs are still checked.

    Example: invar ltl check 'XXGb' 'a;&ab;{b}'
    """
    from ..frontends import ltl

    if file is None:
        if formula is None or trace is None:
            raise UsageError("give FORMULA and TRACE (or --file FILE)")
        _check_pair(formula, trace, timeout, max_states, fmt)
        return
    if formula is not None or trace is not None:
        raise UsageError("give FORMULA and TRACE, or --file, not both")
    shown = "<stdin>" if file == "-" else file
    try:
        text = read_text(file)
        reader = ltl.parse_jsonl_units if file.endswith(".jsonl") else ltl.parse_units
        units = located(file, reader, text, shown)
    except InvarError as err:
        raise _input_error(err)
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
    status = _status(outcomes)
    if status:
        raise typer.Exit(status)


def _check_pair(formula: str, trace: str, timeout: float | None, max_states: int | None, fmt: TextFormat) -> None:
    """Check one pair given as arguments and print its verdict; a pair
    that fails exits 1, one that does not parse is an input error (2)."""
    from ..frontends import ltl

    for what, text in (("formula", formula), ("trace", trace)):
        try:
            (ltl.parse_formula if what == "formula" else ltl.parse_trace)(text)
        except ParseError as err:
            raise _input_error(err.located(f"<{what}>"))
    unit = ltl.program_of(formula, trace, name="arguments")
    result = located("<formula>", ltl.check_program, unit, timeout=timeout, max_states=max_states)
    _render([(unit, result, None)], fmt, batch=False)
    if not result.holds:
        raise typer.Exit(1)


def _input_error(err: InvarError) -> InvarError:
    """``err``, an input that cannot be read or does not parse, with exit
    status 2: status 1 says that a pair fails."""
    err.exit_code = 2
    return err


def _status(outcomes) -> int:
    """The exit status of a --file batch (every pair's outcome already
    printed): 2 when a line could not be read as a pair, else 1 when a pair
    fails or ran over a limit, else 0."""
    from ..frontends.ltl.check import CheckLimitError

    if any(err is not None and not isinstance(err, CheckLimitError) for _, _, err in outcomes):
        return 2
    return 0 if all(result is not None and result.holds for _, result, _ in outcomes) else 1


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
