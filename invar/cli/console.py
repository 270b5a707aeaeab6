"""What every command shares at run time: the consoles, reading input, and
how a command ends.

A command is wrapped by :func:`command`, which turns an
:class:`~invar.errors.InvarError` into a located one-line message and an exit
status (1 bad input, 2 usage) and lets no traceback reach the user.

Interrupts: Ctrl-C (SIGINT) and SIGTERM raise KeyboardInterrupt wherever the
command is, so that its ``with``/``finally`` blocks run (temporary files
removed, locks released, worker processes stopped and reaped); the command
then says ``interrupted`` and the process leaves at once with 130 (SIGINT)
or 143 (SIGTERM), without waiting for threads still blocked on I/O
(:func:`run`). A signal before the command starts (its arguments being
read) or after it ends (the process exiting) ends it the same way, with the
same one line or none; a second signal while the first is acted on ends it
at once (:mod:`invar.interrupts` has the stages, from the first import on).
A process started with a signal ignored (a background job of a
non-interactive shell ignores SIGINT, as POSIX asks) keeps ignoring it.

Imports ``errors``, ``interrupts`` and ``frontends`` (lazily) only; never a
command module.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import functools
import gc
import os
import re
import sys
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import typer
from rich.console import Console

from .. import interrupts
from ..errors import InvarError
from ..interrupts import Terminated  # noqa: F401 - where it was first defined
from ..symmetry.bigint import json_dumps
from .options import SCHEMA, TextFormat

stdout = Console(soft_wrap=True, highlight=False, emoji=False)
stderr = Console(stderr=True, soft_wrap=True, highlight=False, emoji=False)


# ------------------------------------------------------------- input reading
def read_bytes(path: str) -> bytes:
    """The bytes of ``path`` (``-`` for stdin), or a located InvarError."""
    shown = "<stdin>" if path == "-" else path
    try:
        return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise InvarError("no such file", path=shown)
    except IsADirectoryError:
        raise InvarError("is a directory, not a file", path=shown)
    except OSError as err:
        raise InvarError(f"cannot read: {err.strerror}", path=shown)


def read_text(path: str, lang: str | None = None) -> str:
    """Read ``path`` (``-`` for stdin) as text in ``lang``'s encoding rules
    (:func:`invar.frontends.decode`; UTF-8 when no language is given)."""
    from ..frontends import decode

    data = read_bytes(path)
    return decode(data, lang or "", "<stdin>" if path == "-" else path)


def load_units(path: str, lang: str | None):
    """Read and parse ``path`` into its units (see :func:`invar.frontends.parse_units`)."""
    from ..frontends import decode, lang_of, parse_units

    shown = "<stdin>" if path == "-" else path
    data = read_bytes(path)  # an unreadable file is reported before anything else
    language = lang_of(None if path == "-" else path, lang)
    return parse_units(decode(data, language, shown), language, shown)


#: units skipped by the current command (reported as they are found; the
#: command then exits 1 after processing everything else)
_skipped: list[InvarError] = []


def error_record(err: InvarError) -> dict:
    """A unit that failed, as ``--format json``/``jsonl`` show it in place of
    its output: its location and the message (what stderr said of it)."""
    return {"schema": SCHEMA, "location": err.where, "error": err.message}


def skipped_records() -> list[dict]:
    """The units the current command's frontends skipped, each as its :func:`error_record`."""
    return [error_record(err) for err in _skipped]


class Records:
    """A command's records as ``--format`` asks: ``jsonl`` one a line,
    ``json`` one array streamed record by record (constant memory however
    many), text nothing (the command prints its own). It opens with the
    units the frontends skipped (:func:`skipped_records`), so every unit of
    the input has its record, a failed one its location and error."""

    def __init__(self, fmt: TextFormat) -> None:
        self.fmt, self.opened = fmt, False
        for record in skipped_records():
            self.emit(record)

    def emit(self, record: dict) -> None:
        if self.fmt is TextFormat.jsonl:
            typer.echo(json_dumps(record))
        elif self.fmt is TextFormat.json:
            typer.echo(("," if self.opened else "[") + json_dumps(record))
            self.opened = True

    def close(self) -> None:
        if self.fmt is TextFormat.json:
            typer.echo("]" if self.opened else "[]")

    def __enter__(self) -> "Records":
        return self

    def __exit__(self, *exc) -> None:
        """Close the array when the records end, and when an error ends them:
        standard output stays one JSON document. An interrupt leaves it
        open: what was written is not all."""
        if exc[0] is None or issubclass(exc[0], Exception):
            self.close()


