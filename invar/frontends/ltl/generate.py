"""Random LTL formulas with satisfying symbolic traces (the DeepLTL recipe).

Record ``i`` of a dataset depends only on ``(seed, i)``: its size comes from a
seeded permutation of ``min_size..max_size`` for its block of records (so
sizes are spread exactly evenly over every complete block), and attempt ``a``
at it draws from ``Random(f"{seed}:{i}:{a}")``. A formula that is
unsatisfiable, or whose solving exceeds the state or time limit, is dropped
and counted, and the record retries with the next attempt at the same size,
which keeps the size histogram flat. Because records are independent, the
work parallelises over processes, a fixed seed reproduces a file byte for
byte (unless the wall-clock ``timeout`` fires, the one non-deterministic
drop), and an interrupted run resumes at the first missing record.

Every written trace is checked with :func:`~invar.frontends.ltl.check.check`
before it is written.

With ``distinct_aps = k`` every formula holds exactly ``k`` distinct APs: a
formula's shape is drawn so that it has at least ``k`` leaves, ``k`` of the
``aps`` names are drawn without replacement, each is put on a leaf of its
own, and the other leaves draw from those ``k`` (:func:`random_formula`). A
formula of ``n`` nodes has at most ``(n + 1) // 2`` leaves, so sizes start at
``2k - 1`` unless ``min_size`` is given, and a ``min_size`` or ``max_size``
too small to hold ``k`` APs is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: runs there are not locked
    fcntl = None  # type: ignore[assignment]

from ...interrupts import pool as worker_pool
from ...errors import DataError, UsageError
from .check import CheckLimitError, check, satisfying_trace
from .formula import BINARY, UNARY, Formula, ap, to_polish
from .trace import to_trace_text

__all__ = [
    "GeneratorConfig",
    "Stats",
    "random_formula",
    "generate_record",
    "generate_file",
    "ap_names",
    "max_leaves",
    "smallest_size",
]

#: default operators: everything but xor (spot's randltl default set)
DEFAULT_OPS = ("!", "X", "F", "G", "&", "|", "->", "<->", "U", "R", "W", "M")
FORMATS = ("deepltl", "jsonl")


def ap_names(k: int) -> tuple[str, ...]:
    """The first ``k`` single-letter AP names: a, b, c …"""
    if not 1 <= k <= 26:
        raise UsageError(f"--aps must be between 1 and 26 (single-letter APs), not {k}", path="--aps")
    return tuple(chr(ord("a") + j) for j in range(k))


def random_formula(
    rng: random.Random, size: int, aps: Sequence[str], ops: Sequence[str] = DEFAULT_OPS, distinct: int | None = None
) -> Formula:
    """A random formula of exactly ``size`` nodes: an AP at size 1, otherwise an
    operator drawn uniformly from ``ops`` (only unary ones at size 2) with its
    remaining size split uniformly among its operands (into odd parts when
    ``ops`` has no unary operator, which then builds odd sizes only).

    With ``distinct`` = k, the formula holds exactly k distinct APs of
    ``aps`` (see :func:`_random_shape` and :func:`_label_leaves`)."""
    unary = [o for o in ops if o in UNARY]
    binary = [o for o in ops if o in BINARY]
    if size < 1:
        raise ValueError("formula size must be at least 1")
    if size >= 2 and not unary and (size % 2 == 0 or not binary):
        raise UsageError(f"no operator in {list(ops)} builds a formula of size {size}")
    if distinct is not None:
        if not 1 <= distinct <= len(aps) or max_leaves(size, ops) < distinct:
            raise UsageError(f"a formula of size {size} over {len(aps)} APs cannot hold {distinct} distinct APs")
        shape = _random_shape(rng, size, unary, binary, distinct)
        return _from_polish(shape, _label_leaves(rng, shape.count(None), aps, distinct))

    # nodes are drawn in Polish order (an operator, then its operands left to
    # right) from an explicit stack: each entry is an operator with the sizes
    # of its operands and the operands built so far
    stack: list[tuple[str, tuple[int, ...], list[Formula]]] = []
    n = size
    while True:
        if n > 1:
            o = rng.choice(unary if n == 2 or not binary else unary + binary)
            if o in UNARY:
                sizes: tuple[int, ...] = (n - 1,)
            else:
                # without unary operators only odd sizes can be built
                left = rng.randint(1, n - 2) if unary else 2 * rng.randint(0, (n - 3) // 2) + 1
                sizes = (left, n - 1 - left)
            stack.append((o, sizes, []))
            n = sizes[0]
            continue
        node = ap(rng.choice(aps))
        while stack:
            o, sizes, built = stack[-1]
            built.append(node)
            if len(built) < len(sizes):
                n = sizes[len(built)]
                break
            stack.pop()
            node = Formula(o, tuple(built))
        else:
            return node


def max_leaves(size: int, ops: Sequence[str]) -> int:
    """The most leaves (AP occurrences) a formula of ``size`` nodes over
    ``ops`` can have: (size + 1) // 2 with a binary operator, else 1."""
    return (size + 1) // 2 if any(o in BINARY for o in ops) else 1


