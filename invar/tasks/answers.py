"""Reading a chat model's reply for its answer, or refusing it: never misreading it.

A chat model (``invar audit --model http://HOST:PORT/v1``) answers in prose:
it reasons, names other numbers (``x86-64``, ``7 instructions``), hedges, and
formats. A misread answer silently corrupts an audit, so every reply goes
through one pipeline, and anything it cannot read for sure is
:class:`Unreadable` (the audit reports it as that example's error):

1. Reasoning is removed: ``<think>…</think>`` (also ``<thinking>`` and
   ``<reasoning>``, any case, any number of blocks; a closing tag whose
   opening the server's chat template ate drops everything before it). A
   reasoning block never closed leaves no answer.
2. ``pattern`` (the user's ``--answer-regex``), when given, decides: its
   last match's first group, or the whole match when it has no group.
3. Else an explicit final answer decides: the last ``\\boxed{…}`` or
   ``<answer>…</answer>``, else the last line ``Answer: …`` / ``Final
   answer: …`` / ``Answer - …`` (any case, markdown bullets and emphasis
   allowed, around the whole line too: ``**Answer: 6**``; an empty one reads
   the next line, as does a heading or a bold
   line that is only the word: ``## Final Answer``, ``**Answer**``). Every
   other explicit final answer the task reads must give the same answer:
   two that differ (the prompt's example echoed, then the model's own
   figure; a first answer, then a corrected one) refuse the reply.
4. Else the reply's last non-empty line (a closing code fence skipped; a
   JSON object over several lines that ends the reply is read whole; a
   task that reads questions, :attr:`Reader.questions`, reads the line
   with the question on the line before it: ``Is it correct?`` / ``No.``).
5. The task's parser reads that **segment** (markdown bullets and emphasis
   removed, and inline code and LaTeX math around it: ``$1$``) and may
   refuse it (a task may read a last line of step 4 more
   strictly: prose there can name numbers that answer nothing); the task's
   candidate finder counts the distinct answers the whole reply holds
   (reasoning removed).
6. What follows an explicit final answer may not give another answer (a
   correction, or the model's own figure after an echo of the prompt's
   example): where the task says how to find one there (most look on the
   lines of second thoughts, :func:`second_thoughts`: ``Actually, …``,
   ``Wait, it's …``, ``Update: …``; the words that open them are one list,
   :data:`OPENERS`; on a line opened by the weak ones only,
   :data:`WEAK_OPENERS`, ``I think …``, ``But …``, a task reads an answer
   only alone or presented as one, :func:`weak_thoughts`), a different one
   refuses the reply; and the reply's last non-empty line, read by the
   task's :attr:`Reader.alone` (a line that is nothing but an answer:
   ``**3 cycles**``, ``So it takes 3 cycles.``), may not give another one.
   An answer read from the line after a marker that stands alone (``##
   Answer``) that is no answer alone is refused when a later line reads as
   another answer. A line of strong second thoughts that retracts the
   final answer (:data:`RETRACTING_OPENERS`: ``Oops, …``, ``Correction:
   …``; or in words: ``Wait, that's wrong.``, ``I misread the code``) refuses
   the reply even when the task reads no other answer in it, unless it
   gives the final answer again.

A reply cut off at the token limit (``truncated``) may have lost the end of
its last line, so only an explicit final answer (2 or 3) that ends before
the reply does is read from it, and only when what follows it opens no
second thoughts, nor ends inside their first words (``Actu``): the answer
they were about to give is lost.

A task says how it reads by its :attr:`~invar.tasks.Task.answer`: a
:class:`Reader` (a segment parser and a candidate finder; called on a whole
reply it returns the prediction). Any other callable is taken as the parser
of the segment. The tasks with a shipped prompt (:data:`PROMPTED`) keep it in
``invar/tasks/prompts/TASK.txt``, read by :func:`prompt`.

This module knows the pipeline and what every task shares (numbers as whole
tokens, lines, labels before a colon); each task's own knowledge (units,
verdict words, identifiers) lives in its module, which imports this one.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Callable, Iterable, Sequence

from ..errors import UsageError
from . import Task, get_task

#: the longest segment a :class:`Reading` keeps (the audit shows it as an example)
SEGMENT_CHARS = 200
#: the tasks with a shipped prompt template (``prompts/TASK.txt``)
PROMPTED: tuple[str, ...] = ("bhive", "names", "bugs", "classify", "exec")
_RAISE = "raise --max-tokens"


@dataclass(frozen=True)
class Reading:
    """What a reply answers, and how surely."""

    #: the prediction, in the form the task's metric and the audit compare
    value: Any
    #: how many distinct candidate answers the reply held anywhere (reasoning
    #: removed), this one included: 1 when the reply is unambiguous
    candidates: int
    #: the part of the reply the value was read from, stripped, at most
    #: :data:`SEGMENT_CHARS` characters
    segment: str


class Unreadable(ValueError):
    """A reply that holds no answer invar can read for sure; the message is a
    one-line reason. A ValueError, as :attr:`~invar.tasks.Task.answer` promises."""


@dataclass(frozen=True)
class Reader:
    """How a task reads a reply: called on a whole reply it returns the
    prediction (:func:`read`'s pipeline, then ``parse``)."""

    #: a segment (the part of a reply that holds the answer, cleaned) -> the
    #: prediction; :class:`Unreadable` (or any ValueError) when it holds none
    parse: Callable[[str], Any]
    #: a whole reply, reasoning removed -> every candidate answer in it
    #: (repeats allowed); None: the explicit final answers (:func:`finals`)
    #: read by ``parse``
    find: Callable[[str], Sequence[Any]] | None = None
    #: how the segment is tidied before ``parse`` reads it; None: :func:`clean`
    #: (markdown bullets and emphasis removed). A task whose answers are code
    #: gives its own: ``*`` and ``_`` pairs are part of a Python literal
    #: (``'__init__'``), and removing them would misread it
    tidy: Callable[[str], str] | None = None
    #: how a segment that is only the reply's last line is read (no explicit
    #: final answer, no ``--answer-regex``): prose there may hold numbers that
    #: answer nothing (``I cannot run llvm-mca 17``), so a task may read it more
    #: strictly; None: ``parse``
    last_line: Callable[[str], Any] | None = None
    #: the text after an explicit final answer -> the answers it gives anyway (a
    #: correction, a second answer): one that differs from the final answer
    #: refuses the reply; None: nothing is looked for there
    after: Callable[[str], Sequence[Any]] | None = None
    #: a line that is nothing but an answer (``**3 cycles**``, ``So it takes 3 cycles.``, `` `compute_total` ``)
    #: -> that answer; any other line, a note or prose, is Unreadable. The reply's last line after an explicit
    #: final answer, read so, may not give another answer (the model's own figure after an echo of the prompt's
    #: example; a heading's first line of explanation read instead of its result); None: it is not looked at
    alone: Callable[[str], Any] | None = None
    #: whether the answer is a number, so that one opening the text after
    #: ``Answer:`` on its line is the answer (bugs' ``Answer: 1. The loop …``,
    #: bhive's ``Answer: 3. cycles``); else it is a numbered list's mark there
    #: too (``Answer: 1. sorting``), as on a line of its own
    numbers: bool = False
    #: whether a reply's last line that answers a question on the line before it (``Is the function
    #: correct?`` then ``No.``, ``Q: …?`` then ``A: No.``) is read with that question before it, as one segment
    #: (``Is the function correct? No.``): the task reads a yes or no in the question's sense (bugs)
    questions: bool = False
    #: whether a reply's last line that stands in a code block is read as its answer, without an explicit final
    #: answer (exec: ```` ``` ```` / ``[2, 4]`` / ```` ``` ````); else such a reply is refused (names: the last line
    #: of a function's code, ``return total / len(numbers)``, names no function)
    code: bool = True
    #: a task's own check of a reply without a final answer, which is read from its last line (the whole text ->
    #: None, or Unreadable: exec refuses a reply that ends in one of several doctests of other calls)
    last_line_checked: Callable[[str], None] | None = None

    def __call__(self, reply: str) -> Any:
        return self.read(reply).value

    def read(self, reply: str, *, pattern: str | None = None, truncated: bool = False) -> Reading:
        """The :class:`Reading` of ``reply``; :class:`Unreadable` when it has none."""
        text = without_reasoning(reply, truncated=truncated)
        found = _segment(text, pattern, truncated)
        if found.last_line and self.questions:
            found = _Found(_answered(text, found.text), last_line=True, line=True)
        if truncated and _second_thoughts_cut(found.tail):
            raise Unreadable(f"cut off at the token limit in second thoughts after its final answer: {_RAISE}")
        if found.last_line and not found.code:
            self._list_checked(text)
        if found.last_line and self.last_line_checked is not None:
            self.last_line_checked(text)
        if found.code and not self.code:
            raise Unreadable("no final answer, and the reply ends in a code block, whose last line is no answer")
        segment = self._tidied(found.text, found.line)
        if not segment:
            raise Unreadable("the answer is empty")
        value = _parsed(self.last_line if found.last_line and self.last_line else self.parse, segment)
        if pattern is None and not found.last_line:  # the user's pattern picks its match: no other is looked at
            others = self._other_finals(text, value)
            if others:
                raise Unreadable(
                    f"the reply gives another answer ({', '.join(map(_shown, others[:3]))}) in an explicit final "
                    f"answer beside its last one ({_shown(value)})"
                )
        if found.tail and self.after is not None:
            later = list(dict.fromkeys(v for v in self.after(found.tail) if v != value))
            if later:
                raise Unreadable(
                    f"the reply gives another answer ({', '.join(map(_shown, later[:3]))}) after its final one "
                    f"({_shown(value)})"
                )
        if found.tail and self.after is not None:
            retraction = _retraction(
                found.tail, lambda line: _restated(line, value) or any(v == value for v in self.after(line))
            )
            if retraction is not None:
                raise Unreadable(
                    f"the reply retracts its final answer ({_shown(value)}) after it, and gives no answer this task "
                    f"reads instead ({retraction[:60]!r})"
                )
        if found.tail and self.after is not None and self.alone is not None:
            self._alternatives_checked(found.tail, value, segment)
        if found.tail and pattern is None and self.alone is not None:
            if found.line and not found.last_line:
                self._heading_checked(segment, found.tail, value)
            last = self._last_other(found.tail, value)
            if last is not None:
                raise Unreadable(
                    f"the reply's last line gives another answer ({_shown(last)}) after its final one ({_shown(value)})"
                )
        candidates = (
            self.find(text)
            if self.find is not None
            else _lenient(self.parse, [self._tidied(s, line) for s, line in _explicit(text)])
        )
        return Reading(value, _distinct([value, *candidates]), segment[:SEGMENT_CHARS].rstrip())

    def _tidied(self, segment: str, line: bool) -> str:
        """``segment`` as ``parse`` reads it (``line``: it is a whole line of the reply)."""
        return self.tidy(segment) if self.tidy else clean(segment, line=line, numbered=line or not self.numbers)

    def _list_checked(self, text: str) -> None:
        """Refuse a reply without a final answer that ends in a list of several items (or a table of several
        rows) that give different answers (``1. sorting`` / ``2. searching``, ``- Ports: 0.75 cycles`` / ``-
        Dependency chain: 1 cycle``): it offers several, or one among other findings, unless its last item
        sums up the others (:func:`_sums_up`: ``- **Overall: 1.25 cycles**``, ``- Verdict: no bug``)."""
        items = _trailing_items(text)
        if len(items) < 2 or _sums_up(items[-1]):
            return
        parse = self.last_line or self.parse
        values = _lenient(parse, [self._tidied(item, True) for item in items])
        values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
        if _distinct(values) > 1:
            shown = "; ".join(clean(item, line=True)[:30] for item in items[-3:])
            raise Unreadable(
                f"no final answer, and the reply ends in a list of {len(items)} items ({shown}) that give "
                f"{_distinct(values)} different answers"
            )

    def _alternatives_checked(self, tail: str, value: Any, segment: str) -> None:
        """Refuse a reply that offers another answer after its final one (``value``): a line that offers one
        (:func:`_alternatives`: ``Alternatively, `mean` would work.``, ``(or searching)``) that the task reads
        (:attr:`alone`) and that is not ``value`` again, or a conclusion after a colon that reads alone as
        another answer (``Therefore: searching``)."""
        assert self.alone is not None
        for row, m in _alternatives(tail):
            offered = []
            for text in _offers(row, m):
                try:
                    offered.append(self.alone(text))
                except ValueError:
                    continue
            offered = [v for v in offered if not (isinstance(v, float) and math.isnan(v))]
            if not offered or any(v == value for v in offered) or _written_again(row, segment):
                continue
            found = list(self.find(row)) if self.find is not None else []
            if any(v == value for v in found):  # ``It might be 1.1 in practice, but 1.0 is the estimate.``
                continue
            raise Unreadable(
                f"the reply offers another answer ({_shown(offered[0])}) beside its final one ({_shown(value)}): "
                f"{row[:60]!r}"
            )
        for rest in conclusions(tail):
            try:
                other = self.alone(rest)
            except ValueError:
                continue
            if other != value and not (isinstance(other, float) and math.isnan(other)):
                raise Unreadable(
                    f"the reply concludes with another answer ({_shown(other)}) after its final one ({_shown(value)})"
                )

    def _heading_checked(self, segment: str, tail: str, value: Any) -> None:
        """Refuse an answer read from the line after a marker that stands alone (``## Answer``) when that line
        is no answer alone (:attr:`alone`: a sentence of explanation) and a later line reads as another answer
        (``## Answer\n\nEach add takes 1 cycle.\n\nWith 3 adds that is 3 cycles.``)."""
        try:
            self.alone(segment)
            return
        except ValueError:
            pass
        others = [v for v in _lenient(self.parse, [clean(line, line=True) for line in tail.splitlines()]) if v != value]
        others = [v for v in others if not (isinstance(v, float) and math.isnan(v))]
        if others:
            raise Unreadable(
                f"the line after its answer heading is an explanation ({segment[:60]!r}), and a later line gives "
                f"another answer ({_shown(others[0])})"
            )

    def _last_other(self, tail: str, value: Any) -> Any:
        """The answer the last non-empty line of ``tail`` (what follows a final answer) gives alone
        (:attr:`alone`) when it differs from ``value``, else None; a line of a code block that ends the
        reply is code (``main()``), no answer."""
        rows = [row for row in tail.splitlines() if row.strip()]
        if not rows:
            return None
        if _FENCE.match(rows[-1]):  # a code block ends the reply: code, unless it holds one line only
            opened = next((k for k in range(len(rows) - 2, -1, -1) if _FENCE.match(rows[k])), None)
            if opened is None or len(rows) - opened != 3 or _STATEMENT.match(rows[-2]):
                return None
            last = rows[-2]
        else:
            last = last_line(tail)
        try:
            other = self.alone(self._tidied(last, True))
        except ValueError:
            return None
        if other == value or (isinstance(other, float) and math.isnan(other)):
            return None
        return other

    def _other_finals(self, text: str, value: Any) -> list[Any]:
        """The answers the explicit final answers of ``text`` give other than ``value`` (those ``parse``
        refuses left out: an echoed template, ``Answer: N cycles``, gives none)."""
        out: list[Any] = []
        for v in _lenient(self.parse, [self._tidied(s, line) for s, line in _explicit(text)]):
            if v != value and not (isinstance(v, float) and math.isnan(v)) and not any(v == k for k in out):
                out.append(v)
        return out


def read(
    task: Task | str,
    reply: str,
    *,
    pattern: str | None = None,
    truncated: bool = False,
    labels: Sequence[Any] | None = None,
) -> Reading:
    """Read ``reply`` as the answer of ``task`` (a Task or its name).
    ``pattern``: the user's ``--answer-regex`` (Python ``re``; its last match's
    first group is the answer); ``truncated``: the server cut the reply at its
    token limit (``finish_reason`` ``length``); ``labels``: the answers the
    prompt offered (:data:`LABELS`), one of which the answer must be
    (:func:`one_of`). :class:`Unreadable` with a one-line reason when the
    reply holds no answer that can be read for sure; UsageError for a pattern
    that is no regular expression."""
    the_task = get_task(task) if isinstance(task, str) else task
    reader = the_task.answer if isinstance(the_task.answer, Reader) else Reader(parse=the_task.answer)
    if labels is not None:
        reader = offering(reader, labels)
    return reader.read(reply, pattern=pattern, truncated=truncated)


#: what a prompt template writes where the dataset's labels go (``--task classify``): the audit writes them
#: there (:func:`with_labels`), and then reads only one of them as an answer (:func:`offering`)
LABELS = "{labels}"


def offered(labels: Iterable[Any]) -> tuple[Any, ...]:
    """The distinct labels of ``labels`` (None left out) in a fixed order:
    numbers by value, then the rest by how they are written; a label
    compares by its JSON form, as the audit compares predictions (``3`` and
    ``"3"`` are two)."""
    distinct = {json.dumps(x, sort_keys=True, default=str): x for x in labels if x is not None}

    def order(key: str) -> tuple:
        x = distinct[key]
        value = None if isinstance(x, bool) else _number(_spelled(x))  # ``10`` after ``9``, as text too
        return (0, value, "", key) if value is not None else (1, 0, _spelled(x), key)

    return tuple(distinct[k] for k in sorted(distinct, key=order))


def unanswerable(labels: Sequence[Any]) -> tuple[Any, ...]:
    """The labels of ``labels`` (those a prompt offers, :func:`offered`) that
    no reply can be read as, in their order. An answer is the label written
    as it (an answer is never empty and has no space around it), else the
    one alike with case, spaces, ``-`` and ``_`` aside, else the one equal
    as a number, each only when that leaves one (:func:`one_of`); a label
    that none of these leaves alone is never read: ``3`` beside ``"3"``
    (written alike), ``" sorting"`` beside ``"Sorting"`` (only alike), the
    empty label (no answer is empty, and one of nothing but ``-`` and ``_``
    names no label)."""
    rules = ((lambda t: t), _loose, _number)
    keys = [[same(_spelled(x)) for same in rules] for x in labels]
    counts: list[dict] = [{} for _ in rules]  # how many labels have each key, rule by rule
    for row in keys:
        for r, key in enumerate(row):
            counts[r][key] = counts[r].get(key, 0) + 1

    def answerable(row: list) -> bool:
        for r, key in enumerate(row):
            if key is None or key == "" or (r == 0 and key != key.strip()):
                continue
            if counts[r][key] == 1:
                return True
        return False

    return tuple(x for x, row in zip(labels, keys) if not answerable(row))


def with_labels(template: str, labels: Sequence[Any]) -> str:
    """``template`` with :data:`LABELS` written as ``labels``, comma-separated:
    as they are, or each as JSON (strings quoted) when one is empty, holds a
    comma, a quote or a line break, or is written as another is (``3`` and
    ``"3"``). With no labels, every line that holds the placeholder is left
    out (the shipped classify prompt, for a dataset without labels)."""
    if not labels:
        return "".join(line for line in template.splitlines(keepends=True) if LABELS not in line)
    spelled = [_spelled(x) for x in labels]
    plain = len(set(spelled)) == len(spelled) and all(
        t and t == t.strip() and not re.search(r"[,\n\"]", t) for t in spelled
    )
    written = spelled if plain else (json.dumps(x, default=str, ensure_ascii=False) for x in labels)
    return template.replace(LABELS, ", ".join(written))


def offering(reader: Reader, labels: Sequence[Any]) -> Reader:
    """``reader`` for a prompt that offered ``labels``: an explicit final
    answer that is one of them as a whole (quotes, backticks, emphasis and a
    full stop aside) is that label, before the task's own rules, which might
    refuse it (a label of two words joined by ``and``, ``none``), and so is
    a line of second thoughts after it (``Actually, divide and conquer.``);
    any other answer the task reads must be one of them (:func:`one_of`).
    A reply's last line read without a final answer keeps the task's own
    rules (a bare ``3`` there is no label, whatever the labels). The answers
    looked for after the final one, and the candidates, compare as labels:
    ``SORTING`` after ``sorting`` is no other answer."""
    labels = tuple(labels)

    def parse(segment: str) -> Any:
        found = _whole_label(segment, labels)
        return found if found is not _NO_LABEL else one_of(reader.parse(segment), labels)

    def after(text: str) -> list:
        found = list(reader.after(text)) if reader.after is not None else []
        for rest in second_thoughts(text) + weak_thoughts(text):
            if (whole := _whole_label(rest, labels)) is not _NO_LABEL:
                found.append(whole)
        return [_as_label(v, labels) for v in found]

    def strict(read_line: Callable[[str], Any]) -> Callable[[str], Any]:
        return lambda segment: one_of(read_line(segment), labels)

    def mapped(read: Callable[[str], Any] | None, many: bool) -> Callable[[str], Any] | None:
        if read is None:
            return None
        if many:
            return lambda text: [_as_label(v, labels) for v in read(text)]
        return lambda line: _as_label(read(line), labels)

    return replace(
        reader,
        parse=parse,
        find=mapped(reader.find, True),
        last_line=strict(reader.last_line) if reader.last_line is not None else None,
        after=after,
        alone=mapped(reader.alone, False),
    )


def one_of(value: Any, labels: Sequence[Any]) -> Any:
    """The label of ``labels`` that ``value`` (an answer read) is: written
    the same, else the same with case, spaces, ``-`` and ``_`` aside, else
    the same number, when that leaves one (``Binary search`` is
    ``binary_search``, ``1`` is ``1.0``).
    :class:`Unreadable` when it is none of them, or several (``3`` when
    ``3`` and ``"3"`` are both offered): the prompt offered these, and a
    reply that names another (``not sorting``, ``O(n^2)``, a description)
    answers no question the audit asked."""
    found = _match(_spelled(value), labels)
    if found is _NO_LABEL:
        shown = _spelled(value) if len(_spelled(value)) <= 60 else _spelled(value)[:57] + "..."
        many = "label" if len(labels) == 1 else "labels"
        raise Unreadable(f"{shown!r} is none of the {len(labels)} {many} the prompt offered, or more than one")
    return found


#: no label: what :func:`_match` returns when a text is none of the labels, or more than one
_NO_LABEL = object()
#: what may stand around a label given as a whole (``**sorting**``, `` `sorting` ``, ``"sorting".``); not ``_``,
#: which may begin or end a label (``__init__``)
_AROUND = "`'\"“”‘’* \t"


def _match(text: str, labels: Sequence[Any]) -> Any:
    """The one label written as ``text``, else the one written so with case,
    spaces, ``-`` and ``_`` aside, else the one equal as a number (``1`` and
    ``1.0``); :data:`_NO_LABEL` for none or several."""
    for same in (lambda t: t, _loose, _number):
        key = same(text)
        if key is None or key == "":  # ``-`` alone is alike to no label, the empty one included
            continue
        hits = [label for label in labels if same(_spelled(label)) == key]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return _NO_LABEL
    return _NO_LABEL


def _number(text: str) -> float | None:
    """The number ``text`` writes (``1``, ``1.0``), or None: labels that are numbers compare by value."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _whole_label(segment: str, labels: Sequence[Any]) -> Any:
    """The label a segment is as a whole: as it is, or with quotes, backticks,
    emphasis and a closing full stop around it left out; :data:`_NO_LABEL` else."""
    text = segment.strip()
    for candidate in (text, text.strip(_AROUND), text.rstrip(".!").strip(_AROUND)):
        if candidate and (found := _match(candidate, labels)) is not _NO_LABEL:
            return found
    return _NO_LABEL


def _as_label(value: Any, labels: Sequence[Any]) -> Any:
    """``value`` as the label it is, or as it is when it is none (another answer all the same)."""
    found = _match(_spelled(value), labels)
    return value if found is _NO_LABEL else found


def _spelled(label: Any) -> str:
    """A label as the prompt writes it: a string as it is, anything else as JSON."""
    return label if isinstance(label, str) else json.dumps(label, default=str)


def _loose(text: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", text).split()).casefold()


def prompt(task: Task | str) -> str:
    """The shipped prompt template of ``task``: text with one ``{program}``
    placeholder. UsageError (``--prompt``) for a task that has none."""
    name = get_task(task).name if isinstance(task, str) else task.name
    if name not in PROMPTED:
        raise UsageError(
            f"the {name} task has no shipped prompt (tasks with one: {', '.join(PROMPTED)}): "
            "write a template with {program} in it and pass --prompt FILE",
            path="--prompt",
        )
    return (resources.files(__package__) / "prompts" / f"{name}.txt").read_text(encoding="utf-8")


# ------------------------------------------------------------ 1. reasoning
_TAGS = "think|thinking|reasoning"
_BLOCK = re.compile(rf"<(?P<tag>{_TAGS})\b[^>]*>.*?</(?P=tag)\s*>", re.I | re.S)
_OPEN = re.compile(rf"<(?:{_TAGS})\b[^>]*>", re.I)
_CLOSE = re.compile(rf"</(?:{_TAGS})\s*>", re.I)


def without_reasoning(reply: str, *, truncated: bool = False) -> str:
    """``reply`` without its reasoning blocks; Unreadable when nothing else is
    left, or when a block is never closed (the reply is still reasoning)."""
    if not reply.strip():
        raise Unreadable("the reply is empty")
    text = _BLOCK.sub("\n", reply)
    closes = list(_CLOSE.finditer(text))
    if closes:  # the opening tag was in the prompt's template (some servers strip it from the reply)
        text = text[closes[-1].end() :]
    if _OPEN.search(text):
        if truncated:
            raise Unreadable(f"cut off at the token limit while reasoning: {_RAISE}")
        raise Unreadable("the reply is reasoning with no answer after it (a <think> block is never closed)")
    if not text.strip():
        raise Unreadable("the reply is reasoning with no answer after it")
    return text


# ---------------------------------------------- 2-4. the segment to read
@dataclass(frozen=True)
class _Found:
    """The segment that holds a reply's answer, and where it came from."""

    text: str
    #: the reply's last line (no explicit final answer, no pattern)
    last_line: bool = False
    #: a whole line of the reply (its last line, or the line after an ``Answer:`` that stands alone)
    line: bool = False
    #: what follows an explicit final answer ("" when nothing does)
    tail: str = ""
    #: the reply's last line is a line of a code block
    code: bool = False


def _segment(text: str, pattern: str | None, truncated: bool) -> _Found:
    """The part of ``text`` (reasoning removed) that holds the answer."""
    if pattern is not None:
        return _Found(_by_pattern(text, pattern, truncated))
    final = _final(text)
    if final is not None:
        segment, end, whole, own_line = final
        if truncated and not whole:
            raise Unreadable(f"cut off at the token limit in its final answer {segment.strip()[:80]!r}: {_RAISE}")
        return _Found(segment, line=own_line, tail=text[end:].strip())
    if truncated:
        raise Unreadable(f"cut off at the token limit before a final answer (Answer: …): {_RAISE}")
    obj = _last_object(text)
    return _Found(obj or last_line(text), last_line=True, line=True, code=obj is None and _ends_in_code(text))


#: the key of a list's last item (or of a table's last row) that presents the answer, summing up the items
#: before it (``- Total: 1.25 cycles``, ``- Verdict: no bug``, ``| Name | `is_empty` |``, ``3. So about 2 cycles``)
_SUMMING = re.compile(
    r"^(?:so|thus|therefore|hence|overall|total|in[ \t]+total|final|finally|result|conclusion|net|answer"
    r"|predict(?:ion|ed)|estimated?|throughput|bottleneck|max(?:imum)?|verdict|bugs?|buggy|has[ \t]+(?:a[ \t]+)?bug"
    r"|correct|(?:(?:suggested|best|recommended|proposed|good|better)[ \t]+)?name|label|category|class(?:ification)?"
    r"|output|returns?|return[ \t]+value|value)\b",
    re.I,
)
#: what presents a list's last item as the answer wherever it stands in it: an arrow, a bold value, a
#: concluding word or phrase (``- Bottleneck: the chain → **3 cycles**``, ``3. A good name is `count_matches`.``)
_SUMS_UP = re.compile(
    r"→|=>|⇒|≈|\*\*[^*\s][^*]*\*\*|(?<![\w-])(?:so|hence|therefore|thus)(?![\w-])|\bthe[ \t]+answer[ \t]+is\b"
    r"|\bname[ \t]+(?:is|would[ \t]+be)\b|\b(?:call|name)[ \t]+it\b|\bgo[ \t]+with\b",
    re.I,
)


def _sums_up(item: str) -> bool:
    """Whether a list's last item (or a table's last row) presents the answer, summing up the ones before it:
    it opens with a key of the answer (:data:`_SUMMING`; a row, its first cell) or presents it anywhere
    (:data:`_SUMS_UP`)."""
    cells = table_cells(item)
    head = (cells[0] if cells else clean(item, line=True)).lstrip("→=>⇒ *")
    return bool(_SUMMING.match(head) or _SUMS_UP.search(item))


def _trailing_items(text: str) -> list[str]:
    """The items of the list or the data rows of the table that end ``text`` (code fences aside), in order:
    a reply that ends so offers several answers, or one among other findings, not one (``1. sorting`` /
    ``2. searching``, ``- Ports: 0.75 cycles`` / ``- Dependency chain: 1 cycle``)."""
    items: list[str] = []
    for line in reversed(text.splitlines()):
        if not line.strip() or _FENCE.match(line):
            if items:
                break
            continue
        if not _ITEM.match(line) or _RULE.match(line):
            break
        items.append(line)
    return items[::-1]


def _last_object(text: str) -> str | None:
    """The JSON object (or Python dict) that ends ``text`` over several lines (``{`` / ``"label": "sorting"`` /
    ``}``, in a code fence or not), its lines joined, when the last line closes it; else None: its last line
    alone would be ``}``."""
    rows = [line.strip() for line in text.splitlines() if line.strip() and not _FENCE.match(line)]
    if not rows or not rows[-1].startswith("}") or rows[-1].startswith("{"):
        return None
    for k in range(len(rows) - 2, max(-1, len(rows) - 50), -1):
        if rows[k].startswith("{"):
            block = " ".join(rows[k:])
            return block if json_object(block) is not None else None
    return None


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as err:
        raise UsageError(f"{pattern!r} is not a regular expression ({err})", path="--answer-regex")


def _by_pattern(text: str, pattern: str, truncated: bool) -> str:
    regex = _compiled(pattern)
    matches = list(regex.finditer(text))
    if not matches:
        raise Unreadable(f"no match of --answer-regex {pattern!r}")
    last = matches[-1]
    if truncated and last.end() >= len(text):  # the match may be the first part of a longer answer
        raise Unreadable(f"cut off at the token limit right after the --answer-regex match: {_RAISE}")
    segment = last.group(1) if regex.groups else last.group(0)
    if segment is None:
        raise Unreadable(f"the group of --answer-regex {pattern!r} took no part in its last match")
    return segment


_MARKER = re.compile(
    r"^(?P<lead>[ \t>#*_+•-]*)(?:(?:my|the|your)[ \t]+)?(?:final[ \t]+)?answer[ \t*_]*"
    r"(?::|：|[-–—](?=[ \t]|$))(?:[ \t]*(?:\*{1,2}|_{1,2})(?=[ \t]|$))?[ \t]*(?P<rest>.*)$",
    re.I | re.M,
)
#: a heading or a bold line that is only the word (``## Final Answer``, ``**Answer**``): a marker that stands alone
_HEADING = re.compile(
    r"^[ \t>]*(?:#{1,6}[ \t]*(?:\*\*|__)?|\*\*|__)[ \t]*(?:(?:my|the|your)[ \t]+)?(?:final[ \t]+)?answer"
    r"[ \t]*(?:\*\*|__)?[ \t]*[:：]?[ \t]*(?:\*\*|__)?[ \t]*$",
    re.I | re.M,
)
#: the first non-empty line after a marker that stands alone (``**Answer:**`` then the value)
_NEXT_LINE = re.compile(r"^[ \t]*(?!```|~~~)(\S.*)$", re.M)
_BOXED = re.compile(r"\\boxed\s*\{")
#: an answer between XML-like tags (``<answer>2.5</answer>``): its tags delimit it, they are no ``<`` or ``>``
_TAG = re.compile(r"<(?P<tag>(?:final[ _-]?)?answer)[ \t]*>(?P<content>.*?)(?P<close></(?P=tag)[ \t]*>|$)", re.I | re.S)
_TAG_MARK = re.compile(r"</?(?:final[ _-]?)?answer[ \t]*>", re.I)
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf|texttt|operatorname)\s*\{([^{}]*)\}")


