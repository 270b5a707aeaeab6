"""``renamer+spe`` on real Python functions, with random weights: invariant
to renamings, to semantics-preserving statement orders, and to both at once.

40 functions of the running interpreter's standard library (at most 128
tokens, more than one renaming and more than one order), each with 8
sampled renamings, 8 sampled orders and 8 of both composed (a renaming,
then an order), made as the audit makes them. ``renamer+spe`` predicts every
variant within 1e-5 of the original; ``renamer`` alone moves under orders,
``spe`` alone under renamings, ``vanilla`` under both.
"""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import torch

from invar import parse_units
from invar.encoding import Vocab, encode, permuted, renamed
from invar.nn.config import preset
from invar.nn.model import Model
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space

N_FUNCTIONS = 40
N_VARIANTS = 8
TOLERANCE = 1e-5


def _functions() -> list:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py") if not p.name.startswith("test"))
    random.Random(3).shuffle(files)
    out = []
    for path in files:
        try:
            units = parse_units(path.read_text(encoding="utf-8"), "python", path=str(path))
        except Exception:  # a file invar cannot read is not this test's subject
            continue
        for unit in units:
            if len(unit.tokens) <= 128 and renaming_space(unit).count() > 1 and PermutationSpace(unit).count() > 1:
                out.append(unit)
                if len(out) == N_FUNCTIONS:
                    return out
    return out


@pytest.fixture(scope="module")
def functions() -> list:
    """The 40 functions, found once for the module (parsing the standard library takes seconds)."""
    found = _functions()
    assert len(found) == N_FUNCTIONS
    return found


@pytest.fixture(scope="module")
def variants(functions):
    """The vocabulary, and per function its encoding and the encodings of
    its renamed variants, reordered variants, and renamed then reordered
    ones, as the audit makes them: a renamed function is encoded (Python
    has no id-level renaming), a reordering is an index remap."""
    rng = random.Random(11)
    vocab = Vocab.build(functions)  # closed under renamings
    groups = []
    for unit in functions:
        enc = encode(unit, vocab)
        names = renaming_space(unit)
        orders = PermutationSpace(unit)  # a renaming keeps every dependency, so orders of the renamed too
        renamings = names.sample(N_VARIANTS, rng)
        reorderings = orders.sample(N_VARIANTS, rng)
        groups.append(
            (
                enc,
                [encode(names.apply(unit, r), vocab) for r in renamings],
                [permuted(enc, t) for t in reorderings],
                [
                    permuted(encode(names.apply(unit, r), vocab), t)
                    for r, t in zip(renamings, orders.sample(N_VARIANTS, rng))
                ],
            )
        )
    return groups, vocab


def _model(arch: str, vocab: Vocab) -> Model:
    torch.manual_seed(0)
    model = Model("bhive", preset(arch, "tiny").with_vocab(vocab), vocab)
    model.network.eval()
    return model


def _worst(model: Model, groups, kind: int) -> list[float]:
    """Per function, the largest relative change of the prediction over the
    variants of ``kind`` (1 renamed, 2 reordered, 3 both)."""
    out = []
    for group in groups:
        preds = model.predict_encoded([group[0], *group[kind]])
        out.append(max(abs(p - preds[0]) / abs(preds[0]) for p in preds[1:]))
    return out


def test_variants_differ_from_their_function(variants):
    groups, _ = variants
    for enc, *kinds in groups:
        for kind in kinds:
            assert any(not (np.array_equal(v.tokens, enc.tokens) and np.array_equal(v.lines, enc.lines)) for v in kind)


def test_variants_are_the_encodings_of_the_transformed_programs(variants, functions):
    """The id and index remaps agree with encoding the transformed program."""
    groups, vocab = variants
    rng = random.Random(4)
    for unit in functions[:20]:
        space = PermutationSpace(unit)
        for t in space.sample(3, rng):
            a, b = permuted(encode(unit, vocab), t), encode(space.apply(unit, t), vocab)
            assert np.array_equal(a.tokens, b.tokens) and np.array_equal(a.referents, b.referents)
        names = renaming_space(unit)
        for r in names.sample(3, rng):
            a, b = renamed(encode(unit, vocab), r, vocab), encode(names.apply(unit, r), vocab)
            for field in ("tokens", "views", "referents", "lines"):
                assert np.array_equal(getattr(a, field), getattr(b, field)), field


@pytest.mark.parametrize("kind", [1, 2, 3], ids=["renamings", "reorderings", "both"])
def test_renamer_spe_is_invariant_to_renamings_and_reorderings(kind, variants):
    groups, vocab = variants
    worst = _worst(_model("renamer+spe", vocab), groups, kind)
    assert max(worst) <= TOLERANCE, max(worst)


@pytest.mark.parametrize("arch, kind", [("vanilla", 1), ("vanilla", 2), ("vanilla", 3), ("renamer", 2), ("spe", 1)])
def test_the_other_architectures_are_not(arch, kind, variants):
    """Each part alone gives only its own invariance: ``renamer`` moves under
    orders, ``spe`` under renamings; vanilla under both, and under both at
    once (so the composed variants can move a prediction)."""
    groups, vocab = variants
    worst = _worst(_model(arch, vocab), groups, kind)
    assert sum(w > 100 * TOLERANCE for w in worst) >= N_FUNCTIONS // 2, sorted(worst)


def test_names_the_vocabulary_lacks_keep_their_coreference(functions):
    """A vocabulary built from other functions lacks most of these names:
    unknown referents share one id, but the referent mask reads each
    program's own coreference classes, so invariance holds all the same."""
    vocab = Vocab.build(functions[: N_FUNCTIONS // 2])
    model = _model("renamer+spe", vocab)
    rng = random.Random(12)
    unknown = worst = 0
    for unit in functions[N_FUNCTIONS // 2 :]:
        enc = encode(unit, vocab)
        unknown += int((enc.referents == 1).sum() > 1)
        names, orders = renaming_space(unit), PermutationSpace(unit)
        variants_ = [
            permuted(encode(names.apply(unit, r), vocab), t)
            for r, t in zip(names.sample(4, rng), orders.sample(4, rng))
        ]
        preds = model.predict_encoded([enc, *variants_])
        worst = max(worst, max(abs(p - preds[0]) / abs(preds[0]) for p in preds[1:]))
    assert unknown >= 10
    assert worst <= TOLERANCE
