"""The public API: one entry point per job, the same objects the CLI uses."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

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


@pytest.mark.parametrize(
    "text, lang, where",
    [
        ("movq %rax, %bogus\n\naddq %rax, %rbx", "x86", "<input>:1:12: "),  # the first block fails
        ("addq %rax, %rbx\n\nmovq %rax, %bogus", "x86", "<input>:3:12: "),  # a later one
        ("zz\n4883c201", "hex", "<input>:1:1: "),
        ("class A { void f( { } }\nclass B { int g(int a) { return a; } }", "java", "<input>:1:19: "),
        ("&a b\t{a}\na\t{a}", "ltl", "<input>:1:1: "),
    ],
)
def test_parse_refuses_a_text_with_a_unit_that_does_not_parse_and_parse_units_keeps_the_rest(text, lang, where):
    with pytest.raises(invar.ParseError) as info:
        invar.parse(text, lang)
    assert str(info.value).startswith(where), info.value
    units = invar.parse_units(text, lang)
    assert len(units) == 1 and [str(e) for e in units.skipped] == [str(info.value)]


def test_audit_and_train_are_the_modules_callable_whichever_is_touched_first():
    """``invar.audit`` was a function until ``invar.audit``'s module was
    imported, and then the module: ``invar.audit.AuditConfig`` failed on a
    fresh import and a config passed by position was refused."""
    script = f"""
import invar
config = invar.audit.AuditConfig(variants=2, limit=2)
a = invar.audit({str(FIXTURES / "models" / "renamer.pt")!r}, {str(FIXTURES / "blocks")!r}, config)
print(a.report["examples"], invar.train.TrainConfig.__name__, callable(invar.train))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "TrainConfig", "True"]


def test_loading_and_auditing_leave_the_callers_random_stream_and_threads_alone():
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    model = invar.load_model(FIXTURES / "models" / "renamer.pt")
    assert torch.equal(torch.rand(3), expected)
    torch.set_num_threads(2)
    try:
        invar.audit(model, FIXTURES / "blocks", variants=2, limit=2)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)


def test_predict_takes_any_iterable_of_programs_and_refuses_text():
    model = invar.load_model(FIXTURES / "models" / "renamer.pt")
    block = invar.parse(FIG1A, lang="x86")
    assert model.predict(iter([block, block])) == model.predict([block, block])
    with pytest.raises(TypeError, match="program 0 is a str, not a Program: parse it first"):
        model.predict([FIG1A])


def test_one_pinned_name_may_be_a_string_and_max_states_is_checked():
    block = invar.parse(FIG1A, lang="x86")
    assert invar.renamings(block, pins="rsp").count() == invar.renamings(block, pins=["%rsp"]).count() < 3360
    with pytest.raises(invar.SpaceError, match="max_states 0"):
        invar.permutations(block, max_states=0)
