"""BHive blocks labelled with ``llvm-mca``: sources, labelling, splits.

Pipeline (:func:`build`):

1. **sources**: directories (every ``*.csv``, sorted), files, or URLs,
   downloaded once into a cache directory. By default BHive's public
   repository (its per-application CSVs), or the mirror ``INVAR_BHIVE_URL``
   names; ``invar audit --dataset bhive`` without a directory reads the same
   cache. Each line is ``hex[,anything]``.
2. **dedup**: every distinct block (lower-case hex) once, located at its
   first occurrence; ``--limit N`` keeps the N blocks with the smallest hash.
3. **labels**: invar parses each block (hex -> IR; what it cannot read is
   rejected with the reason) and ``llvm-mca -mcpu=CPU -iterations=100``
   times the IR's text. Many blocks go through one ``llvm-mca`` process as
   code regions (``# LLVM-MCA-BEGIN bN`` … ``# LLVM-MCA-END bN``), chunks run
   in parallel, and a block ``llvm-mca`` refuses is listed with llvm-mca's
   message while its chunk is rerun without it. The label is Total Cycles /
   iterations. Every result is appended to ``labels.jsonl`` as it arrives, so
   an interrupted run resumes where it stopped.
4. **split**: by a hash of the block (sha256 of its hex): 80 % train, 10 %
   valid, 10 % test, the same on every machine and for every subset.

Output directory: ``train.csv``, ``valid.csv``, ``test.csv`` (``hex,throughput``,
rows in hash order), ``rejected.csv`` (``hex,stage,reason,source``),
``meta.json`` and the resumable ``labels.jsonl``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..errors import DataError, InvarError, UsageError
from . import manifest
from ..files import read_text, undecodable, write_atomic
from .examples import Example, checked

#: BHive's public repository: one CSV of basic blocks per source application
BHIVE_URL = "https://raw.githubusercontent.com/ithemal/bhive/master/benchmark/sources/"
BHIVE_FILES = (
    "eigen-matmat.csv eigen-vecmat.csv embree.csv ffmpeg.csv gzip-compress.csv gzip-decompress.csv "
    + " ".join(
        f"openblas-{k}.goto.csv"
        for k in (
            "casum caxpy ccholesky ccopy cdot cgeev cgemm cgemv cger cgesv cgetri chemm chemv cher2k cherk "
            "clinpack cpotrf cscal cswap csymm csymv csyr2k csyrk ctrmm ctrsm dasum daxpy dcholesky dcopy ddot "
            "dgeev dgemm dgemv dger dgesv dgetri dlinpack dnrm2 dpotrf drot dscal dswap dsymm dsymv dsyr2k dsyrk "
            "dtrmm dtrsm dznrm2 icamax idamax isamax izamax sasum saxpy scholesky scnrm2 scopy sdot sgeev sgemm "
            "sgemv sger sgesv sgetri slinpack snrm2 spotrf srot sscal sswap ssymm ssymv ssyr2k ssyrk strmm strsm "
            "zasum zaxpy zcholesky zcopy zdot zgeev zgemm zgemv zger zgesv zgetri zhemm zhemv zher2k zherk "
            "zlinpack zpotrf zscal zswap zsymm zsymv zsyr2k zsyrk ztrmm ztrsm"
        ).split()
    )
    + " sqlite.csv tensorflow.csv"
).split()

SPLITS = ("train", "valid", "test")
ITERATIONS = 100
#: blocks per llvm-mca process
CHUNK = 1000
_HEX = re.compile(r"^[0-9a-f]+$")
_LABELS = "labels.jsonl"


# ------------------------------------------------------------------- sources
def bhive_url() -> str:
    """Where BHive's CSVs are downloaded from: ``INVAR_BHIVE_URL`` (a mirror
    laid out as BHive's ``benchmark/sources/``), else BHive's repository."""
    return os.environ.get("INVAR_BHIVE_URL") or BHIVE_URL


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "invar" / "bhive"


def _is_url(source: str) -> bool:
    return urllib.parse.urlparse(source).scheme in ("http", "https", "file")


def cached(url: str, cache_dir: str | os.PathLike) -> Path:
    """Where :func:`download` keeps ``url`` in ``cache_dir``."""
    name = os.path.basename(urllib.parse.urlparse(url).path) or "index.csv"
    return Path(cache_dir) / f"{hashlib.sha256(url.encode()).hexdigest()[:12]}-{name}"


def pending(cache_dir: str | os.PathLike | None = None) -> list[str]:
    """The URLs of BHive's CSVs (:func:`bhive_url`) not yet in the cache."""
    base, cache = bhive_url(), cache_dir or default_cache_dir()
    return [base + name for name in BHIVE_FILES if not cached(base + name, cache).exists()]


