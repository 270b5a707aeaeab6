"""Audits: how far a model is from respecting the symmetries of its task.

    report = invar.audit(model="fixtures/models/vanilla.pt", dataset="fixtures/blocks")
    report.violation_rate, report["alpha_covariance"]["mean"]

For each example, K semantics-preserving variants are drawn uniformly with
the exact samplers (all of them when the space has at most K), the model
predicts the original and every variant in batches, and the report gives
the task's metric on originals, on variants and on each example's worst
variant; the violation rate; alpha-covariance; and the spread of the
predictions. docs/audit.md defines every measure and the JSON schema.

Modules: :mod:`.config` (the settings, one typed value), :mod:`.orchestrate`
(the audit from start to end: shards, torchrun's processes),
:mod:`.datasets` (what is audited), :mod:`.adapter`, :mod:`.models`,
:mod:`.http` and :mod:`.hf` (checkpoints, TorchScript, Python callables, HTTP
endpoints, local transformers models), :mod:`.suite` (versioned sets of
audits for a chat model),
:mod:`.replies` (the reply cache), :mod:`.run` (variants, controls,
repeats, inputs, batches), :mod:`.records` (an example's record),
:mod:`.controls` (transforms that change the meaning), :mod:`.metrics` and
:mod:`.stats` (the measures and tests), :mod:`.sections` and
:mod:`.report` (summary, JSONL, merging shards, bounds), :mod:`.compare`
(two audits paired), :mod:`.render` (tables, HTML, plots).

This package is the audit's face: it only names the public API. Layer
train/audit/alta: the audit imports errors, program, symmetry, frontends,
encoding, tasks, data, nn and checkpoint; never train, alta or cli.
"""

from ..processes import callable_module
from .compare import compare
from .config import AuditConfig
from .orchestrate import Audit, audit, parse_shard
from .report import SCHEMA, exceeded, merge, summarize

__all__ = ["audit", "Audit", "AuditConfig", "compare", "merge", "summarize", "exceeded", "parse_shard", "SCHEMA"]

# ``invar.audit(...)`` stays a call once this package is imported
callable_module(__name__, audit)
