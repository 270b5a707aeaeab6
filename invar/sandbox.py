"""Running Python code that invar was asked to run, each call fenced off.

invar never executes its input (shared/DESIGN.md), except where a user asks
for a program's result by an option: the labels of output prediction
(``invar data exec``) and its oracle (``invar audit --task exec --oracle``).
Those calls run here, never in invar's own process:

* a **child process per batch** of calls (:attr:`Limits.batch`), a fresh
  ``sys.executable -S -s -B`` started by :mod:`subprocess` in a new session,
  in a **temporary working directory** of its own (removed afterwards), with
  a **scrubbed environment** (``PATH``, ``HOME`` and ``TMPDIR`` the
  directory, ``LANG``, ``PYTHONHASHSEED``; nothing of the caller's) and
  without site-packages: a program sees the standard library only;
* **resource limits** set in the child before any program runs
  (``resource.setrlimit``): address space (:attr:`Limits.memory`), the size
  of a file it writes (:attr:`Limits.file_size`), open files, no core
  files, no new processes (``RLIMIT_NPROC``; the superuser is exempt, so the
  guard below refuses them too), and per call its CPU time;
* a **wall-time limit** per call (:attr:`Limits.seconds`): an alarm stops a
  call that runs Python code past it, and the parent kills the child's whole
  process group when a call is still running :data:`GRACE` seconds later
  (code stuck in C, a program that ignores the alarm). A child that dies (a
  kill, ``os._exit``, a crash) costs only the call it was running: the calls
  after it go on in a new child;
* a **Python-level guard**: an audit hook (:func:`sys.addaudithook`, which no
  later code can remove) refuses sockets and name lookups, processes
  (``fork``, ``exec``, ``system``, ``subprocess``, signals to others),
  ``ctypes``, changing limits or directory, and every write, removal or
  renaming of a file outside the working directory; ``socket.socket`` and
  new threads are replaced by functions that refuse. A refused call is that
  call's error even when the program catches the exception. This guards
  against accidents and ordinary misbehaviour, not against code written to
  escape: it is no kernel sandbox (no namespaces, seccomp or chroot; reads
  are not restricted).

A call is a module ``source`` (run in a module of its own, registered in
``sys.modules`` as ``program``) and a Python expression evaluated in it; its
:class:`Outcome` is the result as a canonical literal (:func:`literal`), or
why there is none. Output a program prints is discarded.

Ground floor: imports nothing of invar but its errors.
"""

from __future__ import annotations

import inspect
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Sequence

from .errors import UsageError

#: seconds a child may take past a call's limit before it is killed
GRACE = 2.0
#: seconds a new child may take to start before its first call counts
STARTUP = 20.0
#: the longest literal a call may return (characters)
MAX_CHARS = 100_000
#: the deepest nesting of containers :func:`literal` writes
MAX_DEPTH = 100


@dataclass(frozen=True)
class Limits:
    """What one call may use; a child process runs :attr:`batch` calls."""

    #: wall-clock seconds per call (also its CPU time, plus one second)
    seconds: float = 2.0
    #: bytes of address space of the child process
    memory: int = 512 << 20
    #: bytes of the largest file a call may write (in its directory)
    file_size: int = 16 << 20
    #: open files of the child process
    files: int = 64
    #: calls per child process
    batch: int = 500

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise UsageError(f"a time limit of {self.seconds} s: give a positive number of seconds", path="--timeout")
        if self.memory < 64 << 20:
            raise UsageError(
                f"a memory limit of {self.memory >> 20} MiB: Python needs at least 64 MiB", path="--memory"
            )
        if self.batch < 1 or self.files < 16 or self.file_size < 0:
            raise UsageError("a batch of at least 1 call, at least 16 open files and a file size of at least 0")


@dataclass(frozen=True)
class Call:
    """One call to run: a module and an expression evaluated in it."""

    #: the module's source (a function and what it needs)
    source: str
    #: the call, a Python expression (``f(3, [1, 2])``)
    expression: str


