"""``invar renamings``: count, enumerate or sample semantics-preserving renamings."""

from __future__ import annotations

import random
from itertools import islice
from typing import Annotated, Optional

import typer

from ..errors import PoolError, UsageError
from ..symmetry.bigint import decimal_string
from ..symmetry.renamings import Renaming, RenamingSpace
from ..symmetry.spaces import renaming_space
from .console import Records, command, note_unused_pins, select_units, several, stderr, stdout, unit_errors
from .listing import ALL_HELP, FIRST_FEW, amount, note, plural, shown_count
from .options import PinOpt, SCHEMA, CountOpt, FileArg, LangOpt, LimitOpt, SampleOpt, SeedOpt, TextFormat, TextFormatOpt


def first_tokens(space: RenamingSpace) -> dict:
    """Each referent's first token, which names it in a shown mapping."""
    first = {}
    for tok in space.program.tokens:
        if tok.referent is not None and tok.referent not in first:
            first[tok.referent] = tok
    return first


def shown_mapping(space: RenamingSpace, renaming: Renaming, first: dict | None = None) -> dict[str, str]:
    """The renaming as surface names: first spelling of each referent -> its new spelling."""
    first = first_tokens(space) if first is None else first
    return {first[r].text: space.spell(first[r], t) for r, t in renaming.mapping if r in first}


def parse_pool(names: str | None) -> list[str] | None:
    """``a,b,c``, ``v0..v9`` or ``@file`` (one name per line) -> a list of names."""
    if names is None:
        return None
    if names.startswith("@"):
        from .console import read_text

        out = read_text(names[1:]).split()
    else:
        out = [name for part in names.split(",") for name in _names_of(part.strip())]
    if not out:
        raise UsageError(f"the name pool {names!r} holds no name")
    if len(set(out)) != len(out):
        raise UsageError("the name pool repeats a name")
    return out


def _names_of(part: str) -> list[str]:
    """One comma-separated part of a pool: a name, a range ``v0..v9``, or nothing."""
    if ".." not in part:
        return [part] if part else []
    lo, hi = part.split("..", 1)
    stem = lo.rstrip("0123456789")
    if not stem or not hi.startswith(stem) or not lo[len(stem) :].isdigit() or not hi[len(stem) :].isdigit():
        raise UsageError(f"bad name range {part!r}; write e.g. v0..v9")
    first, last = int(lo[len(stem) :]), int(hi[len(stem) :])
    if first > last:
        raise UsageError(f"the name range {part!r} is empty; write its lower end first")
    return [f"{stem}{i}" for i in range(first, last + 1)]


