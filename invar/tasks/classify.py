"""Program classification, for audits: any program -> a class label.

The task of a model invar does not train (a bug detector, a classifier of
code served behind an HTTP endpoint, a Python function the user wrote): each
prediction is a discrete label (a string, a number or a list), compared
exactly. Metric: accuracy (the audit reports macro F1 beside it).

Task symmetries: semantics-preserving **renamings** and **reorderings** both
keep a label that depends only on what the program does (docs/semantics.md),
as for the names and bugs tasks of shared/DESIGN.md. A label that names
things of the program (a variable, a register) is renamed back by
:meth:`~invar.symmetry.renamings.RenamingSpace.undo` before it is compared.

invar has no dataset format or network head for it: ``invar train`` refuses
it, and it is given to audits with ``--task classify``.
"""

from __future__ import annotations

import json
import re
import unicodedata

import numpy as np

from ..errors import UsageError
from . import Task
from .answers import Reader, Unreadable, clean, json_object, later, table_cells


def accuracy(pred, target) -> float:
    """Share of predictions equal to their label, in percent."""
    if not len(target):
        return float("nan")
    return float(100.0 * np.mean([_key(p) == _key(t) for p, t in zip(pred, target)]))


def macro_f1(pred, target) -> float:
    """Macro-averaged F1 over the labels that occur (as labels or
    predictions), in percent."""
    if not len(target):
        return float("nan")
    pk, tk = [_key(p) for p in pred], [_key(t) for t in target]
    scores = []
    for c in sorted(set(pk) | set(tk)):
        tp = sum(1 for p, t in zip(pk, tk) if p == c and t == c)
        fp = sum(1 for p, t in zip(pk, tk) if p == c and t != c)
        fn = sum(1 for p, t in zip(pk, tk) if p != c and t == c)
        scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(100.0 * np.mean(scores))


def _key(x) -> str:
    """Labels compare by value whatever container holds them."""
    return json.dumps(x, sort_keys=True, default=str)


#: marks a label may stand in: the opening and the closing one (one character: both)
_QUOTES = ('"', "'", "`", "“”", "‘’")
_TRAILING = ".,;:!?。 \t"


#: a hedging adverb before the one label offered (``probably sorting``): not part of the label
_HEDGE = re.compile(r"^(?:most[ \t]+likely|probably|likely|possibly|perhaps|maybe)[ \t,:]+(?=\S)", re.I)
#: what opens a label and is no part of it: an adverb that only insists (``clearly sorting``, ``definitely
#: sorting``), an arrow (``→ sorting``), an option's mark (``(a) sorting``, ``b) sorting``)
_INSISTING = re.compile(
    r"^(?:(?:clearly|definitely|certainly|surely|obviously)[ \t,:]+|(?:→|->|=>|⇒)[ \t]*|\(?[a-e]\)[ \t]+)(?=\S)", re.I
)
#: what no label is: a reply that gives none (``I cannot tell``), a sentence about the program, a
#: label negated for another (``not searching but sorting``); a label may itself hold a ``not`` (``not pure``)
_NO_LABEL = re.compile(
    r"^(?:i|i'm|i’m|we|it|it's|it’s|this|that|there|the[ \t]+(?:program|code|function|class|label|answer))(?![\w/-])"
    r"|\bnot\b.*\b(?:but|rather|instead)\b"
    r"|\b(?:cannot|can't|can’t|unsure|unclear|uncertain|don't[ \t]+know|hard[ \t]+to[ \t]+say)\b",
    re.I,
)
#: two labels offered (``sorting or searching``, ``sorting, searching``), or one with an explanation after it
#: (``sorting (it sorts a list)``, ``sorting - it reorders``, ``sorting. It reorders``, ``sorting: it reorders``)
_NOT_ONE = re.compile(r"\b(?:or|either)\b|[,;]|[ \t]/[ \t]|[ \t]\(|[ \t][-–—][ \t]|[.!?:][ \t]+\S|\?$", re.I)
#: a label as the prompt writes one: at most three words in lower case (``graph search``)
_WORDS = r"[a-z][a-z-]*(?:[ \t]+[a-z][a-z-]*){0,2}"
#: two labels joined (``sorting/searching``, ``sorting and searching``, ``sorting & searching``): words in lower
#: case, as labels are written, either side of the join. The task knows no label set, so a label that is
#: itself so written (``client/server``) is refused too; a letter or capitals either side (``I/O``, ``TCP/IP``)
#: and words joined by hyphens (``divide-and-conquer``) are one label
_JOINED = re.compile(
    rf"(?P<one>{_WORDS})[ \t]*(?:/|&|\+|\b(?:and/or|and|plus|as[ \t]+well[ \t]+as)\b)[ \t]*(?P<two>{_WORDS})"
)


