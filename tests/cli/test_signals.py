"""No traceback on any signal at any moment: SIGINT or SIGTERM, wherever it
lands in a run of the command line (its imports, argument parsing, the
command's work and workers, its output, its exit, inside a weakref callback
or an exit function, a second one while the first is being acted on), ends
the process with 130 or 143 and at most the one line ``interrupted``.

The points are deterministic, not sleeps that may land anywhere on a busy
machine: each run goes through a launcher that is the console script
(``from invar.cli.app import main``, under the name ``invar``) plus an audit
hook (:func:`sys.addaudithook`), which has the process signal itself at the
N-th audited event of its main thread (an import, a file opened, a fork …),
at the first import of a named module, or from inside a callback. Every
outcome is asserted; none depends on timing. (The longer commands, stopped
while their workers run, are in test_interrupt.py.)

Both signals go through the same handler at each stage of a run (only the
status and the exception raised differ, and every run asserts the status):
a point is taken by one signal, the two in turn, so that each signal lands
in every stage the points cover. Only a weakref callback (where each
signal's exception must be raised again) and the arguments read by typer
take both.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import sigint_delivered
from tests.conftest import FIXTURES

#: the console script pip writes, with the hooks each case asks for (environment variables)
LAUNCHER = r"""
import atexit, importlib, os, signal, sys, threading, weakref

