"""Canonical forms are the same for every renaming of a program
(docs/semantics.md, "Canonical forms"), on real code.

A renaming is rendered to text and parsed again from scratch (in its file,
for Python, so scopes resolve as they do there); the canonical form of what
comes back must print exactly like the original's. Python: units of the
running interpreter's standard library; LTL: formula/trace pairs as
``invar data ltl`` generates them. (x86 and Java have their own tests on
BHive blocks and JDK methods.)
"""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

import pytest

from invar.frontends import ltl
from invar.frontends.ltl.generate import GeneratorConfig, generate_record
from invar.frontends.python import parse_units
from invar.symmetry.spaces import canonical, renaming_space

UNITS = 150  # standard-library units (500 cost the suite 24 s, 300 12 s)
LTL_UNITS = 300  # formula/trace pairs
RENAMINGS = 3
SEED = 31
#: target names that collide with what real code uses, and fresh ones
PY_POOL = ["self", "x", "i", "n", "result", "data", "value", "len", "k", "v"] + [f"name{k}" for k in range(40)]


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py") if not p.name.startswith("test"))
    assert len(files) > 100, root
    return files


def python_orbits(rng: random.Random):
    """Per standard-library file: (file name, the units checked, renamed file
    texts). Each renamed text renames every checked unit at once (units that
    hold or sit inside another unit are left out, so renamings never overlap),
    so one parse checks them all; files are taken until UNITS units."""
    files = stdlib_files()
    rng.shuffle(files)
    found = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            units = parse_units(text, str(path))
        except Exception:  # a file invar reports as unparsable is not this test's subject
            continue
        lines = text.split("\n")
        spans = [(u.lines[0].source_line - 1, u.lines[0].source_line - 1 + u.render().count("\n") + 1) for u in units]
        names = [u.name for u in units]
        chosen = []
        for k, unit in enumerate(units):
            lo, hi = spans[k]
            alone = all(h <= lo or hi <= l for j, (l, h) in enumerate(spans) if j != k)
            if alone and names.count(unit.name) == 1 and renaming_space(unit).count() > 1:
                chosen.append(k)
        chosen = chosen[: UNITS - found]
        if not chosen:
            continue
        renamed = []
        for round_ in range(RENAMINGS):
            out = list(lines)
            for k in sorted(chosen, key=lambda k: -spans[k][0]):  # bottom up: line numbers stay valid
                space = renaming_space(units[k], pool=PY_POOL if round_ % 2 else None)
                if space.count() < 2:
                    continue
                variant = space.apply(None, space.sample(1, rng)[0]).render().split("\n")
                out[spans[k][0] : spans[k][1]] = variant
            renamed.append("\n".join(out))
        yield path.name, [units[k] for k in chosen], renamed
        found += len(chosen)
        if found >= UNITS:
            return


def test_python_canonical_forms_agree_across_renamings(record_property):
    rng = random.Random(SEED)
    checked = variants = 0
    for path, units, renamed in python_orbits(rng):
        want = {u.name: canonical(u)[0].render() for u in units}
        for text in renamed:
            again = {u.name: u for u in parse_units(text, path)}
            for name, form in want.items():
                assert canonical(again[name])[0].render() == form, f"{path}:{name}"
                variants += 1
        checked += len(units)
    record_property("oracle", f"canon: {checked} standard-library units, {variants} renamed copies, all agree")
    assert checked >= UNITS


def test_python_canonical_forms_tell_different_programs_apart():
    a = parse_units("def f(a, /):\n    b = a + 1\n    return b\n")[0]
    b = parse_units("def f(a, /):\n    b = a + 2\n    return b\n")[0]
    c = parse_units("def f(q, /):\n    r = q + 1\n    return r\n")[0]
    assert canonical(a)[0].render() == canonical(c)[0].render() == "def f(v0, /):\n    v1 = v0 + 1\n    return v1"
    assert canonical(a)[0].render() != canonical(b)[0].render()


def ltl_pairs(count: int):
    config = GeneratorConfig(num=count, aps=5, min_size=1, max_size=25, seed=SEED, timeout=None)
    for i in range(count):
        record, _ = generate_record(config, i)
        if record is not None:
            yield ltl.program_of(record["formula"], record["trace"])


def test_ltl_canonical_forms_agree_across_renamings(record_property):
    rng = random.Random(SEED)
    pool = list("abcdefghijklmnopqrstuvwxyz")
    checked = variants = 0
    for program in ltl_pairs(LTL_UNITS):
        want = canonical(program)[0].render()
        space = renaming_space(program, pool=pool)
        for r in space.sample(RENAMINGS, rng):
            again = ltl.parse(space.render(r))
            assert canonical(again)[0].render() == want
            variants += 1
        checked += 1
    record_property("oracle", f"canon: {checked} LTL pairs, {variants} renamings, all agree")
    assert checked == LTL_UNITS


@pytest.mark.parametrize(
    "one, other, same",
    [
        ("G(req -> F grant)", "G(x -> F y)", True),
        ("G(req -> F grant)", "G(grant -> F req)", True),
        ("G(a -> F b)", "G(a -> F a)", False),
        ("&aXb a;b;{1}", "&cXd c;d;{1}", True),
    ],
)
def test_ltl_canonical_forms(one, other, same):
    a, b = (canonical(ltl.parse(t))[0].render() for t in (one, other))
    assert (a == b) is same
