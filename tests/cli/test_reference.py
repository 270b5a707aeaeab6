"""Generated files follow the CLI, and every command documents itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from invar.cli.reference import COMPLETIONS, markdown, walk
from tests.conftest import ROOT


@pytest.mark.parametrize("name", sorted(COMPLETIONS))
def test_completions_match_the_cli(name):
    path = ROOT / "completions" / name
    assert path.exists(), f"completions/{name} missing: run python tools/regenerate.py"
    assert path.read_text() == COMPLETIONS[name](), f"completions/{name} is stale: run python tools/regenerate.py"


def test_cli_reference_matches_the_cli():
    assert (ROOT / "docs" / "cli.md").read_text() == markdown(), "docs/cli.md is stale: run python tools/regenerate.py"


def test_every_command_has_help_with_an_example():
    commands = [c for c in walk() if len(c.path) > 1 and not c.subcommands]
    assert len(commands) >= 3
    for c in commands:
        assert c.help, f"{' '.join(c.path)} has no help"
        assert "Example:" in c.help, f"{' '.join(c.path)} has no example in its help"
        for p in c.params:
            if getattr(p, "opts", None) and p.opts[0].startswith("-"):
                assert p.help, f"{' '.join(c.path)} {p.opts[0]} has no help"


def test_bash_completion_offers_commands_and_options(tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    script = ROOT / "completions" / "invar.bash"
    probe = (
        f"source {script}; COMP_WORDS=(invar ren); COMP_CWORD=1; _invar; echo \"${{COMPREPLY[@]}}\";"
        f"COMP_WORDS=(invar renamings x.s --co); COMP_CWORD=3; _invar; echo \"${{COMPREPLY[@]}}\""
    )
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=tmp_path).stdout.splitlines()
    assert out[0] == "renamings"
    assert out[1] == "--count"


@pytest.mark.parametrize("command", ["renamings", "permutations", "train", "audit", "data ltl"])
def test_help_names_the_value_an_option_takes_and_none_for_a_flag(invoke, monkeypatch, command):
    """typer writes ``<bool>`` beside every flag (which takes no value) and
    ``<list[str]>`` beside a repeatable option (one value each time): a
    repeatable option shows the one value it takes (its metavar), never
    ``<str>...``, which reads as several values after one flag."""
    monkeypatch.setenv("COLUMNS", "200")
    shown = invoke(*command.split(), "--help").stdout
    assert "--help" in shown and "<bool>" not in shown and "list[" not in shown
    if command == "renamings":
        assert [line.split()[1:3] for line in shown.splitlines() if "--pin " in line] == [["--pin", "<NAME>"]]


def test_the_audit_usage_line_shows_its_options_and_its_two_subcommands(invoke):
    usage = [line.strip() for line in invoke("audit", "--help").stdout.splitlines() if "Usage:" in line]
    assert usage == ["Usage: invar audit [OPTIONS] [merge FILE... | compare A B]"]
