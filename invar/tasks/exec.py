"""The exec task: output prediction. What does this call of this function return?

As in CRUXEval, an example is a self-contained Python function and a call of
it; the label is the call's result, written as a literal. What a model reads
is the function followed by its call, in CRUXEval's shape (:func:`render`)::

    def f(xs):
        out = [v * 2 for v in xs]
        return out
    assert f([1, 2]) == ??

That text is the example's stored form: the call reaches any model that reads
text (a callable, an ``hf:`` model, an endpoint) with the function.
:func:`parse` reads it as the function's :class:`~invar.program.Program` (the
unit the Python frontend finds for the called name), with the text before the
function (imports, helpers) as its ``prefix`` and the rest, the ``assert``
line included, as its ``suffix``: transforms touch the function alone, and
every variant still ends with the same call.

**Labels** are canonical literals (:func:`invar.sandbox.literal`: ``repr``,
with a set's elements sorted), and every label and answer is compared after
the same normalisation (:func:`normal`: ``ast.literal_eval``, then that
literal), so ``1.0`` and ``1.00``, ``'a'`` and ``"a"``, ``{2, 1}`` and
``{1, 2}`` agree, while ``1`` and ``1.0`` (an int and a float) do not. A
result that is no literal (an object, ``inf``, a frozenset) labels nothing.

**Answers** (:data:`answer`): a reply's final answer (``Answer: [2, 4]``,
also ``assert f([1, 2]) == [2, 4]`` or ``f([1, 2]) == [2, 4]``, the value
after ``==``), read as a literal; anything else is unreadable, never
guessed (a number that reads two ways is refused: ``6.`` with its full
stop, ``- 3`` that may be a list item). A callable may return the value itself or its text: a string is
read as a reply, anything else is written as its literal (:func:`prediction`).
**Metric**: accuracy, in percent.

**Task symmetries**: renamings of the function's locals (parameters that
can be passed by keyword keep their names, as for ``names``: the call may
name them) and reorderings of independent statements keep what the call
returns (docs/semantics.md), so both keep the label.

**Datasets** (:func:`dataset`): CRUXEval's JSONL layout (``code``, ``input``:
the call's arguments, ``output``: the label; the function is ``f`` unless a
``function`` field names another), as one file or a directory ``invar data
exec`` wrote (:mod:`invar.tasks.exec_data`: the same layout in
``test.jsonl``); a CSV with those columns; or a table whose ``source`` (or
``program``) column holds the rendered text, with an optional ``output`` or
``label`` column.

**Oracle** (:func:`oracle`, only with ``audit --oracle``): each text run in
the sandbox (:mod:`invar.sandbox`: a child process per batch, limits on
time, memory and files, no network, a temporary directory, a scrubbed
environment, ``PYTHONHASHSEED=0``). A variant whose result differs from its
original's is invar's own error: the audit counts it under ``oracle``.
"""

from __future__ import annotations

import ast
import builtins
import csv
import functools
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import DataError, InvarError, ParseError, UsageError
from ..frontends.registry import PYTHON
from ..frontends.units import own_name
from ..program import Program
from . import Example, Task
from .answers import CORRECTING, Reader, Unreadable, finals, later, without_label

#: the function a CRUXEval row calls
FUNCTION = "f"
#: the call line: ``assert CALL == ??``
_ASSERT = re.compile(r"^assert[ \t]+(?P<call>\S.*?)[ \t]*==[ \t]*\?\?[ \t]*$", re.M)
_PROGRAM_COLUMNS = ("source", "program")
_LABEL_COLUMNS = ("output", "label")


# -------------------------------------------------------------------- texts
def render(code: str, arguments: str, function: str = FUNCTION) -> str:
    """The text a model reads: ``code``, then ``assert function(arguments) == ??``."""
    return code.replace("\r\n", "\n").rstrip("\n") + f"\nassert {function}({arguments}) == ??\n"


