"""``invar canon``: the canonical renaming of a program."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..frontends import frontend_of
from ..symmetry.spaces import canonical
from .console import Records, command, note_unused_pins, select_units, several, stdout, unit_errors
from .options import PinOpt, SCHEMA, FileArg, LangOpt, TextFormat, TextFormatOpt


@command
def canon(
    file: FileArg,
    pin: PinOpt = None,
    function: Annotated[
        Optional[str],
        typer.Option(
            "--function",
            help="Only this unit: a function or method (qualified, or its last parts if unique), or a block of a "
            "file of several or a formula of an LTL file (lineN: its line).",
        ),
    ] = None,
    lang: LangOpt = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Print the canonical renaming of FILE: renamings of one program print alike.

    The canonical form is the first renaming in enumeration order with names
    drawn from a fixed pool (v0, v1, … for Python and Java; a, b, c, … for
    LTL; the register file for x86); it is the preprocessing of the
    canonicalized baseline.

    Example: invar canon fixtures/x86/figure1b.s
    """
    units = select_units(file, lang, function)
    note_unused_pins(file, units, pin or (), function)
    with Records(fmt) as out:
        for unit in units:
            with unit_errors(file, out, unit):
                program, first = canonical(unit, pins=pin or ())
                text = program.render()
                if fmt is TextFormat.text:  # a file of several units: each under a comment naming it
                    head = f"{frontend_of(unit.lang).comment} {unit.name}\n" if several(units) else ""
                    stdout.print(head + text, markup=False)
                out.emit({"schema": SCHEMA, "unit": unit.name, "text": text, "referents": dict(first.mapping)})
