"""Atomic file writes (a reader sees the old file or the new one, never half
of one), and text read so that one bad byte spoils one row, not the file."""

from __future__ import annotations

import glob
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

from .errors import DataError, OutputError


def default_mode() -> int:
    """The permissions a newly created file gets under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_target(path: str | os.PathLike) -> tuple[Path, bool]:
    """Where a write to ``path`` lands (a symbolic link followed to its
    target), and whether it is written in place: a device or a pipe, which
    no file may replace, where a regular file (or a new one) is replaced whole."""
    real = Path(os.path.realpath(path))
    return real, real.exists() and not real.is_file()


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a temporary file beside ``path``, flush it to disk,
    and rename it over ``path``; on any failure (a kill included) the old
    ``path`` is untouched and the temporary file is removed when possible.
    Ctrl-C waits for the write to end (code such as ``torch.save`` would
    turn it into an error of its own) and then stops the program.

    A symbolic link is followed (its target is what gets replaced, as the
    shell's ``>`` writes through it), and a path that is no regular file (a
    device such as ``/dev/stdout``, a pipe) is written to directly: renaming
    over it would replace the device with a file. A failure of the file
    system is an :class:`OutputError` at ``path``."""
    from .interrupts import deferred

    shown = os.fspath(path)
    path, in_place = write_target(path)
    try:
        if in_place:
            with deferred(), open(path, "wb") as f:
                write(f)
            return
        _replace(path, write, deferred)
    except OSError as err:
        raise OutputError(f"cannot write: {err.strerror or err}", path=shown) from None


def _replace(path: Path, write: Callable[[BinaryIO], None], deferred) -> None:
    """:func:`write_atomic` on a regular file or a new one: the temporary
    file, its flush, the rename and the folder's flush."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with deferred():
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, default_mode())  # mkstemp's files are private
            os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dirfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)
    except OSError:
        pass


def read_text(path: str | os.PathLike) -> str:
    """A file's text as UTF-8 (a leading BOM dropped), every byte that is not
    UTF-8 kept as a lone surrogate (``surrogateescape``), so that a reader
    can report the row holding it (:func:`undecodable`) and read the rest."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="surrogateescape")


def undecodable(text: str) -> int | None:
    """The index of the first byte of ``text`` (from :func:`read_text`) that
    was not UTF-8, or None."""
    return next((k for k, c in enumerate(text) if "\udc80" <= c <= "\udcff"), None)


def read_utf8(path: str | os.PathLike) -> str:
    """A file's whole text as UTF-8 (a leading BOM dropped), for files that
    are read as a whole: a byte that is not UTF-8 is a DataError at its line
    and column, as every reader of the program's inputs reports it. Errors of
    the file system (:class:`OSError`) are the caller's to report."""
    text = read_text(path)
    bad = undecodable(text)
    if bad is not None:
        line = text.count("\n", 0, bad) + 1
        col = bad - text.rfind("\n", 0, bad)
        raise DataError(f"not UTF-8 (byte 0x{ord(text[bad]) - 0xDC00:02x})", path=str(path), line=line, col=col)
    return text


def remove_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files that :func:`write_atomic` left beside
    ``path`` when a process writing it was killed (SIGKILL, a power cut:
    nothing could clean up); returns those removed. Call it only where no
    other process writes ``path`` at the same time."""
    path = Path(path)
    removed = []
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


__all__ = ["write_atomic", "default_mode", "read_text", "read_utf8", "undecodable", "remove_temporaries"]