@dataclass(frozen=True)
class Outcome:
    """What a call gave: its result, or why there is none."""

    #: the result as a canonical literal (:func:`literal`), or None
    value: str | None
    #: ``ok``, ``raised`` (an exception left the call, ``SystemExit`` too),
    #: ``timeout``, ``memory``, ``refused`` (the guard stopped it),
    #: ``not literal`` (a result :func:`literal` cannot write), ``exit`` (it
    #: ended its process) or ``crash``
    kind: str = "ok"
    #: why there is no value, in one line ("" when there is one)
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def literal(value, depth: int = 0) -> str:
    """``value`` as a canonical Python literal: ``repr`` of None, bools,
    ints, finite floats and complex numbers, strings and bytes; lists,
    tuples and dicts written element by element (a dict in its order); a
    set's elements in the sorted order of their own literals (``repr`` of a
    set follows the hash order, which differs between processes). Exact
    types only (a subclass of int is not one), nested at most
    :data:`MAX_DEPTH` deep. TypeError for anything else (a frozenset, an
    object, ``inf``, a recursive list): ``ast.literal_eval`` reads back what
    this writes, to an equal value."""
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind in (float, complex):
        text = repr(value)
        if "inf" in text or "nan" in text:
            raise TypeError(f"{text} has no literal")
        return text
    if depth >= MAX_DEPTH:
        raise TypeError(f"nested more than {MAX_DEPTH} deep")
    if kind is list:
        return "[" + ", ".join([literal(v, depth + 1) for v in value]) + "]"
    if kind is tuple:
        items = [literal(v, depth + 1) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if kind is dict:
        return "{" + ", ".join([literal(k, depth + 1) + ": " + literal(v, depth + 1) for k, v in value.items()]) + "}"
    if kind is set:
        return "{" + ", ".join(sorted([literal(v, depth + 1) for v in value])) + "}" if value else "set()"
    raise TypeError(f"a {kind.__qualname__}, not a literal")


# ----------------------------------------------------------------- the child
_HEAD = r'''
import builtins, io, json, os, resource, signal, sys, types

MAX_CHARS, MAX_DEPTH = MAX_CHARS_VALUE, MAX_DEPTH_VALUE
'''

_BODY = r'''

class Refused(BaseException):
    """What the guard raises: no ``except Exception`` swallows it."""


class Timeout(BaseException):
    pass


#: audit events refused outright (``os.chdir`` is also raised by ``os.fchdir``)
REFUSED = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "subprocess.",
           "os.kill", "os.killpg", "signal.pthread_kill", "socket.", "ctypes.", "resource.", "os.chdir", "pty.")
#: events that change a file -> how many of their last arguments are directory descriptors
WRITES = {"os.remove": 1, "os.rename": 2, "os.rmdir": 1, "os.mkdir": 1, "os.symlink": 1, "os.link": 2,
          "os.truncate": 0, "os.chmod": 1, "os.chown": 1, "os.utime": 1, "os.chflags": 0, "os.mkfifo": 1,
          "os.mknod": 1, "os.setxattr": 0, "os.removexattr": 0, "shutil.rmtree": 1}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
ROOT = os.path.realpath(os.getcwd())
TOUCHED = []
#: whether a program runs (the loop's own calls, setrlimit among them, pass)
ARMED = [False]


def inside(path):
    if isinstance(path, int):  # a descriptor: only ever opened under this guard
        return True
    try:
        real = os.path.realpath(os.path.join(ROOT, os.fsdecode(path)))
    except (TypeError, ValueError):
        return False
    return real == ROOT or real.startswith(ROOT + os.sep)


def refuse(what):
    TOUCHED.append(what)
    raise Refused(f"refused: {what}")


def hook(event, args):
    if not ARMED[0]:
        return
    if event == "open":
        if args[2] & WRITE_FLAGS and not inside(args[0]):
            refuse(f"writing {args[0]!r} outside the working directory")
    elif event.startswith(REFUSED):
        refuse(event)
    elif event in WRITES:
        fds = WRITES[event]
        dir_fds = args[len(args) - fds:] if fds else ()
        if isinstance(args[0], int) or any(a not in (None, -1) for a in dir_fds) \
                or not all(inside(a) for a in args if isinstance(a, (str, bytes, os.PathLike))):
            refuse(f"{event} outside the working directory")


def no_socket(*args, **kwargs):
    refuse("socket (no network)")


def no_thread(*args, **kwargs):
    refuse("a new thread")


class Sink(io.TextIOBase):
    def write(self, text):
        return len(text)


def limit(limits):
    for name, value in (("RLIMIT_AS", limits["memory"]), ("RLIMIT_FSIZE", limits["file_size"]),
                        ("RLIMIT_NOFILE", limits["files"]), ("RLIMIT_CORE", 0), ("RLIMIT_NPROC", 0)):
        if hasattr(resource, name):
            resource.setrlimit(getattr(resource, name), (value, value))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file too large is an OSError of the call, not a death


def guard():
    import _thread
    import socket

    socket.socket = socket.create_connection = socket.socketpair = socket.fromfd = no_socket
    _thread.start_new_thread = _thread.start_new = no_thread
    if "threading" in sys.modules:
        sys.modules["threading"]._start_new_thread = no_thread
    sys.addaudithook(hook)


def alarm(signum, frame):
    raise Timeout()


def said(err):
    """``: message`` of an exception (at most 200 characters), "" when it has
    none or its ``__str__`` fails."""
    try:
        text = str(err)
    except BaseException:
        return ""
    return f": {text[:200]}" if text else ""


def cpu_seconds():
    t = os.times()
    return t.user + t.system


def call(job, seconds):
    """One call's outcome: [kind, value or reason]."""
    module = types.ModuleType("program")
    sys.modules["program"] = module
    del TOUCHED[:]
    signal.signal(signal.SIGALRM, alarm)
    sys.setrecursionlimit(1000)
    resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds() + seconds) + 1, resource.RLIM_INFINITY))
    sys.stdout = sys.stderr = Sink()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    ARMED[0] = True
    try:
        exec(compile(job[0], "<program>", "exec"), module.__dict__)
        value = eval(compile(job[1], "<call>", "eval"), module.__dict__)
        try:
            text = literal(value)
        except (TypeError, RecursionError) as err:
            return ["not literal", str(err)]
        except ValueError as err:  # an int too long to write
            return ["not literal", str(err).split(";")[0]]
        if len(text) > MAX_CHARS:
            return ["not literal", f"a literal of {len(text):,} characters (at most {MAX_CHARS:,})"]
        return ["ok", text]
    except Timeout:
        return ["timeout", f"ran past its time limit of {seconds:g} s"]
    except Refused as err:
        return ["refused", str(err)[len("refused: "):]]
    except MemoryError:
        return ["memory", "ran out of memory (the limit is on its address space)"]
    except BaseException as err:
        return ["raised", f"raised {type(err).__name__}" + said(err)]
    finally:
        ARMED[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        if TOUCHED:  # refused even where the program caught it
            return ["refused", TOUCHED[0]]


def main():
    report = os.fdopen(int(sys.argv[1]), "w", encoding="utf-8")
    limits = json.loads(sys.argv[2])
    jobs = json.loads(sys.stdin.read())  # all of them before anything runs: the parent writes, then reads
    sys.stdin.close()
    limit(limits)
    guard()
    # the heap laid out by the hash seed too: two runs with different seeds
    # give different ids even where the system does not randomize addresses
    padding = [object() for _ in range(101 * int(os.environ.get("PYTHONHASHSEED", "0")))]
    for job in jobs:
        try:
            outcome = call(job, limits["seconds"])
        except Timeout:  # the alarm rang as the call was ending
            outcome = ["timeout", f"ran past its time limit of {limits['seconds']:g} s"]
        report.write(json.dumps(outcome) + "\n")
        report.flush()
    del padding


main()
'''


@lru_cache(maxsize=1)
def child_script() -> str:
    """The child's program: :func:`literal` (its own source, so both
    processes write literals alike) and the guard and loop above."""
    head = _HEAD.replace("MAX_CHARS_VALUE", str(MAX_CHARS)).replace("MAX_DEPTH_VALUE", str(MAX_DEPTH))
    return head + "\n" + inspect.getsource(literal) + _BODY


# ---------------------------------------------------------------- the parent
def run(calls: Sequence[Call], limits: Limits = Limits(), *, hash_seed: int = 0, jobs: int = 1) -> list[Outcome]:
    """Every call's :class:`Outcome`, in order: :attr:`Limits.batch` calls
    per child process, ``jobs`` children at a time, each with
    ``PYTHONHASHSEED=hash_seed`` (the same seed, the same set and dict
    orders). UsageError where there is no ``resource`` module (not POSIX)."""
    try:
        import resource  # noqa: F401 - the child sets its limits with it
    except ImportError:
        raise UsageError("running programs needs a POSIX system (resource limits)") from None
    batches = [list(calls[k : k + limits.batch]) for k in range(0, len(calls), limits.batch)]
    if jobs <= 1 or len(batches) <= 1:
        done = [_batch(b, limits, hash_seed) for b in batches]
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(lambda b: _batch(b, limits, hash_seed), batches))
    return [o for outcomes in done for o in outcomes]


