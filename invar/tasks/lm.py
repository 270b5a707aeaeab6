"""The lm task: a decoder-only causal language model over code (the
lexinvariant paper's setting, on invar's own programs).

A **sequence** is a window of a source file, a :class:`~invar.program.Program`
like any other, in one of two vocabularies:

* ``char``: the window's characters. Each character is a token of view
  ``char`` whose referent is the character itself, in one line holding the
  window's text (language ``chars``), so "every symbol" is one referent
  class: the ``lexinvariant`` embedding randomises all of them, and a lexical
  permutation (a one-to-one map of the characters a window uses onto
  themselves, :func:`renaming_space`) is a renaming, an id remap of the
  encoding (:func:`invar.encoding.renamed`) that never re-parses;
* ``tokens``: the token stream the Python or Java frontend reads (views,
  and referents for parameters and locals, as every task sees them): the
  file's units in order, a unit nested in an earlier one (a Python closure)
  left out, since its tokens are already there. A window keeps the lines its
  tokens stand on (which never move) and the frontend's language.

**Dataset** (``invar data lm --source DIR --out OUT --vocab char|tokens
--seq-len N``): every ``.py`` and ``.java`` file under DIR cut into
non-overlapping windows of N characters or tokens (a file's last window may
be shorter; one of a single token, which leaves nothing to predict, is
dropped and counted). Split by **file** as ``names`` does (the hash of the
path relative to DIR: 80/10/10). OUT holds ``train.csv``, ``valid.csv``,
``test.csv`` (columns ``source`` — the window, JSON: a string of characters,
or an object with the language, the lines and the tokens —, ``path``,
``window`` — its index in the file — and ``line`` — the file line where it
starts) and ``meta.json`` (the vocabulary kind, the sequence length, counts).

**Model and metric**: next-token cross-entropy in nats, the mean over the
predicted positions (padding excluded; the first token of a window is not
predicted). A prediction is a sequence's loss; the metric is the
perplexity, exp of the mean loss (training validates on the token mean).
:func:`curve` gives the paper's loss by context position, smoothed by a
moving window (section 3.2).

Task symmetries: none. A lexical permutation changes a standard LM's loss,
and keeps a lexinvariant LM's only in distribution (exactly, when its random
table is permuted along: ``invar audit --lexinvariant-table along``,
docs/audit.md).
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import DataError, InvarError, UsageError
from ..frontends.registry import JAVA, PYTHON
from ..program import Line, Program, Token
from ..symmetry import spaces as _spaces
from ..symmetry.renamings import RenamingSpace
from . import Example, Task, checked
from .answers import Reader, Unreadable
from .names import (
    LANGS,
    SPLITS,
    FileRows,
    frontend_skips,
    map_files,
    own_split,
    row_examples,
    source_files,
    split_of,
    tally,
    write_splits,
)

#: the language of a character window
LANG = "chars"
#: the view of every character
VIEW = "char"
VOCABS = ("char", "tokens")
#: default window length, in characters or tokens
SEQ_LEN = 256
#: the paper's moving-average window (k = 100)
WINDOW = 100
_COLUMNS = ("source", "path", "window", "line")


# ------------------------------------------------------------------ programs
def char_program(text: str, *, name: str = "", line: int = 1) -> Program:
    """A window of characters: one line holding ``text``, one token per
    character (view ``char``, the character its own referent)."""
    tokens = tuple(Token(c, "char", VIEW, c, 0, k) for k, c in enumerate(text))
    return Program(LANG, (Line(text, block=-1, source_line=line),), tokens, name=name, separator="")


def top_units(units: Sequence[Program]) -> list[Program]:
    """``units`` without those nested in an earlier one (their tokens are in it)."""
    kept, end = [], 0
    for unit in units:
        if not unit.lines:
            continue
        first = unit.lines[0].source_line
        if kept and first <= end:
            continue
        kept.append(unit)
        end = max(li.source_line + li.text.count("\n") for li in unit.lines)
    return kept


def token_windows(units: Sequence[Program], seq_len: int, name: str = "") -> list[Program]:
    """The token stream of ``units`` (:func:`top_units`) cut into windows of
    ``seq_len`` tokens; each keeps the lines its tokens stand on."""
    stream = [(u, tok) for u in top_units(units) for tok in u.tokens]
    out = []
    for lo in range(0, len(stream), seq_len):
        part = stream[lo : lo + seq_len]
        index: dict[tuple[int, int], int] = {}
        lines: list[Line] = []
        tokens = []
        for unit, tok in part:
            key = (id(unit), tok.line)
            if key not in index:
                index[key] = len(lines)
                src = unit.lines[tok.line]
                lines.append(Line(src.text, block=-1, source_line=src.source_line))
            tokens.append(Token(tok.text, tok.kind, tok.view, tok.referent, index[key], tok.start))
        pinned = frozenset().union(*(u.pinned for u in {id(u): u for u, _ in part}.values()))
        out.append(
            Program(
                part[0][0].lang,
                tuple(lines),
                tuple(tokens),
                pinned=pinned & _referents(tokens),
                name=f"{name}#{lo // seq_len}" if name else "",
            )
        )
    return out


def _referents(tokens: Sequence[Token]) -> frozenset:
    return frozenset(t.referent for t in tokens if t.referent is not None)


def char_windows(text: str, seq_len: int, name: str = "") -> list[Program]:
    """``text`` cut into windows of ``seq_len`` characters."""
    out, line = [], 1
    for lo in range(0, len(text), seq_len):
        piece = text[lo : lo + seq_len]
        out.append(char_program(piece, name=f"{name}#{lo // seq_len}" if name else "", line=line))
        line += piece.count("\n")
    return out


def file_windows(text: str, lang: str, vocab: str, seq_len: int, path: str = "") -> list[Program]:
    """The windows of one source file's ``text`` (in ``lang``, ``python`` or
    ``java``) in ``vocab`` (``char`` or ``tokens``); ParseError when the
    frontend cannot read it (``tokens``)."""
    if vocab == "char":
        return char_windows(text, seq_len, path)
    from ..frontends import parse_units

    return token_windows(parse_units(text, lang, path=path or None), seq_len, path)


# --------------------------------------------------------- the stored form
def stored(program: Program) -> str:
    """A window as the dataset stores it (JSON; :func:`parse` reads it back)."""
    if program.lang == LANG:
        return json.dumps(program.lines[0].text if program.lines else "", ensure_ascii=False)
    return json.dumps(
        {
            "lang": program.lang,
            "lines": [li.text for li in program.lines],
            "first_lines": [li.source_line for li in program.lines],
            "tokens": [[t.text, t.kind, t.view, t.referent, t.line, t.start] for t in program.tokens],
            "pinned": sorted(program.pinned),
        },
        ensure_ascii=False,
    )


def parse(source: str) -> Program:
    """A stored window: a JSON string (characters) or object (tokens)."""
    try:
        data = json.loads(source)
    except ValueError as err:
        raise DataError(f"not a stored window (JSON: {err})")
    if isinstance(data, str):
        if not data:
            raise DataError("an empty window")
        return char_program(data)
    try:
        lines = tuple(Line(text, block=-1, source_line=int(n)) for text, n in zip(data["lines"], data["first_lines"]))
        tokens = tuple(
            Token(str(a), str(b), str(c), None if d is None else str(d), int(e), int(f))
            for a, b, c, d, e, f in data["tokens"]
        )
        program = Program(str(data["lang"]), lines, tokens, pinned=frozenset(data.get("pinned", ())))
    except (KeyError, TypeError, ValueError) as err:
        raise DataError(f"not a stored window ({type(err).__name__}: {err})")
    for k, t in enumerate(tokens):
        if not (0 <= t.line < len(lines) and lines[t.line].text[t.start : t.end] == t.text):
            raise DataError(f"token {k} ({t.text!r}) is not where the window says")
    if not tokens:
        raise DataError("an empty window")
    return program


# ----------------------------------------------------------------- renamings
def _spell(token: Token, target: str) -> str:
    return target


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Sequence[str] = ()) -> RenamingSpace:
    """Lexical permutations of a character window: one-to-one maps of the
    characters it uses (pinned ones aside) into ``pool`` (default: those
    characters themselves)."""
    pinned = set(program.pinned) | set(pins)
    used = [r for r in program.referents if r not in pinned]
    targets = [t for t in (pool if pool is not None else used) if t not in pinned]
    bad = next((t for t in targets if len(t) != 1), None)
    if bad is not None:
        raise UsageError(f"{bad!r} is not a character")
    return RenamingSpace(program, used, [targets] * len(used), _spell)


def canonical_space(program: Program, *, pins: Sequence[str] = ()) -> RenamingSpace:
    return renaming_space(program, pins=pins)


_spaces.register_rules(LANG, __name__)


# -------------------------------------------------------------------- data
#: why a window is not written
SINGLE_TOKEN = "of a single token"


def _file_rows(task: tuple[str, str, str, int]) -> FileRows:
    """The lm rows of one source file (``task``: the source directory, the
    file's path relative to it, the vocabulary, the window length);
    ``skipped`` counts the windows of a single token (:data:`SINGLE_TOKEN`)
    and, with ``tokens``, the functions the frontend left out."""
    from ..files import read_text, undecodable

    source, rel, vocab, seq_len = task
    path = Path(source) / rel
    try:
        text = read_text(path)
        if undecodable(text) is not None:
            return FileRows([], None, "not UTF-8", {})
        if vocab == "char":
            windows, skipped = char_windows(text, seq_len, rel), {}
        else:
            from ..frontends import parse_units

            units = parse_units(text, LANGS[path.suffix], path=rel)
            windows, skipped = token_windows(units, seq_len, rel), frontend_skips(units)
    except OSError as err:
        return FileRows([], None, f"unreadable ({err.strerror})", {})
    except (InvarError, SyntaxError, ValueError, RecursionError):
        return FileRows([], None, "unparsable", {})
    rows = []
    for k, w in enumerate(windows):
        if len(w.tokens) < 2:
            skipped[SINGLE_TOKEN] = skipped.get(SINGLE_TOKEN, 0) + 1
            continue
        rows.append((stored(w), rel, k, w.lines[0].source_line))
    return FileRows(rows, windows[0].lang if windows else None, None, skipped)


def build(
    source: str | Path,
    out: str | Path,
    *,
    vocab: str = "char",
    seq_len: int = SEQ_LEN,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Write the lm dataset of the ``.py`` and ``.java`` files under
    ``source`` to ``out`` (see the module docstring), reading them in
    ``jobs`` processes (the dataset is the same whatever their number);
    ``progress(files done, files)``. Returns meta.json, with what was
    skipped and why (``skipped``: reason -> count, for files, functions and
    windows)."""
    from ..data import manifest
    from ..files import write_atomic

    if vocab not in VOCABS:
        raise UsageError(f"--vocab {vocab}: choose from {', '.join(VOCABS)}", path="--vocab")
    if seq_len < 2:
        raise UsageError(f"--seq-len {seq_len}: a window needs at least 2 tokens", path="--seq-len")
    source, out = Path(source), Path(out)
    rels = source_files(source)
    rows: dict[str, list[tuple]] = {s: [] for s in SPLITS}
    languages: set[str] = set()
    skipped: dict[str, dict[str, int]] = {"files": {}, "functions": {}, "windows": {}}
    tasks = [(str(source), rel, vocab, seq_len) for rel in rels]
    with contextlib.closing(map_files(_file_rows, tasks, jobs, progress)) as done:
        for (_, rel, _, _), got in done:
            if got.unreadable is not None:
                tally(skipped["files"], {got.unreadable: 1})
                continue
            rows[split_of(rel)].extend(got.rows)
            tally(skipped["windows"], {k: n for k, n in got.skipped.items() if k == SINGLE_TOKEN})
            tally(skipped["functions"], {k: n for k, n in got.skipped.items() if k != SINGLE_TOKEN})
            if got.rows:
                languages.add(got.lang)
    if not rows["train"]:
        raise DataError("no window in a training file (80 % of the files, by path hash)", path=str(source))
    write_splits(out, rows, _COLUMNS)
    unreadable = sum(skipped["files"].values())
    meta = {
        "invar": "lm",
        **manifest.fields("lm", languages),
        "vocab": vocab,
        "seq_len": seq_len,
        "source": str(source),
        "files": len(rels) - unreadable,
        "unreadable_files": unreadable,
        "single_token_windows": skipped["windows"].get(SINGLE_TOKEN, 0),
        **{s: len(rows[s]) for s in SPLITS},
        "skipped": {k: dict(sorted(v.items())) for k, v in skipped.items()},
    }
    write_atomic(out / "meta.json", lambda f: f.write(json.dumps(meta, indent=1).encode("utf-8")))
    return meta


def split_examples(data: str | Path, split: str) -> list[Example]:
    """Every window of one split, a malformed row as an example with its error."""
    return row_examples(data, split, "lm", lambda row: None)


def read_split(data: str | Path, split: str) -> list[Example]:
    return checked(split_examples(data, split))


def dataset(spec: str, split: str) -> list[Example] | None:
    return own_split(spec, split, "lm", split_examples)


def meta_of(data: str | Path) -> dict:
    """The meta.json of an lm dataset directory; DataError when it is none."""
    path = Path(data) / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.get("invar") != "lm" or meta.get("vocab") not in VOCABS or int(meta["seq_len"]) < 2:
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise DataError(
            "no lm dataset here (its meta.json): write one with invar data lm --source DIR --out OUT", path=str(path)
        )
    return meta


# ------------------------------------------------------ outputs and metrics
def output(losses) -> list[float]:
    """(B, T - 1) position losses, NaN past each end -> each sequence's mean."""
    rows = losses.detach().float().cpu().numpy()
    return [float(np.mean(r[~np.isnan(r)])) for r in rows]


def perplexity(predictions, labels=None) -> float:
    """exp of the mean of the sequences' losses."""
    values = [float(p) for p in predictions]
    return float(math.exp(np.mean(values))) if values else float("nan")


def curve(losses: Sequence[np.ndarray], window: int = WINDOW) -> dict:
    """The loss by context position over many sequences, as the paper plots
    it: within each sequence the losses of positions i … i + window - 1
    averaged (the ``window``-th root of P(x_{i+1} … x_{i+window} | x_1 … x_i)
    in perplexity), then averaged over the sequences long enough to hold that
    window. Position i is the context length (i tokens read before the
    first predicted one). Also the raw mean loss at each position."""
    if window < 1:
        raise UsageError(f"--window {window}: give at least 1", path="--window")
    longest = max((len(x) for x in losses), default=0)
    if longest < window:
        raise UsageError(
            f"no sequence has {window} predicted positions (the longest has {longest}): use a smaller --window",
            path="--window",
        )
    raw_sum, raw_n = np.zeros(longest), np.zeros(longest)
    smooth_sum, smooth_n = np.zeros(longest - window + 1), np.zeros(longest - window + 1)
    for x in losses:
        x = np.asarray(x, dtype=np.float64)
        raw_sum[: len(x)] += x
        raw_n[: len(x)] += 1
        if len(x) >= window:
            sums = np.convolve(x, np.ones(window), mode="valid") / window  # (len - window + 1,)
            smooth_sum[: len(sums)] += sums
            smooth_n[: len(sums)] += 1
    smooth = smooth_sum / smooth_n
    return {
        "window": window,
        "sequences": len(losses),
        "context": list(range(1, len(smooth) + 1)),
        "loss": smooth.tolist(),
        "perplexity": np.exp(smooth).tolist(),
        "sequences_at": smooth_n.astype(int).tolist(),
        "raw_loss": (raw_sum / raw_n).tolist(),
    }


def read_answer(segment: str) -> float:
    """A segment of a model's answer -> the loss it writes: the segment is the number."""
    try:
        return float(segment)
    except ValueError:
        raise Unreadable(f"{segment.strip()[:80]!r} is not a number") from None


#: a whole reply -> the loss it writes (:mod:`invar.tasks.answers`' pipeline:
#: an explicit final answer, else the last line)
answer = Reader(parse=read_answer)


def arch_config(arch: str) -> dict:
    """Rotary positions; a lexinvariant model randomises every token, as the paper does."""
    return {"positions": "rotary", **({"random_tokens": "all"} if arch == "lexinvariant" else {})}


def _own_loss(*_args, **_kwargs):
    raise TypeError("the lm task's loss is the network's own (LanguageModel.loss)")


def label(text: str) -> float:
    """A number written in a dataset file (a language model's labels are its losses)."""
    try:
        return float(text)
    except ValueError:
        raise ValueError("not a number") from None


TASK = Task(
    name="lm",
    head="lm",
    n_labels=1,
    invariances={"renamings": False, "permutations": False},
    metric_name="perplexity",
    lower_is_better=True,
    loss=_own_loss,
    metric=perplexity,
    output=output,
    parse=parse,
    read_split=read_split,
    discrete=False,
    label=label,
    answer=answer,
    arch_config=arch_config,
    f1=False,
    unit="",
    dataset=dataset,
    languages=(LANG, JAVA.name, PYTHON.name),
)

__all__ = [
    "TASK",
    "LANG",
    "VIEW",
    "VOCABS",
    "SEQ_LEN",
    "WINDOW",
    "char_program",
    "char_windows",
    "token_windows",
    "top_units",
    "file_windows",
    "stored",
    "parse",
    "renaming_space",
    "build",
    "read_split",
    "meta_of",
    "output",
    "perplexity",
    "curve",
    "answer",
    "read_answer",
]
