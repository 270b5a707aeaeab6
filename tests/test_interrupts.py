"""Sections that finish before an interrupt acts, and pools whose workers
leave SIGINT to the parent (the commands that use them are interrupted in
tests/cli/test_interrupt.py)."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from invar import interrupts
from invar.files import write_atomic


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt, as in an interactive shell, even where
    the suite was started with SIGINT ignored (under nohup, or as a
    background job of a shell without job control)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


class _Interrupting:
    """A file that receives SIGINT (as from Ctrl-C) right after its
    ``at``-th write, in the middle of the writer's work."""

    def __init__(self, f, at: int) -> None:
        self.f, self.at, self.writes = f, at, 0

    def write(self, data) -> int:
        n = self.f.write(data)
        self.writes += 1
        if self.writes == self.at:
            os.kill(os.getpid(), signal.SIGINT)
        return n

    def flush(self) -> None:
        self.f.flush()


def _write_lines(f) -> None:
    for _ in range(1000):
        f.write(b"whole\n")


def _torch_save(f) -> None:
    """torch.save of a tensor, torch imported here: this module stays cheap
    to import for the spawned pool workers below, which import it to find
    their task."""
    import torch

    torch.save({"w": torch.arange(1000)}, _Interrupting(f, at=2))


@pytest.mark.parametrize(
    "write",
    [
        # interrupted there, torch.save raises "RuntimeError: … unexpected pos 30 vs 0"
        pytest.param(_torch_save, id="torch.save"),
        pytest.param(lambda f: _write_lines(_Interrupting(f, at=1)), id="plain"),
    ],
)
def test_an_interrupt_during_an_atomic_write_waits_for_the_file(tmp_path, write) -> None:
    """torch.save would turn a KeyboardInterrupt raised in its writes into a
    RuntimeError: held until the file is in place, Ctrl-C stays Ctrl-C."""
    path = tmp_path / "m.pt"
    path.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, write)
    assert path.read_bytes() != b"old"  # the new file is whole and in place
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]