def smallest_size(k: int, ops: Sequence[str]) -> int | None:
    """The smallest formula over ``ops`` holding ``k`` distinct APs (2k - 1
    nodes: k leaves joined by k - 1 binary operators), or None if none can."""
    if k <= 1:
        return 1
    return 2 * k - 1 if any(o in BINARY for o in ops) else None


def _random_shape(rng: random.Random, size: int, unary: list[str], binary: list[str], need: int) -> list[str | None]:
    """Operators in Polish order with None for each leaf: a formula shape of
    ``size`` nodes with at least ``need`` leaves. As in :func:`random_formula`,
    each node draws its operator uniformly and a binary node its left size
    uniformly, among the choices that can still hold the leaves its subtree
    needs; a binary node then splits that need between its operands."""
    ops = unary + binary
    out: list[str | None] = []
    todo = [(size, need)]  # subtrees still to draw, the next one last
    while todo:
        n, r = todo.pop()
        if n == 1:
            out.append(None)
            continue
        lefts = [
            left
            for left in range(1, n - 1)
            if (unary or left % 2) and max_leaves(left, ops) + max_leaves(n - 1 - left, ops) >= r
        ]
        choices = (unary if max_leaves(n - 1, ops) >= r else []) + (binary if lefts else [])
        o = rng.choice(choices)
        out.append(o)
        if o in UNARY:
            todo.append((n - 1, r))
            continue
        left = rng.choice(lefts)
        right = n - 1 - left
        r_left = 1 if r <= 1 else rng.randint(max(1, r - max_leaves(right, ops)), min(max_leaves(left, ops), r - 1))
        todo.append((right, max(1, r - r_left)))
        todo.append((left, r_left))
    return out


def _label_leaves(rng: random.Random, leaves: int, aps: Sequence[str], k: int) -> list[str]:
    """AP names for ``leaves`` leaves, exactly ``k`` distinct: k names drawn
    without replacement, each on one leaf, the other leaves drawing from
    them uniformly, then all shuffled."""
    chosen = rng.sample(list(aps), k)
    labels = chosen + [rng.choice(chosen) for _ in range(leaves - k)]
    rng.shuffle(labels)
    return labels


