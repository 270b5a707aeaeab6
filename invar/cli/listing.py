"""How many variants ``invar renamings`` and ``invar permutations`` list.

A space is often far larger than anyone reads: the 4-line block of the
design card has 524,160 renamings, and ten registers would give billions.
Piped into a program, a listing is still every variant in enumeration order
(scripts ask for what they get). On a terminal, a listing the user gave no
amount for (``--count``, ``--limit``, ``--sample``, ``--all``) shows the
first :data:`FIRST_FEW` and a note on standard error with the count and how
to ask for more. Every count a command prints beside its noun is written
by :func:`plural` ("1 pair", "2 pairs").

Imports errors and symmetry.bigint only; never a command module.
"""

from __future__ import annotations

import sys

from ..config import out_of_bounds
from ..errors import UsageError
from ..symmetry.bigint import decimal_string

#: the most samples one run may draw (``--sample``): more could never be written out
MAX_SAMPLES = sys.maxsize

#: how many variants a terminal is shown when the user chose no amount
FIRST_FEW = 10

#: the help of --all
ALL_HELP = f"List every one, also on a terminal (which otherwise shows the first {FIRST_FEW} and the count)."


def on_terminal() -> bool:
    """Whether standard output is a terminal (a person reads it)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def amount(count: bool, limit: int | None, sample: int | None, every: bool) -> tuple[int | None, bool]:
    """(the limit to enumerate with, whether to note that it was cut) for
    the options given: ``--all`` alone; without any amount on a terminal,
    the first few."""
    given = [
        name
        for name, value in (
            ("--count", count),
            ("--limit", limit is not None),
            ("--sample", sample is not None),
            ("--all", every),
        )
        if value
    ]
    if sample is not None and sample > MAX_SAMPLES:  # a stream is cut with islice, which takes no more
        raise UsageError(out_of_bounds(str(sample), "le", MAX_SAMPLES), path="--sample")
    if every and len(given) > 1:
        raise UsageError(f"--all lists every one; it does not go with {', '.join(g for g in given if g != '--all')}")
    if given or not on_terminal():
        return limit, False
    return FIRST_FEW, True


def note(what: str, total: str, unit: str | None = None) -> str:
    """The line under a listing cut to the first few: the count and how to ask for more."""
    where = f"{unit}: " if unit else ""
    return (
        f"{where}{total} {what}; the first {FIRST_FEW} are shown (--all for every one, --limit N, "
        "--sample N, or --count)"
    )


def shown_count(n: int) -> str:
    """A count for people: with thousands separators while that is cheap
    (Python's are quadratic in the digits), else the exact digits."""
    return f"{n:,}" if n < 10**60 else decimal_string(n)


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and its noun, singular for one: "1 pair", "2 pairs", "0 pairs"
    (``many``: the plural where it is not ``noun`` + s)."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"


__all__ = ["FIRST_FEW", "ALL_HELP", "on_terminal", "amount", "note", "shown_count", "plural"]
