"""The copy task: write back a string of interchangeable symbols (the
interchangeable-token paper's test of an extendable vocabulary).

A string is a word of letters, each letter a symbol (``abacb``). Its
program has two lines, the string and its copy; every symbol is a token of
view ``sym`` whose referent is the letter, so renaming the symbols renames
input and output together, and a right model is equivariant. The symbols are
the pool ``a-z A-Z`` (52); training uses at most 5 of them (``a-e``), and
evaluation strings have up to 30 distinct symbols drawn from the whole pool,
which only models with an extendable vocabulary (``dualpart``,
``lexinvariant``, the canonicalized ones) can read; ``vanilla`` refuses
symbols its training did not use. ``canonicalized`` models (also
``canonicalized+dualpart``, ``canonicalized+lexinvariant``) read the
canonical renaming and map their output back: exactly equivariant.
Metric: the mean edit (Levenshtein) distance between the written string
and the input, reported by number of distinct symbols.

Data: ``invar data copy --out DIR`` writes ``train.txt``, ``valid.txt`` and
``test.txt`` (one string per line) and ``meta.json`` (:func:`generate`).
Training reads a directory's ``train`` and ``valid``; an audit reads a
directory's ``--split`` or every line of a ``.txt`` file.

Samplers of the training and validation strings (``sampler``):

* ``uniform``: a length uniform in 1..max_length, each
  symbol uniform over the training symbols. A long string then almost
  always holds all of them (30 symbols over 5 miss one with probability
  about 5 · 0.8^30 ≈ 0.6 %), so strings of few distinct symbols are nearly
  all short, and a model trained on them fails long strings of few symbols,
  which are in the test set;
* ``distinct`` (the default): as the test strings are drawn: first the number k of
  distinct symbols, uniform in 1..train_symbols, then k distinct symbols,
  a length uniform in k..max_length, and the string: the k symbols once
  each and the rest drawn among them, shuffled. Training then covers every
  (distinct count, length) cell the test set has for its symbols.

:func:`by_cell` lays results out as the interchangeable-token paper's copy
figures do: a row per number of distinct symbols, a column per length.

Copy strings are no language a frontend reads, so this module gives their
renaming rules itself (every injective map of the used symbols into a pool)
and registers them with :mod:`invar.symmetry.spaces` under the language
``copy``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import DataError, ParseError, UsageError
from ..program import Line, Program, Token
from ..symmetry import spaces as _spaces
from ..symmetry.renamings import RenamingSpace
from . import Example, Task, checked
from .answers import Reader
from .symbols import symbol_space

LANG = "copy"
#: every symbol a copy string may use
POOL = tuple("abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
#: how training and validation strings are drawn (see the module docstring)
SAMPLERS = ("uniform", "distinct")
_EXT = ".txt"


# ------------------------------------------------------------------ programs
def program_of(text: str, target: str | None = None, *, line: int = 1, name: str = "") -> Program:
    """The program of a copy string: line 0 the string, line 1 its copy
    (``target``: what the model should write; the string itself by default)."""
    text = text.strip()
    target = text if target is None else target
    for k, c in enumerate(text):
        if c not in POOL:
            raise ParseError(f"{c!r} is not a copy symbol (letters a-z, A-Z)", line=line, col=k + 1, source_line=text)
    if not text:
        raise ParseError("empty string", line=line, col=1)
    tokens = [Token(c, "symbol", "sym", c, li, k) for li, s in enumerate((text, target)) for k, c in enumerate(s)]
    lines = (Line(text, block=-1, source_line=line), Line(target, block=-1, source_line=line))
    return Program(LANG, lines, tuple(tokens), name=name or f"line {line}")


def parse(source: str) -> Program:
    return program_of(source)


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Sequence[str] = ()) -> RenamingSpace:
    """Injective maps of the used symbols into ``pool`` (default: the used symbols)."""
    return symbol_space(program, pool=pool, pins=pins, alphabet=POOL, what="a copy symbol (letters a-z, A-Z)")


def canonical_space(program: Program, *, pins: Sequence[str] = ()) -> RenamingSpace:
    return renaming_space(program, pool=POOL, pins=pins)


_spaces.register_rules(LANG, __name__)


# -------------------------------------------------------------------- data
def uniform_string(rng: random.Random, symbols: Sequence[str], max_length: int) -> str:
    """A length uniform in 1..``max_length``, each position uniform over ``symbols``."""
    return "".join(rng.choice(symbols) for _ in range(rng.randint(1, max_length)))


def distinct_string(rng: random.Random, symbols: Sequence[str], most: int, max_length: int) -> str:
    """k distinct of ``symbols`` (k uniform in 1..``most``) and a length
    uniform in k..``max_length``: the k symbols once each, the rest drawn
    among them, shuffled (how test strings are drawn)."""
    k = rng.randint(1, most)
    chosen = rng.sample(symbols, k)
    chars = chosen + [rng.choice(chosen) for _ in range(rng.randint(k, max_length) - k)]
    rng.shuffle(chars)
    return "".join(chars)


def generate(
    out: str | Path,
    *,
    train: int = 10000,
    valid: int = 500,
    test: int = 3000,
    train_symbols: int = 5,
    test_symbols: int = 30,
    max_length: int = 30,
    seed: int = 0,
    sampler: str = "distinct",
) -> dict:
    """Write a copy dataset to the directory ``out``: ``train`` and ``valid``
    strings over the first ``train_symbols`` of the pool, drawn by
    ``sampler`` (``uniform``: 1 to ``max_length`` symbols each uniform;
    ``distinct``: as test strings are, :func:`distinct_string`); ``test``
    strings with k distinct symbols (k uniform in 1..``test_symbols``, drawn
    from the whole pool) and a length uniform in k..``max_length``. The same
    seed writes the same files (``uniform``: those of earlier invars; its
    ``meta.json`` does not name the sampler, which a ``distinct`` one does)."""
    if not 1 <= train_symbols <= len(POOL) or not 1 <= test_symbols <= len(POOL):
        raise UsageError(f"symbols must be between 1 and {len(POOL)}")
    if max_length < max(1, test_symbols if test else 1):
        raise UsageError(
            f"--max-length {max_length} is shorter than --test-symbols {test_symbols}", path="--max-length"
        )
    if sampler not in SAMPLERS:
        raise UsageError(f"--sampler {sampler}: choose from {', '.join(SAMPLERS)}", path="--sampler")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"copy:{seed}")
    alphabet = POOL[:train_symbols]

    def trained() -> str:
        if sampler == "uniform":
            return uniform_string(rng, alphabet, max_length)
        return distinct_string(rng, alphabet, min(train_symbols, max_length), max_length)

    def evaluated() -> str:
        return distinct_string(rng, POOL, test_symbols, max_length)

    from ..files import write_atomic

    # meta.json, written last, marks a whole dataset: a rewrite cut short is none
    (out / "meta.json").unlink(missing_ok=True)
    counts = {}
    for split, n, draw in (("train", train, trained), ("valid", valid, trained), ("test", test, evaluated)):
        text = "".join(draw() + "\n" for _ in range(n))
        write_atomic(out / f"{split}{_EXT}", lambda f, text=text: f.write(text.encode("utf-8")))
        counts[split] = n
    from ..data import manifest

    meta = {
        "invar": "copy",
        **manifest.fields("copy", [LANG]),
        "seed": seed,
        "train_symbols": train_symbols,
        "test_symbols": test_symbols,
        "max_length": max_length,
        **({} if sampler == "uniform" else {"sampler": sampler}),
        **counts,
    }
    write_atomic(out / "meta.json", lambda f: f.write(json.dumps(meta, indent=1).encode("utf-8")))
    return meta


def read_file(path: str | Path) -> list[Example]:
    """Every string of a file (one per line; blank lines skipped), located;
    a line that is not a copy string is a DataError."""
    return checked(string_examples(path))


def string_examples(path: str | Path) -> list[Example]:
    """Every line of a file as :func:`read_file` reads it, one that is not a
    copy string as an example whose ``error`` says why."""
    from ..files import read_text, undecodable

    path = Path(path)
    try:
        text = read_text(path)
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=str(path))
    out = []
    for no, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s:
            continue
        error = None
        if undecodable(s) is not None:
            error = DataError("not UTF-8 text", path=str(path), line=no, col=raw.index(s) + undecodable(s) + 1)
        elif (bad := next((k for k, c in enumerate(s) if c not in POOL), None)) is not None:
            error = DataError(
                f"{s[bad]!r} is not a copy symbol (letters a-z, A-Z)",
                path=str(path),
                line=no,
                col=raw.index(s) + bad + 1,
                source_line=raw,
            )
        out.append(Example(s, None if error else s, str(path), no, error=error))
    return out


def read_split(data: str | Path, split: str) -> list[Example]:
    data = Path(data)
    path = data / f"{split}{_EXT}" if data.is_dir() else data
    if not path.is_file():
        raise DataError(f"no {split}{_EXT} here: write a dataset with invar data copy --out DIR", path=str(data))
    return read_file(path)


def dataset(spec: str, split: str) -> list[Example] | None:
    """What an audit reads: a directory's ``split`` or every line of a
    ``.txt`` file, a malformed line as an example with its error."""
    path = Path(spec)
    if path.is_dir():
        return string_examples(path / f"{split}{_EXT}") if (path / f"{split}{_EXT}").is_file() else None
    if path.suffix == _EXT and path.is_file():
        return string_examples(path)
    return None


# ------------------------------------------------------------- outputs, metric
def output(sequences: Sequence[Sequence[str]]) -> list[str]:
    return ["".join(s) for s in sequences]


def undo(prediction: str, back) -> str:
    return "".join(back.get(c, c) for c in prediction) if isinstance(prediction, str) else prediction


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def score(prediction, lab) -> float:
    return float(edit_distance(prediction if isinstance(prediction, str) else "", str(lab)))


def mean_edit_distance(predictions, labels) -> float:
    if not len(labels):
        return float("nan")
    return float(np.mean([score(p, t) for p, t in zip(predictions, labels)]))


def label_of(program: Program) -> str:
    return program.lines[0].text


@dataclass(frozen=True)
class Cells:
    """Copy results by (distinct symbols, length), as the
    interchangeable-token paper lays them out: a row per number of distinct
    symbols, a column per length (upper triangular: a string holds at most
    as many distinct symbols as it is long)."""

    #: the rows: numbers of distinct symbols, ascending
    distinct: tuple[int, ...]
    #: the columns: lengths, ascending
    lengths: tuple[int, ...]
    #: (distinct, length) -> (mean edit distance, strings); only the cells that hold strings
    cells: Mapping[tuple[int, int], tuple[float, int]]

    def mean(self, distinct: int, length: int) -> float | None:
        cell = self.cells.get((distinct, length))
        return None if cell is None else cell[0]

    def markdown(self, digits: int = 2) -> str:
        """The table in Markdown: mean edit distance per cell, ``–`` where no string is."""
        head = "| distinct \\ length | " + " | ".join(str(n) for n in self.lengths) + " |"
        rows = [head, "|---" * (len(self.lengths) + 1) + "|"]
        for k in self.distinct:
            cells = [("–" if (m := self.mean(k, n)) is None else f"{m:.{digits}f}") for n in self.lengths]
            rows.append(f"| {k} | " + " | ".join(cells) + " |")
        return "\n".join(rows)


def by_cell(strings: Sequence[str], predictions: Sequence) -> Cells:
    """Mean edit distance of ``predictions`` against ``strings`` by (distinct
    symbols, length) of the string. A prediction that is not a string (a
    refusal: None, an error) counts as empty, its distance the string's
    length, as the paper scores a model that cannot read a string."""
    sums: dict[tuple[int, int], list[float]] = {}
    for s, p in zip(strings, predictions):
        sums.setdefault((len(set(s)), len(s)), []).append(score(p, s))
    cells = {key: (float(np.mean(v)), len(v)) for key, v in sums.items()}
    return Cells(tuple(sorted({k for k, _ in cells})), tuple(sorted({n for _, n in cells})), cells)


def arch_config(arch: str) -> dict:
    """Greedy decoding, as the interchangeable-token paper decodes its copy
    models (beam search ranks by summed log-probability: AdaCos models, a
    little unsure at every step, end two-symbol strings at once;
    docs/benchmarks/copy.md); AdaCos cosine logits for random embeddings."""
    random = arch.rsplit("+", 1)[-1] in ("dualpart", "lexinvariant")  # also canonicalized+dualpart, …
    return {"beam": 1, **({"normalize_features": True, "adacos": True} if random else {})}


def read_answer(segment: str) -> str:
    """A segment of a model's answer -> the string it writes (its whitespace removed)."""
    return "".join(segment.split())