def read_answer(segment: str) -> str:
    """The label a segment of an answer gives: the segment without quotes,
    backticks, emphasis, trailing punctuation (``**"sorting".**`` ->
    ``sorting``) and a hedging adverb before it (``probably sorting``).
    Unreadable when nothing is left, for two labels (``sorting or
    searching``, ``sorting, searching``, ``sorting/searching``, ``sorting
    and searching``: :data:`_JOINED`), a label with an explanation after
    it (``sorting (it sorts)``, ``sorting - it sorts``), a question
    (``sorting?``), a sentence about the program (``The program is …``), and
    a reply that gives none (``I cannot tell``)."""
    label = _label(segment)
    if clean(segment).rstrip(" \t.*_`'\"”’").endswith("?"):
        raise Unreadable(f"a question, not a label ({segment.strip()[:80]!r})")
    if _NO_LABEL.search(label):
        raise Unreadable(f"no label, a sentence ({label[:80]!r})")
    if (other := _NOT_ONE.search(label)) is not None:
        raise Unreadable(f"not one label alone ({other.group().strip() or 'a list'} in {label[:80]!r})")
    if (joined := _JOINED.fullmatch(label)) is not None and len(joined["one"]) > 1 and len(joined["two"]) > 1:
        raise Unreadable(f"not one label alone (two labels joined: {label[:80]!r})")
    return label


def _label(segment: str) -> str:
    """``segment`` without quotes, brackets, emphasis, trailing punctuation, a key before it (``label =
    sorting``, ``Category: sorting``) and a hedging adverb before it; the value of a JSON object's key
    (``{"label": "sorting"}``) or a table's row (``| Label | sorting |``). Unreadable when nothing is left,
    and for markup still in it (``["sorting", "searching"]``, ``x = sorting``): no clean label."""
    label, previous = _unwrapped(segment.strip()), None
    while label != previous:
        previous, label = label, _unmarked(clean(label)).rstrip(_TRAILING)
        for pair in _QUOTES + _BRACKETS:
            opening, closing = pair[0], pair[-1]
            if len(label) >= 2 and label[0] == opening and label[-1] == closing:
                label = label[1:-1].strip()
        label = _INSISTING.sub("", _HEDGE.sub("", _KEY.sub("", label, count=1)))
    if not label:
        raise Unreadable(f"no label in {segment.strip()[:80]!r}")
    if _PLACEHOLDER.fullmatch(label):
        raise Unreadable(f"no label: {label!r} is a placeholder or says there is none")
    if (markup := _MARKUP.search(label)) is not None and re.search(r"[^\W\d_]", label):  # ``<=`` may be a label
        raise Unreadable(f"no clean label ({markup.group()!r} in {label[:80]!r})")
    if _INNER_QUOTE.search(label) is not None:  # ``'sorting' and 'searching'``: two quoted labels
        raise Unreadable(f"no clean label (a quote inside it: {label[:80]!r})")
    return label


#: a quote inside a label, beside a space (``sorting' and 'searching``): what is left of two quoted labels; an
#: apostrophe inside a word (``Dijkstra's``) is none
_INNER_QUOTE = re.compile(r"['‘’\"“”][ \t]|[ \t]['‘’\"“”]")


#: brackets a label may stand in (``[sorting]``, ``<sorting>``, ``(sorting)``, ``{sorting}``)
_BRACKETS = ("[]", "()", "{}", "<>", "«»")
#: the keys a label may be given under (``label = sorting``, ``Category: sorting``, ``Type: sorting``); ``output``
#: only as a JSON object's key or a table's (``{"output": "sorting"}``): before a colon in text it names what the
#: program outputs (``Output: sorted list``), no label
_KEYS = r"(?:(?:the|final|predicted|my)[ \t]+)*(?:label|class|category|classification|answer|prediction|type)"
_KEY = re.compile(rf"^{_KEYS}[ \t]*(?:=|:|：)[ \t]*(?=\S)", re.I)
_KEY_NAME = re.compile(rf"{_KEYS}|(?:(?:the|final|predicted|my)[ \t]+)*output", re.I)
#: what the prompt's template and a form hold where a label goes, and what says there is none: no label
#: (``LABEL``, ``<label>``, ``[label]``, ``your_label_here``, ``class_name``, ``N/A``, ``none``, ``unknown``)
_PLACEHOLDER = re.compile(
    r"(?:your[ _-]*)?(?:label|class[ _-]*name|category)(?:[ _-]*here)?|n/?a|none|null|nil|unknown|unsure|tbd|\?+"
    r"|\.{2,}|…",
    re.I,
)
#: what no clean label of words holds: markup left after a label is unwrapped (brackets, braces, quotes, ``=``,
#: a pipe); a label of symbols alone (``<=``, ``==``) may be one
_MARKUP = re.compile(r"[\[\]{}<>=|\"`]")


