"""Run Python units in a subprocess and describe what each call did.

The execution oracles of docs/semantics.md compare an original unit with its
variants on the same inputs. This module runs a batch of jobs in one fresh
interpreter (``sys.executable``), with a wall-clock limit per call and one for
the whole batch, and returns for every call an *outcome*:

* ``("ok", show(returned), show(arguments after the call), output, show(globals))``
  when the call completes normally. Everything the contract keeps is in it:
  the return value (a generator is drained), every argument's final state (an
  iterator shows what is left in it, so how far it was advanced), what was
  printed, in order, and the module globals the unit may write;
* ``("raise", exception type name)`` otherwise (including the per-call time
  limit, as ``Timeout``).

Inputs are Python expressions (a tuple of positional arguments and a dict of
keyword arguments) evaluated afresh in the subprocess for every call, so
iterators and mutable arguments start the same for the original and every
variant; the watched globals are restored from a deep copy before every call
(a call that raised half-way leaves nothing to the next). Each job's source
runs in a module of its own, registered in ``sys.modules``, so that
``sys.modules[__name__]`` is the namespace its globals live in. Only the
project's own tests run this: the library never executes input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

#: seconds one call may run before it counts as ``Timeout``
CALL_LIMIT = 2.0
#: bytes of address space the subprocess may use
MEMORY_LIMIT = 768 << 20

_CHILD = r'''
import contextlib, copy, io, json, re, resource, signal, sys, types, collections.abc as abc

# a unit that grows a list without end fails with MemoryError, not the machine
resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

class Timeout(Exception):
    pass

# while a sandboxed call runs, anything that reaches outside the process
# (files, processes, sockets, the environment, sleeping) raises instead
ARMED = [False]
TOUCHED = [False]
BLOCKED = ("open", "os.", "subprocess.", "socket.", "shutil.", "ctypes.", "urllib.", "ftplib.", "smtplib.",
           "http.", "webbrowser.", "sqlite3.", "pty.", "fcntl.", "resource.", "syslog.", "tempfile.", "time.sleep",
           "glob.", "sys.settrace", "sys.setprofile", "sys.addaudithook")

class Sandboxed(Exception):
    pass

def _audit(event, args):
    if ARMED[0] and event.startswith(BLOCKED):
        TOUCHED[0] = True  # even if the unit catches it, the call does not count
        raise Sandboxed(event)

sys.addaudithook(_audit)

def _alarm(signum, frame):
    raise Timeout()

signal.signal(signal.SIGALRM, _alarm)

def show(x, depth=0):
    """A canonical, comparable description of a value."""
    if depth > 12:
        return "..."
    if isinstance(x, (bool, int, float, complex, str, bytes, type(None))):
        return repr(x)
    if isinstance(x, (list, tuple)):
        return [type(x).__name__] + [show(v, depth + 1) for v in x]
    if isinstance(x, dict):
        return ["dict"] + [[show(k, depth + 1), show(v, depth + 1)] for k, v in x.items()]
    if isinstance(x, (set, frozenset)):
        return [type(x).__name__] + sorted(json.dumps(show(v, depth + 1)) for v in x)
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return ["function", getattr(x, "__qualname__", "?")]
    if isinstance(x, type):
        return ["class", x.__qualname__, [k for k in vars(x) if not k.startswith("__")],
                [m.__name__ for m in x.__mro__[1:-1]]]
    if isinstance(x, abc.Iterator):
        try:
            rest = list(x)
        except Exception as err:
            rest = ["raised", type(err).__name__]
        return ["iterator", show(rest, depth + 1)]
    if hasattr(x, "__dict__"):
        return ["object", type(x).__qualname__, show(dict(vars(x)), depth + 1)]
    if hasattr(type(x), "__slots__"):
        return ["object", type(x).__qualname__,
                [[s, show(getattr(x, s, "<unset>"), depth + 1)] for s in type(x).__slots__]]
    # a repr may hold an address ("<code object f at 0x7f…>"): not part of the value
    return ["other", type(x).__qualname__, re.sub(r" at 0x[0-9a-fA-F]+", " at 0x…", repr(x))]

def run(job):
    # a real module, registered, so that ``sys.modules[__name__]`` is the
    # namespace the unit's globals live in
    module = types.ModuleType("unit_under_test")
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    try:
        exec(compile(job["source"], "<unit>", "exec"), namespace)
        fn = namespace[job["name"]]
    except BaseException as err:
        return [["compile", type(err).__name__, str(err)]] * len(job["inputs"])
    watched = [g for g in job.get("globals", ()) if g in namespace]
    start = {g: copy.deepcopy(namespace[g]) for g in watched}
    out = []
    for text in job["inputs"]:
        for g in watched:
            # a copy: a call that raised half-way must leave nothing to the next
            namespace[g] = copy.deepcopy(start[g])
        args, kwargs = eval(text, dict(namespace))
        buf = io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, job["limit"])
        try:
            with contextlib.redirect_stdout(buf):
                TOUCHED[0] = False
                ARMED[0] = job.get("sandbox", False)
                result = fn(*args, **kwargs)
                if isinstance(result, abc.Generator):
                    result = ["generator", list(result)]
                ARMED[0] = False
                if TOUCHED[0]:
                    raise Sandboxed("caught inside the call")
            signal.setitimer(signal.ITIMER_REAL, 0)
            out.append(["ok", show(result), show(list(args)), show(dict(kwargs)), buf.getvalue(),
                        [[g, show(namespace[g])] for g in watched]])
        except BaseException as err:
            ARMED[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            out.append(["raise", type(err).__name__])
    return out

jobs = json.loads(sys.stdin.read())
real_stdout = sys.stdout
sys.stdout = io.StringIO()  # what runs outside a call (draining a generator to show it) is not output
json.dump([run(job) for job in jobs], real_stdout)
'''


@dataclass
class Job:
    """One unit to run: a module ``source`` defining function ``name``, called
    on every input expression (``"((a, b), {'k': v})"``)."""

    source: str
    name: str
    inputs: list[str]
    #: module globals whose final value is part of the state
    globals: tuple[str, ...] = ()
    #: while a call runs, file, process, network and environment access raise
    sandbox: bool = False


def run_jobs(jobs: list[Job], *, timeout: float = 600.0, call_limit: float = CALL_LIMIT) -> list[list]:
    """Outcomes of every call of every job, in one subprocess. The jobs
    share its address space, so what earlier jobs left allocated counts
    against a later one's limit: a job with a call that ran out of memory
    runs again alone, and its outcomes are that run's."""
    outcomes = _run_batch(jobs, timeout, call_limit)
    if len(jobs) > 1:
        for k, got in enumerate(outcomes):
            if ["raise", "MemoryError"] in got:
                (outcomes[k],) = _run_batch([jobs[k]], timeout, call_limit)
    return outcomes


def _run_batch(jobs: list[Job], timeout: float, call_limit: float) -> list[list]:
    payload = json.dumps(
        [
            {
                "source": j.source,
                "name": j.name,
                "inputs": j.inputs,
                "globals": list(j.globals),
                "limit": call_limit,
                "sandbox": j.sandbox,
            }
            for j in jobs
        ]
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", _CHILD.replace("MEMORY_LIMIT", str(MEMORY_LIMIT))],
        input=payload,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"harness failed ({done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout)


def normal(outcome: list) -> bool:
    return outcome[0] == "ok"


def disagreements(original: list[list], variant: list[list]) -> list[int]:
    """Inputs on which the original completes normally and the variant does
    not do exactly the same (docs/semantics.md: only normal completions count)."""
    return [k for k, (a, b) in enumerate(zip(original, variant)) if normal(a) and a != b]


__all__ = ["Job", "run_jobs", "disagreements", "normal", "CALL_LIMIT"]