def split(text: str) -> tuple[str, str, str]:
    """(code, call, the called function's name) of a rendered text; a
    located ParseError when its last ``assert … == ??`` line is missing, not
    the last statement, or not a call of a function by its name."""
    found = list(_ASSERT.finditer(text))
    if not found:
        raise ParseError("no call: the text must end with a line 'assert f(...) == ??'", line=1, col=1)
    m = found[-1]
    line = text.count("\n", 0, m.start()) + 1
    if text[m.end() :].strip():
        raise ParseError("the 'assert ... == ??' line must be the last one", line=line, col=1)
    call = m.group("call")
    try:
        node = ast.parse(call, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ParseError(f"{call!r} is not a Python expression", line=line, col=8) from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise ParseError(f"{call!r} is not a call of a function by its name", line=line, col=8)
    return text[: m.start()], call, node.func.id


def parse(text: str) -> Program:
    """The called function of a rendered text (see the module docstring);
    ParseError when the text holds no such top-level function standing as
    written."""
    from ..frontends import parse_units

    code, _call, name = split(text)
    # the last definition of the name is the one the call reaches
    unit = next((u for u in reversed(parse_units(code, PYTHON.name)) if own_name(u.name) == name), None)
    if unit is None:
        raise ParseError(f"no top-level function {name!r} to call", line=1, col=1)
    first = unit.lines[0].source_line
    start = len("\n".join(code.split("\n")[: first - 1])) + (1 if first > 1 else 0)
    rendered = unit.render()
    if text[start : start + len(rendered)] != rendered:
        raise ParseError(f"function {name!r} does not stand in the text as written", line=first, col=1)
    return replace(unit, prefix=text[:start], suffix=text[start + len(rendered) :])


# ------------------------------------------------------------------ literals
def normal(text: str) -> str:
    """A literal written in any way -> its canonical text (the module
    docstring); ValueError when ``text`` is no Python literal."""
    from ..sandbox import literal

    try:
        return literal(ast.literal_eval(text.strip()))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as err:
        raise ValueError(f"{text.strip()[:80]!r} is not a Python literal ({type(err).__name__})") from None


def label(text: str) -> str:
    """A label written in a dataset file -> its canonical literal."""
    return normal(text)


def prediction(output: Any) -> str:
    """A model's output -> the canonical literal it answers: a string is
    read as a reply (:data:`answer`: an answer line, a repr), anything else
    is the value itself. ValueError when it holds no literal."""
    from ..sandbox import literal

    if isinstance(output, str):
        return answer(output)
    try:
        return literal(output)
    except (TypeError, ValueError, RecursionError) as err:
        raise ValueError(str(err)) from None


# ------------------------------------------------------------------- answers
_WRAPPERS = ("```", "``", "`", "**", "__", "*", "_", "$$", "$")
_AFTER_EQUALS = re.compile(r"==")
#: ``- 3``: a markdown list item, or the literal -3
_BULLET = re.compile(r"-[ \t]+\S")
#: a bullet before a literal in markup (``- `[2, 4]```, ``- **6**``): no minus sign stands before a backtick
_MARKED_ITEM = re.compile(r"[-*+•][ \t]+(?=`|\*\*)")


def tidy(segment: str) -> str:
    """``segment`` stripped, one markdown wrapper (backticks, emphasis) that
    encloses all of it removed: nothing inside a literal is touched."""
    segment = segment.strip()
    for mark in _WRAPPERS:
        if len(segment) > 2 * len(mark) and segment.startswith(mark) and segment.endswith(mark):
            return segment[len(mark) : -len(mark)].strip()
    return segment


def _candidates(segment: str) -> list[str]:
    """The texts a segment may give its answer as: all of it, the value
    after a label (``Output: 6``), after each ``==`` (an ``assert`` line)."""
    out = [segment, without_label(segment)]
    out += [segment[m.end() :] for m in _AFTER_EQUALS.finditer(segment)]
    return [tidy(c) for c in out]


#: the keys of a JSON object that wraps an answer (``{"answer": 6}``) rather than being one
_WRAPPING_KEYS = frozenset({"answer", "final_answer", "output", "result", "return", "returns", "value", "prediction"})


def _doubtful(candidate: str) -> str | None:
    """Why a text that is a literal reads another way too, or None: a tuple
    without its parentheses (``1,234`` is a number with a thousands separator,
    ``6, 7`` two answers), an object of one key that wraps an answer
    (``{"answer": 6}``)."""
    try:
        node = ast.parse(candidate.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Tuple) and node.elts and node.elts[0].col_offset == node.col_offset:
        return "a tuple without parentheses, or numbers listed (a thousands separator)"
    if (
        isinstance(node, ast.Dict)
        and len(node.keys) == 1
        and isinstance(node.keys[0], ast.Constant)
        and str(node.keys[0].value).lower() in _WRAPPING_KEYS
    ):
        return "an object that wraps an answer, or the dict itself"
    return None


def read_answer(segment: str) -> str:
    """The literal a segment of a reply gives (the module docstring);
    Unreadable when none, or when it reads two ways: a full stop after a
    number (``6.``), a dash and a space before one (``- 3``)."""
    segment = tidy(segment)
    if (item := _MARKED_ITEM.match(segment)) is not None:  # ``- `[2, 4]```: a bullet before markup, no minus
        segment = tidy(segment[item.end() :])
    if _BULLET.match(segment):
        raise Unreadable(f"{segment[:80]!r} reads as a list item or as a negative number")
    comment = _comment(segment)
    if comment is not None and CORRECTING.search(comment):
        raise Unreadable(f"second thoughts in a comment after the answer ({comment.strip()[:60]!r}), not one literal")
    for candidate in _candidates(segment):
        try:
            value = normal(candidate)
        except ValueError:
            continue
        if (doubt := _doubtful(candidate)) is not None:
            raise Unreadable(f"{candidate[:80]!r} reads two ways: {doubt}")
        if candidate.endswith(".") and not candidate.endswith(".."):
            try:
                other = normal(candidate[:-1])
            except ValueError:
                other = value
            if other != value:
                raise Unreadable(f"{candidate!r} reads as {value} or, without its full stop, {other}")
        return value
    stopped = segment[:-1] if segment.endswith(".") else None
    if stopped:
        for candidate in _candidates(stopped):
            try:
                value = normal(candidate)
            except ValueError:
                continue
            if (doubt := _doubtful(candidate)) is not None:
                raise Unreadable(f"{candidate[:80]!r} reads two ways: {doubt}")
            return value
    raise Unreadable(f"no Python literal in {segment[:80]!r}")


def _comment(segment: str) -> str | None:
    """The ``#`` comment that ends ``segment`` outside its string literals (``6 # wait, 7`` -> ``wait, 7``), or
    None."""
    quote, k = None, 0
    while k < len(segment):
        char = segment[k]
        if quote is not None and char == "\\":
            k += 2
            continue
        if char in "'\"" and (quote is None or char == quote):
            quote = char if quote is None else None
        elif char == "#" and quote is None:
            return segment[k + 1 :]
        k += 1
    return None


def find_answers(text: str) -> list[str]:
    """Every line of a reply (and every explicit final answer) that reads as
    a literal: its candidate answers."""
    out = []
    for segment in finals(text) + text.splitlines():
        try:
            out.append(read_answer(segment))
        except ValueError:
            continue
    return out


def _alone(rest: str) -> list[str]:
    """The literal that ``rest`` (a line of weak second thoughts) is, with its sentence's full stop or without
    (``I think 7.``); none where it is no literal alone."""
    for form in dict.fromkeys((rest, rest.rstrip(" \t."))):
        try:
            return [read_answer(form)]
        except ValueError:
            continue
    return []


def later_answers(text: str) -> list[str]:
    """The literals the text after a final answer gives anyway: on a line of
    second thoughts (``Wait, it's [4].``, ``Correction: 6``), or presented in
    its sentence (``Actually, f(3) returns 7.``, ``Wait, the result is 7 not
    6.``, ``Hmm, …, so the answer is 10.``: :func:`presented`); and on a line
    that concludes (``So f(3) = 7.``, ``The result is 7.``); a note, or a
    trace's step (``f(2) = 3``), gives none."""
    out = later(
        text,
        read_answer,
        forms=lambda rest: (rest, rest.rstrip(" \t.")),  # a sentence's full stop, or none
        otherwise=presented,
        weak=_alone,
    )
    for line in text.splitlines():  # ``So f(3) = 7.``, ``The result is 7.``: a conclusion restated
        if (concluding := _CONCLUDING.match(tidy(line))) is not None:
            out += presented(tidy(line)[concluding.end() :], arrows=False)
    claimed = claims(text)
    if len(claimed) == 1 and claimed[0] is not None:  # ``assert f([1, 2, 3]) == [4]``; several test other inputs
        out += claimed
    return out


def claims(text: str) -> list[str | None]:
    """The values ``text`` claims calls return, one per claim, in order (None where the claim's value is no
    literal): a line that opens with a call compared with ``==`` (``assert f([1, 2, 3]) == [4]``, ``f(3) == 7
    holds.``), or a value compared with one (``assert 7 == f(3)``), a test's ``assertEqual`` of a call
    (``self.assertEqual(f(3), 7)``), and a doctest's output (``>>> f(3)`` then ``7``); not a builtin applied to
    the call (``assert len(f(x)) == 2``), nor a test in code (``if f(x) == 0:``), nor a call said to return a
    value in prose (``helper(3) returns 3``: a trace's notes name other calls as often)."""
    out = []
    rows = text.splitlines()
    for k, line in enumerate(rows):
        if (m := _CLAIMED.match(line)) is not None:
            out.append(_claimed_value(_assert_value(line) or m.group("value")))
        elif _DOCTEST.match(line) and k + 1 < len(rows) and rows[k + 1].strip() and not _PROMPTS.match(rows[k + 1]):
            out.append(_claimed_value(rows[k + 1]))
        elif (value := _tested_value(line)) is not None:
            out.append(_claimed_value(value))
    return out


def _doctests_checked(text: str) -> None:
    """Refuse a reply without a final answer whose last line is the output of one of several doctests of
    different calls and outputs (``>>> f(3)`` / ``6`` / ``>>> f(1)`` / ``1``): it shows several calls, and
    which one the question asked is not said."""
    rows = [row for row in text.splitlines() if row.strip() and not row.strip().startswith("```")]
    shown = [
        (rows[k].strip(), rows[k + 1].strip())
        for k in range(len(rows) - 1)
        if _DOCTEST.match(rows[k]) and not _PROMPTS.match(rows[k + 1])
    ]
    if shown and shown[-1][1] == rows[-1].strip() and len({c for c, _ in shown}) > 1 and len({o for _, o in shown}) > 1:
        raise Unreadable(
            f"no final answer, and the reply ends in the output of one of {len(shown)} doctests of different calls "
            f"({', '.join(c.removeprefix('>>>').strip() for c, _ in shown[-3:])})"
        )


def _claimed_value(text: str) -> str | None:
    """The literal that opens a claim's value, alone or before words or punctuation (``7 holds here.``), not
    before an operator (``2 * 3``); None else."""
    try:
        return read_answer(text)
    except ValueError:
        pass
    value = _literal_at(text)
    if value is None and (m := re.match(r"(\S+?)[.,;:]?[ \t]+(?=[^\W\d])", text.strip())) is not None:
        try:
            value = read_answer(m.group(1))
        except ValueError:
            return None
    return value


def _statement(line: str) -> tuple[str, ast.stmt | None]:
    """A line of code (a list's mark and backticks around it aside) and its one statement; None for none or
    several, or code that does not parse."""
    code = re.sub(r"^[ \t]*(?:[-*+][ \t]+)?`?", "", line).rstrip().removesuffix("`")
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError):
        return code, None
    return code, body[0] if len(body) == 1 else None


