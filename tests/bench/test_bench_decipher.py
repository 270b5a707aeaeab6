"""bench/bench_decipher.py on a character LM trained for a few steps on the
fixtures: a ciphered window's encoding is the encoding of the ciphered text,
the identity key leaves every perplexity as it was, and a real key changes
a learned model's."""

from __future__ import annotations

import pytest

import invar
from invar.tasks import lm
from tests.bench import bench_module


@pytest.fixture
def trained(char_lm):
    return char_lm


def test_a_split_without_full_windows_is_refused(trained):
    with pytest.raises(SystemExit, match="holds no window of 64 characters"):
        bench_module("bench_decipher").windows(str(trained / "data"), 5, "test")


def test_keys_are_permutations_of_the_letters():
    bench = bench_module("bench_decipher")
    for key in bench.keys(20, seed=3):
        assert sorted(key) == sorted(key.values()) == list(bench.LETTERS)
    assert bench.keys(5, 1) == bench.keys(5, 1) != bench.keys(5, 2)


def test_a_ciphered_encoding_is_the_encoding_of_the_ciphered_text(trained):
    bench = bench_module("bench_decipher")
    model = invar.load_model(trained / "m.pt")
    programs = bench.windows(str(trained / "data"), 5, "valid")
    assert programs and all(len(p.tokens) == 64 for p in programs)
    from invar.encoding import renamed

    for program, key in zip(programs, bench.keys(len(programs), seed=0)):
        text = program.lines[0].text
        mapping = {a: b for a, b in key.items() if a in model.vocab.referents and b in model.vocab.referents}
        by_remap = renamed(model.encode(program), mapping, model.vocab)
        by_text = model.encode(lm.char_program("".join(mapping.get(c, c) for c in text)))
        assert by_remap.tokens.tolist() == by_text.tokens.tolist()


def test_identity_keys_change_nothing_and_real_keys_change_a_learned_model(trained, monkeypatch):
    bench = bench_module("bench_decipher")
    spec = [f"m={trained / 'm.pt'}"]
    (row,) = bench.run(spec, str(trained / "data"), 8, seed=0, device="cpu", split="valid")
    assert row["ciphered all"] != row["plain all"]
    monkeypatch.setattr(bench, "keys", lambda n, seed: [{c: c for c in bench.LETTERS}] * n)
    (same,) = bench.run(spec, str(trained / "data"), 8, seed=0, device="cpu", split="valid")
    assert same["ciphered all"] == same["plain all"] == row["plain all"]
    assert "| m | 1 |" in bench.table([row])
