"""Ctrl-C stops every long-running command at once, whatever its workers are
doing, and leaves its output consistent.

Each case starts the real command in a process group of its own, waits until
it has demonstrably started its work (a file it writes exists, a line is
out, a request has reached the server), then sends SIGINT to the command
alone or, as a terminal's Ctrl-C does, to its whole group (workers and the
programs they run included). The command must exit 130 well within the
bound (the product aims at 2 s; the bound tolerates a loaded machine), say
``interrupted`` without a traceback, leave no process of its group behind,
no temporary file, and an output that is whole or resumable.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

import pytest

from invar import checkpoint
from invar.frontends.ltl.check import check
from invar.frontends.ltl.formula import parse_formula
from invar.frontends.ltl.generate import read_dataset
from invar.frontends.ltl.trace import parse_trace
from tests.cli.conftest import sigint_delivered
from tests.conftest import FIXTURES, TORCHRUN, Invoke, bhive_files

#: seconds from the signal to the exit (the product's aim is 2)
EXIT_BOUND = 30
#: seconds a command may take to start its work on a loaded machine
START_BOUND = 180


class Run:
    """A command running in its own process group, its output collected."""

    def __init__(
        self, argv: list[str], cwd: Path, env: dict | None = None, launcher: tuple[str, ...] = ("-m", "invar")
    ) -> None:
        # a command still running past the bound is stopped with SIGABRT:
        # the faulthandler shows where each of its threads was
        env = {**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"}
        with sigint_delivered():
            self.proc = subprocess.Popen(
                [sys.executable, *launcher, *argv],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self._readers = [
            threading.Thread(target=_drain, args=(s, into), daemon=True)
            for s, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for t in self._readers:
            t.start()

    @property
    def stdout(self) -> str:
        return b"".join(self.out).decode()

    @property
    def stderr(self) -> str:
        return b"".join(self.err).decode()

    def wait_started(self, started: Callable[["Run"], bool]) -> None:
        deadline = time.monotonic() + START_BOUND
        while not started(self):
            assert self.proc.poll() is None, f"ended before it started its work:\n{self.stderr[-3000:]}"
            assert time.monotonic() < deadline, "never started its work"
            time.sleep(0.02)

    def interrupt(self, group: bool) -> float:
        """Send SIGINT; the seconds until the process ended."""
        start = time.monotonic()
        if group:
            os.killpg(self.proc.pid, signal.SIGINT)
        else:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(EXIT_BOUND)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            self.finish()
            pytest.fail(f"still running {EXIT_BOUND} s after SIGINT:\n{self.stderr[-3000:]}")
        return time.monotonic() - start

    def finish(self) -> bool:
        """Whether the command's group (workers, llvm-mca …) ended with it;
        what is left of it is killed, and the output collected."""
        deadline = time.monotonic() + EXIT_BOUND
        while _alive(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        gone = not _alive(self.proc.pid)
        if not gone:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for t in self._readers:
            t.join(EXIT_BOUND)
        return gone


def _alive(group: int) -> bool:
    """Whether a process of ``group`` runs (zombies, which nothing may be
    left to reap in a container, do not count)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                return True
    return False


def _drain(stream, into: list[bytes]) -> None:
    for chunk in iter(lambda: stream.read1(65536), b""):
        into.append(chunk)


# ------------------------------------------------------------------ the cases
@dataclass
class Case:
    id: str
    #: the command's arguments, given the test's directory
    argv: Callable[[Path], list[str]]
    #: has the command demonstrably started its work?
    started: Callable[[Path, Run], bool]
    #: the whole group (Ctrl-C at a terminal) or the command alone
    group: bool
    #: what must hold of the output afterwards (may run the command again)
    check: Callable[[Path, Run], None]


LTL = ["data", "ltl", "--seed", "4", "--num", "1000000"]


def _again(tmp: Path, run: Run, option: str, value: int):
    """The interrupted command run again to its end, ``option`` set to
    ``value``: in this process (the interrupted one and its group are gone,
    and with them its locks), from its directory."""
    argv = list(run.proc.args[3:])
    argv[argv.index(option) + 1] = str(value)
    with contextlib.chdir(tmp):
        return Invoke()(*argv)