def _tested_value(line: str) -> str | None:
    """The value's source of a line that is one ``assert`` of a value ``==`` a call (``assert 7 == f(3)``) or
    one ``assertEqual`` of a call and a value (``self.assertEqual(f(3), 7)``); None for any other line."""
    code, node = _statement(line)
    if isinstance(node, ast.Assert) and isinstance(test := node.test, ast.Compare):
        if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and _calls(test.comparators[0]):
            return None if _calls(test.left) else ast.get_source_segment(code, test.left)
    if isinstance(node, ast.Expr) and isinstance(call := node.value, ast.Call) and len(call.args) == 2:
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if name in ("assertEqual", "assert_equal", "assertEquals") and _calls(call.args[0]):
            return ast.get_source_segment(code, call.args[1])
    return None


def _calls(node: ast.AST) -> bool:
    """Whether ``node`` is a call of a function that is no builtin (``f(3)``; not ``len(f(3))``)."""
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return re.fullmatch(_BUILTIN, name) is None


def _assert_value(line: str) -> str | None:
    """The compared value's source of a line that is one ``assert`` of a call ``==`` a value, its message left
    out (``assert f(3) == 6, 'off by one'`` -> ``6``); None for any other line or one that does not parse."""
    code, node = _statement(line)
    if not (isinstance(node, ast.Assert) and node.msg is not None and isinstance(node.test, ast.Compare)):
        return None
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return None
    return ast.get_source_segment(code, test.comparators[0])


