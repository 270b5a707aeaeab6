"""The bugs task: does a function hold an injected bug? (binary)

**Dataset** (``invar data bugs --source DIR --out OUT``): every function of
every ``.py`` file and every method of every ``.java`` file under DIR, as the
names task reads them (nested functions and methods included; a Python
function stands alone, dedented; a Java method stands in
``class METHOD_CLASS { … }``, which tells a stored function's language), but
with its name kept. Each function is written twice: as it is (label 0) and
with one bug injected into its text (label 1), so the dataset is balanced.
The split is by **file**, as for names: the SHA-256 of the file's path
relative to DIR puts all its functions, original and bugged, in ``train``
(80 %), ``valid`` or ``test`` (10 % each). OUT holds ``train.csv``,
``valid.csv`` and ``test.csv`` (columns ``source``, ``label`` — 0 or 1 —,
``bug`` — empty for an original, else what was changed —, ``path`` and
``line``) and ``meta.json`` (the counts, and the functions skipped because no
bug could be injected).

**Bugs**, one token of the function's text changed (a seeded choice: a
kind drawn at random among those the function offers, then its candidates
tried in a seeded order until one passes the checks below):

* *variable misuse*: one **read** of a local variable or parameter replaced
  by another local variable or parameter **defined earlier**. A read is a
  token with a local referent (view ``local`` or ``param``) that reads it:
  in Python an ``ast.Name`` in load context (not an assignment, augmented
  assignment, ``for``/``with``/``except`` target, nor a parameter); in Java
  neither the declaration (the referent's position) nor the target of an
  assignment operator or of ``++``/``--``. Defined earlier: a parameter, or
  a variable with a binding occurrence before the read (Python: any
  occurrence that is not a read, on an earlier line not nested deeper than
  the read; Java: its declaration, the frontend resolving the read to it). The
  function's own header line is never changed.
* *comparison swap*: one of ``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=`` replaced
  (``<``↔``<=``, ``>``↔``>=``, ``<``↔``>``, ``<=``↔``>=``, ``==``↔``!=``).

**The no-op check** every written bug passes (:func:`check`): the bugged
text parses (as the same language, one function) into a program with the
same lines and the same tokens but the changed one; then

* a misuse: the changed token has the referent of the variable put in
  (so that variable is in scope there, by the frontend's resolution), it is
  still a read, and the program's **dependencies** differ from the
  original's: the changed line's reads or writes (referents matched token
  by token), or the transitive closure of ``Program.deps``. A misuse that
  leaves every one of these identical (``f(a, b, a)`` → ``f(b, b, a)``: the
  line still reads ``a`` and ``b``) is rejected, though it may change what
  the function computes: it cannot be seen in the dependencies.
* a swap: the token is the swapped operator; a reversal (``<``↔``>``,
  ``<=``↔``>=``) between two tokens that read the same (``x < x``) is
  rejected, since it computes the same.

What it guarantees: the bug is in the text, parses, and (misuse) changes
the function's data flow as invar's frontends see it; a swap changes the
result of the comparison whenever its operands are equal (``<``↔``<=``), or
differ (the others). What it does not: that the bugged function behaves
differently on an input that can occur (the comparison or the line may be
unreachable, the variables may hold equal values), that it still type-checks
(Java), or that the variable put in is assigned on every path to the read.

Task symmetries: renamings of local variables and reorderings of
independent statements keep a bug a bug and a correct function correct (the
bug is in the text, not in the names or the order), so both keep the label.
**Metric**: accuracy, in percent; the F1 of the bug class beside it.
A model reads any function it is given as the dataset stores it
(:func:`prepare`), so ``invar predict`` on a source file sees what training
saw.
"""

from __future__ import annotations

import ast
import contextlib
import json
import random
import re
import textwrap
from pathlib import Path
from typing import Callable, Sequence, TYPE_CHECKING

import numpy as np

from ..frontends.registry import JAVA, PYTHON, frontend_of
from ..frontends.units import own_name
from ..program import Program
from . import Example, Task, checked
from .answers import OPENERS as SECOND_THOUGHT_WORDS
from .answers import (
    Reader,
    Unreadable,
    clean,
    json_object,
    lines,
    opened_strongly,
    opening,
    retracts,
    sentences,
    table_cells,
    weak_sentences,
    without_label,
)
from .names import (
    JAVA_CLASS,
    LANGS,
    SPLITS,
    FileRows,
    frontend_skips,
    map_files,
    no_training_rows,
    own_split,
    parse,  # a stored function reads as the names task's does
    read_units,
    row_examples,
    source_files,
    split_of,
    tally,
    write_splits,
)

if TYPE_CHECKING:  # torch is imported where a model needs it: building a dataset never does
    import torch

_EXT = ".csv"
_COLUMNS = ("source", "label", "bug", "path", "line")
#: comparison operator -> what a swap may put in its place
SWAPS = {"<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<="), "==": ("!=",), "!=": ("==",)}
_REVERSALS = {("<", ">"), (">", "<"), ("<=", ">="), (">=", "<=")}
_JAVA_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="}
_VIEWS = ("local", "param")
#: candidates tried per function before it is given up
MAX_TRIES = 24


# ------------------------------------------------------------ stored texts
def function_text(unit: Program) -> str:
    """The function's text standing alone (dedented; a Java method inside
    ``class METHOD_CLASS { … }``), its name kept."""
    text = textwrap.dedent(unit.render()).strip("\n") + "\n"
    record = frontend_of(unit.lang)
    return record.hook("standalone")(text, JAVA_CLASS) if record.standalone else text


def prepare(unit: Program) -> Program:
    """A function as the dataset stores it: standing alone (re-read from its
    dedented text, a Java method inside ``class METHOD_CLASS``); one that
    cannot stand alone (a nested function's ``nonlocal``) is kept as it is."""
    from ..errors import InvarError

    try:
        return parse(function_text(unit))
    except (InvarError, SyntaxError, ValueError, RecursionError):
        return unit


# --------------------------------------------------------------- positions
def _position(program: Program, k: int) -> tuple[int, int]:
    """(1-based line, 0-based character column) of token ``k`` in the parsed text."""
    tok = program.tokens[k]
    line = program.lines[tok.line]
    before = line.text[: tok.start]
    nl = before.rfind("\n")
    return line.source_line + before.count("\n"), tok.start - (nl + 1)


def _python_loads(text: str) -> set[tuple[int, int]]:
    """(line, character column) of every name read in ``text``."""
    lines = text.splitlines()
    out = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            raw = lines[node.lineno - 1].encode("utf-8")[: node.col_offset]
            out.add((node.lineno, len(raw.decode("utf-8"))))
    return out


def _java_declared_at(referent: str) -> tuple[int, int] | None:
    """A Java local's declaration (line, 0-based column), from its referent
    ``local:C.m:LINE.COL:name``."""
    try:
        where = referent.rsplit(":", 2)[1]
        line, col = where.split(".")
        return int(line), int(col) - 1
    except (IndexError, ValueError):
        return None


def _roles(program: Program, text: str) -> dict[int, str]:
    """Token index -> ``read`` or ``bind`` for every token with a local
    referent (view local or param) past the header line."""
    out: dict[int, str] = {}
    toks = program.tokens
    # how a token is used is read from Python's ast, and from the tokens around it in Java
    loads = _python_loads(text) if program.lang == PYTHON.name else set()
    for k, t in enumerate(toks):
        if t.referent is None or t.view not in _VIEWS:
            continue
        pos = _position(program, k)
        if program.lang == PYTHON.name:
            out[k] = "read" if pos in loads else "bind"
            continue
        nxt = toks[k + 1].text if k + 1 < len(toks) and toks[k + 1].line == t.line else ""
        prev = toks[k - 1].text if k > 0 and toks[k - 1].line == t.line else ""
        if _java_declared_at(t.referent) == pos:
            out[k] = "bind"
        elif nxt in _JAVA_ASSIGN or nxt in ("++", "--") or prev in ("++", "--"):
            out[k] = "write"
        else:
            out[k] = "read"
    return out


# -------------------------------------------------------------- candidates
def candidates(program: Program, text: str) -> dict[str, list[tuple[int, str]]]:
    """Every possible injection: ``misuse`` and ``swap`` -> [(token index,
    new text, the referent put in or None)]."""
    roles = _roles(program, text)
    toks = program.tokens
    first_line = {}  # referent -> first binding (token index)
    for k, role in roles.items():
        r = toks[k].referent
        if role == "bind" or toks[k].view == "param" and toks[k].line == 0:
            first_line.setdefault(r, k)
    misuse = []
    for k, role in roles.items():
        t = toks[k]
        if role != "read" or t.line == 0:
            continue
        seen = set()
        for r, j in first_line.items():
            other = toks[j]
            if r == t.referent or other.text in seen or other.text == t.text:
                continue
            if other.line < t.line and (
                other.view == "param"
                or program.lines[other.line].depth <= program.lines[t.line].depth
                or program.lang == JAVA.name
            ):
                seen.add(other.text)
                misuse.append((k, other.text, r))
    swap = []
    for k, t in enumerate(toks):
        if t.line == 0 or t.kind != "operator" or t.text not in SWAPS:
            continue
        if frontend_of(program.lang).angle_brackets and t.text in ("<", ">"):
            nb = {toks[i].text for i in (k - 1, k + 1) if 0 <= i < len(toks)}
            if nb & {"<", ">", "?", ","}:
                continue  # generics
        for new in SWAPS[t.text]:
            swap.append((k, new, None))
    return {"misuse": misuse, "swap": swap}


