"""The LTL task: write a symbolic lasso trace that satisfies a formula
(DeepLTL's task, as the interchangeable-token paper trains it).

An example is a pair: a formula and a satisfying trace, as ``invar data ltl``
writes them (DeepLTL's alternating lines, or JSONL), or any ``.ltl`` file of
pairs. The model reads the formula (in Polish notation, the form the
generator writes; with DeepLTL's tree positions) and writes the trace token
by token. Metrics: **correct**, the share of predicted traces the exact
checker (:func:`invar.frontends.ltl.check.check`) accepts for the formula
(an output that is not a trace, or whose check exceeds the limits, is
incorrect), and **exact**, the share equal to the reference trace (both in
canonical notation).

Task symmetry: renaming the APs of a formula renames its satisfying traces
(alpha-conversion), so a right model is *equivariant*: its trace for a
renamed formula is its trace for the original, renamed. The audit maps a
prediction back through the renaming (:func:`undo`) before comparing.

Architectures: ``vanilla`` knows the APs its training data use and refuses
others (a ModelError naming them); ``augmented`` renames every training pair
into the AP pool a-z (or its first ``pool_size``, a model config field: the
paper's baseline holds as many APs as its test set) each time it is drawn; ``dualpart`` and
``lexinvariant`` hold the pool a-z and embed an AP through random vectors,
so a model trained on a-e reads and writes f-j; ``canonicalized`` (also
``canonicalized+dualpart``, ``canonicalized+lexinvariant``) reads each
formula under its canonical renaming and maps its trace back, so it is
exactly equivariant (:mod:`invar.nn.canonical`).

Datasets: a file (``.txt`` as ``invar data ltl`` writes, ``.jsonl``,
``.ltl``) is split for training by a hash of each formula (80 % train, 10 %
valid, 10 % test); a directory holds one file per split (``train``,
``valid`` or ``val``, ``test``, each ``.txt``, ``.jsonl`` or ``.ltl``). An
audit reads every pair of a file, or a directory's ``--split``.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import DataError, InvarError, ParseError
from ..frontends.ltl import parse_jsonl_units, parse_units, program_of
from ..frontends.registry import LTL
from ..frontends.ltl.formula import BINARY, UNARY, parse_formula, to_polish
from ..frontends.ltl.trace import lex_trace, parse_trace, to_trace_text
from ..program import Program
from . import Example, Task, checked
from .answers import Reader

#: the AP pool of extendable vocabularies: single letters keep compact Polish writable
POOL = tuple("abcdefghijklmnopqrstuvwxyz")
SPLITS = ("train", "valid", "test")
_SPLIT_FILES = {"train": ("train",), "valid": ("valid", "val"), "test": ("test",)}
_EXTENSIONS = (".txt", ".jsonl", ".ltl")
#: limits of one correctness check (the generator's): past them a prediction is incorrect
CHECK_STATES = 20000
CHECK_TIMEOUT = 10.0
#: Polish symbol -> arity
_ARITY = {**{s: 1 for s in UNARY}, **{s: 2 for s in BINARY}, ">": 2, "=": 2, "^": 2}
#: tree levels kept in a token's path bits
_TREE_BITS = 62


# -------------------------------------------------------------------- reading
def _units(path: Path):
    """(units, skipped errors) of a file; a pair holding bytes that are not
    UTF-8 is skipped with that said, at the line that holds them."""
    from ..files import read_text, undecodable

    text = read_text(path)
    units = _units_of(path, text)
    skipped = list(getattr(units, "skipped", ()))
    if undecodable(text) is not None:
        lines = text.splitlines()
        for k, err in enumerate(skipped):
            bad = undecodable(lines[err.line - 1]) if 0 < err.line <= len(lines) else None
            if bad is not None:
                skipped[k] = DataError("not UTF-8 text", path=str(path), line=err.line, col=bad + 1)
    return list(units), skipped


def _units_of(path: Path, text: str):
    if path.suffix == ".jsonl":
        return parse_jsonl_units(text, str(path), every=True)
    return parse_units(text, str(path), every=True)


def read_pairs(path: str | Path) -> list[Example]:
    """Every formula/trace pair of a file, with its label (formula and
    canonical trace) and the line it starts on. Malformed pairs and formulas
    without a trace are data errors, located."""
    return checked(pair_examples(path))


def pair_examples(path: str | Path) -> list[Example]:
    """Every pair of a file as :func:`read_pairs` reads it, a malformed one
    as an example whose ``error`` says why (in the order of the file)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("no such file", path=str(path))
    try:
        units, skipped = _units(path)
    except InvarError as err:
        raise err.located(str(path))
    out = []
    for err in skipped:
        if not isinstance(err, DataError):
            err = DataError(f"cannot read the pair: {err.message}", path=str(path), line=err.line, col=err.col)
        out.append(Example("", None, str(path), err.line, error=err))
    for unit in units:
        line = unit.lines[0].source_line
        formula = unit.lines[0].text.strip()
        if len(unit.lines) < 2:
            out.append(
                Example(
                    formula,
                    None,
                    str(path),
                    line,
                    error=DataError("a formula without a trace", path=str(path), line=line, col=1),
                )
            )
            continue
        trace = unit.lines[1].text.strip()
        out.append(Example(f"{formula}\t{trace}", label(formula, trace), str(path), line))
    out.sort(key=lambda ex: ex.line)
    return out


