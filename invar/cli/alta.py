"""``invar alta``: run ALTA programs, compile them to weights, check and describe compiled models."""

from __future__ import annotations

import contextlib
import difflib
import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UsageError
from .listing import plural
from .console import command, progress_bar, stdout
from .options import SCHEMA, TextFormat, TextFormatOpt


def _finite(lam: float) -> float:
    """λ as given, where it is a finite number above 0 (λ = inf would make the
    scores inf - inf, NaN, and the model wrong everywhere; λ = 0 attends
    uniformly, selecting nothing)."""
    if not math.isfinite(lam):
        raise UsageError(f"{lam}: give a finite number", path="--lambda")
    if lam <= 0:
        raise UsageError(
            f"{lam:g}: give a number above 0 (λ = 0 attends uniformly, selecting nothing)", path="--lambda"
        )
    return lam


def _load(prog: str, max_len: int | None):
    """The program PROG names (:func:`invar.alta.store.load_program`). A name
    that is neither a shipped program nor FILE.py:FUNCTION, a file named
    without its function, and a --max-len that the program takes none of,
    are usage errors (exit status 2); a FILE.py that is missing is bad input
    (1, at the file). All are said before the program is built (a file's
    --max-len once its file is loaded, before its function runs)."""
    from ..alta.programs import PROGRAMS
    from ..alta.store import load_program

    path, sep, function = prog.rpartition(":")
    file, function = (path, function) if sep else (prog, "")
    if prog not in PROGRAMS and not file.endswith(".py"):
        names = sorted(PROGRAMS)
        close = [n for n in names if n.startswith(prog)] or difflib.get_close_matches(prog, names, n=3)
        either = ", ".join(close[:-1]) + " or " + close[-1] if len(close) > 1 else "".join(close)
        hint = f"did you mean {either}? " if close and len(prog) > 1 else ""
        raise UsageError(
            f"unknown program {prog!r}: {hint}give a shipped name ({', '.join(names)}) or FILE.py:FUNCTION"
        )
    if prog not in PROGRAMS and not function and Path(file).is_file():  # prog.py, prog.py: (a missing one is said)
        raise UsageError(f"unknown program {prog!r}: name the function in it that builds the program: {file}:FUNCTION")
    try:
        return load_program(prog, max_length=max_len)
    except UsageError as err:  # the library's keyword, this command's option
        if err.path == "max_length":
            err.path = "--max-len"
        raise


