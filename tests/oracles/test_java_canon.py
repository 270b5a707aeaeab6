"""``invar canon`` on real Java: every sampled renaming of a JDK 17 method,
rendered and parsed again, has the same canonical text as the method itself
(docs/semantics.md, "Canonical forms")."""

from __future__ import annotations

import random
import time

from invar.frontends.java import parse, parse_units, renaming_space
from invar.symmetry.spaces import canonical

from .java_corpus import JDK_FILES, jdk_sources

RENAMINGS = 1


def alone(method_text: str) -> str:
    """A method's text as the only member of a class, to be parsed again."""
    return "class W {\n" + method_text + "\n}\n"


def test_renamings_of_jdk_units_share_their_canonical_form(record_property):
    start = time.perf_counter()
    rng = random.Random(23)
    sources = jdk_sources()
    checked = variants = fixed = skipped = 0
    mismatches = []
    for rel in JDK_FILES:
        units = parse_units(sources[rel], rel)
        skipped += len(units.skipped)
        for unit in units:
            target = canonical(unit)[0].render()
            space = renaming_space(unit)
            checked += 1
            if space.count() <= 1:
                fixed += 1
            for r in space.sample(RENAMINGS, rng) if space.count() else ():
                variants += 1
                again = parse(alone(space.render(r)), f"{rel}:{unit.name}")
                got = canonical(again)[0].render()
                if got != target:
                    mismatches.append((rel, unit.name, r))
    record_property(
        "oracle",
        f"{checked} JDK 17 units, {variants} renamings re-parsed, {fixed} with a single "
        f"renaming, {skipped} skipped by invar, {len(mismatches)} canonical mismatches "
        f"({time.perf_counter() - start:.0f}s)",
    )
    assert checked >= 500
    assert not mismatches, mismatches[:5]