# ------------------------------------------------------------------- check
def _closure(n: int, deps) -> list[int]:
    """Per line, the lines that must stay after it (a bit set), in the
    transitive closure of ``deps``."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, j in deps:
        succ[i].append(j)
    reach = [0] * n
    for i in range(n - 1, -1, -1):  # deps go forward: (i, j) with i < j
        for j in succ[i]:
            reach[i] |= (1 << j) | reach[j]
    return reach


def stored(program: Program) -> str:
    """A parsed stored function written back as it is stored."""
    return function_text(program)


def check(original: Program, k: int, new: str, put: str | None = None) -> tuple[str | None, str]:
    """The bugged text of ``original`` with token ``k`` reading ``new`` (a
    misuse: the variable whose referent is ``put``; by default the first
    local of that name), or (None, why) when the bug fails the checks of the
    module docstring."""
    from ..errors import InvarError

    kind = "swap" if original.tokens[k].text in SWAPS and new in SWAPS else "misuse"
    text = stored(original.with_token_texts({k: new}))
    try:
        bugged = parse(text)
    except (InvarError, SyntaxError, ValueError, RecursionError) as err:
        return None, f"does not parse: {err}"
    if (
        bugged.lang != original.lang
        or len(bugged.lines) != len(original.lines)
        or len(bugged.tokens) != len(original.tokens)
    ):
        return None, "reads as another program"
    for j, (a, b) in enumerate(zip(original.tokens, bugged.tokens)):
        if (a.text if j != k else new) != b.text or a.line != b.line:
            return None, "reads as other tokens"
    toks = original.tokens
    if kind == "swap":
        old = toks[k].text
        if (old, new) in _REVERSALS and 0 < k < len(toks) - 1 and toks[k - 1].text == toks[k + 1].text:
            return None, "a reversal between equal operands"
        return text, ""
    # misuse
    if put is None:
        put = next((t.referent for t in toks if t.text == new and t.referent is not None and t.view in _VIEWS), None)
    rename = {}
    for j, (a, b) in enumerate(zip(toks, bugged.tokens)):
        if j != k and a.referent is not None:
            rename[a.referent] = b.referent
    if put is None or bugged.tokens[k].referent != rename.get(put, put):
        return None, "the variable put in is not in scope there"
    if _roles(bugged, text).get(k) != "read":
        return None, "no longer a read"
    li = toks[k].line
    a, b = original.lines[li], bugged.lines[li]
    same_line = {rename.get(r, r) for r in a.reads} == set(b.reads) and {rename.get(r, r) for r in a.writes} == set(
        b.writes
    )
    n = len(original.lines)
    if same_line and _closure(n, original.deps) == _closure(n, bugged.deps):
        return None, "the dependencies are unchanged"
    return text, ""


def inject(program: Program, text: str, rng: random.Random) -> tuple[str, str] | None:
    """(bugged text, what was changed) for one seeded bug, or None."""
    cands = candidates(program, text)
    kinds = [k for k in ("misuse", "swap") if cands[k]]
    rng.shuffle(kinds)
    tries = 0
    for kind in kinds:
        order = list(cands[kind])
        rng.shuffle(order)
        for k, new, put in order:
            if tries >= MAX_TRIES:
                return None
            tries += 1
            bugged, _ = check(program, k, new, put)
            if bugged is not None:
                line, col = _position(program, k)
                return bugged, f"{kind} {program.tokens[k].text} -> {new} at {line}:{col + 1}"
    return None


# ----------------------------------------------------------------- dataset


def _seed_name(unit: Program) -> str:
    """The name a unit's draw is seeded by: its name as it was before units
    sharing one were told apart (a Python redefinition by nothing, a Java
    overload by its line alone), so a dataset holds the bugs it always held."""
    name = unit.name or ""
    if unit.lang == PYTHON.name:
        return own_name(name)
    own = own_name(name)
    return own + name[len(own) :].split(".", 1)[0]


def _file_rows(task: tuple[str, str, int]) -> FileRows:
    """The bugs rows of one source file (``task``: the source directory, the
    file's path relative to it, the seed); ``skipped`` counts functions
    that do not stand alone and those without a bug (:data:`NO_BUG`), and
    the injected bugs by kind (``bug: misuse``, ``bug: swap``)."""
    from ..errors import InvarError

    source, rel, seed = task
    units, unreadable = read_units(Path(source) / rel, rel)
    if units is None:
        return FileRows([], None, unreadable, {})
    rows, counts = [], frontend_skips(units)
    for unit in units:
        text = function_text(unit)
        try:
            program = parse(text)
            if stored(program) != text:
                raise ValueError("does not stand alone")
        except (InvarError, SyntaxError, ValueError, RecursionError):
            counts["not standing alone"] = counts.get("not standing alone", 0) + 1
            continue
        line = unit.lines[0].source_line
        bug = inject(program, text, random.Random(f"{seed}:{rel}:{line}:{_seed_name(unit)}"))
        why = NO_BUG if bug is None else f"bug: {bug[1].split()[0]}"
        counts[why] = counts.get(why, 0) + 1
        if bug is not None:
            rows.extend([(text, 0, "", rel, line), (bug[0], 1, bug[1], rel, line)])
    return FileRows(rows, LANGS[Path(rel).suffix], None, counts)


#: why a function that stands alone gives no rows
NO_BUG = "without a bug that passes the checks"


def build(
    source: str | Path,
    out: str | Path,
    seed: int = 0,
    *,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Write the bugs dataset of the ``.py`` and ``.java`` files under
    ``source`` to ``out`` (see the module docstring), reading them in
    ``jobs`` processes (the dataset is the same whatever their number);
    ``progress(files done, files)``. Returns what was written, with what was
    skipped and why (``skipped``: reason -> count, for files and for
    functions; the functions without a bug are among them)."""
    from ..data import manifest
    from ..files import write_atomic

    source, out = Path(source), Path(out)
    rels = source_files(source)
    rows: dict[str, list[tuple]] = {s: [] for s in SPLITS}
    languages: set[str] = set()
    skipped: dict[str, dict[str, int]] = {"files": {}, "functions": {}}
    kinds = {"misuse": 0, "swap": 0}
    tasks = [(str(source), rel, seed) for rel in rels]
    with contextlib.closing(map_files(_file_rows, tasks, jobs, progress)) as done:
        for (_, rel, _), got in done:
            if got.unreadable is not None:
                tally(skipped["files"], {got.unreadable: 1})
                continue
            rows[split_of(rel)].extend(got.rows)
            for why, n in got.skipped.items():
                if why.startswith("bug: "):
                    kinds[why[5:]] += n
                else:
                    tally(skipped["functions"], {why: n})
            if got.rows:
                languages.add(got.lang)
    if not rows["train"]:
        raise no_training_rows(source, len(rels), rows, skipped)
    write_splits(out, rows, _COLUMNS)
    unreadable = sum(skipped["files"].values())
    no_bug = skipped["functions"].get(NO_BUG, 0)
    meta = {
        "invar": "bugs",
        **manifest.fields("bugs", languages),
        "source": str(source),
        "seed": seed,
        "files": len(rels) - unreadable,
        "unreadable_files": unreadable,
        "skipped_functions": sum(skipped["functions"].values()) - no_bug,
        "functions_without_bug": no_bug,
        "bugs": kinds,
        **{s: len(rows[s]) for s in SPLITS},
        "skipped": {k: dict(sorted(v.items())) for k, v in skipped.items()},
    }
    write_atomic(out / "meta.json", lambda f: f.write(json.dumps(meta, indent=1).encode("utf-8")))
    return meta


def read_split(data: str | Path, split: str) -> list[Example]:
    """The functions of one split of a directory :func:`build` wrote; labels
    0 or 1. A malformed row is a DataError."""
    return checked(split_examples(data, split))


def split_examples(data: str | Path, split: str) -> list[Example]:
    """Every row of one split, a malformed one as an example with its error."""
    return row_examples(data, split, "bugs", _label_of_row, "a label that is not 0 or 1")


def _label_of_row(row: list[str]) -> int | None:
    """A row's label, 0 or 1 (None when it has none or another)."""
    try:
        return label(row[1]) if len(row) > 1 else None
    except ValueError:
        return None


def dataset(spec: str, split: str) -> list[Example] | None:
    return own_split(spec, split, "bugs", split_examples)


# ------------------------------------------------------ loss, output, metric
def loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy (the mean)."""
    import torch.nn.functional as F

    return F.binary_cross_entropy_with_logits(logits.reshape(-1), target.reshape(-1).to(logits.dtype))


def output(logits: torch.Tensor, names: Sequence[str] | None = None) -> list[int]:
    """(B,) logits -> 1 (bugged) where the logit is at least 0, else 0."""
    return [int(v >= 0) for v in logits.detach().float().cpu().reshape(-1).tolist()]


def accuracy(predictions, labels) -> float:
    """Share of predictions equal to their label, in percent."""
    if not len(labels):
        return float("nan")
    return float(100.0 * np.mean([int(p) == int(t) for p, t in zip(predictions, labels)]))


def bug_f1(predictions, labels) -> float:
    """F1 of the bug class (label 1), in percent."""
    if not len(labels):
        return float("nan")
    p = [int(x) for x in predictions]
    t = [int(x) for x in labels]
    tp = sum(1 for a, b in zip(p, t) if a == 1 and b == 1)
    fp = sum(1 for a, b in zip(p, t) if a == 1 and b == 0)
    fn = sum(1 for a, b in zip(p, t) if a == 0 and b == 1)
    return 200.0 * tp / (2 * tp + fp + fn) if tp else 0.0


def score(prediction, label) -> float:
    return 100.0 if int(prediction) == int(label) else 0.0


def label(text: str) -> int:
    """``0``/``1`` (also ``false``/``true``, ``correct``/``bug``) -> 0 or 1."""
    word = str(text).strip().lower()
    if word in ("0", "false", "correct", "no", "0.0"):
        return 0
    if word in ("1", "true", "bug", "buggy", "yes", "1.0"):
        return 1
    raise ValueError(f"{text.strip()!r} is not 0 or 1")


def prediction(value) -> int:
    """A model's verdict as Python returns it -> 0 or 1: a bool, 0 or 1 (as an
    int or a float), or a word :func:`label` reads; a ValueError for any other
    value (a probability of 0.7 is no verdict, and no 0)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    if isinstance(value, str):
        return label(value)
    raise ValueError("a verdict is 0 or 1")


