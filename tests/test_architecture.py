"""The house keeps its plan: no import circle inside ``invar/``, every import
runs down the layers of docs/architecture.md, and no function is longer than
a screen or so.

Imports are read from the source (``ast``), at module level and inside
functions alike: an import a function makes late is still an arrow of the
plan. The checks are shown to fail on temporary packages holding a
deliberately bad module.
"""

from __future__ import annotations

import ast
import shutil
import sys
import textwrap
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "invar"

#: the layers, lowest first: a module imports only from its own part (the
#: first name under ``invar``) or from a part on a lower layer. ``""`` is
#: the package face, ``invar/__init__.py``.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "version", "processes", "interrupts"),
    ("program", "files", "sandbox"),
    ("symmetry",),
    ("frontends",),
    ("encoding",),
    ("data",),
    ("tasks",),
    ("nn",),
    ("checkpoint", "config"),
    ("train", "audit", "alta"),
    ("",),
    ("cli",),
    ("__main__",),
]

#: the longest function (``def`` line to last line, docstring included)
MAX_FUNCTION_LINES = 80
#: functions allowed past it, each with its reason: none
LONG_FUNCTIONS: dict[str, str] = {}


# ------------------------------------------------------------------ reading
def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package's ``__init__``) of every module under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _targets(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    """The modules of ``known`` that one import statement in module ``name`` reads."""
    if isinstance(node, ast.Import):
        candidates = [alias.name for alias in node.names]
    else:
        if node.level:
            base = name.split(".") if is_package else name.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # ``from P import x``: the module P.x when there is one; and P itself,
        # whose face is read for the names (a package's ``from . import x``
        # goes through its ``__init__``, which may import the importer)
        candidates = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names if f"{prefix}.{alias.name}" in known]
    out = []
    for c in candidates:
        while c and c not in known:  # ``import invar.a.b`` of a name inside a module
            c = c.rpartition(".")[0]
        if c:
            out.append(c)
    return out


def import_graph(root: Path) -> nx.DiGraph:
    """Modules as nodes, imports as edges (attribute ``line``), module-level
    and function-level imports alike."""
    known = modules(root)
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, (path, is_package) in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(name, is_package, node, set(known)):
                    if target != name:
                        graph.add_edge(name, target, line=node.lineno)
    return graph


# ------------------------------------------------------------------ checking
def part(module: str) -> str:
    """The part of the house a module belongs to: the first name under the
    package (``invar.nn.model`` -> ``nn``; the face ``invar`` -> ``""``)."""
    return module.split(".")[1] if "." in module else ""


def layer_of(module: str, layers=LAYERS) -> int:
    for k, names in enumerate(layers):
        if part(module) in names:
            return k
    raise KeyError(f"{module} is on no layer: add its part to LAYERS and docs/architecture.md")


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """Every import circle, each as its modules (sorted)."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def upward(graph: nx.DiGraph, layers=LAYERS) -> list[str]:
    """Every import that leaves its own part for one that is not lower."""
    bad = []
    for a, b, data in graph.edges(data=True):
        if part(a) != part(b) and layer_of(b, layers) >= layer_of(a, layers):
            bad.append(f"{a}:{data['line']} imports {b}")
    return sorted(bad)


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``path:line name`` -> length of every function longer than ``limit`` lines."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    out[f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"] = length
    return out


def late_stdlib_imports(root: Path) -> list[str]:
    """``path:line module`` of every import of a standard-library module
    inside a function whose line gives no reason in a comment."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text, str(path))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                if any(n.split(".")[0] in sys.stdlib_module_names for n in names) and "#" not in lines[node.lineno - 1]:
                    out.extend(f"{path.relative_to(root.parent)}:{node.lineno} {n}" for n in names)
    return sorted(set(out))


# ------------------------------------------------------------------ the house
def test_invar_has_no_import_circle():
    assert circles(import_graph(PACKAGE)) == []


def test_every_import_runs_down_the_layers():
    graph = import_graph(PACKAGE)
    for module in graph:
        layer_of(module)  # every part is placed
    assert upward(graph) == []


def test_no_function_is_longer_than_a_screen():
    found = long_functions(PACKAGE)
    assert {k: n for k, n in found.items() if k.split(" ")[-1] not in LONG_FUNCTIONS} == {}


def test_the_standard_library_is_imported_at_the_top():
    """An import inside a function is a layer or a heavy library loaded when
    first needed, or says why (docs/architecture.md, Layers)."""
    assert late_stdlib_imports(PACKAGE) == []


def test_a_late_stdlib_import_is_found(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "late.py": "def f():\n    import json\n    import resource  # POSIX only\n"
            "    from .x import y\n    return json\n"
        },
    )
    assert late_stdlib_imports(pkg) == ["invar/late.py:2 json"]


def test_every_module_says_what_it_holds():
    missing = [
        str(p.relative_to(ROOT))
        for p, _ in modules(PACKAGE).values()
        if ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None
    ]
    assert missing == []


