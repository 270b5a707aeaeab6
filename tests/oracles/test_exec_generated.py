"""Output prediction's oracle on generated programs (docs/semantics.md).

Programs ``invar data exec --generate`` writes are audited with ``--oracle``:
every sampled variant (renamings, reorderings and both, about a thousand
in all) is run in the sandbox, and its result must be the original's: the
audit's oracle section counts no label change and no error. Sensitivity:
with a known-bad transform injected, the same audit finds variants whose
result differs. The bad transforms are the oracle tests' own weakenings of
the Python analysis (:mod:`tests.oracles.test_python_generated`: definition
headers evaluated by no one, iteration treated as pure), and every order of
a function's statements, its dependencies dropped.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest

from invar.audit import audit
from invar.sandbox import Limits
from invar.tasks.exec_data import build_generated

from .test_python_generated import _weaken_definition_headers, _weaken_iteration

exec_task = importlib.import_module("invar.tasks.exec")

PROGRAMS = 64
VARIANTS = 16
#: programs audited with each known-bad transform, and variants of each
BAD_PROGRAMS, BAD_VARIANTS = 30, 8


def _constant(texts):
    return ["0"] * len(texts)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("exec-oracle") / "gen"
    build_generated(PROGRAMS, out, seed=11, limits=Limits(seconds=5.0))
    return out


def test_every_audited_variant_returns_what_its_original_returns(programs, record_property):
    report = audit(_constant, str(programs), task="exec", oracle=True, transform="both", variants=VARIANTS).report
    oracle = report["oracle"]
    variants = report["audited"] * VARIANTS
    record_property(
        "oracle",
        f"{oracle['examples']} generated programs, {variants} variants run, "
        f"{oracle['label_changes']} changed, {oracle['errors']} errors",
    )
    assert report["errors"] == 0 and oracle["examples"] == PROGRAMS == report["audited"]
    assert variants >= 1000
    assert (oracle["label_changes"], oracle["errors"]) == (0, 0)


def _dependencies_dropped(monkeypatch):
    """Every order of a function's statements: its dependencies dropped."""
    task = exec_task.TASK
    monkeypatch.setattr(exec_task, "TASK", replace(task, parse=lambda text: replace(task.parse(text), deps=())))


@pytest.mark.parametrize(
    "weaken",
    [_weaken_definition_headers, _weaken_iteration, _dependencies_dropped],
    ids=lambda f: f.__name__.strip("_").removeprefix("weaken_"),
)
def test_the_oracle_notices_a_known_bad_transform(weaken, programs, monkeypatch, record_property):
    weaken(monkeypatch)
    report = audit(
        _constant,
        str(programs),
        task="exec",
        oracle=True,
        transform="permutations",
        variants=BAD_VARIANTS,
        limit=BAD_PROGRAMS,
    ).report
    oracle = report["oracle"]
    record_property(
        "oracle",
        f"{weaken.__name__}: {oracle['label_changes']} of {oracle['examples']} programs "
        f"changed their result, {oracle['errors']} raised",
    )
    assert oracle["label_changes"] + oracle["errors"] > 0