#: builtins whose value over a call claims nothing of the call's own (``assert len(f([1, 2, 3])) == 2``)
_BUILTIN = r"(?:len|sorted|list|set|tuple|dict|str|int|float|bool|type|isinstance|abs|round|sum|max|min|repr|any|all)"
#: a line that opens with a call compared with a value (``assert f([1, 2, 3]) == [4]``, ``f(3) == 7``, in
#: backticks or after a list's mark too), the value in the group
_CLAIMED = re.compile(
    rf"^[ \t]*(?:[-*+][ \t]+)?`?(?:assert[ \t]+)?(?!{_BUILTIN}[ \t]*\()(?!(?:if|elif|while|return|print)\b)"
    r"\w[\w.]*[ \t]*\(.*\)[ \t]*==[ \t]*(?P<value>.+?)`?[ \t]*$"
)
#: a doctest's call (``>>> f(3)``), its output on the next line; and a line that is a doctest's prompt
_DOCTEST = re.compile(rf"^[ \t]*>>>[ \t]+(?!{_BUILTIN}[ \t]*\()\w[\w.]*[ \t]*\(.*\)[ \t]*$")
_PROMPTS = re.compile(r"^[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")


#: what opens a line that concludes on the call's value (``So f(3) = 7.``, ``Therefore the output is 7.``,
#: ``The result is 7.``); a trace's step (``f(2) = 3``) opens with no such words
_CONCLUDING = re.compile(
    r"(?:so|thus|hence|therefore)\b[ \t,:]*|(?=the[ \t]+(?:final[ \t]+)?(?:result|output|answer|return[ \t]+value)\b)",
    re.I,
)