def _boxed(text: str) -> list[tuple[str, int | None]]:
    """Every ``\\boxed{…}``: its content and the index past its closing brace
    (None when the reply ends inside it)."""
    out = []
    for m in _BOXED.finditer(text):
        depth, k = 1, m.end()
        while k < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        content = text[m.end() : k - 1] if not depth else text[m.end() :]
        out.append((untex(content), k if not depth else None))
    return out


def untex(content: str) -> str:
    r"""LaTeX's markup out of an answer written in it: ``\text{…}`` (and its kin) as their text, its spaces
    (``\,``, ``\ ``) as spaces, ``$`` removed (not inside a string literal: ``\boxed{'$5.00'}`` keeps it), an
    escaped underscore as one (``get\_value``)."""
    content = _LATEX_TEXT.sub(r"\1", content).replace("\\,", " ").replace("\\ ", " ")
    return _unquoted_dollars(content).replace("\\_", "_")


def _unquoted_dollars(text: str) -> str:
    """``text`` without its ``$`` signs but those inside a quoted string (``'$5.00'``, ``"$x"``)."""
    out, quote, k = [], None, 0
    while k < len(text):
        char = text[k]
        if quote is not None and char == "\\" and k + 1 < len(text):
            out.append(text[k : k + 2])
            k += 2
            continue
        if char in "'\"" and (quote is None or char == quote):
            quote = char if quote is None else None
        if char != "$" or quote is not None:
            out.append(char)
        k += 1
    return "".join(out)


