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
