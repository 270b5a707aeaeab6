"""Counts on the fixture corpora do not change unnoticed.

``snapshots/counts.json`` records, for every Python and Java unit of
fixtures/, its permutation count, its renaming counts (default pool and a
fixed pool) and its canonical form, as they were before full token streams
were added to the Python and Java programs. Tokens that name nothing
(keywords, operators, literals, attributes) must change none of them. A
change that is meant to change a count regenerates the file, and says why in
its commit:

    python -m tests.frontends.test_count_snapshot
"""

from __future__ import annotations

import json
from pathlib import Path

from invar.frontends import parse_units
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import canonical, renaming_space

from ..conftest import FIXTURES

SNAPSHOT = Path(__file__).parent / "snapshots" / "counts.json"
POOL = ["a", "b", "x", "n", "self", "data", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"]


def counts() -> dict[str, dict]:
    out = {}
    for lang, ext in (("python", "py"), ("java", "java")):
        for path in sorted((FIXTURES / lang).glob(f"*.{ext}")):
            for unit in parse_units(path.read_text(), lang, str(path)):
                perms = PermutationSpace(unit)
                out[f"{lang}/{path.name}:{unit.name}"] = {
                    "permutations": perms.count() if perms.tractable else None,
                    "renamings": renaming_space(unit).count(),
                    "renamings_pool": renaming_space(unit, pool=POOL).count(),
                    "canonical": canonical(unit)[0].render(),
                }
    return out


def test_counts_match_the_snapshot():
    want = json.loads(SNAPSHOT.read_text())
    got = counts()
    assert sorted(got) == sorted(want)
    changed = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not changed, f"{len(changed)} units changed, e.g. {next(iter(changed.items()))}"
    assert len(got) > 300


if __name__ == "__main__":
    SNAPSHOT.parent.mkdir(exist_ok=True)
    SNAPSHOT.write_text(json.dumps(counts(), indent=1, sort_keys=True) + "\n")