def _batch(calls: list[Call], limits: Limits, hash_seed: int) -> list[Outcome]:
    """The outcomes of one batch: a new child after each one that died."""
    out: list[Outcome] = []
    while len(out) < len(calls):
        out += _child(calls[len(out) :], limits, hash_seed)
    return out


def environment(directory: str, hash_seed: int) -> dict[str, str]:
    """The child's whole environment: nothing of the caller's."""
    return {
        "PATH": os.defpath,
        "HOME": directory,
        "TMPDIR": directory,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _child(calls: list[Call], limits: Limits, hash_seed: int) -> list[Outcome]:
    """The outcomes one child gives before it ends: all of ``calls``, or
    those before the one it died on, then that one's."""
    with tempfile.TemporaryDirectory(prefix="invar-exec-") as directory:
        read_end, write_end = os.pipe()
        with open(os.path.join(directory, ".stderr"), "wb") as errors:
            try:
                proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-S",
                        "-s",
                        "-B",
                        "-c",
                        child_script(),
                        str(write_end),
                        json.dumps(asdict(limits)),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    cwd=directory,
                    env=environment(directory, hash_seed),
                    pass_fds=(write_end,),
                    start_new_session=True,
                )
            finally:
                os.close(write_end)
            try:
                return _outcomes(proc, read_end, calls, limits, directory)
            finally:
                os.close(read_end)
                _kill(proc)