def _ltl_resumes(tmp: Path, run: Run) -> None:
    """The file resumes from its checkpoint (so the lock is free) and every
    record of the finished file holds."""
    meta = json.loads((tmp / "d.txt.meta.json").read_text())
    again = _again(tmp, run, "--num", meta["next"] + 5)
    assert again.exit_code == 0, again.output
    pairs = list(read_dataset((tmp / "d.txt").read_text()))
    assert len(pairs) == meta["next"] + 5
    for formula, trace in pairs[-10:]:
        assert check(parse_formula(formula), parse_trace(trace)).holds


def _ltl_stream_whole(tmp: Path, run: Run) -> None:
    lines = run.stdout.split("\n")
    whole = lines[:-1]  # the last piece, if any, is what the pipe took before the end
    assert len(whole) >= 2
    for formula, trace in zip(whole[0::2], whole[1::2]):
        assert check(parse_formula(formula), parse_trace(trace)).holds


def _jsonl_whole(tmp: Path, run: Run) -> None:
    lines = run.stdout.split("\n")[:-1]
    assert lines
    for line in lines:
        assert json.loads(line)["schema"] == 1


def _bhive_resumes(tmp: Path, run: Run) -> None:
    out = tmp / "labels"
    assert not (out / "train.csv").exists()  # nothing presented as a finished dataset
    labels = (out / "labels.jsonl").read_text().splitlines()
    for line in labels[1:-1]:  # the last line may be cut: a resumed run ignores it
        assert "hex" in json.loads(line)
    again = _again(tmp, run, "--limit", 40)
    assert again.exit_code == 0, again.output
    assert (out / "train.csv").exists() and (out / "meta.json").exists()


def _train_state_whole(tmp: Path, run: Run) -> None:
    state = checkpoint.load(tmp / "m.resume.pt", kind="resume")
    assert state["step"] >= 0


def _one_line(tmp: Path, run: Run) -> bool:
    return b"\n" in b"".join(run.out)


def _wide_python(tmp: Path) -> str:
    body = "".join(f"    a{k} = x + {k}\n" for k in range(20))
    (tmp / "wide.py").write_text(f"def f(x):\n{body}    return x\n")
    return "wide.py"


CASES = [
    Case(
        "ltl-one-process",
        lambda t: [*LTL, "--max-size", "20", "--jobs", "1", "--out", "d.txt"],
        lambda t, r: (t / "d.txt.meta.json").exists(),
        False,
        _ltl_resumes,
    ),
    # workers deep in a long pure-Python search (formulas up to 35 nodes)
    Case(
        "ltl-workers-busy-ctrl-c",
        lambda t: [*LTL, "--max-size", "35", "--jobs", "3", "--out", "d.txt"],
        lambda t, r: (t / "d.txt.meta.json").exists(),
        True,
        _ltl_resumes,
    ),
    Case(
        "ltl-workers-signal-to-parent",
        lambda t: [*LTL, "--max-size", "20", "--jobs", "2", "--out", "d.txt"],
        lambda t, r: (t / "d.txt.meta.json").exists(),
        False,
        _ltl_resumes,
    ),
    Case(
        "ltl-stream",
        lambda t: [*LTL, "--max-size", "20", "--jobs", "2", "--out", "-"],
        _one_line,
        True,
        _ltl_stream_whole,
    ),
    # spawned workers still importing invar when labels.jsonl gets its header
    Case(
        "bhive-pool-starting-ctrl-c",
        lambda t: [
            "data",
            "bhive",
            "--source",
            str(bhive_files()[0]),
            "--limit",
            "3000",
            "--chunk",
            "20",
            "--jobs",
            "2",
            "--out",
            "labels",
        ],
        lambda t, r: (t / "labels" / "labels.jsonl").exists(),
        True,
        _bhive_resumes,
    ),
    Case(
        "bhive-one-process-ctrl-c",
        lambda t: [
            "data",
            "bhive",
            "--source",
            str(bhive_files()[0]),
            "--limit",
            "3000",
            "--chunk",
            "20",
            "--jobs",
            "1",
            "--out",
            "labels",
        ],
        lambda t, r: (
            len((t / "labels" / "labels.jsonl").read_text().splitlines()) > 1
            if (t / "labels" / "labels.jsonl").exists()
            else False
        ),
        True,
        _bhive_resumes,
    ),
    Case(
        "train",
        lambda t: [
            "train",
            "--data",
            str(t / "ds"),
            "--arch",
            "renamer",
            "--epochs",
            "100000",
            "--batch-size",
            "2",
            "--threads",
            "1",
            "--save-every",
            "1",
            "--out",
            "m.pt",
        ],
        lambda t, r: (t / "m.resume.pt").exists(),
        True,
        _train_state_whole,
    ),
    Case(
        "renamings-enumerate",
        lambda t: ["renamings", _wide_python(t), "--names", "v0..v99", "--format", "jsonl"],
        _one_line,
        True,
        _jsonl_whole,
    ),
    Case(
        "permutations-sample",
        lambda t: ["permutations", _wide_python(t), "--sample", "100000000", "--format", "jsonl"],
        _one_line,
        False,
        _jsonl_whole,
    ),
]


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    """The fixture blocks labelled by llvm-mca (a training set)."""
    from invar.data import bhive

    out = tmp_path_factory.mktemp("ds")
    bhive.build([str(FIXTURES / "x86" / "blocks.csv")], out, jobs=1)
    return out


