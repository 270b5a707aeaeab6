"""The Python frontend: layout, dependencies, tokens, renamings, errors."""

from __future__ import annotations

import ast
import textwrap

import pytest

from invar.errors import ParseError, UnsupportedError, UsageError
from invar.frontends import decode
from invar.frontends import parse_units as parse_any
from invar.frontends import units
from invar.frontends.python.parse import _UnitBuilder
from invar.frontends.python import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from ..conftest import FIXTURES
from . import assert_units_render_their_source

EARNINGS = """\
def earnings(rent, salary, lottery):
    income = rent + salary
    bonus = lottery
    income = income * 12
    income = income + bonus
    return income
"""


def unit(src: str, name: str | None = None):
    units = parse_units(textwrap.dedent(src), "t.py")
    return units[0] if name is None else next(u for u in units if u.name == name)


def body_deps(src: str) -> set[tuple[int, int]]:
    """Dependencies of a snippet wrapped as a function body, numbered from 1
    (line 0 is the ``def`` header)."""
    body = textwrap.indent(textwrap.dedent(src), "    ")
    return set(unit("def f(a, b):\n" + body).deps)


# -------------------------------------------------------------- dependencies
def test_earnings_has_exactly_three_orders():
    p = unit(EARNINGS)
    # the nearest conflicts: income's writes in a chain, bonus into line 4, and
    # the return after every line; (1, 4) follows from (1, 3) and (3, 4)
    assert set(p.deps) == {(1, 3), (1, 5), (2, 4), (2, 5), (3, 4), (3, 5), (4, 5)}
    assert PermutationSpace(p).count() == 3


@pytest.mark.parametrize(
    "snippet, expected",
    [
        # independent assignments commute
        ("x = a\ny = b\n", set()),
        # read after write, write after read, write after write
        ("x = a\ny = x\n", {(1, 2)}),
        ("y = x\nx = a\n", {(1, 2)}),
        ("x = a\nx = b\n", {(1, 2)}),
        # two calls keep their order; a pure builtin does not
        ("print(a)\nprint(b)\n", {(1, 2)}),
        ("x = len(a)\ny = abs(b)\n", set()),
        # a store through a subscript orders against every heap reader
        ("a[0] = 1\ny = b[0]\n", {(1, 2)}),
        ("x = a[0]\ny = b[0]\n", set()),
        ("a.append(1)\nn = len(a)\n", {(1, 2)}),
        # control barriers
        ("x = a\nreturn x\n", {(1, 2)}),
        ("x = a\nassert b\ny = b\n", {(1, 2), (2, 3)}),
        ("x = a\nraise ValueError\n", {(1, 2)}),
        # augmented assignment may mutate a list in place
        ("a += [1]\ny = b[0]\n", {(1, 2)}),
        # a lambda's body runs later: creating it reads nothing
        ("g = lambda: a\na = 1\n", set()),
        # comprehension variables are their own scope
        ("x = [a for a in b]\na = 2\n", set()),
        # a walrus in a comprehension binds in the function
        ("x = [(y := v) for v in b]\ny = 2\n", {(1, 2)}),
    ],
)
def test_snippet_deps(snippet, expected):
    assert body_deps(snippet) == expected


def test_closure_variables_order_with_calls():
    p = unit("""
        def f(n):
            k = 2
            def get():
                return k * n
            first = get()
            k = 5
            second = get()
            return first + second
    """)
    texts = [l.text.strip() for l in p.lines]
    i, j = texts.index("first = get()"), texts.index("k = 5")
    assert (i, j) in p.deps


def test_loop_body_is_its_own_block_and_break_is_a_barrier():
    p = unit("""
        def f(xs):
            s = 0
            t = 0
            for x in xs:
                s += x
                t = x
                if x:
                    break
            return s
    """)
    blocks = {l.text.strip(): (l.block, l.depth) for l in p.lines}
    assert blocks["for x in xs:"][1] == 1
    assert blocks["s += x"][1] == blocks["t = x"][1] == 2
    assert blocks["s += x"][0] != blocks["for x in xs:"][0]
    texts = [l.text.strip() for l in p.lines]
    brk = texts.index("if x:")
    assert (texts.index("t = x"), brk) in p.deps


