"""The interpreter on the shipped parity programs: against the parity computed
here, the paper's counts (rules, binary variables, layers) taken from the
program and its runs, and traces that are fresh per run and consistent."""

from __future__ import annotations

import itertools

import pytest

from invar.alta import AltaError, get_program, run

PARITY = ["parity-relative", "parity-absolute", "parity-sum-mod"]


def bit_strings(lengths):
    return [list(bits) for n in lengths for bits in itertools.product("01", repeat=n)]


@pytest.mark.parametrize("name", PARITY)
def test_parity_at_every_prefix_or_whole(name):
    prog = get_program(name, **({} if name == "parity-relative" else {"max_length": 9}))
    for bits in bit_strings(range(1, 9)):
        out = run(prog, bits).outputs
        total = bits.count("1") % 2
        assert out[-1] == total
        if name == "parity-sum-mod":
            assert set(out) == {total}  # every position, the end marker's too
        else:
            start = len(prog.prefix)
            assert out[start:] == [bits[: i + 1].count("1") % 2 for i in range(len(bits))]


def test_sequential_relative_has_seven_rules_over_four_binary_variables():
    prog = get_program("parity-relative")
    assert len(prog.rules) == 7
    assert [v.size for v in prog.variables] == [2, 2, 2, 2]
    assert all(v.kind == "categorical" for v in prog.variables)
    assert sum(not r.null for r in prog.rules) == 3  # two parity updates and done


@pytest.mark.parametrize("n", [1, 2, 5, 12, 30])
def test_sequential_relative_halts_after_n_minus_one_layers(n):
    prog = get_program("parity-relative")
    for bits in (["1"] * n, ["0"] * n, list(itertools.islice(itertools.cycle("10"), n))):
        result = run(prog, bits)
        positions = len(result.tokens)
        assert result.halted and result.layers == positions - 1


def test_trace_records_each_layer_and_is_fresh_per_run():
    prog = get_program("parity-relative")
    first = run(prog, "1 0 1", trace=True)
    second = run(prog, "1 1", trace=True)
    assert first.trace is not second.trace
    assert len(first.trace.layers) == first.layers == 3
    assert len(second.trace.layers) == second.layers == 2
    assert run(prog, "1 0 1").trace is None
    for layer in first.trace.layers:
        for pos, (before, after, fired) in enumerate(zip(layer.attention, layer.mlp, layer.rules)):
            # every change the MLP makes is the consequent of a satisfied rule
            changed = {n for n in before if before[n] != after[n]}
            assert changed == {prog.rules[i].variable for i in fired}
            for i in fired:
                rule = prog.rules[i]
                assert all(before[n] == v for n, v in rule.antecedent)
                assert after[rule.variable] == rule.new
            assert all(after[h.output] is None for h in prog.heads)
    # the last layer's MLP output is the final stream
    assert first.trace.layers[-1].mlp == first.final
    assert [s["parity"] for s in first.trace.initial] == [0, 1, 0, 1]


def test_max_layers_stops_early_and_without_halting():
    prog = get_program("parity-relative")
    result = run(prog, "1 1 1 1", max_layers=2)
    assert result.layers == 2 and not result.halted
    assert result.outputs == [0, 1, 0, 1, 1]  # positions 3 and 4 have not heard from the left yet


@pytest.mark.parametrize("text,words", [("1 2 1", "symbol '2' at position 1"), ("<s> 1", "symbol '<s>' at position 0")])
def test_bad_symbols(text, words):
    # the prefix marker comes from the program: a symbol the input gives is checked against the alphabet
    prog = get_program("parity-absolute", max_length=4)
    with pytest.raises(AltaError) as info:
        run(prog, text)
    assert words in info.value.message


def test_longer_than_the_positions():
    with pytest.raises(AltaError) as info:
        run(get_program("parity-absolute", max_length=4), "1 0 1 1 0")
    assert "5 positions" in info.value.message


def test_sum_mod_beyond_its_buckets_is_an_error():
    prog = get_program("parity-sum-mod", max_length=3)
    assert run(prog, "1 1 1 0").outputs[-1] == 1
    with pytest.raises(AltaError) as info:
        run(prog, "1 1 1 1")
    assert "not one of its buckets" in info.value.message and "inv_ones" in info.value.message
