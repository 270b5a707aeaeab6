"""``invar dlg``: layers, edges and symmetry mask of a program's dependencies."""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from ..errors import UsageError
from ..program import Program
from ..symmetry.dlg import DLG, dlg as build_dlg
from ..symmetry.masks import symmetry_mask
from .listing import plural
from .console import command, select_units, skipped_records, stdout
from .options import SCHEMA, FileArg, FunctionOpt, LangOpt


class DlgFormat(str, enum.Enum):
    text = "text"
    json = "json"
    dot = "dot"


#: --mask prints a lines × lines matrix: above this many lines it would be too large to read (or build)
MASK_MOST_LINES = 4096
MaskOpt = Annotated[bool, typer.Option("--mask", help="Also print the line-level symmetry mask (text and json).")]
DlgFormatOpt = Annotated[DlgFormat, typer.Option("--format", help="Output format.")]


def _dot(unit: Program, graph: DLG) -> str:
    def quote(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    out = [f"digraph {quote(unit.name or 'program')} {{", '  node [shape=box, fontname="monospace"];']
    for i, line in enumerate(unit.lines):
        out.append(f"  n{i} [label={quote(f'{i}: {line.text.strip()}')}];")
    for layer in graph.layers:
        out.append("  { rank=same; " + " ".join(f"n{i};" for i in layer) + " }")
    out.extend(f"  n{i} -> n{j};" for i, j in graph.edges)
    out.append("}")
    return "\n".join(out)


@command
def dlg(
    file: FileArg,
    function: FunctionOpt = None,
    fmt: DlgFormatOpt = DlgFormat.text,
    mask: MaskOpt = False,
    lang: LangOpt = None,
) -> None:
    """Print the directed layered graph of each function or block.

    Layer 0 holds the lines that depend on no other; every other line sits at
    the length of its longest dependency path. Lines are numbered from 0. With
    --mask, also the symmetry mask (SPE Definition 4.4): row i, column j is 1
    when lines i and j share a layer or j depends directly on i. Sharing a
    layer does not make lines swappable; see ``invar permutations``.

    Example: invar dlg fixtures/python/arith.py --function earnings --mask
    """
    if mask and fmt is DlgFormat.dot:
        raise UsageError("--mask is shown in text and json formats, not dot")
    units = select_units(file, lang, function)
    records = skipped_records()  # every unit has its record in JSON, a failed one its location and error
    for unit in units:
        if mask and len(unit.lines) > MASK_MOST_LINES:
            raise UsageError(
                f"--mask of {unit.name} would be {len(unit.lines):,} × {len(unit.lines):,}; "
                f"it is shown for at most {MASK_MOST_LINES:,} lines",
                path=file,
            )
        graph = build_dlg(unit)
        if fmt is DlgFormat.dot:
            typer.echo(_dot(unit, graph))
            continue
        record = {
            "schema": SCHEMA,
            "unit": unit.name,
            "lines": [line.text for line in unit.lines],
            "layers": [list(layer) for layer in graph.layers],
            "edges": [list(e) for e in graph.edges],
        }
        if mask:
            record["mask"] = symmetry_mask(unit).astype("uint8").tolist()
        if fmt is DlgFormat.json:
            records.append(record)
            continue
        table = Table(
            "line",
            "layer",
            "text",
            "after",
            title=Text(f"{unit.name}: {plural(len(unit.lines), 'line')}, {plural(graph.depth, 'layer')}"),
        )
        preds: dict[int, list[int]] = {}
        for i, j in graph.edges:
            preds.setdefault(j, []).append(i)
        for i, line in enumerate(unit.lines):
            table.add_row(str(i), str(graph.layer_of[i]), Text(line.text.strip()), " ".join(map(str, preds.get(i, []))))
        stdout.print(table)
        if mask:
            stdout.print("symmetry mask (row -> column):", markup=False)
            for i, row in enumerate(record["mask"]):
                stdout.print(f"{i:>4} " + "".join(map(str, row)), markup=False, highlight=False)
    if fmt is DlgFormat.json:
        typer.echo(json.dumps(records))
