"""Shared fixtures: paths to the repository's fixtures and to ../shared data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
BHIVE = SHARED / "data" / "bhive"


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
