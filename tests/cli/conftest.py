"""Drive the CLI in-process with typer's CliRunner."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import invar.cli.commands  # noqa: F401  (registers every command)
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