def _from_polish(shape: list[str | None], labels: list[str]) -> Formula:
    """The formula of ``shape`` (operators in Polish order, None for leaves)
    with ``labels`` on its leaves left to right (built from the right, no recursion)."""
    stack: list[Formula] = []
    names = iter(reversed(labels))
    for o in reversed(shape):
        if o is None:
            stack.append(ap(next(names)))
        elif o in UNARY:
            stack.append(Formula(o, (stack.pop(),)))
        else:
            left = stack.pop()
            stack.append(Formula(o, (left, stack.pop())))
    return stack.pop()


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything that determines a dataset's content."""

    num: int
    aps: int = 5
    max_size: int = 35
    #: smallest size; None: 1, or 2k - 1 with ``distinct_aps`` = k (the
    #: smallest formula that holds k APs)
    min_size: int | None = None
    seed: int = 0
    ops: tuple[str, ...] = DEFAULT_OPS
    #: product states allowed per formula (deterministic limit; None: unlimited)
    max_states: int | None = 20000
    #: seconds allowed per formula (wall clock; the one non-deterministic
    #: limit; None: unlimited, which makes every run reproducible)
    timeout: float | None = 10.0
    #: attempts per record before it is given up
    max_attempts: int = 1000
    #: every formula holds exactly this many distinct APs of the ``aps``
    #: (None: each leaf draws from all of them)
    distinct_aps: int | None = None

    def __post_init__(self) -> None:
        # settings under which no run could write what was asked are refused
        # here, before any work (a zero timeout would drop every formula)
        if self.min_size is None:
            smallest = smallest_size(self.distinct_aps, self.ops) if self.distinct_aps is not None else 1
            object.__setattr__(self, "min_size", min(smallest or 1, self.max_size))
        if self.num < 0:
            raise UsageError(f"--num must be at least 0, not {self.num}", path="--num")
        if not 1 <= self.min_size <= self.max_size:
            raise UsageError(
                f"sizes must satisfy 1 <= min ({self.min_size}) <= max ({self.max_size})",
                path="--min-size" if self.max_size >= 1 else "--max-size",
            )
        bad = [o for o in self.ops if o not in UNARY + BINARY]
        if bad:
            raise UsageError(f"unknown operator(s) {', '.join(bad)} (choose from {' '.join(UNARY + BINARY)})")
        ap_names(self.aps)
        if self.timeout is not None and not self.timeout > 0:  # NaN too
            raise UsageError(f"--timeout must be more than 0 seconds, not {self.timeout:g}", path="--timeout")
        if self.max_states is not None and self.max_states < 1:
            raise UsageError(f"--max-states must be at least 1, not {self.max_states}", path="--max-states")
        if self.max_attempts < 1:
            raise UsageError(f"max_attempts must be at least 1, not {self.max_attempts}")
        unbuildable = _unbuildable_size(self.ops, self.min_size, self.max_size)
        if unbuildable is not None:
            raise UsageError(unbuildable)
        if self.distinct_aps is not None:
            _check_distinct(self.distinct_aps, self.aps, self.ops, self.min_size, self.max_size)


def _check_distinct(k: int, aps: int, ops: Sequence[str], min_size: int, max_size: int) -> None:
    """Refuse a ``distinct_aps`` that some formula of the sizes cannot hold."""
    if not 1 <= k <= aps:
        raise UsageError(f"--distinct-aps must be between 1 and --aps ({aps}), not {k}", path="--distinct-aps")
    smallest = smallest_size(k, ops)
    if smallest is None:
        raise UsageError(
            f"--distinct-aps {k} needs a binary operator in --ops: unary ones build one-AP formulas",
            path="--distinct-aps",
        )
    if min_size < smallest:
        which = "--max-size" if max_size < smallest else "--min-size (or leave it out)"
        raise UsageError(
            f"{which} must be at least {smallest} for --distinct-aps {k}: a formula of n nodes holds at most "
            "(n + 1) // 2 APs",
            path=which.split()[0],
        )


def _unbuildable_size(ops: Sequence[str], min_size: int, max_size: int) -> str | None:
    """Why some size in ``min_size..max_size`` has no formula over ``ops``, or None.

    Every size is reached with a unary operator; binary operators alone
    build odd sizes only; without operators there is only size 1."""
    if any(o in UNARY for o in ops) or max_size == 1:
        return None
    if not ops:
        return f"no operators (--ops) build a formula larger than one AP, so --max-size must be 1, not {max_size}"
    if min_size == max_size and max_size % 2:
        return None
    even = min_size + min_size % 2
    return (
        f"binary operators alone ({', '.join(ops)}) build only odd sizes, and {min_size}..{max_size} includes "
        f"{even}; add a unary operator to --ops or give one odd size (--min-size = --max-size)"
    )


@dataclass
class Stats:
    """What a run did (cumulative over resumed runs)."""

    written: int = 0
    unsatisfiable: int = 0
    timeouts: int = 0
    #: records given up after ``max_attempts`` (should stay 0)
    abandoned: int = 0
    sizes: dict[int, int] = field(default_factory=dict)

    def add(self, other: "Stats") -> None:
        self.written += other.written
        self.unsatisfiable += other.unsatisfiable
        self.timeouts += other.timeouts
        self.abandoned += other.abandoned
        for k, v in other.sizes.items():
            self.sizes[k] = self.sizes.get(k, 0) + v


