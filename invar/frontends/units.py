"""The list a frontend returns: its units, plus the ones it had to skip.

A file can hold one function that invar cannot read (a construct it does not
support, nesting too deep) next to many it can. Failing the whole file would
lose the good ones, so ``parse_units`` returns a :class:`Units`: a plain list
of the programs it built, carrying in ``skipped`` one located
:class:`~invar.errors.ParseError` per unit it left out. Callers that only want
programs use it as the list it is; the CLI reads ``skipped`` for its summary.
Whole-file problems (a syntax error, an oversized file) still raise.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from ..errors import ParseError
from ..program import Program

#: source texts longer than this (in characters) are refused rather than parsed
MAX_CHARS = 8 * 1024 * 1024


def check_size(text: str, path: str | None) -> None:
    """ParseError when ``text`` is over :data:`MAX_CHARS`."""
    if len(text) > MAX_CHARS:
        raise ParseError(
            f"input too large ({len(text) / 1e6:.1f} MB; the limit is {MAX_CHARS / 1e6:.1f} MB)",
            path=path,
            line=1,
            col=1,
        )


#: the frontends' skip reasons, singular -> plural (a reason not here, such as
#: ``nesting too deep`` or an error's own message, reads the same for any count)
_PLURALS = {
    "syntax error": "syntax errors",
    "unsupported construct": "unsupported constructs",
    "malformed formula": "malformed formulas",
    "malformed trace": "malformed traces",
    "trace without a formula": "traces without a formula",
    "block rejected": "blocks rejected",
    "instruction rejected": "instructions rejected",
    "empty hex field": "empty hex fields",
    "odd number of hex digits": "odd numbers of hex digits",
}


class Units(list):
    """``list[Program]`` with the units that were skipped, each as its error."""

    #: one located error per skipped unit, in source order
    skipped: list[ParseError]
    #: other names a command may call a unit by -> its name (an assembly listing's labels: ``sum3`` -> ``line9``)
    aliases: dict[str, str]
    #: the names of the skipped units, where the frontend knows them (a listing's ``line237``)
    refused: set[str]

    def __init__(self, programs: Iterable[Program] = (), skipped: Iterable[ParseError] = ()) -> None:
        super().__init__(programs)
        self.skipped = list(skipped)
        self.aliases = {}
        self.refused = set()

    def skip_summary(self) -> str:
        """``"3 skipped: 2 unsupported constructs, 1 nesting too deep"``, or ``""``."""
        if not self.skipped:
            return ""
        reasons = Counter(getattr(e, "reason", None) or e.message for e in self.skipped)
        parts = ", ".join(f"{n} {_PLURALS.get(why, why) if n > 1 else why}" for why, n in reasons.items())
        return f"{len(self.skipped)} skipped: {parts}"


def skipped_of(units: list[Program]) -> list[ParseError]:
    """The skipped units of any frontend's result (empty for a plain list)."""
    return list(getattr(units, "skipped", ()))


def own_name(name: str) -> str:
    """A unit's name without the ``@LINE`` (or ``@LINE.COLUMN``) that tells it
    from units of the same name in its file (overloads, redefinitions):
    ``C.m@12`` -> ``C.m``; the name its code calls it by is the last part."""
    return name.split("@", 1)[0]


__all__ = ["Units", "own_name", "skipped_of"]