def _interrupted(run: Run, tmp: Path, group: bool) -> float:
    elapsed = run.interrupt(group)
    gone = run.finish()
    assert run.proc.returncode == 130, run.stderr[-3000:]
    assert run.stderr.rstrip().endswith("interrupted") and "Traceback" not in run.stderr, run.stderr[-3000:]
    assert gone, "a worker outlived the command"
    assert not [p for p in tmp.rglob("*") if p.name.endswith(".tmp")]
    return elapsed


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sigint_stops_the_command_and_keeps_its_output(case: Case, tmp_path, labelled, record_property) -> None:
    if case.id == "train":
        os.symlink(labelled, tmp_path / "ds")
    run = Run(case.argv(tmp_path), tmp_path)
    try:
        run.wait_started(lambda r: case.started(tmp_path, r))
        elapsed = _interrupted(run, tmp_path, case.group)
    finally:
        run.finish()
    record_property("oracle", f"{case.id}: exited {elapsed:.2f} s after SIGINT")
    case.check(tmp_path, run)


# ------------------------------------------------------- audit over HTTP
class Hanging(BaseHTTPRequestHandler):
    """An endpoint that takes every request and never answers it."""

    asked = threading.Event()
    release = threading.Event()

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        Hanging.asked.set()
        Hanging.release.wait(600)


def test_sigint_stops_an_audit_waiting_on_its_requests(tmp_path) -> None:
    """Requests in flight on the audit's threads (the endpoint never answers,
    the timeout is long) do not hold the exit back."""
    Hanging.asked.clear()
    Hanging.release.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hanging)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    (tmp_path / "blocks.s").write_text("addq %rax, %rbx\nimulq %rbx, %rcx\n\nmovq $7, %rdx\naddq %rdx, %rsi\n")
    (tmp_path / "prompt.txt").write_text("Cycles?\n{program}\n")
    url = f"http://127.0.0.1:{server.server_address[1]}/v1#toy"
    run = Run(
        [
            "audit",
            "--model",
            url,
            "--prompt",
            "prompt.txt",
            "--task",
            "bhive",
            "--dataset",
            "blocks.s",
            "--timeout",
            "600",
            "--retries",
            "0",
            "--concurrency",
            "4",
        ],
        tmp_path,
        env={**os.environ, "NO_PROXY": "127.0.0.1,localhost"},
    )
    try:
        run.wait_started(lambda r: Hanging.asked.is_set())
        _interrupted(run, tmp_path, group=False)
    finally:
        Hanging.release.set()
        run.finish()
        server.shutdown()
        server.server_close()
    assert run.stdout == ""  # no report of an audit that did not finish


# ------------------------------------- interrupted inside their own writes
def _interrupt_second_write(monkeypatch) -> None:
    """The second atomic write of the command writes part of its file, then
    meets Ctrl-C (KeyboardInterrupt, as Python raises it)."""
    from invar import files

    original, calls = files.write_atomic, []

    def write_atomic(path, write):
        calls.append(path)
        if len(calls) != 2:
            return original(path, write)

        def torn(f):
            f.write(b"part of a file")
            raise KeyboardInterrupt

        return original(path, torn)

    monkeypatch.setattr(files, "write_atomic", write_atomic)