# ---------------------------------------------------------- reading answers
#: words that give a verdict anywhere in an answer; a negation before one
#: (``not buggy``, ``no bug``, ``doesn't have any bugs``) flips it
VERDICT_WORDS = {
    "buggy": 1,
    "bugged": 1,
    "bug": 1,
    "bugs": 1,
    "incorrect": 1,
    "correct": 0,
    "clean": 0,
    "bug-free": 0,
    "bugfree": 0,
    "fine": 0,
}
#: words that answer the question itself: read only where they open the
#: answer (``Yes, it has a bug``), since inside a sentence they say other
#: things (``returns True``, ``no other read``)
OPENERS = {"yes": 1, "true": 1, "no": 0, "false": 0}
_NEGATIONS = {"not", "no", "never", "without", "none", "nothing", "free"}
#: words that may stand between a negation and the verdict it flips
_FILLERS = {
    "a",
    "an",
    "any",
    "the",
    "is",
    "are",
    "be",
    "been",
    "have",
    "has",
    "contain",
    "contains",
    "appear",
    "appears",
    "seem",
    "seems",
    "to",
    "obvious",
    "apparent",
    "single",
    "injected",
    "real",
    "it",
    "there",
    # what stands between a negation and what it negates in a sentence (``I don't see any bug``,
    # ``I could not find a bug``, ``I don't think there is a bug``, ``free of bugs``)
    "of",
    "i",
    "we",
    "can",
    "could",
    "see",
    "find",
    "found",
    "spot",
    "spotted",
    "detect",
    "detected",
    "notice",
    "noticed",
    "identify",
    "identified",
    "think",
    "believe",
    "look",
    "looks",
    "it's",
    "there's",
    "function",
    "code",
    "method",
    "anything",
    "something",
    # ``Nothing here is buggy``, ``Nothing in this function is buggy``, ``doesn't hold a bug``
    "here",
    "in",
    "this",
    "hold",
    "holds",
}
#: a degree between a negation and a verdict of 0 denies the whole verdict (``not entirely correct``, ``not always
#: correct``, ``not 100% bug-free``: 1); before one of 1 it is refused (``not always buggy`` says neither)
_DEGREES = {"entirely", "completely", "fully", "quite", "totally", "always", "exactly", "100", "%", "perfectly"}
#: a word (an identifier with underscores is one: ``bug_count``, ``is_correct`` hold no verdict word), or a mark
_TOKENS = re.compile(r"[^\W_]+(?:[-'’_][^\W_]+)*|[^\w\s]")
#: inline code in a sentence (``the `if bug:` branch``): code, whose words give no verdict, unless it is one word
_CODE_SPAN = re.compile(r"`(?![A-Za-z01-]+`)[^`\n]*`")
_OPENING_NUMBER = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:\s*%)?(?![\w.])")


#: what may stand between a count and the bug it counts (``0 injected bugs``)
_ADJECTIVES = {"injected", "obvious", "real", "actual", "apparent", "detectable", "known", "such"}


def _negated(words: list[str], k: int) -> bool:
    """Whether a negation stands before ``words[k]`` (fillers between them).
    Unreadable for two (``not not buggy``, ``not free of bugs``, ``I don't
    think it's not correct``): a double negation is read one way by one
    reader and the other way by another."""
    j = k - 1
    while j >= 0 and words[j] in _ADJECTIVES:
        j -= 1
    if j >= 0 and words[j] in ("0", "zero") and VERDICT_WORDS[words[k]] == 1:
        return True  # ``The function has 0 injected bugs``
    negations, degrees = [], []
    for j in range(k - 1, max(-1, k - 7), -1):
        if words[j] in _NEGATIONS or words[j].endswith(("n't", "n’t")):
            negations.append(words[j])
        elif words[j] in _DEGREES and not negations:
            degrees.append(words[j])
        elif words[j] not in _FILLERS:
            break
    if len(negations) > 1:
        raise Unreadable(f"a double negation ({' '.join(reversed(negations))} … {words[k]}), not a verdict")
    if negations and degrees and VERDICT_WORDS[words[k]] == 1:
        raise Unreadable(f"a negated degree ({negations[0]} {degrees[-1]} {words[k]}), not a verdict")
    return bool(negations)


def _more(words: list[str]) -> bool:
    """Whether an opening ``no`` denies more of something (``No other issues.``, ``No further bugs``): no verdict."""
    return words[:1] == ["no"] and words[1:2] in (["other"], ["further"], ["additional"], ["more"])


def _negates_next(words: list[str]) -> bool:
    """Whether the first word reaches a verdict word through fillers (``No bug``, ``No obvious bugs``)."""
    for word in words[1:5]:
        if word in VERDICT_WORDS:
            return True
        if word not in _FILLERS:
            return False
    return False


def verdicts(segment: str) -> list[int]:
    """Every verdict (0 or 1) a segment of an answer gives, in order: an
    opening ``0``/``1`` or ``yes``/``no``/``true``/``false``, and the verdict
    words (:data:`VERDICT_WORDS`), each flipped by a negation before it. A
    label before a colon is a question (``Bug: 0``, ``Buggy: no``; a longer
    one before a bare yes or no: ``Contains an injected bug: no``) unless
    what follows gives no verdict (``Buggy: the loop reads j``).
    Unreadable when the answer opens with a number that is neither 0 nor 1
    (a score such as ``0.9`` is no verdict) or with two (``0 or 1``); an
    opening count of bugs gives its verdict (``0 bugs``: 0). Where the
    segment asks a question, only what follows its last ``?`` answers it.
    A yes or no (a check mark or a cross alone) answers the question or the
    label it follows in that one's sense (:func:`_asked`): ``Is the function
    correct? No`` and ``Correct: ❌`` are 1, ``Bug: no`` is 0; after a
    question or label of no known sense (``Does it handle empty lists? No``,
    ``A: No``) it is refused. A verdict word that a contrast, an exception,
    a scope, a part of the function or a modal limits is none
    (:func:`_verdicts`). A JSON object gives the verdicts of its keys
    (``{"buggy": false}``: 0), a table's row of two cells reads as ``key:
    value``, and a label that asks for a bug denied (``Bugs: none``, ``Bug:
    not found``, ``Bug: N/A``) is 0.
    """
    if (obj := json_object(segment)) is not None:
        return _object_verdicts(obj)
    if (cells := table_cells(segment)) is not None:
        if len(cells) > 2:
            raise Unreadable(f"a table's row of {len(cells)} cells, not a verdict ({segment.strip()[:80]!r})")
        segment = ": ".join(cells)
    segment = _ARROW.sub("", segment.replace("\ufe0f", ""), count=1)
    asked = _BUG
    if "?" in segment:  # a question, then its answer: only the answer gives the verdict
        question, _, segment = segment.rpartition("?")
        segment = re.sub(r"^[ \t:*_]*(?:a|answer)[ \t]*:[ \t]*", "", segment, flags=re.I).lstrip(" \t:*_")
        if not segment.strip(" \t.!"):
            raise Unreadable(f"a question, not a verdict ({question.strip()[:80]}?)")
        asked = _asked(question, question=True)
    rest = without_label(segment)
    if rest == segment and (long := _LONG_LABEL.match(segment)) is not None:
        rest = long.group("rest")
    if rest != segment:
        label = segment[: len(segment) - len(rest)]
        asked = _asked(label)
        found = _verdicts(rest, asked)
        if not found and _NONE.fullmatch(rest):  # ``Bugs: none``: the label's bug denied
            if asked != _BUG or not _asks_bug(label):
                raise Unreadable(f"a label that asks for no bug, denied ({segment.strip()[:80]!r}): no verdict")
            return [0]
        if not found:
            found = _verdicts(label)
        return found
    return _verdicts(segment, asked)


