"""Every link between the repository's markdown pages reaches a page, and a
heading where it names one (by the anchor GitHub makes of the heading)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\((?P<path>[^)\s#]*)(?:#(?P<anchor>[^)\s]+))?\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of ``page``'s headings, outside its code blocks."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
    return {anchor(h) for h in HEADING.findall(text)}


@pytest.mark.parametrize(
    "heading, want",
    [
        ("Dual-part inputs scaled by sqrt(d)", "dual-part-inputs-scaled-by-sqrtd"),
        ("16,000 blocks, patience 40", "16000-blocks-patience-40"),
        ("The H100 lease, as recorded then (no report kept)", "the-h100-lease-as-recorded-then-no-report-kept"),
        ("`augmented`'s pool of names", "augmenteds-pool-of-names"),
    ],
)
def test_anchor_is_githubs(heading, want):
    assert anchor(heading) == want


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_reach_their_page_and_heading(page):
    broken = []
    for m in LINK.finditer(page.read_text()):
        path, name = m.group("path"), m.group("anchor")
        if re.match(r"\w+:", path) or not (path.endswith(".md") or (not path and name)):
            continue  # a web address, or a link to something other than a page
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{m.group(0)}: no page {path}")
        elif name and name not in anchors(target):
            broken.append(f"{m.group(0)}: no heading with anchor {name!r} in {target.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)