@contextlib.contextmanager
def unit_errors(path: str, out: Records, unit) -> Iterator[None]:
    """Inside, an InvarError is ``unit``'s (a space that cannot be built, an
    order past what can be counted): reported at its location (the unit's
    first line where the error names none), its record emitted with the
    unit's name, exit status 1 at the end, and the command goes on with the
    next unit. A usage error still ends the command."""
    from ..errors import UsageError

    try:
        yield
    except UsageError:
        raise
    except InvarError as err:
        err = err.located("<stdin>" if path == "-" else path)
        if not err.line and unit.lines and unit.lines[0].source_line:
            err.at(unit.lines[0].source_line)
        report(err)
        _skipped.append(err)
        out.emit({**error_record(err), "unit": unit.name})


def select_units(path: str, lang: str | None, function: str | None = None):
    """The units of ``path``, or the one named ``function`` (qualified, or its
    last parts when unique: ``m``, ``Q.m`` for ``A.Q.m``). Units the frontend had to skip are reported on
    stderr, each with its location, followed by a summary line; the command
    still processes the rest and then exits 1. A ``--function`` that names a
    unit read well picks it alone: the other units' errors are not its own,
    so they are neither shown nor counted in the exit status (they are, above
    the usage error, when ``--function`` names no unit read well)."""
    units = load_units(path, lang)
    if function is None:  # several units read, or skipped: each shown under its name
        _report_skipped(path, units)
        return Selected(units, several=len(units) + len(getattr(units, "skipped", ())) > 1)
    try:
        return _named_unit(path, units, function)
    except InvarError:
        _report_skipped(path, units)
        raise


def _report_skipped(path: str, units) -> None:
    """Each unit the frontend skipped, located, then the summary line; the
    command will exit 1."""
    skipped = list(getattr(units, "skipped", ()))
    shown = "<stdin>" if path == "-" else path
    for err in skipped:
        report(err.located(shown))
    if skipped:
        stderr.print(f"{shown}: {units.skip_summary()}", markup=False)
        _skipped.extend(skipped)


def _named_unit(path: str, units, function: str) -> list:
    """The unit of ``units`` that ``function`` names (see :func:`select_units`)."""
    from ..errors import UsageError
    from ..frontends.units import own_name

    # a space is no part of a name: an LTL file's ``line 2`` is also ``line2``, as an assembly file's blocks are named
    exact = [u for u in units if u.name.replace(" ", "") == function.replace(" ", "")]
    aliased = getattr(units, "aliases", {}).get(function)  # a listing's block by its label: ``sum3``, ``.L3``
    exact = exact or [u for u in units if u.name == aliased]
    short = [u for u in units if _last_part(u.name) == function]
    # or its trailing parts: ``Pt.Pt`` for ``Shapes.Pt.Pt``, ``Q.m`` for ``A.Q.m``
    tail = [u for u in units if "." in function and u.name.endswith("." + function)]
    if exact or len(short) == 1 or not short and len(tail) == 1:
        return exact or short or tail
    # a name that overloads or redefinitions share (each named apart by its @LINE)
    shared = (
        short
        or tail
        or [u for u in units if function in (own_name(u.name), _last_part(own_name(u.name)))]
        or [u for u in units if own_name(u.name).endswith("." + function)]
    )
    if shared:
        raise UsageError(f"--function {function!r} is ambiguous: {', '.join(u.name for u in shared)}", path=path)
    refused = getattr(units, "refused", set())
    if function in refused or aliased in refused:
        raise UsageError(f"--function {function!r}: that block was refused (its error is above)", path=path)
    labels: dict[str, list[str]] = {}  # a listing's blocks are also named by their labels
    for label, name in getattr(units, "aliases", {}).items():
        labels.setdefault(name, []).append(label)
    names = ", ".join(u.name + (f" ({', '.join(labels[u.name])})" if u.name in labels else "") for u in units)
    raise UsageError(f"no function {function!r} (found: {names or 'none'})", path=path)


class Selected(list):
    """The units a command works on; ``several``: whether the file held
    more than one (some perhaps skipped), so that each is shown under its name."""

    def __init__(self, units=(), several: bool | None = None) -> None:
        super().__init__(units)
        self.several = len(self) > 1 if several is None else several


def several(units) -> bool:
    """Whether ``units`` are shown each under its name (:class:`Selected`; any other list: more than one)."""
    return getattr(units, "several", len(units) > 1)


def _last_part(name: str) -> str:
    """A unit's name without its enclosing types or functions, its ``@LINE``
    kept: ``A.m@12`` -> ``m@12``, ``f.<locals>.g`` -> ``g``."""
    from ..frontends.units import own_name

    own = own_name(name)
    return own.rsplit(".", 1)[-1] + name[len(own) :]


