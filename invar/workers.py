"""Process pools that an interrupt stops at once.

Ctrl-C at a terminal sends SIGINT to every process of the foreground group,
pool workers included. A worker that dies of its KeyboardInterrupt prints a
traceback, and if it held the pool's task-queue lock (an idle worker waits
for its next task holding it), ``Pool.terminate`` waits for that lock
forever: the command hangs instead of stopping. So the parent alone decides
when work stops:

- workers are started with SIGINT and SIGTERM blocked (the mask survives
  ``fork`` and ``exec``, so a worker still importing invar is covered too),
  then ignore SIGINT and leave on SIGTERM by ``SystemExit``, so that their
  cleanups run (a subprocess a worker waits for, such as ``llvm-mca``, is
  killed with it);
- a signal that reaches the parent while its workers start stays pending
  and is raised once the pool exists, inside the block that terminates it;
- whatever ends the block (its end, an exception, KeyboardInterrupt, a
  generator closed early), the pool is terminated: every worker gets
  SIGTERM and is reaped before the block is left.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from typing import Any, Callable, Iterator

__all__ = ["pool"]

#: the signals a worker must not act on by itself while it starts
_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def pool(
    jobs: int,
    *,
    method: str = "fork",
    initializer: Callable[..., Any] | None = None,
    initargs: tuple = (),
) -> Iterator[multiprocessing.pool.Pool]:
    """A ``multiprocessing`` pool of ``jobs`` workers started by ``method``
    (``fork`` or ``spawn``), terminated and reaped when the block ends."""
    ctx = multiprocessing.get_context(method)
    workers = None
    try:
        with _blocked(_SIGNALS):
            workers = ctx.Pool(jobs, initializer=_start, initargs=(initializer, initargs))
        yield workers
    finally:
        if workers is not None:
            workers.terminate()
            workers.join()


@contextlib.contextmanager
def _blocked(signals: set) -> Iterator[None]:
    """Block ``signals`` in this thread (and so in the processes and threads
    it starts) for the block; one that arrives meanwhile is delivered after.
    (Windows has no signal masks: there workers start unprotected.)"""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _leave(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _start(initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    """A worker's first act: SIGINT is the parent's business; SIGTERM ends
    the worker through its cleanups."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _leave)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    if initializer is not None:
        initializer(*initargs)
