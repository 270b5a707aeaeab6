"""``invar permutations``: the line orders that keep a program's meaning."""

from __future__ import annotations

import random
from itertools import islice
from typing import Annotated, Optional

import typer

from ..errors import UsageError
from ..frontends.registry import frontend_of
from ..program import Program
from ..symmetry.bigint import decimal_string
from ..symmetry.permutations import DEFAULT_MAX_STATES, MIXING_EPSILON, PermutationSpace
from .console import Records, command, select_units, several, stderr, unit_errors
from .listing import ALL_HELP, FIRST_FEW, amount, note, shown_count
from .options import (
    SCHEMA,
    CountOpt,
    FileArg,
    FunctionOpt,
    LangOpt,
    LimitOpt,
    SampleOpt,
    SeedOpt,
    TextFormat,
    TextFormatOpt,
)

MaxStatesOpt = Annotated[
    int,
    typer.Option(
        "--max-states", min=1, help="Down-sets one exact count may tabulate before it reports bounds instead."
    ),
]

ChainStepsOpt = Annotated[
    Optional[int],
    typer.Option(
        "--chain-steps",
        min=1,
        help="Markov chain steps per draw where a program is too wide to count "
        "(default: the certified Bubley-Dyer bound; fewer are faster and not certified).",
    ),
]

#: sampled orders carry their index when the space has at most this many
#: (past it, the index is a huge number that costs more to compute than the order)
MAX_INDEX = (1 << 63) - 1


def _count_record(unit: Program, space: PermutationSpace) -> dict:
    lower, upper = space.bounds()
    exact = space.tractable
    return {
        "schema": SCHEMA,
        "unit": unit.name,
        "lines": len(unit.lines),
        "count": lower if exact else None,
        "exact": exact,
        "lower": lower,
        "upper": upper,
        "blocks": [
            {"start": s, "end": e, "count": lo if lo == hi else None, "lower": lo, "upper": hi}
            for s, e, lo, hi in space.group_counts()
        ],
    }


@command
def permutations(
    file: FileArg,
    count: CountOpt = False,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    function: FunctionOpt = None,
    every: Annotated[bool, typer.Option("--all", help=ALL_HELP)] = False,
    fmt: TextFormatOpt = TextFormat.text,
    lang: LangOpt = None,
    max_states: MaxStatesOpt = DEFAULT_MAX_STATES,
    chain_steps: ChainStepsOpt = None,
) -> None:
    """Count, enumerate or sample the line orders that keep a program's meaning.

    An order keeps the meaning exactly when every dependency still holds (a
    linear extension of the dependency order); lines move only within their
    block, each with its body. Without --count or --sample, orders are listed
    in lexicographic order of the original line positions, the original first.
    --sample draws uniformly (exactly; by a Markov chain only where a program
    is too wide to count, with a note on stderr). Each order is printed as
    source text under a comment naming it, or with --format jsonl as
    {"unit", "index", "order", "text"}, ``order[new] = old`` (0-based);
    a sampled order's index is null where the space has more than 2^63
    orders. Samples are streamed, in constant memory. On a terminal, a
    listing without --count, --limit, --sample or --all shows the first 10
    and the count.

    Example: invar permutations fixtures/python/arith.py --function earnings --count
    """
    if count and sample is not None:
        raise UsageError("--count and --sample are exclusive")
    limit, cut = amount(count, limit, sample, every)
    units = select_units(file, lang, function)
    with Records(fmt) as out:
        if count:
            for unit in units:  # each record in its place, a failed unit's too
                with unit_errors(file, out, unit):
                    record = _count_record(unit, PermutationSpace(unit, max_states=max_states))
                    if fmt is TextFormat.text:
                        _print_count(record, many=several(units))
                    out.emit(record)
            return
        rng = random.Random(seed)
        for unit in units:
            with unit_errors(file, out, unit):
                space = PermutationSpace(unit, max_states=max_states)
                for index, t in _chosen(unit, space, rng, sample, limit, chain_steps):
                    _print_order(unit, space, index, t, fmt, out)
                if cut:
                    _note_cut(space, unit.name if several(units) else None)


def _print_order(unit: Program, space: PermutationSpace, index: int | None, t, fmt: TextFormat, out: Records) -> None:
    """One order of ``unit``: as text, a header line then the reordered
    program; else a record of ``out``."""
    text = space.render(t)  # from the lines' texts: no IR built per variant
    if fmt is TextFormat.text:
        label = f"order {index}" if index is not None else "order"
        mark = frontend_of(unit.lang).comment  # the header above each printed variant
        typer.echo(f"{mark} {unit.name}: {label}: {' '.join(map(str, t.order))}\n{text}\n")
    else:
        out.emit({"schema": SCHEMA, "unit": unit.name, "index": index, "order": list(t.order), "text": text})


def _note_cut(space: PermutationSpace, unit: str | None) -> None:
    """The note under a listing cut to the first few on a terminal: how
    many orders there are (bounds where too wide to count)."""
    lower, upper = space.bounds()
    if upper <= FIRST_FEW:
        return
    total = shown_count(lower) if lower == upper else f"between {shown_count(lower)} and {shown_count(upper)}"
    stderr.print(note("orders", total, unit), markup=False)


def _print_count(r: dict, many: bool) -> None:
    """Like ``invar renamings --count``: a bare number for the unit of a
    file of one, ``name: number`` in a file of ``many``, so shell pipelines
    can read it."""
    # exact digits however long, written in near-linear time
    shown = (
        decimal_string(r["count"])
        if r["exact"]
        else f"between {decimal_string(r['lower'])} and {decimal_string(r['upper'])} (too wide to count exactly)"
    )
    typer.echo(f"{r['unit']}: {shown}" if many else shown)


def _chosen(
    unit: Program,
    space: PermutationSpace,
    rng: random.Random,
    sample: int | None,
    limit: int | None,
    chain_steps: int | None,
):
    """(index or None, order) of the orders asked for: ``sample`` streamed
    draws, else the first ``limit`` in enumeration order."""
    if sample is None:
        return enumerate(space.enumerate(limit))
    if not space.exact_sampling:
        needed = space.chain_steps_needed
        if chain_steps is None:
            note = f"within {MIXING_EPSILON} of uniform in total variation: {needed:,} steps per draw"
        else:
            note = (
                f"{chain_steps:,} steps per draw as asked, not the {needed:,} that certify "
                f"{MIXING_EPSILON} of uniform: draws are not certified"
            )
        stderr.print(
            f"{unit.name}: too wide to count exactly; sampling by the Bubley-Dyer chain ({note})", markup=False
        )
    # streamed; an index is given where one fits in 63 bits
    indexed = space.tractable and space.count() <= MAX_INDEX
    stream = space.samples(rng, chain_steps=chain_steps)
    return ((space.rank(t) if indexed else None, t) for t in islice(stream, sample))