def _tagged(text: str) -> list[tuple[str, int | None]]:
    """Every ``<answer>…</answer>``: its content and the index past its
    closing tag (None when the reply ends inside it)."""
    return [(m.group("content"), m.end() if m.group("close") else None) for m in _TAG.finditer(text)]


def _enclosed(text: str) -> list[tuple[str, int | None]]:
    """Every ``\\boxed{…}`` and ``<answer>…</answer>``, in the order they end."""
    return sorted(_boxed(text) + _tagged(text), key=lambda found: len(text) if found[1] is None else found[1])


def _marked(text: str) -> list[tuple[str, int, bool]]:
    """Every explicit final answer line: its answer (the next non-empty line's
    when the marker stands alone), the index where that line ends, and
    whether the answer is a line of its own (the marker stood alone)."""
    out = []
    markers = {m.start(): m for m in _HEADING.finditer(text)} | {m.start(): m for m in _MARKER.finditer(text)}
    for _, m in sorted(markers.items()):
        rest = m.groupdict().get("rest") or ""
        if rest.strip():
            out.append((_unbolded(rest, m.groupdict().get("lead") or ""), m.end(), False))
            continue
        nxt = _NEXT_LINE.search(text, m.end() + 1)
        if nxt is not None:
            out.append((nxt.group(1), nxt.end(), True))
    return out


