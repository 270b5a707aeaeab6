"""The examples in the library's docstrings run and hold: every module of
invar is imported and its doctests run, so an example cannot drift from
the code it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import invar

#: modules not imported: running the command line is what importing __main__ does
OPTIONAL = {"invar.__main__"}


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(invar.__path__, "invar.") if m.name not in OPTIONAL)


def _with_examples() -> list[str]:
    finder = doctest.DocTestFinder()
    return [name for name in _modules() if any(t.examples for t in finder.find(importlib.import_module(name)))]


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


def test_the_examples_are_found() -> None:
    """The examples this suite relies on are collected (a finder that found
    none would pass every case above)."""
    found = _with_examples()
    assert {"invar.audit.stats", "invar.cli.console", "invar.symmetry.dlg"} <= set(found), found
