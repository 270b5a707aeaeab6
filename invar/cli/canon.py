"""``invar canon``: the canonical renaming of a program."""

from __future__ import annotations

import json
from typing import Annotated, List, Optional

import typer

from ..symmetry.spaces import renaming_space
from .app import SCHEMA, FileArg, LangOpt, TextFormat, TextFormatOpt, app, command, located, select_units, stdout


@app.command()
@command
def canon(
    file: FileArg,
    pin: Annotated[Optional[List[str]], typer.Option("--pin", help="Never rename this register or name (repeatable).")] = None,
    function: Annotated[Optional[str], typer.Option("--function", help="Only this function or method (qualified name).")] = None,
    lang: LangOpt = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Print the canonical renaming of FILE: renamings of one program print alike.

    The canonical form is the first renaming in enumeration order; it is the
    preprocessing of the canonicalized baseline.

    Example: invar canon fixtures/x86/figure1b.s
    """
    for unit in select_units(file, lang, function):
        space = located(file, renaming_space, unit, pins=pin or ())
        first = space.unrank(0)
        text = space.apply(unit, first).render()
        if fmt is TextFormat.text:
            stdout.print(text, markup=False)
        else:
            print(json.dumps({"schema": SCHEMA, "unit": unit.name, "text": text, "referents": dict(first.mapping)}))
