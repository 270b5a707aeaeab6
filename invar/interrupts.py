"""How work stops on Ctrl-C (SIGINT) and SIGTERM: process pools that stop at
once, short sections that finish first, and the command line's signals from
its first import to its exit.

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

**The command line, from its first import to its exit** (no traceback on
any signal at any moment; tests/cli/test_signals.py sends them at every
stage). Python raises a signal's exception wherever the main thread is, and
some places print it instead of raising it. So the command line's signals
go through three stages:

1. :func:`starting`, when this module is imported (``invar/__init__.py``
   imports it before anything else): while the imports run there is
   nothing to clean up, and a ``KeyboardInterrupt`` would escape as a
   traceback (the console script calls ``main`` only once it is imported):
   a signal says ``interrupted`` and ends the process at once, 130 or 143.
   Only the command line is touched: not a program or a test that imports
   invar, nor a pool's spawned worker.
2. :func:`take_over`, when ``main`` runs: SIGINT raises KeyboardInterrupt
   and SIGTERM :class:`Terminated` wherever the command is, so that its
   cleanups run, and the first signal is recorded (:func:`signalled`: typer
   turns an interrupt outside the command into a silent exit 130). A
   signal's exception raised where Python cannot raise it, in a weakref
   callback, a ``__del__`` or an exit function, would be printed as
   "Exception ignored" and lost: it is raised again at the next place that
   can (:func:`sys.unraisablehook`).
3. :func:`finishing`, once the command has stopped for a signal, or has
   ended and the process exits: another signal ends the process at once and
   silently, with the status it was leaving with (or 128 + the signal).
   Raised in its exit functions or in the interpreter's teardown, it could
   only be printed.

A signal ignored from the start (a background job of a non-interactive
shell ignores SIGINT, as POSIX asks) stays ignored at every stage.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    import multiprocessing.pool

__all__ = ["pool", "deferred", "Terminated", "starting", "take_over", "signalled", "finishing", "status", "SAID"]

#: the signals a deferred section holds
_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def pool(
    jobs: int, *, method: str = "fork", initializer: Callable[..., Any] | None = None, initargs: tuple = ()
) -> Iterator[multiprocessing.pool.Pool]:
    """A ``multiprocessing`` pool of ``jobs`` workers started by ``method``
    (``fork`` or ``spawn``), stopped and reaped when the block ends: closed
    if the block ended normally with every task answered (the workers leave
    on their own, no signal), terminated otherwise."""
    import multiprocessing  # here, not at the top: ``import invar`` stays cheap and starting() comes first

    ctx = multiprocessing.get_context(method)
    if method != "fork" and hasattr(signal, "pthread_sigmask"):
        # started on demand, the resource tracker unblocks SIGINT (and
        # SIGTERM) in the thread that starts it: start it before the block
        from multiprocessing import resource_tracker  # late, as multiprocessing above

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


# ------------------------------------------------------- the command line
#: what the command line says when a signal stops it (its one line)
SAID = "interrupted"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, like Ctrl-C's KeyboardInterrupt."""


def status(err: KeyboardInterrupt) -> int:
    """The exit status of a process a signal stopped: 130 (SIGINT) or 143 (SIGTERM)."""
    return 128 + (signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT)


#: the signals that reached the command line since take_over(), first first
_signalled: list[int] = []


def starting() -> None:
    """The command line's first act, before its imports (stage 1 of the
    module docstring): a signal says :data:`SAID` and ends the process at
    once, 130 or 143. Anything else that imports invar (a program, the
    tests, a pool's worker) keeps its signals as they are."""
    if not _command_line():
        return
    for s in sorted(_SIGNALS):
        if _at_default(s):
            signal.signal(s, _stop_starting)


def _command_line() -> bool:
    """Whether this process is invar's command line: the interpreter was
    started on the console script (``invar``) or with ``-m invar``
    (torchrun's processes included). Read from the interpreter's own
    arguments, not ``sys.argv``: a spawned pool worker is given its
    parent's ``sys.argv``, and imports the console script, but was started
    with ``-c``."""
    words = list(getattr(sys, "orig_argv", ()))[1:]
    while words:
        word = words.pop(0)
        if word.startswith("-m"):
            return (word[2:] or (words[0] if words else "")) == "invar"
        if word.startswith("-c") or word == "-":
            return False
        if word in ("-X", "-W"):  # an option with its value apart
            words = words[1:]
        elif not word.startswith("-"):  # the script
            return Path(word).name in ("invar", "invar.exe", "invar-script.py")
    return False