def download(url: str, cache_dir: str | os.PathLike) -> Path:
    """Fetch ``url`` into ``cache_dir`` once (atomically); the cached copy
    is reused afterwards."""
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    target = cached(url, cache)
    if target.exists():
        return target
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        raise DataError(
            f"cannot download {url}: {reason}; without network, label local copies with --source DIR "
            "(for example ../shared/data/bhive)",
            path="--source",
        )
    _write_atomic(target, data)
    return target


def source_files(sources: Sequence[str] | None, cache_dir: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """(shown name, local path) of every CSV the sources name. A URL ending
    in ``/`` is a directory laid out as BHive's (its per-application CSVs)."""
    cache_dir = cache_dir or default_cache_dir()
    out: list[tuple[str, Path]] = []
    for source in sources or [bhive_url()]:
        if _is_url(source):
            urls = [source + name for name in BHIVE_FILES] if source.endswith("/") else [source]
            out += [(url, download(url, cache_dir)) for url in urls]
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(path.glob("*.csv"))
            if not files:
                raise DataError("no *.csv files in this directory", path=source)
            out += [(str(f), f) for f in files]
        elif path.is_file():
            out.append((source, path))
        else:
            raise DataError("no such file or directory", path=source)
    return out


# ---------------------------------------------------------- reading and dedup
@dataclass(frozen=True)
class Rejected:
    hex: str
    #: ``invar`` (the block is not a block invar reads) or ``llvm-mca``
    stage: str
    reason: str
    #: ``path:line`` of the block's first occurrence
    source: str = ""


def read_blocks(files: Sequence[tuple[str, Path]]) -> tuple[dict[str, str], list[Rejected]]:
    """Distinct blocks (hex -> ``path:line`` of the first occurrence) and the
    rows that are not hex at all."""
    blocks: dict[str, str] = {}
    rejected: list[Rejected] = []
    seen_bad: set[str] = set()
    for shown, path in files:
        try:
            text = read_text(path)
        except OSError as err:
            raise DataError(f"cannot read: {err.strerror}", path=shown)
        for lineno, raw in enumerate(text.splitlines(), start=1):
            row = raw.strip()
            if not row or row.startswith("#"):
                continue
            bad = undecodable(raw)
            if bad is not None:  # kept in rejected.csv as text, each bad byte a replacement character
                byte = ord(raw[bad]) - 0xDC00
                shown_row = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")[:80]
                reason = f"not UTF-8 (byte 0x{byte:02x} at column {bad + 1})"
                rejected.append(Rejected(shown_row, "invar", reason, f"{shown}:{lineno}"))
                continue
            hexcode, reason = _first_field(row)
            if hexcode in ("hex", "code"):  # a header row
                continue
            where = f"{shown}:{lineno}"
            if reason is not None:
                if hexcode not in seen_bad:
                    seen_bad.add(hexcode)
                    rejected.append(Rejected(hexcode, "invar", reason, where))
                continue
            blocks.setdefault(hexcode, where)
    return blocks, rejected


def _first_field(row: str) -> tuple[str, str | None]:
    """The block of a source row, lower-cased, and why it is not a block
    (None when it is): its first field as every command reads a hex file's
    (:func:`invar.frontends.x86.hexblock.hex_field`: ``"4801ca",2.5`` is
    ``4801ca``; what follows the first comma is not read). A quote left
    open, or text after the closing quote, is malformed quoting."""
    from ..frontends.x86.hexblock import hex_field

    hexcode = hex_field(row)[0].lower()
    if hexcode.startswith('"'):
        return hexcode, "malformed CSV quoting"
    if not hexcode:
        return hexcode, "no hex before the first comma"
    if not _HEX.match(hexcode):
        return hexcode, "not a hex string"
    if len(hexcode) % 2:
        return hexcode, "odd number of hex digits"
    return hexcode, None


def block_hash(hexcode: str) -> str:
    return hashlib.sha256(hexcode.encode()).hexdigest()


def split_of(hexcode: str) -> str:
    """``train`` (80 %), ``valid`` or ``test`` (10 % each), by the block's hash."""
    bucket = int(block_hash(hexcode)[:8], 16) % 100
    return "train" if bucket < 80 else "valid" if bucket < 90 else "test"


# ------------------------------------------------------------------ labelling
def llvm_mca_version() -> str:
    exe = shutil.which("llvm-mca")
    if exe is None:
        raise DataError("llvm-mca not found on PATH: install LLVM (Debian: apt-get install llvm)", path="llvm-mca")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version (\S+)", out)
    return m.group(1) if m else out.strip().splitlines()[0] if out.strip() else "unknown"


_REGION = re.compile(
    r"Code Region - (\S+)\s*\n\s*\nIterations:\s+(\d+)\s*\nInstructions:\s+\d+\s*\nTotal Cycles:\s+(\d+)"
)


def check_mcpu(mcpu: str) -> None:
    """A CPU model llvm-mca knows (it times every block for another CPU, or
    none, where it does not), else a usage error at ``--mcpu``."""
    run = _mca("nop\n", mcpu, 1)
    if "is not a recognized processor" in run.stderr:
        raise UsageError(f"{mcpu!r}: llvm-mca knows no such CPU (llvm-mca -mcpu=help lists them)", path="--mcpu")


def _mca(text: str, mcpu: str, iterations: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "llvm-mca",
            f"-mcpu={mcpu}",
            f"-iterations={iterations}",
            "--instruction-info=false",
            "--resource-pressure=false",
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        timeout=3600,
    )


def label_texts(
    texts: Sequence[str], mcpu: str = "haswell", iterations: int = ITERATIONS
) -> list[tuple[int | None, str]]:
    """Run every block text through one ``llvm-mca`` process as code regions.

    Returns, per text, ``(total cycles, "")`` or ``(None, llvm-mca's reason)``.
    When llvm-mca refuses a region the whole run stops, so the culprit is
    found (by the line llvm-mca names, else the first region without a
    result), recorded, and the rest rerun without it."""
    results: list[tuple[int | None, str] | None] = [None] * len(texts)
    pending = list(range(len(texts)))
    while pending:
        lines, region_of_line = [], {}
        for i in pending:
            lines.append(f"# LLVM-MCA-BEGIN b{i}")
            for _ in texts[i].splitlines():
                region_of_line[len(lines) + 1] = i
            lines += texts[i].splitlines()
            lines.append(f"# LLVM-MCA-END b{i}")
        run = _mca("\n".join(lines) + "\n", mcpu, iterations)
        if run.returncode < 0:
            # killed, not refusing a block: nothing is learnt about the blocks
            if -run.returncode == signal.SIGINT:
                raise KeyboardInterrupt
            raise DataError(f"llvm-mca was killed by signal {-run.returncode}", path="llvm-mca")
        done = {}
        for m in _REGION.finditer(run.stdout):
            done[int(m.group(1)[1:])] = int(m.group(3))
        if run.returncode == 0:
            for i in pending:
                results[i] = (done[i], "") if i in done else (None, "llvm-mca printed no timing for this block")
            break
        for i, cycles in done.items():
            results[i] = (cycles, "")
        culprit = _culprit(run.stderr, region_of_line, [i for i in pending if i not in done], texts)
        results[culprit] = (None, _reason(run.stderr))
        pending = [i for i in pending if results[i] is None]
    return results  # type: ignore[return-value]


def _culprit(stderr: str, region_of_line: dict[int, int], undone: list[int], texts: Sequence[str]) -> int:
    m = re.search(r"<stdin>:(\d+):\d+: error", stderr)
    if m and int(m.group(1)) in region_of_line:
        return region_of_line[int(m.group(1))]
    m = re.search(r"note: instruction:\s*(.+)", stderr)
    if m:  # "found an unsupported instruction": llvm-mca names it, not its line
        wanted = " ".join(m.group(1).split())
        for i in undone:
            if any(
                " ".join(line.replace(",", ", ").split()) == " ".join(wanted.replace(",", ", ").split())
                for line in texts[i].splitlines()
            ):
                return i
    return undone[0]


def _reason(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if "error" in line), lines[0] if lines else "llvm-mca failed")
    first = re.sub(r"^<stdin>:\d+:\d+:\s*", "", first)
    note = next((line for line in lines if line.startswith("note:")), "")
    return f"{first} ({' '.join(note.split())})" if note else first


