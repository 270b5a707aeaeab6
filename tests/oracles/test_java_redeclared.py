"""A parameter or local declared again where one of its name is in scope
(JLS 6.4) is refused, where javac refuses it and nowhere else.

Each case is a method of its own class (beside a method that declares
nothing); ``javac`` compiles them all in one
call and says which lines it refuses ("already defined"). invar must refuse
exactly the methods javac refuses, each at the line of the second
declaration, and read every other one. The cases take every form a
declaration has (block locals, ``for`` and enhanced ``for`` variables,
``catch`` and resource variables, lambda parameters and lambda-body locals,
old-style and arrow switch groups, patterns, method parameters) against an
earlier one in scope, in a sibling scope, and across a local or anonymous
class body, where Java lets a name be declared again (sibling methods of
an anonymous class, a lambda in an enhanced ``for``'s iterable: shapes the
JDK's own sources hold).
"""

from __future__ import annotations

import pytest

from invar.frontends.java import parse_units

from .java_harness import compile_all, error_lines

#: name -> the method (in a class with ``import java.util.*; import java.util.function.*;``)
CASES = {
    "nested-block": "int f(int a) {\n int b = a;\n {\n  int b = 2;\n }\n return b;\n}",
    "sibling-blocks": "int f(int a) {\n {\n  int b = a;\n }\n {\n  int b = 2;\n  a += b;\n }\n return a;\n}",
    "after-the-block": "int f(int a) {\n {\n  int b = a;\n  a += b;\n }\n int b = 2;\n return a + b;\n}",
    "for-over-a-local": "int f(int a) {\n int i = 0;\n for (int i = 0; i < a; i++) {\n }\n return i;\n}",
    "two-fors": "int f(int a) {\n for (int i = 0; i < a; i++) {\n }\n for (int i = 0; i < a; i++) {\n }\n return a;\n}",
    "foreach-over-a-parameter": "int f(int[] xs, int x) {\n for (int x : xs) {\n }\n return x;\n}",
    "catch-over-a-local": (
        "int f(int a) {\n Exception e = null;\n try {\n  a = 1 / a;\n } catch (ArithmeticException e) {\n }\n"
        " return a;\n}"
    ),
    "two-catches": (
        "int f(int a) {\n try {\n  a = 1 / a;\n } catch (ArithmeticException e) {\n  a = 0;\n }\n"
        " try {\n  a = 2 / a;\n } catch (ArithmeticException e) {\n  a = 1;\n }\n return a;\n}"
    ),
    "resource-over-a-local": (
        "int f(int a) throws Exception {\n AutoCloseable r = null;\n try (AutoCloseable r = () -> {}) {\n }\n"
        " return a;\n}"
    ),
    "lambda-parameter-over-a-local": (
        "int f(int a) {\n int x = a;\n Function<Integer, Integer> g = x -> x + 1;\n return g.apply(x);\n}"
    ),
    "lambda-local-over-a-parameter": (
        "int f(int a) {\n Supplier<Integer> g = () -> {\n  int a = 2;\n  return a;\n };\n return g.get();\n}"
    ),
    "two-lambdas": (
        "int f(int a) {\n Function<Integer, Integer> g = x -> x + 1;\n Function<Integer, Integer> h = x -> x * 2;\n"
        " return g.apply(h.apply(a));\n}"
    ),
    "lambda-before-a-local": (
        "int f(int a) {\n Supplier<Integer> g = () -> {\n  int x = 2;\n  return x;\n };\n int x = a;\n"
        " return g.get() + x;\n}"
    ),
    "anonymous-class-method": (
        "int f(int a) {\n int x = a;\n Supplier<Integer> g = new Supplier<Integer>() {\n"
        "  public Integer get() {\n   int x = 3;\n   return x;\n  }\n };\n return g.get() + x;\n}"
    ),
    "local-class-parameter": (
        "int f(int a) {\n class L {\n  int h(int a) {\n   return a + 1;\n  }\n }\n return new L().h(a);\n}"
    ),
    "sibling-methods-of-an-anonymous-class": (
        "int f(int a) {\n Object o = new Object() {\n  int g(int c) throws Exception {\n   return c;\n  }\n"
        "  int h(int c) throws Exception {\n   return c + 1;\n  }\n };\n return a;\n}"
    ),
    "lambda-in-a-foreach-iterable": (
        "int f(List<Integer> xs) {\n int n = 0;\n for (Integer x : xs.stream().filter(x -> x > 0)"
        ".collect(java.util.stream.Collectors.toList())) {\n  n += x;\n }\n return n;\n}"
    ),
    "foreach-body-over-its-variable": "int f(int[] xs) {\n for (int x : xs) {\n  int x = 1;\n }\n return 0;\n}",
    "switch-groups": (
        "int f(int a) {\n switch (a) {\n  case 1:\n   int x = 1;\n   a += x;\n   break;\n  default:\n"
        "   int x = 2;\n   a += x;\n }\n return a;\n}"
    ),
    "switch-rules": (
        "int f(int a) {\n switch (a) {\n  case 1 -> {\n   int x = 1;\n   a += x;\n  }\n  default -> {\n"
        "   int x = 2;\n   a += x;\n  }\n }\n return a;\n}"
    ),
    "pattern-over-a-local": (
        "int f(Object o) {\n String s = \"\";\n if (o instanceof String s) {\n  return s.length();\n }\n"
        " return s.length();\n}"
    ),
    "local-after-a-pattern": (
        "int f(Object o) {\n if (o instanceof String s) {\n  return s.length();\n }\n String s = \"\";\n"
        " return s.length();\n}"
    ),
    "two-parameters": "int f(int a, int a) {\n return a;\n}",
    "local-over-a-parameter": "int f(int a) {\n int a = 2;\n return a;\n}",
}


