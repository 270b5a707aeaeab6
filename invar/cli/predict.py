"""``invar predict``: a trained model's predictions for the programs of a file."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .console import command, error_record, report, skipped_records, stdout
from .options import SCHEMA, Device, LangOpt, TextFormat, TextFormatOpt

#: --window's default: positions in the curve's moving average
WINDOW = 100

#: --beam's help: the models' own widths
BEAM_HELP = (
    "Models that write sequences (ltl, copy): beam width (1: greedy); default: the model's own "
    "(ltl 3, copy 1; older copy: 3); refused for other models."
)


@command
def predict_command(
    model: Annotated[
        str, typer.Option("--model", "-m", help="An invar checkpoint (invar train --out, or invar alta compile -o).")
    ],
    file: Annotated[
        str,
        typer.Argument(
            help=(
                "Programs: any file invar reads, or the task's own dataset file (ltl: a file from invar data ltl; "
                "copy: strings, one per line; alta: inputs, one per line; lm: a split file of invar data lm, or a "
                "source file cut into the model's windows)."
            ),
            metavar="FILE",
        ),
    ],
    lang: LangOpt = None,
    beam: Annotated[Optional[int], typer.Option("--beam", min=1, help=BEAM_HELP)] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Programs per batch.")] = 64,
    device: Annotated[Device, typer.Option("--device", help="Where the model runs.")] = Device.cpu,
    per_position: Annotated[
        bool, typer.Option("--per-position", help="lm: each sequence's loss at every position too.")
    ] = False,
    curve: Annotated[
        Optional[str],
        typer.Option(
            "--curve",
            help=(
                "lm: write the loss by context position, averaged over the sequences and smoothed over --window "
                "positions, to this JSON file."
            ),
        ),
    ] = None,
    window: Annotated[
        int, typer.Option("--window", min=1, help="lm: the moving-average window of --curve, in positions.")
    ] = WINDOW,
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

    A language model (--task lm) gives each sequence's loss (mean
    next-token cross-entropy, nats): of each window of a split file of invar
    data lm, or of a source file cut as invar data lm cuts it; with
    --per-position, the loss at every position; with --curve, the paper's
    curve (loss and perplexity by context length, a moving average over
    --window positions within each sequence, averaged over the sequences).

    Example: invar predict --model fixtures/models/renamer.pt fixtures/x86/figure1a.s
    """
    import torch

    from ..checkpoint import load_model
    from ..tasks import get_task

    torch.set_num_threads(1)
    _check_destinations(curve, window, device)
    m = load_model(model, device=device.value)
    task = get_task(m.task) if getattr(m, "reads_text", False) else m._task
    lm = _check_request(m, file, task, per_position, curve, beam)
    good, errors = _admitted(m, _lm_units(file, lang, m) if lm else _units(file, lang, task))
    if lm:
        records = _lm_records(m, good, batch_size, device.value, per_position, curve, window)
    else:
        records, failed = _task_records(m, good, batch_size, beam, device.value)
        errors += failed
    _print(records, skipped_records() + [error_record(e) for e in errors], fmt)
    if errors:
        raise typer.Exit(1)


def _check_file(file: str) -> None:
    """Refuse a directory that is no dataset of the model's task: predict
    reads one file (its extension, or --lang, says the language), and names
    a file of the directory to read instead when it holds a split (test.csv …)."""
    from ..errors import InvarError

    if file == "-" or not Path(file).is_dir():
        return
    order = ("test", "valid", "train")
    splits = sorted(
        (p for p in Path(file).iterdir() if p.stem in order and p.is_file()), key=lambda p: order.index(p.stem)
    )
    example = f" (e.g. {splits[0]})" if splits else ""
    raise InvarError(f"is a directory: predict reads one file{example}", path=file)


def _check_destinations(curve: str | None, window: int, device: Device) -> None:
    """Refuse, before any work, a --curve file that cannot be written, a
    --window without it (it smooths the curve alone) and a CUDA device that
    is not there."""
    import torch

    from ..errors import UsageError

    if window != WINDOW and curve is None:
        raise UsageError("--window is the moving average of --curve; give --curve too", path="--window")
    if curve is not None:
        from .outputs import destination

        destination(curve, "--curve")
    if device is Device.cuda and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available", path="--device")


def _check_request(m, file: str, task, per_position: bool, curve: str | None, beam: int | None) -> bool:
    """Whether ``m`` is a language model, after refusing a dataset invar data
    wrote for another task (one message, not one per program), the
    language model's options asked of another model and a beam width asked
    of a model that writes no sequences."""
    from ..errors import UsageError

    if file != "-":
        from ..data import manifest

        manifest.check(file, task, m.languages)
    lm = getattr(m, "task", None) == "lm"
    if not lm and (per_position or curve is not None):
        raise UsageError(
            f"--per-position and --curve are for a language model (lm), not a {m.task} model",
            path="--per-position" if per_position else "--curve",
        )
    if beam is not None and not getattr(m, "decodes", False):
        raise UsageError(
            f"--beam is for a model that writes sequences (ltl, copy), not this one (task {m.task})", path="--beam"
        )
    return lm


def _task_records(m, good: list, batch_size: int, beam: int | None, device: str) -> tuple[list[dict], list]:
    """The records of a task model's predictions of ``good``, and the errors
    of the programs that had no output (each reported at its location)."""
    from ..errors import InvarError, ModelError

    records, bad = [], []
    for (where, source, _), pred in zip(good, _predictions(m, good, batch_size, beam, device)):
        if not isinstance(pred, InvarError) and not _finite(pred):
            pred = ModelError(f"the model returned {pred!r}, not a number")
        if isinstance(pred, InvarError):  # this program's output alone could not be made (a canonicalized
            report(pred.located(where[0]).at(where[1], 1))  # model's name it cannot map back, or not a number)
            bad.append(pred)
            continue
        records.append({"location": f"{where[0]}:{where[1]}", "source": source, "prediction": pred})
    return records, bad


