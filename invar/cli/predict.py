"""``invar predict``: a trained model's predictions for the programs of a file."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from .console import command, report, stdout
from .options import SCHEMA, Device, LangOpt, TextFormat, TextFormatOpt


@command
def predict_command(
    model: Annotated[str, typer.Option("--model", "-m", help="An invar checkpoint (invar train --out, or invar alta compile -o).")],
    file: Annotated[str, typer.Argument(help="Programs: any file invar reads, or the task's own dataset file (ltl: a file from invar data ltl; copy: strings, one per line; alta: inputs, one per line).", metavar="FILE")],
    lang: LangOpt = None,
    beam: Annotated[Optional[int], typer.Option("--beam", min=1, help="Sequence tasks: beam width (1: greedy); default: the model's (3).")] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Programs per batch.")] = 64,
    device: Annotated[Device, typer.Option("--device", help="Where the model runs.")] = Device.cpu,
    fmt: TextFormatOpt = TextFormat.text,
) -> None:
    """Predict with a trained or compiled model: one line per program of FILE.

    For sequence tasks each line is the source and the written output,
    separated by a tab (ltl: a formula and its trace, a pair line that invar
    ltl check --file reads; alta: an input and the compiled program's output
    at each of its positions); otherwise the program's location and the
    prediction. A program the model cannot take (longer than its max_len,
    in a language it was not trained on, or naming an AP outside a vanilla
    model's vocabulary) is reported at its location and the others are still
    predicted; the exit status is then 1. A dataset invar data wrote for
    another task (a split file of it) is refused as a whole.

    Example: invar predict --model ltl-dualpart.pt fixtures/ltl/fj.txt
    """
    import torch

    from ..checkpoint import load_model
    from ..errors import InvarError, UsageError
    from ..tasks import get_task

    torch.set_num_threads(1)
    if device is Device.cuda and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available", path="--device")
    m = load_model(model, device=device.value)
    task = get_task(m.task) if getattr(m, "reads_text", False) else m._task
    if file != "-":  # a dataset invar data wrote for another task: one message, not one per program
        from ..data import manifest

        manifest.check(file, task, m.languages)
    good, bad = _admitted(m, _units(file, lang, task))
    records = []
    for (where, source, _), pred in zip(good, _predictions(m, good, batch_size, beam, device.value)):
        if isinstance(pred, InvarError):  # this program's output alone could not be made (a canonicalized
            report(pred.located(where[0]).at(where[1], 1))  # model's name it cannot map back)
            bad += 1
            continue
        records.append({"location": f"{where[0]}:{where[1]}", "source": source, "prediction": pred})
    _print(records, bad, fmt)
    if bad:
        raise typer.Exit(1)


def _admitted(m, units: list) -> tuple[list, int]:
    """((path, line), shown source, program) of the programs ``m`` can take;
    each one it cannot is reported at its location, and counted."""
    from ..errors import InvarError, ModelError

    bad, good = 0, []
    for where, program in units:
        try:
            if isinstance(program, InvarError):
                raise program
            if getattr(m, "reads_text", False):
                m.check(program)
                source = program.render()
            else:
                if not m.fits(program):
                    raise ModelError(f"{len(program.tokens)} tokens; this model takes 1 to {m.max_len}")
                m.check_supported(program, "the program")
                source = program.lines[0].text if m.config.generates else f"{where[0]}:{where[1]}"
            good.append((where, source, program))
        except InvarError as err:
            err.located(where[0])
            report(err if err.line else err.at(where[1], 1))
            bad += 1
    return good, bad


def _predictions(m, good: list, batch_size: int, beam: int | None, device: str) -> list:
    if not good:
        return []
    if getattr(m, "reads_text", False):  # a compiled program reads the texts themselves
        return m.predict([p for _, _, p in good], batch_size=batch_size)
    return m.predict_encoded([m.encode(p) for _, _, p in good], batch_size=batch_size, beam=beam, device=device)


def _print(records: list[dict], bad: int, fmt: TextFormat) -> None:
    if fmt is TextFormat.text:
        for r in records:
            pred = r["prediction"]
            shown = f"{pred:.4f}" if isinstance(pred, float) else pred  # JSON keeps every digit
            typer.echo(f"{r['source']}\t{shown}")  # a real tab (the console would expand it)
    elif fmt is TextFormat.jsonl:
        for r in records:
            stdout.print(json.dumps({"schema": SCHEMA, **r}), markup=False, highlight=False)
    else:
        stdout.print(json.dumps({"schema": SCHEMA, "predictions": records, "refused": bad}, indent=2),
                     markup=False, highlight=False)


def _units(file: str, lang: str | None, task) -> list:
    """((path, line), program) for every program of ``file``: the task's own
    dataset format when it reads the file (a split file of a dataset
    directory is read as that split; a malformed row comes as its located
    error in place of the program), otherwise the frontends'."""
    from ..errors import InvarError

    from ..data import manifest

    shown = "<stdin>" if file == "-" else file
    if file != "-" and lang is None and task.dataset is not None:
        own = task.dataset(*(manifest.split_file(file) or (file, "test")))
        if own is not None:
            out = []
            for ex in own:  # a malformed row or pair is reported at its line; the others are predicted
                try:
                    if ex.error is not None:
                        raise ex.error
                    out.append(((shown, ex.line), task.parse(ex.source)))
                except InvarError as err:
                    out.append(((shown, ex.line), err if err.line else err.at(ex.line, err.col or 1)))
            return out
    from ..frontends import lang_of
    from .console import select_units

    hex_rows = lang_of(None if file == "-" else file, lang) == "hex"
    return [((shown, _first_line(p, hex_rows)), p) for p in select_units(file, lang)]


def _first_line(program, hex_rows: bool) -> int:
    """The line of ``file`` where ``program`` starts: a hex block's row (its
    unit is named ``lineN``), otherwise its first line's source line."""
    if hex_rows and program.name.startswith("line") and program.name[4:].isdigit():
        return int(program.name[4:])
    return program.lines[0].source_line if program.lines else 0
