"""The CLI runner of tests/cli, for the audit's command-line tests."""

from tests.cli.conftest import invoke  # noqa: F401