def label_chunk(args: tuple[Sequence[str], str, int]) -> list[dict]:
    """Label a chunk of blocks (hex): invar parses each, llvm-mca times the
    parsed blocks together. One record per block."""
    from ..frontends.x86.hexblock import decode

    hexes, mcpu, iterations = args
    records, texts, owners = [], [], []
    for h in hexes:
        try:
            texts.append(decode(h).render())
            owners.append(h)
        except InvarError as err:
            records.append({"hex": h, "stage": "invar", "reason": err.message})
    for h, (cycles, reason) in zip(owners, label_texts(texts, mcpu, iterations) if texts else []):
        if cycles is None:
            records.append({"hex": h, "stage": "llvm-mca", "reason": reason})
        else:
            records.append({"hex": h, "cycles": cycles, "iterations": iterations})
    return records


# -------------------------------------------------------------- whole dataset
@dataclass
class Summary:
    out: str
    blocks: int = 0
    labelled: int = 0
    splits: dict = field(default_factory=dict)
    rejected: dict = field(default_factory=dict)
    #: blocks labelled by this run, and those read back from labels.jsonl
    new: int = 0
    cached: int = 0

    def to_dict(self) -> dict:
        return {
            "out": self.out,
            "blocks": self.blocks,
            "labelled": self.labelled,
            "splits": self.splits,
            "rejected": self.rejected,
        }


