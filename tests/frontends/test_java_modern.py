"""Java 17 syntax, read by tree-sitter where javalang cannot; units that used
to be lost; and the two parser paths agreeing wherever both read a file."""

from __future__ import annotations

import pytest

from invar.errors import ParseError
from invar.frontends.java import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from ..conftest import FIXTURES
from . import assert_units_render_their_source

MODERN = FIXTURES / "java" / "java17" / "Modern.java"


def units_of(src: str, **kw) -> dict:
    return {p.name: p for p in parse_units(src, "T.java", **kw)}


def refs(p, name: str) -> list:
    """The referents of the tokens spelled ``name``, in order."""
    return [t.referent for t in p.tokens if t.text == name]


def method(body: str, params: str = "Object o, int a", extra: str = "") -> object:
    src = f"class T {{\n    int s;\n{extra}    int f({params}) {{\n{body}    }}\n}}\n"
    (p,) = parse_units(src, "T.java")
    return p


def test_the_java17_fixture_is_read_by_tree_sitter():
    text = MODERN.read_text()
    with pytest.raises(ParseError):
        parse_units(text, str(MODERN), parser="javalang")
    units = parse_units(text, str(MODERN))
    assert not units.skipped
    assert [p.name for p in units] == [
        "Modern.Shape.twice",
        "Modern.Shape.of",
        "Modern.Square.Square",
        "Modern.Square.size",
        "Modern.Circle.Circle",
        "Modern.Circle.size",
        "Modern.Level.LOW.weight",
        "Modern.Level.weight",
        "Modern.Level.of",
        "Modern.classify",
        "Modern.describe",
        "Modern.combine",
        "Modern.main",
    ]
    assert_units_render_their_source(text, units)
    assert PermutationSpace(units[-2]).count() == 80


@pytest.mark.parametrize("path", sorted((FIXTURES / "java").glob("*.java")), ids=lambda p: p.stem)
def test_both_parsers_build_identical_programs(path):
    text = path.read_text()
    assert list(parse_units(text, str(path), parser="javalang")) == list(
        parse_units(text, str(path), parser="tree-sitter")
    )


def test_var_locals_are_renamable_and_may_unbox():
    p = method(
        "        var n = java.util.Map.of(\"k\", a).get(\"k\");\n        try {\n            s = 1;\n"
        "            int m = n + 1;\n            return m;\n        } finally {\n            s = 2;\n        }\n"
    )
    assert all(r is not None for r in refs(p, "n"))
    assert refs(p, "var") == [None]
    # reading n may unbox a null: inside a try it keeps its order with the write of s
    assert any(p.lines[i].text.strip() == "s = 1;" and "int m" in p.lines[j].text for i, j in p.deps)
    assert "n" in {r.rsplit(":", 1)[1] for r in renaming_space(p).referents}


def test_text_block_contents_are_not_names():
    p = method(
        '        int x = a;\n        String t = """\n            x and a\n            """;\n'
        "        return x + t.length();\n"
    )
    assert [t.text for t in p.tokens].count("x") == 2
    for r in renaming_space(p, pool=["q", "w", "e", "r", "y"]).sample(5, __import__("random").Random(3)):
        assert "x and a" in renaming_space(p, pool=["q", "w", "e", "r", "y"]).apply(p, r).render()


def test_switch_expressions_arrow_cases_and_yield():
    p = method(
        "        int k = switch (a) {\n            case 1 -> 2;\n            case 2 -> {\n"
        "                int j = a * 2;\n                yield j;\n            }\n            default -> 0;\n"
        "        };\n        int j = k + 1;\n        return j;\n"
    )
    assert [l.text.strip().split("\n")[0] for l in p.lines[1:3]] == ["int k = switch (a) {", "int j = k + 1;"]
    inner, outer = refs(p, "j")[0], refs(p, "j")[-1]
    assert inner is not None and outer is not None and inner != outer
    assert (1, 2) in p.deps


def test_pattern_variables_follow_the_flow_of_control():
    p = method(
        "        if (!(o instanceof String t)) {\n            return 0;\n        }\n"
        "        int n = t.length();\n        boolean b = o instanceof String u && u.isEmpty();\n"
        "        return n + (b ? 1 : 0);\n"
    )
    assert len(set(refs(p, "t"))) == 1 and None not in refs(p, "t")
    assert len(set(refs(p, "u"))) == 1 and None not in refs(p, "u")
    assert (1, 4) in p.deps or any(i == 1 for i, _ in p.deps)