_EMPHASIS_RUN = re.compile(r"(?:\*{1,3}|_{1,3})$")


def _unbolded(rest: str, lead: str) -> str:
    """What follows a marker line's ``Answer:`` without the emphasis that closes the line when the same run opened
    it (``**Answer: 6**`` -> ``6``, ``*Answer: True*`` -> ``True``): the emphasis is around the whole line, no part
    of the answer (a task whose answers are code keeps every other ``*`` and ``_``)."""
    run = _EMPHASIS_RUN.search(lead.rstrip())
    kept = rest.rstrip()
    if run is not None and kept.endswith(run.group()) and len(kept) > len(run.group()):
        return kept[: -len(run.group())]
    return rest


def _final(text: str) -> tuple[str, int, bool, bool] | None:
    """The explicit final answer of ``text``, the index past it, whether it
    is whole however the reply ends (a closed ``\\boxed{…}``; a line that
    ends the reply may have lost its end at the token limit), and whether it
    is a line of its own; or None."""
    enclosed = _enclosed(text)
    if enclosed:
        content, end = enclosed[-1]
        if end is None:
            raise Unreadable("the reply ends inside its \\boxed{…} or <answer> tag")
        return content, end, True, False
    marked = _marked(text)
    if marked:
        segment, end, own_line = marked[-1]
        return segment, end, end < len(text), own_line
    return None


def _explicit(text: str) -> list[tuple[str, bool]]:
    """Every explicit final answer of ``text`` (each ``\\boxed{…}`` and
    ``<answer>…</answer>``, each ``Answer: …`` line), raw, and whether it is
    a line of its own (the marker stood alone). A line that holds a
    ``\\boxed{…}`` or a tag (``Answer: \\boxed{4}``) is given by its content."""
    return [(content, False) for content, _ in _enclosed(text)] + [
        (segment, own_line)
        for segment, _, own_line in _marked(text)
        if not (_BOXED.search(segment) or _TAG_MARK.search(segment))
    ]


def finals(text: str, *, numbers: bool = False) -> list[str]:
    """Every explicit final answer of ``text`` (each ``\\boxed{…}`` and
    ``<answer>…</answer>``, each ``Answer: …`` line), in order and cleaned as
    the final one is (``numbers``: :attr:`Reader.numbers`)."""
    return [clean(segment, line=line, numbered=line or not numbers) for segment, line in _explicit(text)]


_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+#.-]*\s*$")


def _answered(text: str, last: str) -> str:
    """``last`` (the last line of ``text``) with the line before it when that one asks a question
    (``Is the function correct?``, ``Q: Does it hold a bug?``) that ``last`` answers; else ``last``."""
    rows = [line for line in text.splitlines() if line.strip() and not _FENCE.match(line)]
    if len(rows) >= 2 and clean(rows[-2], line=True).rstrip(" \t*_").endswith("?") and "?" not in last:
        return f"{clean(rows[-2], line=True)} {last.strip()}"
    return last


#: a line of code that is a statement, no value (``assert len(f(x)) == 2``, ``print(f(3))``, ``x = f(3)``)
_STATEMENT = re.compile(
    r"^[ \t]*(?:assert|print|return|def|class|import|from|for|while|if|with)\b|.*(?<![=!<>])=(?!=)|.*=="
)


def _ends_in_code(text: str) -> bool:
    """Whether the last non-empty line of ``text`` that is no code fence stands inside a code block of more than
    one line (a block of one line may present the answer: ```` ``` ```` / ``compute_mean`` / ```` ``` ````)."""
    inside, lines_in_block, last = False, 0, 0
    for line in text.splitlines():
        if _FENCE.match(line):
            inside, lines_in_block = not inside, 0
        elif line.strip():
            lines_in_block += inside
            last = lines_in_block if inside else 0
    return last > 1


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` that is no code fence."""
    for line in reversed(text.splitlines()):
        if line.strip() and not _FENCE.match(line):
            return line
    raise Unreadable("the reply holds nothing but code fences")


def lines(text: str, *, numbers: bool = False) -> list[str]:
    """Every non-empty line of ``text``, cleaned, an ``Answer:`` marker
    removed, and every ``\\boxed{…}``'s content: where a task's candidate
    finder looks one line at a time. ``numbers``: a number that opens what
    follows a marker is an answer, not a numbered list's mark (:attr:`Reader.numbers`)."""
    out = []
    for line in text.splitlines():
        line = _TAG_MARK.sub(" ", line)  # ``<answer>2.5</answer>``: its tags are no part of it
        if not line.strip() or _FENCE.match(line) or _HEADING.match(line):
            continue
        m = _MARKER.match(line)
        line = clean(m.group("rest"), numbered=not numbers) if m is not None else clean(line, line=True)
        if line:
            out.append(line)
    return out + [clean(content) for content, _ in _boxed(text)]


# --------------------------------------------------------------- 5. segments
#: a markdown bullet, and a numbered list's mark (``1.``, ``2)``)
_BULLETS = r"[-+*•](?=[ \t])"
_NUMBERED = r"\d{1,3}[.)](?=[ \t]+\S)"
#: a quote or a heading mark opens a whole line only: after ``Answer:`` (or inside ``\boxed{…}``) a ``>`` is
#: a bound (``Answer: > 3 cycles``), never a quote
_QUOTE = r">+|#{1,6}"
#: the marks that open a segment, by (whether it is a whole line, whether a numbered list's mark opens it)
_OPENING_MARKS = {
    (line, numbered): re.compile(
        rf"^(?:[ \t]*(?:{'|'.join([_BULLETS] + [_QUOTE] * line + [_NUMBERED] * numbered)})[ \t]*)+"
    )
    for line in (False, True)
    for numbered in (False, True)
}
# a pair of markers around text (no space just inside them); underscores only
# at word boundaries, so ``get_value_x`` keeps its own
_EMPHASIS = re.compile(r"(\*{1,3})(?=\S)(.+?)(?<=\S)\1|(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\3(?!\w)")
_STRAY = re.compile(r"^\*+[ \t]*|[ \t]*\*+$")
#: inline code around the whole segment (`` `0` ``): one span, which its own delimiter does not close inside
#: (`` `total` over `sum` `` is two spans and prose)
_CODE = re.compile(r"^(`{1,3})(?!`)((?:(?!\1).)+?)(?<!`)\1$", re.S)
#: LaTeX math around the whole segment (``$1$``, ``$$1$$``, ``\(1\)``, ``\[1\]``)
_MATH = re.compile(r"^(\${1,2})(?!\$)(.+?)(?<!\$)\1$|^\\\((.+?)\\\)$|^\\\[(.+?)\\\]$", re.S)


def clean(segment: str, *, line: bool = False, numbered: bool | None = None) -> str:
    """``segment`` stripped, without markdown bullets, emphasis (``**1.68**``
    -> ``1.68``), inline code and LaTeX math around it all (`` `0` `` ->
    ``0``, ``$1$`` -> ``1``); with
    ``line`` (the segment is a whole line of the reply, no answer marker
    before it), without quote and heading marks too; with ``numbered``
    (default: ``line``), without a numbered list's mark (``1.``)."""
    numbered = line if numbered is None else numbered
    segment = _OPENING_MARKS[line, numbered].sub("", segment.strip())
    previous = None
    while previous != segment:
        previous, segment = segment, _EMPHASIS.sub(lambda m: m.group(2) or m.group(4), segment)
        segment = _CODE.sub(r"\2", segment)
        segment = _MATH.sub(lambda m: untex(m.group(2) or m.group(3) or m.group(4)).strip(), segment)
    return _STRAY.sub("", segment).strip()