#: what presents the call's value in a sentence: the call, ``it``, ``the result`` (…) and a verb or ``=``
#: (``f(3) returns 7``, ``f(3) == 7``, ``the result is 7``, ``the answer would be 7``, ``it gives 7``), or an
#: arrow in second thoughts (``f(3) -> 7``; on a line that concludes, a trace's step: ``So pop() -> 2, leaving [1]``)
_PRESENTER = (
    r"(?:(?<![\w.])[^\W\d]\w*\((?:[^()]|\([^()]*\))*\)|\b(?:it|this|that|which)|\bthe[ \t]+(?:(?:correct|right|real"
    r"|final|actual)[ \t]+)?(?:call|function|result|output|answer|return[ \t]+value|value(?:[ \t]+returned)?))"
    r"(?:[ \t]+(?:actually|really|then|instead|therefore))?[ \t]*(?:(?:returns|is|gives|outputs|evaluates[ \t]+to"
    r"|(?:would|should|will|must)[ \t]+(?:be|return|give)|becomes|equals)(?![\w-])|={1,2}{arrows})[ \t]*:?[ \t]*"
)
_PRESENTING = {
    arrows: re.compile(_PRESENTER.replace("{arrows}", "|->|→" if arrows else ""), re.I) for arrows in (False, True)
}


def presented(line: str, *, arrows: bool = True) -> list[str]:
    """The literal a sentence presents as the call's value, after the last words that present one and give
    one (:data:`_PRESENTING`: ``Actually, f(3) returns 7.``, ``the result is 7 not 6``; an arrow where
    ``arrows``, but not a trace's step, :data:`_STEP`): the longest text after them, cut at a space, that is a
    literal; none when no such words stand before a literal."""
    for m in [*reversed(list(_PRESENTING[arrows].finditer(line))), None]:
        arrow = m is not None and m.group().rstrip(" \t:").endswith(("->", "→"))
        if arrow and _STEP.match(line, m.start()):
            continue
        value = _literal_at(line[m.end() if m else 0 :])  # at 0: the line's lead-in, ``[it returns] 7 because …``
        if value is not None and not (arrow and value.startswith("(") and not line[m.end() :].startswith("(")):
            return [value]
    return []


