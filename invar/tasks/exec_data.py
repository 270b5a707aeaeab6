"""Datasets of output prediction labelled by running the code
(``invar data exec``): only this command and ``audit --oracle`` run code.

Two sources of examples:

* ``--source DIR``: the self-contained functions of a directory, each called
  with drawn or given arguments (:mod:`invar.tasks.exec_source`);
* ``--generate N --seed S``: N programs invar writes
  (:mod:`invar.tasks.exec_generate`), each with its call; programs whose call
  gives no label are replaced by more (up to :data:`ROUNDS` rounds), so N are
  written unless many fail (then fewer, and the summary says why).

**Labels.** Every call runs **twice**, in two sandboxes
(:mod:`invar.sandbox`: a child process per batch, the :class:`Limits` given,
no network, a temporary working directory, a scrubbed environment) with
different hash seeds (``PYTHONHASHSEED`` 1 and 2): its label is the result
when both runs return the same literal. A call whose two runs differ
(time, randomness, ids, the hash order of a set of strings turned into a
list) is **non-deterministic** and left out; so is one that raises, runs
past its limits, is refused by the sandbox, or returns no literal, and one
an inputs file gives for a function that is skipped. Each is counted by
reason in ``meta.json`` (``left_out``) and the summary.

**Output**: OUT/``test.jsonl``, one example per line in CRUXEval's layout
(``id``, ``code``, ``input``, ``output``) with ``function``, ``path`` and
``line``; and ``meta.json``, written last (the counts; the limits; how many
examples can vary: more than one renaming, more than one order, either, in
invar's own spaces).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import DataError, UsageError
from ..sandbox import Call, Limits, Outcome, run

if TYPE_CHECKING:
    from .exec_source import Inputs

#: rounds of new programs ``--generate`` draws to replace those left out
ROUNDS = 4
#: calls labelled between two progress reports
_CHUNK = 200
#: an outcome's kind -> why its example is left out
REASONS = {
    "raised": "raised an exception",
    "timeout": "ran past the time limit",
    "memory": "ran out of memory",
    "refused": "refused by the sandbox",
    "not literal": "returned no literal",
    "exit": "ended its process",
    "crash": "crashed its process",
    "nondeterministic": "non-deterministic (two runs differ)",
}


@dataclass(frozen=True)
class Item:
    """One example before it is labelled."""

    id: str
    code: str
    input: str
    function: str
    path: str
    line: int


def labels(
    items: Sequence[Item], limits: Limits, jobs: int = 1, progress: Callable[[int, int], None] | None = None
) -> list[tuple[str | None, str]]:
    """Each item's ``(label, "")`` or ``(None, why it is left out)`` (a
    :data:`REASONS` key): its call run twice, with hash seeds 1 and 2."""
    out: list[tuple[str | None, str]] = []
    for lo in range(0, len(items), _CHUNK):
        calls = [Call(it.code, f"{it.function}({it.input})") for it in items[lo : lo + _CHUNK]]
        if jobs > 1:  # the two runs side by side, half the children each
            with ThreadPoolExecutor(max_workers=2) as pool:
                first, second = pool.map(lambda seed: run(calls, limits, hash_seed=seed, jobs=jobs // 2), (1, 2))
        else:
            first, second = run(calls, limits, hash_seed=1), run(calls, limits, hash_seed=2)
        out += [_agreed(a, b) for a, b in zip(first, second)]
        if progress is not None:
            progress(len(out), len(items))
    return out


def _agreed(a: Outcome, b: Outcome) -> tuple[str | None, str]:
    if a.ok and b.ok and a.value == b.value:
        return a.value, ""
    if a.ok or b.ok:
        return None, "nondeterministic"
    return None, a.kind


def variation(rows: Sequence[dict]) -> dict[str, int]:
    """How many examples have more than one renaming, more than one
    order, and either, in invar's own spaces."""
    from ..errors import InvarError
    from ..symmetry.permutations import IntractableError, PermutationSpace
    from ..symmetry.spaces import renaming_space
    from .exec import parse, render

    out = {"renamings": 0, "permutations": 0, "either": 0}
    for row in rows:
        try:
            program = parse(render(row["code"], row["input"], row["function"]))
            renames = renaming_space(program).count() > 1
            try:
                reorders = PermutationSpace(program).count() > 1
            except IntractableError:  # too many orders to count
                reorders = True
        except InvarError:
            continue
        out["renamings"] += renames
        out["permutations"] += reorders
        out["either"] += renames or reorders
    return out


