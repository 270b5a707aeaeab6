"""The default renaming pool of Python and Java is one pool per view (issue
35, item 11): a parameter takes the unit's parameter names, a local its local
names, fresh ``p0, p1, …`` / ``l0, l1, …`` making up a view with fewer names
than referents. docs/semantics.md ("Enumeration order") says so, and the code
does so; the reason (variants differ only in which referent holds which name)
is written there."""

from __future__ import annotations

import pytest

from invar.frontends import parse_units
from invar.symmetry.spaces import renaming_space

from ..conftest import ROOT

SEMANTICS = ROOT / "docs" / "semantics.md"

JAVA = """class C {
    int f(int a, int b) {
        int c = a + b;
        int d = c * 2;
        return d;
    }
}
"""

#: (language, source, the names each view may take, renamings)
CASES = [
    (
        "python",
        "def f(a, b, /):\n    c = a + b\n    d = c * 2\n    return d\n",
        {"param": {"a", "b"}, "local": {"c", "d"}},
        2 * 2,
    ),
    ("java", JAVA, {"param": {"a", "b"}, "local": {"c", "d"}}, 2 * 2),
    # two lambdas reuse a parameter name: a fresh ``p0`` makes up the count
    (
        "python",
        "def f(a, /):\n    g = lambda x, /: x + 1\n    h = lambda x, /: x * 2\n    return g(a) + h(a)\n",
        {"param": {"a", "x", "p0"}, "local": {"g", "h"}},
        3 * 2 * 1 * 2,
    ),
    # a name that is a parameter's in one scope and a local's in another: each
    # view gets a fresh one, and no two referents share a target (3 * 2 ways
    # for each view, less the 4 * 4 where a parameter and a local both take b)
    (
        "python",
        "def f(a, /):\n    g = lambda b, /: b\n    b = 1\n    return g(a) + b\n",
        {"param": {"a", "b", "p0"}, "local": {"g", "b", "l0"}},
        3 * 2 * 3 * 2 - 4 * 4,
    ),
]


def views(unit) -> dict[str, str]:
    return {t.referent: t.view for t in unit.tokens if t.referent is not None}


@pytest.mark.parametrize("lang, src, names, count", CASES)
def test_each_view_draws_its_targets_from_its_own_names(lang, src, names, count):
    unit = next(u for u in parse_units(src, lang, f"u.{'py' if lang == 'python' else 'java'}") if u.name.endswith("f"))
    space = renaming_space(unit)
    assert space.count() == count
    view_of = views(unit)
    seen = {view: set() for view in names}
    for renaming in space.enumerate():
        for referent, target in renaming.mapping:
            seen[view_of[referent]].add(target)
    assert seen == names


def test_a_pool_given_is_one_pool_for_every_view():
    unit = parse_units(JAVA, "java", "C.java")[0]
    assert renaming_space(unit, pool=["p", "q", "r", "s"]).count() == 4 * 3 * 2 * 1


def test_the_semantics_says_what_the_code_does():
    text = SEMANTICS.read_text()
    section = text[text.index("## Enumeration order") :]
    renamings = section[section.index("- **Renamings**") :]
    renamings = renamings[: renamings.index("\n\n")]
    flat = " ".join(renamings.split())
    assert "by default, a pool per view" in flat
    assert (
        "a parameter takes the names of the unit's renamable parameters and a local the names of its"
        " renamable locals" in flat
    )
    assert "`p0, p1, …` for parameters, `l0, l1, …` for locals" in flat
    assert "the unit's own names in order of first appearance" not in flat  # what it used to say
