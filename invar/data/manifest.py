"""What a dataset directory written by ``invar data`` is: its task and the
languages of its programs.

Every ``invar data`` command that writes a directory (``bhive``, ``names``,
``bugs``, ``copy``, ``lm``) writes ``meta.json`` beside its splits; besides its own
counts it says what the dataset is::

    {"invar": "names", "task": "names", "languages": ["java", "python"], ...}

``invar`` names the writer (``bhive-labels`` for ``invar data bhive``),
``task`` the task whose models it trains and audits, ``languages`` the
languages of its programs (``x86`` for BHive blocks). A directory written
before these two fields existed is still recognised by ``invar``; its
languages are then every language its task's datasets could hold
(:data:`LEGACY_LANGUAGES`). :func:`of` also recognises a split
file inside such a directory (``names/test.csv``), so that a command given
the file knows what it holds.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..frontends.registry import REGISTRY

FILE = "meta.json"
#: the ``invar`` field of each writer -> the task its datasets are for
WRITERS = {
    "bhive-labels": "bhive",
    "names": "names",
    "bugs": "bugs",
    "copy": "copy",
    "ltl": "ltl",
    "lm": "lm",
    "exec": "exec",
}
#: the split files each task's directories hold
_SPLIT_FILES = {
    "bhive": (".csv",),
    "names": (".csv",),
    "bugs": (".csv",),
    "copy": (".txt",),
    "ltl": (".txt", ".jsonl", ".ltl"),
    "lm": (".csv",),
    "exec": (".jsonl",),
}
_SPLITS = ("train", "valid", "val", "test")
#: the languages of a directory written before ``meta.json`` named them: every
#: language its task's datasets could hold then (tests/data/test_manifest.py
#: checks this against each task's :attr:`~invar.tasks.Task.languages`)
LEGACY_LANGUAGES = {
    "bhive": ("x86",),
    "names": ("java", "python"),
    "bugs": ("java", "python"),
    "copy": ("copy",),
    "ltl": ("ltl",),
    "lm": ("chars", "java", "python"),
    "exec": ("python",),
}


@dataclass(frozen=True)
class Manifest:
    """What a dataset directory holds."""

    #: the task whose models the dataset is for
    task: str
    #: the languages of its programs (sorted)
    languages: tuple[str, ...]
    #: the directory
    path: str


def fields(task: str, languages: Iterable[str]) -> dict:
    """The fields a writer adds to its ``meta.json``."""
    return {"task": task, "languages": sorted(set(languages))}


def read(directory: str | os.PathLike) -> Manifest | None:
    """The manifest of ``directory``, or None when it is not a directory
    ``invar data`` wrote (no ``meta.json``, or a JSON object without our
    fields). A ``meta.json`` that is not valid JSON, not an object, or holds
    our fields with values of the wrong type is a DataError located in it:
    read as absent, it would have the directory misread (its splits as raw
    files, the task unchecked)."""
    from ..errors import DataError, json_problem

    path = Path(directory) / FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read the dataset's manifest ({type(err).__name__})", path=str(path)) from None
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(
            f"not valid JSON ({json_problem(err)})", path=str(path), line=err.lineno, col=err.colno
        ) from None
    if not isinstance(meta, dict):
        raise DataError(f"a dataset manifest is a JSON object, not {type(meta).__name__}", path=str(path))
    wrong = [k for k in ("task", "invar") if k in meta and not isinstance(meta[k], str)]
    if "languages" in meta and not (
        isinstance(meta["languages"], list) and all(isinstance(x, str) for x in meta["languages"])
    ):
        wrong.append("languages")
    if wrong:
        expected = "a list of names" if wrong[0] == "languages" else "a name"
        raise DataError(f"field {wrong[0]!r} is {meta[wrong[0]]!r}, not {expected}", path=str(path))
    task = meta.get("task") or WRITERS.get(meta.get("invar", ""))
    if task is None:
        return None
    languages = meta.get("languages", list(LEGACY_LANGUAGES.get(task, ())))
    return Manifest(task, tuple(sorted(languages)), str(directory))


def of(path: str | os.PathLike) -> Manifest | None:
    """The manifest of the dataset ``path`` is (a directory) or is a split
    file of (``DIR/test.csv``); None otherwise."""
    p = Path(path)
    if p.is_dir():
        return read(p)
    if not p.is_file():
        return None
    if p.stem in _SPLITS:
        found = read(p.parent)
        if found is not None and p.suffix in _SPLIT_FILES.get(found.task, ()):
            return found
    return _ltl_file(p)


def _ltl_file(path: Path) -> Manifest | None:
    """A file ``invar data ltl`` wrote: its ``FILE.meta.json`` beside it
    holds the generator's settings (``params`` with the APs and operators)."""
    try:
        meta = json.loads(path.with_name(path.name + ".meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    params = meta.get("params") if isinstance(meta, dict) else None
    if isinstance(params, dict) and "aps" in params and "ops" in params:
        return Manifest("ltl", ("ltl",), str(path))
    return None


def check(spec: str, task, languages: Iterable[str] | None = None) -> None:
    """DataError, one message for the whole dataset, when ``spec`` is a
    dataset ``invar data`` wrote for another task than ``task`` (a
    :class:`~invar.tasks.Task`; ``classify`` audits any programs), or when
    none of its languages is one of ``languages`` (a model's)."""
    from ..errors import DataError

    found = of(spec)
    if found is None or task is None:
        return
    if task.name != "classify" and found.task != task.name:
        raise DataError(
            f"{_a(found.task)} {found.task} dataset ({shown(found.languages)}, written by invar data "
            f"{found.task}), not {_a(task.name)} {task.name} one: {_a(task.name)} {task.name} model "
            "does not read it",
            path=spec,
        )
    languages = list(languages or ())
    if languages and found.languages and not set(found.languages) & set(languages):
        raise DataError(
            f"a dataset of {shown(found.languages)} programs; the model was trained on {shown(languages)} only",
            path=spec,
        )


def _a(word: str) -> str:
    """The article before ``word`` as it is read aloud (an ltl, an x86, a names)."""
    return "an" if word[:1].lower() in "aeiolx" else "a"


#: how a language is called in messages: a frontend's title, or a task's own language
NAMES = {
    **{record.name: record.title for record in REGISTRY.values()},
    "copy": "copy strings",
    "chars": "character text",
}
#: a program of a task's own language, where "a NAME program" does not say it
_ONE = {"copy": "a copy string"}


def shown(languages: Iterable[str]) -> str:
    """``['java', 'python']`` -> ``Java or Python``."""
    names = [NAMES.get(x, x) for x in languages]
    return " or ".join(names) if names else "nothing"


def a_program(lang: str) -> str:
    """``python`` -> ``a Python program``; ``copy`` -> ``a copy string``."""
    if lang in _ONE:
        return _ONE[lang]
    name = NAMES.get(lang, lang).split()[0]
    return f"{_a(name)} {name} program"


def split_file(path: str | os.PathLike) -> tuple[str, str] | None:
    """(directory, split) when ``path`` is a split file of a dataset
    directory ``invar data`` wrote (``names/test.csv`` -> ``("names",
    "test")``), else None."""
    p = Path(path)
    if p.is_file() and p.stem in _SPLITS and read(p.parent) is not None:
        return str(p.parent), p.stem
    return None


__all__ = [
    "FILE",
    "WRITERS",
    "Manifest",
    "fields",
    "read",
    "of",
    "check",
    "LEGACY_LANGUAGES",
    "shown",
    "a_program",
    "split_file",
    "NAMES",
]