def _at_default(signum: int) -> bool:
    """Whether ``signum`` is handled as Python starts a program: SIGINT by
    ``default_int_handler``, SIGTERM not at all (one ignored stays ignored)."""
    handler = signal.getsignal(signum)
    return handler is (signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)


def _stop_starting(signum: int, _frame: object) -> None:
    try:
        os.write(2, f"{SAID}\n".encode())
    except OSError:  # standard error closed: the status says it
        pass
    os._exit(128 + signum)


def take_over() -> None:
    """Stage 2 of the module docstring, for the command line's run: SIGINT
    raises KeyboardInterrupt and SIGTERM :class:`Terminated` wherever the
    program is, each recorded (:func:`signalled`); one raised where Python
    can only print it is raised again at the next place that can."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers are the main thread's
    _signalled.clear()
    for s in sorted(_SIGNALS):
        if _at_default(s) or signal.getsignal(s) is _stop_starting:
            signal.signal(s, _raise)
    if not isinstance(sys.unraisablehook, _Unlost):
        sys.unraisablehook = _Unlost(sys.unraisablehook)


def _raise(signum: int, _frame: object) -> None:
    _signalled.append(signum)
    if isinstance(sys.exc_info()[1], SystemExit):
        # the process is on its way out (the command has ended, or typer has
        # turned a first signal into its exit) and has not yet said
        # finishing(): an exception now would replace the exit with a traceback
        _end(128 + _signalled[0], flush=True)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def signalled() -> int | None:
    """The first signal that reached the command line since
    :func:`take_over`, or None."""
    return _signalled[0] if _signalled else None


class _Unlost:
    """``sys.unraisablehook`` that acts on a signal's exception again instead
    of printing it. Python cannot raise an exception out of a weakref
    callback, a ``__del__`` or an exit function: it prints "Exception
    ignored in …" and goes on, and the signal would be lost. Its handler
    runs again at the next call or return of the main thread outside this
    hook (a profile function: signalling the process now would run the
    handler inside the hook, where raising is as lost), and raises there,
    holds it (:func:`deferred`) or ends the process (:func:`finishing`)."""

    def __init__(self, hook: Callable[[Any], None]) -> None:
        self.hook = hook

    def __call__(self, unraisable: Any) -> None:
        kind = unraisable.exc_type
        if (
            not (isinstance(kind, type) and issubclass(kind, KeyboardInterrupt))
            or threading.current_thread() is not threading.main_thread()
        ):
            self.hook(unraisable)
            return
        signum = signal.SIGTERM if issubclass(kind, Terminated) else signal.SIGINT
        here, before = _Unlost.__call__.__code__, sys.getprofile()

        def again(frame: Any, _event: str, _arg: object) -> None:
            if frame is not None and frame.f_code is here:
                return  # still leaving the hook
            sys.setprofile(before)
            handler = signal.getsignal(signum)
            if callable(handler):
                handler(signum, frame)

        sys.setprofile(again)


def finishing(code: int | None = None) -> None:
    """Stage 3 of the module docstring: from now on SIGINT and SIGTERM end
    the process at once and silently, with ``code`` (the status of the
    interrupt it is leaving for; what it was writing is not flushed) or,
    without one, with 128 + the signal (a command that has ended: what it
    wrote is flushed first)."""

    def leave(signum: int, _frame: object) -> None:
        _end(128 + signum if code is None else code, flush=code is None)

    if threading.current_thread() is not threading.main_thread():
        return
    for s in sorted(_SIGNALS):
        if signal.getsignal(s) not in (signal.SIG_IGN, None):
            signal.signal(s, leave)


def _end(code: int, *, flush: bool) -> None:
    """End the process now with ``code``, what it wrote flushed first if asked."""
    if flush:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # closed, or in the middle of its own write: nothing more can be said
                pass
    os._exit(code)


# the command line takes its signals as soon as it imports invar (stage 1)
starting()
