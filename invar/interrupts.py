"""How work stops on Ctrl-C (SIGINT) and SIGTERM: process pools that stop at
once, and short sections that finish first.

**Pools.** Ctrl-C at a terminal sends SIGINT to every process of the foreground group,
pool workers included. A worker that dies of its KeyboardInterrupt prints a
traceback, and if it held the pool's task-queue lock (an idle worker waits
for its next task holding it), ``Pool.terminate`` waits for that lock
forever: the command hangs instead of stopping. So the parent alone decides
when work stops:

- workers are started with SIGINT blocked (the mask survives ``fork`` and
  ``exec``, so a worker still importing invar is covered too), then ignore
  it; SIGTERM, which ``Pool.terminate`` sends, ends a worker still starting
  at once, and a started one by ``SystemExit``, so that its cleanups run (a
  subprocess it waits for, such as ``llvm-mca``, is killed with it); once
  it is leaving, a SIGTERM ends it at once and silently;
- a signal that reaches the parent while its workers start is held
  (:func:`deferred`) and raised once the pool exists, inside the block that
  terminates it;
- whatever ends the block early (an exception, KeyboardInterrupt, a
  generator closed early, or tasks still unanswered), the pool is
  terminated: every worker gets SIGTERM and is reaped before the block is
  left; one still running a few seconds later is killed
  (``Pool.terminate`` alone would wait for it without end). A block that
  ends with every task answered closes the pool instead: its idle workers
  leave on their own, with no signal to land in their exit callbacks.

**Sections that finish first.** Some C code turns an exception raised in a
callback it runs into an error of its own: ``torch.save`` interrupted in its
file writes raises a ``RuntimeError``, and the interrupt is lost. Inside
:func:`deferred` the signals are held, and acted on as soon as it ends.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import threading
from typing import Any, Callable, Iterator

__all__ = ["pool", "deferred"]

#: the signals a deferred section holds
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
    (``fork`` or ``spawn``), stopped and reaped when the block ends: closed
    if the block ended normally with every task answered (the workers leave
    on their own, no signal), terminated otherwise."""
    ctx = multiprocessing.get_context(method)
    if method != "fork" and hasattr(signal, "pthread_sigmask"):
        # started on demand, the resource tracker unblocks SIGINT (and
        # SIGTERM) in the thread that starts it: start it before the block
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    started, idle = None, False
    try:
        # held, not only blocked here: another thread (a progress bar's) may
        # take the signal, and Python would then raise it in this one
        with deferred(), _blocked({signal.SIGINT}):
            started = ctx.Pool(jobs, initializer=_start, initargs=(initializer, initargs))
        yield started
        idle = not started._cache  # type: ignore[attr-defined]  # every task answered
    finally:
        if started is not None:
            _stop(started, close=idle)


#: seconds a pool's workers have to end after SIGTERM before they are killed
_GRACE = 5.0


def _stop(started: multiprocessing.pool.Pool, *, close: bool = False) -> None:
    """Terminate ``started`` (with ``close``: close it, so that its idle
    workers leave by themselves) and reap its workers. ``Pool.terminate``
    waits for every worker without a bound, and on a loaded machine a worker
    was seen to outlive its SIGTERM (waiting for the task queue's lock): one
    still there after :data:`_GRACE` seconds is killed, so that the wait ends."""

    def close_and_join() -> None:
        started.close()
        started.join()

    target = close_and_join if close else started.terminate
    stopper = threading.Thread(target=target, name="invar-pool-stop", daemon=True)
    stopper.start()
    stopper.join(_GRACE)
    for _ in range(10):
        if not stopper.is_alive():
            break
        for worker in list(started._pool):  # type: ignore[attr-defined]
            if worker.exitcode is None:
                worker.kill()
        stopper.join(1.0)
    if not stopper.is_alive():
        started.join()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM for the block (keep it short: the command
    stops only after it), then act on the first one that came, as its
    handler would have. Outside the main thread, where Python runs signal
    handlers, nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = {}
    here = os.getpid()

    def hold(signum: int, frame: object) -> None:
        if os.getpid() != here:
            # a process forked inside the section (a pool's worker not yet
            # past its start) inherits this handler: holding there would
            # swallow the SIGTERM that ends it, and it would wait for work
            # forever. It has nothing of its own to clean up yet, and an
            # exception could land in the interpreter's after-fork hooks,
            # which print it: it leaves at once, quietly
            os._exit(128 + signum)
        caught.append(signum)

    try:
        for s in sorted(_SIGNALS):
            handler = signal.getsignal(s)
            if handler not in (signal.SIG_IGN, None):  # None: set outside Python, left alone
                held[s] = signal.signal(s, hold)
        yield
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
        if caught:
            handler = held[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            else:  # the default action
                signal.raise_signal(caught[0])


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
    _quiet()
    raise SystemExit(128 + signum)


def _gone(signum: int, _frame: object) -> None:
    os._exit(128 + signum)


def _quiet() -> None:
    """From now on SIGTERM ends this worker at once and silently: it is
    already leaving. Raised in its exit callbacks (a spawned worker runs
    them, and ``Pool.terminate`` signals workers it has just told to stop),
    ``SystemExit`` would only be printed as an ignored exception, once per
    callback, and the worker would go on leaving all the same."""
    signal.signal(signal.SIGTERM, _gone)


def _start(initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    """A worker's first act: SIGINT is the parent's business; SIGTERM ends
    the worker through its cleanups, and quietly once they have begun (the
    exit callback registered here runs before those registered earlier,
    such as torch's, which a spawned worker imported while starting)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _leave)
    atexit.register(_quiet)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)