def _unmarked(label: str) -> str:
    """``label`` without the symbols either side of it (``sorting ✅``, ``✔️ sorting``: emoji, check marks)."""
    start, end = 0, len(label)
    while start < end and _symbol(label[start]):
        start += 1
    while end > start and _symbol(label[end - 1]):
        end -= 1
    return label[start:end].strip()


def _symbol(char: str) -> bool:
    """Whether ``char`` is a symbol no label is written with (an emoji, a check mark, a joiner, a space)."""
    return char.isspace() or unicodedata.category(char) == "So" or char in "\ufe0f\u200d"


def _unwrapped(segment: str) -> str:
    """The label a JSON object (``{"label": "sorting"}``) or a table's row (``| Label | sorting |``, ``|
    sorting |``) gives under a key of :data:`_KEYS`, as text; any other segment as it is."""
    text = clean(segment)
    if (obj := json_object(text)) is not None:
        values = [v for k, v in obj.items() if _KEY_NAME.fullmatch(k.replace("_", " ").strip())]
        if len(values) != 1 or not isinstance(values[0], (str, list)):
            raise Unreadable(f"an object with no one label under its keys ({', '.join(list(obj)[:4])})")
        value = values[0]
        if isinstance(value, list) and (len(value) != 1 or not isinstance(value[0], str)):
            raise Unreadable(f"not one label alone ({value!r})")
        return value if isinstance(value, str) else value[0]
    if (cells := table_cells(text)) is not None:
        if len(cells) == 2 and _KEY_NAME.fullmatch(cells[0]):
            return cells[1]
        if len(cells) != 1:
            raise Unreadable(f"a table's row, not one label ({text[:80]!r})")
        return cells[0]
    return segment


#: a sentence's opening words (``The nested loops swap …``, ``Each pass …``): closed by a full stop, a
#: last line of three words or more that opens so is prose, no label
_PROSE = re.compile(r"(?:the|an?|its|these|those|here|so|thus|hence|you|each|every)[ \t]+\S+[ \t]+\S", re.I)
#: what closes a chat and labels nothing (``Hope this helps!``, ``Good luck with your project!``, ``Cheers!``)
_PLEASANTRY = re.compile(
    r"(?:hope[ \t]+(?:this|that|it)|thanks?\b|thank[ \t]+you|good[ \t]+luck|feel[ \t]+free|happy[ \t]+coding|cheers\b"
    r"|done\b|see[ \t]+(?:the|my|above)|end[ \t]+of|let[ \t]+me[ \t]+know|glad[ \t]+to|you'?re[ \t]+welcome)",
    re.I,
)
#: the most words a label read from a reply's last line may have (no final answer)
LAST_LINE_WORDS = 6


def read_last_line(segment: str) -> str:
    """The label a reply's last line gives when the reply has no final
    answer (``Answer: …``): a label of at most :data:`LAST_LINE_WORDS`
    words; a sentence (``I'm not sure. Maybe sorting``, ``The loops swap
    adjacent elements.``) is refused, not read as a label."""
    label = read_answer(segment)
    if not re.search(r"[^\W\d_]", label):
        raise Unreadable(f"no final answer (Answer: LABEL), and its last line holds no word ({label[:80]!r})")
    if _PLEASANTRY.match(label):
        raise Unreadable(f"no final answer (Answer: LABEL), and its last line is a pleasantry ({label[:80]!r})")
    closed = re.search(r"[.!]\W*$", segment.strip())
    if len(label.split()) > LAST_LINE_WORDS or re.search(r"[.!?;:]\s", label) or (closed and _PROSE.match(label)):
        raise Unreadable(f"no final answer (Answer: LABEL), and its last line is a sentence ({label[:80]!r})")
    return label