_LABEL = re.compile(r"^[^\W\d][\w'-]*(?:[ \t]+[\w'-]+){0,2}[ \t]*:[ \t]*(?=\S)")


#: a markdown table's row (``| Buggy | No |``): its cells between pipes
_ROW = re.compile(r"^[ \t]*\|(?P<cells>.*)\|[ \t]*$")
_RULE = re.compile(r"^[ \t:|-]*$")
#: a line of a markdown list or table (:func:`_trailing_items`)
_ITEM = re.compile(rf"^[ \t]*(?:{_BULLETS}|{_NUMBERED})|^[ \t]*\|.*\|[ \t]*$")


def table_cells(segment: str) -> list[str] | None:
    """The cells of ``segment`` when it is a markdown table's row (``| Buggy | No |`` -> ``["Buggy", "No"]``),
    each cleaned; None for any other segment and for a table's rule (``|---|---|``)."""
    row = _ROW.match(segment)
    if row is None or _RULE.match(segment):
        return None
    return [clean(cell) for cell in row.group("cells").split("|")]


def json_object(segment: str) -> dict | None:
    """The object ``segment`` is when it is all one JSON object or Python dict literal (``{"answer": 1}``,
    ``{'label': 'sorting'}``), its keys as text; None for any other segment."""
    text = segment.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else None


def without_label(segment: str) -> str:
    """``segment`` without a short label before a colon (``Verdict: 1`` ->
    ``1``, ``Function name: get_value`` -> ``get_value``): at most three words."""
    return _LABEL.sub("", segment, count=1)


# ------------------------------------------------------- 6. second thoughts
#: the openers of second thoughts that retract what came before whatever follows them (``Oops, …``, ``Correction:
#: …``, ``Scratch that``, ``Let me recompute: …``)
RETRACTING_OPENERS: tuple[str, ...] = (
    "oops",
    "whoops",
    "my mistake",
    "correction",
    "corrected",
    "scratch that",
    "let me correct",
    "let me correct that",
    "let me correct myself",
    "let me recompute",
    "let me recalculate",
    "let me recount",
    "let me reconsider",
)
#: the words that stop to correct what came before (``Wait, …``, ``Hold on, …``), inside a sentence too
_WAITS: tuple[str, ...] = (
    "actually",
    "wait",
    "no wait",
    "no, wait",
    "or wait",
    "ah wait",
    "wait a moment",
    "wait a second",
    "wait a minute",
    "hold on",
    "hang on",
)
#: the words that open a line of second thoughts (``Actually, …``, ``Update: …``, ``I think it's …``): the one
#: list :data:`SECOND_THOUGHTS` reads, and a reply cut at the token limit may end inside (``Actu``). A task may
#: add words that open any sentence (bugs: ``So 1.``), where only a bare answer may follow them
OPENERS: tuple[str, ...] = (
    *_WAITS,
    "hmm",
    "oh",
    "sorry",
    "rather",
    "instead",
    "in fact",
    "i mean",
    "i think",
    "but",
    "update",
    "updated",
    "edit",
    "revised",
    "final",
    "finally",
    "on second thought",
    "on second thoughts",
    "on further thought",
    "on further reflection",
    "on reflection",
    *RETRACTING_OPENERS,
)
#: the openers of :data:`OPENERS` that open notes as often as second thoughts (``I think that's the best fit.``,
#: ``But the add takes only 1 cycle.``): a line they open gives another answer only where the task reads one
#: alone in it (:attr:`Reader.alone`: ``I think 4 cycles.``, ``But `fetch_value` is better.``), never from any
#: parse of a sentence
WEAK_OPENERS: tuple[str, ...] = ("i think", "but", "finally", "in fact")
#: the openers that always open second thoughts (``Actually, …``, ``Wait, …``, ``Correction: …``)
STRONG_OPENERS: tuple[str, ...] = tuple(w for w in OPENERS if w not in WEAK_OPENERS)


def _phrases(words: Iterable[str]) -> str:
    """An alternation of ``words`` (phrases: any spaces between their words,
    ``hmmm`` as ``hmm``), the longest first (``let me correct that`` before
    ``let me correct``)."""
    phrases = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"[ \t]+") + ("+" if w.endswith("mm") else "") for w in phrases)


def opening(words: Sequence[str]) -> re.Pattern:
    """A pattern of one or more of ``words`` (any case) that open a text,
    with the punctuation after each: ``Wait, actually: …``."""
    return re.compile(rf"^(?:(?:{_phrases(words)})(?![\w-])[\s,.:;!—–-]*)+", re.I)


def _anywhere(words: Iterable[str]) -> re.Pattern:
    """A pattern of one of ``words`` (any case) as whole words anywhere in a text."""
    return re.compile(rf"(?<![\w-])(?:{_phrases(words)})(?![\w-])", re.I)


#: words that open a line of second thoughts (:data:`OPENERS`)
SECOND_THOUGHTS = opening(OPENERS)
_STRONG_WORD = _anywhere(STRONG_OPENERS)
#: a correction or another value inside an answer's own line, after a separator (``get_value (actually
#: fetch_value)``, ``2.25 cycles — wait, 3``): the strong openers but ``final`` (``(final)`` is a note), ``rather``
#: and ``instead`` (``rather than 3``, ``instead of 3``: a negation, which the task reads as one)
CORRECTING = _anywhere(w for w in STRONG_OPENERS if w not in ("final", "rather", "instead"))
#: what introduces the corrected answer after those words (``it's``, ``the call returns``, ``a better name is``,
#: ``it would probably be``, ``I meant``, ``I'd go with``)
_SUBJECT = r"(?:it|that|this|(?:the|a|an)[ \t]+\w+(?:[ \t]+\w+)?)"
_MAYBE = r"(?:(?:probably|maybe|perhaps|likely|possibly)[ \t]+)?"
#: the verb that presents it, a hedge before it or inside it (``is``, ``would probably be``, ``probably returns``)
_VERB = rf"{_MAYBE}(?:is|(?:would|should|must)[ \t]+{_MAYBE}be|returns|gives)"
_LEAD_IN = re.compile(
    rf"^(?:{_SUBJECT}(?:'s|’s)|{_SUBJECT}[ \t]+{_VERB}|i[ \t]+meant"
    r"|i(?:'d|’d|[ \t]+would)[ \t]+(?:rather[ \t]+)?"
    r"(?:go[ \t]+with|pick|choose|(?:label|call|name)[ \t]+it))(?![\w-])[ \t]*:?[ \t]*",
    re.I,
)

#: the verb alone, its subject before the pause (``The result, wait, is 7.``): on strong second thoughts only, as
#: after ``actually`` it opens notes as often (``The index, actually, is recomputed each iteration.``)
_BARE_VERB = re.compile(rf"^{_VERB}(?![\w-])[ \t]*:?[ \t]*", re.I)
#: a hedge on the corrected answer, before or after its lead-in (``Wait, maybe 7``, ``Actually it's probably 7``)
_HEDGE = re.compile(r"^(?:maybe|perhaps|probably|possibly|likely|more[ \t]+likely)(?![\w-])[ \t,]*", re.I)


_RETRACTING = opening(RETRACTING_OPENERS)
#: what retracts an answer on a line of strong second thoughts (``Wait, that's wrong.``, ``Hmm, I misread the
#: code``, ``Wait, I made a mistake: …``, ``Sorry, I meant searching``, ``Actually, I'd go with searching``,
#: ``Actually no — the correct throughput is 3``), where the task reads no answer
_RETRACTION = re.compile(
    r"\b(?:that|this|it|my[ \t]+(?:\w+[ \t]+)?(?:answer|count|trace|estimate|reasoning|calculation|figure))"
    r"(?:'s|’s|[ \t]+(?:is|was))[ \t]+(?:(?:all|completely|totally|clearly)[ \t]+)?(?:wrong|incorrect|not[ \t]+right)\b"
    r"|\bi[ \t]+(?:\w+[ \t]+)?(?:was[ \t]+wrong|made[ \t]+(?:a|an|one)[ \t]+(?:\w+[ \t]+)?(?:mistake|error)"
    r"|mis-?(?:read|traced?|counted|calculated|computed|understood|interpreted|labell?ed|named|took)"
    r"|double-counted|missed|overlooked|forgot|ignored|meant)\b"
    r"|\bmis-?(?:read|traced|counted|calculated|computed)\b|\bdouble-counted\b"
    r"|\b(?:fixed|made)[ \t]+(?:a|an|my)[ \t]+(?:\w+[ \t]+)?(?:mistake|error)\b"
    r"|\bi(?:'d|’d|[ \t]+would)[ \t]+(?:rather[ \t]+)?(?:go[ \t]+with|pick|choose|(?:label|call|name)[ \t]+it)\b"
    r"|\b(?:let[ \t]+me|i'll|i[ \t]+need[ \t]+to)[ \t]+(?:redo|re-do|recompute|recalculate|recount|reconsider|retrace"
    r"|re-trace|re-examine|reexamine|rethink)\b"
    r"|\bthe[ \t]+(?:correct|right|real|actual|true)[ \t]+(?:answer|throughput|value|result|output|label|name"
    r"|verdict|figure|count)[ \t]+(?:is|would[ \t]+be|should[ \t]+be)\b",
    re.I,
)


