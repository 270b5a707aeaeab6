"""What a dataset directory says it is: every ``invar data`` writer's
manifest read back, older directories recognised by their writer, and
anything else left alone."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from invar.cli.app import app
from invar.data import manifest
from invar.errors import DataError
from invar.tasks import get_task
from tests.conftest import FIXTURES


def _data(*args: str) -> None:
    result = CliRunner().invoke(app, ["data", *args])
    assert result.exit_code == 0, result.output


#: two files of each fixture language: every writer fills a training split from them, and reads them quickly
SOURCES = {"python": ("arith.py", "layout.py"), "java": ("Arith.java", "Shapes.java")}


def _source(tmp_path, language: str) -> list[str]:
    """``--source DIR``, DIR a copy of :data:`SOURCES`' files of ``language``."""
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES[language]:
        shutil.copy(FIXTURES / language / name, src)
    return ["--source", str(src)]


@pytest.mark.parametrize(
    "task, source, args, languages",
    [
        ("names", "python", [], ("python",)),
        ("names", "java", [], ("java",)),
        ("bugs", "python", [], ("python",)),
        ("copy", None, ["--train", "5", "--valid", "2", "--test", "2"], ("copy",)),
    ],
)
def test_every_writer_says_what_it_wrote(tmp_path, task, source, args, languages):
    out = tmp_path / task
    _data(task, *(_source(tmp_path, source) if source else []), *args, "--out", str(out))
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["task"], tuple(meta["languages"])) == (task, languages)
    found = manifest.read(out)
    assert (found.task, found.languages) == (task, languages)
    split = next(p for p in sorted(out.iterdir()) if p.stem == "train")
    assert manifest.of(split) == found and manifest.split_file(split) == (str(out), "train")


def test_bhive_and_ltl_writers(tmp_path):
    from invar.data import bhive

    source = tmp_path / "blocks.csv"
    source.write_text("4801c3,1\n4829d8,1\n")
    bhive.build([str(source)], tmp_path / "b", jobs=1)
    assert manifest.read(tmp_path / "b") == manifest.Manifest("bhive", ("x86",), str(tmp_path / "b"))
    _data("ltl", "--num", "2", "--aps", "2", "--max-size", "3", "--jobs", "1", "--out", str(tmp_path / "p.txt"))
    assert manifest.of(tmp_path / "p.txt") == manifest.Manifest("ltl", ("ltl",), str(tmp_path / "p.txt"))


@pytest.mark.parametrize("task", sorted(manifest.LEGACY_LANGUAGES))
def test_legacy_languages_are_the_tasks_own(task):
    """A directory without ``languages`` holds what its task's datasets can
    hold: the table the manifest keeps (data sits below tasks) says the same
    as each task."""
    assert manifest.LEGACY_LANGUAGES[task] == tuple(sorted(get_task(task).languages))


@pytest.mark.parametrize(
    "meta, expected",
    [
        ({"invar": "bhive-labels", "mcpu": "haswell"}, ("bhive", ("x86",))),  # written before the fields
        ({"invar": "names", "subtokens": ["a"]}, ("names", ("java", "python"))),
        ({"invar": "copy"}, ("copy", ("copy",))),
        ({"invar": "names", "task": "names", "languages": ["java"]}, ("names", ("java",))),
        ({"invar": "something else"}, None),
        ({"mcpu": "haswell"}, None),  # another tool's manifest: not a dataset of ours
    ],
)
def test_reading_a_manifest(tmp_path, meta, expected):
    (tmp_path / "meta.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))
    found = manifest.read(tmp_path)
    assert (None if found is None else (found.task, found.languages)) == expected


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("{not json", ":1:2", "not valid JSON (Expecting property name enclosed in double quotes)"),
        ('{"task": "names",\n "languages": [}', ":2:16", "not valid JSON"),
        ('["not", "an", "object"]', "", "a dataset manifest is a JSON object, not list"),
        ('{"task": 3}', "", "field 'task' is 3, not a name"),
        ('{"invar": "names", "task": "names", "languages": "java"}', "", "field 'languages' is 'java', not a list"),
        ('{"task": "names", "languages": ["java", 1]}', "", "field 'languages'"),
    ],
)
def test_a_manifest_of_ours_that_cannot_be_read_is_a_located_error(tmp_path, text, where, message):
    """Read as absent, such a file would have its directory read as raw split files of another task."""
    (tmp_path / "meta.json").write_text(text)
    with pytest.raises(DataError, match=re.escape(message)) as info:
        manifest.read(tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'meta.json'}{where}: error: ")


def test_files_that_are_not_splits_say_nothing(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"invar": "names"}))
    for name in ("other.csv", "train.txt", "notes.md"):
        (tmp_path / name).write_text("x\n")
        assert manifest.of(tmp_path / name) is None
    assert manifest.of(tmp_path / "missing.csv") is None
    (tmp_path / "train.csv").write_text("source,label\n")
    assert manifest.of(tmp_path / "train.csv").task == "names"
    assert manifest.of(FIXTURES / "python") is None and manifest.of(FIXTURES / "ltl" / "ae.txt") is None


@pytest.mark.parametrize(
    "task, languages, message",
    [
        ("bhive", None, r"a names dataset \(Java or Python, written by invar data names\), not a bhive one"),
        ("ltl", None, "a names dataset .*, not an ltl one: an ltl model does not read it"),
        ("names", ["x86"], "a dataset of Java or Python programs; the model was trained on x86 assembly only"),
        ("names", ["java"], None),
        ("classify", None, None),  # classify audits any programs
    ],
)
def test_check(tmp_path, task, languages, message):
    (tmp_path / "meta.json").write_text(json.dumps({"invar": "names"}))
    if message is None:
        manifest.check(str(tmp_path), get_task(task), languages)
        return
    with pytest.raises(DataError, match=message) as info:
        manifest.check(str(tmp_path), get_task(task), languages)
    assert info.value.path == str(tmp_path)