def test_every_package_face_says_what_it_may_not_import():
    faces = [p for p, is_package in modules(PACKAGE).values() if is_package]
    silent = [
        str(p.relative_to(ROOT))
        for p in faces
        if "import" not in (ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "")
    ]
    assert len(faces) >= 12 and silent == []


def test_the_layers_are_the_ones_drawn_in_the_architecture_page():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = page.split("## Layers", 1)[1].split("\n## ", 1)[0]
    for names in LAYERS:
        for name in names:
            assert (f"`{name}`" if name else "`__init__`") in drawn, name


# ------------------------------------------------------ the checks can fail
def _package(root: Path, files: dict[str, str]) -> Path:
    """A temporary package ``pkg`` (named ``invar`` so the layers apply) of ``files``."""
    pkg = root / "invar"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    for directory in [pkg, *[p for p in pkg.rglob("*") if p.is_dir()]]:
        (directory / "__init__.py").touch()
    return pkg


BASE = {
    "errors.py": '"""e"""\n',
    "program.py": "from .errors import X\n",
    "symmetry/spaces.py": "from ..program import P\n",
    "nn/model.py": "from ..symmetry import spaces\n",
    "cli/app.py": "from ..nn.model import M\n",
}


@pytest.mark.parametrize(
    "bad, expected",
    [
        # a relative import, at module level, of a higher layer
        ({"symmetry/bad.py": "from ..nn.model import M\n"}, ["invar.symmetry.bad:1 imports invar.nn.model"]),
        # the same, made late inside a function
        (
            {"symmetry/bad.py": "def f():\n    from ..cli import app\n"},
            ["invar.symmetry.bad:2 imports invar.cli", "invar.symmetry.bad:2 imports invar.cli.app"],
        ),
        # an absolute import
        ({"program.py": "import invar.nn.model as m\n"}, ["invar.program:1 imports invar.nn.model"]),
        # the package face from below (``from .. import x`` of a name the face defines)
        ({"nn/bad.py": "from .. import load_model\n"}, ["invar.nn.bad:1 imports invar"]),
        # two parts of one layer
        (
            {"train.py": "from .audit import run\n", "audit/run.py": '"""r"""\n'},
            ["invar.train:1 imports invar.audit", "invar.train:1 imports invar.audit.run"],
        ),
    ],
)
def test_an_upward_import_is_found(tmp_path, bad, expected):
    graph = import_graph(_package(tmp_path, {**BASE, **bad}))
    assert upward(graph) == expected


def test_a_circle_is_found(tmp_path):
    pkg = _package(
        tmp_path,
        {
            **BASE,
            "nn/a.py": "from .b import x\n",
            "nn/b.py": "def f():\n    from .c import y\n",
            "nn/c.py": "from . import a\n",
        },
    )
    assert circles(import_graph(pkg)) == [["invar.nn.a", "invar.nn.b", "invar.nn.c"]]
    assert upward(import_graph(pkg)) == []


def test_downward_imports_pass(tmp_path):
    graph = import_graph(_package(tmp_path, BASE))
    assert circles(graph) == [] and upward(graph) == []
    assert set(graph.edges) == {
        ("invar.program", "invar.errors"),
        ("invar.symmetry.spaces", "invar.program"),
        ("invar.nn.model", "invar.symmetry.spaces"),
        ("invar.nn.model", "invar.symmetry"),
        ("invar.cli.app", "invar.nn.model"),
    }


def test_a_circle_through_a_package_face_is_found(tmp_path):
    """A face that imports its modules, and a module that takes a sibling
    through the face (``from . import x``): a circle, however Python copes."""
    pkg = _package(
        tmp_path,
        {
            **BASE,
            "audit/__init__.py": "from .run import audit\n",
            "audit/run.py": "from . import metrics\n",
            "audit/metrics.py": '"""m"""\n',
        },
    )
    assert circles(import_graph(pkg)) == [["invar.audit", "invar.audit.run"]]
    (pkg / "audit" / "run.py").write_text("from .metrics import distinct\n")
    assert circles(import_graph(pkg)) == []


def test_a_bad_module_added_to_a_copy_of_invar_fails_the_house(tmp_path):
    copy = tmp_path / "invar"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "symmetry" / "shortcut.py").write_text('"""A room that reaches up."""\n\nfrom ..train import train\n')
    (copy / "nn" / "loop.py").write_text('"""A room in a circle."""\n\nfrom .model import Model\n')
    model = (copy / "nn" / "model.py").read_text()
    (copy / "nn" / "model.py").write_text(model + "\n\ndef _late():\n    from .loop import Model\n")
    graph = import_graph(copy)
    assert upward(graph) == ["invar.symmetry.shortcut:3 imports invar.train"]
    assert circles(graph) == [["invar.nn.loop", "invar.nn.model"]]


def test_a_long_function_is_found(tmp_path):
    body = "\n".join(f"    x{k} = {k}" for k in range(MAX_FUNCTION_LINES))
    pkg = _package(tmp_path, {"long.py": f"def long():\n{body}\n", "short.py": "def short():\n    return 1\n"})
    assert long_functions(pkg) == {"invar/long.py:1 long": MAX_FUNCTION_LINES + 1}