#: an explicit marker that presents a label (``the label is``, ``so the answer would be``)
_MARKED = re.compile(
    r"(?:(?:so|thus|hence|therefore)[ \t,]+)?(?:(?:the|a|my)[ \t]+(?:better[ \t]+|final[ \t]+|right[ \t]+)?)?"
    r"(?:label|answer|category|class)[ \t]+(?:is|would[ \t]+be|should[ \t]+be)[ \t]*:?[ \t]+",
    re.I,
)
#: ``it's`` before a label: it presents one of one word (``I think it's searching.``), a longer phrase may
#: describe the program (``In fact, it's bubble sort.``)
_ITS = re.compile(r"(?:it's|it’s|it[ \t]+is)[ \t]+", re.I)
#: words a label alone holds none of: verbs, pronouns, articles and verdicts of a note
#: (``sorting fits``, ``the best fit``, ``just my guess``)
_NOTE_WORDS = frozenset(
    "a an the this that these those it its my our your is are was be been fits fit seems looks works sounds makes "
    "right correct wrong guess best sure label answer category just only also too here there".split()
)


def read_alone(line: str) -> str:
    """The label a line gives when it is nothing but one: a label in lower case
    of at most three words, alone (``searching``, ``**searching**``), after an
    explicit marker (``the label is searching``), or of one word after
    ``it's`` (``it's searching``); Unreadable for any other line, a note
    (``I think that's the best fit.``, ``sorting fits``) included."""
    line = clean(line, line=True)
    words = 3
    if (marked := _MARKED.match(line)) is not None:
        line = line[marked.end() :]
    elif (its := _ITS.match(line)) is not None:
        line, words = line[its.end() :], 1
    label = read_answer(line)
    if not re.fullmatch(_WORDS, label) or len(label.split()) > words or _NOTE_WORDS & set(label.split()):
        raise Unreadable(f"not a label alone ({line[:80]!r})")
    return label


def later_answers(text: str) -> list[str]:
    """The labels the text after a final answer gives anyway: on a line of
    strong second thoughts (``Actually, searching.``, ``Wait, it is
    searching``; or one presented at the line's end, as on a line of weak
    ones: ``Actually, it searches, so the answer is searching.``), or alone
    on a line of weak ones (``I think searching.``, ``But the label is
    searching``: :func:`read_alone`); a note, or second thoughts that give
    no label (``Actually, it also searches``, ``I think that's the best
    fit.``), give none."""
    return later(text, read_answer, otherwise=_weak, weak=_weak)


#: what offers another label at the end of a line of weak second thoughts (``But it's close to searching.``,
#: ``But the best label would be searching.``, ``But a case could be made for searching.``)
_OFFERED = re.compile(
    r"(?:\b(?:label|answer|category)[ \t]+(?:is|would[ \t]+be|should[ \t]+be|could[ \t]+be|might[ \t]+be)"
    r"|\bclose[ \t]+to|\bcould[ \t]+(?:also[ \t]+)?be|\bmight[ \t]+(?:also[ \t]+)?be|\bmade[ \t]+for|\bmaybe"
    r"|\bperhaps|\bor)[ \t]*:?[ \t]+(?P<label>[^.!?,;:]+?)[ \t]*[.!]*$",
    re.I,
)


def _weak(rest: str) -> list[str]:
    """The label a line of weak second thoughts gives: one alone (:func:`read_alone`), or one offered at its
    end (:data:`_OFFERED`); a note (``I think that's the best fit.``) gives none."""
    try:
        return [read_alone(rest)]
    except ValueError:
        pass
    offered = _OFFERED.search(clean(rest, line=True))
    if offered is not None:
        try:
            return [read_alone(offered.group("label"))]
        except ValueError:
            pass
    return []


#: a whole reply -> its label (:mod:`invar.tasks.answers`' pipeline: an
#: explicit final answer, else the last line, read as a short label)
answer = Reader(parse=read_answer, last_line=read_last_line, after=later_answers, alone=read_alone)


def _untrainable(*_args, **_kwargs):
    raise UsageError(
        "the classify task is for audits: invar trains no classify models and reads no classify datasets for training"
    )


TASK = Task(
    name="classify",
    head="multilabel",
    n_labels=1,
    invariances={"renamings": True, "permutations": True},
    metric_name="accuracy",
    lower_is_better=False,
    loss=_untrainable,
    metric=accuracy,
    output=_untrainable,
    parse=_untrainable,
    read_split=_untrainable,
    discrete=True,
    label=str.strip,
    answer=answer,
)

__all__ = ["TASK", "accuracy", "macro_f1", "answer", "read_answer"]