#: what offers another answer beside a final one, on a line after it (``Alternatively, `mean` would work.``,
#: ``(or searching)``, ``Other options: `mean`, `avg`.``, ``It could also be 1.5 cycles if …``, ``A better name
#: might be `compute_mean`.``, ``Alternatives: `mean`.``, ``(`avg` works as well.)``, ``I'd also accept `avg`.``): the
#: reply then holds no one answer where what the line offers (:func:`_offers`)
#: reads as an answer of the task (:attr:`Reader.alone`) and is not the final one (``Or, in camelCase:
#: `isPrime`.``); advice on the code (``Alternatively, you could unroll the loop.``) offers none
_ALTERNATIVE = re.compile(
    r"^\(?[ \t]*(?:alternatively|or)\b(?!-)"
    r"|\b(?:other|alternative)[ \t]+(?:(?:possible|good|valid|reasonable)[ \t]+)?(?:options|candidates|choices"
    r"|suggestions)\b|\b(?:other|alternative)[ \t]+(?:possible|good|valid|reasonable)[ \t]+(?:names|labels|answers)\b"
    r"|\banother[ \t]+(?:option|candidate|choice|suggestion|(?:possible|good|valid|reasonable)[ \t]+(?:name|label"
    r"|answer))\b"
    r"|\b(?:a|the)[ \t]+better[ \t]+(?:name|label|choice|answer|fit)\b"
    r"|\b(?:could|might|may|would)[ \t]+also[ \t]+(?:be|work|fit|do)\b"
    r"|\b(?:it|this|that)[ \t]+(?:could|might|may)[ \t]+(?:also[ \t]+)?be\b"
    r"|\bis[ \t]+what[ \t]+(?:most|many)[ \t]+\w+[ \t]+would[ \t]+(?:use|call|choose|pick|name)\b"
    r"|\b(?:might|could|may|i(?:'d|’d|[ \t]+would))[ \t]+also[ \t]+(?:(?:call|name)[ \t]+it|consider|see|get|use"
    r"|go[ \t]+with)\b"
    r"|^also[ \t]+consider\b|^if[ \t]+you[ \t]+prefer\b|^alternatives?[ \t]*:"
    r"|\b(?:works?|fits?|would[ \t]+(?:work|fit|do)|is[ \t]+(?:fine|good))(?:[ \t]+just)?[ \t]+(?:too|as[ \t]+well)\b"
    r"(?![ \t]+as\b)"
    r"|\bi(?:'d|’d|[ \t]+would|[ \t]+could|[ \t]+can)[ \t]+also[ \t]+accept\b"
    r"|\b(?:is|are)[ \t]+(?:also|equally)[ \t]+(?:plausible|acceptable|possible|fine|reasonable|valid|good|likely"
    r"|an[ \t]+option)\b|\b(?:fits|works|is)[ \t]+(?:even[ \t]+)?better\b(?![ \t]+than\b)",
    re.I,
)
#: what follows a word that offers an answer and is no answer itself: a participle, an adverb or a comparison
#: (``could also be written``, ``might be slightly``, ``could also be faster``), a clause or a phrase that opens
#: with a determiner, a pronoun or a preposition (``the case``, ``a bug``, ``you could``, ``for tuples``)
_NO_OFFER = re.compile(
    r"^(?:\w+ed|\w+ly|written|done|seen|run|made|built|found|kept|shown|thrown|split|different|slower|faster|better"
    r"|worse|more|less|higher|lower|wrong|off|worth|useful|surprising|slow|fast|expensive|inefficient|costly|quadratic"
    r"|the|a|an|this|that|these|those|its|their|his"
    r"|her|my|our|your|one|you|we|i|they|he|she|it|there|here|for|with|on|in|at|to|as|if|when|because|since|by|of"
    r"|from|about|like|than|not|no|nothing|none)\b",
    re.I,
)
#: what ends the answer an offering line gives and opens a note on it (``1.5 cycles if …``, ``"abc" — the same``)
_OFFER_END = re.compile(
    r"[ \t]+(?:if|because|since|when|on|in|for|which|but|due|as|given|assuming)\b|[ \t]*[—–(;]|[,:][ \t]"
)
#: the verbs that may stand between an offering word and its answer (``Another option is `s.upper()```)
_COPULA = re.compile(
    r"^(?:is|are|be|would[ \t]+be|might[ \t]+be|could[ \t]+be|maybe|perhaps|probably|possibly|just)\b[ \t]*", re.I
)


#: what opens or closes the text before words that offer an answer and is no part of it (``so `x` fits
#: better``, ``I'd say 2 cycles is also possible``, ``dynamic programming is the better label``)
_BEFORE_LEAD = re.compile(
    r"^(?:so|and|but|then|hence|thus|i(?:'d|’d|[ \t]+would)[ \t]+(?:actually[ \t]+)?say|i[ \t]+think)\b[ \t,]*", re.I
)
_BEFORE_VERB = re.compile(r"[ \t]+(?:is|are|would[ \t]+be|seems)$", re.I)


def _offers(row: str, m: re.Match) -> list[str]:
    """The texts of ``row`` that may be the answer a line offers beside the final one, ``m`` the words that
    offer it: what follows them up to a note (``It could also be 1.5 cycles if …`` -> ``1.5 cycles``), each
    of a list's items after them (``Other options: `mean`, `avg`.``), and what stands before them after the
    last comma or colon (`` `compute_mean` would also be reasonable``, ``But honestly, `contains` is what …``,
    ``Alternatives considered: none fit as well``)."""
    out = []
    after = _COPULA.sub("", row[m.end() :].strip(" \t,:;.)—–-"))
    if after and not _NO_OFFER.match(after):
        out.append(after)
        cut = _OFFER_END.search(after)
        if cut is not None and cut.start() > 0:
            out.append(after[: cut.start()])
        parts = [p.strip(" \t.)") for p in re.split(r",|[ \t]or[ \t]", after)]
        out += [p for p in parts if p and not _NO_OFFER.match(p)]
    before = _BEFORE_LEAD.sub("", re.split(r"[,:]", row[: m.start()])[-1].strip(" \t(:;."), count=1)
    before = _BEFORE_VERB.sub("", before, count=1)
    if before and not _NO_OFFER.match(before):
        out += [before, before[0].lower() + before[1:]]  # ``Sorting fits as well``: a label in a sentence's case
    return [text.strip(" \t.)") for text in out if text.strip(" \t.)")]


#: a conclusion that presents an answer after a colon (``Therefore: searching``, ``In short: searching.``,
#: ``Bottom line: 7.``): on a line after a final answer it gives another one where what follows the colon reads
#: alone as another
_CONCLUSION = re.compile(
    r"^(?:therefore|thus|hence|so|in[ \t]+short|in[ \t]+summary|in[ \t]+conclusion|in[ \t]+brief|overall"
    r"|to[ \t]+sum[ \t]+up|to[ \t]+summari[sz]e|summary|bottom[ \t]+line|tl;?[ \t]*dr)[ \t]*:[ \t]*(?P<rest>\S.*)$",
    re.I,
)


#: a clause that denies what it says of other answers (``No other name fits as well — `bound` … are less
#: common``, ``None of the other labels fits as well: …``)
_NEGATED = re.compile(r"(?:no|none|nothing|neither|not|nor)(?![\w'’-])", re.I)


def _alternatives(tail: str) -> list[tuple[str, re.Match]]:
    """Each line of ``tail`` (what follows a final answer) with words that offer another answer
    (:data:`_ALTERNATIVE`) in a clause that denies none (:data:`_NEGATED`), cleaned, and those words."""
    out = []
    for line in tail.splitlines():
        row = clean(line, line=True)
        m = _ALTERNATIVE.search(row) if row else None
        if m is not None and not _NEGATED.match(re.split(r"[.;:—–]", row[: m.start()])[-1].strip()):
            out.append((row, m))
    return out


def _written_again(line: str, segment: str) -> bool:
    """Whether ``line`` writes the final answer's text (``segment``, as it was read) again as a whole token
    (``Or 6``, ``Alternatively, `get_value```, ``It could also be 3 cycles``)."""
    shown = segment.strip().rstrip(".")
    if not shown:
        return False
    return re.search(rf"(?<![\w.]){re.escape(shown)}(?!\.?\d|\w)", clean(line, line=True).replace("`", "")) is not None


def conclusions(tail: str) -> list[str]:
    """What follows the colon of each line of ``tail`` that presents a conclusion (:data:`_CONCLUSION`:
    ``Therefore: searching`` -> ``searching``)."""
    rows = (_CONCLUSION.match(clean(line, line=True)) for line in tail.splitlines())
    return [clean(m.group("rest")) for m in rows if m is not None]


def retracts(line: str) -> bool:
    """Whether ``line`` retracts an answer in words (:data:`_RETRACTION`: ``I was wrong``, ``that's wrong``, ``I
    misread``, ``I meant …``), wherever it stands; a task's reader of a line need not read such words as an
    answer of its own (bugs: ``I was wrong`` describes no bug)."""
    return _RETRACTION.search(line) is not None


def _restated(line: str, value: Any) -> bool:
    """Whether ``line`` writes the answer ``value`` out again, as a word of its own (``Actually, I'd call it
    sorting too.``): only a value in words is looked for, a number may be any count."""
    shown = value if isinstance(value, str) else None
    if shown is None or len(shown) < 3 or not re.search(r"[^\W\d_]", shown):
        return False
    return re.search(rf"(?<![\w.]){re.escape(shown)}(?![\w.])", line) is not None


def _retraction(tail: str, restates: Callable[[str], bool]) -> str | None:
    """The first line of ``tail`` (what follows a final answer) that retracts it: a line of strong second
    thoughts (:data:`STRONG_OPENERS`) opened by words that retract (:data:`RETRACTING_OPENERS`: ``Oops, …``,
    ``Correction: …``), that says so (:data:`_RETRACTION`: ``Wait, that's wrong.``, ``Sorry, I meant …``) or
    that holds nothing but a bare ``no`` (``Wait, no.``, ``Actually, no.``), unless it gives the final answer
    again (``restates``: ``Correction: 6`` after ``Answer: 6``); else None. Another answer there refuses the
    reply already (:attr:`Reader.after`); this refuses a retraction that gives none the task reads (``Wait, I
    made a mistake: 1 and 3 are odd.``)."""
    for line in tail.splitlines():
        for _, row in sentences(clean(line, line=True)):
            opener = SECOND_THOUGHTS.match(row)
            if opener is None or not _STRONG_WORD.search(opener.group()):
                continue
            if not (_RETRACTING.match(row) or _RETRACTION.search(row[opener.end() :]) or _bare(row)):
                continue
            try:
                if restates(line):
                    continue
            except ValueError:
                pass
            return row
    return None


def _second_thoughts_cut(tail: str) -> bool:
    """Whether ``tail`` (what follows a final answer in a reply cut at the
    token limit) opens second thoughts, or ends inside their first words
    (``Actu``, ``On sec``; three letters at least: ``So`` may open anything):
    the reply may have been about to give another answer."""
    rows = [clean(line, line=True) for line in tail.splitlines() if line.strip()]
    if any(SECOND_THOUGHTS.match(row) and SECOND_THOUGHTS.match(row).group().strip() for row in rows):
        return True
    last = " ".join(rows[-1].lower().split()) if rows else ""
    return len(last) >= 3 and any(opener.startswith(last) for opener in OPENERS)


