"""Java programs carry every token of their lines: keywords, operators and
separators, literals, and the identifiers (variables with their referents,
every other name without), in order, each at its place in its line."""

from __future__ import annotations

import random
import re
import zipfile

import pytest

from invar.encoding import Vocab, encode
from invar.errors import ParseError
from invar.frontends.java import parse_units, renaming_space
from invar.frontends.java.lexer import lexemes

from ..conftest import FIXTURES
from ..oracles.java_corpus import JDK17_FILES, jdk_sources, src_zip

BOTH, TREE_SITTER = ("javalang", "tree-sitter"), ("tree-sitter",)


def L(at: str) -> str:
    """The referent of the local or parameter declared at ``line.col:name`` of ``T.f``."""
    return f"local:T.f:{at}"


def K(*words: str) -> list[tuple[str, str, None]]:
    return [(w, "keyword", None) for w in words]


def OP(*ops: str) -> list[tuple[str, str, None]]:
    return [(o, "operator", None) for o in ops]


def N(*names: str) -> list[tuple[str, str, None]]:
    """Identifiers no renaming touches (types, fields, methods, members)."""
    return [(n, "name", None) for n in names]


A, X, O_ = ("a", "name", L("3.25:a")), ("x", "name", L("4.13:x")), ("o", "name", L("3.18:o"))

CASES = [
    (
        "        int x = a << 2 >>> 1, y = 0x1F_FFL + s;\n",
        BOTH,
        K("int")
        + [X]
        + OP("=")
        + [A]
        + OP("<<")
        + [("2", "number", None)]
        + OP(">>>")
        + [("1", "number", None)]
        + OP(",")
        + [("y", "name", L("4.31:y"))]
        + OP("=")
        + [("0x1F_FFL", "number", None)]
        + OP("+")
        + N("s")
        + OP(";"),
    ),
    (
        "        java.util.List<java.util.List<String>> m = new java.util.ArrayList<>();\n",
        BOTH,
        N("java")
        + OP(".")
        + N("util")
        + OP(".")
        + N("List")
        + OP("<")
        + N("java")
        + OP(".")
        + N("util")
        + OP(".")
        + N("List")
        + OP("<")
        + N("String")
        + OP(">>")
        + [("m", "name", L("4.48:m"))]
        + OP("=")
        + K("new")
        + N("java")
        + OP(".")
        + N("util")
        + OP(".")
        + N("ArrayList")
        + OP("<", ">", "(", ")", ";"),
    ),
    (
        "        String t = \"a\\\"b\" + 'c' + o.toString().length() + 1.5e-3f; // o\n",
        BOTH,
        N("String")
        + [("t", "name", L("4.16:t"))]
        + OP("=")
        + [('"a\\"b"', "string", None)]
        + OP("+")
        + [("'c'", "string", None)]
        + OP("+")
        + [O_]
        + OP(".")
        + N("toString")
        + OP("(", ")", ".")
        + N("length")
        + OP("(", ")", "+")
        + [("1.5e-3f", "number", None)]
        + OP(";"),
    ),
    (
        "        for (int i = 0; i < a; i++) {\n            s += i;\n        }\n",
        BOTH,
        K("for")
        + OP("(")
        + K("int")
        + [("i", "name", L("4.18:i"))]
        + OP("=")
        + [("0", "number", None)]
        + OP(";")
        + [("i", "name", L("4.18:i"))]
        + OP("<")
        + [A]
        + OP(";")
        + [("i", "name", L("4.18:i"))]
        + OP("++", ")", "{"),
    ),
    (
        "        @SuppressWarnings(\"x\") final Runnable q = () -> System.out.println(a);\n",
        BOTH,
        OP("@")
        + N("SuppressWarnings")
        + OP("(")
        + [('"x"', "string", None)]
        + OP(")")
        + K("final")
        + N("Runnable")
        + [("q", "name", L("4.47:q"))]
        + OP("=", "(", ")", "->")
        + N("System")
        + OP(".")
        + N("out")
        + OP(".")
        + N("println")
        + OP("(")
        + [A]
        + OP(")", ";"),
    ),
    (
        "        java.util.function.IntUnaryOperator g = Math::abs;\n",
        BOTH,
        N("java")
        + OP(".")
        + N("util")
        + OP(".")
        + N("function")
        + OP(".")
        + N("IntUnaryOperator")
        + [("g", "name", L("4.45:g"))]
        + OP("=")
        + N("Math")
        + OP("::")
        + N("abs")
        + OP(";"),
    ),
    (
        '        var r = switch (a) { case 1 -> """\n            x\n            """; default -> null; };\n',
        TREE_SITTER,
        K("var")
        + [("r", "name", L("4.13:r"))]
        + OP("=")
        + K("switch")
        + OP("(")
        + [A]
        + OP(")", "{")
        + K("case")
        + [("1", "number", None)]
        + OP("->")
        + [('"""\n            x\n            """', "string", None)]
        + OP(";")
        + K("default")
        + OP("->")
        + K("null")
        + OP(";", "}", ";"),
    ),
    (
        "        if (o instanceof String str && !str.isEmpty()) return str.length();\n",
        TREE_SITTER,
        K("if")
        + OP("(")
        + [O_]
        + K("instanceof")
        + N("String")
        + [("str", "name", L("4.33:str"))]
        + OP("&&", "!")
        + [("str", "name", L("4.33:str"))]
        + OP(".")
        + N("isEmpty")
        + OP("(", ")", ")")
        + K("return")
        + [("str", "name", L("4.33:str"))]
        + OP(".")
        + N("length")
        + OP("(", ")", ";"),
    ),
]