def test_try_body_orders_statements_that_may_raise():
    deps = body_deps("""
        try:
            x = a[0]
            y = 1
        except IndexError:
            pass
    """)
    assert (2, 3) in deps


def test_deps_stay_inside_blocks():
    for path in sorted((FIXTURES / "python").glob("*.py")):
        for p in parse_units(path.read_text(), str(path)):
            for i, j in p.deps:
                assert i < j
                assert p.lines[i].block == p.lines[j].block >= 0


# ------------------------------------------------------------------ layout
def test_layout_of_compound_statements():
    p = unit("""
        @dec
        def f(a):
            '''doc'''
            if a:  # test
                b = 1
            elif a > 1:
                b = 2
            else:
                b = 3
            # before the loop
            for i in a:
                pass
            return b
    """)
    rows = [(l.text, l.block, l.depth) for l in p.lines]
    assert rows[0] == ("@dec\ndef f(a):", -1, 0)
    assert rows[1] == ("    '''doc'''", -1, 1)
    assert rows[2][1:] == (0, 1) and rows[2][0].endswith("# test")
    assert rows[4] == ("    elif a > 1:", -1, 2)
    assert rows[6] == ("    else:", -1, 2)
    assert rows[8] == ("    # before the loop\n    for i in a:", 0, 1)
    assert rows[-1] == ("    return b", 0, 1)


def test_statements_sharing_a_line_are_one_line():
    p = unit("def f(a):\n    x = 1; y = 2\n    if a: return x\n    return y\n")
    assert [l.text for l in p.lines[1:]] == ["    x = 1; y = 2", "    if a: return x", "    return y"]


def test_units_are_every_function_by_qualified_name():
    src = """
        def f():
            def g():
                return lambda: 1
            return g
        class C:
            def m(self):
                return 1
            class D:
                async def n(self):
                    return 2
    """
    assert [u.name for u in parse_units(textwrap.dedent(src))] == ["f", "f.<locals>.g", "C.m", "C.D.n"]


def test_module_without_functions_is_one_unit():
    (p,) = parse_units("x = 1\ny = 2\nprint(x)\n")
    assert p.name == "<module>"
    # the call may read y too
    assert set(p.deps) == {(0, 2), (1, 2)}


@pytest.mark.parametrize("path", sorted((FIXTURES / "python").glob("*.py")), ids=lambda p: p.stem)
def test_render_reproduces_the_source(path):
    text = path.read_text()
    assert_units_render_their_source(text, parse_units(text, str(path)))


def test_crlf_line_endings_round_trip():
    src = EARNINGS.replace("\n", "\r\n")
    (p,) = parse_units(src)
    assert p.render() + "\n" == src
    assert PermutationSpace(p).count() == 3


# ------------------------------------------------------------------ tokens
def test_views_and_referents():
    p = unit("""
        import os
        G = 1
        def f(a, *args, k=1, **kw):
            import json
            x = [a for a in args]
            y = len(x) + G
            return os.sep + json.dumps(kw) + str(k)
    """)
    seen = {(t.text, t.view, t.referent) for t in p.tokens}
    assert ("a", "param", "local:f:a") in seen
    assert ("a", "local", "local:f.<listcomp>@6.8:a") in seen
    assert ("x", "local", "local:f:x") in seen
    assert ("len", "builtin", None) in seen
    assert ("G", "global", None) in seen
    assert ("os", "global", None) in seen
    assert ("json", "import", None) in seen
    assert ("k", "param", "local:f:k") in seen
    assert "local:f:k" in p.pinned  # keyword-only: part of the interface