def test_deferred_acts_on_the_first_signal_at_its_end() -> None:
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("end of the section")
    assert reached == ["end of the section"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _sigint_disposition(_: int) -> tuple[bool, bool]:
    """(SIGINT ignored, SIGINT blocked) in a worker."""
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN, blocked


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_workers_ignore_sigint_and_the_pool_is_reaped(method) -> None:
    with interrupts.pool(2, method=method) as pool:
        assert pool.map(_sigint_disposition, range(4)) == [(True, False)] * 4
        children = [p for p in pool._pool]
    assert all(p.exitcode is not None for p in children)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # the parent's mask is back


def _wait_for_work() -> None:
    """A forked process that has not yet installed handlers of its own (a
    pool worker still starting): it only waits."""
    import time

    time.sleep(120)


def test_a_process_forked_in_a_deferred_section_still_ends_on_sigterm() -> None:
    """Pool.terminate sends SIGTERM to a worker that may not have started:
    the handler it inherits from the section must end it, not hold the
    signal (the worker would then wait for a task forever, and the command
    with it)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with interrupts.deferred():
        child = ctx.Process(target=_wait_for_work)
        child.start()
    # the child's handlers are still the section's, whatever the parent's are now
    try:
        child.join(0.5)  # let it settle past fork
        os.kill(child.pid, signal.SIGTERM)
        child.join(60)
        assert child.exitcode == 128 + signal.SIGTERM
    finally:
        if child.exitcode is None:
            child.kill()
            child.join()


def _deaf_to_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_a_worker_that_outlives_its_sigterm_is_killed_and_the_pool_still_ends() -> None:
    """Pool.terminate alone waits for a worker that misses its SIGTERM
    without end; the pool's block ends all the same, every worker reaped."""
    import threading

    workers = []

    def run() -> None:
        with interrupts.pool(2, method="fork", initializer=_deaf_to_sigterm) as pool:
            assert pool.map(abs, [-1, -2]) == [1, 2]
            workers.extend(pool._pool)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the pool's block never ended"
    assert workers and all(w.exitcode is not None for w in workers)


_SLOW_EXIT = '''
import atexit, time
from invar import interrupts

atexit.register(time.sleep, 1.0)  # a slow exit callback, registered as torch's are: at import


def double(x):
    return 2 * x


if __name__ == "__main__":
    with interrupts.pool(2, method="spawn") as pool:
        print(pool.map(double, [1, 2, 3]))
'''


def test_a_spawned_pool_ends_without_printing_its_workers_exit(tmp_path) -> None:
    """A spawned worker runs its exit callbacks after ``Pool.terminate`` has
    told it to stop, and the SIGTERM that follows lands in them: the
    command's output holds the answers and nothing else."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "spawned.py"
    script.write_text(_SLOW_EXIT)
    root = Path(interrupts.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[2, 4, 6]\n"
    assert done.stderr == ""


# ------------------------------------------------------- the command line
@pytest.mark.parametrize(
    "argv, command_line",
    [
        (["/venv/bin/python", "/venv/bin/invar", "data", "names"], True),  # the console script pip writes
        (["python", "-u", "-m", "invar", "train"], True),  # torchrun's processes
        (["python", "-minvar", "audit"], True),
        (["python", "-X", "importtime", "-W", "ignore", "/usr/local/bin/invar"], True),
        (["python", "-m", "pytest", "tests"], False),
        (["python", "-m", "invar.cli.app"], False),
        (["python", "/venv/bin/pytest", "-m", "invar"], False),
        # a spawned pool worker of the command line: given its parent's sys.argv, started with -c
        (
            ["python", "-c", "from multiprocessing.spawn import spawn_main; spawn_main()", "--multiprocessing-fork"],
            False,
        ),
        (["python", "tools/regenerate.py"], False),
        (["python"], False),
    ],
)
def test_the_command_line_is_told_by_the_interpreters_arguments(monkeypatch, argv, command_line) -> None:
    monkeypatch.setattr(sys, "orig_argv", argv)
    monkeypatch.setattr(sys, "argv", ["/venv/bin/invar", "data"])  # never what decides
    assert interrupts._command_line() is command_line


def test_starting_touches_the_command_line_alone(monkeypatch) -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "pytest"])
    interrupts.starting()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    monkeypatch.setattr(sys, "orig_argv", ["python", "/venv/bin/invar"])
    try:
        interrupts.starting()
        assert signal.getsignal(signal.SIGINT) is interrupts._stop_starting
        assert signal.getsignal(signal.SIGTERM) is (
            interrupts._stop_starting if before[1] == signal.SIG_DFL else before[1]
        )
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


#: (script, status, standard output): the command line's stages, each in a process of its own
STAGES = [
    # the process exits, its command done: a signal ends it silently, what it wrote flushed first
    pytest.param(
        "print('whole'); interrupts.finishing(); signal.raise_signal(signal.SIGTERM); print('never')",
        143,
        "whole\n",
        id="finishing",
    ),
    # it is leaving for an interrupt: another signal ends it with that interrupt's status
    pytest.param(
        "interrupts.finishing(130); signal.raise_signal(signal.SIGTERM); print('never')",
        130,
        "",
        id="finishing-for-an-interrupt",
    ),
    # on its way out (a SystemExit being handled): raised now, the signal's exception would be a traceback
    pytest.param(
        """interrupts.take_over()
try:
    raise SystemExit(0)
except SystemExit:
    print('leaving')
    signal.raise_signal(signal.SIGTERM)
    print('never')""",
        143,
        "leaving\n",
        id="while-exiting",
    ),
    # raised in a weakref callback, the signal's exception is raised again after it
    pytest.param(
        """interrupts.take_over()
class Thing:
    pass
try:
    thing = Thing()
    ref = weakref.ref(thing, lambda _: signal.raise_signal(signal.SIGTERM))
    del thing
    print(sum(range(3)))
    print('lost')
except interrupts.Terminated:
    print('raised after the callback', interrupts.signalled() == signal.SIGTERM)""",
        0,
        "raised after the callback True\n",
        id="callback",
    ),
    # in a deferred section, the callback's signal is held like any other, and acted on at its end
    pytest.param(
        """interrupts.take_over()
class Thing:
    pass
try:
    with interrupts.deferred():
        thing = Thing()
        ref = weakref.ref(thing, lambda _: signal.raise_signal(signal.SIGINT))
        del thing
        print('the section ends')
    print('lost')
except KeyboardInterrupt:
    print('raised at its end')""",
        0,
        "the section ends\nraised at its end\n",
        id="callback-in-a-deferred-section",
    ),
]


@pytest.mark.parametrize("script, status, out", STAGES)
def test_the_command_lines_signals_are_neither_lost_nor_printed(script, status, out) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", f"import signal, weakref\nfrom invar import interrupts\n{script}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, out, "")
