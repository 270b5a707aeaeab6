"""The Java frontend: layout, dependencies, tokens, renamings, errors."""

from __future__ import annotations

import pytest

from invar.errors import ParseError, PoolError
from invar.frontends.java import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from ..conftest import FIXTURES
from . import OVERLOADS, assert_units_render_their_source

EARNINGS = """\
class E {
    static int earnings(int rent, int salary, int lottery) {
        int income = rent + salary;
        int bonus = lottery;
        income = income * 12;
        income = income + bonus;
        return income;
    }
}
"""


def method(body: str, params: str = "int a, int b"):
    (p,) = parse_units(f"class T {{\n    int f({params}) {{\n{body}    }}\n}}\n", "T.java")
    return p


def test_earnings_has_exactly_three_orders():
    (p,) = parse_units(EARNINGS)
    assert p.name == "E.earnings"
    assert set(p.deps) == {(1, 3), (1, 4), (1, 5), (2, 4), (2, 5), (3, 4), (3, 5), (4, 5)}
    assert PermutationSpace(p).count() == 3


@pytest.mark.parametrize(
    "body, expected",
    [
        ("int x = a;\nint y = b;\nreturn 0;\n", {(1, 3), (2, 3)}),
        ("int x = a;\nint y = x;\nreturn y;\n", {(1, 2), (1, 3), (2, 3)}),
        ("System.out.println(a);\nSystem.out.println(b);\nreturn 0;\n", {(1, 2), (1, 3), (2, 3)}),
        ("int x = Math.abs(a);\nint y = Math.max(b, 1);\nreturn 0;\n", {(1, 3), (2, 3)}),
        ("a++;\nint y = a;\nreturn y;\n", {(1, 2), (1, 3), (2, 3)}),
        (
            "int[] r = new int[2];\nr[0] = a;\nint y = r[1];\nreturn y;\n",
            {(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)},
        ),
    ],
)
def test_snippet_deps(body, expected):
    assert set(method("".join("        " + l + "\n" for l in body.splitlines())).deps) == expected


def test_layout_of_braced_statements():
    p = method(
        "        if (a > 0) {\n            a = 1;\n        } else {\n            a = 2;\n        }\n"
        "        for (int i = 0; i < b; i++) {\n            a += i;\n        }\n        return a;\n"
    )
    rows = [(l.text.strip(), l.block, l.depth) for l in p.lines]
    assert rows[1] == ("if (a > 0) {", 0, 1)
    assert rows[3] == ("} else {", -1, 2)
    assert rows[5] == ("}", -1, 2)
    assert rows[6] == ("for (int i = 0; i < b; i++) {", 0, 1)
    assert rows[-1] == ("}", -1, 1)


@pytest.mark.parametrize("path", sorted((FIXTURES / "java").glob("*.java")), ids=lambda p: p.stem)
def test_render_reproduces_the_source(path):
    text = path.read_text()
    assert_units_render_their_source(text, parse_units(text, str(path)))


def test_block_scoped_locals_are_distinct_referents():
    p = method(
        "        for (int i = 0; i < a; i++) {\n            b += i;\n        }\n"
        "        for (int i = 0; i < b; i++) {\n            a += i;\n        }\n        return a;\n"
    )
    refs = {t.referent for t in p.tokens if t.text == "i"}
    assert len(refs) == 2


def test_renaming_counts_and_capture():
    (p,) = parse_units(EARNINGS)
    assert renaming_space(p).count() == 3 * 2 * 1 * 2 * 1
    assert renaming_space(p, pool=[f"v{i}" for i in range(5)]).count() == 120
    q = method("        int x = Math.abs(a) + size;\n        return x + b;\n")
    space = renaming_space(q, pool=["Math", "abs", "size", "p", "q", "r"])
    assert space.count() == 3 * 2 * 1
    for r in space.enumerate():
        assert not {"Math", "abs", "size"} & set(r.as_dict().values())
    with pytest.raises(PoolError):  # the pool is the caller's mistake: a usage error
        renaming_space(q, pool=["class", "y"])


@pytest.mark.parametrize(
    "src, line, col, message",
    [
        ("class A { void f() { int x = ; } }", 1, 30, "Expected"),
        (
            "class A {\n  void f() {\n    String s = \"abc;\n  }\n}\n",
            3,
            16,
            "Unterminated character/string literal at '\"'",
        ),
        ("class A {\n  int f(int a) {\n    return a # 2;\n  }\n}\n", 3, 14, "Could not process token at '#'"),
        # an escape outside a literal: refused where it stands (javalang's tokenizer keeps escapes as written)
        ("class A {\n  int f(int a) {\n    int b\\u0041 = a;\n    return bA;\n  }\n}\n", 3, 10, "token at '\\\\'"),
        ("class A { int x; }", 1, 1, "no method"),
        ("class A {\n  int f(int x) {\n    return x;\n", 4, 1, "(at the end of the input)"),  # not "(at None)"
    ],
)
def test_errors_are_located(src, line, col, message):
    with pytest.raises(ParseError) as info:
        parse_units(src, "A.java")
    assert (info.value.line, info.value.col) == (line, col)
    assert message in info.value.message