#: where a sentence ends inside a line and another opens (``The loop runs twice. No wait, 7.``)
_SENTENCE_END = re.compile(r"(?<=[.!?])[ \t]+(?=\S)")
#: a pause inside a sentence (``—``, ``;``, ``…``, ``(``) that second thoughts may follow too (``The sum is 6 —
#: wait, 10.``, ``6; actually 7``, ``6… no wait, 7``, ``6 (wait, 7)``)
_PAUSE = re.compile(r"[ \t]*(?:[—–;…]|\.\.\.)[ \t]*(?=\S)|[ \t]+\((?=\S)")
#: a softer pause (``,``, ``:``, a spaced hyphen, ``[``), after which ``actually`` is as often an aside (``It is,
#: actually, a getter``, ``Note: actually …``): second thoughts there open with punctuation after their words
#: (``6, wait, 7``, ``6 [wait, 7]``; not ``[wait for the lock]``), and those that ``actually`` alone opens are
#: weak ones, read only where an answer stands alone in them (``6, actually 7``, ``2.5, actually, perhaps 3``;
#: not ``It is, actually, a plain getter``)
_SOFT_PAUSE = re.compile(r"[ \t]*[,:][ \t]*(?=\S)|[ \t]+-{1,2}[ \t]+(?=\S)|[ \t]+\[(?=\S)")
#: the openers that correct after a pause: only those that never open an aside (``(rather than …)``, ``(final
#: answer)``, ``(oh, in place)``, ``; sorry for the length`` are asides)
PAUSE_OPENERS: tuple[str, ...] = (*_WAITS, "correction", "scratch that")
_AFTER_PAUSE = opening(PAUSE_OPENERS)
_SOFT_WEAK = ("actually",)
_AFTER_SOFT_PAUSE = re.compile(
    rf"(?:{_phrases(w for w in PAUSE_OPENERS if w not in _SOFT_WEAK)})(?:[ \t]*[,:;!—–]|[ \t]+-{{1,2}}[ \t])", re.I
)
_ACTUALLY = re.compile(rf"(?:{_phrases(_SOFT_WEAK)})(?![\w-])", re.I)
#: quoted text, where a bracket is no bracket (``'()'``, `` `]` ``, ``"["``)
_QUOTED_TEXT = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)")


def _unquoted(text: str) -> str:
    """``text`` with its quoted text blanked, as long as it was."""
    return _QUOTED_TEXT.sub(lambda m: " " * len(m.group()), text)


def _depth(text: str) -> int:
    """How many brackets ``text`` leaves open (``(`` and ``[``; quoted ones are none)."""
    depth = 0
    for char in _unquoted(text):
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
    return depth


def _closing(text: str) -> int:
    """The index in ``text`` of the first bracket that closes one opened before it, nested ones balanced
    (``actually f(3) returns 8)``) and quoted ones none (``gives ')(' so``), or its length where none does."""
    depth = 0
    for k, char in enumerate(_unquoted(text)):
        if char in "([":
            depth += 1
        elif char in ")]":
            if depth == 0:
                return k
            depth -= 1
    return len(text)


def _outside(pattern: re.Pattern, text: str) -> list[re.Match]:
    """The matches of ``pattern`` in ``text`` that open outside quotes and brackets (not the colon of ``{'a':
    2}`` nor the comma of ``[1, 2]``), found in ``text`` with its quoted text masked by a word's characters
    (which no pause matches, nor any spaces around one)."""
    masked, depth, levels = _QUOTED_TEXT.sub(lambda m: "_" * len(m.group()), text), 0, []
    for char in masked:
        levels.append(depth)
        if char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
    return [m for m in pattern.finditer(masked) if m.start() < len(levels) and not levels[m.start()]]


def _head(text: str) -> str | None:
    """What opens ``text`` before a note on it (:data:`_HEAD_END`, outside quotes and brackets: ``searching,
    it returns an index`` -> ``searching``); None where no note follows."""
    ends = [m for m in _outside(_HEAD_END, text) if m.start()]  # not a bracket that opens it: ``(2, 1) once …``
    return text[: ends[0].start()].strip() or None if ends else None


def _sentences(row: str) -> list[tuple[int, str, bool]]:
    """:func:`sentences`, each with where it starts in ``row`` (0: the line itself) and whether it is weak:
    ``actually`` alone after a soft pause."""
    cuts = {m.end(): False for m in _SENTENCE_END.finditer(row)}
    for m in _PAUSE.finditer(row):
        if _AFTER_PAUSE.match(row[m.end() :]):
            cuts[m.end()] = False
    for m in _SOFT_PAUSE.finditer(row):
        strong = _AFTER_SOFT_PAUSE.match(row, m.end()) is not None
        if m.end() not in cuts and (strong or _ACTUALLY.match(row, m.end())):
            cuts[m.end()] = not strong
    out = [(0, row, False)]
    for start in sorted(cuts):
        rest = row[start:]
        if _depth(row[:start]):  # to the bracket's close, or past it when they hold no answer: ``(wait, no) — 7``
            close = _closing(rest)
            rest = rest[:close] + rest[close + 1 :] if _bare(rest[:close]) else rest[:close]
        out.append((start, rest, cuts[start]))
    return out


def sentences(row: str) -> list[tuple[int, str]]:
    """Each sentence of ``row`` (one line) with what follows it to the line's end, and its place: the line
    itself first (0), then from each sentence that opens inside it (``The loop runs twice. No wait, 7.`` ->
    ``No wait, 7.``), and from each pause that words of correction follow (:data:`PAUSE_OPENERS`: ``The sum is
    6 — wait, 10.``, ``6, wait, 7``, ``6 [wait, 7]``; not the weak ones, ``6, actually 7``). Second thoughts run
    to the line's end, over their own sentence ends (``Wait, the range is inclusive. So it returns 10.``); those inside
    brackets, to their close (``6 (wait, f(3) is 7).`` -> ``wait, f(3) is 7``, ``6 (note: actually 7)`` ->
    ``actually 7``)."""
    return list(enumerate(sentence for _start, sentence, weak in _sentences(row) if not weak))


def weak_sentences(row: str) -> list[str]:
    """The second thoughts of ``row`` (one line) that ``actually`` alone opens after a soft pause (``6, actually
    7``, ``fine: actually, `<` should be `<=```), which :func:`sentences` leaves out: as often asides (``It is,
    actually, a plain getter``)."""
    return [sentence for _start, sentence, weak in _sentences(row) if weak]


#: a bare ``no`` after words of second thoughts (``Wait, no — 7.``, ``Actually, no, 7``): no part of the answer;
#: not ``no`` that opens a phrase (``Wait, no element is 7``)
_BARE_NO = re.compile(r"^no(?:[ \t]*[,.:;!—–-]+[ \t]*|[ \t]*$)", re.I)


def _unhedged(rest: str) -> str:
    """``rest`` (what follows words of second thoughts) without a bare ``no``, its lead-in and a hedge before
    or after it (``it's probably 7`` -> ``7``, ``no — 7`` -> ``7``)."""
    rest = _BARE_NO.sub("", rest, count=1)
    return _HEDGE.sub("", _LEAD_IN.sub("", _HEDGE.sub("", rest, count=1), count=1), count=1).strip()


def _bare(thought: str) -> bool:
    """Whether ``thought`` holds nothing but words of second thoughts and a bare ``no`` (``wait, no``)."""
    m = SECOND_THOUGHTS.match(thought)
    return m is not None and not _unhedged(thought[m.end() :])


def opened_strongly(text: str) -> re.Match | None:
    """The words of second thoughts that open ``text`` (:data:`OPENERS`), where a strong one is among them
    (:data:`STRONG_OPENERS`: ``Wait, …``, ``But wait, …``; not ``But …`` alone); None otherwise."""
    m = SECOND_THOUGHTS.match(text)
    return m if m is not None and _STRONG_WORD.search(m.group()) else None


#: where the head of second thoughts ends and a note on it opens: of weak ones after a spaced hyphen that follows
#: an answer (:data:`_ANSWER_BEFORE`), of strong ones after a bare ``no`` (``Wait, no — searching. It stops …``)
#: (``- actually searching, it returns an index``, ``- actually 2.5 once the store is counted``; after a comma
#: they are as often notes on a detail (``It reads, actually, `self._value`, which is private``), and so are
#: those a second dash closes: ``It wraps the attribute - actually `self._value` - in a method``)
_HEAD_END = re.compile(
    r"[ \t]*(?:[,;:(—–]|[.!?](?:[ \t]|$))|[ \t]+-{1,2}[ \t]|[ \t]+(?:since|because|as|once|when|if|given|due)\b", re.I
)
#: what stands before a spaced hyphen where weak second thoughts after it correct an answer: a number (``2.0 -
#: actually 2.5``), a quoted or bracketed literal, or a word that ``it's``, ``that's``, ``I'd say`` or a colon
#: presents (``That's sorting - actually searching``); not a detail (``The list has 3 elements - actually 4 if …``)
_ANSWER_BEFORE = re.compile(
    r"(?:(?<![\w.])[-−]?\d[\d.,]*(?:[ \t]+cycles?)?|[`'\")\]}]|(?:^|\b(?:it|that|this)(?:'s|’s|[ \t]+is)[ \t]+"
    r"|:[ \t]*|\bi(?:'d|’d|[ \t]+would)[ \t]+(?:say|go[ \t]+with|pick|choose|call[ \t]+it)[ \t]+)[^\W\d]\w*)"
    r"[ \t]+-{1,2}[ \t]*$",
    re.I,
)


_DASH = re.compile(r"[ \t](?:-{1,2}|[—–])[ \t]|[—–]")


def _thoughts(text: str) -> list[tuple[str, bool]]:
    """The lines of ``text`` that open with words of second thoughts, each as
    what follows those words to the line's end, and whether a strong one (:data:`STRONG_OPENERS`) is among
    them; each sentence inside a line that opens with strong ones, as what follows those words to the
    line's end (``The loop runs twice. No wait, 7.``); and of weak ones after a spaced hyphen that follows an
    answer, their head too, before a note on it (:func:`_head`)."""
    out = []
    for line in text.splitlines():
        row = clean(line, line=True)
        for start, sentence, weak in _sentences(row):
            m = SECOND_THOUGHTS.match(sentence)
            if m is None or not m.group().strip():
                continue
            strong = bool(_STRONG_WORD.search(m.group())) and not weak
            rest = sentence[m.end() :].strip()
            rest = _unhedged(rest) if weak else rest  # ``6, actually it's 7``: as after a strong opener
            if rest and (start == 0 or strong or weak):
                out.append((rest, strong))
            if weak and _ANSWER_BEFORE.search(row[:start]) and not _DASH.search(rest) and (head := _head(rest)):
                out.append((head, False))  # ``6 - actually, perhaps 10, since …``: ``10``
    return out


def second_thoughts(text: str) -> list[str]:
    """The lines of ``text`` (what follows a final answer) that open with words of
    strong second thoughts (:data:`STRONG_OPENERS`), each as what follows them,
    their lead-in and a hedge (``Wait, it's [4]`` -> ``[4]``, ``Wait, maybe 7`` ->
    ``7``): where a task looks for another answer after its final one (a weak
    opener's line: :func:`weak_thoughts`)."""
    return _strong(_thoughts(text))