def note_unused_pins(path: str, units, pins, function: str | None = None) -> None:
    """A note on standard error for each ``--pin`` that no unit of ``path``
    (the one ``--function`` picked) spells or refers to: most likely a
    misspelt name, which pins nothing (it still keeps that name from being a
    target, so it is not refused). A language that spells a name by its view
    (x86: ``%eax`` and ``%rax`` are one register) checks its own pins."""
    from ..frontends import frontend_of

    seen: set[str] = set()
    for unit in units:
        if frontend_of(unit.lang).spell:
            return
        seen.update(t.text for t in unit.tokens)
        seen.update(r for t in unit.tokens if t.referent is not None for r in (t.referent, t.referent.split(":")[-1]))
    shown = "<stdin>" if path == "-" else path
    where = f"{units[0].name} of {shown}" if function is not None and units else shown
    for pin in dict.fromkeys(pins):
        if pin not in seen:
            stderr.print(f"note: --pin {pin!r}: no name or referent of that spelling in {where}", markup=False)


def located(path: str, fn, *args, **kwargs):
    """Call ``fn``; an InvarError it raises without a path gets ``path``."""
    try:
        return fn(*args, **kwargs)
    except InvarError as err:
        raise err.located("<stdin>" if path == "-" else path)


# ------------------------------------------------------------------- progress
@contextlib.contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar of ``what`` (files, formulas …) on standard error, only
    when it is a terminal (a log or a pipe gets no bar, and no blank line
    where it was): yields ``update(done, total)``, or None."""
    if not stderr.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=stderr, transient=True
    ) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


# ---------------------------------------------------------- error translation
F = TypeVar("F", bound=Callable)


def report(err: InvarError) -> None:
    """Print ``err`` as ``FILE:LINE:COL: error: message`` (one line) on stderr;
    where the error knows its source line and column, that line and a caret
    under the column follow, as a compiler shows them (tools read the first line)."""
    stderr.print(str(err), markup=False, highlight=False)
    for line in caret_lines(err):
        stderr.print(line, markup=False, highlight=False)


def caret_lines(err: InvarError) -> list[str]:
    """The source line of ``err`` and a caret under its column (1-based), or
    nothing when either is unknown.

    >>> from invar.errors import ParseError
    >>> caret_lines(ParseError("empty operand", path="a.s", line=1, col=11, source_line="movq %rax,"))
    ['  movq %rax,', '            ^']

    Tabs before the column move the caret as they move the text (gcc's listings indent with one):

    >>> caret_lines(ParseError("x", line=1, col=7, source_line=chr(9) + "movq %rxx, %rax"))
    ['          movq %rxx, %rax', '               ^']

    A long line is cut to :data:`EXCERPT` characters around the column:

    >>> line, caret = caret_lines(ParseError("x", line=1, col=5000, source_line="a" * 4999 + "!" + "b" * 5000))
    >>> len(line), line[line.index("!") - 1 : line.index("!") + 2], caret.index("^") == line.index("!")
    (104, 'a!b', True)
    """
    if not err.source_line or not err.col:
        return []
    raw = err.source_line.rstrip("\n")
    if err.col > len(raw) + 1:
        return []
    text = raw.expandtabs(8)
    col = len(raw[: err.col - 1].expandtabs(8)) + 1  # the column as shown, tabs expanded before it
    if len(text) > EXCERPT:  # a window of the line around the column, not the whole of a long one
        start = max(0, min(col - 1 - EXCERPT // 2, len(text) - EXCERPT))
        head, tail = ("…" if start else ""), ("…" if start + EXCERPT < len(text) else "")
        text, col = head + text[start : start + EXCERPT] + tail, col - start + len(head)
    return [f"  {text}", "  " + " " * (col - 1) + "^"]


#: the longest excerpt of a source line shown under an error (characters)
EXCERPT = 100


def usage_line(err) -> str:
    """A usage error of the command line (click's: an option's bad value, an
    unknown option, a missing argument) as one line, as every other error
    is: ``--limit: error: -1 is below the least allowed, 0 (invar renamings -h)``."""
    param = getattr(err, "param", None)
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    where = max(opts, key=len) if opts and getattr(err, "message", None) else "invar"
    message = err.message if where != "invar" else err.format_message()
    path = getattr(getattr(err, "ctx", None), "command_path", None)
    helped = f" ({path} -h)" if path else ""
    said = (
        _value_refused(err.__cause__)
        or _stray_argument(err)
        or " ".join(str(message).split()).removeprefix("Value error, ").rstrip(".")
    )
    return f"{where}: error: {said}{helped}"


#: click's words for a word that names no subcommand (its own class is not typer's: the words are what both share)
_NO_SUCH_COMMAND = re.compile(r"No such command ('.*'|\".*\")\.?", re.S)


def _stray_argument(err) -> str | None:
    """What a group that runs on its own options (``invar audit``) makes of
    a word that is none of its subcommands: a stray argument, most often an
    option's second value (``--fail-over a=0 b=0``), not a misspelt command;
    None for any other error."""
    ctx = getattr(err, "ctx", None)
    group = getattr(ctx, "command", None)
    found = _NO_SUCH_COMMAND.fullmatch(str(getattr(err, "message", "")))
    if found is None or not getattr(group, "invoke_without_command", False):
        return None
    word = ast.literal_eval(found[1])
    commands = ", ".join(sorted(getattr(group, "commands", {})))
    said = f"unexpected argument {word!r}: {ctx.command_path} takes options alone (its subcommands: {commands})"
    if "=" in word:  # METRIC=VALUE, NAME=VALUE: the second value of an option given once
        said += "; give a repeatable option once per value (--fail-over A=1 --fail-over B=2)"
    return said


#: what an option's value failed to read as, by pydantic's error type
_NOT_A = {"int_parsing": "a whole number", "float_parsing": "a number", "bool_parsing": "true or false"}


def _value_refused(cause) -> str | None:
    """What typer's check of an option's value (a pydantic ``ValidationError``,
    the usage error's cause) refused, with the value the user gave and in
    the words invar's own checks use: ``-3 is below the least allowed, 0``,
    ``'abc' is not a whole number``; None for any other cause (its own
    message stands)."""
    errors = getattr(cause, "errors", None)
    if not callable(errors) or not (found := errors()):
        return None
    kind, given, ctx = found[0].get("type"), found[0].get("input"), found[0].get("ctx") or {}
    if kind in _NOT_A:
        return f"{given!r} is not {_NOT_A[kind]}"
    kinds = ("ge", "le", "gt", "lt")
    bound = next(((k, v) for k, v in ctx.items() if k in kinds and isinstance(v, (int, float))), None)
    if bound is None or not isinstance(given, str):
        return None
    if given.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return f"{given}: give a finite number"
    from ..config import out_of_bounds  # the words of invar's own check of a config's bounds

    return out_of_bounds(given, *bound)


def show_usage_error(err, shown=None) -> None:
    """Print a usage error as :func:`usage_line` on stderr; ``shown``: how
    typer would have shown it, for the one that is the help itself (invar
    run with no command)."""
    if type(err).__name__ == "NoArgsIsHelpError" and shown is not None:
        shown(err)
        return
    stderr.print(usage_line(err), markup=False, highlight=False)


#: the exit status of the command that an interrupt stopped (run() then leaves at once)
_interrupted: list[int] = []
#: whether this process is the command line (run() is running it): an interrupt then ends the process
_command_line: list[bool] = []


def _stopped(code: int) -> None:
    """The command stops for an interrupt: its status is ``code`` (the
    first one's, if more come), and it says so once."""
    if _interrupted:
        return
    _interrupted.append(code)
    if _command_line:
        interrupts.finishing(code)  # another signal now ends the process, silently
    stderr.print(interrupts.SAID, markup=False)


def command(fn: F) -> F:
    """Wrap a command so that InvarError becomes a located message and an exit
    status, and nothing unexpected reaches the user as a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _skipped.clear()
        _interrupted.clear()
        try:
            result = fn(*args, **kwargs)
            if _skipped:
                raise typer.Exit(1)
            return result
        except InvarError as err:
            report(err)
            raise typer.Exit(err.exit_code)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except KeyboardInterrupt as err:
            _stopped(interrupts.status(err))
            raise typer.Exit(_interrupted[0])
        except BrokenPipeError:
            raise typer.Exit(0)
        except Exception as err:  # a bug in invar: still one line, still no traceback
            stderr.print(f"invar: internal error: {type(err).__name__}: {err}", markup=False)
            raise typer.Exit(70)

    return wrapper  # type: ignore[return-value]


def run(app: typer.Typer) -> None:
    """Run ``app`` as this process's command line: SIGTERM interrupts as
    Ctrl-C does, at any moment, and after an interrupt the process leaves
    at once."""
    interrupts.take_over()
    _command_line[:] = [True]
    try:
        app()
    except KeyboardInterrupt as err:  # before a command started
        _stopped(interrupts.status(err))
    except SystemExit:
        first = interrupts.signalled()
        if not _interrupted and first is None:
            interrupts.finishing()  # the command has ended: a signal now only ends the exit
            raise
        if not _interrupted:  # typer ends an interrupt outside the command with a silent 130, SIGTERM's too
            _stopped(128 + first)
    _leave_now(_interrupted[0])


def _leave_now(code: int) -> None:
    """Exit with ``code`` at once: the command's cleanups have run, and
    threads still blocked on I/O (an HTTP request, say) are not waited for.
    What the command left unreachable is collected and the exit functions
    run first (a stopped pool's semaphores are released: otherwise
    multiprocessing's resource tracker warns of them); only the joining of
    threads is skipped."""
    interrupts.finishing(code)
    gc.collect()
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # CPython's, as at a normal exit
    if run_exit_functions is not None:
        run_exit_functions()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe: nothing more can be said
            pass
    os._exit(code)