SIG = getattr(signal, os.environ["T_SIGNAL"])
MODE, AT = os.environ["T_MODE"], os.environ.get("T_AT", "")
MARK = os.open(os.environ["T_MARK"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
HOME, MAIN = os.getpid(), threading.get_ident()
state = {"counting": False, "events": 0}


def fire(why):
    os.write(MARK, f"fired {why}\n".encode())
    signal.raise_signal(SIG)


def hook(event, args):
    if os.getpid() != HOME or threading.get_ident() != MAIN:
        return  # a pool's worker, or a thread: the main thread's events alone are deterministic
    if MODE == "import" and event == "import" and args[0] == AT:
        fire(AT)
    elif MODE == "named" and state["counting"] and event == AT.split(" ")[0] \
            and AT.partition(" ")[2] in str(args[0] if args else ""):
        state["counting"] = False
        fire(AT)
    elif MODE in ("count", "event") and state["counting"]:
        state["events"] += 1
        if MODE == "event" and state["events"] == int(AT):
            fire(event)


class Thing:
    pass


def in_callback():
    # a signal raised inside a weakref callback, where Python cannot raise it
    thing = Thing()
    keep = weakref.ref(thing, lambda ref: fire("weakref callback"))
    del thing
    return keep


sys.addaudithook(hook)
# registered first, run last: the events up to the end of the exit functions
atexit.register(lambda: os.write(MARK, f"events {state['events']}\n".encode()))
if MODE == "at-exit":  # the command ends normally; the signal comes while the process exits
    atexit.register(fire, "exit function")
from invar.cli.app import main

if MODE in ("callback", "twice"):  # patched: the function of the command's work (T_AT: module:function)
    module, name = AT.split(":")
    module = importlib.import_module(module)
    work = getattr(module, name)

    def patched(*args, **kwargs):
        if MODE == "callback":
            in_callback()
        else:  # once in the command, once more while it is leaving (its exit functions)
            atexit.register(fire, "exit function")
            fire("command")
        return work(*args, **kwargs)

    setattr(module, name, patched)
state["counting"] = True
sys.exit(main())
"""


@pytest.fixture(scope="module")
def launcher(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bin") / "invar"
    path.write_text(LAUNCHER)
    return path


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A few files of two languages, for invar data names."""
    src = tmp_path_factory.mktemp("src")
    for name in ("arith.py", "control.py", "lists.py"):
        (src / name).write_text((FIXTURES / "python" / name).read_text())
    (src / "Arith.java").write_text((FIXTURES / "java" / "Arith.java").read_text())
    return src


#: the commands: invar data ltl (seconds of work in two workers, a lock, a checkpoint, no torch to
#: import) and invar data names (its files read in two workers)
LTL = ["data", "ltl", "--num", "40", "--max-size", "8", "--seed", "1", "--jobs", "2", "--out", "{out}/ltl.txt"]
NAMES = ["data", "names", "--source", "{source}", "--out", "{out}/names", "--jobs", "2"]


class Outcome:
    def __init__(self, proc: subprocess.CompletedProcess, mark: Path, out: Path) -> None:
        self.status, self.stderr, self.stdout = proc.returncode, proc.stderr, proc.stdout
        marks = mark.read_text().splitlines() if mark.exists() else []
        self.fired = [m.split(" ", 1)[1] for m in marks if m.startswith("fired ")]
        self.events = next((int(m.split()[1]) for m in marks if m.startswith("events ")), None)
        self.out = out


def _run(launcher: Path, argv: list[str], source: Path, tmp: Path, sig: str, mode: str, at: str = "") -> Outcome:
    out = tmp / f"out-{sig}-{mode}-{''.join(c if c.isalnum() else '_' for c in at)}"
    out.mkdir()
    env = {**os.environ, "T_SIGNAL": sig, "T_MODE": mode, "T_AT": at, "T_MARK": str(out / "mark")}
    argv = [a.format(out=out, source=source) for a in argv]
    with sigint_delivered():
        proc = subprocess.run(
            [sys.executable, str(launcher), *argv],
            env=env,
            cwd=out,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    return Outcome(proc, out / "mark", out)


def _ended_by(outcome: Outcome, sig: str) -> None:
    """The signal ended the run: its status, one line at most, no traceback,
    no temporary file left, no dataset that looks whole and is not."""
    assert outcome.fired, f"the signal never came:\n{outcome.stderr[-3000:]}"
    assert outcome.status == 128 + getattr(signal, sig), (outcome.status, outcome.fired, outcome.stderr[-3000:])
    assert outcome.stderr in ("", "interrupted\n"), (outcome.fired, outcome.stderr[-3000:])
    assert not list(outcome.out.rglob("*.tmp")) and not list(outcome.out.rglob(".*.tmp"))
    if (outcome.out / "names" / "meta.json").exists():  # written last: the dataset is whole
        assert all((outcome.out / "names" / f"{s}.csv").exists() for s in ("train", "valid", "test"))


@pytest.fixture(scope="module")
def events(launcher, source, tmp_path_factory) -> int:
    """The audited events of a whole ``invar data ltl`` run's main thread,
    from ``main()`` to the end of its exit functions."""
    outcome = _run(launcher, LTL, source, tmp_path_factory.mktemp("count"), "SIGINT", "count")
    assert outcome.status == 0 and outcome.stderr == "", outcome.stderr[-3000:]
    assert outcome.events and outcome.events > 500, outcome.events
    return outcome.events


#: the signals, which take the points of a test in turn (the module docstring)
SIGNALS = ("SIGINT", "SIGTERM")


def in_turn(points, sig: str) -> list:
    """The points ``sig`` takes: every other one, the first for SIGINT."""
    return list(points)[SIGNALS.index(sig) :: len(SIGNALS)]


#: where in a run the signal lands: shares of its events (arguments read, the command's imports) ...
SHARES = (0.0, 0.05, 0.5)
#: ... and events before its end (the lock, the checkpoint, the workers forked, their results, the summary)
LAST = (105, 60, 40, 20, 4, 0)


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_at_any_point_of_a_run_ends_it_with_one_line(launcher, source, events, tmp_path, sig) -> None:
    points = sorted({max(1, round(share * events)) for share in SHARES} | {events - k for k in LAST})
    for at in in_turn(points, sig):
        outcome = _run(launcher, LTL, source, tmp_path, sig, "event", str(at))
        if not outcome.fired:  # a run may have a few events fewer than the counted one: it then ends whole
            assert at > events - 50 and outcome.status == 0 and outcome.stderr == "", (at, outcome.stderr)
            continue
        _ended_by(outcome, sig)


@pytest.mark.parametrize(
    "at, sig",
    list(zip(["os.fork", "open /names/.meta.json."], SIGNALS)),
    ids=["workers-forked-SIGINT", "meta-written-SIGTERM"],
)
def test_a_signal_while_names_reads_in_workers_or_writes_ends_it_with_one_line(
    launcher, source, tmp_path, sig, at
) -> None:
    outcome = _run(launcher, NAMES, source, tmp_path, sig, "named", at)
    _ended_by(outcome, sig)
    assert outcome.stderr == "interrupted\n" and not (outcome.out / "names" / "meta.json").exists()


def _package_takes_signals_first() -> bool:
    """Whether ``invar/__init__.py`` imports :mod:`invar.interrupts` before
    anything else of invar (its import takes the command line's signals)."""
    import ast

    import invar

    tree = ast.parse(Path(invar.__file__).read_text(encoding="utf-8"))
    ours = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 1]
    return bool(ours) and [a.name for a in ours[0].names] == ["interrupts"] and not ours[0].module


#: modules the command line imports, first to last: before invar.cli.console (which imports invar.interrupts)
#: and after it
EARLY_IMPORTS = ("invar.errors", "invar.program", "typer", "rich.console")
LATE_IMPORTS = ("numpy", "invar.cli.audit", "invar.cli.data")


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize(
    "modules",
    [
        pytest.param(
            EARLY_IMPORTS,
            id="early",
            marks=pytest.mark.skipif(
                not _package_takes_signals_first(),
                reason="invar/__init__.py does not yet import invar.interrupts first "
                "('from . import interrupts  # noqa: F401' above its other imports): issue 35, item 13",
            ),
        ),
        pytest.param(LATE_IMPORTS, id="late"),
    ],
)
def test_a_signal_while_the_command_line_imports_ends_it_with_one_line(
    launcher, source, tmp_path, sig, modules
) -> None:
    for module in in_turn(modules, sig):
        outcome = _run(launcher, LTL, source, tmp_path, sig, "import", module)
        assert outcome.fired == [module], (module, outcome.stderr[-3000:])
        _ended_by(outcome, sig)
        assert outcome.stderr == "interrupted\n" and outcome.stdout == "", (module, outcome.stderr[-3000:])


@pytest.mark.parametrize(
    "mode, said, sig",
    [
        # raised inside a weakref callback, the signal's exception would be printed as ignored, and lost:
        # KeyboardInterrupt and invar's own Terminated are each raised again
        ("callback", "interrupted\n", "SIGINT"),
        ("callback", "interrupted\n", "SIGTERM"),
        # a second signal while the first is acted on (exit functions run) changes nothing
        ("twice", "interrupted\n", "SIGTERM"),
        # after the command's work: it is whole, but the process was told to stop
        ("at-exit", "", "SIGINT"),
    ],
)
def test_a_signal_in_a_callback_or_while_leaving_is_neither_lost_nor_printed(
    launcher, source, tmp_path, sig, mode, said
) -> None:
    outcome = _run(launcher, LTL, source, tmp_path, sig, mode, "invar.frontends.ltl.generate:generate_file")
    _ended_by(outcome, sig)
    assert outcome.stderr == said
    if mode == "at-exit":
        assert outcome.stdout.startswith("wrote 40 formulas") and (outcome.out / "ltl.txt").exists()


#: a command line whose option callback signals the process: typer reads the arguments outside the command,
#: and turns an interrupt there into a silent exit 130 (SIGTERM's too)
TYPER = """
import signal, sys
import typer
from invar.cli.console import command, run

app = typer.Typer()
SIG = getattr(signal, sys.argv[1])


def signalled(value):
    signal.raise_signal(SIG)
    return value


@app.command()
@command
def main(name: str = typer.Option("x", callback=signalled)) -> None:
    print("never")


sys.argv[1:] = []
run(app)
"""


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_while_the_arguments_are_read_ends_it_with_its_status_and_one_line(tmp_path, sig) -> None:
    script = tmp_path / "cli.py"
    script.write_text(TYPER)
    with sigint_delivered():
        done = subprocess.run([sys.executable, str(script), sig], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (128 + getattr(signal, sig), "", "interrupted\n")
