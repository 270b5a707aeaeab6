"""Compiled models as invar checkpoints, and programs named by file and function."""

from __future__ import annotations

import pytest
import torch

from invar.alta import AltaError, compile, get_program
from invar.alta.check import all_inputs
from invar.alta.store import load_compiled, load_program, save_compiled
from invar.checkpoint import load, save
from invar.errors import ModelError, UsageError


@pytest.mark.parametrize("name", ["parity-absolute", "palindrome", "sort"])
def test_checkpoint_round_trip_gives_the_same_model(tmp_path, name):
    model = compile(get_program(name), lam=80.0)
    path = tmp_path / "m.pt"
    save_compiled(path, model)
    raw = torch.load(path, weights_only=True)  # plain data and tensors only
    assert raw["arch"] == "alta" and isinstance(raw["program"], str)
    again = load_compiled(path)
    assert again.program == model.program and again.lam == 80.0
    for key, value in model.state_dict().items():
        assert torch.equal(again.state_dict()[key], value)
    symbols = [s for s in model.program.alphabet if s not in model.program.prefix + model.program.suffix]
    inputs = [s for s in all_inputs(symbols[:3], 3, 1) if name != "sort" or len(set(s)) == len(s)]
    ids, valid, _ = model.batch(inputs)
    with torch.no_grad():
        assert torch.equal(model(ids, valid)[0], again(ids, valid)[0])


def test_stored_weights_are_the_ones_run(tmp_path):
    model = compile(get_program("parity-relative"))
    with torch.no_grad():
        model.rules.bias.zero_()  # every rule unit fires on any one condition: a different model
    path = tmp_path / "m.pt"
    save_compiled(path, model)
    again = load_compiled(path)
    assert torch.equal(again.rules.bias, torch.zeros_like(again.rules.bias))


def _sized(program: str, size: int) -> str:
    """``program`` (JSON) with its first categorical variable of ``size`` values: a file that would
    make the compiler allocate that many, were its sizes not checked against its weights first."""
    import json

    data = json.loads(program)
    next(v for v in data["variables"] if v["name"] == "done_left")["size"] = size  # a size its rules allow
    return json.dumps(data)


@pytest.mark.parametrize(
    "damage,words",
    [
        (lambda d: d.update(program="{"), "inconsistent checkpoint: not a program"),
        (
            lambda d: d.update(program=d["program"].replace('"output": "parity"', '"output": "ghost"')),
            "unknown variable 'ghost'",
        ),
        (lambda d: d["state_dict"].pop("rules.weight"), "weights do not fit"),
        (lambda d: d["state_dict"].update({"rules.weight": torch.zeros(3, 3)}), "weights do not fit"),
        (lambda d: d.pop("arch"), "not a compiled ALTA model"),
        (lambda d: d["config"].pop("lam"), "inconsistent checkpoint"),
        (lambda d: d.update(program=_sized(d["program"], 10**9)), "size 1000000000, but the largest dimension"),
    ],
)
def test_damaged_checkpoints_are_refused(tmp_path, damage, words):
    path = tmp_path / "m.pt"
    save_compiled(path, compile(get_program("parity-relative")))
    data = load(path)
    damage(data)
    save(path, {k: v for k, v in data.items() if k not in ("format", "version")})
    with pytest.raises(ModelError) as info:
        load_compiled(path)
    assert words in info.value.message and info.value.path == str(path)


USER = """\
from invar.alta import get_program


def parity(max_length=8):
    return get_program("parity-absolute", max_length=max_length)


def not_a_program():
    return 42


def fails():
    return 1 / 0
"""


def test_program_from_a_named_file(tmp_path):
    source = tmp_path / "user.py"
    source.write_text(USER)
    assert load_program(f"{source}:parity").max_length == 8
    assert load_program(f"{source}:parity", max_length=5).max_length == 5
    assert load_program("parity-sum-mod", max_length=3).variable("inv_ones").buckets[0] == 0.25


@pytest.mark.parametrize(
    "spec,words",
    [
        ("{dir}/user.py:not_a_program", "returned int, not an AltaProgram"),
        ("{dir}/user.py:absent", "no function 'absent'"),
        ("{dir}/none.py:f", "no such file"),
        # a missing file is said first, with or without a function; then a file without its function
        ("{dir}/none.py", "no such file"),
        ("{dir}/none.py:", "no such file"),
        ("{dir}/user.py", "name the function in it that builds the program: {dir}/user.py:FUNCTION"),
        ("{dir}/user.py:", "name the function in it that builds the program: {dir}/user.py:FUNCTION"),
        ("{dir}/user.txt:f", "unknown program"),
        ("reverse-all", "unknown program 'reverse-all'"),
    ],
)
def test_bad_program_names(tmp_path, spec, words):
    (tmp_path / "user.py").write_text(USER)
    with pytest.raises(AltaError) as info:
        load_program(spec.format(dir=tmp_path))
    assert words.format(dir=tmp_path) in info.value.message


@pytest.mark.parametrize("spec", ["{dir}/user.py:not_a_program", "sort"])
def test_a_max_length_the_program_takes_none_of_is_a_usage_error_at_that_keyword(tmp_path, spec):
    """A shipped program and a function of a file alike (the file's was an unlocated AltaError)."""
    (tmp_path / "user.py").write_text(USER)
    spec = spec.format(dir=tmp_path)
    with pytest.raises(UsageError) as info:
        load_program(spec, max_length=3)
    assert (
        info.value.path == "max_length"
        and info.value.message == f"{spec} takes no max_length (it has no length bound to set)"
    )


def test_a_failing_named_function_is_located(tmp_path):
    source = tmp_path / "user.py"
    source.write_text(USER)
    with pytest.raises(AltaError) as info:
        load_program(f"{source}:fails")
    assert "ZeroDivisionError" in info.value.message
    assert (info.value.path, info.value.line) == (str(source), USER.splitlines().index("    return 1 / 0") + 1)


def test_a_file_failing_as_it_loads_is_located(tmp_path):
    source = tmp_path / "boom.py"
    source.write_text("x = 1\nraise RuntimeError('no')\n")
    with pytest.raises(AltaError) as info:
        load_program(f"{source}:f")
    assert (info.value.path, info.value.line) == (str(source), 2) and "RuntimeError: no" in info.value.message


def test_syntax_error_in_a_named_file_is_located(tmp_path):
    source = tmp_path / "bad.py"
    source.write_text("def f():\n    return (\n")
    with pytest.raises(AltaError) as info:
        load_program(f"{source}:f")
    assert info.value.path == str(source) and info.value.line >= 2