@command
def renamings(
    file: FileArg,
    count: CountOpt = False,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    pin: PinOpt = None,
    names: Annotated[
        Optional[str],
        typer.Option("--names", help="Pool of target names of Python and Java units: a,b,c or v0..v9 or @FILE."),
    ] = None,
    aps: Annotated[
        Optional[str], typer.Option("--aps", help="Pool of atomic propositions of LTL formulas (LTL only): a,b,c,d,e.")
    ] = None,
    function: Annotated[
        Optional[str],
        typer.Option(
            "--function",
            help="Only this unit: a function or method (qualified, or its last parts if unique), or a block of a "
            "file of several or a formula of an LTL file (lineN: its line).",
        ),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help=ALL_HELP)] = False,
    lang: LangOpt = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Count, enumerate or sample the renamings of FILE that keep its meaning.

    Registers of x86 blocks, local variables of Python and Java functions,
    atomic propositions of LTL formulas. Enumeration is lexicographic (see
    docs/formats.md); sampling is exactly uniform and reproducible by --seed.
    On a terminal, a listing without --count, --limit, --sample or --all
    shows the first 10 and the count.

    Example: invar renamings fixtures/x86/figure1a.s --count
    """
    if sum(x is not None and x is not False for x in (count or None, limit, sample)) > 1:
        raise UsageError("choose one of --count, --limit and --sample")
    if names is not None and aps is not None:
        raise UsageError("--names and --aps both give the pool; use one")
    try:
        pool = parse_pool(names if names is not None else aps)
    except UsageError as err:  # a pool that cannot be read: at its option
        raise UsageError(err.message, path="--names" if names is not None else "--aps") from None
    limit, cut = amount(count, limit, sample, every)
    units = select_units(file, lang, function)
    _check_pool_option(units, names, aps)
    note_unused_pins(file, units, pin or (), function)
    rng = random.Random(seed)
    many = several(units)
    with Records(fmt) as out:
        for unit in units:
            with unit_errors(file, out, unit):
                space = _space(unit, pool, pin, "--names" if names is not None else "--aps")
                if pool is not None:
                    _note_small_pool(space, pool, unit.name)
                if count:
                    n = space.count()
                    if fmt is TextFormat.text:
                        shown = decimal_string(n)  # exact, however long: in near-linear time
                        stdout.print(f"{unit.name}: {shown}" if many else shown, markup=False)
                    out.emit({"schema": SCHEMA, "unit": unit.name, "count": n})
                    continue
                if sample is not None:  # streamed: constant memory whatever N is
                    picked = ((space.rank(r), r) for r in islice(space.samples(rng), sample))
                else:
                    picked = ((None, r) for r in space.enumerate(limit))
                _print_renamings(space, unit.name, many, picked, out)
                if cut and (n := space.count()) > FIRST_FEW:
                    stderr.print(note("renamings", shown_count(n), unit.name if many else None), markup=False)


def _check_pool_option(units, names: str | None, aps: str | None) -> None:
    """UsageError unless the pool comes by the option of the units'
    language: --aps for LTL formulas, --names for Python and Java units
    (x86 renamings take no pool: its frontend says so)."""
    langs = {unit.lang for unit in units}
    if aps is not None and langs - {"ltl"}:
        others = sorted(langs - {"ltl"})
        takes = "take --names" if set(others) <= {"python", "java"} else "take no --aps"
        raise UsageError(
            f"--aps is the pool of an LTL formula's APs; {', '.join(others)} renamings {takes}", path="--aps"
        )
    if names is not None and "ltl" in langs:
        raise UsageError("LTL renamings draw their APs from --aps, not --names", path="--names")


def _note_small_pool(space: RenamingSpace, pool: list[str], unit: str) -> None:
    """A note on standard error when ``pool`` leaves ``unit`` no renaming at
    all (fewer usable names than referents to rename): the count 0 is true,
    and the note says why."""
    usable = set(space.allowed[0]) if space.allowed else set(pool)
    if len(usable) >= len(space.referents):
        return
    kept = [name for name in pool if name not in usable]
    why = f" ({', '.join(kept)}: kept by the unit)" if kept else ""
    stderr.print(
        f"note: {unit}: no renaming: {plural(len(space.referents), 'referent')} to rename, "
        f"{plural(len(usable), 'usable name')} in the pool of {len(pool)}{why}",
        markup=False,
    )


def _space(unit, pool: list[str] | None, pins, option: str):
    """The renaming space of ``unit``; a pool its language cannot use is a
    usage error at ``option``."""
    try:
        return renaming_space(unit, pool=pool, pins=pins or ())
    except PoolError as err:
        err.path = option
        raise


def _print_renamings(space, unit: str, many: bool, picked, out: Records) -> None:
    """Each (index or None, renaming) of ``picked`` of unit ``unit``, as text
    (a header line, naming the unit when the file holds ``many``, then the
    renamed program) or a record of ``out``."""
    first = first_tokens(space)
    for k, (index, r) in enumerate(picked):
        text = space.render(r)  # the renamed text from a template: no IR built per variant
        mapping = shown_mapping(space, r, first)
        if out.fmt is TextFormat.text:
            head = ", ".join(f"{a}->{b}" for a, b in mapping.items() if a != b) or "identity"
            where = f"{unit} " if many else ""
            # plain writes: a variant is printed exactly as rendered, and
            # a long one costs no per-line styling
            typer.echo(f"# {where}renaming {decimal_string(index if index is not None else k)}: {head}")
            typer.echo(text)
        else:
            record = {
                "schema": SCHEMA,
                "unit": unit,
                "index": index if index is not None else k,
                "mapping": mapping,
                "referents": dict(r.mapping),
                "text": text,
            }
            out.emit(record)
