"""The audit from start to end: settings checked, the model opened, the
dataset read, its chunks shared among shards and torchrun's processes,
variants run in batches (:mod:`.run`), records gathered and summarised
(:mod:`.report`).

Layer train/audit/alta: imports errors, tasks, data and the audit's own
modules (models, which loads checkpoints, lazily); never train, alta or cli.
"""

from __future__ import annotations

import json
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..errors import UsageError
from ..processes import torchrun_place
from ..tasks import Task, get_task, task_names
from ..version import __version__
from .config import AuditConfig
from .report import jsonl_lines, merged_fallbacks, summarize
from .run import CHUNK, Settings, run_chunk
from .sections import decide


@dataclass
class Audit:
    """An audit's settings (``header``), its example records and its report
    (a dict: ``audit["violation_rate"]`` or ``audit.violation_rate``)."""

    header: dict
    records: list[dict]
    report: dict
    #: this process's rank under torchrun (only rank 0 writes)
    rank: int = 0

    def __getitem__(self, key: str):
        return self.report[key]

    def __getattr__(self, key: str):
        report = self.__dict__.get("report", {})
        if key in report:
            return report[key]
        raise AttributeError(key)

    def jsonl(self):
        """The JSONL lines: header, one record per example, summary."""
        return jsonl_lines(self.header, self.records, self.report)


def _default_task(dataset: Any, data_dir: str | None) -> str | None:
    """The task of the dataset when it says (``bhive``; a directory ``invar
    data`` wrote, by its manifest), else None (the user names the task)."""
    from ..data import manifest
    from .datasets import _is_prepared

    if isinstance(dataset, str):
        if dataset == "bhive":
            return "bhive"
        found = manifest.of(dataset)
        if found is not None:
            return found.task
        path = Path(dataset)
        if path.is_dir() and _is_prepared(path):
            return "bhive"
    return None


def parse_shard(text: str | Sequence[int] | None) -> tuple[int, int] | None:
    """``"I/N"`` (1-based) -> (I, N)."""
    if text is None:
        return None
    if isinstance(text, str):
        a, slash, b = text.partition("/")
        try:
            i, n = int(a), int(b)
        except ValueError:
            i = n = 0
        if not slash:
            i = n = 0
    else:
        i, n = text
    if not (n >= 1 and 1 <= i <= n):
        raise UsageError(f"{text!r}: write I/N with 1 <= I <= N, e.g. 1/4", path="--shard")
    return i, n


