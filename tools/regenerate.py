"""Regenerate the files that follow the CLI: completions/, docs/cli.md and the
example output in README.md.

    python tools/regenerate.py

tests/cli/test_reference.py fails when these are out of date.
"""

from __future__ import annotations

from pathlib import Path

from invar.cli.readme import regenerate
from invar.cli.reference import COMPLETIONS, markdown

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    (ROOT / "completions").mkdir(exist_ok=True)
    for name, make in COMPLETIONS.items():
        (ROOT / "completions" / name).write_text(make())
    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "cli.md").write_text(markdown())
    readme = ROOT / "README.md"
    readme.write_text(regenerate(readme.read_text(), ROOT))


if __name__ == "__main__":
    main()
