"""The language: bad programs are located errors at the offending call; a
program goes to JSON and back unchanged; both MLP styles give rules."""

from __future__ import annotations

import textwrap

import pytest

from invar.alta import PROGRAMS, AltaError, AltaProgram, get_program, run

HEADER = """\
from invar.alta.lang import MLPBuilder, numerical, program, qkv, relative, set_var, var
"""

#: (id, program source, expected words); ``# <-`` marks the line the error must name
BAD_PROGRAMS = [
    (
        "unknown variable in qkv",
        """
        v = {"a": var(2)}
        h = {"o": qkv("nope", "a", "a")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "unknown variable 'nope'",
    ),
    (
        "unknown value variable in qkv",
        """
        v = {"a": var(2)}
        h = {"o": qkv("a", "a", "missing")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "unknown variable 'missing'",
    ),
    (
        "unknown variable in get",
        """
        v = {"a": var(2)}
        x = MLPBuilder(v, {})
        for b in x.get("b"):  # <-
            pass
    """,
        "unknown variable 'b'",
    ),
    (
        "unknown variable in set",
        """
        v = {"a": var(2)}
        x = MLPBuilder(v, {})
        x.set("b", 1)  # <-
    """,
        "unknown variable 'b'",
    ),
    (
        "unknown variable read by an mlp function",
        """
        v = {"a": var(2)}
        def f(z):
            z["a"] = z["zz"]  # <-
        program(v, {}, mlp=f, output="a", alphabet=("0",), max_layers=1)
    """,
        "unknown variable 'zz'",
    ),
    (
        "numerical key",
        """
        v = {"a": var(2), "n": numerical((0, 1))}
        h = {"o": qkv("a", "n", "a")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "key 'n' is numerical",
    ),
    (
        "set key",
        """
        v = {"a": var(2), "s": set_var(2, [(), (0,), (1,)])}
        h = {"o": qkv("a", "s", "a")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "key 's' is set",
    ),
    (
        "numerical query",
        """
        v = {"a": var(2), "n": numerical((0, 1))}
        h = {"o": qkv("n", "a", "a")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "query 'n' is numerical",
    ),
    (
        "set value",
        """
        v = {"a": var(2), "s": set_var(2, [(), (0,)])}
        h = {"o": qkv("a", "a", "s")}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "value 's' is a set",
    ),
    (
        "categorical value, numerical output",
        """
        v = {"a": var(2)}
        h = {"o": qkv("a", "a", "a", output=numerical((0, 1)))}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "value 'a' is categorical but the output is numerical",
    ),
    (
        "numerical value, categorical output",
        """
        v = {"a": var(2), "n": numerical((0, 1))}
        h = {"o": qkv("a", "a", "n", output=var(2))}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "value 'n' is numerical but the output is categorical",
    ),
    (
        "numerical output",
        """
        v = {"a": var(2), "n": numerical((0, 1))}  # <-
        program(v, {}, [], output="n", alphabet=("0",), max_layers=1)
    """,
        "must be categorical",
    ),
    (
        "set output",
        """
        v = {"a": var(2),
             "s": set_var(2, [(), (1,)])}  # <-
        program(v, {}, [], output="s", alphabet=("0",), max_layers=1)
    """,
        "must be categorical",
    ),
    (
        "builder sets a head output",
        """
        v = {"a": var(2)}
        h = {"o": relative("a", -1)}
        x = MLPBuilder(v, h)
        x.set("o", 1)  # <-
    """,
        "output of a head",
    ),
    (
        "mlp function sets a head output",
        """
        v = {"a": var(2)}
        h = {"o": relative("a", -1)}
        def f(z):
            z["o"] = 1  # <-
        program(v, h, mlp=f, output="a", alphabet=("0",), max_layers=1)
    """,
        "output of a head",
    ),
    (
        "two rules fire together",
        """
        v = {"a": var(2), "b": var(2), "c": var(3)}
        x = MLPBuilder(v, {})
        for a in x.get("a"):
            x.set("c", 1)
        for b in x.get("b"):
            x.set("c", 2)  # <-
        program(v, {}, x.rules, output="a", alphabet=("0",), max_layers=1)
    """,
        "two rules set 'c' together",
    ),
    (
        "two rules fire together on the same conditions",
        """
        v = {"a": var(2), "c": var(3)}
        x = MLPBuilder(v, {})
        for a in x.get("a"):
            x.set("c", 1)
            x.set("c", 2)  # <-
        program(v, {}, x.rules, output="a", alphabet=("0",), max_layers=1)
    """,
        "two rules set 'c' together",
    ),
    (
        "categorical value outside its range",
        """
        v = {"a": var(2, token=lambda t: 3)}  # <-
        program(v, {}, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "outside its range(2)",
    ),
    (
        "position value outside its range",
        """
        v = {"a": var(3, position=lambda i: i)}  # <-
        program(v, {}, [], output="a", alphabet=("0",), max_layers=1, max_length=5)
    """,
        "position 3",
    ),
    (
        "numerical value outside its buckets",
        """
        v = {"a": var(2), "n": numerical((0, 1), default=0.5)}  # <-
        program(v, {}, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "outside its buckets",
    ),
    (
        "set value outside its sets",
        """
        v = {"a": var(2), "s": set_var(3, [(), (1,)], token=lambda t: {2})}  # <-
        program(v, {}, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "outside its sets",
    ),
    (
        "builder sets a value outside the range",
        """
        v = {"a": var(2)}
        x = MLPBuilder(v, {})
        x.set("a", 2)  # <-
    """,
        "outside its range(2)",
    ),
    (
        "mlp function sets a value outside the range",
        """
        v = {"a": var(2)}
        def f(z):
            z["a"] = 5  # <-
        program(v, {}, mlp=f, output="a", alphabet=("0",), max_layers=1)
    """,
        "outside its range(2)",
    ),
    (
        "position initialisation without max_length",
        """
        v = {"a": var(2, position=lambda i: 0)}  # <-
        program(v, {}, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "needs max_length",
    ),
    (
        "mlp function over the bound",
        """
        v = {"a": var(100), "b": var(100), "c": var(100)}
        def f(z):  # <-
            z["a"] = 0
        program(v, {}, mlp=f, output="a", alphabet=("0",), max_layers=1)
    """,
        "1,000,000 assignments",
    ),
    (
        "halting on an unknown variable",
        """
        v = {"a": var(2)}
        program(v, {}, [], output="a", alphabet=("0",), halt=("zz", 1))  # <-
    """,
        "unknown variable 'zz'",
    ),
    (
        "no halting, no max_layers",
        """
        v = {"a": var(2)}
        program(v, {}, [], output="a", alphabet=("0",))  # <-
    """,
        "needs max_layers",
    ),
    (
        "head output narrower than its value",
        """
        v = {"a": var(3)}
        h = {"o": qkv("a", "a", "a", output=var(2))}  # <-
        program(v, h, [], output="a", alphabet=("0",), max_layers=1)
    """,
        "narrower",
    ),
]


def _run_source(tmp_path, body: str):
    source = HEADER + textwrap.dedent(body)
    path = tmp_path / "prog.py"
    path.write_text(source)
    expected_line = next(i for i, line in enumerate(source.splitlines(), 1) if "# <-" in line)
    return path, expected_line, compile(source, str(path), "exec")


@pytest.mark.parametrize("body,words", [c[1:] for c in BAD_PROGRAMS], ids=[c[0] for c in BAD_PROGRAMS])
def test_bad_program_is_a_located_error(tmp_path, body, words):
    path, line, code = _run_source(tmp_path, body)
    with pytest.raises(AltaError) as info:
        exec(code, {})
    err = info.value
    assert words in err.message
    assert (err.path, err.line) == (str(path), line), str(err)
    assert "# <-" in (err.source_line or "")
    assert str(err).startswith(f"{path}:{line}: error: ")
    assert "\n" not in err.message


def test_two_rules_firing_together_names_both(tmp_path):
    body = BAD_PROGRAMS[[c[0] for c in BAD_PROGRAMS].index("two rules fire together")][1]
    _, _, code = _run_source(tmp_path, body)
    with pytest.raises(AltaError) as info:
        exec(code, {})
    assert "c := 2 if b = 0 and c = 0" in info.value.message and "c := 1 if a = 0 and c = 0" in info.value.message


UNDEFINED = """
    v = {"x": var(2, token=lambda t: int(t == "1"))}
    h = {"left": relative("x", -1)}
    b = MLPBuilder(v, h)
    for left in b.get("left"):
        b.set("x", left)  # <-
    prog = program(v, h, b.rules, output="x", alphabet=("0", "1"), max_layers=3)
"""


def test_reading_an_undefined_head_output_names_input_layer_position_head(tmp_path):
    path, line, code = _run_source(tmp_path, UNDEFINED)
    scope: dict = {}
    exec(code, scope)
    prog = scope["prog"]
    with pytest.raises(AltaError) as info:
        run(prog, "1 1")  # position 0 has no left neighbour, and its x = 1 rule reads it
    msg = info.value.message
    assert "'1 1'" in msg and "layer 1" in msg and "position 0" in msg and "'left'" in msg
    assert (info.value.path, info.value.line) == (str(path), line)


def test_undefined_output_is_an_error_only_where_a_rule_depends_on_it(tmp_path):
    _, _, code = _run_source(tmp_path, UNDEFINED)
    scope: dict = {}
    exec(code, scope)
    # x = 0 at position 0: the rule x := 1 if left = 1 and x = 0 depends on left
    with pytest.raises(AltaError):
        run(scope["prog"], "0 1")
    # parity-relative's position 0 never reads its undefined left neighbour
    assert run(get_program("parity-relative"), "1 0 1").outputs == [0, 1, 1, 0]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_json_round_trip_is_identity_and_holds_no_code(name):
    prog = get_program(name)
    text = prog.to_json()
    again = AltaProgram.from_json(text)
    assert again == prog
    assert again.to_json() == text
    assert "lambda" not in text and "<function" not in text
    symbols = [s for s in prog.alphabet if s not in prog.prefix + prog.suffix]
    for n in (1, 2, 3):  # the same outputs, or the same refusal where the input is outside the domain
        text_in = " ".join(symbols[i % len(symbols)] for i in range(n))
        assert _outcome(again, text_in) == _outcome(prog, text_in)


def _outcome(prog, text_in):
    try:
        return run(prog, text_in).outputs
    except AltaError as err:
        return err.message


def test_rules_firing_together_at_run_time_are_named(tmp_path):
    """A program built without validation (by hand) can still hold two rules
    that fire together; the interpreter names both."""
    import dataclasses

    prog = get_program("parity-relative")
    first = next(r for r in prog.rules if r.variable == "done")
    twin = dataclasses.replace(first, antecedent=(("done", 0),), new=1)
    broken = dataclasses.replace(prog, rules=prog.rules + (twin,))
    with pytest.raises(AltaError) as info:
        run(broken, "1 1")
    msg = info.value.message
    assert "two rules set 'done'" in msg and first.text() in msg and twin.text() in msg
    assert "layer 1" in msg and "position 1" in msg  # the first position whose left neighbour is done


@pytest.mark.parametrize(
    "damage,words",
    [
        (lambda d: d["rules"][0].update(set="nope"), "unknown variable 'nope'"),
        (lambda d: d["variables"][0]["init"].update(table=[0, 7, 0]), "outside its range(2)"),
        (lambda d: d.update(halt=["parity_left", 5]), "halting on parity_left = 5"),
        (lambda d: d.update(output="ghost"), "unknown variable 'ghost'"),
        (lambda d: d["heads"][0].update(value="ghost"), "unknown variable 'ghost'"),
        (lambda d: d.pop("rules"), "not a program"),
    ],
)
def test_damaged_json_is_refused(damage, words):
    data = get_program("parity-relative").to_dict()
    damage(data)
    with pytest.raises(AltaError) as info:
        AltaProgram.from_dict(data)
    assert words in info.value.message


def test_mlp_function_and_builder_agree_on_parity():
    from invar.alta.lang import MLPBuilder, program, relative, var

    def build(style):
        v = {"parity": var(2, token=lambda t: int(t == "1")), "done": var(2, token=lambda t: int(t == "<s>"))}
        h = {"parity_left": relative("parity", -1), "done_left": relative("done", -1)}

        def f(z):
            if z["done"] != 1 and z["done_left"] == 1:
                z["parity"] = z["parity_left"] ^ z["parity"]
                z["done"] = 1

        rules = None
        if style == "builder":
            x = MLPBuilder(v, h)
            for done in x.get("done"):
                if done != 1:
                    for done_left in x.get("done_left"):
                        if done_left == 1:
                            x.set("done", 1)
                            for pl, p in x.get("parity_left", "parity"):
                                x.set("parity", pl ^ p)
            rules = x.rules
        return program(
            v,
            h,
            rules,
            mlp=f if style == "function" else None,
            output="parity",
            alphabet=("0", "1", "<s>"),
            prefix=("<s>",),
            halt=("done", 1),
        )

    fn, builder = build("function"), build("builder")
    assert len(fn.rules) > len(builder.rules)  # the function's rules test everything it read
    for s in ["1", "0 1", "1 1 0 1 1", "0 0 0"]:
        assert run(fn, s).outputs == run(builder, s).outputs
