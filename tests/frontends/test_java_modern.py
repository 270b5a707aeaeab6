"""Java 17 syntax, read by tree-sitter where javalang cannot; units that used
to be lost; and the two parser paths agreeing wherever both read a file."""

from __future__ import annotations

import random

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


#: a postfix ``++``/``--`` under casts and prefix operators (tree-sitter-java
#: reads ``(long) i++`` as ``((long) i)++``), written every way Java 8 allows
PRECEDENCE = """\
class P {
    int n;
    int[] a = {1, 2};
    long f(int i, int k, P o) {
        long x1 = (long) i++;
        int x2 = -k++;
        int x3 = -~k++;
        int x4 = ~k--;
        long x5 = (long) -k++;
        long x6 = -(long) k++;
        int x7 = (int) a[0]++;
        int x8 = (int) o.n++;
        int x9 = -o.n--;
        int x10 = (int) (k)++;
        int x11 = -(k)++ + +(i)--;
        long x12 = (long) ++i + -++k + (short) -(byte) ~i--;
        int x13 = (int) (Integer) k++;
        return x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + i + k;
    }
}
"""


def test_a_postfix_update_binds_tighter_than_casts_and_prefix_operators_on_both_paths():
    a = parse_units(PRECEDENCE, "P.java", parser="javalang")
    b = parse_units(PRECEDENCE, "P.java", parser="tree-sitter")
    assert list(a) == list(b)
    (f,) = a
    k = next(t.referent for t in f.tokens if t.text == "k" and t.referent)
    i = next(t.referent for t in f.tokens if t.text == "i" and t.referent)
    for line in f.lines:
        text = line.text.strip()
        if "k++" in text or "k--" in text or "(k)++" in text:
            assert k in line.writes, text
        if "i++" in text or "i--" in text:
            assert i in line.writes, text
    # a record after the method sends the whole file down the tree-sitter path
    forced = PRECEDENCE[: PRECEDENCE.rindex("}")] + "    record Force(int z) {}\n}\n"
    (g,) = [u for u in parse_units(forced, "P.java") if u.name == "P.f"]
    assert [(ln.reads, ln.writes) for ln in g.lines] == [(ln.reads, ln.writes) for ln in f.lines]


#: locals named like the types and enum constants the method spells
TYPE_NAMES = """\
import java.util.*;

class N {
    enum Color { RED, GREEN }
    static class A {}
    static class B {}
    int v = 4;

    class In {
        int m(Object o, Color c) {
            String String = "ab";
            List<String> xs = new ArrayList<String>();
            String[] arr = new String[2];
            int A = 1;
            int B = 2;
            Integer Integer = 5;
            int RED = 1;
            int P = In.this.hashCode() > 0 ? 5 : 6;
            Class<?> k = N.class;
            if (o instanceof A) {
                return A;
            }
            Object q = (Integer) Integer;
            switch (c) {
                case RED:
                    return RED * 10 + N.this.v;
                default:
                    break;
            }
            return B + String.length() + xs.size() + arr.length + P + (q instanceof Integer ? 1 : 0) + k.hashCode();
        }
    }
}
"""


@pytest.mark.parametrize("parser", ["javalang", "tree-sitter"])
def test_type_positions_and_enum_case_labels_never_name_a_local(parser):
    (m,) = parse_units(TYPE_NAMES, "N.java", parser=parser)

    def at(line_text: str, name: str) -> list:
        """The referents of ``name`` on the line holding ``line_text``."""
        li = next(i for i, ln in enumerate(m.lines) if line_text in ln.text)
        return [t.referent for t in m.tokens if t.line == li and t.text == name]

    # a type, in every position, is no local
    assert at("List<String> xs", "String") == [None, None]
    assert at("String[] arr", "String") == [None, None]
    assert at("int P", "In") == [None]
    assert at("Class<?> k", "N") == [None]
    assert at("o instanceof A", "A") == [None]
    assert at("Object q", "Integer")[0] is None and at("Object q", "Integer")[1] is not None
    assert at("case RED", "RED") == [None, at("int RED", "RED")[0]]
    # the names those positions spell are never targets, so those locals are renamed away
    space = renaming_space(m)
    assert space.count() > 1
    for renaming in space.sample(30, random.Random(1)):
        text = space.apply(None, renaming).render()
        assert "List<String> " in text and "String[] " in text and "new String[2]" in text and "(Integer) " in text
        assert "instanceof A)" in text and "case RED:" in text and "In.this" in text and "N.class" in text


def test_the_two_paths_agree_on_type_positions():
    a = parse_units(TYPE_NAMES, "N.java", parser="javalang")
    b = parse_units(TYPE_NAMES, "N.java", parser="tree-sitter")
    assert list(a) == list(b)


def test_a_constant_local_in_a_case_label_keeps_its_name():
    src = """\
class S {
    int m(int x) {
        final int K = 3;
        int y = 1;
        switch (x) {
            case K:
                return y;
            default:
                return K;
        }
    }
}
"""
    (m,) = parse_units(src, "S.java")
    k = {t.referent for t in m.tokens if t.text == "K"}
    assert len(k) == 1 and k <= m.pinned
    space = renaming_space(m)
    assert space.count() == 1 and all("K" not in allowed for allowed in space.allowed)


def test_a_compact_constructors_components_are_never_targets():
    src = """\
class R {
    record Pt(int x, int y) {
        Pt {
            int a = 1;
            Runnable r = new Runnable() { public void run() { int x = 5; System.out.println(x); } };
            r.run();
            System.out.println(a);
        }
    }
}
"""
    (ctor,) = [u for u in parse_units(src, "R.java") if u.name == "R.Pt.Pt"]
    assert {p.rsplit(":", 1)[1] for p in ctor.pinned} == {"x", "y"}
    space = renaming_space(ctor)
    assert all("x" not in allowed and "y" not in allowed for allowed in space.allowed)
    assert space.count() == 6
    pooled = renaming_space(ctor, pool=["x", "y", "b", "c", "d"])
    assert all(set(allowed) == {"b", "c", "d"} for allowed in pooled.allowed)
