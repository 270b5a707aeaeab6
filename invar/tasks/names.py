"""The names task: predict a function's name from its body.

As in code2seq and the SPE paper (Wang et al.), a name is a set of
**subtokens**: ``fooBar``, ``foo_bar`` and ``FOO_BAR`` are all ``foo bar``
(:func:`subtokens`: split at underscores, at lower-to-upper case changes, at
the end of an upper-case run before a capitalised word, and around digits;
lowercased; empty parts dropped). The model is a multi-label classifier over
the subtokens of the training split; it predicts the subtokens whose
probability is at least 0.5, or the single most probable one when none is,
so a prediction is never empty.

The function's own name is hidden from its input: the token after ``def``
and every other occurrence of the name that is not a local variable (a
recursive call ``f(n - 1)``, a method's ``self.f(…)``, any ``x.f``) become
:data:`PLACEHOLDER`. Strings and docstrings are kept as written. A model
reads whatever function it is given the same way (:func:`prepare`, its
:attr:`Task.prepare`), so ``invar predict`` on a source file sees what
training saw.

**Metric**: subtoken F1 as code2seq computes it, micro-averaged over the
split: for each function, the predicted subtokens in the true set are true
positives, the other predicted ones false positives, and the true subtokens
not predicted false negatives (sets on both sides, so a repeated subtoken
counts once); precision = ΣTP / Σ(TP + FP), recall = ΣTP / Σ(TP + FN), F1 =
2PR / (P + R), in percent (0 when nothing is right). True subtokens that the
training split never saw count as false negatives. Precision and recall are
reported beside it, and the F1 averaged per function (**F1 (per
function)**: each function's own F1, 2|W ∩ W'| / (|W| + |W'|) for its true
and predicted sets, averaged over the functions), which weighs every
function alike where the micro average weighs long names more.

**Dataset** (``invar data names --source DIR --out OUT``): every function of
every ``.py`` file and every method of every ``.java`` file under DIR
(nested functions and methods included; a Python method stands alone,
dedented; a Java method stands in ``class METHOD_CLASS { … }``, which is
also how a stored function tells its language), split by **file**: the file's path relative
to DIR, hashed (SHA-256), goes to ``train`` (80 %), ``valid`` or ``test``
(10 % each), so no file gives functions to two splits. OUT holds
``train.csv``, ``valid.csv`` and ``test.csv`` (columns ``source`` — the
function's text with its name hidden —, ``label`` — its subtokens, space
separated —, ``name``, ``path`` and ``line``) and ``meta.json`` (the
training subtokens, which are the model's labels, and the counts).
Functions that do not stand alone (a nested function's ``nonlocal``, a Java
constructor) are skipped and counted.

Task symmetries: semantics-preserving **renamings** of local variables and
**reorderings** of independent statements keep what a function does, so
they keep its name.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import keyword
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Sequence, TYPE_CHECKING

import numpy as np

from ..errors import DataError
from ..frontends.java import JAVA_KEYWORDS
from ..frontends.registry import JAVA, PYTHON, frontend_of
from ..frontends.units import own_name
from ..program import Program
from . import Example, Task, checked
from .answers import CORRECTING, Reader, Unreadable, clean, later, lines, without_label

if TYPE_CHECKING:  # torch is imported where a model needs it: building a dataset never does
    import torch

#: what the function's name reads as in its input (code2seq's placeholder)
PLACEHOLDER = "METHOD_NAME"
#: the class a stored Java method stands in (which also tells it from Python)
JAVA_CLASS = "METHOD_CLASS"
#: source suffix -> language
LANGS = {ext: record.name for record in (PYTHON, JAVA) for ext in record.extensions}
SPLITS = ("train", "valid", "test")
_EXT = ".csv"
_COLUMNS = ("source", "label", "name", "path", "line")
#: subtokens, read on a name's shape (:func:`_shape`): ``A`` an upper-case letter, ``a`` another letter, ``0`` a digit
_PARTS = re.compile(r"A+(?=Aa)|A?a+|A+|0+")


# ------------------------------------------------------------------- names
def subtokens(name: str) -> list[str]:
    """``getHTTPResponse_2`` -> ``['get', 'http', 'response', '2']``; any
    letters, as Python identifiers may hold (``get_välue`` -> ``['get', 'välue']``)."""
    return [part[m.start() : m.end()].lower() for part in name.split("_") for m in _PARTS.finditer(_shape(part))]


def _shape(part: str) -> str:
    """``part`` one character for one: ``A`` for an upper-case letter, ``a`` for any other letter, ``0`` for a
    digit, a space for anything else (``$``)."""
    return "".join("A" if c.isupper() else "a" if c.isalpha() else "0" if c.isdecimal() else " " for c in part)


def split_of(relpath: str) -> str:
    """``train`` (80 %), ``valid`` or ``test`` (10 % each), by the hash of
    the file's path relative to the source directory (``/`` separated)."""
    bucket = int(hashlib.sha256(relpath.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "train" if bucket < 80 else "valid" if bucket < 90 else "test"


def short_name(unit: Program) -> str:
    """A unit's own name (``A.f.<locals>.g`` -> ``g``; an overload's
    ``A.m@12`` -> ``m``)."""
    return own_name(unit.name or "").rsplit(".", 1)[-1]


def hide_name(unit: Program) -> Program:
    """``unit`` with its own name, wherever it is not a local variable,
    replaced by :data:`PLACEHOLDER`."""
    name = short_name(unit)
    hidden = {
        k: PLACEHOLDER
        for k, t in enumerate(unit.tokens)
        if t.text == name and t.referent is None and t.kind in ("name", "identifier")
    }
    return unit.with_token_texts(hidden)


def function_text(unit: Program) -> str | None:
    """The function's text with its name hidden, standing alone (dedented;
    a Java method inside ``class METHOD_CLASS { … }``), or None when its
    name is not found."""
    hidden = hide_name(unit)
    if hidden is unit:
        return None
    text = textwrap.dedent(hidden.render()).strip("\n") + "\n"
    record = frontend_of(unit.lang)
    return record.hook("standalone")(text, JAVA_CLASS) if record.standalone else text


def parse(source: str) -> Program:
    """A stored function (the first unit of its text; Java when it stands in
    ``class METHOD_CLASS``)."""
    from ..frontends import parse_units

    lang = JAVA.name if source.startswith(f"class {JAVA_CLASS} {{") else PYTHON.name
    units = parse_units(source, lang)
    if not units:
        raise DataError("no function in the stored text")
    return units[0]


def prepare(unit: Program) -> Program:
    """A function as the dataset stores it: its name hidden, standing alone
    (re-read from its dedented text); a function that cannot stand alone
    (a nested function's ``nonlocal``) keeps its place, its name hidden."""
    from ..errors import InvarError

    text = function_text(unit)
    if text is not None:
        try:
            return parse(text)
        except InvarError:
            pass
    return hide_name(unit)


# ----------------------------------------------------------------- dataset
class FileRows(NamedTuple):
    """What one source file gives a dataset (computed in a worker process)."""

    #: the rows it gives, in the order they are written
    rows: list
    #: its language, or None when it was not read
    lang: str | None
    #: why the file was not read (None when it was)
    unreadable: str | None
    #: why each of its units that gives no row was skipped -> how many
    skipped: dict


def source_files(source: Path) -> list[str]:
    """The ``.py`` and ``.java`` files under the directory ``source``,
    relative to it (``/`` separated, in path order); DataError when
    ``source`` is not a directory. A link that leads nowhere is listed too,
    so that reading it fails and it is counted among the files skipped."""
    if not source.exists():
        raise DataError("no such source directory", path=str(source))
    if not source.is_dir():
        raise DataError(
            "a file, not a directory: --source takes a directory of .py and .java files (searched recursively)",
            path=str(source),
        )
    return [
        p.relative_to(source).as_posix()
        for p in sorted(p for p in source.rglob("*") if p.suffix in LANGS and (p.is_file() or p.is_symlink()))
    ]


def map_files(
    work: Callable[[tuple], FileRows],
    tasks: Sequence[tuple],
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[tuple, FileRows]]:
    """``(task, work(task))`` for each of ``tasks`` (one per source file), in
    their order whatever ``jobs`` (worker processes; default: every core),
    so that a dataset is the same byte for byte; ``progress(done, total)``
    after each. Closing the generator, or an interrupt, stops and reaps the
    workers; once every file is read they leave on their own."""
    from ..interrupts import pool

    jobs = min(jobs or os.cpu_count() or 1, len(tasks))
    if jobs <= 1:
        yield from _reported(tasks, map(work, tasks), progress)
        return
    # a few files per message: parsing a file takes milliseconds, a message about a tenth of one
    chunk = max(1, min(8, len(tasks) // (16 * jobs)))
    with pool(jobs, method="spawn" if os.name == "nt" else "fork") as workers:
        yield from _reported(tasks, workers.imap(work, tasks, chunksize=chunk), progress)


def _reported(
    tasks: Sequence[tuple], results: Iterator[FileRows], progress: Callable[[int, int], None] | None
) -> Iterator[tuple[tuple, FileRows]]:
    # the results drive the loop: every one is taken, so that the pool ends idle
    for done, result in enumerate(results, start=1):
        yield tasks[done - 1], result
        if progress:
            progress(done, len(tasks))


def read_units(path: Path, rel: str) -> tuple[list[Program] | None, str | None]:
    """(the units of a source file, None), or (None, why it cannot be read)."""
    from ..errors import InvarError, NoUnitError
    from ..frontends import decode, parse_units

    try:
        data = path.read_bytes()
        if not data.strip():  # an empty file (a package's __init__.py) holds no function
            return [], None
        text = decode(data, LANGS[path.suffix], rel)  # as every command reads it: a BOM, PEP 263's coding
    except OSError as err:
        return None, f"unreadable ({err.strerror})"
    except InvarError as err:
        return None, err.message.split(" (")[0] if err.message.startswith("not ") else "unparsable"
    try:
        return parse_units(text, LANGS[path.suffix], path=rel), None
    except NoUnitError:  # an interface, a package-info.java: a file with no function, as an empty one
        return [], None
    except (InvarError, SyntaxError, ValueError, RecursionError):
        return None, "unparsable"


def frontend_skips(units: list[Program]) -> dict[str, int]:
    """Why the frontend left units of a file out (unsupported construct,
    nesting too deep …) -> how many."""
    from ..frontends.units import skipped_of

    out: dict[str, int] = {}
    for err in skipped_of(units):
        why = f"left out by the frontend ({getattr(err, 'reason', None) or 'unreadable'})"
        out[why] = out.get(why, 0) + 1
    return out


def no_training_rows(source: Path, files: int, rows: dict[str, list], skipped: dict[str, dict[str, int]]) -> DataError:
    """Why a dataset of ``source`` would have nothing to train on, in words:
    no source file at all; no function made into a row (and why each was
    left out); or rows only in files the path hash sends to valid and test."""
    if not files:
        return DataError("no .py or .java file here (searched recursively)", path=str(source))
    made = sum(len(r) for r in rows.values())
    if not made:
        why = {**skipped["files"], **skipped["functions"]}
        shown = ", ".join(f"{n} {reason}" for reason, n in sorted(why.items(), key=lambda kv: -kv[1])) or "none found"
        return DataError(
            f"no function of the {files:,} file{'s' if files != 1 else ''} made a row ({shown})", path=str(source)
        )
    held = ", ".join(f"{len(rows[s]):,} in {s}" for s in SPLITS if rows[s])
    return DataError(
        f"no row in a training file: {held}; each file goes to train, valid or test by the hash of its path "
        "(80 / 10 / 10 %), so a few files may all miss train: add files",
        path=str(source),
    )


def tally(into: dict[str, int], counts: dict[str, int]) -> None:
    for why, n in counts.items():
        into[why] = into.get(why, 0) + n


def _file_rows(task: tuple[str, str]) -> FileRows:
    """The names rows of one source file (``task``: the source directory
    and the file's path relative to it)."""
    from ..errors import InvarError

    source, rel = task
    units, unreadable = read_units(Path(source) / rel, rel)
    if units is None:
        return FileRows([], None, unreadable, {})
    rows, skipped = [], frontend_skips(units)
    for unit in units:
        label = subtokens(short_name(unit))
        text = function_text(unit) if label else None
        why = "without a name" if not label else "with their name not in their text" if text is None else None
        if why is None:
            try:
                parse(text)
            except (InvarError, SyntaxError, ValueError, RecursionError):  # e.g. a body that does not dedent
                why = "not standing alone"
        if why is not None:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        rows.append((text, " ".join(label), short_name(unit), rel, unit.lines[0].source_line))
    return FileRows(rows, LANGS[Path(rel).suffix], None, skipped)


def write_splits(out: Path, rows: dict[str, list[tuple]], columns: Sequence[str]) -> None:
    """``train.csv``, ``valid.csv`` and ``test.csv`` of ``rows`` under
    ``out``, after meta.json is removed (a rewrite cut short is no dataset:
    meta.json, written last, marks a whole one)."""
    from ..files import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").unlink(missing_ok=True)
    for split in SPLITS:
        buf = io.StringIO(newline="")
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows[split])
        write_atomic(out / f"{split}{_EXT}", lambda f, data=buf.getvalue(): f.write(data.encode("utf-8")))


def build(
    source: str | Path, out: str | Path, *, jobs: int | None = None, progress: Callable[[int, int], None] | None = None
) -> dict:
    """Write the names dataset of the ``.py`` and ``.java`` files under ``source`` to
    ``out`` (see the module docstring), reading them in ``jobs`` processes
    (the dataset is the same whatever their number); ``progress(files
    done, files)``. Returns what was written, with what was skipped and why
    (``skipped``: reason -> count, for files and for functions)."""
    from ..data import manifest
    from ..files import write_atomic

    source, out = Path(source), Path(out)
    rels = source_files(source)
    rows: dict[str, list[tuple]] = {s: [] for s in SPLITS}
    languages: set[str] = set()
    skipped: dict[str, dict[str, int]] = {"files": {}, "functions": {}}
    with contextlib.closing(map_files(_file_rows, [(str(source), rel) for rel in rels], jobs, progress)) as done:
        for (_, rel), got in done:
            if got.unreadable is not None:
                tally(skipped["files"], {got.unreadable: 1})
                continue
            rows[split_of(rel)].extend(got.rows)
            tally(skipped["functions"], got.skipped)
            if got.rows:
                languages.add(got.lang)
    if not rows["train"]:
        raise no_training_rows(source, len(rels), rows, skipped)
    write_splits(out, rows, _COLUMNS)
    labels = sorted({s for row in rows["train"] for s in row[1].split()})
    unreadable = sum(skipped["files"].values())
    meta = {
        "invar": "names",
        **manifest.fields("names", languages),
        "source": str(source),
        "files": len(rels) - unreadable,
        "unreadable_files": unreadable,
        "skipped_functions": sum(skipped["functions"].values()),
        **{s: len(rows[s]) for s in SPLITS},
        "skipped": {k: dict(sorted(v.items())) for k, v in skipped.items()},
        "placeholder": PLACEHOLDER,
        "subtokens": labels,
    }
    write_atomic(out / "meta.json", lambda f: f.write(json.dumps(meta, indent=1).encode("utf-8")))
    return meta


def split_rows(data: str | Path, split: str, command: str) -> Iterator[tuple[Path, int, list[str] | DataError]]:
    """``(path, line, row)`` for every data row of one split's CSV file (the
    header and blank rows left out; ``line`` is where the row starts, for
    errors); a row that is not CSV or not UTF-8 comes as a located DataError
    in place of the row, and the rows after it follow. A missing file is a
    DataError that names ``command``."""
    from ..files import read_text, undecodable

    data = Path(data)
    path = data / f"{split}{_EXT}"
    if not data.is_dir() or not path.is_file():
        raise DataError(
            f"no {split}{_EXT} here: write a dataset with invar data {command} --source DIR --out OUT", path=str(data)
        )
    csv.field_size_limit(sys.maxsize)
    reader = csv.reader(io.StringIO(read_text(path), newline=""), strict=True)
    start = 1
    while True:
        line = start
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            start = reader.line_num + 1
            yield path, line, DataError(f"not a CSV row ({err})", path=str(path), line=line, col=1)
            continue
        start = reader.line_num + 1
        if not row or (line == 1 and row[0] == "source"):
            continue
        bad = undecodable(",".join(row))
        if bad is not None:
            yield path, line, DataError("not UTF-8 text", path=str(path), line=line, col=1)
            continue
        yield path, line, row


def read_split(data: str | Path, split: str) -> list[Example]:
    """The functions of one split of a directory :func:`build` wrote; each
    label is the tuple of the name's subtokens. A malformed row is a DataError."""
    return checked(split_examples(data, split))


def row_examples(
    data: str | Path, split: str, command: str, label_of: Callable[[list[str]], object], missing: str = ""
) -> list[Example]:
    """Every row of one split's CSV file (:func:`split_rows`) as an example:
    its source and ``label_of(row)``. A malformed row, and one whose label is
    None when ``missing`` says what such a row lacks, is an example with its
    located error."""
    out = []
    for path, line, row in split_rows(data, split, command):
        if isinstance(row, DataError):
            out.append(Example("", None, str(path), line, error=row))
            continue
        y = label_of(row)
        error = None
        if y is None and missing:
            error = DataError(f"{missing} (expected source,label,…)", path=str(path), line=line, col=1)
        out.append(Example(row[0], y, str(path), line, error=error))
    return out


def split_examples(data: str | Path, split: str) -> list[Example]:
    """Every row of one split, a malformed one as an example with its error."""
    return row_examples(data, split, "names", _label_of_row, "a function without a name")


def _label_of_row(row: list[str]) -> tuple[str, ...] | None:
    """A row's label: its name's subtokens (None when it has none)."""
    return tuple(row[1].split()) if len(row) > 1 and row[1].split() else None


def labels_of(data: str | Path) -> list[str]:
    """The model's labels: the training split's subtokens (meta.json)."""
    path = Path(data) / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        labels = list(meta["subtokens"])
    except (OSError, ValueError, KeyError, TypeError):
        raise DataError(
            "no names dataset here (meta.json with its subtokens): write one with "
            "invar data names --source DIR --out OUT",
            path=str(path),
        )
    if not labels:
        raise DataError("the dataset has no training subtokens", path=str(path))
    return labels


def own_split(spec: str, split: str, command: str, read: Callable) -> list[Example] | None:
    """``read(spec, split)`` when ``spec`` is a directory ``invar data
    {command}`` wrote (its meta.json says so) holding ``split``; else None."""
    path = Path(spec)
    if path.is_dir() and (path / "meta.json").is_file() and (path / f"{split}{_EXT}").is_file():
        try:
            if json.loads((path / "meta.json").read_text(encoding="utf-8")).get("invar") != command:
                return None
        except ValueError:
            return None
        return read(path, split)
    return None


def dataset(spec: str, split: str) -> list[Example] | None:
    return own_split(spec, split, "names", split_examples)


def targets(labels: Sequence[Sequence[str]], names: Sequence[str]) -> np.ndarray:
    """(N, len(names)) multi-hot rows; subtokens outside ``names`` are dropped."""
    index = {s: k for k, s in enumerate(names)}
    out = np.zeros((len(labels), len(names)), dtype=np.float32)
    for i, label in enumerate(labels):
        for s in label:
            if s in index:
                out[i, index[s]] = 1.0
    return out


# ------------------------------------------------------ loss, output, metric
def loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy over every label (the mean)."""
    import torch.nn.functional as F

    return F.binary_cross_entropy_with_logits(logits, target)


def output(logits: torch.Tensor, names: Sequence[str] | None = None) -> list[tuple]:
    """(B, N) logits -> per function the sorted predicted subtokens (label
    indices without ``names``): those with logit >= 0 (probability 0.5),
    else the most probable one."""
    logits = logits.detach().float().cpu()
    chosen = logits >= 0  # (B, N)
    none = ~chosen.any(dim=1)  # (B,)
    chosen[none.nonzero().squeeze(1), logits[none].argmax(dim=1)] = True
    picked: list[list[int]] = [[] for _ in range(len(chosen))]
    for r, c in chosen.nonzero().tolist():  # the chosen labels only, row by row
        picked[r].append(c)
    if names is None:
        return [tuple(idx) for idx in picked]
    return [tuple(sorted(names[k] for k in idx)) for idx in picked]


def counts(predictions, labels) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) over the subtoken sets."""
    tp = fp = fn = 0
    for p, t in zip(predictions, labels):
        ps, ts = set(_subtokens_of(p)), set(_subtokens_of(t))
        tp += len(ps & ts)
        fp += len(ps - ts)
        fn += len(ts - ps)
    return tp, fp, fn


def _subtokens_of(x) -> list[str]:
    if x is None:
        return []
    if isinstance(x, str):  # a label or an answer written as text
        return x.split()
    return [str(s) for s in x]


def prediction(value) -> tuple:
    """A model's name as Python returns it -> its subtokens, as labels are
    read: a name or words as text (``"getName"`` -> ``("get", "name")``), or a
    list of them (``["getName"]`` alike; a checkpoint's subtokens stay as
    they are); a ValueError for any other value."""
    if isinstance(value, str):
        value = value.split()
    if isinstance(value, (list, tuple)) and all(isinstance(w, str) for w in value):
        return tuple(s for w in value for s in subtokens(w))
    raise ValueError("a name is text or a list of subtokens")


def precision(predictions, labels) -> float:
    tp, fp, _ = counts(predictions, labels)
    return float("nan") if not len(labels) else 100.0 * tp / (tp + fp) if tp + fp else 0.0


def recall(predictions, labels) -> float:
    tp, _, fn = counts(predictions, labels)
    return float("nan") if not len(labels) else 100.0 * tp / (tp + fn) if tp + fn else 0.0


def f1(predictions, labels) -> float:
    """Micro-averaged subtoken F1, in percent (see the module docstring)."""
    if not len(labels):
        return float("nan")
    tp, fp, fn = counts(predictions, labels)
    return 200.0 * tp / (2 * tp + fp + fn) if tp else 0.0


def score(prediction, label) -> float:
    """One function's subtoken F1 (the audit's worst variant scores lowest)."""
    return f1([prediction], [label])


def f1_per_function(predictions, labels) -> float:
    """Each function's subtoken F1 averaged over the functions, in percent
    (the micro average, :func:`f1`, pools the subtokens instead)."""
    if not len(labels):
        return float("nan")
    return float(np.mean([score(p, t) for p, t in zip(predictions, labels)]))


def label(text: str) -> tuple:
    """A name or its subtokens written in a dataset file -> the subtokens."""
    words = [s for w in text.split() for s in subtokens(w)]
    if not words:
        raise ValueError(f"{text.strip()!r} has no subtokens")
    return tuple(words)


# ---------------------------------------------------------- reading answers
_IDENTIFIER = r"(?:[^\W\d]|\$)[\w$]*(?:\.(?:[^\W\d]|\$)[\w$]*)*"
_IDENTIFIERS = re.compile(rf"(?<![\w$.]){_IDENTIFIER}(?![\w$])")
_CALLED = re.compile(rf"(?<![\w$.])({_IDENTIFIER})[ \t]*\(")
# an identifier in backticks or quotes, a call's parentheses allowed (``get_value()``)
_QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|“([^”\n]+)”|(?<!\w)'([^'\n]+)'(?!\w)|‘([^’\n]+)’")
# a second name offered beside the first (``compute_total (or total)``)
_ALTERNATIVE = re.compile(
    rf"(?<![\w$])(?:or|alternatively|otherwise)[ \t,:]+(?:maybe[ \t]+|perhaps[ \t]+)?[`'\"“‘]?{_IDENTIFIER}", re.I
)
#: words no function is named: Python's and Java's keywords
_KEYWORDS = frozenset(keyword.kwlist) | JAVA_KEYWORDS
_QUOTED_NAME = re.compile(rf"\s*({_IDENTIFIER})\s*(?:\([^()]*\))?\s*")


def _quoted(segment: str) -> list[str]:
    out = []
    for m in _QUOTED.finditer(segment):
        inner = _QUOTED_NAME.fullmatch(next(g for g in m.groups() if g is not None))
        if inner is not None:
            out.append(inner.group(1))
    return out


#: an identifier that opens a segment, a call's parentheses right after it allowed (``get_value(self)``)
_OPENING = re.compile(rf"[ \t]*({_IDENTIFIER})(?:\([^()`'\"]*\))?")
#: what closes the name that opens a segment before a note: a parenthesis, a dash, a comma, a colon, a
#: semicolon, a sentence's end (``get_value (returns `self.value`)``, ``parse_config — reads …``)
_CLOSED = re.compile(r"[ \t]*(?:$|[(,;:—–]|-[ \t]|[.!](?:[ \t]|$))")
#: of those, what closes a name of one word in lower case (``total (the `sum` …)``): no comma or colon, after
#: which such a word is prose (``so, `get_value```)
_CLOSED_WORD = re.compile(r"[ \t]*(?:$|[(—–]|-[ \t])")
#: a correction after a separator inside the answer (``get_value (actually fetch_value)``)
_CORRECTED = re.compile(rf"[(\[,;:—–-][ \t]*(?:{CORRECTING.pattern})", re.I)


def _noted(rest: str) -> bool:
    """Whether what follows a segment's opening name holds words of prose outside quotes (a note: ``(returns
    `self.value`)``), not only other names (``(`fetch_value`)``, an alias or an alternative)."""

    def dropped(m: re.Match) -> str:  # a quoted name is dropped; quoted code (``(`def get_value(self)`)``) is a note
        return " " if _QUOTED_NAME.fullmatch(next(g for g in m.groups() if g is not None)) else " code "

    return bool(re.search(r"[^\W\d_]{2,}", _QUOTED.sub(dropped, rest)))


def _name_like(identifier: str) -> bool:
    """Whether an identifier is no word of prose: it holds ``_``, ``$`` or a capital after a small letter."""
    return bool(re.search(r"[_$]|[a-z][A-Z]", identifier))


def read_answer(segment: str, *, phrases: bool = True) -> tuple:
    """The name a segment of an answer gives, as its subtokens (:func:`label`):
    the identifier that opens it when quoted words follow as a note
    (``get_value (returns `self.value`)``, ``getValue, following the `getX`
    convention``), else its single quoted identifier (backticks or quotes,
    ``get_value()`` too), else its single identifier followed by ``(`` (a
    signature or a call), else its single identifier (``obj.get_value`` is
    ``get_value``). A quoted identifier is the answer only where it opens the
    segment or prose (``I'd name it `get_value```) does: beside a bare
    identifier that is no prose word (``… `x`, so I'd name it getX``) the
    segment is refused. Unreadable when the first kind found holds several
    names, when there is none, for a correction (``get_value (actually
    fetch_value)``), for the placeholder of the hidden name, and for prose of
    one word (:data:`_INTERJECTION`: ``Sure!``, ``Thinking.``, ``OK``). A
    name before a colon is no label but the name, a note after it
    (``getValue: returns `this.value```). With ``phrases`` (the answer's own
    line), a single quoted name of one word that a word of no prose follows
    is refused as part of a longer one (:func:`_check_not_in_a_phrase`)."""
    segment = _unlabelled(segment)
    if _INTERJECTION.fullmatch(segment.strip()):
        raise Unreadable(f"{segment.strip()!r} is prose (a word that opens or answers a chat), not a name")
    alternative = _ALTERNATIVE.search(segment)
    if alternative is not None:
        raise Unreadable(f"alternatives ({alternative.group().strip()}), not one name")
    corrected = _CORRECTED.search(segment)
    if corrected is not None:
        raise Unreadable(f"second thoughts inside the answer ({segment.strip()[:80]!r}), not one name")
    quoted = _quoted(segment)
    opener = _QUOTED.match(segment.strip())
    inner = _QUOTED_NAME.fullmatch(next(g for g in opener.groups() if g is not None)) if opener else None
    if inner is not None and len(quoted) > 1 and _CLOSED_WORD.match(segment.strip(), opener.end()):
        if _noted(segment.strip()[opener.end() :]):  # ``\`count_words\` (takes \`text\`)``: a note after the name
            if phrases and _fits_too(segment.strip()[opener.end() :]):  # ``\`total\` (\`sum\` also works)``
                raise Unreadable(f"another name offered beside a quoted one ({segment.strip()[:80]!r}), not one name")
            return _named(inner.group(1))
    if inner is None and _QUOTED.search(segment):
        first = _OPENING.match(segment)
        if (
            first is not None
            and _noted(segment[first.end() :])
            and (
                (_name_like(first.group(1)) and _CLOSED.match(segment, first.end()))
                or (first.group(1).islower() and "." not in first.group(1) and _CLOSED_WORD.match(segment, first.end()))
            )
        ):
            return _named(first.group(1))
        bare = [i for i in _IDENTIFIERS.findall(_QUOTED.sub(" ", segment)) if _name_like(i)]
        if bare:
            raise Unreadable(f"a quoted name beside a bare one ({bare[0]}): no one name ({segment.strip()[:80]!r})")
    if len(quoted) == 1 and phrases:
        _check_not_in_a_phrase(segment)
    for found, what in (
        (quoted, "quoted names"),
        (_CALLED.findall(segment), "names before parentheses"),
        (_IDENTIFIERS.findall(segment), "identifiers"),
    ):
        names = list(dict.fromkeys(i.rsplit(".", 1)[-1] for i in found))
        if len(names) > 1:
            shown = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
            raise Unreadable(f"{len(names)} different {what} ({shown}) and no single quoted one")
        if names:
            return _named(names[0])
    raise Unreadable(f"no identifier in {segment.strip()[:80]!r}")


#: words of prose that may follow a quoted name in an answer (`` `get_value` is clearer``, `` `getValue` in
#: Java``); any other word right after it makes the name part of a phrase (`` `value` getter``)
_PROSE_AFTER = frozenset(
    "is was would could should might may will seems seem sounds fits fit works work captures describes reflects "
    "matches conveys makes best better here as since because for to which that but so if in from with perhaps maybe "
    "probably i it this and following by after when where also too then clearly "
    # verbs that say what the function does or what the name says
    "returns checks computes calculates gets sets finds reads writes parses converts builds creates adds removes "
    "sums counts handles tests validates says suggests indicates follows tells shows states expresses mirrors "
    "aligns keeps avoids emphasizes highlights communicates".split()
)
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d][\w'-]*)")
#: words after a quoted name that offer another beside it (`` `compute_total` vs total``, `` `get_value` unless
#: you prefer value``)
_OFFERS_ANOTHER = frozenset("vs versus nor else otherwise alternatively though although unless plus".split())
#: a pause after a quoted name, and the word after it: a slash offers another name (`` `get` / fetch``), and so
#: does a word of :data:`_OFFERS_ANOTHER` but a concession's (`` `compute_total`, else total``; not `` `x`, though
#: it is long``)
_PAUSED_WORD_AFTER = re.compile(r"[ \t]*([,;—–/]|-{1,2}(?=[ \t]))[ \t]*([^\W\d][\w'-]*)?")
_OFFERS_AFTER_A_PAUSE = _OFFERS_ANOTHER - {"though", "although", "unless", "plus"}
#: another name said to fit as well (`` `sum_prices` also works``, ``; total works too``, ``total_price is fine
#: too``, ``unless you prefer total``): quoted, like a name, or a word alone at its clause's start; not prose
#: (``empty input works too``, ``it also works``, ``the function also works for floats``)
_FITS_TOO = re.compile(
    r"(?P<start>(?:^|[,;:(—–/-])[ \t]*(?:(?:though|although|or|and|but|just)[ \t]+)?)?"
    r"(?P<q>[`'\"“‘])?(?P<word>[^\W\d][\w$.]*)(?(q)[`'\"”’])[ \t]+"
    r"(?:is[ \t]+|would[ \t]+be[ \t]+)?(?:(?:also|too)[ \t]+(?:works?|fits?|fine|good|ok|okay|acceptable|valid"
    r"|reasonable|possible)\b|(?:works?|fits?|fine|good|ok|okay|acceptable|valid|reasonable)[ \t]+"
    r"(?:too|as[ \t]+well)\b)"
    r"|\b(?:if|unless)[ \t]+you[ \t]+prefer[ \t]+[`'\"“‘]?(?P<preferred>[^\W\d][\w$]*)",
    re.I,
)
_NOT_ANOTHER = frozenset(
    "it this that which one name so and but also too function method code loop call version approach".split()
)


def _fits_too(text: str) -> bool:
    """Whether ``text`` (what follows a quoted name) says another name fits as well (:data:`_FITS_TOO`)."""
    for m in _FITS_TOO.finditer(text):
        if m.group("preferred"):
            return True
        word = m.group("word")
        alone = m.group("start") is not None and not word.lower().endswith("ing")  # not ``summing is okay too``
        if word.lower() not in _NOT_ANOTHER and (m.group("q") or _name_like(word) or alone):
            return True
    return False


def _check_not_in_a_phrase(segment: str) -> None:
    """Unreadable when a word other than prose (:data:`_PROSE_AFTER`) follows a quoted name of one word
    without a pause: the name is then part of a longer one (`` `value` getter``, `` `get` value``), not the
    answer. A name of several subtokens (`` `get_value` looks good``) is whole already (not ``get_``: a
    ``_`` or ``$`` at its ends makes no second subtoken). After any quoted name, a word that offers another
    (:data:`_OFFERS_ANOTHER`: `` `compute_total` vs total``, after a pause too: `` `compute_total`, else
    total``), an identifier (`` `get_value` or_default``), a slash (`` `get` / fetch``) or words that say
    another fits as well (:data:`_FITS_TOO`: ``; total also works``) refuse the segment too."""
    for m in _QUOTED.finditer(segment):
        inner = _QUOTED_NAME.fullmatch(next(g for g in m.groups() if g is not None))
        if inner is None:
            continue
        after = _WORD_AFTER.match(segment, m.end())
        word = "" if after is None else after.group(1).lower()
        paused = _PAUSED_WORD_AFTER.match(segment, m.end())
        pause, then = (paused.group(1), (paused.group(2) or "").lower()) if paused else ("", "")
        if (
            word in _OFFERS_ANOTHER
            or (after is not None and _name_like(after.group(1)))
            or pause == "/"
            or then in _OFFERS_AFTER_A_PAUSE
            or _fits_too(segment[m.end() :])
        ):
            raise Unreadable(f"another name offered beside a quoted one ({segment.strip()[:80]!r}), not one name")
        if word and word not in _PROSE_AFTER and not _name_like(inner.group(1).strip("_$")):
            raise Unreadable(f"a quoted name inside a phrase ({segment.strip()[:80]!r}), not one name")


#: the words of a label that names what follows it (``function_name: get_value``, ``suggestedName: …``)
_LABEL_WORDS = {"function", "method", "name", "answer", "final", "suggested", "proposed", "new", "better", "best", "my"}


def _unlabelled(segment: str) -> str:
    """``segment`` without a short label before a colon (``Function name: get_value``), unless that label is
    itself a name (``getValue: returns `this.value```, ``is_prime: checks …``: it holds ``_`` or a capital after
    a small letter, and is no label's words such as ``function_name``)."""
    rest = without_label(segment)
    head = re.fullmatch(rf"[ \t]*({_IDENTIFIER})[ \t]*:[ \t]*", segment[: len(segment) - len(rest)])
    if head is not None and _name_like(head.group(1)) and not set(label(head.group(1))) <= _LABEL_WORDS:
        return segment
    return rest


def _named(identifier: str) -> tuple:
    """The subtokens of the name ``identifier`` gives (``obj.get_value``: ``get_value``); Unreadable for the
    placeholder of the hidden name and for a keyword."""
    name = identifier.rsplit(".", 1)[-1]
    if name == PLACEHOLDER:
        raise Unreadable(f"{PLACEHOLDER} is the placeholder of the hidden name, not a name")
    if name in _KEYWORDS:
        raise Unreadable(f"{name} is a keyword, not a function's name")
    return label(name)


#: a verb that names what follows it (``name it``, ``rename it to``, ``call it``, ``named``, ``renamed to``)
_VERB = (
    r"(?:re-?)?(?:name|call)[ \t]+it(?:[ \t]+(?:to|as)(?![\w-]))?"
    r"|(?:re-?)?(?:named|called)(?:[ \t]+(?:to|as)(?![\w-]))?"
)
#: what presents a line's identifier as the name (``so I'd name it``, ``a better name is``, ``→``)
_PRESENTING = re.compile(
    r"(?:…|\.\.\.)?[ \t]*(?:(?:so|thus|hence|therefore|then)[ \t,]+)?"
    r"(?:(?:i'd|i’d|i[ \t]+would|i'll|i’ll|i[ \t]+will|i|we[ \t]+could|we'd|we’d)[ \t]+(?:rather[ \t]+)?"
    rf"(?:{_VERB})|(?:it|this)[ \t]+(?:should|could|would)[ \t]+be[ \t]+(?:{_VERB})|(?:a|the|my)[ \t]+(?:better[ \t]+"
    r"|best[ \t]+|good[ \t]+|final[ \t]+|right[ \t]+)?name[ \t]+(?:is|would[ \t]+be|should[ \t]+be)|→|->|=>)?[ \t:]*",
    re.I,
)
#: words that present what ends the line as the name (``…, so I'd name it `compute_total`.``)
_NAMING = re.compile(rf"(?<![\w-])(?:{_VERB}|name[ \t]+(?:is|would[ \t]+be|should[ \t]+be))[ \t]*:?[ \t]*", re.I)
#: an identifier alone on a line, quoted or not, a call's parentheses and a verdict on it allowed
#: (`` `fetch_value` is better.``)
_ALONE = re.compile(
    rf"[`'\"“‘]?(?P<name>{_IDENTIFIER})[ \t]*(?:\([^()]*\))?[`'\"”’]?(?:[ \t]+(?:(?:is|seems)(?:[ \t]+also)?[ \t]+"
    r"(?:better|fine|good|clearer|more[ \t]+\w+|a[ \t]+better[ \t]+(?:name|fit)|a[ \t]+good[ \t]+(?:name|fit))"
    r"|(?:would|could|might)(?:[ \t]+also)?[ \t]+(?:work|fit|do|be[ \t]+(?:better|fine|good|clearer|ok|okay))"
    r"|fits[ \t]+better|also[ \t]+works?|works[ \t]+(?:too|as[ \t]+well))"
    r"(?:[ \t]+(?:just[ \t]+)?(?:too|as[ \t]+well))?)?[ \t]*[.!]*",
    re.I,
)


def read_alone(line: str) -> tuple:
    """The name a line gives when it is nothing but one (`` `compute_total` ``,
    ``…so I'd name it `compute_total`.``, ``But `fetch_value` is better.``);
    Unreadable for any other line (``It returns `self.value`.``)."""
    line = without_label(clean(line, line=True))
    presenting = _PRESENTING.match(line)
    m = _ALONE.fullmatch(line, presenting.end() if presenting else 0)
    named = list(_NAMING.finditer(line))
    if m is None and named:  # ``It sums the items, so I'd name it `compute_total`.``
        m = _ALONE.fullmatch(line, named[-1].end())
    if m is None:
        raise Unreadable(f"not a name alone ({line[:80]!r})")
    name = m.group("name")
    if m.start() > 0 and line[m.start()] not in "`'\"“‘" and not _name_like(name):  # ``The name is clear.``
        if not _NAMED_BY_VERB.search(line, 0, m.start()):  # ``I'd rename it to total.``: a verb names it
            raise Unreadable(f"a word of prose after words that present a name ({line[:80]!r})")
    return read_answer(name)


#: a verb that describes what the code does with what follows it (``It returns `total`.``, ``It uses the `sum`
#: builtin``): an identifier after it is the code's, no name given for the function
_DESCRIBED = re.compile(
    r"(?<![\w-])(?:returns|computes|calculates|uses|takes|calls|reads|writes|sums|divides|iterates|accumulates"
    r"|stores|holds|modifies|appends|loops|checks|compares|updates|yields|raises|throws)[ \t]+(?:over[ \t]+)?"
    rf"(?:(?:the|a|an|its|their)[ \t]+)?[`'\"“‘]?{_IDENTIFIER}",
    re.I,
)


def read_last_line(line: str) -> tuple:
    """The name a reply's last line gives when the reply has no final answer, as :func:`read_answer` reads
    it, but not when its only identifiers are those of the code that a sentence describes (``It returns
    `total`.``, ``It returns the `mean`.``): that names no function, where ``It returns the sum of squares,
    hence `sum_of_squares`.`` and `` `find_max` — it returns the largest element`` do."""
    rest = _DESCRIBED.sub(" ", line)  # the line without what its describing verbs say of the code
    named = [q for q in _quoted(rest)] + [i for i in _IDENTIFIERS.findall(_QUOTED.sub(" ", rest)) if _name_like(i)]
    if rest != line and not named and not _NAMING.search(line):
        raise Unreadable(f"a sentence about the code ({line.strip()[:60]!r}), not a name given as the answer")
    return read_answer(line)


#: a verb that names what follows it (``I'd rename it to total``, ``call it total``, ``named total``): a word of
#: prose after it is a name, where after ``the name is`` it may be a verdict (``The name is clear.``)
_NAMED_BY_VERB = re.compile(rf"(?<![\w-])(?:{_VERB})[ \t]*:?[ \t]*$", re.I)
#: a word of a verdict on the name, alone on a line of second thoughts (``Actually, this is fine.``, ``Wait, the
#: name is clear.``): no other name, though a function may be so named
_VERDICT_WORD = re.compile(
    r"[ \t]*(?:fine|good|ok|okay|right|correct|clear|better|accurate|appropriate|apt|descriptive|reasonable"
    r"|acceptable|sufficient|enough|wrong|misleading|ambiguous|vague|better[ \t]+suited|honest|precise|fitting"
    r"|sensible|adequate|valid|self-explanatory)[ \t]*[.!]*[ \t]*",
    re.I,
)
#: such a word before a pause (``Wait, no, that's fine — `merge_dicts` is accurate.``)
_VERDICT_FIRST = re.compile(rf"(?:{_VERDICT_WORD.pattern})(?:[—–,;:(]|-{{1,2}}[ \t])", re.I)


#: prose of one word, no name: a capitalised word closed as a sentence (``Sure!``, ``Thinking.``, ``Okay:``), and a
#: word that opens or answers a chat capitalised, closed or not (``OK``, ``Hello``); in lower case, bare, it may be
#: a name (``ok``, ``hello``), as may a capitalised one that is no such word (``Parse``)
_INTERJECTION = re.compile(
    r"[A-Z][a-z]*[ \t]*[.!:…]+"
    r"|(?:OK|O\.K\.|Ok(?:ay)?|OKAY|Sure|Hello|Hi|Hey|Thanks|Thank[ \t]+you|Yes|No|Yep|Nope|Done|Great|Alright|Right"
    r"|Certainly|Understood|Hm+|Well|Fine|Got[ \t]+it|Sorry|Thinking)[ \t]*[.!:…,]*"
)


def find_answers(text: str) -> list[tuple]:
    """Every line of a reply that reads as one name: its candidate answers
    (prose of one word, such as ``Sure!``, is none)."""
    out = []
    for line in lines(text):
        try:
            out.append(read_answer(line))
        except ValueError:
            continue
    return out


#: words that present a name that may follow as a maybe (``But it could be `value` as a property.``)
_MAYBE = re.compile(
    r"(?:it|this|that)[ \t]+(?:could|might|may)(?:[ \t]+also)?[ \t]+be(?:[ \t]+(?:named|called))?[ \t]+", re.I
)


def _weak(rest: str) -> list[tuple]:
    """The name a line of weak second thoughts gives (``But `sum_items` would also work.``, ``I think
    fetch_value.``, ``But it could be `value` as a property.``): one alone (:func:`read_alone`), or a quoted
    or no-prose identifier presented as a maybe; a note (``But it doesn't modify `self`.``) gives none."""
    try:
        return [read_alone(rest)]
    except ValueError:
        pass
    line = clean(rest, line=True)
    maybe = _MAYBE.match(line)
    if maybe is not None:
        m = _OPENING.match(line, maybe.end())
        quoted = _QUOTED.match(line, maybe.end())
        if quoted is not None and (inner := _QUOTED_NAME.fullmatch(next(g for g in quoted.groups() if g))):
            return [_named(inner.group(1))]
        if m is not None and _name_like(m.group(1)):
            return [_named(m.group(1))]
    return []


def later_answers(text: str) -> list[tuple]:
    """The names the text after a final answer gives anyway: on a line of
    second thoughts (``Actually, a better name is `fetch_value`.``,
    ``Correction: fetch_value``), or, where that line is a sentence, the
    names in it that no word of prose is (``maybe fetch_value is better``);
    a note (``It returns `self.value`.``) gives none; and the name of each function a code block there
    defines (``def compute_mean(numbers):``, ``boolean contains(Object o) {``)."""
    return later(
        text,
        # a quoted name there is another answer even inside a phrase (``Actually, `total` looks cleaner.``)
        lambda rest: read_answer(rest, phrases=False),
        forms=lambda rest: () if _VERDICT_WORD.fullmatch(rest) or _VERDICT_FIRST.match(rest) else (rest,),
        otherwise=_otherwise,
        weak=_weak,
    ) + _defined(text)


#: a line of code that defines a function or method, Python's or Java's (its name in the group)
_DEFINITION = re.compile(
    rf"^[ \t]*(?:async[ \t]+)?def[ \t]+(?P<py>{_IDENTIFIER})[ \t]*\("
    rf"|^[ \t]*(?:(?:public|private|protected|static|final|abstract|synchronized)[ \t]+)*[\w<>\[\],.? \t]+?"
    rf"[ \t](?P<java>{_IDENTIFIER})[ \t]*\([^()]*\)[ \t]*(?:throws[^{{]*)?\{{[ \t]*$",
    re.M,
)


def _defined(text: str) -> list[tuple]:
    """The name of the function each code block of ``text`` defines: its first definition, a constructor,
    a special method or a test left out (``__init__``, ``test_…``; a helper or a nested function after it is
    no other answer), and the hidden name's placeholder."""
    inside, out, found = False, [], False
    for line in text.splitlines():
        if re.match(r"^\s*(?:```|~~~)", line):
            inside, found = not inside, False
        elif inside and not found and (m := _DEFINITION.match(line)) is not None:
            name = m.group("py") or m.group("java")
            if name.startswith(("__", "test_", "test")) or name in _KEYWORDS:
                continue
            found = True
            if name != PLACEHOLDER:
                out.append(label(name))
    return out


def _otherwise(rest: str) -> list[tuple]:
    """The names a sentence of strong second thoughts gives: one alone or presented (:func:`read_alone`:
    ``fetch is better.``, ``I'd rename it to total.``), else those of its identifiers that no word of prose is
    (``maybe fetch_value is better``)."""
    if _VERDICT_WORD.fullmatch(rest):
        return []
    try:
        return [read_alone(rest)]
    except ValueError:
        return [label(i) for i in _IDENTIFIERS.findall(rest) if len(subtokens(i)) > 1 and i != PLACEHOLDER]


#: a whole reply -> the subtokens of the name it gives (:mod:`invar.tasks.answers`' pipeline)
answer = Reader(
    parse=read_answer, find=find_answers, last_line=read_last_line, after=later_answers, alone=read_alone, code=False
)


TASK = Task(
    name="names",
    head="multilabel",
    n_labels=1,  # the dataset's subtokens, set by training
    invariances={"renamings": True, "permutations": True},
    metric_name="F1",
    lower_is_better=False,
    loss=loss,
    metric=f1,
    output=output,
    parse=parse,
    read_split=read_split,
    discrete=True,
    label=label,
    answer=answer,
    prediction=prediction,
    lang=PYTHON.name,
    prepare=prepare,
    undo=lambda prediction, back: prediction,  # a name's subtokens name nothing of the input
    score=score,
    extra_metrics={"precision": precision, "recall": recall, "F1 (per function)": f1_per_function},
    f1=False,
    dataset=dataset,
    labels_of=labels_of,
    targets=targets,
    languages=(PYTHON.name, JAVA.name),
)

__all__ = [
    "TASK",
    "PLACEHOLDER",
    "subtokens",
    "split_of",
    "hide_name",
    "function_text",
    "parse",
    "build",
    "read_split",
    "labels_of",
    "targets",
    "loss",
    "output",
    "f1",
    "f1_per_function",
    "precision",
    "recall",
    "counts",
    "label",
    "answer",
    "read_answer",
    "find_answers",
]