def _said(rest: str) -> str:
    """What strong second thoughts say after their opening words, without a verb whose subject stood before
    them, a lead-in and a hedge (``is 7`` -> ``7``, ``it's probably 7`` -> ``7``)."""
    return _unhedged(_BARE_VERB.sub("", rest, count=1))


def _strong(thoughts: list[tuple[str, bool]]) -> list[str]:
    """:func:`second_thoughts` of ``thoughts`` (:func:`_thoughts`' list)."""
    return [said for rest, strong in thoughts if strong and (said := _said(rest))]


def _weak(thoughts: list[tuple[str, bool]]) -> list[str]:
    """:func:`weak_thoughts` of ``thoughts`` (:func:`_thoughts`' list)."""
    return [rest for rest, strong in thoughts if not strong]


#: what opens a clause, not an answer, after a bare ``no`` (``Wait, no — let me re-read …``, ``No, I think …``)
_NO_HEAD = re.compile(r"(?:let|let's|i|i'll|i'm|we|you|there|here|that|this|it|nothing|not)(?![\w'’-])", re.I)


def _rejected(thoughts: list[tuple[str, bool]]) -> list[str]:
    """The head of each line of strong second thoughts (:func:`_thoughts`' list) that a bare ``no`` opens,
    before a note on it (``Wait, no — searching. It stops …`` -> ``searching``, ``Hmm, no, it's string: …`` ->
    ``string``): where an answer that stands alone replaces the one the ``no`` rejects."""
    out = []
    for rest, strong in thoughts:
        head = _head(_said(rest)) if strong and _BARE_NO.match(rest) else None
        if head is not None and not _NO_HEAD.match(head):
            out.append(head)
    return out


def weak_thoughts(text: str) -> list[str]:
    """The lines of ``text`` that open with weak openers only (:data:`WEAK_OPENERS`:
    ``I think``, ``But``, ``Finally``, ``In fact``), each as what follows them
    (no lead-in removed): a task reads another answer there only alone
    (:attr:`Reader.alone`)."""
    return _weak(_thoughts(text))


#: what opens the conclusion that ends second thoughts: ``so`` and its kin after a clause's end (``Wait, the
#: range is inclusive, so 10.``, ``…; hence it's 10``), a colon (``the default shifts it: 9.``) or a dash (``… —
#: that's math.``); not ``so`` inside a clause (``it is so slow``)
_CONCLUDES = re.compile(
    r"(?:^|[,;.:!?—–][ \t]*|[ \t]+-{1,2}[ \t]+|[ \t]+and[ \t]+)(?:so|thus|hence|therefore)(?![\w-])[ \t,:]*"
    r"|:[ \t]+|[ \t]*[—–](?![ \t]*(?:so|thus|hence|therefore)(?![\w-]))[ \t]*",
    re.I,
)
#: what closes a conclusion after its answer and is no part of it (``that's gcd, not lcm``)
_NOT_END = re.compile(r",?[ \t]+(?:not|rather[ \t]+than|instead[ \t]+of)[ \t]+[^,;]*$", re.I)


#: what presents the answer a conclusion gives (``so it's 10``, ``so the answer is searching``, ``hence I get 3``):
#: not another subject's verb (``so the table is reused``)
_CONCLUSION_LEAD = re.compile(
    rf"^(?:(?:it|that|this|the[ \t]+(?:answer|result|output|value|label|name|category|throughput|call))"
    rf"(?:'s|’s|[ \t]+{_VERB})|i[ \t]+get)(?![\w-])[ \t]*:?[ \t]*",
    re.I,
)
#: the words around an answer that a conclusion keeps (``so it is still math``, ``so sorting anyway``)
_KEPT = re.compile(r"^(?:still|really|indeed|definitely|clearly|just|truly)[ \t]+", re.I)
_KEPT_END = re.compile(
    r"[ \t,]+(?:anyway|after[ \t]+all|again|too|indeed|regardless|as[ \t]+well|all[ \t]+along)(?=[ \t.!]*$)", re.I
)


#: a conclusion that agrees, no answer (``Wait, let me check the return value: a string … — yes.``)
_AGREED = re.compile(r"(?:yes|yeah|yep|no|nope|right|correct|ok|okay|indeed|confirmed|exactly|good|fine)[ \t.!]*", re.I)


def concluded(rest: str) -> str | None:
    """What ends ``rest`` (a line of second thoughts) after the last words that conclude outside quotes and
    brackets (:data:`_CONCLUDES`), without the words that present it or keep it (``the range is inclusive, so
    it's 10.`` -> ``10.``, ``so it is still math`` -> ``math``); None where none do or the conclusion agrees
    (:data:`_AGREED`: ``— yes.``)."""
    found = _outside(_CONCLUDES, rest)
    if not found:
        return None
    end = _HEDGE.sub("", _BARE_NO.sub("", rest[found[-1].end() :].strip(), count=1), count=1)
    end = _HEDGE.sub("", _KEPT.sub("", _CONCLUSION_LEAD.sub("", end, count=1), count=1), count=1)
    end = _NOT_END.sub("", _KEPT_END.sub("", end, count=1), count=1).strip()
    return None if not end or _AGREED.fullmatch(end) else end


def later(
    text: str,
    parse: Callable[[str], Any],
    *,
    forms: Callable[[str], Sequence[str]] | None = None,
    otherwise: Callable[[str], list] | None = None,
    weak: Callable[[str], list] | None = None,
) -> list:
    """What ``parse`` reads on each line of strong second thoughts of ``text``
    (what follows a final answer: :func:`second_thoughts`): the first of the
    line's ``forms`` it reads (the line alone by default), else what
    ``otherwise`` finds in it and what ``weak`` finds in its conclusion
    (:func:`concluded`: ``Wait, the range is inclusive, so 10.``) or in the
    head after a bare ``no`` (:func:`_rejected`); and the answers ``weak``
    finds on a line of weak ones (:func:`weak_thoughts`; a ValueError: none), where
    a task reads only an answer that stands alone or is presented as one, not
    any parse of a sentence; a task's ``after`` (step 6)."""
    out, thoughts = [], _thoughts(text)  # the lines of second thoughts, found once
    for rest in _weak(thoughts) if weak is not None else ():
        try:
            out += weak(rest)
        except ValueError:
            continue
    alone = []  # a conclusion, a head after a bare ``no``: read only where they stand alone, in the task's forms
    for rest in _strong(thoughts):
        for form in dict.fromkeys(forms(rest) if forms is not None else (rest,)):
            try:
                out.append(parse(form))
                break
            except ValueError:
                continue
        else:
            if otherwise is not None:
                out += otherwise(rest)
            alone += [end] if (end := concluded(rest)) is not None else []
    for said in (*alone, *_rejected(thoughts)) if weak is not None else ():
        for form in dict.fromkeys(forms(said) if forms is not None else (said,)):
            try:
                out += weak(form)
            except ValueError:
                continue
    return out


# ------------------------------------------------------------------ numbers
# a number as a whole token: never digits inside a word (x86-64, 4th, r10d,
# AVX2, Haswell-E5, 64-bit), a version (3.11.2), either side of a decimal
# comma (3,5) or of a fraction (3/2); a minus only when it stands alone (not
# 5-3); thousands separated by commas (1,234.5); an exponent (1.68e2)
_NUMBER = re.compile(
    r"(?<![\w.])(?<!\w[-‐])(?<!\d,)(?<!\d/)(?<!\d[ \t]/)(?<!\d/[ \t])(?<!\d[ \t]/[ \t])(?P<sign>[-−](?=\.?\d))?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d*)?|\.\d+)(?P<exp>[eE][-+]?\d+)?"
    r"(?!\w|[.,]\d|[-‐]\w|[ \t]?/[ \t]?\d)"
)
_PERCENT = re.compile(r"[ \t]*%")
_PLUS_MINUS = re.compile(r"(?:±|\+/-|\+-)[ \t]*$")


@dataclass(frozen=True)
class Number:
    """A number written in a reply, and where."""

    value: float
    start: int
    end: int


def numbers(text: str) -> list[Number]:
    """The numbers of ``text`` that stand as whole tokens, in order; not a
    percentage (``5%``) or an uncertainty (``± 0.05``)."""
    out = []
    for m in _NUMBER.finditer(text):
        if _PERCENT.match(text, m.end()) or _PLUS_MINUS.search(text[max(0, m.start() - 8) : m.start()]):
            continue
        sign = "-" if m.group("sign") else ""
        out.append(
            Number(float(sign + m.group("digits").replace(",", "") + (m.group("exp") or "")), m.start(), m.end())
        )
    return out


def show(value: float) -> str:
    """A number as a reason prints it (``2``, ``1.5``, ``1e+06``)."""
    return f"{value:.15g}"


# ---------------------------------------------------------------- helpers
def _parsed(parse: Callable[[str], Any], segment: str) -> Any:
    try:
        return parse(segment)
    except Unreadable:
        raise
    except ValueError as err:  # a task's own parser (``float``, a label reader) says why in its words
        raise Unreadable(" ".join(str(err).split()) or f"no answer in {segment[:80]!r}") from None


def _lenient(parse: Callable[[str], Any], segments: Sequence[str]) -> list[Any]:
    """What ``parse`` reads in each of ``segments`` (explicit final answers,
    cleaned), those it refuses left out."""
    out = []
    for segment in segments:
        try:
            out.append(parse(segment))
        except ValueError:
            continue
    return out


def _shown(value: Any) -> str:
    """An answer as a reason quotes it."""
    return show(value) if isinstance(value, float) else repr(value) if isinstance(value, str) else str(value)


def _distinct(values: Sequence[Any]) -> int:
    """How many different values, by equality (answers need not be hashable;
    a float NaN is no answer and is never read); at least 1."""
    hashed: set = set()
    others: list[Any] = []
    for v in values:
        if isinstance(v, float) and math.isnan(v):
            continue
        try:
            hashed.add(v)
        except TypeError:
            if not any(v == k for k in others):
                others.append(v)
    return max(1, len(hashed) + len(others))


__all__ = [
    "sentences",
    "PAUSE_OPENERS",
    "opened_strongly",
    "weak_sentences",
    "Reading",
    "Unreadable",
    "Reader",
    "Number",
    "PROMPTED",
    "SEGMENT_CHARS",
    "read",
    "prompt",
    "LABELS",
    "offered",
    "unanswerable",
    "with_labels",
    "one_of",
    "offering",
    "without_reasoning",
    "finals",
    "last_line",
    "lines",
    "clean",
    "without_label",
    "table_cells",
    "json_object",
    "OPENERS",
    "RETRACTING_OPENERS",
    "WEAK_OPENERS",
    "STRONG_OPENERS",
    "CORRECTING",
    "opening",
    "retracts",
    "second_thoughts",
    "weak_thoughts",
    "later",
    "numbers",
    "show",
]
