"""``invar parse``: tokens, views, referents and read/write sets of a program."""

from __future__ import annotations

import json

from rich.table import Table

from ..program import Program
from .console import command, select_units, skipped_records, stdout
from .options import SCHEMA, FileArg, FunctionOpt, LangOpt, TableFormat, TableFormatOpt


def program_json(p: Program) -> dict:
    """The JSON form of a program (schema 1)."""
    return {
        "name": p.name,
        "lang": p.lang,
        "lines": [
            {"text": l.text, "reads": sorted(l.reads), "writes": sorted(l.writes), "block": l.block, "depth": l.depth}
            for l in p.lines
        ],
        "tokens": [
            {"text": t.text, "kind": t.kind, "view": t.view, "referent": t.referent, "line": t.line, "start": t.start}
            for t in p.tokens
        ],
        "deps": [list(d) for d in p.deps],
        "pinned": sorted(p.pinned),
    }


@command
def parse_command(
    file: FileArg, lang: LangOpt = None, function: FunctionOpt = None, fmt: TableFormatOpt = TableFormat.table
) -> None:
    """Show the tokens of FILE with their views and referents, and what each line reads and writes.

    Example: invar parse fixtures/x86/figure1a.s
    """
    units = select_units(file, lang, function)
    if fmt is TableFormat.json:
        errors = [{k: v for k, v in r.items() if k != "schema"} for r in skipped_records()]
        print(json.dumps({"schema": SCHEMA, "units": [program_json(u) for u in units], "errors": errors}, indent=2))
        return
    for unit in units:
        table = Table(title=f"{unit.name} ({unit.lang})", title_justify="left")
        for col in ("line", "token", "kind", "view", "referent"):
            table.add_column(col)
        for t in unit.tokens:
            table.add_row(str(t.line), t.text, t.kind, t.view, t.referent or "")
        stdout.print(table)
        lines = Table(show_header=True)
        for col in ("line", "text", "reads", "writes"):
            lines.add_column(col)
        for i, l in enumerate(unit.lines):
            lines.add_row(str(i), l.text, " ".join(sorted(l.reads)), " ".join(sorted(l.writes)))
        stdout.print(lines)
        if unit.pinned:
            stdout.print(f"pinned: {' '.join(sorted(p for p in unit.pinned))}", markup=False)