def test_free_variables_of_an_inner_unit_are_not_renamable_there():
    inner = unit(
        """
        def f(n):
            total = 0
            def add(v):
                nonlocal total
                total += v + n
            return add
    """,
        "f.<locals>.add",
    )
    free = {t.text for t in inner.tokens if t.view == "free"}
    assert free == {"total", "n", "add"}
    assert {t.referent for t in inner.tokens if t.text in free} == {None}


def test_fstring_names_are_tokens():
    p = unit('def f(a):\n    return f"{a!r:>{a}} {a}"\n')
    assert sum(t.text == "a" for t in p.tokens) == 4


# --------------------------------------------------------------- renamings
POSITIONAL = EARNINGS.replace("lottery):", "lottery, /):")


@pytest.mark.parametrize(
    "src, pool, expected",
    [
        # parameters a caller may pass by keyword are the interface: only the
        # locals income and bonus move, among themselves
        (EARNINGS, None, 2 * 1),
        (EARNINGS, ["v0", "v1", "v2", "v3", "v4"], 5 * 4),
        (EARNINGS, ["v0", "v1"], 2),
        (EARNINGS, ["v0"], 0),
        # positional-only parameters cannot be named by a caller: they move too
        (POSITIONAL, None, 3 * 2 * 1 * 2 * 1),  # 3 params among themselves, 2 locals among themselves
        (POSITIONAL, ["v0", "v1", "v2", "v3", "v4"], 120),
        (POSITIONAL, ["v0", "v1", "v2", "v3", "v4", "v5"], 720),
        (POSITIONAL, ["v0", "v1"], 0),
        ("def f(a):\n    return a\n", None, 1),
        ("def f(a, /):\n    return a + len(a)\n", ["len", "b", "c"], 2),  # a builtin in use is never a target
        ("def f(*args, **kwargs):\n    return args, kwargs\n", ["p", "q", "r"], 6),
        ("def f(a, *, b):\n    c = a + b\n    return c\n", ["p", "q", "r"], 3),  # only c moves
    ],
)
def test_renaming_counts(src, pool, expected):
    assert renaming_space(unit(src), pool=pool).count() == expected


def test_renaming_never_captures():
    p = unit("""
        def f(a, b, /):
            c = a + total
            d = [b for b in range(c)]
            return max(c, d)
    """)
    space = renaming_space(p, pool=["total", "max", "range", "x", "y", "z", "w", "u"])
    assert space.count() == 5 * 4 * 3 * 2 * 1  # five referents, five safe names
    for r in space.enumerate():
        assert not {"total", "max", "range"} & set(r.as_dict().values())
        new = space.apply(None, r).render()
        ast.parse(new)


def test_renaming_applies_to_every_occurrence_and_undoes():
    p = unit(POSITIONAL)
    space = renaming_space(p, pool=["p", "q", "r", "s", "t"])
    r = space.unrank(7)
    renamed = space.apply(None, r)
    mapping = r.as_dict()
    assert "income" not in renamed.render().replace("def earnings", "")
    assert space.undo([mapping["local:earnings:income"]], r) == ["local:earnings:income"]
    reparsed = parse_units(renamed.render())[0]
    assert reparsed.deps == p.deps


def test_pins_and_bad_pools():
    p = unit(POSITIONAL)
    assert renaming_space(p, pins=["income"]).count() == 3 * 2
    with pytest.raises(UsageError):  # the pool is the caller's mistake, not the program's
        renaming_space(p, pool=["class", "x"])
    with pytest.raises(UsageError):
        renaming_space(p, pool=["1x"])
    for reserved in ("__debug__", "__class__"):  # cannot be assigned, or is super()'s cell
        with pytest.raises(UsageError, match="cannot name a variable"):
            renaming_space(p, pool=["x", reserved])


