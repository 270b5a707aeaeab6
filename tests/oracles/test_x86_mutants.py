"""invar never reads as an instruction what ``llvm-mc`` refuses.

Real instructions (BHive blocks disassembled) are each changed by one
seeded edit of the kind a typo or a careless generator makes: a space
inserted, a character deleted, doubled or replaced, two swapped, a
punctuation mark inserted. ``llvm-mc`` assembles every mutant in one run.
Where it refuses one, invar must refuse it too, with a located one-line
error, never a crash; where it accepts one, invar may refuse it (it reads
fewer spellings than an assembler: ``movq%rax``), and the test counts those.
The edits found, among others, ``(%%rax)``, ``fld (%rax)`` without its size,
``movd %rbx, %rsi``, ``vaddss %xmm6, sym, %xmm2``, ``$.1`` and a 65-bit
``movabsq`` immediate, each accepted until the rule that refuses it.
"""

from __future__ import annotations

import random
import shutil

import pytest

from invar.errors import InvarError
from invar.frontends.x86 import parse
from invar.frontends.x86.hexblock import disassemble
from tests.conftest import bhive_blocks

from .x86_oracle import assemble_lines

pytestmark = pytest.mark.skipif(shutil.which("llvm-mc") is None, reason="needs llvm-mc")

#: mutants per seed, and the seeds
MUTANTS, SEEDS = 1500, (0, 1)


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one edit."""
    k, j = rng.randrange(len(text) + 1), rng.randrange(len(text))
    edit = rng.randrange(6)
    if edit == 0:
        return text[:k] + " " + text[k:]
    if edit == 1:
        return text[:j] + text[j + 1 :]
    if edit == 2:
        return text[:j] + text[j] + text[j:]
    if edit == 3:
        return text[:k] + rng.choice(",()%$*-:{}.+") + text[k:]
    if edit == 4 and j + 1 < len(text):
        return text[:j] + text[j + 1] + text[j] + text[j + 2 :]
    return text[:j] + rng.choice("0123456789abcdefxlqwb") + text[j + 1 :]


def mutants(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    blocks = bhive_blocks()
    out = []
    while len(out) < n:
        texts = [text for text, _ in disassemble(rng.choice(blocks))]
        out.append(mutate(rng.choice(texts), rng))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_what_llvm_mc_refuses_invar_refuses_with_a_located_error(seed, record_property):
    texts = mutants(seed, MUTANTS)
    _, errors = assemble_lines({f"m{k}": [text] for k, text in enumerate(texts)})
    accepted_wrongly, stricter = [], 0
    for k, text in enumerate(texts):
        try:
            parse(text, path="m.s")
        except InvarError as err:
            assert err.line == 1 and 1 <= err.col <= len(text) + 1 and "\n" not in str(err), (text, str(err))
            stricter += f"m{k}" not in errors
            continue
        if f"m{k}" in errors:
            accepted_wrongly.append((text, errors[f"m{k}"]))
    record_property(
        "oracle", f"{len(texts)} mutants: llvm-mc refuses {len(errors)}, invar all of them and {stricter} more"
    )
    assert not accepted_wrongly, accepted_wrongly[:10]
    assert len(errors) > len(texts) // 10  # the edits do break instructions