#: an arrow or a sure adverb that opens a verdict (``=> 1``, ``→ 0``, ``definitely 1``)
_ARROW = re.compile(r"^[ \t]*(?:=>|->|→|⇒|definitely|certainly|clearly|surely)[ \t,:]*(?=[01](?![\w.]))", re.I)
#: what a yes or no answers (:func:`_asked`): whether the function holds a bug (the prompt's question, and ``Is
#: there a bug?``, ``Buggy:``), whether it is correct (``Is the function correct?``, ``Correct:``), or a question
#: of no known sense (``Does it handle empty lists?``, ``A:``), after which it is no verdict
_BUG, _CORRECT, _UNKNOWN, _KIND = "bug", "correct", "unknown", "kind"
#: the words of a question or label that ask whether there is a bug, and those that ask whether it is correct
_ASKS_BUG = {"bug", "bugs", "buggy", "bugged", "incorrect", "wrong", "error", "errors", "flawed", "broken", "injected"}
_ASKS_BUG |= {"issue", "issues", "defect", "defects", "mistake", "mistakes", "problem", "problems"}
#: the kinds of bug a label may ask for alone (``Variable misuse: yes``): a no to one denies that kind only
_ASKS_KIND = {"misuse", "misused", "swap", "swapped", "off-by-one"}
_ASKS_CORRECT = {"correct", "correctly", "fine", "clean", "bug-free", "bugfree", "right", "properly", "intended"}
_ASKS_CORRECT |= {"expected", "valid", "ok", "okay", "work", "works", "working", "sound"}
#: words that ask for bugs beyond those already named (``Are there any other problems?``, ``Anything else
#: wrong?``): a yes is 1, a no denies only those others
_OTHERS = {"other", "others", "else", "further", "additional", "another", "more", "remaining", "elsewhere", "besides"}
_OTHERS |= {"apart", "beyond", "second", "also", "except", "aside"}
#: a label or question that asks for the verdict itself (``Verdict: no``, ``Final answer: yes``): the prompt's
#: question, whether the function holds a bug
_NEUTRAL = {"verdict", "answer", "result", "conclusion", "output", "prediction", "label", "decision", "assessment"}
_NEUTRAL |= {"judgment", "judgement", "summary", "response", "tldr", "tl", ";", "dr", "my", "the", "final", "overall"}
#: a label of any length before a bare yes or no, a check mark or a cross (``Contains an injected bug: no``)
_LONG_LABEL = re.compile(
    r"^(?P<label>[^:?\n]{1,80}?)[ \t]*:[ \t]*(?P<rest>(?:yes|no|true|false)\b[ \t.!]*|[✅✔✓☑❌✗✘❎✖][ \t.!]*)$", re.I
)
#: a check mark or a cross that answers alone (``Correct: ✅``, ``Bug: ❌``): a yes or a no
_MARKS = {"✅": 1, "✔": 1, "✓": 1, "☑": 1, "❌": 0, "✗": 0, "✘": 0, "❎": 0, "✖": 0}
#: the index :func:`_found` gives an opening yes or no (a check mark alone), which answers a question or label
_OPENER = -2


def _asked(text: str, question: bool = False) -> str:
    """What a yes or no answers after ``text`` (a question or a label, its last sentence read): :data:`_BUG` (``Is
    there a bug``, ``Bugs found``, ``Verdict``: the prompt's question), :data:`_CORRECT` (``Is the function
    correct``, ``Bug-free``, ``Does it work as intended``), :data:`_KIND` (one kind of bug: ``Variable misuse``,
    where a yes is 1 and a no says nothing of the other kind), or :data:`_UNKNOWN`: neither, both, one negated
    (``Is it not buggy``), one of a part (``Is the loop correct``), a question and answer's ``A``, a ``question``
    about a bug it names as given (``Does the bug crash the program``)."""
    sentence = re.split(r"[.!?\n]", text.strip())[-1]
    sentence = re.sub(r"^[ \t]*(?:q|question)[ \t]*[:.][ \t]*", "", sentence, flags=re.I)
    words = [w.lower() for w in _TOKENS.findall(_CODE_SPAN.sub(" code ", sentence)) if w[0].isalnum()]
    if words and all(w in _NEUTRAL for w in words) and set(words) - {"my", "the", "final", "overall"}:
        return _BUG
    senses = set()
    for k, word in enumerate(words):
        sense = _BUG if word in _ASKS_BUG | _ASKS_KIND else _CORRECT if word in _ASKS_CORRECT else None
        if sense is None:
            continue
        if any(w in _NEGATIONS or w.endswith(("n't", "n’t")) for w in words[max(0, k - 3) : k]):
            return _UNKNOWN  # ``Is it not buggy? No``: read one way by one reader and the other by another
        senses.add(sense)
    if senses == {_CORRECT} and _PARTS & set(words):
        return _UNKNOWN  # ``Is the loop correct? Yes``: the rest is not answered
    if question and _of_a_bug_named(words):
        return _UNKNOWN  # ``Does the bug crash the program? No``: a bug is granted, and its property asked
    if senses == {_BUG} and (not set(words) & _ASKS_BUG or set(words) & _OTHERS):
        return _KIND  # ``Swapped comparison: no``, ``Any other bugs? No``: the rest is not answered
    if senses == {_CORRECT} and set(words) & _OTHERS:
        return _UNKNOWN  # ``Is the rest correct? Yes``
    return senses.pop() if len(senses) == 1 else _UNKNOWN


#: the nouns that name a bug, and what makes one definite before them (``the bug``, ``this issue``,
#: ``the injected bug``, ``its swap``)
_BUG_NOUNS = {"bug", "bugs", "error", "errors", "issue", "issues", "defect", "defects", "mistake", "mistakes"}
_BUG_NOUNS |= {"problem", "problems", "misuse", "swap"}
_DEFINITE = {"the", "this", "that", "its", "their"}
#: what makes the noun after it indefinite again (``Is this an error?`` asks whether there is one)
_INDEFINITE = {"a", "an", "any", "some", "one"}
#: the words of a question that ask whether a bug is there, named as given or not (``Is the bug present?``, ``Does
#: the function hold the injected bug?``): the prompt's question
_PRESENCE = {"present", "presence", "exist", "exists", "existing", "there", "contain", "contains", "have", "has"}
_PRESENCE |= {"hold", "holds", "real", "find", "found", "see", "spot", "detect", "detected", "any"}


def _of_a_bug_named(words: list[str]) -> bool:
    """Whether a question's words name one bug as given (``the bug``, ``this issue``, ``the injected bug``) and
    ask about it (``Does the bug crash the program?``, ``Is the bug a swapped comparison?``), not whether it is
    there (:data:`_PRESENCE`: ``Is the bug present?``), so that a yes or no to it is no verdict either way."""
    if _PRESENCE & set(words):
        return False
    for k, word in enumerate(words):
        if word not in _BUG_NOUNS:
            continue
        if k >= 1 and words[k - 1] in _DEFINITE:  # ``the bug``
            return True
        if k >= 2 and words[k - 2] in _DEFINITE and words[k - 1] not in _NEGATIONS | _OTHERS | _INDEFINITE:
            return True  # ``the injected bug``, not ``this an error``
    return False


def _asks_bug(label: str) -> bool:
    """Whether a label asks for a bug by name (``Bugs``, ``Issues found``), not for one kind only (``Variable
    misuse``) nor for the verdict (``Verdict``)."""
    return bool(_ASKS_BUG & {w.lower() for w in _TOKENS.findall(label)})


#: an answer after a label that denies it (``Bugs: none``, ``Bug found: nothing``, ``Bug: None found``, ``Bug: not
#: found``, ``Bug: N/A``, ``Injected bug: absent``)
_NONE = re.compile(
    r"[ \t*_`]*(?:(?:none|nothing|nil|null|zero)(?:[ \t]+(?:found|detected|identified|present|seen|spotted))?"
    r"|not[ \t]+(?:found|detected|present|identified)|n/?a|absent)[ \t*_`.!]*",
    re.I,
)
#: the keys of a JSON object that hold the verdict itself (``{"answer": 1}``, ``{"verdict": "correct"}``)
_ANSWER_KEYS = {"answer", "final_answer", "verdict", "label", "prediction", "result", "output", "bug_verdict"}
#: the keys that ask whether there is a bug (``{"buggy": false}``: 0), and whether the function is correct
#: (``{"correct": false}``: 1)
_BUG_KEYS = {"bug", "bugs", "buggy", "bugged", "has_bug", "has_bugs", "is_buggy", "contains_bug", "contains_bugs"}
_BUG_KEYS |= {"bug_present", "bug_found", "bugs_found", "has_injected_bug", "injected_bug", "bug_detected"}
_CORRECT_KEYS = {"correct", "is_correct", "bug_free", "is_bug_free", "clean", "no_bug", "no_bugs"}


def _object_verdicts(obj: dict) -> list[int]:
    """The verdicts of a JSON object (``{"answer": 1}``, ``{"buggy": false}``, ``{"has_bug": true, "line": 3}``):
    those of its keys that hold or ask for the verdict, others (an explanation) left out; Unreadable for none."""
    out = []
    for key, value in obj.items():
        name = re.sub(r"[^a-z]+", "_", key.lower()).strip("_")
        if name in _ANSWER_KEYS and value is not None and not isinstance(value, (list, dict)):
            out.append(prediction(value) if not isinstance(value, str) else read_answer(value))
        elif name in _BUG_KEYS | _CORRECT_KEYS:
            verdict = _value_verdict(value)
            out.append(verdict if name in _BUG_KEYS else 1 - verdict)
    if not out:
        raise Unreadable(f"an object with no verdict among its keys ({', '.join(list(obj)[:4])})")
    return out


