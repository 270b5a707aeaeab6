"""Shared fixtures: paths to the repository's fixtures and to ../shared data,
the CLI driven in-process (``invoke``), one torch thread a test process, the
order that runs the slowest modules first, invar's bytecode compiled once,
and work counted as the Python lines a call executes."""

from __future__ import annotations

import compileall
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
BHIVE = SHARED / "data" / "bhive"
#: python's arguments that run ``invar`` in two processes started by torch.distributed.run
TORCHRUN = ("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m", "invar")

#: modules that hold a test (or a fixture) of ten seconds or more on a 2-core
#: machine, slowest first: they run first, so that pytest-xdist, which hands
#: out tests in collection order (pyproject.toml: ``--dist worksteal``, an idle
#: worker takes the end of a busy one's queue), ends the run on short tests
#: instead of leaving one worker idle while the other finishes a long one
SLOW_FIRST = (
    "audit/test_chat_audits.py",
    "test_readme.py",
    "bench/test_gpu_studies.py",
    "bench/test_bench_learning_curve.py",
    "tasks/test_canonicalized_seq.py",
    "bench/test_bench_audit.py",
    "tasks/test_ltl_task.py",
    "tasks/test_names_task.py",
    "tasks/test_bugs_task.py",
    "frontends/test_x86_scaling.py",
    "test_train.py",
    "oracles/test_python_generated.py",
    "alta/test_arithmetic.py",
    "symmetry/test_scaling.py",
    "tasks/test_copy_task.py",
    "bench/test_bench_ltl_train.py",
    "cli/test_source_datasets.py",
    "cli/test_lm_cli.py",
    "oracles/test_x86_register_sweep.py",
    "symmetry/test_canonical.py",
    "oracles/test_java_generated.py",
    "bench/test_bench_alta_end_to_end.py",
    "cli/test_signals.py",
    "audit/test_http.py",
    "cli/test_audit_cli.py",
    "audit/test_real_server.py",
)


def pytest_configure(config):
    """Compile invar's and bench's modules once, before any worker starts: the
    suite starts hundreds of interpreters that import invar, and where the
    environment sets PYTHONDONTWRITEBYTECODE (as CI's may), none would keep
    what it compiled (about 0.4 s an interpreter; a second to compile all)."""
    if not hasattr(config, "workerinput"):  # the controller, or a run without workers
        for package in ("invar", "bench"):
            compileall.compile_dir(ROOT / package, quiet=2)


def pytest_collection_modifyitems(items):
    """Run the modules of :data:`SLOW_FIRST` first, in that order, each
    module's tests in their own order; the rest keep theirs."""
    here = Path(__file__).parent
    missing = [name for name in SLOW_FIRST if not (here / name).is_file()]
    assert not missing, f"SLOW_FIRST names modules that are not there: {missing}"
    rank = {(here / name).resolve(): i for i, name in enumerate(SLOW_FIRST)}
    last = len(SLOW_FIRST)
    items.sort(key=lambda item: rank.get(item.path.resolve(), last))  # stable: ties keep their order


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    """One torch thread in each test process: the workers already share the
    cores, and small tensors only wait on more threads. (Training sets its
    own count from ``threads``; the tests that train pass 1.)"""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session", autouse=True)
def _session_reply_cache(tmp_path_factory):
    """A reply cache for the fixtures wider than a test (set up before the
    per-test one below): no module's audit reads the user's cache, or one a
    previous run left."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INVAR_REPLY_CACHE", str(tmp_path_factory.mktemp("reply-cache")))
        yield


@pytest.fixture(autouse=True)
def _own_reply_cache(request, tmp_path_factory, monkeypatch):
    """Every test keeps an endpoint's replies in a cache of its own (the audit
    caches them by default): no test reads another's, or the user's. The
    directory is named, not made: the cache makes it when a test first
    writes to it, and most tests never do."""
    base = tmp_path_factory.getbasetemp() / "reply-caches"
    monkeypatch.setenv("INVAR_REPLY_CACHE", str(base / hashlib.sha1(request.node.nodeid.encode()).hexdigest()))


class Invoke:
    """Runs ``invar ARGS`` in-process (typer's CliRunner), arguments as
    strings; whatever happened, no traceback reaches the user."""

    def __init__(self) -> None:
        from typer.testing import CliRunner

        self.runner = CliRunner()

    def __call__(self, *args, input: str | bytes | None = None):
        from invar.cli.app import app

        result = self.runner.invoke(app, [str(a) for a in args], input=input)
        assert "Traceback" not in result.output + result.stderr
        if result.exception is not None:
            assert isinstance(result.exception, SystemExit), repr(result.exception)
        return result

    def json(self, *args, input: str | bytes | None = None):
        """``invar ARGS``, which must exit 0: what it wrote, read as JSON."""
        result = self(*args, input=input)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


@pytest.fixture
def invoke() -> Invoke:
    return Invoke()


def torchrun(*args) -> subprocess.CompletedProcess:
    """``invar ARGS`` in two processes (:data:`TORCHRUN`) from the repository
    root, one thread each, its output captured as text."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, *TORCHRUN, *map(str, args)]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def bhive_files() -> list[Path]:
    """The BHive CSV files; fails (never skips) when the shared data is absent."""
    files = sorted(BHIVE.glob("*.csv"))
    if not files:
        pytest.fail(f"BHive data not found at ../shared/data/bhive (looked in {BHIVE.name})")
    return files


def bhive_blocks() -> list[str]:
    """Every distinct BHive block (hex), in a stable order."""
    seen: dict[str, None] = {}
    for path in bhive_files():
        with open(path) as f:
            for line in f:
                hexcode = line.split(",", 1)[0].strip()
                if hexcode:
                    seen.setdefault(hexcode, None)
    return list(seen)


def lines_executed(fn: Callable[[], object]) -> int:
    """The Python lines ``fn()`` executes, counted by a trace function: a
    measure of work that is the same on any machine however busy it is, where
    a time is not (what C code does within one line counts as that line)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local)
    try:
        fn()
    finally:
        sys.settrace(previous)
    return count


def pytest_terminal_summary(terminalreporter):
    """Show what the oracle tests report (blocks with pinned registers, blocks
    the emulator cannot run …) in every run's summary, xdist workers included:
    tests hand their lines over with ``record_property("oracle", line)``."""
    lines = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, "user_properties", ()):
                if key == "oracle":
                    lines.append(f"{report.nodeid.split('::')[-1]}: {value}")
    if lines:
        terminalreporter.section("oracle reports")
        for line in sorted(lines):
            terminalreporter.write_line(line)


#: the three LM embeddings the lm tests train: name -> (architecture, config overrides)
LM_EMBEDDINGS = {
    "learned": ("vanilla", None),
    "lexinvariant": ("lexinvariant", None),
    "regularised": ("lexinvariant", {"lexinvariant_p": 0.2}),
}


def char_windows(out: Path, seq_len: int = 64) -> Path:
    """``invar data lm`` over fixtures/python, character windows, written to ``out``."""
    from invar.tasks import lm

    lm.build(FIXTURES / "python", out, vocab="char", seq_len=seq_len)
    return out


def same_but_target_order(a, b) -> bool:
    """Two encodings (``invar.encoding.Encoded``) equal in every array a model
    reads; the admissible targets of each renamable referent may be listed
    in another order."""
    from dataclasses import replace

    return replace(a, rename_targets=None, rename_offsets=None).same(
        replace(b, rename_targets=None, rename_offsets=None)
    )
