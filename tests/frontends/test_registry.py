"""The one table of languages: every record complete, its hooks loadable,
every face shaped alike, and no module outside ``invar/frontends`` asking a
language by its name."""

from __future__ import annotations

import ast
import importlib
from dataclasses import fields
from pathlib import Path

import pytest

from invar import frontends
from invar.frontends import EXTENSIONS, FRONTENDS, LANGS, REGISTRY, UNREAD, Frontend, frontend_of

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "invar"
#: the fields a hook names ("module:attribute", or a module), and what it must be
HOOKS = {
    "reader": "module",
    "rules": "module",
    "spell": "callable",
    "encoding": "callable",
    "block": "callable",
    "standalone": "callable",
}
#: every frontend package's face: the names it exports where the language has them
FACE = ("LANG", "parse_units", "parse", "renaming_space", "canonical_space")
PACKAGES = ("x86", "python", "java", "ltl")
RECORDS = sorted(REGISTRY.values(), key=lambda r: r.name)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_every_record_has_the_fields(record):
    assert isinstance(record, Frontend)
    names = {f.name for f in fields(Frontend)}
    assert set(HOOKS) <= names
    assert record.name and record.title and record.reader and record.extensions
    assert record.layout in ("units", "paragraphs", "lines")
    assert record.comment
    assert record.program_lang in REGISTRY and not REGISTRY[record.program_lang].builds
    assert (record.layout != "units") == bool(record.block)  # a file of blocks reads a block at a time
    if record.hex_form:
        assert REGISTRY[record.hex_form].program_lang == record.name


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_every_hook_loads(record):
    for field, kind in HOOKS.items():
        if not getattr(record, field):
            continue
        got = record.hook(field)
        assert callable(got) if kind == "callable" else hasattr(got, "__name__"), (record.name, field)
    reader = record.hook("reader")
    assert callable(reader.parse_units)
    if record.rules:
        rules = record.hook("rules")
        assert callable(rules.renaming_space) and callable(rules.canonical_space)


def test_public_tables_are_the_registry():
    assert FRONTENDS == {r.name: r.reader for r in REGISTRY.values()}
    assert LANGS == tuple(REGISTRY)
    assert EXTENSIONS == {ext: r.name for r in REGISTRY.values() for ext in r.extensions}
    assert len(EXTENSIONS) == sum(len(r.extensions) for r in REGISTRY.values())  # no extension claimed twice
    assert frontend_of("copy") is UNREAD and frontend_of("python") is REGISTRY["python"]
    assert frontends.X86.spell and frontends.HEX.program_lang == "x86"


def test_the_renaming_registry_agrees_with_the_records():
    """symmetry/spaces.py finds a program's rules without importing the
    frontends (it sits below them): its table must name the same rules."""
    from invar.symmetry import spaces

    for record in RECORDS:
        if record.rules:
            theirs = importlib.import_module(spaces._RENAMERS[record.program_lang])
            ours = record.hook("rules")
            assert theirs.renaming_space is ours.renaming_space, record.name
            assert theirs.canonical_space is ours.canonical_space, record.name


@pytest.mark.parametrize("package", PACKAGES)
def test_every_face_is_shaped_alike(package):
    face = importlib.import_module(f"invar.frontends.{package}")
    record = REGISTRY[face.LANG]
    assert set(FACE) <= set(face.__all__), package
    for name in face.__all__:
        assert hasattr(face, name), (package, name)
    assert face.parse_units is importlib.import_module(record.reader).parse_units
    assert face.renaming_space is record.hook("rules").renaming_space
    for field in ("spell", "encoding", "block", "standalone"):
        if getattr(record, field):
            assert record.hook(field) in vars(face).values(), (package, field)  # the face exports its hooks
    # a face only re-exports: no function or class is defined in it
    tree = ast.parse(Path(face.__file__).read_text(encoding="utf-8"))
    assert not [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))], package


# ------------------------------------------------- no language asked by name
def _is_lang(node: ast.AST) -> bool:
    """``lang``, ``language``, or an attribute ``….lang`` / ``….language``."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name in ("lang", "language")


def _str_constants(node: ast.AST) -> list[str]:
    """The string literals ``node`` is, or holds as a tuple, list or set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _str_constants(e)]
    return []


def name_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, literal) of every comparison of a language against a string
    literal: ``lang == "x86"``, ``program.lang in ("python", "java")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_lang(s) for s in sides):
                found += [(node.lineno, s) for side in sides for s in _str_constants(side)]
    return found


def test_the_scan_sees_what_it_forbids():
    bad = 'if lang == "x86": pass\nif program.lang in ("python", "java"): pass\nif "hex" != self.language: pass\n'
    assert name_comparisons(bad) == [(1, "x86"), (2, "python"), (2, "java"), (3, "hex")]
    good = "if lang == X86.name: pass\nif program.lang in languages: pass\nif task.name == 'ltl': pass\n"
    assert name_comparisons(good) == []


def test_no_module_outside_the_frontends_compares_a_language_with_a_literal():
    """The layers above the frontends ask a language's record (its fields and
    hooks), or compare with a record's ``name``, never with a literal."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "frontends"):
            continue
        offenders += [
            f"{path.relative_to(ROOT)}:{line}: {lit!r}"
            for line, lit in name_comparisons(path.read_text(encoding="utf-8"))
        ]
    assert offenders == []