def _finite(pred: Any) -> bool:
    """Whether a prediction holds no NaN or infinity (a number, or numbers in lists; other values are)."""
    if isinstance(pred, float):
        return math.isfinite(pred)
    if isinstance(pred, (list, tuple)):
        return all(_finite(x) for x in pred)
    return True


def _admitted(m, units: list) -> tuple[list, list]:
    """((path, line), shown source, program) of the programs ``m`` can take,
    and the errors of those it cannot (each reported at its location)."""
    from ..errors import InvarError, ModelError

    bad, good = [], []
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
            bad.append(err)
    return good, bad


def _predictions(m, good: list, batch_size: int, beam: int | None, device: str) -> list:
    if not good:
        return []
    if getattr(m, "reads_text", False):  # a compiled program reads the texts themselves
        return m.predict([p for _, _, p in good], batch_size=batch_size)
    return m.predict_encoded([m.encode(p) for _, _, p in good], batch_size=batch_size, beam=beam, device=device)


def _lm_units(file: str, lang: str | None, m) -> list:
    """((path, line), window) of every window of ``file`` for a language
    model: a split file of invar data lm, or a source file cut into the
    model's windows (its vocabulary, its longest sequence)."""
    from ..tasks import lm

    from ..data import manifest

    split = manifest.split_file(file) if file != "-" else None
    if split is not None or (file != "-" and lang is None and Path(file).is_dir()):
        units = _units(file, lang, m._task)
        if not units:  # a split with no row, as a source file with no program
            from ..errors import NoUnitError

            raise NoUnitError("no program found in input", path=file, line=1, col=1)
        return units
    from ..frontends import lang_of
    from .console import located, read_text

    shown = "<stdin>" if file == "-" else file
    vocab = "char" if lm.LANG in m.languages else "tokens"
    language = lang_of(None if file == "-" else file, lang) if vocab == "tokens" else lang
    text = read_text(file, language)
    windows = located(shown, lm.file_windows, text, language, vocab, m.config.max_len, shown)
    scored = [((shown, w.lines[0].source_line), w) for w in windows if len(w.tokens) > 1]
    if not scored:  # a window of one token has nothing to predict
        from ..errors import NoUnitError

        raise NoUnitError(
            "no window of two tokens or more: a language model predicts each token from those before it",
            path=shown,
            line=1,
            col=1,
        )
    return scored


def _lm_records(
    m, good: list, batch_size: int, device: str, per_position: bool, curve: str | None, window: int
) -> list[dict]:
    """Each window's loss (and its position losses); the curve written to ``curve``."""
    from ..nn.lm import position_losses
    from ..tasks.lm import curve as curve_of

    losses = position_losses(
        m.network.to(device), [m.encode(p) for _, _, p in good], batch_size=batch_size, device=device
    )
    if curve is not None:
        from ..files import write_atomic

        from .outputs import make_folders

        data = json.dumps({"schema": SCHEMA, "model": m.config.arch, **curve_of(losses, window)})
        make_folders(curve)
        write_atomic(curve, lambda f: f.write(data.encode("utf-8")))
    return [
        {
            "location": f"{where[0]}:{where[1]}",
            "source": f"{where[0]}:{where[1]}",
            "prediction": float(x.mean()),
            **({"positions": x.tolist()} if per_position else {}),
        }
        for (where, _, _), x in zip(good, losses)
    ]


def _print(records: list[dict], errors: list[dict], fmt: TextFormat) -> None:
    """The predictions as ``fmt`` asks; in JSON, each program without one
    as its location and error too (text reports those on stderr)."""
    from ..audit.render import words

    if fmt is TextFormat.text:
        for r in records:
            pred = r["prediction"]
            # JSON keeps every digit, and a names model's subtokens as a list; text shows them as words
            shown = f"{pred:.4f}" if isinstance(pred, float) else words(pred)
            if "positions" in r:
                shown += "\t" + " ".join(f"{x:.4f}" for x in r["positions"])
            typer.echo(f"{r['source']}\t{shown}")  # a real tab (the console would expand it)
    elif fmt is TextFormat.jsonl:
        for r in [*errors, *records]:
            stdout.print(json.dumps({"schema": SCHEMA, **r}), markup=False, highlight=False)
    else:
        shown = [{k: v for k, v in e.items() if k != "schema"} for e in errors]
        stdout.print(
            json.dumps({"schema": SCHEMA, "predictions": records, "refused": len(errors), "errors": shown}, indent=2),
            markup=False,
            highlight=False,
        )


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
    _check_file(file)  # no dataset of the task's: a directory has no programs of its own to read
    from ..frontends import frontend_of, lang_of
    from .console import select_units

    blocks = frontend_of(lang_of(None if file == "-" else file, lang)).layout != "units"  # hex rows, asm paragraphs
    return [((shown, _first_line(p, blocks)), p) for p in select_units(file, lang)]


def _first_line(program, blocks: bool) -> int:
    """The line of ``file`` where ``program`` starts: a block's (a hex row,
    or an assembly paragraph: its unit is named ``lineN``, the line of the
    audit's example id), otherwise its first line's source line."""
    if blocks and program.name.startswith("line") and program.name[4:].isdigit():
        return int(program.name[4:])
    return program.lines[0].source_line if program.lines else 0
