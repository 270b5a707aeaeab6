"""Symmetry, token and referent masks (SPE Definition 4.4)."""

from __future__ import annotations

import numpy as np

from invar.program import Line, Program, Token
from invar.symmetry.masks import referent_mask, symmetry_mask, token_mask


def xyz() -> Program:
    """x = 1 / y = x / z = 2, one token per word."""
    texts = ["x = 1", "y = x", "z = 2"]
    tokens = []
    for i, text in enumerate(texts):
        for k, word in enumerate(text.split()):
            ref = word if word.isalpha() else None
            tokens.append(Token(word, "name" if ref else "punct", "local" if ref else word, ref, i, 2 * k))
    return Program("toy", tuple(Line(t) for t in texts), tuple(tokens), deps=((0, 1),))


def test_symmetry_mask_is_layers_plus_directed_edges():
    mask = symmetry_mask(xyz())
    assert mask.dtype == bool and mask.shape == (3, 3)
    # layers {0, 2} and {1}; edge 0 -> 1 only from 0 to 1
    assert mask.astype(int).tolist() == [[1, 1, 1], [0, 1, 0], [1, 0, 1]]
    assert np.array_equal(symmetry_mask(xyz(), transpose=True), mask.T)
    assert mask.diagonal().all()


def test_token_mask_expands_lines_to_tokens():
    p = xyz()
    tmask = token_mask(p)
    lmask = symmetry_mask(p)
    assert tmask.shape == (9, 9)
    for a, ta in enumerate(p.tokens):
        for b, tb in enumerate(p.tokens):
            assert tmask[a, b] == lmask[ta.line, tb.line]
    assert np.array_equal(token_mask(p, transpose=True), tmask.T)


def test_referent_mask_is_coreference():
    p = xyz()
    rmask = referent_mask(p)
    assert np.array_equal(rmask, rmask.T)
    x_tokens = [k for k, t in enumerate(p.tokens) if t.referent == "x"]
    assert x_tokens == [0, 5]
    assert rmask[0, 5] and rmask[5, 0]
    assert not rmask[0, 3]  # x and y
    assert not rmask[1].any()  # '=' names nothing
    assert rmask.sum() == 4 + 1 + 1  # x twice (2 x 2 pairs), y once, z once
    # every token with a referent is coreferential with itself
    assert all(rmask[k, k] == (t.referent is not None) for k, t in enumerate(p.tokens))


def test_empty_program():
    p = Program("toy", (), ())
    assert symmetry_mask(p).shape == (0, 0)
    assert token_mask(p).shape == (0, 0)
    assert referent_mask(p).shape == (0, 0)