def build(
    sources: Sequence[str] | None,
    out: str | os.PathLike,
    *,
    mcpu: str = "haswell",
    iterations: int = ITERATIONS,
    jobs: int | None = None,
    chunk: int = CHUNK,
    limit: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Summary:
    """Read, dedup, label and split BHive blocks into ``out`` (see the module
    docstring). Resumes from ``out/labels.jsonl`` when its settings match."""
    version = llvm_mca_version()
    check_mcpu(mcpu)
    files = source_files(sources, cache_dir)
    blocks, rejected = read_blocks(files)
    if not blocks and not rejected:
        raise DataError("no blocks in the sources", path=files[0][0] if files else "--source")
    wanted = sorted(blocks, key=block_hash)
    if limit is not None:
        wanted = wanted[:limit]
        rejected = [] if limit == 0 else rejected
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    header = {"invar": "bhive-labels", "mcpu": mcpu, "iterations": iterations, "llvm_mca": version}
    done = _read_labels(outdir / _LABELS, header, overwrite)
    todo = [h for h in wanted if h not in done]
    summary = Summary(out=str(outdir), new=len(todo), cached=len(wanted) - len(todo))
    if todo:
        _label_all(
            todo,
            outdir / _LABELS,
            header,
            done,
            mcpu,
            iterations,
            jobs,
            chunk,
            lambda n: progress(len(wanted) - len(todo) + n, len(wanted)) if progress else None,
        )
    elif progress:
        progress(len(wanted), len(wanted))
    rows: dict[str, list] = {s: [] for s in SPLITS}
    for h in wanted:
        rec = done[h]
        if "cycles" in rec:
            rows[split_of(h)].append((h, _throughput(rec["cycles"], rec["iterations"])))
        else:
            rejected.append(Rejected(h, rec["stage"], rec["reason"], blocks[h]))
    for split in SPLITS:
        _write_csv(outdir / f"{split}.csv", ["hex", "throughput"], rows[split])
    _write_csv(
        outdir / "rejected.csv",
        ["hex", "stage", "reason", "source"],
        [(r.hex, r.stage, r.reason, r.source) for r in rejected],
    )
    summary.blocks = len(wanted) + sum(1 for r in rejected if r.hex not in blocks)
    summary.labelled = sum(len(v) for v in rows.values())
    summary.splits = {s: len(rows[s]) for s in SPLITS}
    summary.rejected = {stage: sum(1 for r in rejected if r.stage == stage) for stage in ("invar", "llvm-mca")}
    meta = {
        "schema": 1,
        **header,
        **manifest.fields("bhive", ["x86"]),
        "sources": [shown for shown, _ in files],
        "limit": limit,
        **summary.to_dict(),
    }
    meta.pop("out")
    _write_atomic(outdir / "meta.json", (json.dumps(meta, indent=2) + "\n").encode())
    return summary


def _throughput(cycles: int, iterations: int) -> float:
    return round(cycles / iterations, 6)


def _read_labels(path: Path, header: dict, overwrite: bool) -> dict[str, dict]:
    if overwrite and path.exists():
        path.unlink()
    if not path.exists():
        return {}
    done: dict[str, dict] = {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    if not text.endswith("\n") and len(lines) <= 1:  # interrupted before its header was whole: nothing labelled
        path.unlink()
        return {}
    try:
        found = json.loads(lines[0]) if lines else {}
    except json.JSONDecodeError:
        found = {}
    if found != header:
        raise DataError(
            f"labelled with other settings ({', '.join(f'{k}={v}' for k, v in found.items() if k != 'invar')}); "
            "choose another --out or pass --overwrite",
            path=str(path),
            line=1,
        )
    for line in lines[1:]:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by an interrupted run
            continue
        done[rec["hex"]] = rec
    return done


def _label_all(
    todo: list[str],
    path: Path,
    header: dict,
    done: dict,
    mcpu: str,
    iterations: int,
    jobs: int | None,
    chunk: int,
    progress: Callable[[int], None],
) -> None:
    from ..interrupts import pool as worker_pool

    chunks = [(todo[i : i + chunk], mcpu, iterations) for i in range(0, len(todo), chunk)]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chunks)))
    new_file = not path.exists()
    with open(path, "a", encoding="utf-8") as f:
        if new_file:
            f.write(json.dumps(header) + "\n")
            f.flush()  # the header on disk before any work that an interrupt may cut
        elif f.tell() and not path.read_bytes().endswith(b"\n"):
            f.write("\n")  # finish a line cut short by an interrupted run
        count = 0

        def take(records: list[dict]) -> None:
            nonlocal count
            for rec in records:
                done[rec["hex"]] = rec
                f.write(json.dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())
            count += len(records)
            if progress:
                progress(count)

        if jobs == 1:
            for c in chunks:
                take(label_chunk(c))
        else:
            with worker_pool(jobs, method="spawn") as pool:
                for records in pool.imap_unordered(label_chunk, chunks):
                    take(records)


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    _write_atomic(path, buf.getvalue().encode())