def line_of(p, text: str) -> int:
    """The first statement line (never the header) whose text holds ``text``."""
    return next(i for i, l in enumerate(p.lines) if i and text in l.text)


def ordered(p, a: str, b: str) -> bool:
    """Whether the line holding ``a`` must stay before the one holding ``b``
    (a dependency or a chain of them: deps may be a sparse generating set)."""
    start, goal = line_of(p, a), line_of(p, b)
    after: dict[int, set[int]] = {}
    for i, j in p.deps:
        after.setdefault(i, set()).add(j)
    seen, todo = set(), [start]
    while todo:
        i = todo.pop()
        for j in after.get(i, ()):
            if j == goal:
                return True
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return False


@pytest.mark.parametrize(
    "body, first, second",
    [
        # writes of fields that are not plain assignments
        ("int x = n;\nthis.n++;\nreturn x;\n", "int x", "this.n++"),
        ("int x = n;\n(this.n)++;\nreturn x;\n", "int x", "(this.n)++"),
        ("int x = n;\nint y = ((n++) + 0);\nreturn x + y;\n", "int x", "int y"),
        ("int x = n;\nn += 1;\nreturn x;\n", "int x", "n += 1"),
        ("int[] r = {1};\nint x = (r[0]) + 1;\nr[0]++;\nreturn x;\n", "int x", "r[0]++"),
        # copies read their source
        (
            "java.util.List<Integer> c = new java.util.ArrayList<>(xs);\nxs.add(1);\nreturn c.size();\n",
            "List<Integer> c",
            "xs.add",
        ),
        # String.valueOf(char[]) reads the array
        ("int x = a;\nString s = String.valueOf(cs);\ncs[0] = 'q';\nreturn x;\n", "String s", "cs[0]"),
        # a declaration never crosses a statement naming it
        ("int k = n;\nint n = 2;\nreturn k + n;\n", "int k", "int n"),
        ("{\n    int t = 1;\n    a += t;\n}\nint t = 2;\nreturn t;\n", "{", "int t = 2"),
    ],
)
def test_ordered_pairs(body, first, second):
    p = method(
        "".join("        " + l + "\n" for l in body.splitlines()), params="int a, java.util.List<Integer> xs, char[] cs"
    )
    assert ordered(p, first, second)


def test_modifiers_annotations_and_labels_travel_with_their_statement():
    p = method(
        "        int c = 1;\n        @SuppressWarnings(\"unused\")\n        final int d = 2;\n"
        "        outer:\n        for (int i = 0; i < 2; i++) {\n            break outer;\n        }\n        return "
        "c;\n"
    )
    texts = [l.text.strip() for l in p.lines]
    assert '@SuppressWarnings("unused")\n        final int d = 2;' in texts
    assert any(t.startswith("outer:") and t.endswith("{") for t in texts)


def test_super_and_this_calls_stay_first():
    (p,) = parse_units("class T extends B {\n    T(int a) {\n        super(a);\n        int x = 2;\n    }\n}\n")
    assert ordered(p, "super(a)", "int x")


def test_labels_method_references_and_annotation_elements_are_not_variables():
    p = method(
        "        int outer = 1;\n        int length = 2;\n        int value = 3;\n"
        "        outer:\n        for (int i = 0; i < 2; i++) {\n            break outer;\n        }\n"
        "        @SuppressWarnings(value = \"x\") int q = value;\n"
        "        return outer + length + value + java.util.stream.Stream.of(\"a\").mapToInt(String::length).sum();\n"
    )
    names = {(t.text, t.referent is not None) for t in p.tokens}
    assert ("outer", False) in names and ("length", False) in names and ("value", False) in names
    assert ("outer", True) in names and ("length", True) in names and ("value", True) in names


def test_locals_captured_by_a_class_body_keep_their_names():
    p = method(
        "        int x = a;\n        Object o = new Object() { public String toString() { return \"\" + x; } };\n"
        "        int y = b;\n        return y;\n"
    )
    assert {r.rsplit(":", 1)[1] for r in p.pinned} == {"x"}
    assert all(r.as_dict().get(next(iter(p.pinned)), None) is None for r in renaming_space(p).enumerate())


def test_unicode_escapes_keep_token_columns():
    p = method("        boolean d = a == '\\u3002' || b == '\\uFF0E';\n        return d ? a : b;\n")
    for t in p.tokens:
        assert p.lines[t.line].text[t.start : t.end] == t.text


def test_a_for_variable_reaches_the_end_of_an_unbraced_body():
    (p,) = parse_units(
        "class T {\n    int i;\n    int f(int[] a) {\n        for (int i = 0; i < 2; i++)\n"
        "            if (a[i] > 0) a[i]++; else a[i]--;\n        return i;\n    }\n}\n"
    )
    refs = [t.referent for t in p.tokens if t.text == "i"]
    assert refs[:-1] == [refs[0]] * 6 and refs[0] is not None and refs[-1] is None


