"""Minimal programs: the paper's counts, computed, and their agreement with
the full program on longer inputs (§4.1)."""

from __future__ import annotations

import random

import pytest

from invar.alta import AltaError, get_program
from invar.alta.analysis import agreement, coverage, default_value, minimal, minimal_of
from invar.alta.trace import balanced_bits
from invar.alta.arithmetic import addition, addition_input

TRAIN = balanced_bits(300, 0, 20, seed=1) + [["1"] * 20, ["0"] * 20, []]
#: 40 longer inputs of 21 to 40 bits, the first 40 of the 80 this once took (the agreement runs the full and
#: the minimal program on each, about 70 ms an input), and three more: 22 with more than 20 ones, 17 of those odd
TEST = balanced_bits(40, 21, 40, seed=2) + [["1"] * 40, ["1"] * 21 + ["0"] * 19, ["1"] * 20 + ["0"] * 20]


def _one_per_length_and_ones(max_length):
    # sum + modulo's run depends only on the length and the number of ones (its head averages over
    # all positions), so one string per pair stands for every string of lengths 0 … max_length
    return [["1"] * k + ["0"] * (n - k) for n in range(max_length + 1) for k in range(n + 1)]


def test_sum_modulo_minimal_on_lengths_up_to_20_has_31_rules():
    prog = get_program("parity-sum-mod")
    reduced = minimal(prog, _one_per_length_and_ones(20))
    nulls = [r for r in reduced.rules if r.null]
    parity = [r for r in reduced.rules if not r.null]
    # one null reset per count of ones seen (0 … 20), one parity rule per odd count (1, 3, …, 19)
    assert (len(reduced.rules), len(nulls), len(parity)) == (31, 21, 10)
    assert len(prog.rules) == 82  # 41 buckets (0 … 40 ones): 41 resets, 41 parity rules


def _numbers(count, low, high, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        a, b = (
            rng.randint(0 if d == 1 else 10 ** (d - 1), 10**d - 1)
            for d in (rng.randint(low, high), rng.randint(low, high))
        )
        out.append(addition_input(a, b))
    return out


@pytest.fixture(scope="module")
def addition_three_digits():
    """Addition and what it uses on 2,000 random inputs of at most three digits."""
    prog = addition()
    return prog, coverage(prog, _numbers(2000, 1, 3, seed=4))


def test_addition_minimal_on_three_digits_has_the_papers_884_rules(addition_three_digits):
    prog, used = addition_three_digits
    reduced = minimal_of(prog, used, mixtures=False)
    nulls = sum(r.null for r in reduced.rules)
    # appendix D.2: "The compiled MLP width (i.e., number of transition rules) is 884"
    assert (len(reduced.rules), nulls) == (884, 40)
    assert (len(prog.rules), sum(r.null for r in prog.rules)) == (16466, 45)
    # the compiled minimal model also clears the mixtures of undefined head outputs: five more resets
    # (token_right = <s>, ptr_a_token = + or </s>, ptr_b_token = <s> or </s>)
    assert len(minimal_of(prog, used).rules) == 889 and len(used.mixtures) == 5


def test_addition_minimal_on_three_digits_covers_every_longer_input(addition_three_digits):
    prog, used = addition_three_digits
    longer = coverage(prog, _numbers(150, 4, 12, seed=5))
    assert longer.rules <= used.rules and longer.mixtures <= used.rules | used.mixtures
    assert longer.tokens <= used.tokens
    # the check can fail: one-digit operands leave rules that longer inputs need
    short = coverage(prog, [addition_input(a, b) for a in range(10) for b in range(10)])
    assert longer.rules - short.rules


@pytest.mark.parametrize("mixtures, agrees", [(True, True), (False, False)])
def test_compiled_minimal_addition_needs_the_mixture_resets(addition_three_digits, mixtures, agrees):
    prog, used = addition_three_digits
    reduced = minimal_of(prog, used, mixtures=mixtures)
    results = agreement(prog, reduced, _numbers(20, 1, 3, seed=6))
    assert all(r.agrees for r in results) is agrees


def _minimal_against_full(name):
    prog = get_program(name)
    reduced = minimal(prog, TRAIN)
    return prog, reduced, agreement(prog, reduced, TEST)


def test_minimal_sequential_relative_agrees_on_every_longer_input():
    prog, reduced, results = _minimal_against_full("parity-relative")
    assert len(reduced.rules) == 7
    assert all(r.agrees for r in results), [r for r in results if not r.agrees][:1]


def test_minimal_sequential_absolute_is_wrong_beyond_the_positions_seen():
    prog, reduced, results = _minimal_against_full("parity-absolute")
    idx = reduced.variable("idx")
    # no markers: inputs of up to 20 bits read positions 0 … 19
    assert idx.init.table[:20] == tuple(range(20)) and set(idx.init.table[20:]) == {default_value(idx)}
    assert not all(r.agrees for r in results)
    assert not all(r.outputs_agree for r in results)


def test_minimal_sum_modulo_agrees_exactly_on_inputs_with_at_most_20_ones():
    prog, reduced, results = _minimal_against_full("parity-sum-mod")
    ones = [bits.count("1") for bits in TEST]
    assert [r.agrees for r in results] == [k <= 20 for k in ones]
    # the output alone is right as well where the count is even (the parity stays 0): the stream
    # differs there only in the head output its missing reset leaves behind
    assert [r.outputs_agree for r in results] == [k <= 20 or k % 2 == 0 for k in ones]
    assert any(k > 20 for k in ones) and any(k <= 20 for k in ones)


def test_minimal_needs_inputs():
    with pytest.raises(AltaError):
        minimal(get_program("parity-relative"), [])