@pytest.mark.parametrize(
    "source, orders",
    [
        ('x = 1\ny = 2\n', 2),
        ('"""Doc."""\nx = 1\ny = 2\n', 2),  # the docstring is __doc__: it stays first
        ('from __future__ import annotations\nx = 1\ny = 2\n', 2),  # the directive opens the module
        ('print("a")\nx: print("b") = 1\n', 1),  # a module-level annotation runs
        ('from __future__ import annotations\nprint("a")\nx: print("b") = 1\n', 1),
        ('def f():\n    print("a")\n    x: print("b") = 1\n    return x\n', 2),  # a local's annotation never runs
    ],
)
def test_module_units_keep_what_opens_the_module(source, orders):
    program = parse_units(source, "m.py")[0]
    assert PermutationSpace(program).count() == orders


def test_module_annotations_run_unless_deferred():
    eager = unit('print("a")\nx: print("b") = 1\ny = 2\n')
    lazy = unit('from __future__ import annotations\nprint("a")\nx: print("b") = 1\ny = 2\n')
    # a module's globals are reachable by any call, so each store follows the print
    assert PermutationSpace(eager).count() == 1  # and the annotation's print follows the first
    assert PermutationSpace(lazy).count() == 2  # no annotation runs: only x and y swap


def test_dynamic_builtins_pin_every_local():
    p = unit("def f(a):\n    b = a\n    return locals()\n")
    assert renaming_space(p).count() == 1
    assert renaming_space(p, pool=["x", "y"]).count() == 1  # the empty renaming


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "src, line, col, message",
    [
        ("def f(:\n    pass\n", 1, 7, "invalid syntax"),
        ("def f():\n    x = 1\n    global x\n", 3, 5, "before global declaration"),
        ("def f():\n    return " + "(" * 300 + ")" * 300 + "\n", 2, None, "nested parentheses"),
        ("".join("    " * i + f"if x{i}:\n" for i in range(120)), 101, None, "indentation"),
        ("def f(a):\n    return " + "a + " * 50000 + "a\n", 2, 5, "too deep"),
        ("def f():\r    pass\n", 1, None, "carriage return"),
        # the compiler's checks, past the parser's: Python refuses these files before running a line
        ("def f(x):\n    break\n", 2, 5, "'break' outside loop"),
        ("def f(xs):\n    for x in xs:\n        pass\n    else:\n        continue\n", 5, 9, "'continue' not properly"),
        ("def f():\n    return 1\n\n\nreturn 1\n", 5, 1, "'return' outside function"),
        ("def f(x):\n    await x\n", 2, 5, "'await' outside async function"),
        ("def f(x):\n    é = 'ééé'; break\n", 2, 16, "'break' outside loop"),  # a column in characters, not bytes
        ("def f(x):\n    return [(yield) for y in x]\n", 2, 14, "'yield' inside list comprehension"),
    ],
)
def test_errors_are_located(src, line, col, message):
    with pytest.raises(ParseError) as info:
        parse_units(src, "bad.py")
    err = info.value
    assert err.path == "bad.py"
    assert err.line == line
    if col is not None:
        assert err.col == col
    assert message in err.message


def test_oversized_input_is_refused(monkeypatch):
    monkeypatch.setattr(units, "MAX_CHARS", 1000)
    with pytest.raises(ParseError, match="too large"):
        parse_units("x = 1\n" * 200, "big.py")


def test_a_bad_function_is_skipped_and_reported(monkeypatch):
    original = _UnitBuilder.build

    def build(self):
        if getattr(self.node, "name", "") == "bad":
            raise UnsupportedError("no", line=self.node.lineno, col=1)
        return original(self)

    monkeypatch.setattr(_UnitBuilder, "build", build)
    units = parse_units("def good():\n    return 1\n\ndef bad():\n    return 2\n", "m.py")
    assert [u.name for u in units] == ["good"]
    assert [(e.path, e.line) for e in units.skipped] == [("m.py", 4)]
    assert units.skip_summary() == "1 skipped: 1 unsupported construct"


def test_registry_dispatches_on_extension():
    units = parse_any(EARNINGS, "python", "e.py")
    assert units[0].lang == "python" and units[0].name == "earnings"