#: a call whose arrow is a trace's step, not the call's value: a builtin's or a method's (``range(1, 4) → [1, 2,
#: 3]``, ``.pop() → 2``); and after any arrow a tuple without its parentheses is the items of a step (``→ 1, 2, 3``)
_STEP = re.compile(rf"(?:{'|'.join(n for n in dir(builtins) if not n.startswith('_'))})\(|(?<=\.)\w+\(")


#: what may follow a literal presented in a sentence and closes it (``7 because …``, ``7, not 6``); a literal
#: followed by anything else is no value (``2 * 3``, ``3 iterations are needed``)
_CLOSING = re.compile(
    r"[ \t]*(?:$|[,;:(—–]|-(?![ \t]*\d)|[.!?](?!\w)|(?:because|since|as|once|not|instead|rather|and|so)\b)", re.I
)


def _literal_at(text: str) -> str | None:
    """The literal that opens ``text``: its longest part before a space (a sentence's punctuation removed)
    that is a literal and that what follows closes (:data:`_CLOSING`: ``7 because the loop runs once more.``
    -> ``7``), or None."""
    cuts = sorted({m.start() for m in re.finditer(r"\s", text)} | {len(text)}, reverse=True)
    for cut in cuts:
        kept = text[:cut].rstrip(" \t.,;:!")
        candidate = tidy(kept)
        if not candidate or not _CLOSING.match(text, len(kept)):
            continue
        try:
            return normal(candidate)
        except ValueError:
            continue
    return None


#: a whole reply -> the canonical literal it answers (:mod:`invar.tasks.answers`' pipeline)
answer = Reader(
    parse=read_answer,
    find=find_answers,
    tidy=tidy,
    after=later_answers,
    alone=read_answer,
    last_line_checked=_doctests_checked,
)


# -------------------------------------------------------------------- metric
def _key(p: Any) -> str | None:
    """``p``'s canonical literal, None when it holds none; a text read once
    (an audit scores the same answers many times)."""
    return _text_key(p) if isinstance(p, str) else _value_key(p)


@functools.lru_cache(maxsize=1 << 16)
def _text_key(p: str) -> str | None:
    return _value_key(p)


def _value_key(p: Any) -> str | None:
    try:
        return prediction(p)
    except ValueError:
        return None


def accuracy(predictions, labels) -> float:
    """Share of predictions whose literal is the label's, in percent."""
    if not len(labels):
        return float("nan")
    keys = [(_key(p), _key(t)) for p, t in zip(predictions, labels)]
    return float(100.0 * np.mean([p is not None and p == t for p, t in keys]))


def score(p, t) -> float:
    return accuracy([p], [t])


# ------------------------------------------------------------------- datasets
def _rows(path: Path) -> tuple[list[str], list[tuple[int, dict | DataError]]]:
    """(columns, (line, row or DataError)) of a JSONL or CSV file."""
    from ..files import read_text

    try:
        text = read_text(path)
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=str(path))
    rows: list[tuple[int, dict | DataError]] = []
    if path.suffix == ".jsonl":
        for lineno, raw in enumerate(text.splitlines(), start=1):
            if raw.strip():
                try:
                    row = json.loads(raw)
                except (ValueError, RecursionError):
                    row = None
                rows.append(
                    (
                        lineno,
                        row
                        if isinstance(row, dict)
                        else DataError("not a JSON object", path=str(path), line=lineno, col=1),
                    )
                )
        columns = list(dict.fromkeys(k for _, r in rows if isinstance(r, dict) for k in r))
        return columns, rows
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            rows.append((reader.line_num, dict(row)))
    except csv.Error as err:
        rows.append((reader.line_num, DataError(f"not a CSV row ({err})", path=str(path), line=reader.line_num)))
    return list(reader.fieldnames or []), rows


