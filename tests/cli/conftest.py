"""Drive the CLI in-process with typer's CliRunner."""

from __future__ import annotations

import contextlib
import signal

import pytest
from typer.testing import CliRunner

from invar.cli.app import app


class Invoke:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | bytes | None = None):
        result = self.runner.invoke(app, [str(a) for a in args], input=input)
        # no traceback ever reaches a user, whatever happened
        assert "Traceback" not in result.output + result.stderr
        if result.exception is not None:
            assert isinstance(result.exception, SystemExit), repr(result.exception)
        return result


@pytest.fixture
def invoke() -> Invoke:
    return Invoke()


@contextlib.contextmanager
def sigint_delivered():
    """Start subprocesses in this block with SIGINT delivered. A process
    started with SIGINT ignored keeps ignoring it, and so do its children (a
    background job of a non-interactive shell, as a CI runner may start the
    tests, is one): a command that must be interrupted must not inherit that."""
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def messages(stderr: str) -> list[str]:
    """The message lines of ``stderr``: each located error's first line,
    without the source line and caret printed under it (indented by two)."""
    return [line for line in stderr.splitlines() if not line.startswith("  ")]
