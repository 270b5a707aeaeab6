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

import json
import os
import sqlite3
import threading
from pathlib import Path

from ..errors import InvarError

#: the file in the cache's directory
FILE = "replies.sqlite"
#: seconds a write waits for another process's write before the cache gives up on it
BUSY_TIMEOUT = 30.0


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
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            self._db.execute("PRAGMA journal_mode = WAL")
            # WAL keeps the file whole whatever happens; a crash may lose the last replies, not the rest
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        except (OSError, sqlite3.Error) as err:
            raise InvarError(f"cannot open the reply cache ({type(err).__name__}: {err}); name another "
                             "directory with INVAR_REPLY_CACHE, or audit without it (--no-cache)",
                             path=str(self.path)) from None

    def get(self, key: str) -> dict | None:
        """The reply stored under ``key``, or None."""
        with self._lock:
            try:
                row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
                return None if row is None else _object(json.loads(row[0]))
            except (sqlite3.Error, ValueError, RecursionError):  # locked too long, or a row not JSON
                self.errors += 1
                return None

    def put(self, key: str, reply: dict) -> bool:
        """Store ``reply`` under ``key`` (replacing what was there); whether it was stored."""
        with self._lock:
            try:
                self._db.execute("INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)", (key, json.dumps(reply)))
                return True
            except (sqlite3.Error, TypeError, ValueError):  # locked too long, a full disk, not JSON
                self.errors += 1
                return False

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _object(value) -> dict:
    if not isinstance(value, dict):
        raise ValueError("not a stored reply")
    return value


__all__ = ["ReplyCache", "default_directory", "FILE"]