def _class(name: str, method: str) -> str:
    body = "\n".join("    " + line for line in method.splitlines())
    ok = "    int ok() {\n        return 0;\n    }"
    return f"import java.util.*;\nimport java.util.function.*;\n\nclass {name} {{\n{body}\n{ok}\n}}\n"


@pytest.fixture(scope="module")
def javac_refuses(tmp_path_factory) -> dict[str, list[int]]:
    """Case -> the lines javac refuses as declaring a name already defined."""
    sources = {f"R{k}": _class(f"R{k}", m) for k, m in enumerate(CASES.values())}
    done = compile_all(sources, tmp_path_factory.mktemp("redeclared"))
    errors = error_lines(done.stderr)
    assert all("already defined" in message for _, _, message in errors), done.stderr
    return {case: sorted(n for f, n, _ in errors if f.endswith(f"/R{k}.java")) for k, case in enumerate(CASES)}


def test_the_cases_hold_both_answers(javac_refuses):
    refused = [case for case, lines in javac_refuses.items() if lines]
    assert 8 <= len(refused) <= len(CASES) - 8, refused


@pytest.mark.parametrize("parser", [None, "tree-sitter"])  # javalang, and tree-sitter where it cannot; tree-sitter
@pytest.mark.parametrize("case", CASES)
def test_invar_refuses_what_javac_refuses_at_its_line(case, parser, javac_refuses):
    units = parse_units(_class("R", CASES[case]), path="R.java", parser=parser)
    skipped = [(e.line, e.col, e.message) for e in units.skipped]
    assert [line for line, _, _ in skipped] == javac_refuses[case], skipped
    if skipped:
        (line, col, message), source = skipped[0], _class("R", CASES[case]).splitlines()
        assert "is already declared on line" in message
        name = message.split("'")[1]
        assert source[line - 1][col - 1 :].startswith(name)  # the column of the second declaration's name
    # the method refused is skipped, the other one read
    assert [u.name for u in units] == (["R.ok"] if skipped else ["R.f", "R.ok"])
