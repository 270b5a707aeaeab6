"""The public API: one entry point per job, the same objects the CLI uses."""

from __future__ import annotations

import pytest

import invar
from tests.conftest import FIXTURES

FIG1A = (FIXTURES / "x86" / "figure1a.s").read_text()


@pytest.mark.parametrize(
    "text, lang, renamings, orders",
    [
        (FIG1A, "x86", 3360, 1),
        ("def f(a, b, /):\n    x = a\n    y = b\n    return x + y\n", "python", 4, 2),
        ("def f(a, b):\n    x = a\n    y = b\n    return x + y\n", "python", 2, 2),  # a and b may be passed by keyword
        ("&aXb a;b;{1}", "ltl", 2, 1),
    ],
)
def test_parse_renamings_permutations(text, lang, renamings, orders):
    program = invar.parse(text, lang=lang)
    assert isinstance(program, invar.Program) and program.lang == lang
    space = invar.renamings(program)
    assert space.count() == renamings
    assert invar.permutations(program).count() == orders
    for r in space.sample(3, rng=1):
        assert invar.parse(space.render(r), lang=lang).render() == space.render(r)


def test_dlg_layers_of_figure1a():
    assert invar.dlg(invar.parse(FIG1A, lang="x86")).layers == ((0,), (1,), (2,))


def test_errors_are_typed_and_located():
    with pytest.raises(invar.ParseError) as info:
        invar.parse("nop\nmovq %rax, %rzz", lang="x86", path="b.s")
    assert (info.value.path, info.value.line, info.value.col) == ("b.s", 2, 12)
    assert str(info.value) == "b.s:2:12: error: unknown register '%rzz'"