def _split_of(formula: str) -> str:
    h = int.from_bytes(hashlib.sha256(formula.encode()).digest()[:4], "little") % 10
    return "train" if h < 8 else "valid" if h == 8 else "test"


def _split_file(data: Path, split: str) -> Path | None:
    for stem in _SPLIT_FILES.get(split, (split,)):
        for ext in _EXTENSIONS:
            if (data / f"{stem}{ext}").is_file():
                return data / f"{stem}{ext}"
    return None


def read_split(data: str | Path, split: str) -> list[Example]:
    """The ``split`` of a dataset: a directory's file of that split, or a
    file's pairs whose formula hashes into it (see the module docstring)."""
    data = Path(data)
    if data.is_dir():
        found = _split_file(data, split)
        if found is None:
            raise DataError(
                f"no {split} file here "
                f"({', '.join(s + e for s in _SPLIT_FILES.get(split, (split,)) for e in _EXTENSIONS)})",
                path=str(data),
            )
        return read_pairs(found)
    return [ex for ex in read_pairs(data) if _split_of(ex.source.split("\t", 1)[0]) == split]


def dataset(spec: str, split: str) -> list[Example] | None:
    """What an audit reads: every pair of a file, or a directory's ``split``,
    a malformed pair as an example with its error; None for anything else (a
    CSV table, a directory of sources)."""
    path = Path(spec)
    if path.is_dir():
        found = _split_file(path, split)
        return pair_examples(found) if found is not None else None
    if path.suffix in _EXTENSIONS and path.is_file():
        return pair_examples(path)
    return None


# ------------------------------------------------------------------ programs
def parse(source: str) -> Program:
    """``FORMULA<TAB>TRACE`` (as :func:`read_pairs` stores it) -> the pair's program."""
    formula, _, trace = source.partition("\t")
    return program_of(formula, trace or None)


def prepare(program: Program) -> Program:
    """The pair as the model reads it: the formula in Polish notation (the
    order tree positions follow), the trace in canonical notation."""
    formula = parse_formula(program.lines[0].text)
    trace = to_trace_text(parse_trace(program.lines[1].text)) if len(program.lines) > 1 else None
    lines = tuple(line.source_line for line in program.lines)
    return program_of(to_polish(formula), trace, source_lines=(lines[0], lines[-1]), name=program.name)


def tree(program: Program) -> np.ndarray:
    """(T, 2): each formula token's depth and path bits in the syntax tree
    (bit k: first or second child at level k), read off the Polish order;
    trace tokens get (0, 0)."""
    out = np.zeros((len(program.tokens), 2), dtype=np.int64)
    stack: list[list[int]] = []  # [depth, bits, arity, children seen]
    for k, tok in enumerate(program.tokens):
        if tok.line != 0:
            continue
        depth = bits = 0
        if stack:
            parent = stack[-1]
            depth = parent[0] + 1
            bits = parent[1] | (parent[3] << parent[0]) if parent[0] < _TREE_BITS else parent[1]
            parent[3] += 1
            if parent[3] == parent[2]:
                stack.pop()
        out[k] = (depth, bits)
        arity = _ARITY.get(tok.text, 0) if tok.kind == "operator" else 0
        if arity:
            stack.append([depth, bits, arity, 0])
    return out


def label(formula: str, trace: str | None) -> dict:
    """The label of a pair: the formula and the reference trace (canonical)."""
    return {"formula": formula, "trace": None if trace is None else to_trace_text(parse_trace(trace))}


def label_of(program: Program) -> dict:
    return label(program.lines[0].text.strip(), program.lines[1].text.strip() if len(program.lines) > 1 else None)


# ------------------------------------------------------------------- outputs
def detokenize(tokens: Sequence[str]) -> str:
    """Written tokens -> the trace in canonical notation; tokens that do not
    make a trace are kept, separated by spaces (an invalid prediction)."""
    compact = all(len(t) == 1 for t in tokens)
    text = ("" if compact else " ").join(tokens)
    try:
        return to_trace_text(parse_trace(text))
    except ParseError:
        return " ".join(tokens)


def output(sequences: Sequence[Sequence[str]]) -> list[str]:
    return [detokenize(s) for s in sequences]