def size_of_record(config: GeneratorConfig, i: int) -> int:
    span = config.max_size - config.min_size + 1
    block = list(range(config.min_size, config.max_size + 1))
    random.Random(f"{config.seed}:sizes:{i // span}").shuffle(block)
    return block[i % span]


def generate_record(config: GeneratorConfig, i: int) -> tuple[dict | None, Stats]:
    """Record ``i``: ``{"formula", "trace", "size"}`` (Polish and trace text)."""
    stats = Stats()
    size = size_of_record(config, i)
    names = ap_names(config.aps)
    for attempt in range(config.max_attempts):
        rng = random.Random(f"{config.seed}:{i}:{attempt}")
        formula = random_formula(rng, size, names, config.ops, config.distinct_aps)
        # one time limit per formula, shared by solving and checking
        started = time.monotonic()
        try:
            trace = satisfying_trace(formula, max_states=config.max_states, timeout=config.timeout)
            if trace is None:
                stats.unsatisfiable += 1
                continue
            left = None if config.timeout is None else max(config.timeout - (time.monotonic() - started), 0.0)
            if not check(formula, trace, max_states=config.max_states, timeout=left).holds:
                raise AssertionError(f"generated trace fails its formula: {to_polish(formula)} {to_trace_text(trace)}")
        except CheckLimitError:
            stats.timeouts += 1
            continue
        stats.written = 1
        stats.sizes[size] = 1
        return {"formula": to_polish(formula), "trace": to_trace_text(trace), "size": size}, stats
    stats.abandoned = 1
    return None, stats


def _worker(args: tuple[GeneratorConfig, int]) -> tuple[int, dict | None, Stats]:
    config, i = args
    record, stats = generate_record(config, i)
    return i, record, stats


def _render(record: dict, fmt: str) -> str:
    if fmt == "jsonl":
        return json.dumps(record, separators=(",", ":")) + "\n"
    return f"{record['formula']}\n{record['trace']}\n"


def _meta_path(out: Path) -> Path:
    return out.with_name(out.name + ".meta.json")


def _locked(out: Path):
    """``out`` opened for appending (created when missing, never truncated
    here) and locked for this run; a second run on the same file is refused
    at once instead of interleaving its records with ours. The lock goes with
    the file object (closing it, or the process ending, releases it)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        f = open(out, "a+b")
    except OSError as err:
        raise DataError(f"cannot write: {err.strerror}", path=str(out)) from None
    if fcntl is not None:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise DataError(
                "is being written by another run (it holds the file's lock); wait for it to finish "
                "or choose another --out",
                path=str(out),
            ) from None
    return f


def generate_file(
    config: GeneratorConfig,
    out: str | os.PathLike,
    *,
    fmt: str = "deepltl",
    jobs: int | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Stats:
    """Write ``config.num`` records to ``out`` in parallel over ``jobs``
    processes (default: every core).

    Progress is checkpointed in ``OUT.meta.json`` (settings, next record,
    bytes written, counts); a run with the same settings resumes from the last
    checkpoint, cutting off anything written after it (a ``num`` below the
    records it holds is refused: it would keep them). ``out`` is locked
    (``flock``) for the whole run: a concurrent run on it raises DataError."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    out = Path(out)
    meta_path = _meta_path(out)
    params = {**asdict(config), "ops": list(config.ops), "format": fmt}
    params.pop("num")
    if config.distinct_aps is None:  # files written before the option resume
        params.pop("distinct_aps")
    existed = out.exists()
    with _locked(out) as f:
        start, size, stats = _checkpoint(out, params, config.num, f) if existed and not overwrite else (0, 0, Stats())
        f.truncate(size)
        f.seek(0, os.SEEK_END)

        def save_meta(next_index: int, nbytes: int) -> None:
            record = {"params": params, "num": config.num, "next": next_index, "bytes": nbytes, "stats": asdict(stats)}
            tmp = meta_path.with_name(meta_path.name + ".tmp")
            try:
                tmp.write_text(json.dumps(record, indent=1, sort_keys=True))
                os.replace(tmp, meta_path)
            except BaseException:  # an interrupt included: the last checkpoint stands
                tmp.unlink(missing_ok=True)
                raise

        save_meta(start, size)
        if progress:
            progress(start, config.num)
        todo = range(start, config.num)
        # closed here, not when collected: an interrupt stops the workers
        # before the lock is released
        with contextlib.closing(_results(config, todo, jobs, f.fileno())) as results:
            for done, (i, record, s) in enumerate(results, start=start + 1):
                if _tally(stats, record, s):
                    f.write(_render(record, fmt).encode())
                if done % 64 == 0 or done == config.num:
                    f.flush()
                    save_meta(done, f.tell())
                if progress:
                    progress(done, config.num)
    return stats