def _write(out: Path, rows: list[dict], meta: dict) -> dict:
    """``test.jsonl`` and then ``meta.json`` under ``out`` (a rewrite cut
    short leaves no meta.json: no dataset)."""
    from ..data import manifest
    from ..files import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").unlink(missing_ok=True)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    write_atomic(out / "test.jsonl", lambda f: f.write(text.encode("utf-8")))
    meta = {
        "invar": "exec",
        **manifest.fields("exec", ["python"]),
        **meta,
        "test": len(rows),
        "variable": variation(rows),
    }
    write_atomic(out / "meta.json", lambda f: f.write(json.dumps(meta, indent=1).encode("utf-8")))
    return meta


def _labelled(items: Sequence[Item], limits: Limits, jobs: int, left_out: dict[str, int], progress) -> list[dict]:
    rows = []
    for it, (value, why) in zip(items, labels(items, limits, jobs, progress)):
        if value is None:
            left_out[REASONS[why]] = left_out.get(REASONS[why], 0) + 1
        else:
            rows.append(
                {
                    "id": it.id,
                    "code": it.code,
                    "input": it.input,
                    "output": value,
                    "function": it.function,
                    "path": it.path,
                    "line": it.line,
                }
            )
    return rows


def build_source(
    source: str | Path,
    out: str | Path,
    *,
    seed: int = 0,
    calls: int = 3,
    inputs: str | Path | Inputs | None = None,
    limits: Limits = Limits(),
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """The dataset of the self-contained functions under ``source`` (the
    module docstring); returns meta.json's fields. ``inputs``: the inputs
    file's path, or the file already read (:func:`~.exec_source.read_inputs`:
    standard input is read once, by the caller)."""
    from .exec_source import Inputs, read_inputs, targets

    if calls < 1:
        raise UsageError(f"--calls {calls}: give at least 1", path="--calls")
    if inputs is not None and not isinstance(inputs, Inputs):
        inputs = read_inputs(inputs)
    found, skipped, unused = targets(source, seed, calls, inputs)
    items = [
        Item(f"{t.path}:{t.line}:{k}", t.code, arguments, t.name, t.path, t.line)
        for t in found
        for k, arguments in enumerate(t.inputs)
    ]
    if not items:
        raise DataError(
            "no self-contained function to call here (skipped: "
            + (", ".join(f"{n} {why}" for why, n in sorted(skipped.items())) or "no .py file")
            + ")",
            path=str(source),
        )
    left_out: dict[str, int] = dict(unused)  # the inputs' calls of skipped functions, counted with the rest
    rows = _labelled(items, limits, jobs, left_out, progress)
    meta = {
        "source": str(source),
        "seed": seed,
        "calls_per_function": calls,
        "functions": len(found),
        "calls": len(items) + sum(unused.values()),
        "skipped_functions": dict(sorted(skipped.items())),
        "left_out": dict(sorted(left_out.items())),
        "limits": asdict(limits),
    }
    return _write(Path(out), rows, meta)


def build_generated(
    n: int,
    out: str | Path,
    *,
    seed: int = 0,
    limits: Limits = Limits(),
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """``n`` generated programs, labelled (the module docstring); returns
    meta.json's fields (``constructs``: how many examples hold each)."""
    from .exec_generate import CONSTRUCTS, generate

    if n < 1:
        raise UsageError(f"--generate {n}: give at least 1 program", path="--generate")
    rows: list[dict] = []
    left_out: dict[str, int] = {}
    drawn = 0
    for _ in range(ROUNDS):
        wanted = n - len(rows)
        if wanted <= 0:
            break
        programs = [(k, generate(f"{seed}:{k}")) for k in range(drawn, drawn + wanted)]
        drawn += wanted
        items = [Item(f"generated:{seed}:{k}", g.code, g.arguments, g.function, "generated", k) for k, g in programs]
        rows += _labelled(items, limits, jobs, left_out, progress)
    constructs = {c: 0 for c in CONSTRUCTS}
    for row in rows:
        for c in generate(f"{seed}:{row['line']}").constructs:
            constructs[c] += 1
    meta = {
        "generated": n,
        "seed": seed,
        "programs": drawn,
        "left_out": dict(sorted(left_out.items())),
        "constructs": constructs,
        "limits": asdict(limits),
    }
    return _write(Path(out), rows, meta)


__all__ = ["Item", "REASONS", "ROUNDS", "labels", "variation", "build_source", "build_generated"]