def _interrupt_prediction(monkeypatch) -> None:
    from invar.nn.model import Model

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Model, "predict_encoded", interrupted)


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """Three Python fixture files: a dataset written in a moment (what is
    interrupted is its writes, a split each, whatever their size)."""
    src = tmp_path_factory.mktemp("sources")
    for name in ("arith.py", "control.py", "lists.py"):
        (src / name).write_text((FIXTURES / "python" / name).read_text())
    return src


#: (id, arguments given the output and source directories, how Ctrl-C comes,
#: what a whole run leaves that an interrupted one must not)
WRITES = [
    (
        "data-names",
        lambda out, src: ["data", "names", "--source", str(src), "--out", str(out)],
        _interrupt_second_write,
        "meta.json",
    ),
    (
        "data-bugs",
        lambda out, src: ["data", "bugs", "--source", str(src), "--out", str(out)],
        _interrupt_second_write,
        "meta.json",
    ),
    (
        "data-copy",
        lambda out, src: ["data", "copy", "--train", "50", "--valid", "5", "--test", "5", "--out", str(out)],
        _interrupt_second_write,
        "meta.json",
    ),
    (
        "data-lm",
        lambda out, src: ["data", "lm", "--source", str(src), "--out", str(out), "--seq-len", "64"],
        _interrupt_second_write,
        "meta.json",
    ),
    (
        "predict",
        lambda out, src: [
            "predict",
            "--model",
            str(FIXTURES / "models" / "renamer.pt"),
            str(FIXTURES / "x86" / "figure1a.s"),
        ],
        _interrupt_prediction,
        None,
    ),
]


@pytest.mark.parametrize("case_id, argv, interrupt, marker", WRITES, ids=[w[0] for w in WRITES])
def test_interrupted_writes_leave_no_half_dataset(
    invoke, monkeypatch, tmp_path, sources, case_id, argv, interrupt, marker
) -> None:
    """A dataset written again and interrupted half-way is no dataset (its
    marker, meta.json, is written last and removed first), leaves no
    temporary file, and the next run writes it whole."""
    out = tmp_path / "out"
    if marker:
        assert invoke(*argv(out, sources)).exit_code == 0  # a whole dataset from before
        assert (out / marker).exists()
    with monkeypatch.context() as patched:
        interrupt(patched)
        result = invoke(*argv(out, sources))
    assert result.exit_code == 130, result.output
    assert result.stderr.strip() == "interrupted" and result.stdout == ""
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    if marker:
        assert not (out / marker).exists()
        again = invoke(*argv(out, sources))
        assert again.exit_code == 0 and (out / marker).exists()


def test_sigterm_stops_a_command_like_ctrl_c(tmp_path) -> None:
    """SIGTERM (a supervisor, `timeout`, torchrun stopping its processes)
    runs the same cleanups: workers reaped, lock released; exit 143."""
    run = Run([*LTL, "--max-size", "20", "--jobs", "2", "--out", "d.txt"], tmp_path)
    try:
        run.wait_started(lambda r: (tmp_path / "d.txt.meta.json").exists())
        run.proc.send_signal(signal.SIGTERM)
        run.proc.wait(EXIT_BOUND)
    finally:
        gone = run.finish()
    assert run.proc.returncode == 143 and run.stderr.rstrip().endswith("interrupted"), run.stderr[-3000:]
    assert gone and not list(tmp_path.glob("*.tmp"))
    _ltl_resumes(tmp_path, run)


def test_ctrl_c_stops_torchrun_training_processes(tmp_path, labelled) -> None:
    """Ctrl-C reaches torchrun and every training process: each process
    says ``interrupted`` and ends, nothing of the group is left, the saved
    training state is whole. (torchrun's own exit status and its report of
    the signal are torchrun's.)"""
    argv = [
        "train",
        "--data",
        str(labelled),
        "--arch",
        "renamer",
        "--epochs",
        "100000",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "--save-every",
        "1",
        "--out",
        "m.pt",
    ]
    run = Run(argv, tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1"}, launcher=TORCHRUN)
    try:
        run.wait_started(lambda r: (tmp_path / "m.resume.pt").exists())
        run.interrupt(group=True)
    finally:
        gone = run.finish()
    assert gone, "a training process outlived torchrun"
    assert run.stderr.splitlines().count("interrupted") == 2, run.stderr[-3000:]
    assert checkpoint.load(tmp_path / "m.resume.pt", kind="resume")["step"] >= 0
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