alta_app = typer.Typer(
    name="alta",
    help=(
        "ALTA programs: run them symbolically, compile them to Transformer weights, check the two agree, find their "
        "minimal versions."
    ),
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ProgArg = Annotated[
    str,
    typer.Argument(
        help="A shipped program (parity-relative, parity-absolute, parity-sum-mod, …) "
        "or FILE.py:FUNCTION (that file runs).",
        metavar="PROG",
    ),
]
MaxLenOpt = Annotated[
    Optional[int],
    typer.Option("--max-len", min=1, help="The program's length bound (max_length), for programs that have one."),
]
MaxLayersOpt = Annotated[
    Optional[int],
    typer.Option("--max-layers", min=0, help="Stop after N layers; default: the program's halting or its max_layers."),
]


@alta_app.command("run")
@command
def run_command(
    prog: ProgArg,
    text: Annotated[
        str,
        typer.Option("--input", "-i", help="The input: symbols separated by spaces (the program adds its markers)."),
    ],
    trace: Annotated[
        bool,
        typer.Option("--trace", help="Show the stream at each layer: variables by position, changed values marked."),
    ] = False,
    max_len: MaxLenOpt = None,
    max_layers: MaxLayersOpt = None,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Run PROG in the interpreter on one input; print its output at every position.

    With --trace, a table per stage (the initial stream, then each layer's
    attention and MLP) lists every variable at every position; values a stage
    changed are marked with *, and the output variable's row with >.

    Example: invar alta run parity-relative --input "1 0 1 1" --trace
    """
    from ..alta.interpreter import run

    program = _load(prog, max_len)
    with _refusals(program, "--input"):
        result = run(program, text, max_layers=max_layers, trace=trace)
    if fmt is not TextFormat.text:
        record = {
            "schema": SCHEMA,
            "program": program.name,
            "tokens": result.tokens,
            "outputs": result.outputs,
            "shown": [program.label(o) for o in result.outputs],
            "layers": result.layers,
            "halted": result.halted,
        }
        if trace:
            record["trace"] = _trace_record(result.trace)
        print(json.dumps(record, indent=2 if fmt is TextFormat.json else None))
        return
    if trace:
        _print_trace(program, result)
    shown = [program.label(o) for o in result.outputs]
    width = max([len(x) for x in [*result.tokens, *shown]] + [1])
    stdout.print("input  " + " ".join(t.rjust(width) for t in result.tokens), markup=False)
    stdout.print("output " + " ".join(o.rjust(width) for o in shown), markup=False)
    stdout.print(f"{plural(result.layers, 'layer')}, {'halted' if result.halted else 'not halted'}", markup=False)


def _value(value) -> object:
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _show(value) -> str:
    if value is None:
        return "·"
    if isinstance(value, frozenset):
        return "{" + ",".join(map(str, sorted(value))) + "}"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _trace_record(trace) -> dict:
    states = lambda rows: [{k: _value(v) for k, v in row.items()} for row in rows]  # noqa: E731
    return {
        "initial": states(trace.initial),
        "layers": [{"attention": states(L.attention), "mlp": states(L.mlp), "rules": L.rules} for L in trace.layers],
    }


def _print_trace(program, result) -> None:
    from rich.table import Table

    stages = [("initial", result.trace.initial, None)]
    previous = result.trace.initial
    for k, layer in enumerate(result.trace.layers, 1):
        stages.append((f"layer {k}: attention", layer.attention, previous))
        stages.append((f"layer {k}: MLP", layer.mlp, layer.attention))
        previous = layer.mlp
    for title, states, before in stages:
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        table.add_column("")
        for token in result.tokens:
            table.add_column(token, justify="right")
        for v in program.variables:
            cells = []
            for pos, state in enumerate(states):
                changed = before is not None and before[pos][v.name] != state[v.name]
                cells.append(_show(state[v.name]) + ("*" if changed else ""))
            table.add_row((">" if v.name == program.output else " ") + v.name, *cells)
        stdout.print(table)


@alta_app.command("compile")
@command
def compile_command(
    prog: ProgArg,
    out: Annotated[str, typer.Option("--out", "-o", help="The checkpoint to write (.pt).")],
    max_len: MaxLenOpt = None,
    lam: Annotated[
        float, typer.Option("--lambda", min=0.0, help="λ: how sharply attention selects (scores λ against 0).")
    ] = 100.0,
) -> None:
    """Compile PROG to Transformer weights and write them as an invar checkpoint.

    The checkpoint holds the weights, λ and the program as JSON (no code); it
    loads with torch.load(weights_only=True). invar alta check compares it
    with the interpreter.

    Example: invar alta compile parity-absolute --max-len 12 -o parity.pt
    """
    lam = _finite(lam)
    from ..alta.compiler import compile_program
    from ..alta.store import save_compiled
    from .outputs import destination

    destination(out, "--out")
    model = compile_program(_load(prog, max_len), lam=lam)
    save_compiled(out, model)
    stdout.print(_summary(model, out), markup=False)


def _summary(model, where: str) -> str:
    p = model.program
    params = sum(t.numel() for t in model.state_dict().values() if t.is_floating_point())
    return (
        f"{where}: {p.name}, width {model.layout.width}, {len(p.heads)} heads, {len(p.rules)} rules "
        f"(MLP {model.expand1.out_features}-{model.expand2.out_features}-{model.rules.out_features}), "
        f"λ {model.lam:g}, {params:,} weights"
    )


@alta_app.command("check")
@command
def check_command(
    target: Annotated[
        str,
        typer.Argument(
            help="A compiled model (.pt from invar alta compile) or PROG, compiled here.", metavar="PROG|MODEL"
        ),
    ],
    max_length: Annotated[int, typer.Option("--max-length", min=0, help="Check every input of up to N symbols.")],
    min_length: Annotated[int, typer.Option("--min-length", min=0, help="The shortest inputs checked.")] = 1,
    max_len: MaxLenOpt = None,
    lam: Annotated[float, typer.Option("--lambda", min=0.0, help="λ when PROG is compiled here.")] = 100.0,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Inputs per batch.")] = 256,
) -> None:
    """Compare a compiled model with the interpreter on every input up to a length.

    Every input of --min-length to --max-length symbols (markers aside) runs
    through the compiled model in batches and through the interpreter; their
    streams are compared at every layer, position and variable. The first
    disagreement is printed (input, layer, position, variable, both values)
    and the exit status is 1. Inputs the interpreter refuses (outside the
    program's domain, such as a repeated symbol for sort) are counted apart;
    when it refuses them all, the exit status is 1.

    Example: invar alta check parity-sum-mod --max-length 8
    """
    lam = _finite(lam)
    from ..alta.check import all_inputs, first_disagreement

    if min_length > max_length:
        raise UsageError(f"--min-length {min_length} is above --max-length {max_length}", path="--min-length")
    model = _model(target, max_len, lam)
    p = model.program
    positional = any(v.init.kind == "position" for v in p.variables)
    room = (p.max_length or 0) - len(p.prefix) - len(p.suffix)
    if positional and max_length > room:
        raise UsageError(f"--max-length {max_length}: {p.name} has positions for {room} symbols", path="--max-length")
    markers = set(p.prefix) | set(p.suffix)
    symbols = [s for s in p.alphabet if s not in markers]
    total = sum(len(symbols) ** n for n in range(min_length, max_length + 1))
    with progress_bar("inputs") as update:  # on a terminal: the count grows as |alphabet| ** length
        inputs = all_inputs(symbols, max_length, min_length)
        checked = first_disagreement(model, _counted(inputs, total, update), batch_size=batch_size)
    if checked.disagreement is not None:
        stdout.print(
            f"disagreement after {plural(checked.compared, 'input')}: {checked.disagreement.text()}", markup=False
        )
        raise typer.Exit(1)
    if checked.compared:
        stdout.print(
            f"{plural(checked.compared, 'input')} of {min_length} to {max_length} symbols: the compiled model "
            f"(λ {model.lam:g}) agrees with the interpreter at every layer, position and variable",
            markup=False,
        )
    if checked.refused:
        stdout.print(
            f"{plural(checked.refused, 'input')} outside the program's domain, not compared (the interpreter "
            f"refused them; the first: {checked.first_refusal.message})",
            markup=False,
        )
    if not checked.compared:
        raise typer.Exit(1)


def _counted(items, total: int, update, every: int = 4096):
    """``items``, reporting how many have been taken to ``update(done, total)`` (if any)."""
    done = 0
    for done, item in enumerate(items, start=1):
        if update is not None and done % every == 0:
            update(done, total)
        yield item
    if update is not None:
        update(done, total)


def _model(target: str, max_len: int | None, lam: float):
    from ..alta.compiler import compile_program
    from ..alta.store import load_compiled

    if target.endswith(".pt") or (Path(target).is_file() and not target.endswith(".py")):
        if max_len is not None:
            raise UsageError("--max-len applies to a program, not to a compiled model", path="--max-len")
        return load_compiled(target)
    return compile_program(_load(target, max_len), lam=lam)


@alta_app.command("info")
@command
def info_command(
    model_path: Annotated[str, typer.Argument(help="A compiled model (invar alta compile --out).", metavar="MODEL")],
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Describe a compiled model: its program, sizes and λ.

    Example: invar alta info parity.pt
    """
    from ..alta.programs import PROGRAMS
    from ..alta.store import load_compiled

    if model_path in PROGRAMS and not Path(model_path).exists():
        raise UsageError(
            f"{model_path!r} is a shipped program, not a compiled model: compile it first "
            f"(invar alta compile {model_path} -o FILE.pt) or run it (invar alta run {model_path} -i INPUT)"
        )
    model = load_compiled(model_path)
    p = model.program
    info = {
        "program": p.name,
        "alphabet": list(p.alphabet),
        "prefix": list(p.prefix),
        "suffix": list(p.suffix),
        "variables": {
            v.name: v.kind + (f"({v.size})" if v.kind != "numerical" else f"[{len(v.buckets)}]") for v in p.variables
        },
        "heads": [h.output for h in p.heads],
        "rules": len(p.rules),
        "output": p.output,
        "halt": list(p.halt) if p.halt else None,
        "max_length": p.max_length,
        "max_layers": p.max_layers,
        "lambda": model.lam,
        "width": model.layout.width,
    }
    if fmt is not TextFormat.text:
        print(json.dumps({"schema": SCHEMA, **info}, indent=2 if fmt is TextFormat.json else None))
        return
    stdout.print(_summary(model, model_path), markup=False)
    for key, value in info.items():
        shown = ", ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, dict) else value
        stdout.print(f"  {key}: {shown}", markup=False)


@alta_app.command("minimal")
@command
def minimal_command(
    prog: ProgArg,
    train: Annotated[
        str,
        typer.Option(
            "--train",
            help=(
                "Inputs the minimal version is made from: one per line, symbols separated by spaces (text after a "
                "tab is ignored)."
            ),
        ),
    ],
    test: Annotated[
        Optional[str],
        typer.Option("--test", help="Inputs on which the minimal version is compared with the whole program."),
    ] = None,
    max_len: MaxLenOpt = None,
    lam: Annotated[float, typer.Option("--lambda", min=0.0, help="λ of the compiled minimal version.")] = 100.0,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """The minimal version of PROG on the --train inputs, and where it agrees with PROG on --test.

    The minimal version keeps only the rules the interpreter satisfied on the
    training inputs (the paper's count), with the null resets its compiled
    model needs to clear undefined head outputs, and starts every token and position they never read at
    its variable's default (the ALTA paper, section 4.1 and appendix C.2).
    On each --test input its compiled model is compared with the whole
    program's interpreter: the stream after every MLP, and the outputs alone.

    Example: invar alta minimal parity-sum-mod --train fixtures/alta/bits-short.txt --test fixtures/alta/bits-long.txt
    """
    lam = _finite(lam)
    from ..alta.analysis import coverage, minimal_of

    program = _load(prog, max_len)
    inputs = _lines(train, program, numbered=True)
    with _refusals(program, train, inputs):
        used = coverage(program, [text for _, _, text in inputs])
    reduced = minimal_of(program, used)
    record = {
        "schema": SCHEMA,
        "program": program.name,
        "train": used.inputs,
        "rules": _rule_counts(program),
        "minimal_rules": _rule_counts(reduced),
        "satisfied_rules": len(used.rules),
        "mixture_resets": len(used.mixtures),
        "tokens_seen": len(used.tokens),
        "positions_seen": len(used.positions),
    }
    if test is not None:
        record.update(_agreement(program, reduced, test, lam))
    if fmt is not TextFormat.text:
        print(json.dumps(record, indent=2 if fmt is TextFormat.json else None))
        return
    stdout.print(
        f"{program.name}: {_shown_rules(record['rules'])}; on {used.inputs:,} training inputs the minimal "
        f"version keeps {_shown_rules(record['minimal_rules'])}: {record['satisfied_rules']:,} the "
        f"interpreter satisfied (the paper's count), {record['mixture_resets']:,} that clear compiled "
        "mixtures",
        markup=False,
    )
    if test is not None:
        stdout.print(
            f"on {record['test']:,} test inputs: streams agree on {record['streams_agree']:,}, outputs on "
            f"{record['outputs_agree']:,}",
            markup=False,
        )
        if record["first_disagreement"] is not None:
            d = record["first_disagreement"]
            stdout.print(f"first disagreement: {d['input']}: {d['why']}", markup=False)


def _agreement(program, reduced, test: str, lam: float) -> dict:
    """How far the compiled ``reduced`` agrees with ``program`` on the inputs of the file ``test``."""
    from ..alta.analysis import agreement

    inputs = _lines(test, program, numbered=True)
    with _refusals(program, test, inputs):
        results = agreement(program, reduced, [text for _, _, text in inputs], lam=lam)
    wrong = [r for r in results if not r.agrees]
    return {
        "test": len(results),
        "streams_agree": len(results) - len(wrong),
        "outputs_agree": sum(r.outputs_agree for r in results),
        "first_disagreement": None if not wrong else {"input": wrong[0].input, "why": wrong[0].why},
    }


@contextlib.contextmanager
def _refusals(program, where: str, numbered: list[tuple[int, str, str]] = ()):
    """An input the interpreter refuses (a symbol past the positions it has
    values for, a head output left undefined: outside the program's domain)
    is the input's error, located at ``where`` (``--input``, or the line of
    ``numbered``, a file's (line, raw line, input), that the interpreter
    refuses first), not at the program's rule; the rule's place stays in the
    message, for whoever wrote the program."""
    from ..alta.interpreter import run
    from ..alta.spec import AltaError
    from ..errors import InvarError

    try:
        yield
    except AltaError as err:
        line, raw = 0, None
        for number, source, text in numbered:  # which input it was: the error path only
            try:
                run(program, text)
            except AltaError:
                line, raw = number, source
                break
        else:
            if numbered:  # no input is refused alone: not an input's error
                raise
        rule = f" (the rule at {err.where})" if err.path is not None else ""
        raise InvarError(
            f"outside {program.name}'s domain: {err.message}{rule}",
            path=where,
            line=line,
            col=1 if line else 0,
            source_line=raw,
        ) from err


def _lines(path: str, program=None, *, numbered: bool = False) -> list:
    """The inputs of a file: every non-blank line, up to a tab; with
    ``program``, a symbol outside its alphabet is an error at its line and
    column (binary or undecodable text too, as every command reads files).
    ``numbered``: each as (line number, raw line, input)."""
    from ..errors import InvarError
    from .console import read_text

    text = read_text(path)
    inputs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("\t", 1)[0]
        if not line.strip():
            continue
        foreign = [s for s in line.split() if program is not None and s not in program.alphabet]
        if foreign:
            raise InvarError(
                f"symbol {foreign[0]!r} is not in {program.name}'s alphabet {list(program.alphabet)}",
                path=path,
                line=number,
                col=line.index(foreign[0]) + 1,
                source_line=raw,
            )
        inputs.append((number, raw, line.strip()) if numbered else line.strip())
    if not inputs:
        raise InvarError("no inputs", path=path, line=1, col=1)
    return inputs


def _rule_counts(program) -> dict:
    nulls = sum(r.null for r in program.rules)
    return {"rules": len(program.rules) - nulls, "null_resets": nulls}


def _shown_rules(counts: dict) -> str:
    return f"{counts['rules']:,} rules (+ {counts['null_resets']:,} null resets)"
