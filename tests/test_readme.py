"""The README's examples show real output, and its test command is CI's."""

from __future__ import annotations

import re

import pytest

from invar.cli.readme import commands, run
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_readme_has_examples_for_every_command():
    from invar.cli.reference import walk

    shown = {c.split()[1] for c, _ in commands(README)}
    leaves = {c.path[1] for c in walk() if len(c.path) > 1}
    assert leaves <= shown, f"README has no example for: {sorted(leaves - shown)}"


@pytest.mark.parametrize("command, shown", commands(README), ids=[c for c, _ in commands(README)])
def test_readme_examples_print_what_the_readme_shows(command, shown):
    """One test per example, so that the suite's workers share them."""
    assert run(command, ROOT) == shown, f"README example is stale: {command} (run python tools/regenerate.py)"


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    for tool in ("ruff check", "ruff format", "pytest"):
        match = re.search(rf"^(python -m {tool} .*)$", ci, re.M)
        assert match, f".ci/run runs no {tool} command"
        assert match.group(1) in README, f"README must give the exact {tool} command .ci/run runs"
    assert "bash .ci/run" in README