def _write_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, lambda f: f.write(data))


# ------------------------------------------------------------ reading a split
def read_split(data_dir: str | os.PathLike, split: str) -> list[Example]:
    """The labelled examples of one split of a directory :func:`build` wrote;
    a malformed row is a located DataError."""
    return checked(split_examples(data_dir, split))


def split_examples(data_dir: str | os.PathLike, split: str) -> list[Example]:
    """Every row of one split, a malformed one as an example whose ``error``
    says why (what an audit reads: it reports the row and goes on). A missing
    directory or split is a DataError."""
    path = Path(data_dir) / f"{split}.csv"
    shown = str(path)
    if not Path(data_dir).is_dir():
        raise DataError("no such dataset directory (label blocks with: invar data bhive --out DIR)", path=str(data_dir))
    if not path.exists():
        raise DataError(f"no {split} split here (label blocks with: invar data bhive --out DIR)", path=shown)
    examples = []
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        for lineno, row in enumerate(csv.reader(f), start=1):
            if not row or (lineno == 1 and row[0] == "hex"):
                continue
            hexcode = row[0].strip().lower()
            error = _row_error(row, shown, lineno)
            label = None
            if error is None:
                label = float(row[1])
            examples.append(Example(hexcode, label, shown, lineno, error=error))
    return examples


def _row_error(row: list[str], shown: str, lineno: int) -> DataError | None:
    """Why a ``hex,throughput`` row is malformed, located; None when it is not."""
    bad = undecodable(",".join(row))
    if bad is not None:
        return DataError("not UTF-8 text", path=shown, line=lineno, col=bad + 1)
    if len(row) < 2 or not row[1].strip():
        return DataError("unlabelled block (expected hex,throughput)", path=shown, line=lineno, col=1)
    if len(row) > 2:
        return DataError(f"{len(row)} fields (expected hex,throughput)", path=shown, line=lineno, col=1)
    col = len(row[0]) + 2
    try:
        label = float(row[1])
    except ValueError:
        return DataError(f"throughput {row[1]!r} is not a number", path=shown, line=lineno, col=col)
    if not label > 0 or label == float("inf"):
        return DataError(f"throughput {row[1]} must be positive and finite", path=shown, line=lineno, col=col)
    return None


__all__ = [
    "BHIVE_URL",
    "BHIVE_FILES",
    "SPLITS",
    "ITERATIONS",
    "Rejected",
    "Summary",
    "build",
    "download",
    "source_files",
    "read_blocks",
    "split_of",
    "block_hash",
    "label_texts",
    "label_chunk",
    "read_split",
    "split_examples",
    "default_cache_dir",
    "bhive_url",
    "cached",
    "pending",
    "llvm_mca_version",
]