def _value_verdict(value) -> int:
    """Whether a key that asks for a bug says yes (1) or no (0): a bool, 0 or 1, a word, a list of bugs, a bug
    denied (``"none"``, ``"not found"``: 0) or described (``"variable misuse on line 5"``: 1)."""
    if value is None or isinstance(value, (list, dict)):
        return int(bool(value))
    try:
        return prediction(value) if not isinstance(value, str) else read_answer(value)
    except ValueError:
        if isinstance(value, str) and _NONE.fullmatch(value):
            return 0
        if isinstance(value, str) and _DESCRIBED.search(value) and not _DENIED.search(value):
            return 1
        raise Unreadable(f"{value!r} is no verdict") from None


#: a bug described (the value of a bug key: ``"variable misuse on line 5"``, ``"swapped comparison"``), and a
#: denial that keeps a description from being one (``"no variable misuse"``)
_DESCRIBED = re.compile(
    r"\b(?:misuse[ds]?|misused|swap(?:ped|s)?|off[- ]by[- ]one|wrong[ \t]+(?:variable|operator|comparison)"
    r"|line[ \t]+\d+|instead[ \t]+of|should[ \t]+be)\b",
    re.I,
)
_DENIED = re.compile(r"\b(?:no|not|none|never|without|nothing)\b|n't\b", re.I)


#: words before a verdict offered beside another (``yes or no``, ``0, but it could also be 1``, ``maybe 0``)
_OFFERED = {"or", "either", "maybe", "perhaps", "possibly", "probably", "be"}
#: words after which a bare 0 or 1 gives a verdict of its own (``Yes, 0``, ``1 — wait, no, 0``)
#: (``but`` is left out: inside a line it joins a note, ``0, but 1 call is slow``, more often than it corrects)
_TURNS = {"yes", "no", "true", "false"} | {w for w in SECOND_THOUGHT_WORDS if " " not in w} - {"but"}
#: a reply that says it cannot tell (``I'm not sure``, ``hard to say``, ``yes and no``): whatever verdict words it holds
_UNSURE = re.compile(
    r"\b(?:can(?:no|')t[ \t]+(?:tell|say|determine|be[ \t]+sure)|not[ \t]+sure|unsure|hard[ \t]+to[ \t]+(?:say|tell)"
    r"|unclear|uncertain|don't[ \t]+know|not[ \t]+necessarily|yes[ \t]+and[ \t]+no|no[ \t]+and[ \t]+yes)\b",
    re.I,
)
# an opening count of bugs (``0 bugs``, ``1 bug``), and two verdicts offered as alternatives (``0 or 1``)
_COUNT = re.compile(r"\s*(\d+)\s+(?:\w+\s+)?(bugs?)\b", re.I)
_EITHER = re.compile(r"\s*[01]\s*(?:or|/|,|-|to)\s*[01](?![\w.])", re.I)


def _verdicts(segment: str, asked: str = _BUG) -> list[int]:
    """The verdicts of a segment (a label before a colon removed): :func:`_found`, those of 0 that a contrast
    or a scope limits (:func:`_limit`) left out, and those of 1 that a modal, a concession of how the code looks
    (:func:`_conceded`) or a scope outside the function (:func:`_elsewhere`) limits; an opening yes or no read in
    the sense of what it answers (``asked``: :func:`_asked`). Unreadable when only limited ones are left (``The
    function looks correct, but the comparison on line 3 is swapped``), unless what limits them is a note on style
    (``The function is correct, but it could be faster``); and when a contrast limits a verdict of 0 and a verdict
    of 1 is left that is no plain assertion about this code in the contrast's own sentence, after it (``No bug,
    but a bug would occur if n were negative``, ``Correct. However, a common bug is …``: :func:`_plain`)."""
    found, words = _found(segment)
    out, limits, contrasts, ones = [], [], [], []
    for value, k in found:
        if k == _OPENER:
            if asked == _UNKNOWN or (asked == _KIND and value == 0):
                limits.append("a question of unknown sense" if asked == _UNKNOWN else "a no to one kind of bug")
                continue
            value = 1 - value if asked == _CORRECT else value
            limit = _limit(words, -1) if value == 0 else None
        elif k >= 0 and (k >= len(words) or words[k] not in VERDICT_WORDS):
            limit = None  # a verdict offered (``it could also be 1``) or concluded (``so the answer is 1``)
        elif value == 0:
            limit = _limit(words, k)
            if limit is not None and limit[1] > k and words[limit[1]] in _CONTRASTS:
                contrasts.append(limit[1])
        else:
            conceded = _conceded(words, k)
            if conceded is not None:
                continue  # ``though it looks like a bug``: no verdict, and none limited
            limit = _hypothetical(words, k) or _elsewhere(words, k)
            if limit is None:
                ones.append(k)
        if limit is None:
            out.append(value)
        else:
            limits.append(limit[0] if isinstance(limit, tuple) else limit)
    if contrasts:
        for k in ones:
            if not any(c < k < _bounds(words, c, _SENTENCE_ENDS)[1] and _plain(words, c) for c in contrasts):
                raise Unreadable(
                    f"a verdict limited by {words[contrasts[0]]!r}, and a bug after it that is no plain verdict on "
                    f"this code ({' '.join(words[_bounds(words, k, _SENTENCE_ENDS)[0] : k + 1])[-60:]!r})"
                )
    if limits and not out:
        if "a question of unknown sense" in limits:
            raise Unreadable(f"a yes or no that answers a question of unknown sense: {segment[:80]!r}")
        if "a no to one kind of bug" in limits:
            raise Unreadable(f"a no to one kind of bug says nothing of the other: {segment[:80]!r}")
        if _STYLE.search(segment) or ((note := _NOTE.search(segment)) and not _FIX.search(note.group())):
            return [0]
        raise Unreadable(f"a verdict limited by {limits[0]!r}, and no verdict of its own after it: {segment[:80]!r}")
    return out


#: a name in prose (``find_max``, ``getValue``, ``find_max()``): the function or code, whose words give no verdict
_NAME = re.compile(r"(?<![\w`])(?:[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*)(?:\(\))?(?![\w`])")


def _words(segment: str) -> list[str]:
    """The words of ``segment`` in lower case, punctuation as words of its own, inline code and names in prose
    (``find_max``) as ``code``."""
    return [w.lower() for w in _TOKENS.findall(_NAME.sub(" code ", _CODE_SPAN.sub(" code ", segment)))]


def _found(segment: str) -> tuple[list[tuple[int, int]], list[str]]:
    """Every verdict of ``segment``, each with the index of its word in the segment's words (-1 for an
    opening number or count, :data:`_OPENER` for an opening yes or no), and those words (:func:`_words`)."""
    out = []
    count = _COUNT.match(segment)
    if count is not None:  # a count of bugs: none is a verdict of 0, any is 1; its noun is no verdict of its own
        out.append((int(int(count.group(1)) > 0), -1))
        segment = segment[count.end() :]
    elif (either := _EITHER.match(segment)) is not None:
        raise Unreadable(f"two verdicts offered ({either.group().strip()}), not one")
    elif (opening := _OPENING_NUMBER.match(segment)) is not None:
        word = opening.group().strip()
        if word.endswith("%") or float(word) not in (0.0, 1.0) or re.match(r"[-+]?0\d", word):
            raise Unreadable(f"{word} is neither 0 nor 1 (a score is no verdict)")
        out.append((int(float(word)), -1))
    words = _words(segment)
    if len(words) == 1 and words[0] in _MARKS:  # ``✅``, ``❌`` alone (after a label: ``Bug: ❌``)
        out.append((_MARKS[words[0]], _OPENER))
    for k, word in enumerate(words):
        if word in VERDICT_WORDS:
            out.append((1 - VERDICT_WORDS[word] if _negated(words, k) else VERDICT_WORDS[word], k))
        elif k == 0 and word in OPENERS and not (word in _NEGATIONS and _negates_next(words)) and not _more(words):
            out.append((OPENERS[word], _OPENER))  # ``no bug``: that ``no`` negates, it is no verdict itself
        elif k > 0 and words[k - 1] in _OFFERED and word in OPENERS:
            out.append((OPENERS[word], k))  # ``yes or no``, ``could be true``
        elif k > 0 and word in ("0", "1") and _previous_word(words, k) in _OFFERED | _TURNS:
            out.append((int(word), k))  # ``0, but it could also be 1``, ``Yes, 0``, ``1 — wait, no, 0``
    concluded = _CONCLUDED.search(segment)
    if concluded is not None:  # ``…, so the answer is 1.``: a bare verdict that ends the segment
        out.append((int(concluded.group("verdict")), len(words)))
    return out, words


