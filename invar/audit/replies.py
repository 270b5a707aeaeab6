"""A cache of an endpoint's replies, so that an audit run again with the same
settings sends no request.

One SQLite file, ``replies.sqlite``, in a directory (:func:`default_directory`
unless the caller names one): written in WAL mode with a busy timeout, so the
threads of one adapter and several processes (an audit's shards, two audits at
once) read and write it together. A key is the caller's (the HTTP adapter
hashes the endpoint, the model, the request as sent and the repeat index); a
value is a reply's JSON as the endpoint sent it (a stream of events assembled
into one chat completion), never what a reader made of it, so a changed
reader re-reads the replies it has.

A cache that cannot be opened is an error; one that fails later (locked past
its timeout, a full disk) is a miss, or a reply not kept: an audit loses no
answer to its cache.
"""

from __future__ import annotations

import atexit
import json
import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path

from ..errors import InvarError

#: the file in the cache's directory
FILE = "replies.sqlite"
#: seconds a write waits for another process's write before the cache gives up on it
BUSY_TIMEOUT = 30.0
#: replies written in one transaction (an interrupted audit loses at most these)
BATCH = 64


def default_directory() -> Path:
    """``$INVAR_REPLY_CACHE`` when set, else ``$XDG_CACHE_HOME/invar/replies``
    (``~/.cache/invar/replies`` without it)."""
    named = os.environ.get("INVAR_REPLY_CACHE")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "invar" / "replies"


class ReplyCache:
    """Replies by key, in ``directory/replies.sqlite`` (made when missing).
    Safe across threads (one connection, used under a lock) and across
    processes (SQLite's own locking)."""

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        self.path = self.directory / FILE
        #: reads and writes that failed after the cache was open (each a miss, or a reply not kept)
        self.errors = 0
        self._lock = threading.Lock()
        #: replies taken and not yet written (key -> JSON text)
        self._pending: dict[str, str] = {}
        atexit.register(_flush_at_exit, weakref.ref(self))  # a process that never closes it keeps its replies
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, check_same_thread=False, isolation_level=None)
            _set_up(self._db)
        except (OSError, sqlite3.Error) as err:
            raise InvarError(
                f"cannot open the reply cache ({type(err).__name__}: {err}); name another "
                "directory with INVAR_REPLY_CACHE, or audit without it (--no-cache)",
                path=str(self.path),
            ) from None

    def get(self, key: str) -> dict | None:
        """The reply stored under ``key``, or None."""
        with self._lock:
            try:
                text = self._pending.get(key)
                if text is None:
                    row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
                    text = None if row is None else row[0]
                return None if text is None else _object(json.loads(text))
            except (sqlite3.Error, ValueError, RecursionError):  # locked too long, or a row not JSON
                self.errors += 1
                return None

    def put(self, key: str, reply: dict) -> bool:
        """Store ``reply`` under ``key`` (replacing what was there); whether it
        was taken. Replies are written :data:`BATCH` at a time, in one
        transaction (one per reply cost a quarter of the time of an audit
        against a server that answers at once), and by :meth:`flush`."""
        try:
            text = json.dumps(reply)
        except (TypeError, ValueError):  # not JSON
            self.errors += 1
            return False
        with self._lock:
            self._pending[key] = text
            if len(self._pending) >= BATCH:
                self._write()
        return True

    def flush(self) -> None:
        """Write every reply taken so far."""
        with self._lock:
            self._write()

    def _write(self) -> None:
        if not self._pending:
            return
        try:
            with self._db:  # one transaction
                self._db.executemany(
                    "INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)", list(self._pending.items())
                )
        except sqlite3.Error:  # locked too long, a full disk: these replies are not kept
            self.errors += len(self._pending)
        self._pending.clear()

    def __len__(self) -> int:
        self.flush()
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._db.close()


def _set_up(db: sqlite3.Connection) -> None:
    """Make ``db`` the cache's: WAL, its table. Several processes (an audit's
    shards, started together) may set up one new file at once, and SQLite
    answers a change of journal mode that meets another with "locked" at once,
    whatever the busy timeout: each step is tried again until the timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    for statement in (
        f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}",
        "PRAGMA journal_mode = WAL",
        # WAL keeps the file whole whatever happens; a crash may lose the last replies, not the rest
        "PRAGMA synchronous = NORMAL",
        "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)",
    ):
        wait = 0.01
        while True:
            try:
                db.execute(statement)
                break
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) and "busy" not in str(err) or time.monotonic() + wait > deadline:
                    raise
                time.sleep(wait)
                wait = min(0.5, wait * 2)


def _flush_at_exit(ref: weakref.ref) -> None:
    cache = ref()
    if cache is not None:
        try:
            cache.flush()
        except sqlite3.Error:  # closed already, or the disk is gone: nothing more to keep
            pass


def _object(value) -> dict:
    if not isinstance(value, dict):
        raise ValueError("not a stored reply")
    return value


__all__ = ["ReplyCache", "default_directory", "FILE"]
