"""What an audit reads: examples (a program, its label when known, where it
was read), from every kind of dataset the CLI takes.

* ``bhive``: a directory written by ``invar data bhive`` (a split of it,
  ``test`` by default, with its llvm-mca labels), or a local copy of BHive's
  CSVs (hex rows, unlabelled, in the order ``invar data bhive --limit`` takes
  them: by the block's hash). ``--data-dir`` or ``INVAR_DATA`` says where;
  without either, BHive's public CSVs in invar's cache, downloaded there
  the first time (:func:`invar.data.bhive.source_files`).
* a **directory**: the same two layouts, or source files (``.py``, ``.java``,
  ``.s``/``.S``/``.asm``, ``.hex``, ``.ltl``), every unit of every file, files in
  sorted order.
* a **file of programs**: Python and Java files give their functions and
  methods, ``.ltl`` files their formula/trace pairs, ``.hex`` files a block per
  line; an assembly file holds blocks separated by blank lines, or one block
  per line when its lines separate instructions with ``;``. A comment
  ``# label: VALUE`` in a block labels it.
* a **table**: CSV with a header, or JSONL, with a program column (``program``,
  ``code``, ``text``, ``source``, ``hex`` or ``block``, or ``--program-column``)
  and an optional label column (``label``, ``throughput``, ``target`` or
  ``y``, or ``--label-column``); an ``id`` column names the examples.
* a **task's own dataset** (:attr:`invar.tasks.Task.dataset`): for ``ltl``,
  a file ``invar data ltl`` wrote (every pair) or a directory of split files
  (``--split``); for ``copy``, a directory ``invar data copy`` wrote
  (``--split``) or a ``.txt`` file of strings. The task reads its labels.

Each example has an ``id`` that does not depend on where the dataset lies
(``test.csv:17``, ``pkg/mod.py:12``): the seed of its variants is drawn from
it. Examples are parsed when the audit reaches them
(:meth:`AuditExample.parse`), so a shard parses only its own share; an
example that does not parse is reported with its location, and the rest
are audited. So is a row that
cannot be read (not JSON, not CSV, not UTF-8, no program, a bad label): it
is an example whose ``error`` is set. A dataset ``invar data`` wrote for
another task than the model's (:mod:`invar.data.manifest`), one without
examples, and one with no program in a language the model was trained on
are refused as a whole.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import DataError, InvarError, ParseError, UsageError, json_problem
from ..frontends.registry import HEX, X86, frontend_of
from ..program import Program

PROGRAM_COLUMNS = ("program", "code", "text", "source", "hex", "block")
LABEL_COLUMNS = ("label", "throughput", "target", "y")
SOURCE_EXTENSIONS = (".py", ".java", ".s", ".S", ".asm", ".hex", ".ltl")
_LABEL_COMMENT = re.compile(r"#\s*label:\s*(\S+)\s*$")
_HEX = re.compile(r"^[0-9a-fA-F]+$")


@dataclass
class AuditExample:
    """One program to audit."""

    #: position in the dataset (after ``--limit``)
    index: int
    #: a name that does not depend on where the dataset lies; seeds the variants
    id: str
    #: ``path:line`` for messages
    path: str
    line: int
    #: the program as stored (BHive: hex), parsed by :meth:`parse`
    source: str = ""
    #: the language ``source`` is written in (``hex`` for BHive blocks)
    lang: str = ""
    #: the label as read (a float for ``bhive``), or None
    label: Any = None
    #: the program, when reading the dataset already parsed it
    program: Program | None = None
    #: why reading it failed (the example is reported, not audited)
    error: InvarError | None = None
    #: the task's reader of ``source`` (a task's own dataset), else None
    parser: Any = None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def parse(self) -> Program:
        """The program; a located ParseError when it does not parse."""
        if self.program is not None:
            return self.program
        if self.error is not None:
            raise self.error
        if self.parser is not None:
            try:
                return self.parser(self.source)
            except ParseError as err:
                if self.line and err.line <= 1:
                    err.line = self.line
                raise err.located(self.path)
        record = frontend_of(self.lang)
        if record.block:  # a block of a larger file (an assembly paragraph, a hex row), located there
            return record.hook("block")(self.source, name=self.id, path=self.path, line=self.line)
        from ..frontends import parse_units

        try:
            units = parse_units(self.source, self.lang, self.path)
        except ParseError as err:
            if self.line > 1 and err.line:  # a program read from inside a larger file
                err.line += self.line - 1
            raise
        return units[0]


@dataclass
class Dataset:
    #: the dataset as the user named it
    name: str
    #: ``bhive``, ``bhive-copy``, ``directory``, ``file``, ``table`` or ``programs``
    kind: str
    examples: list[AuditExample]
    #: the split read (prepared BHive datasets), else None
    split: str | None = None
    #: the files of a directory that hold no program (empty, blank, only comments), by name
    empty: list[str] = field(default_factory=list)
    #: a classify dataset's distinct labels, of every example before ``--limit`` (what its prompt offers)
    labels: tuple = ()

    @property
    def labelled(self) -> int:
        return sum(1 for e in self.examples if e.label is not None)

    def info(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "split": self.split,
            "examples": len(self.examples),
            "labelled": self.labelled,
            "files_without_programs": len(self.empty),
        }


# ------------------------------------------------------------------- loading
#: the files a dataset directory holds its splits in
_SPLIT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".txt", ".ltl")


def check_split(dataset, split: str | None, data_dir: str | None = None) -> None:
    """A ``split`` given (not None) where the dataset has no such split is
    refused before the audit: a file is audited whole (a split file of a
    dataset directory is its own split), a directory of sources has no
    splits, and a dataset directory must hold the split's file. A dataset
    given from Python (a list of programs) has none. ``test``, the split
    read when none is given, is no exception: given, it is checked too."""
    from ..data.manifest import split_file

    check_not_stdin(dataset)
    if split is None:  # not given: a dataset directory's test split, a file whole
        return
    if not isinstance(dataset, (str, os.PathLike)):
        raise UsageError(f"{split!r}: a dataset given as a list of programs has no splits", path="--split")
    dataset = str(dataset)
    where = (data_dir or os.environ.get("INVAR_DATA")) if dataset == "bhive" else dataset
    if where is None:
        raise UsageError(
            f"{split!r}: --dataset bhive without --data-dir reads BHive's CSVs whole; --split chooses "
            "a split of a directory invar data bhive wrote (--data-dir DIR)",
            path="--split",
        )
    path = Path(where)
    if path.is_file():
        own = split_file(path)
        if own is not None and own[1] == split:
            return
        whole = (
            f"{where} is the {own[1]} split of {own[0]}: audit --dataset {own[0]} --split {split}"
            if own
            else f"{where} is a file, audited whole: --split chooses a split of a dataset directory"
        )
        raise UsageError(f"{split!r}: {whole}", path="--split")
    if not path.is_dir() or any((path / f"{split}{s}").is_file() for s in _SPLIT_SUFFIXES):
        return  # a dataset that is not there is the audit's to report
    splits = sorted(
        {
            p.stem
            for p in path.iterdir()
            if p.is_file() and p.suffix in _SPLIT_SUFFIXES and p.stem in ("train", "valid", "val", "test")
        }
    )
    if splits:
        raise UsageError(f"no split {split!r} in {where} (its splits: {', '.join(splits)})", path="--split")
    raise UsageError(f"{split!r}: {where} has no splits (a directory of source files is audited whole)", path="--split")


def check_not_stdin(spec) -> None:
    """``-`` is refused as a dataset: an audit reads its dataset by path
    (a table's format, a directory's splits and the examples' ids are read
    from where it lies), never from standard input."""
    if isinstance(spec, str) and spec == "-":
        raise UsageError(
            "'-': --dataset does not read standard input; write the programs to a file "
            "(a CSV or JSONL table, a source file) and name it",
            path="--dataset",
        )


def load(
    spec: Any,
    *,
    task=None,
    data_dir: str | None = None,
    split: str = "test",
    lang: str | None = None,
    program_column: str | None = None,
    label_column: str | None = None,
    limit: int | None = None,
    languages: Sequence[str] | None = None,
    cache_dir: str | None = None,
) -> Dataset:
    """The dataset ``spec`` names (see the module docstring): ``bhive``, a
    path, or (from Python) a list of programs or texts. ``limit`` keeps the
    first N examples. A dataset ``invar data`` wrote for another task than
    ``task``, or whose languages are none of ``languages`` (those a model was
    trained on), is refused with one DataError; a dataset without examples too."""
    from ..data import manifest

    check_not_stdin(spec)
    check_columns(spec, program_column, label_column)  # before anything is read (or downloaded)
    if isinstance(spec, (list, tuple)):
        data = _in_memory(spec, task, lang)
    elif spec == "bhive":
        where = data_dir or os.environ.get("INVAR_DATA")
        if where:
            manifest.check(where, task, languages)
            data = _path(where, task, split, lang, program_column, label_column)
            _check_languages(data, languages)
        else:
            data = _bhive_cache(cache_dir)
        data.name = "bhive"
    else:
        manifest.check(str(spec), task, languages)
        if task is not None and task.dataset is not None and (own := _own(str(spec), task, split)) is not None:
            # its programs are the task's: parsed by it
            data = _check_lang_unread(_task_dataset(str(spec), own, task, split), lang)
        else:
            data = _path(str(spec), task, split, lang, program_column, label_column)
            _check_languages(data, languages)
    if data.kind in ("bhive", "bhive-copy"):  # hex blocks, whatever --lang says
        _check_lang_unread(data, lang)
    if data.kind != "table":  # a BHive CSV without a header, known only once read
        _refuse_columns(data.name, program_column, label_column)
    if not data.examples:
        raise DataError("no examples: " + _why_empty(data), path=data.name)
    if task is not None and task.name == "classify":  # what a classify prompt offers, whatever --limit leaves
        from ..tasks.answers import offered

        data.labels = offered(ex.label for ex in data.examples)
    if limit is not None:
        data.examples = data.examples[:limit]
    for i, ex in enumerate(data.examples):
        ex.index = i
    return data


def _own(spec: str, task, split: str):
    """The examples of ``spec`` in ``task``'s own format (a split file of
    its dataset directory read as that split), or None."""
    from ..data import manifest

    found = manifest.split_file(spec)
    if found is not None:
        return task.dataset(*found)
    return task.dataset(spec, split)


def _check_lang_unread(data: Dataset, lang: str | None) -> Dataset:
    """``data``, whose language its own format says: a ``lang`` of
    another is a usage error (``--lang python`` on BHive), not ignored."""
    from ..data.manifest import shown

    held = {ex.lang for ex in data.examples if ex.lang}
    if lang is None or not held:  # a task's dataset of several languages: each program says its own
        return data
    if lang.lower() in held | {frontend_of(x).program_lang for x in held}:
        return data
    raise UsageError(
        f"--lang {lang}: {data.name} holds {shown(sorted(held))} programs, as its format says; "
        "--lang names the language of files and tables that do not say",
        path="--lang",
    )


def _check_languages(data: Dataset, languages: Sequence[str] | None) -> None:
    """Each example in a language outside ``languages`` (a model's) fails,
    located; when no example is in one of them, the dataset is refused with
    one DataError."""
    from ..data.manifest import a_program, shown

    if not languages:
        return
    wrong: dict[str, int] = {}
    right = 0
    for ex in data.examples:
        lang = ex.program.lang if ex.program is not None else frontend_of(ex.lang).builds or ex.lang
        if not lang:
            continue
        if lang in languages:
            right += 1
        elif ex.error is None:
            wrong[lang] = wrong.get(lang, 0) + 1
            ex.error = DataError(
                f"{a_program(lang)}; the model was trained on {shown(languages)} only",
                path=ex.path,
                line=ex.line,
                col=1,
            )
    if wrong and not right:
        found = ", ".join(f"{n:,} {shown([lang])} program{'s' if n != 1 else ''}" for lang, n in sorted(wrong.items()))
        raise DataError(
            f"no program in a language the model was trained on ({shown(languages)}): {found}", path=data.name
        )


def _why_empty(data: Dataset) -> str:
    if data.split:
        return f"its {data.split} split is empty"
    if data.kind == "table":
        return "the table has no rows (a header at most)"
    if data.kind == "directory":
        return "no function, block or pair in any of its files"
    if data.kind in ("bhive", "bhive-copy"):
        return "no blocks" + (f" in the {data.split} split" if data.split else "")
    if data.kind == "programs":
        return "the list is empty"
    return "the file holds no program (no function, block or pair)"


def _bhive_cache(cache_dir: str | None) -> Dataset:
    """BHive's public CSVs from invar's cache (``invar data bhive``'s,
    downloaded into it the first time), read as a local copy of them."""
    from ..data.bhive import source_files

    try:
        files = source_files(None, cache_dir)
    except DataError as err:
        if not err.message.startswith("cannot download"):
            raise
        raise DataError(
            err.message.split("; without network")[0] + "; without network, audit a local copy of "
            "BHive's CSVs with --data-dir DIR (for example ../shared/data/bhive)",
            path="--dataset",
        )
    return _bhive_copy("bhive", files)


def label_by_oracle(examples: Sequence[AuditExample], task) -> None:
    """Label every unlabelled example that parses with ``task``'s oracle
    (``bhive``: llvm-mca), all in one batch; an example the oracle cannot
    label stays unlabelled (the audit's oracle record says why)."""
    todo = []
    for ex in examples:
        if ex.label is None and ex.error is None:
            try:
                ex.program = ex.parse()
            except InvarError:
                continue  # the audit reports it
            todo.append(ex)
    if todo:
        for ex, (label, _reason) in zip(todo, task.oracle([ex.program.render() for ex in todo])):
            ex.label = label


def _task_dataset(spec: str, examples, task, split: str) -> Dataset:
    """Examples a task read from its own dataset format, parsed by the task."""
    is_dir = Path(spec).is_dir()
    out = [
        AuditExample(
            0,
            f"{os.path.basename(ex.path)}:{ex.line}",
            ex.path,
            ex.line,
            ex.source,
            task.lang or "",
            ex.label,
            error=ex.error,
            parser=task.parse,
        )
        for ex in examples
    ]
    return Dataset(spec, "directory" if is_dir else "file", out, split=split if is_dir else None)


def check_columns(spec, program_column: str | None, label_column: str | None) -> None:
    """A column named (not None) for a dataset that cannot be a table read by
    columns (a list of programs, ``bhive``, a directory, a file that is not
    CSV, TSV or JSONL) is refused before anything is read."""
    if not (isinstance(spec, (str, os.PathLike)) and Path(spec).suffix in (".csv", ".tsv", ".jsonl")):
        name = str(spec) if isinstance(spec, (str, os.PathLike)) else "<programs>"
        _refuse_columns(name, program_column, label_column)


def _refuse_columns(name: str, program_column: str | None, label_column: str | None) -> None:
    """A UsageError for the first column named for dataset ``name``, which
    has no columns (they would be ignored)."""
    for option, value in (("--program-column", program_column), ("--label-column", label_column)):
        if value is not None:
            raise UsageError(f"{name} is not read by columns (a CSV, TSV or JSONL table of programs is)", path=option)


def _path(spec: str, task, split, lang, program_column, label_column) -> Dataset:
    path = Path(spec)
    if path.is_dir():
        if _is_prepared(path):
            return _prepared(path, spec, task, split)
        # a link to nothing is a file of the dataset too (its example fails), not one left out unsaid
        files = sorted(p for p in path.rglob("*") if (p.is_file() or p.is_symlink()) and p.suffix in SOURCE_EXTENSIONS)
        if files:
            return _directory(path, spec, files, task, lang)
        csvs = sorted(path.glob("*.csv"))
        if csvs:
            return _bhive_copy(spec, [(str(p), p) for p in csvs])
        raise DataError(
            "no programs here: expected a dataset written by invar data bhive, source files "
            f"({' '.join(SOURCE_EXTENSIONS)}) or BHive CSVs",
            path=spec,
        )
    if not path.exists():
        raise DataError("no such file or directory", path=spec)
    if path.suffix in (".csv", ".tsv", ".jsonl"):
        table = _rows(path, spec)
        if table is not None:
            return _table(spec, table, task, lang, program_column, label_column)
        return _bhive_copy(spec, [(spec, path)])
    return _file(path, spec, task, lang)


def _is_prepared(path: Path) -> bool:
    """Whether ``path`` is a dataset ``invar data bhive`` wrote: its manifest says so (read as
    :func:`invar.data.manifest.read` reads every manifest), or, with none, its three splits are there."""
    from ..data import manifest

    if (path / manifest.FILE).exists():
        found = manifest.read(path)
        return found is not None and found.task == "bhive"
    return all((path / f"{s}.csv").exists() for s in ("train", "valid", "test"))


def _prepared(path: Path, spec: str, task, split: str) -> Dataset:
    from ..data.bhive import split_examples

    if task is not None and task.name != "bhive":
        raise UsageError(f"{spec} is a BHive dataset; the {task.name} task cannot read it", path="--task")
    examples = [
        AuditExample(0, f"{split}.csv:{ex.line}", ex.path, ex.line, ex.source, HEX.name, ex.label, error=ex.error)
        for ex in split_examples(path, split)
    ]
    return Dataset(spec, "bhive", examples, split=split)


def _bhive_copy(spec: str, files: list[tuple[str, Path]]) -> Dataset:
    """A local copy of BHive's CSVs: every distinct block once, in the order
    of its hash (what ``invar data bhive --limit N`` keeps), unlabelled."""
    from ..data.bhive import block_hash, read_blocks

    blocks, rejected = read_blocks(files)
    examples = []
    for hexcode in sorted(blocks, key=block_hash):
        where = blocks[hexcode]
        shown, line = where.rsplit(":", 1)
        examples.append(AuditExample(0, f"{os.path.basename(shown)}:{line}", shown, int(line), hexcode, HEX.name))
    for r in rejected:  # rows that are not hex at all
        shown, line = r.source.rsplit(":", 1)
        err = ParseError(r.reason, path=shown, line=int(line), col=1)
        examples.append(
            AuditExample(0, f"{os.path.basename(shown)}:{line}", shown, int(line), r.hex, HEX.name, error=err)
        )
    return Dataset(spec, "bhive-copy", examples)


def _directory(root: Path, spec: str, files: list[Path], task, lang) -> Dataset:
    examples, empty = [], []
    for f in files:
        rel = f.relative_to(root).as_posix()
        got = _file(f, str(f), task, lang, name=rel)
        examples += got.examples
        if not got.examples:  # counted, not lost unsaid
            empty.append(rel)
    return Dataset(spec, "directory", examples, empty=empty)


def _file(path: Path, shown: str, task, lang: str | None, name: str | None = None) -> Dataset:
    from ..frontends import decode, lang_of, parse_units
    from ..frontends.units import skipped_of

    name = name or path.name
    language = lang_of(shown, lang)
    try:
        data = path.read_bytes()
    except OSError as err:
        why = "a link to nothing" if path.is_symlink() and not path.exists() else err.strerror
        if name is None:  # the dataset itself
            raise DataError(f"cannot read: {why}", path=shown)
        failed = DataError(f"cannot read: {why}", path=shown)  # a file of a directory: its one failed example
        return Dataset(shown, "file", [AuditExample(0, f"{name}:1", shown, 0, "", language, error=failed)])
    layout = frontend_of(language).layout
    if layout == "lines":  # a block per line (hex): a bad byte spoils its line only
        return Dataset(shown, "file", _hexfile(data.decode("utf-8-sig", errors="surrogateescape"), shown, name))
    if not data.strip():  # an empty file (a package's __init__.py) holds no program
        return Dataset(shown, "file", [])
    try:
        text = decode(data, language, shown)
    except ParseError as err:  # not text in its encoding: the file is one failed example
        return Dataset(
            shown, "file", [AuditExample(0, f"{name}:{err.line or 1}", shown, err.line, "", language, error=err)]
        )
    if layout == "paragraphs":  # assembly: a block per paragraph, each with its label comment
        return Dataset(shown, "file", _assembly(text, shown, name, task))
    examples = []
    try:
        units = parse_units(text, language, shown)
    except ParseError as err:  # the whole file is unreadable: one failed example
        err.located(shown)
        return Dataset(
            shown, "file", [AuditExample(0, f"{name}:{err.line or 1}", shown, err.line, text, language, error=err)]
        )
    for unit in units:
        line = unit.lines[0].source_line if unit.lines else 0
        examples.append(AuditExample(0, f"{name}:{line}", shown, line, "", language, program=unit))
    for err in skipped_of(units):
        err.located(shown)
        examples.append(AuditExample(0, f"{name}:{err.line}", shown, err.line, "", language, error=err))
    examples.sort(key=lambda e: e.line)
    return Dataset(shown, "file", examples)


def _hexfile(text: str, shown: str, name: str) -> list[AuditExample]:
    """A block per line that holds anything but a comment (``hex`` or
    ``hex,frequency``; ``#`` comments; a ``hex``/``code`` header skipped),
    as every command reads a hex file: a line without hex (``,4``, ``""``)
    is a failed example there, as is a line that is not UTF-8. Each
    example's source is its hex field as it stands on its line."""
    from ..files import undecodable
    from ..frontends.x86.hexblock import hex_field

    out = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        code = raw.split("#", 1)[0]
        if not code.strip() or hex_field(code)[0].lower() in ("hex", "code"):
            continue
        bad = undecodable(raw)
        err = None if bad is None else ParseError("not UTF-8 text", path=shown, line=lineno, col=bad + 1)
        out.append(AuditExample(0, f"{name}:{lineno}", shown, lineno, code.split(",", 1)[0], HEX.name, error=err))
    return out


def _assembly(text: str, shown: str, name: str, task) -> list[AuditExample]:
    """Blocks of an assembly file, as every command reads them
    (:func:`invar.frontends.x86.parse.blocks`: paragraphs separated by blank
    lines, or one per line when its lines separate instructions with
    ``;``), each with the label of its ``# label:`` comment."""
    from ..frontends.x86.parse import blocks

    try:
        found = blocks(text)
    except ParseError as err:  # a listing refused as a whole (i386 code): one failed example, where it shows
        err.located(shown)
        return [AuditExample(0, f"{name}:{err.line}", shown, err.line, "", X86.name, error=err)]
    out = []
    for first, body, refused in found:
        ex = AuditExample(0, f"{name}:{first}", shown, first, body, X86.name)
        if refused is not None:  # a listing's block refused as a whole (a statement after a jump on its line)
            ex.error = refused.located(shown)
        # (line, column, text) of each ``# label:`` comment; the last one counts
        labels = [
            (first + k, m.start(1) + 1, m.group(1))
            for k, line in enumerate(body.splitlines())
            if (m := _LABEL_COMMENT.search(line))
        ]
        if labels:
            line, col, raw = labels[-1]
            try:
                ex.label = _label(task, raw)
            except (TypeError, ValueError) as e:
                ex.error = DataError(f"bad label {raw!r}: {e}", path=shown, line=line, col=col)
        out.append(ex)
    return out


def _rows(path: Path, shown: str) -> tuple[list[str], list[tuple[int, dict | DataError]]] | None:
    """(columns, rows) of a CSV with a header naming a program column, or of
    a JSONL file: each row is ``(line, row)``, or ``(line, DataError)`` for a
    row that cannot be read (not JSON, not an object, not CSV, not UTF-8),
    which the audit reports at its line while it reads the rest. None for a
    headerless CSV (BHive's ``hex,frequency`` rows)."""
    from ..files import read_text, undecodable

    try:
        text = read_text(path)
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=shown)
    if path.suffix == ".jsonl":
        return _jsonl_rows(text, shown)
    csv.field_size_limit(sys.maxsize)  # a long function is one field, not a malformed row
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if path.suffix == ".tsv" else ",", strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return [], []
    except csv.Error as err:
        raise DataError(f"the header is not a CSV row ({err})", path=shown, line=1, col=1)
    if undecodable(",".join(header)) is not None:
        raise DataError("the header is not UTF-8 text", path=shown, line=1, col=1)
    names = [h.strip() for h in header]
    if not set(n.lower() for n in names) & set(PROGRAM_COLUMNS):
        first = names[0] if names else ""
        if _HEX.match(first):
            return None
    rows: list[tuple[int, dict | DataError]] = []
    start = reader.line_num + 1
    while True:
        line = start
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            rows.append((line, DataError(f"not a CSV row ({err})", path=shown, line=line, col=1)))
            start = reader.line_num + 1
            continue
        start = reader.line_num + 1
        if not row or not any(c.strip() for c in row):
            continue
        bad = undecodable(",".join(row))
        if bad is not None:
            rows.append((line, DataError("not UTF-8 text", path=shown, line=line, col=1)))
        elif len(row) > len(names):
            rows.append(
                (line, DataError(f"{len(row)} fields; the header names {len(names)}", path=shown, line=line, col=1))
            )
        else:
            rows.append((line, dict(zip(names, row))))
    return names, rows


def _jsonl_rows(text: str, shown: str) -> tuple[list[str], list[tuple[int, dict | DataError]]]:
    from ..files import undecodable

    rows: list[tuple[int, dict | DataError]] = []
    columns: dict[str, None] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        bad = undecodable(raw)
        if bad is not None:
            rows.append((lineno, DataError("not UTF-8 text", path=shown, line=lineno, col=bad + 1)))
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as err:
            rows.append((lineno, DataError(f"not JSON: {json_problem(err)}", path=shown, line=lineno, col=err.colno)))
            continue
        except RecursionError:
            rows.append((lineno, DataError("not JSON: nested too deeply", path=shown, line=lineno, col=1)))
            continue
        if not isinstance(row, dict):
            rows.append(
                (
                    lineno,
                    DataError(
                        f"expected a JSON object per line, found {_json_kind(row)}", path=shown, line=lineno, col=1
                    ),
                )
            )
            continue
        columns.update(dict.fromkeys(row))
        rows.append((lineno, row))
    return list(columns), rows


def _json_kind(value) -> str:
    return {list: "an array", dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _table(
    shown: str, table: tuple[list[str], list[tuple[int, dict | DataError]]], task, lang, program_column, label_column
) -> Dataset:
    base = os.path.basename(shown)
    columns, rows = table
    by_lower = {c.lower(): c for c in columns}

    def pick(given, defaults, what):
        if given is not None:
            if given not in columns:
                raise UsageError(f"no {what} column {given!r} (columns: {', '.join(columns) or 'none'})", path=shown)
            return given
        return next((by_lower[d] for d in defaults if d in by_lower), None)

    if not any(isinstance(row, dict) for _, row in rows):  # nothing to look for columns in
        return Dataset(
            shown, "table", [AuditExample(0, f"{base}:{line}", shown, line, error=row) for line, row in rows]
        )
    program = pick(program_column, PROGRAM_COLUMNS, "program")
    if program is None:
        missing = _no_column("program", PROGRAM_COLUMNS, columns)
        raise UsageError(f"{missing}; name it with --program-column", path=shown)
    label_col = pick(label_column, LABEL_COLUMNS, "label")
    id_col = by_lower.get("id")
    examples = []
    for lineno, row in rows:
        if isinstance(row, DataError):
            examples.append(AuditExample(0, f"{base}:{lineno}", shown, lineno, error=row))
            continue
        source = row.get(program)
        ex_id = f"{base}:{lineno}" if id_col is None or row.get(id_col) in (None, "") else str(row[id_col])
        if not isinstance(source, str) or not source.strip():
            what = (
                "no program"
                if source is None or source == ""
                else f"{_json_kind(source)} where the program should be text"
                if not isinstance(source, str)
                else "an empty program"
            )
            err = DataError(f"{what} in column {program!r}", path=shown, line=lineno, col=1)
            examples.append(AuditExample(0, ex_id, shown, lineno, error=err))
            continue
        language = _table_lang(lang, program, source, task, shown)
        label, err = None, None
        raw = row.get(label_col) if label_col else None
        if raw not in (None, ""):
            try:
                label = _label(task, raw)
            except (TypeError, ValueError) as e:
                err = DataError(f"bad label {raw!r} in column {label_col!r}: {e}", path=shown, line=lineno)
        examples.append(AuditExample(0, ex_id, shown, lineno, source, language, label, error=err))
    return Dataset(shown, "table", examples)


def _no_column(what: str, looked: Sequence[str], columns: Sequence[str]) -> str:
    """``no label column (looked for label, …; columns: code, cycles)``."""
    return f"no {what} column (looked for {', '.join(looked)}; columns: {', '.join(columns) or 'none'})"


def _label(task, raw):
    """A label as a table or a comment gives it -> the task's form: text is
    read as the task reads labels, and so is a number of a task of numbers.
    Another JSON value of a discrete task is read as a model's prediction of
    it (``["get", "name"]`` is a name; ``7`` is no verdict of ``bugs``), an
    object as its JSON text; a task that reads no prediction keeps it as it
    is (a class id)."""
    if task is None:
        return raw
    if isinstance(raw, str):
        return task.label(raw)
    if not task.discrete:
        return task.label(str(raw))
    if task.prediction is None:
        return raw
    if isinstance(raw, dict):  # an object is no prediction: the task may read its JSON text
        return task.label(json.dumps(raw))
    return task.prediction(raw)


def _table_lang(lang, column, source, task, shown) -> str:
    from ..frontends import language

    if lang is not None:
        return language(lang)
    if column.lower() == "hex" or (
        _HEX.match(source.strip())
        and len(source.strip()) % 2 == 0
        and (task is None or frontend_of(task.lang).hex_form)
    ):
        return HEX.name
    if task is not None and task.lang:
        return task.lang
    raise UsageError("cannot tell the programs' language; pass --lang", path=shown)


def _in_memory(items: Sequence, task, lang) -> Dataset:
    """Programs (or texts, with ``lang``) handed over from Python."""
    examples = []
    for i, item in enumerate(items):
        label = None
        if isinstance(item, tuple):
            item, label = item
        if isinstance(item, Program):
            examples.append(AuditExample(i, f"#{i}", "<programs>", i + 1, "", item.lang, label, program=item))
        else:
            language = lang or (task.lang if task is not None else None)
            if language is None:
                raise UsageError("programs given as text need lang=", path="dataset")
            if frontend_of(language).hex_form and _HEX.match(str(item).strip()):
                language = frontend_of(language).hex_form
            examples.append(AuditExample(i, f"#{i}", "<programs>", i + 1, str(item), language, label))
    return Dataset("<programs>", "programs", examples)


def label_ways(task) -> list[str]:
    """How the examples of an audit of ``task`` can be labelled, most direct
    first: one home for the note on standard error and the table's (no
    ``--oracle`` for a task without an oracle)."""
    if task.name == "bhive":
        return [
            "audit with --oracle to label the blocks with llvm-mca",
            "label them once with invar data bhive --out DIR and audit --dataset DIR",
        ]
    ways = ["give the dataset labels (a label column of a CSV or JSONL table)"]
    if task.oracle is not None:
        ways.insert(0, "audit with --oracle to label them with the task's oracle")
    return ways


def unlabelled_note(info: dict, task, oracle: bool, label_column: str | None = None) -> str | None:
    """What to tell the reader of an audit whose dataset has no labels (no
    metric is measured), or None. A table none of whose columns was taken
    for the labels (no ``--label-column``) is told its columns."""
    if oracle or info.get("labelled") or task is None or task.label_of is not None:
        return None  # labelled, or labelled by the task from the program itself (ltl, copy)
    ways = label_ways(task)
    columns = _columns_unread(info) if label_column is None else None
    lead = ""
    if columns is not None:
        lead = f"{_no_column('label', LABEL_COLUMNS, columns)}: "
        ways = ["name it with --label-column NAME"] + [w for w in ways if not w.startswith("give the dataset")]
    return f"no example has a label, so no {task.metric_name} is measured: {lead}{', or '.join(ways)}"


def _columns_unread(info: dict) -> list[str] | None:
    """The columns of a table dataset (``info``: :meth:`Dataset.info`) none
    of which is a label column (``LABEL_COLUMNS``), else None."""
    if info.get("kind") != "table":
        return None
    path = Path(info["name"])
    try:
        table = _rows(path, info["name"]) if path.is_file() else None
    except InvarError:
        return None
    if table is None or any(c.lower() in LABEL_COLUMNS for c in table[0]):
        return None
    return table[0]


#: the name this class had beside data's stored Example; kept for one release
Example = AuditExample

__all__ = [
    "AuditExample",
    "Example",
    "Dataset",
    "load",
    "label_by_oracle",
    "unlabelled_note",
    "label_ways",
    "check_not_stdin",
    "PROGRAM_COLUMNS",
    "LABEL_COLUMNS",
]