#: words that limit a verdict wherever they stand in its sentence: an exception (``Apart from line 4, the
#: function is correct``, ``correct except for line 3``, ``Otherwise it is correct``)
_EXCEPTIONS = {"except", "excepting", "apart", "aside", "besides", "barring", "otherwise"}
#: words after a verdict, anywhere, that set a contrast against it (``correct, but line 3 …``, ``… However, …``)
_CONTRASTS = {"but", "however", "though", "although", "yet", "nevertheless", "nonetheless", "whereas"} | _EXCEPTIONS
#: words that make the verdict of their own clause a concession or a condition (``Although it looks correct, …``,
#: ``if n is positive it is correct``); in another clause (``Although the loop looks odd, it is correct``) no limit
_SUBORDINATE = {"although", "though", "while", "whilst", "whereas", "if", "when", "unless", "once", "until"}
#: adverbs before a verdict in its clause that limit it (``mostly correct``, ``syntactically correct``)
_LIMITING = {
    "mostly",
    "largely",
    "partly",
    "partially",
    "almost",
    "nearly",
    "syntactically",
    "seemingly",
    "superficially",
    "generally",
    "basically",
    "essentially",
    "mainly",
    "technically",
    "apparently",
    # ``no other bugs``, ``no further bugs``: beside one already named
    "other",
    "further",
    "additional",
}
#: a modal before ``be`` or ``make`` in a verdict's clause: a hypothetical, no verdict (``which would make it
#: correct``, ``it would be correct if …``, ``it could be bug-free``)
_MODALS = {"would", "could", "might", "may", "should"}
_HYPOTHETICAL = {"be", "make", "makes", "become", "have", "then", "also", "look", "seem", "appear", "sound"}
#: parts of a function: a verdict on one is none on the function (``The loop itself is correct``, ``Line 2 is
#: correct``, ``Everything else looks correct``, ``The rest of the function is correct``)
_PARTS = {
    *"line lines loop loops branch branches condition conditions comparison comparisons syntax header".split(),
    *"signature initialization initialisation indexing index guard check checks expression expressions".split(),
    *"statement statements call calls part parts half rest remainder else case cases recursion variable".split(),
    *"variables operator operators assignment assignments increment bound bounds block blocks clause".split(),
    *"parameter parameters argument arguments type types structure idea approach intent".split(),
}
#: words after a verdict in its clause that scope it (``correct for positive inputs``, ``no bug in the loop``,
#: ``correct at first glance``, ``correct when n > 0``, ``correct as long as …``), unless what follows them is
#: the whole (:func:`_whole`: ``correct for all inputs``, ``no bug in the code``, ``no bugs at all``)
_SCOPES = {"for", "in", "on", "at", "within", "under", "when", "if", "unless", "once", "until", "provided"}
_SCOPES |= {"assuming", "given", "only", "as"}
_ALL = {"all", "every", "any", "each", "both", "me", "us", "it", "itself", "written", "is", "well", "such"}
_DETERMINERS = {"this", "that", "the", "its", "my", "our"}
_WHOLE_NOUNS = {"function", "code", "method", "implementation", "program", "snippet", "whole", "entire", "body"}
_WHOLE_NOUNS |= {"opinion", "view", "analysis", "reading", "judgment", "judgement", "assessment"}
#: the words that end a clause, and those that end a sentence
_CLAUSE_ENDS = {",", ";", ":", ".", "!", "?", "(", ")", "—", "–", "-", "and", "but", "so", "because", "since", "or"}
_SENTENCE_ENDS = {".", "!", "?", ";"}
#: a contrast that is a note on style, no bug (``…, but it could be more efficient``, ``…, but the names could
#: be clearer``)
_STYLE = re.compile(
    r"\b(?:but|though|although|however|yet)\b[ \t,]+(?:(?:it|this|the[ \t]+\w+(?:[ \t]+\w+)?)[ \t]+"
    r"(?:could|can|might|may)(?:[ \t]+also)?[ \t]+be[ \t]+(?:(?:a[ \t]+(?:bit|little)[ \t]+)?more[ \t]+"
    r"(?:efficient|readable|concise|idiomatic|pythonic|elegant)|faster|clearer|cleaner|simpler|shorter|simplified|optimi[sz]ed)"
    r"|(?:it|this)(?:'s|’s|[ \t]+is)[ \t]+(?:a[ \t]+bit[ \t]+)?(?:slow|inefficient|verbose))[ \t]*[.!]?[ \t]*$",
    re.I,
)
#: a contrast on what is no code (``…, but the docstring is outdated``, ``…, but the naming is odd``): a note,
#: unless it describes a bug (:data:`_FIX`: ``…, but the names on line 3 are swapped``)
_NOTE = re.compile(
    r"\b(?:but|though|although|however|yet)\b[ \t,]+(?:the[ \t]+|its[ \t]+)?(?:docstring|comments?|naming|documentation"
    r"|formatting|style|type[ \t]+hints?|variable[ \t]+names|names)\b[^.;!?]*[.!]?[ \t]*$",
    re.I,
)
#: a bare verdict that closes a segment after a conclusion (``…, so the answer is 1.``, ``… so 1.``, ``…. Answer: 1``):
#: ``the answer is N`` opens the segment or a sentence, or follows ``so`` (…) at once; in a trace's sentence (``For
#: n = 1 the answer is 1.``, ``So for an empty list the answer is 0.``) it is no verdict
_CONCLUDED = re.compile(
    r"(?:^[ \t]*|[.!?;:][ \t]+|\b(?:so|thus|hence|therefore)\b[ \t,:]*)"
    r"(?:(?:(?:the|my)[ \t]+)?(?:final[ \t]+)?(?:answer|verdict)[ \t]*(?:[:=]|is|would[ \t]+be|should[ \t]+be"
    r"|must[ \t]+be))?"
    r"[ \t]*:?[ \t]*[*_`]*(?P<verdict>[01])[*_`]*[ \t]*[.!]?[ \t]*$",
    re.I,
)


def _limit(words: list[str], k: int) -> tuple[str, int] | None:
    """What limits the verdict of 0 that ``words[k]`` gives (-1: an opening number, yes or no), and where, or
    None: an exception anywhere in its sentence, a contrast anywhere after it (not a concession of how the code
    looks: :func:`_moot`), a subordinating word, a limiting adverb, a part of the function (unless every part
    is meant: ``Every comparison is correct``) or a modal (:func:`_hypothetical`) before it in its clause, a
    scope after it in its clause. An opening verdict is limited by an exception only (``0, but 1 call is slow``
    is a note)."""
    if k < 0:
        return next(((w, j) for j, w in enumerate(words) if _exception(words, j)), None)
    clause, sentence = _bounds(words, k, _CLAUSE_ENDS), _bounds(words, k, _SENTENCE_ENDS)
    for j in range(sentence[0], k):
        if _exception(words, j):
            return words[j], j
    j = k + 1
    while j < len(words):
        if _exception(words, j):
            return words[j], j
        if words[j] in _CONTRASTS and not (words[j] == "yet" and words[j + 1 : j + 2] in (["another"], ["again"])):
            if words[j] in _CONCESSIONS and _moot(words, j):
                j = _bounds(words, j, _SENTENCE_ENDS)[1]
                continue
            return words[j], j
        j += 1
    for j in range(clause[0], k):
        w = words[j]
        if w in _SUBORDINATE or w in _LIMITING:
            return w, j
        if w in _PARTS and not _every(words, sentence[0], k) and not (w == "case" and words[j - 1] in _THIS):
            return w, j
    if (modal := _hypothetical(words, k)) is not None:
        return modal, k
    for j in range(k + 1, clause[1]):
        following = words[j + 1 : min(j + 5, clause[1])]
        if words[j] in _SCOPES and (following or words[j] == "only") and not _whole(following):
            if words[j] != "as" or following[:1] == ["long"]:
                return words[j], j
    return None


#: the contrasts that concede (``correct, though it looks like a bug at first``): a verdict's main clause stands
#: when the concession is only of how the code looks (:func:`_moot`)
_CONCESSIONS = {"though", "although"}
#: ``this case``, ``in any case``: no part of the function
_THIS = {"this", "that", "any", "either", "each", "every", "which"}
#: words that open a sentence about every part (``Every comparison and variable read is correct``)
_UNIVERSAL = {"every", "all", "each", "both"}
#: what makes a mention of a bug no assertion of one in this code (:func:`_plain`): a modal (any verb after it),
#: an appearance, a condition, a generic mention, a belief, a place outside the function
_APPEARANCE = {"look", "looks", "looked", "looking", "seem", "seems", "seemed", "appear", "appears", "appeared"}
_APPEARANCE |= {"like", "resemble", "resembles", "resembling", "glance"}
_CONDITION = {"if", "were", "when", "whenever", "unless", "suppose", "supposing", "assuming", "hypothetically"}
_GENERIC = {"common", "typical", "typically", "classic", "usual", "potential", "possible", "possibly", "such"}
_BELIEF = {"thought", "think", "suspected", "suspect", "believed", "believe", "assumed", "initially"}
_BELIEF |= {"mistook", "mistaken", "mistake", "flag", "flagged"}
_ELSEWHERE = {"caller", "callers", "calling", "client", "clients", "elsewhere"}
#: what another reader might do (``a careless reader might think it's buggy``, ``might flag it as a bug``)
_OTHERS_BELIEF = {"think", "flag", "mistake", "suspect", "consider", "call"}
#: the words that place a bug somewhere (``a bug in the caller``)
_INSIDE = {"in", "of", "by"}
#: what stands between ``like`` and the bug it likens the code to (``looks like an off-by-one bug``)
_LIKENED = {"a", "an", "the", "common", "typical", "classic", "obvious", "potential", "possible", "real", "subtle"}
_LIKENED |= {"off-by-one", "injected", "code", "swapped", "comparison"}