def test_a_pattern_variable_whose_name_may_mean_a_field_is_reported():
    src = (
        "class T {\n    int s;\n    int f(Object o) {\n        if (o instanceof String s) {\n"
        "            return s.length();\n        }\n        return s;\n    }\n    int g() {\n        return 1;\n    "
        "}\n}\n"
    )
    units = parse_units(src, "T.java")
    assert [p.name for p in units] == ["T.g"]
    (err,) = units.skipped
    assert (err.path, err.line, err.col) == ("T.java", 7, 16) and "pattern variable" in err.message


def test_records_and_compact_constructors_are_units():
    src = (
        "record R(int a, int b) {\n    R {\n        if (a > b) {\n            a = b;\n        }\n"
        "        int c = a + b;\n    }\n    R(int a) {\n        this(a, a);\n    }\n    int sum() {\n"
        "        var t = a + b;\n        return t;\n    }\n}\n"
    )
    units = units_of(src)
    assert list(units) == ["R.R@2", "R.R@8", "R.sum"]
    compact = units["R.R@2"]
    assert refs(compact, "a") == [None] * 3  # the components keep their names
    assert refs(compact, "c")[0] is not None


def test_enums_interfaces_and_anonymous_classes_keep_their_methods():
    src = (
        "enum E {\n    A {\n        int w() {\n            return 1;\n        }\n    }, B;\n"
        "    int w() {\n        int k = 2;\n        return k;\n    }\n"
        "    interface I {\n        default int d() {\n            return 3;\n        }\n"
        "        static int s() {\n            return 4;\n        }\n    }\n"
        "    static final Runnable R = new Runnable() {\n        public void run() {\n            int z = 5;\n"
        "        }\n    };\n    static {\n        Object o = new Object() {\n            public String toString() {\n"
        "                return \"o\";\n            }\n        };\n    }\n}\n"
    )
    want = ["E.A.w", "E.w", "E.I.d", "E.I.s", "E.R.run", "E.<clinit>.toString"]
    assert list(units_of(src)) == want
    assert list(units_of(src, parser="tree-sitter")) == want
    assert list(parse_units(src, "E.java")) == list(parse_units(src, "E.java", parser="tree-sitter"))


def test_a_local_declared_in_a_do_body_is_found():
    p = method(
        "        int n = 0;\n        do {\n            byte b = (byte) a;\n            n += b;\n"
        "        } while (n < 3);\n        return n;\n",
        params="int a",
    )
    assert None not in refs(p, "b") and len(set(refs(p, "b"))) == 1


def test_a_syntax_error_in_one_method_keeps_the_others():
    src = (
        "class T {\n    int f(int a) {\n        var x = a;\n        return x;\n    }\n"
        "    int g(int a) {\n        int y = a +;\n        return y;\n    }\n"
        "    int h(int a) {\n        return switch (a) { case 1 -> 2; default -> 3; };\n    }\n}\n"
    )
    units = parse_units(src, "T.java")
    assert [p.name for p in units] == ["T.f", "T.h"]
    (err,) = units.skipped
    assert (err.line, err.path) == (7, "T.java")


def test_an_error_outside_every_method_fails_the_file():
    with pytest.raises(ParseError) as info:
        parse_units("class T {\n    int x = ;\n    int f() {\n        return 1;\n    }\n}\n", "T.java")
    assert info.value.line == 2


AWKWARD = """\
import java.util.*;
import java.util.function.*;

class Outer {
    class Base {
        Base(int a) {
        }
    }

    class Inner extends Base {
        Inner(int a) {
            Outer.this.super(a);
        }
    }

    int f(List<String> xs, Object o) {
        Function<String, Integer> g = (s) -> s.length();
        Consumer<String> c = (Consumer<String>) s -> xs.add(s);
        Supplier<List<String>> e = ArrayList::new;
        List<String> empty = Collections.<String>emptyList();
        int n = ((String) o).length() + (xs).size();
        n += xs.get(0).length();
        label: {
            for (String x : xs) {
                if (x.isEmpty()) break label;
            }
        }
        ;
        do n--; while (n > 3);
        return n + g.apply("ab") + Objects.hashCode(e) + empty.size();
    }
}
"""


def test_both_parsers_agree_on_what_javalang_reads_awkwardly():
    """Shapes javalang represents in its own ways (a parenthesized or cast
    lambda parameter, a qualified superclass constructor call, explicit type
    arguments, an empty statement after a block, a labeled block) give the
    same program on both paths."""
    a = parse_units(AWKWARD, "Outer.java", parser="javalang")
    b = parse_units(AWKWARD, "Outer.java", parser="tree-sitter")
    assert [p.name for p in a] == ["Outer.Base.Base", "Outer.Inner.Inner", "Outer.f"]
    assert list(a) == list(b) and not a.skipped and not b.skipped
    f = a[-1]
    assert None not in refs(f, "s")  # both lambdas' parameters are parameters
