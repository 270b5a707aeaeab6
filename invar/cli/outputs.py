"""Where a command writes its files, checked before its work.

An audit or a training run may take hours; a destination that cannot be
written (a directory, a folder under a file, a folder without write
permission) must fail in the first second with one located line and exit
status 2, not as an internal error once the work is done. Every command
that writes a file (``audit --out/--report/--plot``, ``audit merge``,
``audit compare --out``, ``train --out``, ``predict --curve``, ``alta
compile --out``, the ``invar data`` commands' ``--out``) checks it with
:func:`destination` (a file) or :func:`folder_destination` (a dataset's
folder) first and, where the
folders are missing, creates them when it writes (:func:`make_folders`), as
``train`` always has: one behaviour for every command.

Imports errors and files only; never a command module.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import UsageError
from ..files import write_target


def destination(path: str | os.PathLike | None, option: str) -> None:
    """UsageError (exit 2) at ``path`` unless a file can be written there:
    it is no directory, and its nearest existing folder is a writable
    folder (the missing ones below it are created when the file is
    written). None (the option not given) passes."""
    if path is None:
        return
    shown = os.fspath(path)
    target = Path(shown)
    if target.is_dir():
        raise UsageError(f"is a directory: {option} names the file to write", path=shown)
    if shown.endswith(("/", os.sep)):
        raise UsageError(f"names a folder (it ends in /): {option} names the file to write", path=shown)
    real, in_place = write_target(target)  # as invar.files.write_atomic writes it
    if in_place:  # a device or a pipe: written to, not replaced
        if not os.access(real, os.W_OK):
            raise UsageError(f"cannot write {option} here: no permission to write {real}", path=shown)
        return
    _writable(real.parent, option, shown)


def folder_destination(path: str | os.PathLike, option: str) -> None:
    """UsageError (exit 2) at ``path`` unless a folder of files can be
    written there: it is a folder already, or nothing is there and its
    nearest existing folder can be written in. ``-`` is refused: it means
    standard output to the commands that stream, and a folder of files
    cannot go there (it would make a folder named ``-``)."""
    shown = os.fspath(path)
    if shown == "-":
        raise UsageError(
            f"{option} - is standard output, but this command writes a directory of files: give a folder name",
            path=option,
        )
    target = Path(shown)
    if target.exists() and not target.is_dir():
        raise UsageError(f"is a file: {option} names the folder to write the dataset in", path=shown)
    _writable(target.absolute(), option, shown)


def _writable(folder: Path, option: str, shown: str) -> None:
    """UsageError at ``shown`` unless the nearest existing of ``folder`` and
    the folders above it is a folder this process can write in."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {option} here: {folder} is a file, not a folder", path=shown)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {option} here: no permission to write in {folder}", path=shown)
    try:  # what access() cannot tell: a read-only file system, /proc, a full quota of files
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".invar-probe.")
    except OSError as err:
        why = err.strerror or str(err)  # a file system that makes no files says ENOENT of the folder it has
        raise UsageError(f"cannot write {option} here: no file can be made in {folder} ({why})", path=shown) from None
    os.close(fd)
    os.unlink(probe)


def make_folders(path: str | os.PathLike) -> None:
    """Create the missing folders above ``path`` (what :func:`destination`
    allowed), just before the file is written."""
    Path(path).absolute().parent.mkdir(parents=True, exist_ok=True)


__all__ = ["destination", "folder_destination", "make_folders"]
