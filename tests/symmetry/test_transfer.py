"""The three ways :func:`invar.symmetry.transfer.convolve` multiplies two
polynomials give the same product, whichever it picks."""

from __future__ import annotations

import itertools
import random

import pytest

from invar.symmetry import transfer


def _poly(rng: random.Random, dims: int, extent: int, bits: int, offset: int) -> dict[tuple[int, ...], int]:
    points = itertools.product(range(offset, offset + extent), repeat=dims)
    return {p: rng.getrandbits(bits) + 1 for p in points if rng.random() < 0.6}


def _by_hand(a, b) -> dict[tuple[int, ...], int]:
    out: dict[tuple[int, ...], int] = {}
    for x, c in a.items():
        for y, d in b.items():
            z = tuple(p + q for p, q in zip(x, y))
            out[z] = out.get(z, 0) + c * d
    return out


@pytest.mark.parametrize("seed", range(30))
def test_term_by_term_binary_and_decimal_products_agree(seed):
    rng = random.Random(seed)
    dims = rng.randint(0, 3)
    a = _poly(rng, dims, rng.randint(1, 5), rng.choice([1, 40, 700]), rng.randint(-3, 3))
    b = _poly(rng, dims, rng.randint(1, 5), rng.choice([1, 40, 700]), rng.randint(-3, 3))
    if not a or not b:
        assert transfer.convolve(a, b) == {}
        return
    expected = _by_hand(a, b)
    shape = transfer._Shape(a, b)
    everything = transfer._points(shape.r_lo, shape.r_hi)
    # some exponents outside the product's box too
    keep = [z for z in everything if rng.random() < 0.5] + [tuple(p + 9 for p in shape.r_hi)] * (dims > 0)
    assert shape.termwise(a, b, None) == expected
    assert transfer.convolve(a, b) == expected
    wanted = {z: expected[z] for z in keep if z in expected}
    for how in (shape.termwise, shape.binary, shape.decimal):
        assert how(a, b, keep) == wanted
        assert how(a, b, everything) == expected
