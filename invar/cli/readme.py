"""Keep the README's example output real.

Every ```` ```console ```` block of README.md holds ``$ invar …`` commands,
each followed by its output. :func:`run_examples` runs each command in-process
from the repository root and returns what it prints; ``tools/regenerate.py``
writes that back, and tests/test_readme.py fails when the README and the
program disagree.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

BLOCK = re.compile(r"```console\n(.*?)```", re.S)
WIDTH = 100  # rich tables wrap at the console width; fix it so output is stable


def commands(readme: str) -> list[tuple[str, str]]:
    """(command, shown output) pairs, in order."""
    pairs = []
    for block in BLOCK.findall(readme):
        current, out = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if current is not None:
                    pairs.append((current, "\n".join(out)))
                current, out = line[2:], []
            else:
                out.append(line)
        if current is not None:
            pairs.append((current, "\n".join(out)))
    return pairs


def run(command: str, root: Path) -> str:
    """What ``command`` (``invar …``) prints on stdout, lines right-stripped."""
    from typer.testing import CliRunner

    from .app import app
    from .console import stdout

    argv = shlex.split(command)
    if argv[0] != "invar":
        raise ValueError(f"README examples run invar, not {argv[0]!r}")
    old_cwd, old_width = os.getcwd(), stdout.width
    os.chdir(root)
    stdout.width = WIDTH
    try:
        result = CliRunner().invoke(app, argv[1:])
    finally:
        os.chdir(old_cwd)
        stdout.width = old_width
    return "\n".join(line.rstrip() for line in result.stdout.rstrip("\n").splitlines())


def regenerate(readme: str, root: Path) -> str:
    """The README with every example's output replaced by a fresh run."""

    def fill(match: re.Match) -> str:
        lines = []
        for command, _shown in commands("```console\n" + match.group(1) + "```"):
            lines.append(f"$ {command}")
            output = run(command, root)
            if output:
                lines.append(output)
        return "```console\n" + "\n".join(lines) + "\n```"

    return BLOCK.sub(fill, readme)
