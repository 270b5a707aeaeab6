"""The options and formats that several commands share.

Declarations only: ``Annotated`` option types, the output formats and the
version of the JSON schemas. Imports typer and nothing of invar; no command
module is imported here (each command imports what it needs from this module
and from :mod:`.console`; :mod:`.app` lists the commands).
"""

from __future__ import annotations

import enum
import re
from typing import Annotated, Optional

import typer


def terminal_help(text: str) -> str:
    """A help text as a terminal shows it: each reST literal ``x`` written
    'x' (docs/cli.md, Markdown, keeps the backticks)."""
    return re.sub(r"``(.+?)``", r"'\1'", text)


def split_commas(values: list[str] | None) -> list[str] | None:
    """The values of a repeatable option that also takes a comma list
    (``--pin rax,rbx`` is ``--pin rax --pin rbx``), empty parts dropped."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


FileArg = Annotated[str, typer.Argument(help="Input file, or - for standard input.", metavar="FILE")]


def _language(lang: str | None) -> str | None:
    """``--lang X86`` is x86; a name of no language stays as given, for the command's error to show."""
    from ..frontends import LANGS

    return lang.lower() if lang and lang.lower() in LANGS else lang


LangOpt = Annotated[
    Optional[str],
    typer.Option(
        "--lang",
        help="Language (x86, hex, python, java, ltl); default: from the file extension.",
        callback=lambda lang: _language(lang),
    ),
]
PinOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--pin",
        metavar="NAME",
        callback=split_commas,
        help="Never rename this register or name (repeatable, or a comma list: --pin rax,rbx; outside x86, one "
        "no unit spells is noted).",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for every random choice.")]
CountOpt = Annotated[bool, typer.Option("--count", help="Print the exact number of transformations.")]
LimitOpt = Annotated[
    Optional[int], typer.Option("--limit", min=0, help="Enumerate at most N, in the documented order.")
]
SampleOpt = Annotated[
    Optional[int], typer.Option("--sample", min=0, help="Draw N uniformly at random (with replacement), streamed.")
]


class TextFormat(str, enum.Enum):
    text = "text"
    jsonl = "jsonl"
    json = "json"


class TableFormat(str, enum.Enum):
    table = "table"
    json = "json"


TextFormatOpt = Annotated[TextFormat, typer.Option("--format", help="Output format.")]
TableFormatOpt = Annotated[TableFormat, typer.Option("--format", help="Output format.")]

#: version of the JSON schemas written with --format json/jsonl
SCHEMA = 1
FunctionOpt = Annotated[
    Optional[str],
    typer.Option(
        "--function",
        help=(
            "Only the unit NAME: a function or method (qualified, or its last parts if unique), or a block of a file "
            "of several or a formula of an LTL file (lineN: its first line)."
        ),
    ),
]


class Device(str, enum.Enum):
    cpu = "cpu"
    cuda = "cuda"


class LexinvariantTable(str, enum.Enum):
    own = "own"
    along = "along"


LexinvariantTableOpt = Annotated[
    LexinvariantTable,
    typer.Option(
        "--lexinvariant-table",
        help="How a lexinvariant language model reads each lexical permutation: "
        "with its own random table (own: invariance in distribution) or with the table permuted along the "
        "renaming (along: exact invariance). A learned model's table is fixed: the report says so. Only "
        "for language models.",
    ),
]