def undo(prediction: str, back: Mapping[str, str]) -> str:
    """A trace predicted for a renamed formula, in the original's APs
    (``back``: renamed AP -> original AP)."""
    if not isinstance(prediction, str):
        return prediction
    try:
        _, lexemes = lex_trace(prediction)
    except ParseError:
        return " ".join(back.get(w, w) for w in prediction.split())
    words = [back.get(lx.text, lx.text) if lx.kind == "ap" else lx.text for lx in lexemes]
    return to_trace_text(parse_trace(" ".join(words)))


def read_answer(segment: str) -> str:
    """A segment of a model's answer -> its trace (:func:`detokenize` of its
    words, or of its characters when it is one word)."""
    words = segment.split()
    return detokenize(words) if len(words) > 1 else detokenize(list(segment.strip()))


#: a whole reply -> its trace (:mod:`invar.tasks.answers`' pipeline: an
#: explicit final answer, else the last line)
answer = Reader(parse=read_answer)


# ------------------------------------------------------------------- metrics
@lru_cache(maxsize=65536)
def _holds(formula: str, trace: str) -> bool:
    from ..frontends.ltl.check import CheckLimitError, check

    try:
        f, t = parse_formula(formula), parse_trace(trace)
    except ParseError:
        return False
    try:
        return check(f, t, max_states=CHECK_STATES, timeout=CHECK_TIMEOUT).holds
    except CheckLimitError:
        return False


def _label(x: Any) -> dict:
    if isinstance(x, dict):
        return x
    raise TypeError(f"an LTL label is a dict with formula and trace, not {type(x).__name__}")


def is_correct(prediction: Any, lab: Any) -> bool:
    """Whether the exact checker accepts ``prediction`` for the label's formula."""
    return isinstance(prediction, str) and _holds(_label(lab)["formula"], prediction)


def correct(predictions, labels) -> float:
    """Share of predictions the checker accepts, in percent."""
    if not len(labels):
        return float("nan")
    return float(100.0 * np.mean([is_correct(p, t) for p, t in zip(predictions, labels)]))


def exact(predictions, labels) -> float:
    """Share of predictions equal to the reference trace, in percent."""
    if not len(labels):
        return float("nan")
    return float(100.0 * np.mean([p == _label(t)["trace"] for p, t in zip(predictions, labels)]))


def score(prediction: Any, lab: Any) -> float:
    return 100.0 if is_correct(prediction, lab) else 0.0


def arch_config(arch: str) -> dict:
    """Tree positions for the formula; ``lexinvariant`` with normalised
    features and AdaCos, as the interchangeable-token paper trains its model.

    ``dualpart`` keeps plain dot-product logits against its (unit) rows:
    with AdaCos the adaptive scale settles where the median target's
    probability is about one half (the scale is the log of the summed
    exponentials of the other tokens, a dozen or so per trace step), so the
    training loss stalls near 0.9, and on two-AP formulas dualpart wrote
    fewer correct and far fewer exact traces (docs/benchmarks/ltl.md,
    "dualpart's logits: plain, not AdaCos"). ``overrides={"normalize_features": True,
    "adacos": True}`` to :func:`invar.train.train` restores the paper's
    setting."""
    extra: dict = {"positions": "tree"}
    if arch.rsplit("+", 1)[-1] == "lexinvariant":  # also an architecture combined with it
        extra.update(normalize_features=True, adacos=True)
    return extra


def _not_a_loss(*_args, **_kwargs):
    raise TypeError("the ltl task's loss is the network's own (Seq2Seq.loss)")


def prediction(value) -> str:
    """A model's trace as Python returns it: text, as it is; a ValueError
    for any other value (the checker would count it as a wrong trace)."""
    if isinstance(value, str):
        return value
    raise ValueError("a trace is text")


TASK = Task(
    name="ltl",
    head="generate",
    n_labels=1,
    invariances={"renamings": True, "permutations": False},
    metric_name="correct",
    lower_is_better=False,
    loss=_not_a_loss,
    metric=correct,
    output=output,
    parse=parse,
    read_split=read_split,
    discrete=True,
    label=lambda text: json.loads(text),
    answer=answer,
    prediction=prediction,
    lang=LTL.name,
    pool=POOL,
    pool_view="ap",
    arch_config=arch_config,
    prepare=prepare,
    tree=tree,
    label_of=label_of,
    undo=undo,
    score=score,
    extra_metrics={"exact": exact},
    f1=False,
    dataset=dataset,
    languages=(LTL.name,),
)

__all__ = [
    "TASK",
    "POOL",
    "read_pairs",
    "read_split",
    "parse",
    "prepare",
    "tree",
    "label",
    "label_of",
    "detokenize",
    "undo",
    "correct",
    "exact",
    "is_correct",
    "answer",
    "read_answer",
]