@pytest.mark.parametrize("parser", ["javalang", "tree-sitter"])
def test_overloads_are_named_by_their_line_and_by_their_column_where_they_share_one(parser):
    names = [u.name for u in parse_units(OVERLOADS, parser=parser)]
    assert names == ["Ov.f@2", "Ov.f@3", "Ov.g@4.5", "Ov.g@4.32", "Ov.h"]
    assert len(set(names)) == len(names)


def _unit(src: str, name: str):
    return {u.name: u for u in parse_units(src, "T.java")}[name]


@pytest.mark.parametrize(
    "unboxed", ["z = c ? 1 : null;", "z = c ? null : 1;", "z = (c ? (null) : 2) + 1;", "z = c ? 1 : d ? 2 : null;"]
)
def test_a_conditional_with_a_null_branch_may_raise_inside_a_try(unboxed):
    p = method(TRY_UNBOX.format(unboxed=unboxed), params="boolean c, boolean d")
    assert ordered(p, "x = 5", unboxed[:6])


#: a local write beside a statement that may unbox ``null`` (the NPE is caught)
TRY_UNBOX = """\
        int x = 0;
        int z = 0;
        try {{
            x = 5;
            {unboxed}
        }} catch (NullPointerException e) {{
            return x;
        }}
        return x + z;
"""


#: a type variable's local unboxes where its bound is boxed, directly or through another type variable
TYPE_VARIABLES = """\
class T<S extends Long, R> {{
    {generics} long f({typ} p, {typ} q) {{
        long x = 0;
        long z = 0;
        try {{
            x = 5;
            z = p + 1;
        }} catch (NullPointerException e) {{
            return x;
        }}
        return x + z;
    }}
}}
"""


@pytest.mark.parametrize("parser", ["javalang", "tree-sitter"])
@pytest.mark.parametrize(
    "generics, typ, unboxes",
    [
        ("<U extends Integer>", "U", True),
        ("<U extends Long & Comparable<Long>>", "U", True),
        ("<U extends S, V extends U>", "V", True),
        ("", "S", True),
        ("<U extends Comparable<Integer>>", "U", False),
        ("", "R", False),
    ],
)
def test_a_local_of_a_type_variable_with_a_boxed_bound_may_raise_inside_a_try(parser, generics, typ, unboxes):
    src = TYPE_VARIABLES.format(generics=generics, typ=typ)
    if not unboxes:  # ``p + 1`` would not compile: a comparison, which does not unbox
        src = src.replace("z = p + 1;", "z = p == null ? 1 : 2;")
    (p,) = parse_units(src, "T.java", parser=parser)
    assert ordered(p, "x = 5", "z = p") == unboxes


def test_a_conditional_without_null_still_moves_inside_a_try():
    p = method(TRY_UNBOX.format(unboxed="z = c ? 1 : 2;"), params="boolean c")
    assert not ordered(p, "x = 5", "z = c")


SHADOWED = """\
{imports}
class T {{
{members}
    int f(int p, java.util.List<String> it) {{
        Object a = {first};
        Object b = {second};
        return a.hashCode() + b.hashCode();
    }}
}}
"""


@pytest.mark.parametrize(
    "imports, members, first, second, swaps",
    [
        # the JDK classes, named by their simple names: reads, free to swap
        ("", "", "Math.abs(p)", "Math.abs(p - 10)", True),
        ("import java.util.*;", "", "new ArrayList<>()", "new HashMap<>()", True),
        ("import java.util.ArrayList;", "", "new ArrayList<>()", "Integer.parseInt(\"1\")", True),
        ("", "", 'String.join(",", "a", "b")', 'String.join(";", new String[] {"c"})', True),
        # a class of the file, a field, an import or a missing import: unknown calls
        ("", "    static class Math { static int abs(int x) { return x; } }", "Math.abs(p)", "Math.abs(p - 10)", False),
        ("", "    static java.util.Random Math = new java.util.Random();", "Math.abs(p)", "Math.abs(p - 10)", False),
        ("import my.lib.Math;", "", "Math.abs(p)", "Math.abs(p - 10)", False),
        ("", "    <Integer> void g() {}", "Integer.parseInt(\"1\")", "Integer.parseInt(\"2\")", False),
        ("", "    enum E { String }", "String.valueOf(p)", "String.valueOf(2)", False),
        ("import java.util.*;", "    static class ArrayList<T> { }", "new ArrayList<>()", "new ArrayList<>()", False),
        ("", "", "new ArrayList<>()", "new HashMap<>()", False),  # no import: not java.util's
        # String.join iterates an Iterable
        ("", "", 'String.join(",", it)', 'String.join(";", it)', False),
    ],
)
def test_jdk_classes_are_known_only_where_their_simple_name_means_them(imports, members, first, second, swaps):
    src = SHADOWED.format(imports=imports, members=members, first=first, second=second)
    p = _unit(src, "T.f")
    assert (PermutationSpace(p).count() == 2) == swaps, src
