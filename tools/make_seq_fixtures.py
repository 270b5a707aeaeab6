"""Rebuild the small datasets of the sequence tasks' tests:

* ``fixtures/ltl/ae.txt``: 400 formulas over the APs a-e (sizes 1 to 10)
  with satisfying traces, as ``invar data ltl`` writes them (seed 11);
* ``fixtures/ltl/fj.txt``: 24 other formulas (seed 12) with their traces,
  every AP renamed a->f, b->g, c->h, d->i, e->j: APs a model trained on
  ``ae.txt`` never saw;
* ``fixtures/copy/``: a copy dataset as ``invar data copy`` writes it: 400
  training and 50 validation strings over a-e, 60 test strings with up to 10
  distinct symbols, lengths up to 12 (seed 0).

    python tools/make_seq_fixtures.py

The same invar writes the same files.
"""

from __future__ import annotations

from pathlib import Path

from invar.frontends.ltl.formula import parse_formula, to_polish
from invar.frontends.ltl.generate import GeneratorConfig, generate_file
from invar.frontends.ltl.trace import parse_trace, to_trace_text
from invar.tasks import copy

ROOT = Path(__file__).resolve().parents[1]
RENAME = dict(zip("abcde", "fghij"))


def _renamed(text: str) -> str:
    return "".join(RENAME.get(c, c) for c in text)


def main() -> None:
    ltl = ROOT / "fixtures" / "ltl"
    settings = dict(aps=5, max_size=10, timeout=None, max_states=20000)
    generate_file(GeneratorConfig(num=400, seed=11, **settings), ltl / "ae.txt", jobs=1, overwrite=True)
    tmp = ltl / "fj.tmp.txt"
    generate_file(GeneratorConfig(num=24, seed=12, **settings), tmp, jobs=1, overwrite=True)
    lines = tmp.read_text().splitlines()
    out = []
    for formula, trace in zip(lines[0::2], lines[1::2]):
        # single letters rename character by character; re-printing checks the result parses
        out += [to_polish(parse_formula(_renamed(formula))), to_trace_text(parse_trace(_renamed(trace)))]
    (ltl / "fj.txt").write_text("\n".join(out) + "\n")
    for path in (tmp, tmp.with_name(tmp.name + ".meta.json")):
        path.unlink()
    for name in ("ae.txt",):
        meta = ltl / f"{name}.meta.json"
        if meta.exists():
            meta.unlink()
    copy.generate(
        ROOT / "fixtures" / "copy",
        train=400,
        valid=50,
        test=60,
        train_symbols=5,
        test_symbols=10,
        max_length=12,
        seed=0,
        sampler="uniform",
    )  # the sampler the fixture was written with


if __name__ == "__main__":
    main()