def _checkpoint(out: Path, params: dict, num: int, f) -> tuple[int, int, Stats]:
    """(next record, bytes, counts) of the checkpoint of ``out`` (open as
    ``f``) to resume from; DataError when it cannot or should not resume:
    not this generator's file, other settings, shorter than its checkpoint,
    or holding more records than ``num``."""
    try:
        meta = json.loads(_meta_path(out).read_text())
        start, size = int(meta["next"]), int(meta["bytes"])
        old = meta["stats"]
        stats = Stats(
            written=old["written"],
            unsatisfiable=old["unsatisfiable"],
            timeouts=old["timeouts"],
            abandoned=old["abandoned"],
            sizes={int(k): v for k, v in old["sizes"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise DataError("exists and was not written by this generator; pass --overwrite", path=str(out)) from None
    if meta.get("params") != params:
        raise DataError("was generated with other settings; pass --overwrite to start again", path=str(out))
    if os.fstat(f.fileno()).st_size < size:
        raise DataError("is shorter than its checkpoint; pass --overwrite", path=str(out))
    if start > num:  # resuming would keep them all: more than asked for
        raise DataError(
            f"holds {start:,} records, more than --num {num:,}; pass --overwrite to start again "
            "(or a --num of at least that to add to it)",
            path=str(out),
        )
    return start, size, stats


def generate_stream(
    config: GeneratorConfig,
    write: Callable[[str], object],
    *,
    fmt: str = "deepltl",
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Stats:
    """Like :func:`generate_file`, but hand each record's text to ``write``
    (standard output, say); nothing is checkpointed, so nothing resumes."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    stats = Stats()
    with contextlib.closing(_results(config, range(config.num), jobs)) as results:
        for done, (_i, record, s) in enumerate(results, start=1):
            if _tally(stats, record, s):
                write(_render(record, fmt))
            if progress:
                progress(done, config.num)
    return stats


def _tally(stats: Stats, record: dict | None, s: Stats) -> bool:
    """Add one result to ``stats``; True when it is a record to write."""
    stats.unsatisfiable += s.unsatisfiable
    stats.timeouts += s.timeouts
    stats.abandoned += s.abandoned
    if record is None:
        return False
    stats.written += 1
    stats.sizes[record["size"]] = stats.sizes.get(record["size"], 0) + 1
    return True


def _close(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:  # not inherited (spawned workers)
            pass


def _results(
    config: GeneratorConfig, todo: range, jobs: int | None, locked: int | None = None
) -> Iterator[tuple[int, dict | None, Stats]]:
    """Records in index order, computed in ``jobs`` processes (which close
    their copy of the ``locked`` file descriptor, so that the lock lives and
    dies with this process alone). Closing the generator, or an interrupt,
    stops and reaps the workers (:func:`invar.interrupts.pool`)."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(todo) < 2:
        for i in todo:
            yield _worker((config, i))
        return
    method = "spawn" if os.name == "nt" else "fork"
    with worker_pool(jobs, method=method, initializer=_close, initargs=(locked,)) as pool:
        yield from pool.imap(_worker, ((config, i) for i in todo), chunksize=4)


def read_dataset(text: str) -> Iterator[tuple[str, str]]:
    """(formula, trace) pairs of a generated file in either format."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith("{"):
        for line in lines:
            record = json.loads(line)
            yield record["formula"], record["trace"]
        return
    for k in range(0, len(lines) - 1, 2):
        yield lines[k], lines[k + 1]