@pytest.mark.parametrize("body, parsers, expected", CASES, ids=[c[0].split("\n")[0].strip()[:40] for c in CASES])
def test_every_token_of_a_line(body, parsers, expected):
    src = f"class T {{\n    int s;\n    int f(Object o, int a) {{\n{body}    }}\n}}\n"
    for parser in parsers:
        (p,) = parse_units(src, "T.java", parser=parser)
        assert [(t.text, t.kind, t.referent) for t in p.line_tokens(1)] == expected, parser
        assert [(t.text, t.kind, t.referent) for t in p.line_tokens(0)] == (
            K("int") + N("f") + OP("(") + N("Object") + [O_] + OP(",") + K("int") + [A] + OP(")", "{")
        )
        for t in p.tokens:
            assert t.view == (
                t.text
                if t.kind != "name"
                else "name"
                if t.referent is None
                else "local"
                if t.referent.rsplit(":", 2)[1] not in ("3.18", "3.25")
                else "param"
            )


def test_text_around_the_unit_on_its_lines_is_tokens_too():
    (p,) = parse_units("class T { /* a */ int f(int a) { return a >>= 1; } } // end\n", "T.java")
    assert [(t.text, t.kind) for t in p.tokens] == [
        ("class", "keyword"),
        ("T", "identifier"),
        ("{", "operator"),
        ("int", "keyword"),
        ("f", "name"),
        ("(", "operator"),
        ("int", "keyword"),
        ("a", "name"),
        (")", "operator"),
        ("{", "operator"),
        ("return", "keyword"),
        ("a", "name"),
        (">>=", "operator"),
        ("1", "number"),
        (";", "operator"),
        ("}", "operator"),
        ("}", "operator"),
    ]
    # only the method's own names are names a renaming avoids, as before
    # the unit carried any other token
    assert sorted(r.as_dict()[p.tokens[7].referent] for r in renaming_space(p, pool=["T", "f", "b"]).enumerate()) == [
        "T",
        "b",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0x1.8p3 0b1_0L 017 1_000 .5 1. 2e-3D 3f 4L", ["number"] * 9),
        ("a.b...c->d::e>>>=f", ["identifier", "operator"] * 5 + ["identifier"]),
        ("'\\'' \"\\\"/*\" \"\"\"\n  \"\" \\\"\"\"\n  \"\"\"", ["string"] * 3),
        ("$x _y £z ŝ\u0301t true null var", ["identifier"] * 4 + ["keyword"] * 2 + ["identifier"]),
    ],
)
def test_lexemes(text, expected):
    got = lexemes(text)
    assert [k for _, _, k in got] == expected
    assert all(text[at : at + len(t)] == t for at, t, _ in got)


# ------------------------------------------------------------------ property
#: what may lie between two tokens: whitespace and comments; a line 0 may begin
#: inside a comment opened on an earlier line, a last line may end inside one
GAP = re.compile(r"(?:\s+|//[^\n]*|/\*[\s\S]*?\*/)*")
HEAD = re.compile(r"(?:[^\n]*?\*/)?")
TAIL = re.compile(r"/\*[\s\S]*")


def check_tokens(units) -> int:
    """Every line's tokens, in order, are its text less whitespace and
    comments; returns how many tokens were checked."""
    n = 0
    for p in units:
        for li, line in enumerate(p.lines):
            pos = 0
            for t in p.line_tokens(li):
                assert line.text[t.start : t.end] == t.text, (p.name, t)
                gap = line.text[pos : t.start]
                if li == 0 and pos == 0:
                    gap = gap[HEAD.match(gap).end() :]
                assert GAP.fullmatch(gap), (p.name, li, gap, t)
                pos = t.end
                n += 1
            gap = line.text[pos:]
            rest = GAP.match(gap).end()
            assert rest == len(gap) or (li == len(p.lines) - 1 and TAIL.fullmatch(gap, rest)), (p.name, li, gap)
        assert all(p.tokens[k].line <= p.tokens[k + 1].line for k in range(len(p.tokens) - 1))
    return n


@pytest.mark.parametrize("path", sorted((FIXTURES / "java").rglob("*.java")), ids=lambda p: p.stem)
def test_tokens_reproduce_fixture_lines(path):
    text = path.read_text()
    units = list(parse_units(text, str(path)))
    assert check_tokens(units) > 500
    kinds = {t.kind for p in units for t in p.tokens}
    assert {"keyword", "name", "operator", "number"} <= kinds


def test_tokens_reproduce_jdk_lines():
    with zipfile.ZipFile(src_zip()) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".java"))
        texts = {rel: zf.read(rel).decode("utf-8") for rel in random.Random(5).sample(names, 60)}
    texts.update((rel, jdk_sources()[rel]) for rel in JDK17_FILES)  # tree-sitter's path
    checked = 0
    for rel, text in texts.items():
        try:
            units = parse_units(text, rel)
        except ParseError:
            continue
        checked += check_tokens(units)
    assert checked > 50_000


def test_java_programs_encode():
    (p,) = parse_units("class T {\n    int f(int a) {\n        int b = a + 1;\n        return b;\n    }\n}\n")
    vocab = Vocab.build([p])
    enc = encode(p, vocab, canonical=True)
    assert len(enc.tokens) == len(enc.canon) == len(p.tokens) > 15
    assert len(enc.rename_refs) == 2 and enc.referents.astype(bool).sum() == 4