def audit(
    model: Any,
    dataset: Any,
    config: AuditConfig | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    warn: Callable[[str], None] | None = None,
    **options: Any,
) -> Audit:
    """Audit ``model`` on ``dataset``, as ``invar audit`` does. ``config``:
    the settings (:class:`~invar.audit.config.AuditConfig`; docs/audit.md
    explains each), changed by any ``options`` given by name
    (``invar.audit(m, d, variants=4)``). ``model``: a checkpoint or
    TorchScript path, ``package.module:function``, an ``http://HOST:PORT/v1``
    endpoint, a loaded model or any callable taking a list of program texts.
    ``dataset``: ``"bhive"`` (with ``data_dir`` or ``INVAR_DATA``), a path, or
    a list of programs. ``progress(done, total)`` is called as examples are
    audited; ``warn(message)`` with each warning on the settings, before the
    model is asked anything (offered labels no reply can give, or very many:
    :func:`_label_warnings`), in the first process only; None: a
    :class:`UserWarning` (:func:`warnings.warn`)."""
    config = AuditConfig.of(config, **options)
    shard_in = parse_shard(config.shard)
    rank, world, local_rank = torchrun_place()
    device = _device(config.device, world, local_rank)
    guess = config.task or _default_task(dataset, config.data_dir)
    offered = _Offered()
    adapter = _open(model, guess, device, config, offered)
    the_task = _task_of(adapter, config.task or guess)
    table = _table(adapter, the_task, config.lexinvariant_table)
    own_oracle = getattr(getattr(adapter, "model", None), "oracle", None)
    if own_oracle is not None:  # a compiled program's interpreter: the truth for its own labels
        the_task = replace(the_task, oracle=own_oracle)
    transform = config.transform or _default_transform(the_task)
    if config.oracle and the_task.oracle is None:
        raise UsageError(f"the {the_task.name} task has no oracle", path="--oracle")
    data = _load_dataset(dataset, the_task, adapter, config)
    _offer_labels(adapter, offered, the_task, data, shipped=config.prompt is None)
    for message in _label_warnings(offered.labels, offered.unanswerable) if rank == 0 else ():
        (warn or _warned)(message)
    examples = [_pick(data.examples, config.example)] if config.example is not None else data.examples
    controls = default_controls(the_task, config, labelled=data.info().get("labelled", 0) > 0, own_oracle=own_oracle)
    settings = _settings(config, adapter, transform, controls, own_oracle)
    header = {
        "invar": __version__,
        "model": adapter.info(),
        "task": the_task.name,
        "dataset": data.info(),
        "transform": transform,
        "task_symmetry": _symmetric(the_task, transform),
        "variants": config.variants,
        "seed": config.seed,
        "limit": config.limit,
        "tolerance": config.tolerance,
        "oracle": config.oracle,
        "example": examples[0].id if config.example is not None else None,
        "shard": list(shard_in) if shard_in and shard_in[1] > 1 else None,
        "table": table,
        "labels_offered": list(offered.labels) if offered.labels else None,
        "labels_unanswerable": list(offered.unanswerable) if offered.labels else None,
        "config": config.replace(controls=controls).as_dict(),
    }
    mine = _my_chunks(examples, shard_in, rank, world)
    with _threads(world, adapter, config):
        records, run = _run(mine, adapter, the_task, settings, progress)
    run.update(
        batch_size=config.batch_size, device=device or "cpu", processes=world, shards=shard_in[1] if shard_in else 1
    )
    if world > 1:
        records, run = _gather(records, run, device)
    run["predictions_per_second"] = run["predictions"] / run["seconds"] if run["seconds"] else None
    records = decide(records, config.level)  # with repeats: which examples violate, decided over the audit
    return Audit(header, records, summarize(header, records, run), rank)


def _settings(config: AuditConfig, adapter, transform: str, controls: int, own_oracle) -> Settings:
    """What every chunk of the audit runs with (:func:`~.run.run_chunk`)."""
    return Settings(
        transform=transform,
        variants=config.variants,
        seed=config.seed,
        tolerance=config.tolerance,
        batch_size=config.batch_size,
        oracle=config.oracle,
        keep_predictions=config.example is not None,
        pool=getattr(getattr(adapter, "model", None), "pool", None),
        repeats=config.repeats,
        controls=controls,
        level=config.level,
        own_oracle=own_oracle,
    )


