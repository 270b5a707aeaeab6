"""Huge-integer text and division against Python's own, on many shapes."""

from __future__ import annotations

import json
import math
import random
import sys

import pytest

from invar.symmetry.bigint import decimal_string, divmod_exact, json_dumps


@pytest.fixture
def unlimited_digits():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(old)


def _numbers(rng: random.Random):
    yield from (0, 1, -1, 9, 10, 10**4299, 10**4300, -(10**5000), 2**40000 - 1, 2**40000, math.factorial(5000))
    for _ in range(30):
        yield rng.getrandbits(rng.randint(1, 80_000)) * rng.choice((1, -1))


def test_decimal_string_is_str(unlimited_digits):
    for n in _numbers(random.Random(1)):
        assert decimal_string(n) == str(n)


def test_decimal_string_needs_no_raised_limit():
    """Python refuses ``str`` past 4,300 digits by default; this writes them all."""
    n = math.factorial(3000)  # 9,131 digits
    text = decimal_string(n)
    assert len(text) == 9131 and text.startswith("4149359603437854") and text.endswith("0" * 748)


def test_divmod_exact_is_divmod():
    rng = random.Random(2)
    cases = [(0, 1), (5, 7), (2**50000, 3), (2**50000 - 1, 2**25000 + 1), (math.factorial(6000), math.factorial(3000))]
    for _ in range(60):
        a = rng.getrandbits(rng.randint(1, 90_000))
        b = rng.getrandbits(rng.randint(1, 60_000)) | 1
        cases.append((a, b))
        cases.append((a * b + rng.randrange(b), b))
    for a, b in cases:
        assert divmod_exact(a, b) == divmod(a, b), (a.bit_length(), b.bit_length())


def test_json_dumps_is_json_dumps(unlimited_digits):
    big = math.factorial(4000)
    for value in (
        {"count": big, "unit": "f", "ok": True, "x": None},
        [{"count": 3, "blocks": [{"lower": big, "upper": big + 1}]}],
        {"text": 'a "quoted"\nline', "n": 1.5, "k": [1, 2, 3]},
        big,
        [],
        {},
    ):
        assert json_dumps(value) == json.dumps(value)
        assert json.loads(json_dumps(value)) == value
