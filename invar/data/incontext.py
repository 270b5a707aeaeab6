"""The lexinvariant paper's synthetic in-context tasks, LookUp and Permutation
(its section 3.5 and appendix E), over symbols drawn at random.

LookUp: a table of ``pairs`` entries, each a key and a value, then a key of
the table; the answer is its value::

    A->2 C->4 D->5 C->          answer: 4

Permutation: ``demos`` demonstrations of one fixed permutation of the
positions of a tuple of ``length`` distinct symbols, then a fresh tuple; the
answer is the fresh tuple permuted the same way::

    abcd->cadb
    efgh->gehf
    ijkl->                      answer: kilj

The paper gives the tasks by example only ("A->2 C->4 C->5 C->", "A 2
C->C A-4 1 D->"); this is the reading invar takes, chosen so that every
prompt determines its answer: a LookUp table's keys are distinct, a
Permutation tuple's symbols are distinct and the permutation is never the
identity (one demonstration already fixes it).

Symbols come from a pool: uniformly from its distinct symbols, or, with
``by_frequency``, in proportion to their counts in a corpus (the paper's
appendix E: with a character vocabulary this lets a model win by guessing
common letters). The markup symbols (``-``, ``>``, space, newline for
characters; ``->`` and ``;`` for tokens) are never drawn. With
``vocab="char"`` an example is a string the LM reads character by
character; with ``vocab="tokens"`` it is a list of tokens (a token LM's
vocabulary, one token per line of a symbols file).

Score: generated-token accuracy, the share of answer tokens a model writes
right when it writes as many tokens as the answer has, over the examples
(:func:`accuracy`).

Layer data: imports errors only.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import DataError, UsageError
from ..files import read_utf8

TASKS = ("lookup", "permutation")
VOCABS = ("char", "tokens")
#: the markup of each vocabulary: (arrow, gap between entries, line break)
MARKUP = {"char": ("->", " ", "\n"), "tokens": ("->", ";", ";")}
#: characters never drawn as symbols (markup and whitespace)
RESERVED_CHARS = frozenset("->") | frozenset(" \t\r\n\f\v")
DEFAULT_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class Pool:
    """The symbols examples draw from, with their weights (counts; all 1 for a uniform draw)."""

    symbols: tuple[str, ...]
    weights: tuple[float, ...]
    vocab: str = "char"

    def uniform(self) -> "Pool":
        return Pool(self.symbols, tuple(1.0 for _ in self.symbols), self.vocab)


@dataclass(frozen=True)
class Item:
    """One example: what the model reads and the answer it should write,
    each a sequence of symbols and markup (characters or tokens)."""

    task: str
    prompt: tuple[str, ...]
    answer: tuple[str, ...]
    vocab: str = "char"

    def to_json(self) -> dict:
        if self.vocab == "char":
            return {"task": self.task, "prompt": "".join(self.prompt), "answer": "".join(self.answer)}
        return {"task": self.task, "prompt": list(self.prompt), "answer": list(self.answer), "vocab": "tokens"}


# ------------------------------------------------------------------- pools
def alphabet_pool(alphabet: str = DEFAULT_ALPHABET) -> Pool:
    """The distinct characters of ``alphabet``, each once (markup refused)."""
    bad = sorted(set(alphabet) & RESERVED_CHARS)
    if bad:
        raise UsageError(
            f"the alphabet holds markup characters {''.join(bad)!r}: they cannot be symbols", path="--alphabet"
        )
    symbols = tuple(dict.fromkeys(alphabet))
    return _checked(Pool(symbols, tuple(1.0 for _ in symbols)), "--alphabet")


def corpus_pool(paths: Iterable[str | Path]) -> Pool:
    """Every character of the text files at ``paths`` (files, or directories
    searched for ``*.py``, ``*.java`` and ``*.txt``), counted; markup and
    whitespace left out. An unreadable file is a located error."""
    counts: Counter[str] = Counter()
    for path in _files(paths):
        try:
            counts.update(read_utf8(path))
        except OSError as err:
            raise DataError(f"cannot read: {err.strerror}", path=str(path)) from None
    for c in RESERVED_CHARS:
        counts.pop(c, None)
    counts = Counter({c: n for c, n in counts.items() if c.isprintable()})
    symbols = tuple(sorted(counts))
    return _checked(Pool(symbols, tuple(float(counts[s]) for s in symbols)), "--corpus")


def symbols_pool(path: str | Path) -> Pool:
    """A token vocabulary: one token per line, optionally a tab and its count."""
    symbols, weights, first = [], [], {}
    try:
        lines = read_utf8(path).splitlines()
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=str(path)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        token, _, count = line.partition("\t")
        try:
            weight = float(count) if count else 1.0
        except ValueError:
            raise DataError(f"the count {count!r} is not a number", path=str(path), line=number) from None
        if token.strip() != token or token in MARKUP["tokens"] or not 0 < weight < math.inf:
            raise DataError(
                f"{token!r} cannot be a symbol (markup, surrounding spaces or a count that is not a finite "
                "positive number)",
                path=str(path),
                line=number,
            )
        if token in first:
            raise DataError(f"{token!r} is listed twice (first on line {first[token]})", path=str(path), line=number)
        first[token] = number
        symbols.append(token)
        weights.append(weight)
    return _checked(Pool(tuple(symbols), tuple(weights), "tokens"), str(path))


def _files(paths: Iterable[str | Path]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(
                f for ext in ("*.py", "*.java", "*.txt") for f in p.rglob(ext) if f.is_file() or f.is_symlink()
            )
        elif p.is_file():
            out.append(p)
        else:
            raise DataError("no such file or directory", path=str(p))
    return out


def _checked(pool: Pool, where: str) -> Pool:
    if len(pool.symbols) < 2:
        raise UsageError(f"{len(pool.symbols)} symbol(s) to draw from: the tasks need at least 2", path=where)
    return pool


# -------------------------------------------------------------- generators
def _draw_distinct(rng: random.Random, pool: Pool, k: int) -> list[str]:
    """``k`` distinct symbols, drawn one after another in proportion to the weights of those left."""
    if k > len(pool.symbols):
        raise UsageError(f"{k} distinct symbols asked of a pool of {len(pool.symbols)}")
    left = dict(zip(pool.symbols, pool.weights))
    out = []
    for _ in range(k):
        symbol = rng.choices(list(left), weights=list(left.values()))[0]
        out.append(symbol)
        del left[symbol]
    return out


def lookup(rng: random.Random, pool: Pool, pairs: int = 8) -> Item:
    """One LookUp example: ``pairs`` distinct keys with values drawn
    independently, then one of the keys, drawn uniformly."""
    if pairs < 1:
        raise UsageError(f"--pairs {pairs}: a table needs at least one entry", path="--pairs")
    arrow, gap, _ = MARKUP[pool.vocab]
    keys = _draw_distinct(rng, pool, pairs)
    values = rng.choices(pool.symbols, weights=pool.weights, k=pairs)
    query = rng.randrange(pairs)
    prompt: list[str] = []
    for key, value in zip(keys, values):
        prompt += [key, *_split(arrow, pool.vocab), value, gap]
    prompt += [keys[query], *_split(arrow, pool.vocab)]
    return Item("lookup", tuple(prompt), (values[query],), pool.vocab)


def permutation(rng: random.Random, pool: Pool, length: int = 4, demos: int = 3) -> Item:
    """One Permutation example: a permutation of ``length`` positions, never
    the identity, shown on ``demos`` tuples of distinct symbols, then applied
    to a fresh tuple."""
    if length < 2 or demos < 1:
        raise UsageError(
            f"--length {length} --demos {demos}: a permutation needs at least 2 positions and 1 demonstration",
            path="--length" if length < 2 else "--demos",
        )
    arrow, _, newline = MARKUP[pool.vocab]
    order = list(range(length))
    while order == sorted(order):
        rng.shuffle(order)
    prompt: list[str] = []
    for k in range(demos + 1):
        symbols = _draw_distinct(rng, pool, length)
        permuted = [symbols[i] for i in order]
        prompt += [*symbols, *_split(arrow, pool.vocab)]
        if k == demos:
            return Item("permutation", tuple(prompt), tuple(permuted), pool.vocab)
        prompt += [*permuted, newline]
    raise AssertionError("unreachable")


def _split(markup: str, vocab: str) -> list[str]:
    """Markup as the vocabulary writes it: character by character, or one token."""
    return list(markup) if vocab == "char" else [markup]


def generate(task: str, num: int, pool: Pool, *, seed: int = 0, **shape: int) -> list[Item]:
    """``num`` examples of ``task`` (``lookup``: ``pairs``; ``permutation``:
    ``length``, ``demos``), the same for the same seed."""
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r}: choose from {', '.join(TASKS)}")
    need, option = (shape.get("pairs", 8), "--pairs") if task == "lookup" else (shape.get("length", 4), "--length")
    if need > len(pool.symbols):
        raise UsageError(f"{option} {need}: the pool holds only {len(pool.symbols)} distinct symbols", path=option)
    rng = random.Random(seed)
    make = lookup if task == "lookup" else permutation
    return [make(rng, pool, **shape) for _ in range(num)]


def write(items: Sequence[Item], out) -> None:
    """One JSON object per line: task, prompt, answer (strings for characters, lists for tokens)."""
    for item in items:
        out.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")


def read(path: str | Path) -> list[Item]:
    """The examples of a file :func:`write` wrote; a malformed line is a located error."""
    items = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            data = json.loads(line)
            vocab = data.get("vocab", "char")
            prompt, answer = data["prompt"], data["answer"]
            ok = (
                data["task"] in TASKS
                and vocab in VOCABS
                and type(prompt) is type(answer) is (str if vocab == "char" else list)
            )
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            ok = False
        if not ok or not answer:
            raise DataError(
                "not an in-context example (a JSON object with task, prompt and answer)", path=str(path), line=number
            )
        items.append(Item(data["task"], tuple(prompt), tuple(answer), vocab))
    return items


# ------------------------------------------------------------------ score
def accuracy(items: Sequence[Item], written: Sequence[Sequence[str]]) -> float:
    """Generated-token accuracy: the share of answer tokens written right,
    position by position (a missing token is wrong, extra ones are ignored)."""
    if len(items) != len(written):
        raise ValueError(f"{len(written)} answers for {len(items)} examples")
    right = sum(sum(a == w for a, w in zip(item.answer, out)) for item, out in zip(items, written))
    total = sum(len(item.answer) for item in items)
    return right / total if total else 0.0


__all__ = [
    "Item",
    "Pool",
    "TASKS",
    "alphabet_pool",
    "corpus_pool",
    "symbols_pool",
    "lookup",
    "permutation",
    "generate",
    "write",
    "read",
    "accuracy",
]