# ------------------------------------------------------------ reading files
@pytest.mark.parametrize(
    "data, text",
    [
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),  # a UTF-8 byte-order mark is dropped
        (b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n", "# -*- coding: latin-1 -*-\ns = 'caf\u00e9'\n"),
        (
            b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '\x80'\n",
            "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '\u20ac'\n",
        ),
        (b"s = 'caf\xc3\xa9'\n", "s = 'caf\u00e9'\n"),  # UTF-8 by default
    ],
)
def test_python_files_are_read_as_python_reads_them(data, text):
    assert decode(data, "python", "m.py") == text
    assert parse_any(decode(data, "python", "m.py"), "python", "m.py")


@pytest.mark.parametrize(
    "data, line, col, message",
    [
        (b"# coding: no-such-codec\nx = 1\n", 1, 1, "unknown encoding"),
        (b"x = 1\ns = 'caf\xe9'\n", 2, 9, "not UTF-8 (byte 0xe9)"),
        (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", 1, 1, "encoding problem"),
        (b"x = 1\n\x00\n", 2, 1, "binary input"),
    ],
)
def test_undecodable_python_files_are_located(data, line, col, message):
    with pytest.raises(ParseError) as info:
        decode(data, "python", "m.py")
    assert (info.value.path, info.value.line, info.value.col) == ("m.py", line, col)
    assert message in info.value.message


# ------------------------------------------------------- full token stream
def test_every_token_is_in_the_stream_with_its_span():
    src = 'def f(a, /, *, k=1):\n    x = a.attr + 1  # note\n    s = f"{x=} {a!r:>{k}}"\n    return g(key=x, *s)\n'
    p = unit(src)
    for t in p.tokens:
        assert p.lines[t.line].text[t.start : t.end] == t.text
    assert [t.line for t in p.tokens] == sorted(t.line for t in p.tokens)
    kinds = {t.text: t.kind for t in p.tokens}
    assert kinds["def"] == kinds["return"] == "keyword"
    assert kinds["attr"] == kinds["key"] == "identifier"  # attributes and keyword names are no variables
    assert kinds["+"] == kinds["("] == "operator" and kinds["1"] == "number"
    assert "note" not in "".join(t.text for t in p.tokens)  # comments are not tokens
    pieces = [t.text for t in p.tokens if t.line == 2 and t.kind in ("string", "name")]
    assert pieces == ["s", 'f"{', "x", "=} {", "a", "!r:>{", "k", '}}"']  # an f-string cut around its names
    assert {t.referent for t in p.tokens if t.kind != "name"} == {None}
    assert (
        renaming_space(p, pool=["attr", "key", "y", "z"]).count() == 4 * 3
    )  # a and s; attribute names capture nothing


@pytest.mark.parametrize(
    "src, names",
    [
        ("def f(a):\n    return a\ndef f(a, b):\n    return a + b\n", ["f@1", "f@3"]),
        (
            "class C:\n    def m(self, x):\n        return x\n    def m(self, y):\n        return y\n    def n(self):\n"
            "        return 1\n",
            ["C.m@2", "C.m@4", "C.n"],
        ),
        (
            "def f():\n    def g(a):\n        return a\n    return g\ndef f():\n    def g(b):\n        return b\n"
            "    return g\n",
            ["f@1", "f.<locals>.g@2", "f@5", "f.<locals>.g@6"],
        ),
    ],
)
def test_redefined_functions_are_named_by_their_line(src, names):
    assert [u.name for u in parse_units(src)] == names


def test_a_file_the_compiler_only_warns_about_parses_without_a_word(recwarn):
    """``x is 1`` and an assert on a tuple are warnings, not errors: the file
    parses, and nothing is printed (nor raised under ``-W error``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        units = parse_units("def f(x):\n    assert (x, 'm')\n    return x is 1\n", "warned.py")
    assert [u.name for u in units] == ["f"] and not recwarn.list
