"""Tests of the scripts in bench/, each loaded as the module it is."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.conftest import ROOT

BENCH = ROOT / "bench"


def bench_module(name: str) -> ModuleType:
    """bench/NAME.py, imported with bench/ on the path (the scripts import ``common``)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))
