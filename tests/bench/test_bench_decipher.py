"""bench/bench_decipher.py on a character LM trained for a few steps on the
fixtures: a ciphered window's encoding is the encoding of the ciphered text,
the identity key leaves every perplexity as it was, and a real key changes
a learned model's."""

from __future__ import annotations

import numpy as np
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
    assert "| m | 1 |" in bench.table({"rows": [row]})
    assert bench.summary({"rows": [row], "load_average_before": [1, 0, 0], "load_average_after": [2, 0, 0]}) == (
        bench.cipher_table([row])
    )
    other = {**row, "model": "n", "group": "n"}  # a model scored later, in a report of its own
    assert bench.summary([{"rows": [row]}, {"rows": [other]}]) == bench.cipher_table([row, other])


@pytest.mark.parametrize(
    "seq_len, size, spans",
    [
        (256, 100, [(0, 100), (78, 178), (156, 256)]),
        (200, 100, [(0, 100), (50, 150), (100, 200)]),
        (101, 100, [(0, 100), (1, 101)]),
        (100, 100, [(0, 100)]),
        (64, 100, [(0, 64)]),
    ],
)
def test_key_windows_are_the_first_middle_and_last_that_fit(seq_len, size, spans):
    assert bench_module("bench_decipher").key_windows(seq_len, size) == spans


def test_a_perfect_reading_has_precision_one_in_every_window():
    bench = bench_module("bench_decipher")
    rng = np.random.default_rng(0)
    symbols = [3, 4, 5, 6]
    keys = np.stack([np.concatenate([[0, 1, 2], rng.permutation(symbols), [7]]) for _ in range(5)])  # plain -> cipher
    plain = rng.integers(0, 8, (5, 30))
    ciphered = np.take_along_axis(keys, plain, axis=1)
    spans = bench.key_windows(30, 10)
    assert bench.key_precisions(ciphered, plain, keys, symbols, spans) == [1.0] * 3
    wrong = np.where(np.isin(plain, symbols), 7, plain)  # every letter read as 7
    assert bench.key_precisions(ciphered, wrong, keys, symbols, spans) == [0.0] * 3


def test_the_probe_runs_on_each_model_and_reports_each_window(trained):
    bench = bench_module("bench_decipher")
    opts = {"steps": 4, "batch": 4, "windows": 16, "key_window": 20}
    (row,) = bench.probe_run(
        [f"m-s0={trained / 'm.pt'}"], str(trained / "data"), 6, seed=0, device="cpu", opts=opts, split="valid"
    )
    assert row["train windows"] == 16 and row["windows"] == 6 and row["steps"] == 4
    assert row["spans"] == [(0, 20), (22, 42), (44, 64)]
    assert all(0.0 <= v <= 1.0 for v in [row["accuracy"], row["letter accuracy"], *row["precision"]])
    text = bench.table({"rows": [], "probe": [row]})
    assert "key precision, positions 44–63" in text and "| m | 1 |" in text
    assert bench.probe({"rows": [], "probe": [row]}) == text.split("\n\n")[-1]  # the probe's table alone
