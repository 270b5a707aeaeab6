"""One exception hierarchy for everything invar raises.

Library code raises these and never prints or exits; only ``invar.cli`` turns
them into ``FILE:LINE:COL: error: message`` and an exit status. An error is
located as far as it is known and no further: ``FILE:LINE:`` without a
column, ``FILE:`` without a line (a missing file, an option's bad value).
"""

from __future__ import annotations


class InvarError(Exception):
    """Base class of every error invar raises on purpose.

    ``path``, ``line`` and ``col`` locate the problem (1-based; 0 when unknown):
    ``path`` is the file, or for a bad setting the option that names it
    (``--lang``, ``--pin``: the library's keyword of the same name, ``lang``,
    ``pins``), or None for an error about the run as a whole.
    ``source_line`` is the offending source line, shown with a caret when known.
    """

    exit_code = 1

    def __init__(
        self, message: str, *, path: str | None = None, line: int = 0, col: int = 0, source_line: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.col = col
        self.source_line = source_line

    def located(self, path: str | None = None) -> "InvarError":
        """Return this error with ``path`` filled in when it had none."""
        if self.path is None and path is not None:
            self.path = path
        return self

    def at(self, line: int, col: int = 0, source_line: str | None = None) -> "InvarError":
        """Return this error relocated to ``line``/``col`` (used when a line parser
        is called on one line of a larger file)."""
        self.line, self.col = line, col
        if source_line is not None:
            self.source_line = source_line
        return self

    @property
    def where(self) -> str:
        """``FILE:LINE:COL`` (``FILE:LINE``, ``FILE`` where less is known; ``invar`` for an error
        about the command, not a place in an input)."""
        if self.path is None and not self.line:
            return "invar"
        where = self.path if self.path is not None else "<input>"
        # 0 is "unknown": a ``:0:0:`` would send an editor to a place that is not there
        if self.line:
            where += f":{self.line}:{self.col}" if self.col else f":{self.line}"
        return where

    def __str__(self) -> str:
        return f"{self.where}: error: {self.message}"


class ParseError(InvarError):
    """The input is not a valid program in its language."""


class UnsupportedError(ParseError):
    """The input is valid but uses a construct invar does not handle."""


class NoUnitError(ParseError):
    """The input is valid but holds no unit to work on (a Java file without a
    method with a body): an error where one program was asked for, a file
    with no function where a dataset reads a directory."""


class DataError(InvarError):
    """A dataset, label file or fixture is malformed or missing."""


class SpaceError(InvarError):
    """A transformation space was asked for something it cannot give
    (an out-of-range index, a pool too small, an intractable exact count)."""


class ModelError(InvarError):
    """A checkpoint or model configuration is unusable."""


class OutputError(InvarError):
    """A file could not be written where it was allowed to be (the disk
    full, the file system read-only, a device that refuses the bytes)."""


class UsageError(InvarError):
    """Bad command-line usage that typer itself cannot detect."""

    exit_code = 2


class PoolError(UsageError):
    """A pool of target names that cannot be used: a name that cannot name a
    variable, or an AP, in its language."""


def json_problem(err) -> str:
    """A :class:`json.JSONDecodeError`'s problem in words, for a message
    whose location is the error's own line and column: ``Unterminated
    string starting at`` reads ``Unterminated string`` (the place it names
    is that column)."""
    return err.msg.removesuffix(" at").removesuffix(" starting")
