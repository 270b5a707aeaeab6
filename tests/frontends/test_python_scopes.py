"""The scope pass's helpers against the library code they stand in for."""

from __future__ import annotations

import ast
import random
import re
import sysconfig
from pathlib import Path

import pytest

from invar.frontends.python.scopes import child_fields, child_nodes, search_binding

#: (keyword, word_start, min_blanks) as the scope pass calls search_binding
FORMS = [("def", False, 1), ("class", False, 1), ("as", True, 1), ("*", False, 0), ("**", False, 0), ("", True, 0)]
PIECES = ["a", "s", "as", " ", "\t", "\\", "\n", "*", "**", "x", "_", "é", "\u0301", "℘", "(", "def", "class", "1", "Ⅰ"]
NAMES = ["x", "as", "a", "s", "xs", "_", "é", "x\u0301", "℘x", "Ⅰ"]


def pattern(keyword: str, word_start: bool, min_blanks: int, name: str) -> re.Pattern:
    if not keyword:
        return re.compile(rf"\b({re.escape(name)})\b")
    blanks = r"[ \t\\\n]" + ("+" if min_blanks else "*")
    return re.compile((r"\b" if word_start else "") + re.escape(keyword) + blanks + rf"({re.escape(name)})\b")


@pytest.mark.parametrize("seed", range(4))
def test_search_binding_finds_what_the_regular_expression_finds(seed):
    rng = random.Random(seed)

    def piece(k: int) -> str:
        return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, k)))

    found = 0
    for _ in range(20_000):
        name = rng.choice(NAMES)
        keyword, word_start, min_blanks = rng.choice(FORMS)
        blanks = "".join(rng.choice(" \t\\\n") for _ in range(rng.randint(0, 2)))
        text = piece(4) + keyword + blanks + name + piece(3) + (keyword + " " + name if rng.random() < 0.3 else "")
        lo, hi = rng.randint(0, 3), rng.randint(len(text) - 4, len(text) + 2)
        m = pattern(keyword, word_start, min_blanks, name).search(text, lo, hi)
        want = m.start(1) if m else -1
        found += want >= 0
        got = search_binding(text, name, lo, hi, keyword=keyword, word_start=word_start, min_blanks=min_blanks)
        assert got == want, (text, name, keyword, lo, hi)
    assert found > 1000  # the cases exercise matches, not only misses


def test_child_nodes_are_iter_child_nodes_less_the_leaves():
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.glob("[a-f]*.py"))[:40]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not child_fields(type(node)):
                continue
            want = [
                c
                for c in ast.iter_child_nodes(node)
                if not isinstance(c, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop))
            ]
            assert child_nodes(node) == want, ast.dump(node)[:200]
