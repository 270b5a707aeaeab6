"""What the frontends' tests share."""

#: a Java class with overloads on lines of their own and two on one line
OVERLOADS = (
    "class Ov {\n"
    "    int f(int a) { return a + 1; }\n"
    "    int f(int a, int b) { return a + b; }\n"
    "    int g(int a) { return a; } int g(long a) { return (int) a; }\n"
    "    int h(int a) { return a; }\n"
    "}\n"
)


def assert_units_render_their_source(text: str, units) -> None:
    """Each unit parsed from ``text`` renders as the lines of ``text`` it was
    read from, its tokens stand in its lines where they say, and its
    dependencies run forward between lines of one block."""
    lines = text.split("\n")
    for p in units:
        first = p.lines[0].source_line
        rendered = p.render()
        assert rendered == "\n".join(lines[first - 1 : first - 1 + rendered.count("\n") + 1])
        for t in p.tokens:
            assert p.lines[t.line].text[t.start : t.end] == t.text
        for i, j in p.deps:
            assert i < j and p.lines[i].block == p.lines[j].block >= 0
