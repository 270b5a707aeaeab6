"""Regenerate the files that follow the CLI and the library: completions/,
docs/cli.md, the options tables of the docs pages that hold a run's config
(docs/models.md: training) and the example output in README.md.

    python tools/regenerate.py

tests/cli/test_reference.py and tests/cli/test_train_cli.py fail when these are out of date.
"""

from __future__ import annotations

from pathlib import Path

from invar.cli.readme import regenerate
from invar.cli.reference import COMPLETIONS, config_table, config_tables, markdown, with_table

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    (ROOT / "completions").mkdir(exist_ok=True)
    for name, make in COMPLETIONS.items():
        (ROOT / "completions" / name).write_text(make())
    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "cli.md").write_text(markdown())
    for page, (name, config) in config_tables().items():
        path = ROOT / page
        path.write_text(with_table(path.read_text(), name, config_table(config)))
    readme = ROOT / "README.md"
    readme.write_text(regenerate(readme.read_text(), ROOT))


if __name__ == "__main__":
    main()
