"""The methods pages' tables are their reports' (bench/tables.py): a page
whose table and report disagree fails here."""

from __future__ import annotations

import json

import pytest

from tests.bench import bench_module

tables = bench_module("tables")


@pytest.mark.parametrize("page", tables.pages(), ids=lambda p: p.name)
def test_every_table_of_a_methods_page_is_made_from_its_report(page):
    text = page.read_text()
    assert tables.refreshed(text) == text, f"{page.name} is stale: run python bench/tables.py"


def test_every_named_report_has_a_table_in_some_page():
    shown = set().union(*(tables.shown(page.read_text()) for page in tables.pages()))
    assert shown == set(tables.TABLES) - tables.PENDING


def test_a_pending_report_is_named_and_not_written_yet():
    assert tables.PENDING <= set(tables.TABLES)
    assert not [name for name in tables.PENDING if (tables.REPORTS / f"{name}.json").exists()]


def test_a_changed_report_makes_the_page_stale(tmp_path, monkeypatch):
    for name in set(tables.TABLES) - tables.PENDING:
        (tmp_path / f"{name}.json").write_text((tables.REPORTS / f"{name}.json").read_text())
    report = json.loads((tables.REPORTS / "audit-repeats.json").read_text())
    report["rows"][0]["median_seconds"] += 1.0
    (tmp_path / "audit-repeats.json").write_text(json.dumps(report))
    monkeypatch.setattr(tables, "REPORTS", tmp_path)
    page = (tables.PAGES / "audit.md").read_text()
    assert tables.refreshed(page) != page


def test_a_view_renders_the_same_report_through_another_function(monkeypatch):
    fake = type("Script", (), {"table": staticmethod(lambda r: "full"), "summary": staticmethod(lambda r: "short")})
    monkeypatch.setattr(tables.importlib, "import_module", lambda name: fake)
    monkeypatch.setattr(tables, "TABLES", {"audit-repeats": "fake"})
    page = (
        "a\n<!-- table: audit-repeats/summary -->\nold\n<!-- /table -->\n<!-- table: audit-repeats -->\n"
        "<!-- /table -->\n"
    )
    assert tables.refreshed(page) == (
        "a\n<!-- table: audit-repeats/summary -->\nshort\n<!-- /table -->\n<!-- table: audit-repeats -->\nfull\n"
        "<!-- /table -->\n"
    )


def test_a_block_of_several_reports_gives_its_view_the_list(monkeypatch, tmp_path):
    fake = type("Script", (), {"summary": staticmethod(lambda reports: f"{len(reports)} reports: {reports[1]['x']}")})
    monkeypatch.setattr(tables.importlib, "import_module", lambda name: fake)
    monkeypatch.setattr(tables, "TABLES", {"a": "fake", "b": "fake", "c": "other"})
    monkeypatch.setattr(tables, "REPORTS", tmp_path)
    for name in "abc":
        (tmp_path / f"{name}.json").write_text(json.dumps({"x": name}))
    page = "<!-- table: a+b/summary -->\n<!-- /table -->\n"
    assert tables.shown(page) == {"a", "b"}
    assert tables.refreshed(page) == "<!-- table: a+b/summary -->\n2 reports: b\n<!-- /table -->\n"
    with pytest.raises(KeyError, match="several scripts"):
        tables.render("a+c", "summary")


def test_every_table_not_made_from_a_report_is_a_quote_or_a_study_still_to_run_again():
    """No table stands in a page unmade but those listed: the papers' own,
    the at-a-glance summary, and the studies run before their reports."""
    for path in tables.pages():
        name = str(path.relative_to(tables.ROOT / "docs"))
        allowed = tables.QUOTED.get(name, set()) | tables.UNREPORTED.get(name, set())
        unmade = tables.unmade(path.read_text())
        stray = [f"{name}:{number} (under {heading!r})" for heading, number in unmade if heading not in allowed]
        assert not stray, f"a table made by hand: {stray}; make it from a report (bench/tables.py)"
        assert allowed <= {heading for heading, _ in unmade}, f"{name}: listed, but no such table stands there"


@pytest.mark.parametrize(
    "page, expected",
    [
        ("# A\n| a |\n|---|\n| 1 |\n", [("# A", 2)]),
        ("# A\n<!-- table: x -->\n| a |\n<!-- /table -->\n", []),
        ("# A\n```\n| a |\n```\n## B\n\n| b |\n\n| c |\n", [("## B", 7), ("## B", 9)]),
    ],
)
def test_tables_outside_generated_blocks_are_found(page, expected):
    assert tables.unmade(page) == expected


def test_no_report_holds_a_path_of_the_machine_that_wrote_it():
    """Reports are published: an option naming a directory of the machine is
    written as a placeholder (``bench/common.py``'s ``portable``), never as its path."""
    import re

    from tests.conftest import ROOT

    machine_path = re.compile(r"(^|[\s'\"=:])/(root|home|tmp|work|usr|opt|var|mnt|srv)/")
    found = []
    for path in sorted((ROOT / "docs" / "benchmarks" / "reports").glob("*.json")):

        def walk(value, where=path.name):
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(v, f"{where}:{k}")
            elif isinstance(value, list):
                for v in value:
                    walk(v, where)
            elif isinstance(value, str) and machine_path.search(value):
                found.append(f"{where}: {value[:80]}")

        walk(json.loads(path.read_text()))
    assert not found, found
