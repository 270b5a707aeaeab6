"""The alta task: what a compiled ALTA program answers for a sequence of tokens.

An input is one line of whitespace-separated tokens (``1 0 1 1``, ``a b b a``).
Its program has one line per element and no dependencies, so a permutation
may reorder the elements freely; an element that is a symbol of the pool
``a-z`` is a token of view ``sym`` whose referent is the symbol itself (a
renaming maps the symbols used into the pool, injectively, as for ``copy``),
and every other token (digits, operators, markers) is fixed: its view is its
own text, it has no referent and no renaming touches it. The program renders
back to the input line, elements joined by one space.

A prediction is the program's output at every position, joined by spaces
(the compiled Transformer's and the interpreter's alike); the label of a
dataset line is written after a tab (``a b b a<TAB>1 1 1 1``), else the line is
unlabelled. Metric: exact match, in percent. ALTA programs are compiled, not
trained, so the task has no loss; the oracle, the interpreter of the
program, is the model's own (an audit with ``--oracle`` asks the model for it).

Inputs are no language a frontend reads, so this module gives their renaming
rules itself and registers them with :mod:`invar.symmetry.spaces` under the
language ``alta``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from ..data.examples import Example, checked
from ..errors import DataError, ParseError, UsageError
from ..program import Line, Program, Token
from ..symmetry import spaces as _spaces
from ..symmetry.renamings import RenamingSpace
from . import Task
from .answers import Reader
from .symbols import symbol_space

LANG = "alta"
#: the interchangeable symbols: renamings map the symbols an input uses into these
POOL = tuple("abcdefghijklmnopqrstuvwxyz")
_EXT = ".txt"


# ------------------------------------------------------------------ programs
def program_of(text: str, *, line: int = 1, name: str = "") -> Program:
    """The program of one input line: an element per line, symbols renamable."""
    elements = text.split()
    if not elements:
        raise ParseError("empty input: an ALTA program reads at least one token", line=line, col=1)
    lines, tokens = [], []
    for k, element in enumerate(elements):
        symbol = element in POOL
        tokens.append(
            Token(
                element,
                "symbol" if symbol else "fixed",
                "sym" if symbol else element,
                element if symbol else None,
                k,
                0,
            )
        )
        lines.append(Line(element, block=0, source_line=line))
    return Program(LANG, tuple(lines), tuple(tokens), name=name or f"line {line}", separator=" ")


def parse(source: str) -> Program:
    return program_of(source)


def elements(program: Program) -> list[str]:
    """The tokens a model reads, in order."""
    return [line.text for line in program.lines]


def renaming_space(program: Program, *, pool: Sequence[str] | None = None, pins: Sequence[str] = ()) -> RenamingSpace:
    """Injective maps of the symbols used into ``pool`` (default: the symbols used)."""
    return symbol_space(program, pool=pool, pins=pins, alphabet=POOL, what="an alta symbol (letters a-z)")


def canonical_space(program: Program, *, pins: Sequence[str] = ()) -> RenamingSpace:
    return renaming_space(program, pool=POOL, pins=pins)


_spaces.register_rules(LANG, __name__)


# -------------------------------------------------------------------- data
def line_examples(path: str | Path) -> list[Example]:
    """Every non-blank line of a file, ``INPUT`` or ``INPUT<TAB>LABEL``; a
    line that cannot be read is an example whose ``error`` says why."""
    from ..files import read_text, undecodable

    path = Path(path)
    try:
        text = read_text(path)
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=str(path))
    out = []
    for no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        source, tab, label = raw.partition("\t")
        error = None
        if (bad := undecodable(raw)) is not None:
            error = DataError("not UTF-8 text", path=str(path), line=no, col=bad + 1)
        elif not source.strip():
            error = DataError("no input before the tab", path=str(path), line=no, col=1)
        label = " ".join(label.split()) if tab and label.strip() and error is None else None
        out.append(Example(source.strip(), label, str(path), no, error=error))
    return out


def read_split(data: str | Path, split: str) -> list[Example]:
    data = Path(data)
    path = data / f"{split}{_EXT}" if data.is_dir() else data
    if not path.is_file():
        raise DataError(f"no {split}{_EXT} here: one input per line, a label after a tab", path=str(data))
    return checked(line_examples(path))


def dataset(spec: str, split: str) -> list[Example] | None:
    """What an audit reads: a directory's ``split`` or every line of a ``.txt`` file."""
    path = Path(spec)
    if path.is_dir():
        return line_examples(path / f"{split}{_EXT}") if (path / f"{split}{_EXT}").is_file() else None
    if path.suffix == _EXT and path.is_file():
        return line_examples(path)
    return None


# ------------------------------------------------------------- outputs, metric
def undo(prediction: str, back) -> str:
    """A prediction on a renamed input in the original's symbols."""
    return " ".join(back.get(t, t) for t in prediction.split()) if isinstance(prediction, str) else prediction


def exact_match(predictions, labels) -> float:
    """Percent of predictions equal to their label."""
    if not len(labels):
        return float("nan")
    return 100.0 * float(np.mean([p == t for p, t in zip(predictions, labels)]))


def _not_a_loss(*_args, **_kwargs):
    raise UsageError("ALTA programs are compiled (invar alta compile), not trained", path="--task")


def read_answer(segment: str) -> str:
    """A segment of a model's answer -> its outputs, joined by one space."""
    return " ".join(segment.split())


#: a whole reply -> its outputs (:mod:`invar.tasks.answers`' pipeline: an
#: explicit final answer, else the last line)
answer = Reader(parse=read_answer)


def _output(_outputs, *_args):
    raise UsageError("an alta model writes its outputs itself", path="--task")


TASK = Task(
    name="alta",
    head="compiled",
    n_labels=1,
    # whether a transform keeps the label depends on the program compiled (a
    # palindrome test keeps renamings, ``contains-a`` does not): neither is
    # assumed, and ``--oracle`` (the program's interpreter) says which did
    invariances={"renamings": False, "permutations": False},
    metric_name="exact match",
    lower_is_better=False,
    loss=_not_a_loss,
    metric=exact_match,
    output=_output,
    parse=parse,
    read_split=read_split,
    discrete=True,
    label=lambda text: " ".join(text.split()),
    answer=answer,
    lang=LANG,
    pool=POOL,
    pool_view="sym",
    undo=undo,
    f1=False,
    dataset=dataset,
    languages=(LANG,),
)

__all__ = [
    "TASK",
    "POOL",
    "LANG",
    "program_of",
    "parse",
    "elements",
    "renaming_space",
    "canonical_space",
    "line_examples",
    "read_split",
    "dataset",
    "undo",
    "exact_match",
    "answer",
    "read_answer",
]