def _example(row: dict, path: Path, line: int) -> Example:
    """One row as an example: CRUXEval's layout, or a rendered text."""
    where = {"path": str(path), "line": line, "col": 1}
    if "code" in row:
        code, arguments, function = row.get("code"), row.get("input"), row.get("function") or FUNCTION
        if not isinstance(code, str) or not isinstance(arguments, str) or not isinstance(function, str):
            return Example("", None, str(path), line, DataError("code, input and function must be text", **where))
        source = render(code, arguments, function)
    else:
        source = next((row[c] for c in _PROGRAM_COLUMNS if isinstance(row.get(c), str)), None)
        if source is None:
            return Example("", None, str(path), line, DataError("no code (and input), source or program", **where))
    raw = next((row[c] for c in _LABEL_COLUMNS if row.get(c) not in (None, "")), None)
    try:
        y = None if raw is None else label(raw) if isinstance(raw, str) else prediction(raw)
    except ValueError as err:
        return Example(source, None, str(path), line, DataError(f"bad output: {err}", **where))
    return Example(source, y, str(path), line)


def read_file(path: str | Path) -> list[Example]:
    """Every row of a JSONL or CSV file of exec examples, a malformed one
    as an example with its error."""
    path = Path(path)
    _columns, rows = _rows(path)
    return [
        Example("", None, str(path), line, row) if isinstance(row, DataError) else _example(row, path, line)
        for line, row in rows
    ]


def _is_exec_table(path: Path) -> bool:
    """Whether ``path`` is a table the exec task reads (its columns say so)."""
    if path.suffix not in (".jsonl", ".csv") or not path.is_file():
        return False
    columns = {c.lower() for c in _rows(path)[0]}
    return {"code", "input"} <= columns or bool(columns & set(_PROGRAM_COLUMNS))


def dataset(spec: str, split_name: str) -> list[Example] | None:
    """The examples of ``spec`` (the module docstring), or None when it is
    no exec dataset: a directory ``invar data exec`` wrote (its
    ``SPLIT.jsonl``), or a JSONL or CSV table of exec examples."""
    path = Path(spec)
    if path.is_dir():
        try:
            meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("invar") != "exec":
            return None
        if not (path / f"{split_name}.jsonl").is_file():
            raise DataError(f"no {split_name}.jsonl here (an exec dataset holds test.jsonl)", path=spec)
        return read_file(path / f"{split_name}.jsonl")
    return read_file(path) if _is_exec_table(path) else None


def _untrainable(*_args, **_kwargs):
    raise UsageError("the exec task is for audits: invar trains no output-prediction models")


# -------------------------------------------------------------------- oracle
def oracle(texts: Sequence[str], limits=None) -> list[tuple[str | None, str]]:
    """Each rendered text's result, run in the sandbox (:mod:`invar.sandbox`;
    ``limits``: a :class:`~invar.sandbox.Limits`, its defaults when None):
    ``(canonical literal, "")``, or ``(None, why)`` for a text that does not
    split into code and call, or whose call gives no literal."""
    from ..sandbox import Call, Limits, run

    out: list[tuple[str | None, str] | None] = [None] * len(texts)
    calls, where = [], []
    for k, text in enumerate(texts):
        try:
            code, call, _name = split(text)
        except InvarError as err:
            out[k] = (None, err.message)
            continue
        calls.append(Call(code, call))
        where.append(k)
    for k, got in zip(where, run(calls, limits or Limits(), hash_seed=0)):
        out[k] = (got.value, "") if got.ok else (None, got.reason)
    return out


TASK = Task(
    name="exec",
    head="multilabel",
    n_labels=1,
    invariances={"renamings": True, "permutations": True},
    metric_name="accuracy",
    lower_is_better=False,
    loss=_untrainable,
    metric=accuracy,
    output=_untrainable,
    parse=parse,
    read_split=_untrainable,
    splits=("test",),
    discrete=True,
    label=label,
    answer=answer,
    oracle=oracle,
    runs_code=True,
    lang=PYTHON.name,
    languages=(PYTHON.name,),
    undo=lambda prediction, back: prediction,  # a result names nothing of the function's locals
    score=score,
    f1=False,
    dataset=dataset,
)

__all__ = [
    "TASK",
    "FUNCTION",
    "render",
    "split",
    "parse",
    "normal",
    "label",
    "prediction",
    "tidy",
    "read_answer",
    "find_answers",
    "answer",
    "accuracy",
    "score",
    "read_file",
    "dataset",
    "oracle",
]