@contextmanager
def _threads(world: int, adapter, config: AuditConfig) -> Iterator[None]:
    """Torch's threads for a model that runs here, while the audit runs: one
    by default (a small model on batches of a few dozen runs fastest on one,
    and many times slower when threads outnumber free cores); the caller's
    count after."""
    if not (world > 1 or adapter.kind in ("checkpoint", "torchscript")):
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(config.threads or 1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class _Offered:
    """The labels a prompt offered (:data:`invar.tasks.answers.LABELS`), known
    once the dataset is loaded: the reader then reads only one of them."""

    labels: tuple | None = None
    #: those of ``labels`` that no reply can be read as (:func:`~invar.tasks.answers.unanswerable`)
    unanswerable: tuple = ()


def _open(model: Any, task: str | None, device: str | None, config: AuditConfig, offered: _Offered):
    """The model's adapter. A model that answers in text (served over HTTP,
    or a local transformers language model, ``hf:DIR``) is asked with the
    task's shipped prompt unless ``--prompt`` names another, and its replies
    are read by the task's answer reader (:func:`invar.tasks.answers.read`),
    as one of ``offered``'s labels when the prompt offered them; an
    endpoint's are kept in the reply cache unless ``--no-cache``."""
    from .models import HF_PREFIX, open_model

    http = isinstance(model, str) and model.startswith(("http://", "https://"))
    text = http or isinstance(model, str) and model.startswith(HF_PREFIX)
    if isinstance(model, str):  # named, as --model names it (from Python, an object: as --prompt, left to it)
        from .hf import is_classifier

        # a sequence classifier answers with its label: it writes no text to cut short or match
        _refuse_unused(config, http=http, text=http or text and not is_classifier(model))
    prompt, read, cache = config.prompt, None, None
    if text and task is not None:
        from ..tasks import answers

        # hf:DIR: open_hf gives a language model the shipped prompt, and refuses --prompt for a classifier
        if http and prompt is None and task in answers.PROMPTED:
            prompt = answers.prompt(task)

        def read(text: str, truncated: bool = False):
            return answers.read(task, text, pattern=config.answer_regex, truncated=truncated, labels=offered.labels)

    if http and config.cache:
        from .replies import ReplyCache

        cache = ReplyCache()
    return open_model(
        model,
        task=task if text and not http else config.task,
        device=device,
        prompt=prompt,
        read=read,
        concurrency=config.concurrency,
        timeout=config.timeout,
        retries=config.retries,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        budget=config.budget,
        cache=cache,
        seed=config.seed,
        table=config.lexinvariant_table,
    )


def _offer_labels(adapter, offered: _Offered, task, data, *, shipped: bool) -> None:
    """Write the dataset's labels where a text model's prompt template holds
    :data:`~invar.tasks.answers.LABELS`, and have its reader read only one of
    them. The labels are those of every example of the dataset, ``--limit``
    aside (the same for each shard and process). A dataset without labels
    leaves the lines of the shipped prompt that hold the placeholder out; the
    user's prompt that holds it is a usage error then, and for any task but
    classify. Those of the labels no reply can be read as are noted in
    ``offered`` (:func:`~invar.tasks.answers.unanswerable`)."""
    from ..tasks import answers

    template = getattr(adapter, "template", None)
    if template is None or answers.LABELS not in template:
        return
    if task.name != "classify":
        raise UsageError(
            f"{answers.LABELS} stands for a classify dataset's labels; this audit is of the {task.name} task",
            path="--prompt",
        )
    labels = data.labels
    if not labels and not shipped:
        raise UsageError(
            f"the prompt offers the dataset's {answers.LABELS}, and the dataset has none: "
            "give its programs labels, or leave the placeholder out",
            path="--prompt",
        )
    adapter.template = answers.with_labels(template, labels)
    offered.labels = labels or None
    offered.unanswerable = answers.unanswerable(labels)


#: more labels than this offered in a prompt are warned of (:func:`_label_warnings`)
MANY_LABELS = 100


def _label_warnings(labels: tuple | None, unanswerable: tuple) -> list[str]:
    """What the user is told of the labels a prompt offers before any request is sent:
    those no reply can be read as, and a list longer than :data:`MANY_LABELS`. Neither
    stops the audit: the other labels' examples are audited all the same."""
    from ..tasks import answers

    out = []
    if unanswerable:
        shown = ", ".join(_label_shown(x) for x in unanswerable[:10]) + (", …" if len(unanswerable) > 10 else "")
        out.append(
            f"no reply can be read as {len(unanswerable)} of the {len(labels or ())} labels the prompt offers "
            f"({shown}): empty, or written like another label; an example labelled so is never predicted right"
        )
    if labels and len(labels) > MANY_LABELS:
        written = len(answers.with_labels(answers.LABELS, labels))
        out.append(
            f"the prompt offers {len(labels)} labels (more than {MANY_LABELS}), {written:,} characters in every "
            "request: check that the dataset's labels are classes, not one per example"
        )
    return out


def _label_shown(label: Any) -> str:
    """A label as a warning quotes it: as JSON, so that ``3`` and ``"3"`` read apart; a long one cut."""
    text = json.dumps(label, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _warned(message: str) -> None:
    """A warning of :func:`audit` given from Python without ``warn``."""
    warnings.warn(message, UserWarning, stacklevel=3)


#: the settings of a model's requests over HTTP, and of a model that answers in text (HTTP, ``hf:DIR``)
_HTTP_SETTINGS = ("temperature", "concurrency", "retries", "budget")  # --no-cache: no model else has a cache
_TEXT_SETTINGS = ("answer_regex", "max_tokens")


def _refuse_unused(config: AuditConfig, *, http: bool, text: bool) -> None:
    """A setting the model never reads (``--temperature`` for a checkpoint,
    ``--answer-regex`` for a callable), set away from its default, is
    refused rather than silently ignored, as ``--prompt`` is."""
    unused = (() if http else _HTTP_SETTINGS) + (() if text else _TEXT_SETTINGS)
    for f in fields(config):
        if f.name in unused and getattr(config, f.name) != f.default:
            flag = f.metadata["flags"][0]
            kind = (
                "served over HTTP" if f.name in _HTTP_SETTINGS else "that answer in text (HTTP, an hf: language model)"
            )
            raise UsageError(f"{flag} is for models {kind}", path=flag)


#: sensitivity controls drawn per example where the task can tell, without
#: running anything it was not asked to, that a control changes the label
CONTROLS = 4


def default_controls(task: Task, config: AuditConfig, *, labelled: bool, own_oracle=None) -> int:
    """``--controls``, or its default: :data:`CONTROLS` where a control's
    change of label is known in this process (bugs: by the task's own
    definition of a bug, on labelled functions; ltl: the exact checker;
    alta: the compiled program's interpreter), and for bhive only with
    ``--oracle`` (llvm-mca, which runs only when asked); else 0. A control
    whose label change nobody checks (a changed immediate rarely changes
    llvm-mca's cycles) would blame a model for not reacting to a non-change."""
    if config.controls is not None:
        return config.controls
    known = {
        "bugs": labelled,
        "ltl": True,
        "alta": own_oracle is not None,
        "bhive": config.oracle,
        "exec": config.oracle,
    }  # execution runs only when asked
    return CONTROLS if known.get(task.name, False) else 0


def _task_of(adapter, name: str | None) -> Task:
    """The task audited: the checkpoint's own, else the one named or guessed."""
    name = adapter.task or name
    if name is None:
        raise UsageError(
            f"name the task with --task ({', '.join(task_names())}): only invar checkpoints carry theirs", path="--task"
        )
    return get_task(name)


def _table(adapter, task: Task, table: str) -> str | None:
    """What table a language model reads its variants with (the header's
    ``table``: ``own``, ``along``, ``learned``), None for any other model;
    ``along`` for a model that is no invar language model is a UsageError."""
    read = getattr(adapter, "table_read", None)
    if table == "along" and read is None:
        what = f"{task.name} model" if adapter.kind == "checkpoint" else adapter.kind
        article = "an" if what.startswith(("a", "e", "i", "o", "u", "http", "ltl")) else "a"
        raise UsageError(
            f"--lexinvariant-table along is for invar language models (lm checkpoints), not {article} {what}",
            path="--lexinvariant-table",
        )
    return read


def _default_transform(task: Task) -> str:
    """The task's symmetries (``both`` when it keeps renamings and
    reorderings); renamings when it keeps neither."""
    kept = [t for t in ("renamings", "permutations") if task.invariances.get(t)]
    return "both" if len(kept) == 2 else kept[0] if kept else "renamings"


def _symmetric(task: Task, transform: str) -> bool:
    """Whether every transform audited keeps the task's label."""
    spaces = ("renamings", "permutations") if transform == "both" else (transform,)
    return all(task.invariances.get(t, False) for t in spaces)


def _load_dataset(dataset: Any, task: Task, adapter, config: AuditConfig):
    from .datasets import check_split, load

    languages = getattr(getattr(adapter, "model", None), "languages", None)  # an invar model's own
    check_split(dataset, config.split, config.data_dir)
    return load(
        dataset,
        task=task,
        languages=languages,
        data_dir=config.data_dir,
        split=config.split or "test",
        lang=config.lang,
        program_column=config.program_column,
        label_column=config.label_column,
        limit=config.limit,
    )


def _my_chunks(examples: list, shard: tuple[int, int] | None, rank: int, world: int) -> list[list]:
    """The chunks of ``examples`` this shard and this process audit."""
    chunks = [examples[i : i + CHUNK] for i in range(0, len(examples), CHUNK)]
    if shard is not None:
        chunks = [c for k, c in enumerate(chunks) if k % shard[1] == shard[0] - 1]
    return chunks[rank::world]


def _run(
    chunks: list[list], adapter, task: Task, settings: Settings, progress: Callable[[int, int], None] | None
) -> tuple[list[dict], dict]:
    """Every chunk's records, and how long the run and the model took."""
    from .datasets import label_by_oracle

    total = sum(len(c) for c in chunks)
    records: list[dict] = []
    start = time.perf_counter()
    for c in chunks:
        if settings.oracle:  # unlabelled examples take the oracle's label: the metric is measured against it
            label_by_oracle(c, task)
        records += run_chunk(c, adapter, task, settings)
        if progress:
            progress(len(records), total)
    run = {
        "seconds": time.perf_counter() - start,
        "model_seconds": adapter.model_seconds,
        "forward_seconds": adapter.forward_seconds,
        "predictions": sum(1 + r["variants"] for r in records if r["error"] is None),
        # batches the model answered wrongly, retried one input at a time (the report's notes say so)
        "fallbacks": _fallbacks(adapter),
    }
    return records, run


def _fallbacks(adapter) -> dict | None:
    """The batches ``adapter`` retried one input at a time, and why the first was; None for none."""
    k = getattr(adapter, "fallbacks", 0)
    return {"batches": k, "first": adapter.fallback_reason} if k else None


def _device(device: str | None, world: int, local_rank: int) -> str | None:
    if device and device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise UsageError("--device cuda: no CUDA device is available", path="--device")
        if world > 1:  # one GPU per process (nccl gathers through the current device)
            torch.cuda.set_device(local_rank)
            return f"cuda:{local_rank}"
    return device


def _gather(records: list[dict], run: dict, device: str | None) -> tuple[list[dict], dict]:
    """Every process's records (and timing) on every process (torchrun)."""
    import torch.distributed as dist

    owns_group = not dist.is_initialized()
    if owns_group:
        dist.init_process_group("nccl" if device and device.startswith("cuda") else "gloo")
    gathered: list = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, (records, run))
    if owns_group:  # gloo's threads must not outlive the group at exit (an abort)
        dist.barrier()
        dist.destroy_process_group()
    everything = [r for part, _ in gathered for r in part]
    runs = [r for _, r in gathered]
    merged = dict(
        run,
        seconds=max(r["seconds"] for r in runs),
        model_seconds=sum(r["model_seconds"] for r in runs),
        forward_seconds=None if run["forward_seconds"] is None else sum(r["forward_seconds"] for r in runs),
        predictions=sum(r["predictions"] for r in runs),
        fallbacks=merged_fallbacks(runs),
    )
    return everything, merged


def _pick(examples: list, wanted: str | int):
    for ex in examples:
        if ex.id == str(wanted):
            return ex
    if isinstance(wanted, int) or str(wanted).isdigit():
        k = int(wanted)
        if 0 <= k < len(examples):
            return examples[k]
    shown = ", ".join(ex.id for ex in examples[:3])
    raise UsageError(
        f"no example {wanted!r} (ids look like {shown or 'nothing: the dataset is empty'}; "
        "or give its position from 0)",
        path="--example",
    )


__all__ = ["Audit", "audit", "parse_shard"]