#: a whole reply -> the string it writes (:mod:`invar.tasks.answers`' pipeline:
#: an explicit final answer, else the last line)
answer = Reader(parse=read_answer)


def _not_a_loss(*_args, **_kwargs):
    raise TypeError("the copy task's loss is the network's own (Seq2Seq.loss)")


def prediction(value) -> str:
    """A model's copy as Python returns it: text, as it is; a ValueError
    for any other value (the edit distance would read it as the empty string)."""
    if isinstance(value, str):
        return value
    raise ValueError("a copy is text")


TASK = Task(
    name="copy",
    head="generate",
    n_labels=1,
    invariances={"renamings": True, "permutations": False},
    metric_name="edit distance",
    lower_is_better=True,
    loss=_not_a_loss,
    metric=mean_edit_distance,
    output=output,
    parse=parse,
    read_split=read_split,
    discrete=True,
    label=str.strip,
    answer=answer,
    prediction=prediction,
    lang=LANG,
    pool=POOL,
    pool_view="sym",
    arch_config=arch_config,
    label_of=label_of,
    undo=undo,
    score=score,
    f1=False,
    unit="",
    dataset=dataset,
    languages=("copy",),
)

__all__ = [
    "TASK",
    "POOL",
    "SAMPLERS",
    "program_of",
    "parse",
    "generate",
    "uniform_string",
    "distinct_string",
    "read_split",
    "read_file",
    "edit_distance",
    "mean_edit_distance",
    "Cells",
    "by_cell",
    "renaming_space",
    "canonical_space",
    "answer",
    "read_answer",
]
