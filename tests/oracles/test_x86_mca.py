"""llvm-mca oracle: register renamings keep a block's timing.

For a seeded sample of BHive blocks, every sampled renaming must assemble with
``llvm-mc`` and get exactly the original's Total Cycles from
``llvm-mca -mcpu=haswell -iterations=100``. All regions go through llvm-mca in
one run (``# LLVM-MCA-BEGIN`` markers), which keeps the test fast.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import pytest

from invar.frontends.x86 import renaming_space
from invar.frontends.x86.hexblock import decode
from tests.conftest import bhive_blocks

N_BLOCKS = 500
N_RENAMINGS = 5

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mca") is None or shutil.which("llvm-mc") is None,
    reason="needs llvm-mc and llvm-mca (.ci/run installs Debian's llvm)",
)


def _regions(blocks: dict[str, str]) -> str:
    out = []
    for name, text in blocks.items():
        out += [f"# LLVM-MCA-BEGIN {name}", text, f"# LLVM-MCA-END {name}"]
    return "\n".join(out) + "\n"


def _assembles(text: str) -> set[int]:
    """Source lines (1-based) that llvm-mc rejects."""
    run = subprocess.run(
        ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "-filetype=obj", "-o", "/dev/null"],
        input=text, capture_output=True, text=True,
    )
    return {int(m) for m in re.findall(r"<stdin>:(\d+):\d+: error", run.stderr)}


def _cycles(text: str) -> dict[str, int]:
    run = subprocess.run(
        ["llvm-mca", "-mcpu=haswell", "-iterations=100", "-"], input=text, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[:2000]
    names = re.findall(r"Code Region - (\S+)", run.stdout)
    cycles = [int(c) for c in re.findall(r"Total Cycles:\s+(\d+)", run.stdout)]
    assert len(names) == len(cycles)
    return dict(zip(names, cycles))


def _usable(candidates: list[str]) -> list:
    """Blocks whose original llvm-mc assembles and llvm-mca accepts."""
    programs = {f"b{k}": decode(h) for k, h in enumerate(candidates)}
    text = _regions({k: p.render() for k, p in programs.items()})
    bad_lines = _assembles(text)
    keep, line = [], 1
    for k, p in programs.items():
        span = range(line + 1, line + 1 + len(p.lines))
        if not bad_lines.intersection(span):
            keep.append((k, p))
        line += len(p.lines) + 2
    return keep


def test_renamings_keep_llvm_mca_cycles(record_property):
    rng = random.Random(2024)
    candidates = rng.sample(bhive_blocks(), int(N_BLOCKS * 1.15))
    usable = _usable(candidates)[:N_BLOCKS]
    assert len(usable) == N_BLOCKS, f"only {len(usable)} blocks assemble"
    regions: dict[str, str] = {}
    pinned_blocks = 0
    renamed_differently = 0
    for key, program in usable:
        space = renaming_space(program)
        pinned_blocks += bool(space.pinned)
        regions[key] = program.render()
        for j, r in enumerate(space.sample(N_RENAMINGS, rng)):
            regions[f"{key}_{j}"] = space.apply(program, r).render()
            renamed_differently += not r.is_identity
    text = _regions(regions)
    assert not _assembles(text), "a renamed block does not assemble"
    cycles = _cycles(text)
    assert len(cycles) == len(regions)
    mismatches = [
        (name, cycles[name.split("_")[0]], cycles[name], regions[name.split("_")[0]], regions[name])
        for name in regions if "_" in name and cycles[name] != cycles[name.split("_")[0]]
    ]
    report = (f"{N_BLOCKS} blocks x {N_RENAMINGS} renamings; {pinned_blocks} blocks carried pinned registers; "
              f"{renamed_differently} renamings differ from the identity; {len(mismatches)} mismatches")
    print(report)
    record_property("oracle", report)
    assert renamed_differently > 0.9 * N_BLOCKS * N_RENAMINGS
    assert not mismatches, mismatches[:3]


def test_oracle_tells_figure1_apart():
    """The Renamer paper's Figure 1: (a) and its renaming (b) run at 1.68
    cycles per iteration, (c), which is not a renaming, at 10.03."""
    from tests.conftest import FIXTURES

    blocks = {name: (FIXTURES / "x86" / f"figure1{name}.s").read_text().strip() for name in "abc"}
    cycles = _cycles(_regions(blocks))
    assert cycles == {"a": 168, "b": 168, "c": 1003}