def _outcomes(
    proc: subprocess.Popen, read_end: int, calls: list[Call], limits: Limits, directory: str
) -> list[Outcome]:
    try:
        proc.stdin.write(json.dumps([[c.source, c.expression] for c in calls]).encode("utf-8"))
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # it died before reading: its status says why
    out: list[Outcome] = []
    buffer = b""
    deadline = time.monotonic() + STARTUP + limits.seconds
    with selectors.DefaultSelector() as sel:
        sel.register(read_end, selectors.EVENT_READ)
        while len(out) < len(calls):
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(timeout=left):
                _kill(proc)
                return out + [
                    Outcome(
                        None,
                        "timeout",
                        f"ran past its time limit of {limits.seconds:g} s (its process was killed {GRACE:g} s later)",
                    )
                ]
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                return out + [_death(proc, limits, directory)]
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    kind, text = json.loads(line)
                except (ValueError, TypeError):  # the program wrote into the report's own descriptor
                    _kill(proc)
                    return out + [Outcome(None, "refused", "wrote into the sandbox's report channel")]
                out.append(Outcome(text, "ok") if kind == "ok" else Outcome(None, kind, text))
            if lines:
                deadline = time.monotonic() + limits.seconds + GRACE
    return out


def _death(proc: subprocess.Popen, limits: Limits, directory: str) -> Outcome:
    """The outcome of the call a child died on, from how it died."""
    code = proc.wait()
    if code == -getattr(signal, "SIGXCPU", -1):
        return Outcome(None, "timeout", f"used more than {limits.seconds:g} s of CPU time (its process was killed)")
    if code == -signal.SIGKILL:
        return Outcome(None, "memory", "its process was killed (signal 9), most likely out of memory")
    if code < 0:
        name = signal.Signals(-code).name if -code in set(signal.Signals) else str(-code)
        return Outcome(None, "crash", f"its process crashed ({name})")
    last = _last_line(os.path.join(directory, ".stderr"))
    return Outcome(None, "exit", f"ended its process (exit status {code})" + (f": {last}" if last else ""))


def _last_line(path: str) -> str:
    """The last line a child wrote to its standard error (a traceback's
    last line says why it ended), at most 200 characters."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 4096))
            lines = f.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def _kill(proc: subprocess.Popen) -> None:
    """The child and anything it started, gone (its own session's group)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    proc.wait()


__all__ = ["Limits", "Call", "Outcome", "GRACE", "MAX_CHARS", "literal", "run", "child_script", "environment"]
