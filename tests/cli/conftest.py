"""What the CLI tests share: a SIGINT that reaches subprocesses, and the
message lines of an error output (``invoke`` is in tests/conftest.py)."""

from __future__ import annotations

import contextlib
import signal


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
