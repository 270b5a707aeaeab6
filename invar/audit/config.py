"""One audit's settings, declared once.

:class:`AuditConfig` holds every option of an audit: its type (a ``Literal``
where there are choices), its default, its command-line flags and a one-line
help, checked together in ``__post_init__``. ``invar.audit(model, dataset,
config)`` takes it, ``invar audit`` builds its options from the fields
(:mod:`invar.cli.configured`), and every report stores it (``config``), so a
run can be repeated from its report alone.

What an audit is *of* (the model and the dataset) and what is done with its
report (``--format``, ``--out``, ``--fail-over`` …) are not settings of the
audit: the first are :func:`invar.audit`'s arguments, the second the
command's own options.

Layer train/audit/alta: imports errors, config (:func:`~invar.config.option`
and the field checks it shares with the training run's config) and tasks
only (and, to check the name of a ``--fail-over``/``--fail-under`` bound,
the report's schema).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Callable, Literal, Sequence

from ..config import check_field, choices_of, field_types, option
from ..errors import UsageError

#: the transforms an audit can draw variants from
Transform = Literal["renamings", "permutations", "both"]
TRANSFORMS: tuple[str, ...] = ("renamings", "permutations", "both")


def _tasks() -> list[str]:
    from ..tasks import task_names

    return task_names()


@dataclass(frozen=True)
class AuditConfig:
    """Every setting of an audit (docs/audit.md explains each)."""

    # ------------------------------------------------------------ what is drawn
    transform: Transform | None = option(
        None, "--transform", help="Which transforms to audit; default: the task's own symmetries."
    )
    variants: int = option(
        16,
        "--variants",
        "-k",
        min=1,
        help="Variants per example, drawn uniformly (all of them when the space has at most this many).",
    )
    controls: int | None = option(
        None,
        "--controls",
        min=0,
        help="Sensitivity controls per example: transforms that change the meaning, checked by the task's oracle "
        "where it has one (default: 4 for tasks whose labels a control changes, else 0).",
    )
    repeats: int = option(
        1,
        "--repeats",
        min=1,
        help="Ask the model this many times for the original and for each variant: its disagreement with itself "
        "is the noise floor, and a violation must go beyond it (1: not measured).",
    )
    limit: int | None = option(None, "--limit", min=1, help="Audit the first N examples.")
    example: str | None = option(
        None,
        "--example",
        help="Audit one example (its id, or its position from 0) and show every prediction as a histogram.",
    )
    seed: int = option(0, "--seed", help="Seed for every random choice.")
    # --------------------------------------------------------------- the data
    task: str | None = option(None, "--task", choices=_tasks, help="The task; invar checkpoints carry theirs.")
    data_dir: str | None = option(
        None,
        "--data-dir",
        help="Where --dataset bhive lies: a directory written by invar data bhive, or a copy of BHive's CSVs "
        "(default: $INVAR_DATA, else BHive's public CSVs in ~/.cache/invar/bhive, downloaded once).",
    )
    split: str | None = option(
        None, "--split", help="Split of a prepared dataset to audit (default: test, where the dataset has splits)."
    )
    lang: str | None = option(
        None, "--lang", help="Language of the programs (x86, hex, python, java, ltl) when the dataset does not say."
    )
    program_column: str | None = option(None, "--program-column", help="CSV/JSONL column holding the programs.")
    label_column: str | None = option(None, "--label-column", help="CSV/JSONL column holding the labels.")
    oracle: bool = option(
        False,
        "--oracle",
        help="Also measure the label's own change on the same variants with the task's oracle (bhive: llvm-mca).",
    )
    shard: str | None = option(
        None, "--shard", help="I/N: audit the I-th of N shards (1-based); combine the JSONL with invar audit merge."
    )
    # the suites of invar.audit.suite (name: the newest version; name@version), listed here because that
    # module imports this one; tests/audit/test_suite.py checks that the two agree
    suite: Literal["code-reasoning", "code-reasoning@1"] | None = option(
        None,
        "--suite",
        help="Run a versioned suite of audits in place of --dataset (code-reasoning: exec, names, bugs, bhive), its "
        "examples, seeds and variants fixed by its version: one report per task and a summary under --out DIR.",
    )
    # ------------------------------------------------------------- the measures
    tolerance: float = option(
        1e-6, "--tolerance", min=0, help="Relative difference below which two numeric predictions count as the same."
    )
    level: float = option(
        0.05,
        "--level",
        min=0,
        max=1,
        help="False-discovery rate of the violation test with --repeats (Benjamini-Hochberg over the examples).",
    )
    confidence: float = option(0.95, "--confidence", min=0, max=1, help="Coverage of the confidence intervals.")
    bootstrap: int = option(
        1000, "--bootstrap", min=0, help="Bootstrap resamples for the confidence intervals (0: no intervals)."
    )
    # ----------------------------------------------------- how the model is run
    batch_size: int = option(64, "--batch-size", min=1, help="Inputs per model call.")
    device: Literal["cpu", "cuda"] = option("cpu", "--device", help="Where checkpoints and TorchScript models run.")
    threads: int | None = option(
        None,
        "--threads",
        min=1,
        help="Torch threads per process (default: 1, fastest for small models; raise it for large ones).",
    )
    lexinvariant_table: Literal["own", "along"] = option(
        "own",
        "--lexinvariant-table",
        help="How a lexinvariant language model reads each lexical permutation: with its own random table (own: "
        "invariance in distribution) or with the table permuted along the renaming (along: exact "
        "invariance). Only for language models.",
    )
    timeout: float | None = option(
        None,
        "--timeout",
        min=0.001,
        help="Seconds an HTTP request (default 60) or a call of a Python callable (default: no limit) may take; "
        "a request past it is tried again (--retries), a call past it is that input's error.",
    )
    # --------------------------------------------------------- chat models (HTTP)
    prompt: str | None = option(
        None,
        "--prompt",
        read_file=True,
        metavar="FILE",
        help="Prompt template for a model that answers in text (HTTP, an hf: language model; an hf: sequence "
        "classifier takes none), {program} standing for the program and, for classify, {labels} for the dataset's "
        "labels, one of which the reply must then give (default: invar's prompt for the task).",
    )
    answer_regex: str | None = option(
        None,
        "--answer-regex",
        help=(
            "Read the answer of a model that answers in text (HTTP, an hf: language model) from the last match "
            "of this regular expression (its first group; the whole match without one)."
        ),
    )
    max_tokens: int = option(
        1024,
        "--max-tokens",
        min=1,
        help="Most tokens a model that answers in text (HTTP, an hf: language model) may write per reply.",
    )
    temperature: float = option(0.0, "--temperature", min=0, help="Sampling temperature sent to an HTTP model.")
    concurrency: int = option(8, "--concurrency", min=1, help="Most HTTP requests in flight at once.")
    retries: int = option(
        2,
        "--retries",
        min=0,
        help="Tries again after an HTTP request fails in transit or gets a 408 or 5xx status (rate limits, 429 or "
        "503 with Retry-After, are waited out and do not count).",
    )
    budget: float = option(
        600.0,
        "--budget",
        min=1,
        help="Seconds an HTTP model's answer to one input may take in all, retries and rate-limit waits included.",
    )
    cache: bool = option(
        True,
        "--cache/--no-cache",
        help="Keep every HTTP reply on disk and ask nothing twice ($INVAR_REPLY_CACHE, else ~/.cache/invar/replies).",
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            check_field(f, getattr(self, f.name), type(self))
        if self.shard is not None:
            object.__setattr__(self, "shard", _shard_text(self.shard))
        if isinstance(self.lang, str):  # --lang X86 names x86, as the frontends read it
            object.__setattr__(self, "lang", self.lang.lower())
        if self.answer_regex is not None:
            try:
                re.compile(self.answer_regex)
            except re.error as err:
                raise UsageError(f"{self.answer_regex!r} is not a regular expression: {err}", path="--answer-regex")
        if self.prompt is not None and "{program}" not in self.prompt:
            raise UsageError("the prompt template has no {program} placeholder", path="--prompt")
        if not 0 < self.level < 1 or not 0 < self.confidence < 1:
            raise UsageError("--level and --confidence must lie strictly between 0 and 1")

    def as_dict(self) -> dict:
        """The settings as JSON (the report's ``config``)."""
        return asdict(self)

    def replace(self, **changes: Any) -> "AuditConfig":
        return type(self)(**{**asdict(self), **changes})

    @classmethod
    def of(cls, config: "AuditConfig | None" = None, **options: Any) -> "AuditConfig":
        """``config`` with ``options`` changed (keyword names as the long
        options, ``-`` as ``_``); an unknown name is a UsageError."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise UsageError(f"no audit setting {', '.join(map(repr, unknown))} (settings: {', '.join(sorted(known))})")
        return (config or cls()).replace(**options) if options else (config or cls())


def check_measure(name: str, option: str = "--fail-over") -> None:
    """UsageError unless dotted ``name`` leads to a number in the report's
    schema (:data:`invar.audit.schema.REPORT`; an object with a ``mean``,
    such as ``alpha_covariance``, stands for its mean), as
    :func:`invar.audit.report.resolve` reads the report. Checked before the audit: a misspelt bound costs a
    second, not the audit. An object the schema leaves open (``run``,
    ``config``) takes any name below it; ``resolve`` decides then."""
    from .schema import REPORT  # lazily: the schema reads the report's version, which reads no config

    node: dict | None = REPORT
    for part in name.split("."):
        node = _object_of(node)
        if node is None:
            raise UsageError(f"{name} is not a number in the report", path=option)
        if "properties" not in node and node.get("additionalProperties") is not False:
            return  # an open object: only the report itself can say
        props = node["properties"]
        extra = node.get("additionalProperties")
        if part not in props and not isinstance(extra, dict):
            raise UsageError(
                f"no measure {name!r} in the report (for example violation_rate, alpha_covariance, "
                "metric.worst, spread.relative_range.max, errors)",
                path=option,
            )
        node = props.get(part, extra)
    whole = _object_of(node)
    if whole is not None and "mean" in whole.get("properties", {}):
        node = whole["properties"]["mean"]
    if not _numeric(node):
        raise UsageError(f"{name} is not a number in the report", path=option)


#: the report's sections that only some settings measure: section -> (whether
#: the settings measure it, the option that does)
_MEASURED_BY: dict[str, tuple[Callable[[AuditConfig], bool], str]] = {
    "oracle": (lambda c: c.oracle, "--oracle"),
    "noise": (lambda c: c.repeats > 1, "--repeats 2 or more"),
    "intervals": (lambda c: c.bootstrap > 0, "--bootstrap above 0"),
    "sensitivity": (lambda c: c.controls != 0, "controls (--controls above 0)"),
}


def check_measurable(name: str, config: AuditConfig, option: str = "--fail-over") -> None:
    """UsageError when dotted ``name`` lies in a section of the report that
    ``config``'s settings do not measure (``oracle.*`` without ``--oracle``,
    ``noise.*`` with one repeat …): refused before the audit, not after it."""
    rule = _MEASURED_BY.get(name.split(".")[0])
    if rule is not None and not rule[0](config):
        raise UsageError(f"{name} is measured only with {rule[1]}", path=option)


def _object_of(node: dict | None) -> dict | None:
    """The object schema ``node`` is, or the object branch of its ``oneOf``."""
    if node is None:
        return None
    if node.get("type") == "object":
        return node
    return next((b for b in node.get("oneOf", ()) if b.get("type") == "object"), None)


def _numeric(node: dict) -> bool:
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    return "number" in kinds or "integer" in kinds


def _shard_text(value: Any) -> str:
    """A shard as ``I/N`` text (from Python it may be a pair)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and len(value) == 2:
        return f"{value[0]}/{value[1]}"
    raise UsageError(f"{value!r}: write I/N with 1 <= I <= N, e.g. 1/4", path="--shard")


__all__ = ["AuditConfig", "TRANSFORMS", "Transform", "option", "choices_of", "field_types", "check_measure"]
