"""The symbol-string programs: the interpreter against the function each one
computes (written here in plain Python), the compiled model against the
interpreter at every layer on every string up to a length, and the
invariances the programs are shipped for."""

from __future__ import annotations

import itertools

import pytest

from invar.alta import AltaError, compile, get_program, run
from invar.alta.check import all_inputs, first_disagreement

SYMBOLS = "abc"
MAX_LENGTH = 5

#: name -> (the answer at every position, from the input's symbols; the length of the output)
EXPECTED = {
    "contains-a": lambda s: [int("a" in s)] * (len(s) + 1),
    "first-is-a": lambda s: [int(s[0] == "a")] * len(s),
    "distinct-count": lambda s: [len(set(s))] * (len(s) + 1),
    "histogram": lambda s: [s.count(c) for c in s] + [0],
    "palindrome": lambda s: [int(s == s[::-1])] * (len(s) + 1),
    "reverse": lambda s: [*s[::-1], "</s>"],
    "sort": lambda s: ["<s>", *sorted(s)],
}


def _program(name):
    if name == "sort":
        return get_program(name, symbols=SYMBOLS)
    return get_program(name, symbols=SYMBOLS, max_length=MAX_LENGTH)


def _answer(prog, symbols):
    return [prog.label(v) if prog.labels else v for v in run(prog, symbols).outputs]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_interpreter_computes_the_function(name):
    prog = _program(name)
    for symbols in all_inputs(SYMBOLS, MAX_LENGTH, 1):
        if name == "sort" and len(set(symbols)) < len(symbols):
            with pytest.raises(AltaError):
                run(prog, symbols)  # a repeated symbol is outside sort's domain
            continue
        assert _answer(prog, symbols) == EXPECTED[name](symbols), symbols


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_compiled_equals_interpreter_at_every_layer(name):
    longest = len(SYMBOLS) if name == "sort" else MAX_LENGTH  # sort has a place for each symbol once
    checked = first_disagreement(compile(_program(name)), all_inputs(SYMBOLS, longest, 1))
    assert checked.disagreement is None, checked.disagreement.text()
    distinct = sum(1 for s in all_inputs(SYMBOLS, longest, 1) if len(set(s)) == len(s))
    everything = sum(len(SYMBOLS) ** n for n in range(1, longest + 1))
    assert checked.compared == (distinct if name == "sort" else everything)
    assert checked.refused == everything - checked.compared


@pytest.mark.parametrize("name", ["distinct-count", "histogram", "palindrome"])
def test_invariant_under_every_renaming(name):
    prog = _program(name)
    for symbols in all_inputs(SYMBOLS, 4, 1):
        answer = run(prog, symbols).outputs
        for image in itertools.permutations(SYMBOLS):
            renamed = [image[SYMBOLS.index(c)] for c in symbols]
            assert run(prog, renamed).outputs == answer


def test_sort_invariant_under_every_permutation_of_positions():
    prog = _program("sort")
    for symbols in itertools.permutations(SYMBOLS):
        assert _answer(prog, symbols) == ["<s>", *SYMBOLS]


@pytest.mark.parametrize(
    "name,words", [("contains-a", "give distinct symbols"), ("first-is-a", "give distinct symbols")]
)
def test_bad_symbols(name, words):
    with pytest.raises(AltaError) as info:
        get_program(name, symbols="aab")
    assert words in info.value.message
    with pytest.raises(AltaError) as info:
        get_program(name, symbols="bcd")
    assert "'a' is not among the symbols" in info.value.message