def _every(words: list[str], start: int, k: int) -> bool:
    """Whether the sentence from ``start`` to the verdict ``words[k]`` is about every part (``Every comparison and
    variable read is correct``, ``All comparisons are correct``), with no exception or contrast in it (``Every
    line but line 3 is correct``)."""
    span = words[start:k]
    return bool(span) and span[0] in _UNIVERSAL and not (set(span) & (_CONTRASTS | _LIMITING | {"rest", "else"}))


def _plain(words: list[str], c: int) -> bool:
    """Whether the sentence a contrast ``words[c]`` opens asserts a bug in this code plainly (``…, but the logic has
    a bug``), not a hypothetical (``but a bug would occur``), an appearance (``but it looks like a bug``), a
    condition (``if it were buggy``), a generic mention (``a common bug``), a belief (``I initially suspected a
    bug``) or one outside the function (``a bug in the caller``)."""
    span = words[c + 1 : _bounds(words, c, _SENTENCE_ENDS)[1]]
    avoid = _APPEARANCE | _CONDITION | _GENERIC | _BELIEF | _ELSEWHERE
    at_first = any(a == "at" and b == "first" for a, b in zip(span, span[1:]))  # ``at first I thought …``
    return not at_first and not any(_modal(w) or w in avoid for w in span)


def _concedes(words: list[str], c: int, k: int) -> bool:
    """Whether the bug ``words[k]`` after the concession ``words[c]`` is only conceded: the code is likened to one
    (``it looks like an off-by-one bug``, ``resembles a common bug``), it was believed once or by another
    (``at first I thought it was buggy``, ``a careless reader might think it's buggy``) or it is generic."""
    likened = next((j for j in range(k - 1, max(c, k - 5), -1) if words[j] not in _LIKENED), None)
    if likened is not None and words[likened] in {"like", "resemble", "resembles", "resembling"}:
        return True
    span = words[c + 1 : k]
    if set(span) & {"thought", "suspected", "believed", "assumed", "initially", "mistook"}:
        return True
    if any(a == "at" and b == "first" for a, b in zip(span, span[1:])):
        return True
    if any(_modal(a) and b in _OTHERS_BELIEF for a, b in zip(span, span[1:])):
        return True
    return bool(set(words[max(c + 1, k - 2) : k]) & {"common", "typical", "classic", "usual"})


def _conceding(words: list[str], c: int) -> int:
    """The index past the clause the concession ``words[c]`` opens: its sentence's end, or where its clause ends
    when it opens the sentence (``Though it looks correct at first glance, the function is buggy``)."""
    start, stop = _bounds(words, c, _SENTENCE_ENDS)
    if all(w in {"even", "and", "but"} for w in words[start:c]):
        return next((j for j in range(c + 1, stop) if words[j] in {",", ";", ":", "—", "–"}), stop)
    return stop


def _moot(words: list[str], c: int) -> bool:
    """Whether the concession ``words[c]`` (``though``, ``although``) only concedes how the code looks: every
    verdict word of 1 in its clause (:func:`_conceding`) is conceded (:func:`_concedes`), and there is one
    (``correct, although at first glance the `<=` looks like a bug``); a concession that describes a bug in other
    words (``correct, though line 3 compares with <``) limits the verdict."""
    stop = _conceding(words, c)
    bugs = [k for k in range(c + 1, stop) if VERDICT_WORDS.get(words[k]) == 1]
    try:
        if any(_negated(words, k) for k in bugs):
            return False
    except Unreadable:
        return False
    return bool(bugs) and all(_concedes(words, c, k) for k in bugs)


def _conceded(words: list[str], k: int) -> str | None:
    """The concession (``though``, ``although``) before the verdict of 1 ``words[k]`` in its sentence that only
    concedes it (:func:`_concedes`: ``correct, though it looks like a bug at first``), or None."""
    start = _bounds(words, k, _SENTENCE_ENDS)[0]
    c = next((j for j in range(k - 1, start - 1, -1) if words[j] in _CONCESSIONS), None)
    return words[c] if c is not None and k < _conceding(words, c) and _concedes(words, c, k) else None


def _elsewhere(words: list[str], k: int) -> str | None:
    """The place outside the function a verdict of 1 ``words[k]`` is scoped to in its clause (``a bug in the
    caller``), or None."""
    stop = _bounds(words, k, _CLAUSE_ENDS)[1]
    for j in range(k + 1, stop):
        if words[j] in _ELSEWHERE and (words[j] == "elsewhere" or set(words[max(k + 1, j - 3) : j]) & _INSIDE):
            return words[j]
    return None


def _hypothetical(words: list[str], k: int) -> str | None:
    """The modal that makes the verdict word ``words[k]`` a hypothetical (``which would make it correct``, ``this
    would be a bug``, ``it could be buggy``), or None: one of either verdict, which is then none."""
    if k < 0:
        return None
    start = _bounds(words, k, _CLAUSE_ENDS)[0]
    return next((words[j] for j in range(start, k - 1) if _modal(words[j]) and words[j + 1] in _HYPOTHETICAL), None)


def _modal(word: str) -> bool:
    """Whether ``word`` is a modal (:data:`_MODALS`), ``it'd`` and ``that'd`` included."""
    return word in _MODALS or word.endswith(("'d", "’d"))


def _exception(words: list[str], j: int) -> bool:
    """Whether ``words[j]`` opens an exception (:data:`_EXCEPTIONS`; ``other than``, ``save for``, ``but for``
    by their second word)."""
    pair = (words[j - 1] if j > 0 else "", words[j])
    return words[j] in _EXCEPTIONS or pair in {("other", "than"), ("save", "for"), ("but", "for")}


def _whole(following: list[str]) -> bool:
    """Whether the words after a scope name the whole function (``all inputs``, ``the code``, ``the provided
    function``, ``my view``; a name or code: ``find_max``, which :func:`_words` reads as ``code``)."""
    if not following:
        return False
    if following[0] in _DETERMINERS:  # ``the code``, ``the provided function``, ``this Java method``
        for word in following[1:4]:
            if word in _WHOLE_NOUNS:
                return True
            if word in _PARTS or not word[0].isalpha():
                return False
        return False
    return following[0] in _ALL or following[0] in _WHOLE_NOUNS


def _bounds(words: list[str], k: int, ends: set[str]) -> tuple[int, int]:
    """The first index of the run of ``words`` around ``k`` that no word of ``ends`` breaks, and the index past it."""
    start = next((j + 1 for j in range(k - 1, -1, -1) if words[j] in ends), 0)
    stop = next((j for j in range(k + 1, len(words)) if words[j] in ends), len(words))
    return start, stop


def _previous_word(words: list[str], k: int) -> str:
    """The word before ``words[k]``, punctuation skipped ("" when none)."""
    return next((w for w in reversed(words[:k]) if w[0].isalnum()), "")


def read_answer(segment: str) -> int:
    """The verdict of a segment of an answer: 0 (correct) or 1 (bugged).
    Unreadable for none, for a score, and for verdicts that disagree."""
    unsure = _UNSURE.search(segment)
    if unsure is not None:
        raise Unreadable(f"no verdict: the answer is unsure ({unsure.group()})")
    found = list(dict.fromkeys(verdicts(segment)))
    if not found:
        raise Unreadable(f"no verdict (0 or 1, yes or no, buggy or correct) in {segment.strip()[:80]!r}")
    if len(found) > 1:
        raise Unreadable(f"conflicting verdicts (0 and 1) in {segment.strip()[:80]!r}")
    return found[0]


#: words that open a conclusion in any sentence (``So 1.``, ``Well, 0``, ``The answer is 1``): beside the
#: words of second thoughts (:data:`~invar.tasks.answers.OPENERS`), they open a line that gives a verdict
#: only before a bare 0 or 1 (``So 0 is returned`` is prose)
CONCLUSIONS = (
    "so",
    "well",
    "ok",
    "okay",
    "thus",
    "hence",
    "therefore",
    *(
        f"{whose} {kind}answer {verb}"
        for whose in ("the", "my")
        for kind in ("", "final ", "correct ", "real ", "right ")
        for verb in ("is", "would be", "should be", "must be")
    ),
    *(
        f"{whose} {kind}verdict {verb}"
        for whose in ("the", "my")
        for kind in ("", "final ", "correct ", "real ", "right ")
        for verb in ("is", "would be", "should be", "must be")
    ),
)
#: words that open a line of second thoughts before the verdict they give (``Actually, 1.``, ``So 1.``,
#: ``Wait, the answer is 1``); only a bare 0 or 1 after them is a verdict (``So 0 is returned`` is prose)
_SECOND_THOUGHTS = opening(SECOND_THOUGHT_WORDS + CONCLUSIONS)


_BARE = re.compile(r"[01][.!]?")
#: the conclusions after which a bare yes or no answers the prompt's question (``Therefore: no.``, ``So, yes.``,
#: ``The answer is no``); not ``well`` or ``ok``, which open a retraction as often (``Well, no: …``)
_CONCLUDING = opening([w for w in CONCLUSIONS if w not in ("well", "ok", "okay")])
_BARE_WORD = re.compile(r"(?P<word>yes|no)[ \t]*[.!]?", re.I)
#: a defect named outright (``is swapped``, ``misuses``, ``off by one``), and the start of a fix (``should be``)
_NAMED_DEFECT = (
    r"(?:is|are|was|were)[ \t]+(?:wrong|swapped|reversed|inverted|misused)|misuse[ds]?|off[- ]by[- ]one"
    r"|swapped[ \t]+(?:comparison|operator)"
)
_SHOULD = r"should(?:[ \t]+(?:probably|really|actually|instead))?[ \t]+"
#: a bug described on a line of strong second thoughts (``Actually``, ``Wait``, ``But wait``, ``Update``:
#: :func:`~invar.tasks.answers.opened_strongly`) that gives no verdict word (``Wait, `total` should be
#: `count`.``, ``Actually, the comparison is swapped.``, ``Hmm, wait. `i > 0` should probably be `i >= 0`.``,
#: ``Update: there is a swapped comparison on line 3.``, ``Wait, line 3 uses `<` where it needs `<=`.``): a
#: verdict of 1 there
_FIX = re.compile(
    rf"\b(?:{_SHOULD}(?:be|use|read|compare|return|start|stop|end|begin)|instead[ \t]+of|{_NAMED_DEFECT}"
    r"|where[ \t]+(?:it[ \t]+)?(?:needs|is[ \t]+needed))\b",
    re.I,
)
#: a contrast that opens a sentence (``However, …``, ``But …``, ``That said, …``), and one after a pause
_CONTRAST = re.compile(r"(?:however|but|that[ \t]+said|yet)(?![\w-])[ \t,:]*", re.I)
_CONTRAST_AFTER_PAUSE = re.compile(r"[,;:—–][ \t]*((?:however|but|that[ \t]+said|yet)(?![\w-]))", re.I)
#: a defect named outright (:data:`_NAMED_DEFECT`, ``is incorrect``, ``should be <=``, ``should be `count```): what
#: a contrast after a verdict of none must name to give one (``However, the name could be
#: clearer.``, ``But `i` should be renamed.`` name none)
_DEFECT = re.compile(
    rf"\b(?:{_NAMED_DEFECT}|(?:is|are|was|were)[ \t]+(?:incorrect|buggy))\b|\b{_SHOULD}(?:be|use|read|compare)[ \t]+"
    r"[`'\"<>=!]",
    re.I,
)
#: what makes a defect named after a contrast no verdict: a matter of style or of what is no code (``… should be
#: `lst` for readability``, ``to match the docstring``, ``in production code``), a condition or a hypothesis
#: (``only if …``, ``would be off by one if …``), or a denial after it (``…; it should not``)
_STYLE_WORD = re.compile(
    r"\b(?:readab\w*|clarity|clearer|style|stylistic|nit|naming|convention|pythonic|idiomatic|cosmetic|docstring"
    r"|comments?|documentation|pep[ \t]?8|logging|production|looks[ \t]+like)\b"
    r"|\b(?:if|unless|would|could|might|whether)\b"
    r"|\b(?:it|they|that|this)[ \t]+(?:should|does|do|is|are|was|were)(?:n't|n’t|[ \t]+not)\b",
    re.I,
)
#: a bare verdict that closes a line of second thoughts after a pause (``Wait, no, the code is fine: 0.``); a
#: hyphen is no pause but a minus (``the last index is n-1``, ``n - 1``)
_CLOSING = re.compile(r"[,:;—–][ \t]*[*_`]*(?P<verdict>[01])[*_`]*[ \t]*[.!]?[ \t]*$")


def _answering(question: str, word: str) -> list[int]:
    """The verdict a yes or no gives as the answer to ``question`` (:func:`_asked`), or none where its sense is
    unknown (``Does it handle empty lists?``) or the word denies one kind of bug only (``Any other bugs?``)."""
    try:
        return verdicts(f"{question.rstrip()} {word}")
    except ValueError:
        return []


def _fixes(sentence: str, narrow: bool = False) -> bool:
    """Whether a sentence of strong second thoughts describes a bug (:data:`_FIX`), or one that a contrast opens
    (or ``actually`` after a soft pause: ``narrow``) names a defect (:data:`_DEFECT`: ``However, the comparison
    is swapped.``) and no matter of style (``… should be `lst` for readability``), not negated in its clause
    (``j is not misused``; not ``No wait, j is misused``), and asks nothing."""
    if "?" in sentence or retracts(sentence):
        return False
    opener = opened_strongly(sentence) or _CONTRAST.match(sentence)
    if opener is None:
        return False
    narrow = narrow or opened_strongly(sentence) is None
    if narrow and _STYLE_WORD.search(sentence):
        return False
    body = sentence[opener.end() :]
    for fix in (_DEFECT if narrow else _FIX).finditer(body):
        clause = re.split(r"[,;:—–]", body[: fix.start()])[-1]
        before = [w.lower() for w in _TOKENS.findall(clause) if w[0].isalnum()][-3:]
        if not any(w in _NEGATIONS or w.endswith(("n't", "n’t")) for w in before):
            return True
    return False


def _contrasts(line: str) -> list[str]:
    """What follows each contrast inside ``line`` after a pause (``The loop is fine; but the comparison is
    swapped.``, ``It looks right — however, …``) to its sentence's end."""
    return [
        re.split(r"(?<=[.!?])[ \t]", line[m.start(1) :], maxsplit=1)[0] for m in _CONTRAST_AFTER_PAUSE.finditer(line)
    ]


def _taken_back(sentence: str) -> list[int]:
    """The verdicts of a sentence of strong second thoughts inside a line (``scratch that, 1.``, ``no wait, j
    is misused``): a bare verdict after their words or closing them, else one in words, else a bug described."""
    rest = _SECOND_THOUGHTS.sub("", sentence, count=1)
    out = [int(closing.group("verdict"))] if (closing := _CLOSING.search(rest)) is not None else []
    try:
        out += verdicts(rest if _BARE.fullmatch(rest.strip()) else sentence)
    except ValueError:
        pass
    return out or ([1] if _fixes(sentence) else [])


def find_answers(text: str) -> list[int]:
    """Every verdict of a reply, line by line: its candidate answers (a bare
    0 or 1 after words of second thoughts too: ``Actually, 1.`` gives 1, as
    does one that closes their line after a pause: ``Wait, the code is fine: 0.``)."""
    out = []
    before = ""
    for line in lines(text, numbers=True):
        concluded = _CONCLUDING.sub("", line, count=1)
        asked = before.rstrip().endswith("?")  # ``Is it correct?`` / ``So, no.``: a yes or no in that question's sense
        before_question, before = before, line
        if concluded != line and (bare := _BARE_WORD.fullmatch(clean(concluded).strip())) is not None:
            if not asked:
                out.append(OPENERS[bare.group("word").lower()])  # ``Therefore: no.``
            else:  # ``Is there a bug?`` / ``So, yes.``: 1; a question of no known sense gives none
                out.extend(_answering(before_question, bare.group("word")))
            continue
        rest = _SECOND_THOUGHTS.sub("", line, count=1)
        if rest != line and (closing := _CLOSING.search(rest)) is not None:
            out.append(int(closing.group("verdict")))
        try:
            found = verdicts(rest if rest != line and _BARE.fullmatch(rest.strip()) else line)
        except ValueError:
            found = []
        narrow = [(s, True) for s in weak_sentences(line) + _contrasts(line)]
        if not found and any(_fixes(s, n) for s, n in [(s, False) for _, s in sentences(line)] + narrow):
            found = [1]  # ``Update: found it: `total` should be `count`.``, ``It's fine. Wait, `<` should be `<=`.``
        elif found:  # a verdict that second thoughts later in the line take back (``No bug, scratch that, 1.``)
            found += [v for _, s in sentences(line)[1:] if opened_strongly(s) for v in _taken_back(s)]
            found += [1] if any(_fixes(s, True) for s in weak_sentences(line) + _contrasts(line)) else []
        out.extend(found)
    return out


#: a whole reply -> 0 or 1 (:mod:`invar.tasks.answers`' pipeline)
answer = Reader(parse=read_answer, find=find_answers, after=find_answers, numbers=True, questions=True)


TASK = Task(
    name="bugs",
    head="binary",
    n_labels=1,
    invariances={"renamings": True, "permutations": True},
    metric_name="accuracy",
    lower_is_better=False,
    loss=loss,
    metric=accuracy,
    output=output,
    parse=parse,
    read_split=read_split,
    discrete=True,
    label=label,
    answer=answer,
    prediction=prediction,
    lang=PYTHON.name,
    prepare=prepare,
    undo=lambda prediction, back: prediction,  # a label names nothing of the input
    score=score,
    extra_metrics={"F1 (bug)": bug_f1},
    f1=False,
    dataset=dataset,
    languages=(PYTHON.name, JAVA.name),
)

__all__ = [
    "TASK",
    "SWAPS",
    "function_text",
    "parse",
    "prepare",
    "candidates",
    "check",
    "inject",
    "build",
    "read_split",
    "loss",
    "output",
    "accuracy",
    "bug_f1",
    "label",
    "answer",
    "read_answer",
    "find_answers",
    "verdicts",
    "VERDICT_WORDS",
    "OPENERS",
]
