"""The JSON Schema (draft 2020-12) of what ``invar audit`` writes, version
:data:`SCHEMA`: the report (``--format json``; also the
last line of ``--format jsonl``, with ``type`` ``summary``), the header and
the example records of JSONL. docs/audit.md explains every field (and what
changed from schema 1); tests/cli/test_audit_cli.py validates real output
against these.
"""

from __future__ import annotations

import json

#: version of the audit's JSON and JSONL schema (docs/audit.md); bump on any
#: change of meaning
SCHEMA = 3

NUM = {"type": ["number", "null"]}
INT = {"type": ["integer", "null"]}
STR = {"type": ["string", "null"]}
ANY: dict = {}


def _obj(props: dict, required: list | None = None, extra: bool = False) -> dict:
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
        "additionalProperties": extra,
    }


QUANTILES = _obj({k: NUM for k in ("mean", "median", "p90", "p99", "max")})
HISTOGRAM = _obj(
    {"edges": {"type": "array", "items": {"type": "number"}}, "counts": {"type": "array", "items": {"type": "integer"}}}
)
MODEL = _obj(
    {
        "kind": {"enum": ["checkpoint", "torchscript", "callable", "http"]},
        "path": STR,
        "arch": {"type": "string"},
        "size": {"type": "string"},
        "name": {"type": "string"},
    },
    required=["kind", "path"],
)
DATASET = _obj(
    {
        "name": {"type": "string"},
        "kind": {"enum": ["bhive", "bhive-copy", "directory", "file", "table", "programs"]},
        "split": STR,
        "examples": {"type": "integer"},
        "labelled": {"type": "integer"},
        "files_without_programs": {"type": "integer"},
    },
    required=["name", "kind", "split", "examples", "labelled"],
)
TRANSFORM = {"enum": ["renamings", "permutations", "both"]}
#: a metric's value on the originals, over every variant and at each example's worst variant
METRIC = {"name": {"type": "string"}, "examples": {"type": "integer"}, "original": NUM, "variants": NUM, "worst": NUM}

TASK = _obj(
    {
        "name": {"type": "string"},
        "metric": {"type": "string"},
        "lower_is_better": {"type": "boolean"},
        "discrete": {"type": "boolean"},
    }
)
MOST_DIFFERENT = {
    "oneOf": [
        {"type": "null"},
        _obj(
            {
                "variant": {"type": "integer", "minimum": 1},
                "prediction": ANY,
                "renaming": {"type": "object", "additionalProperties": {"type": "string"}},
                "order": {"type": "array", "items": {"type": "integer"}},
                "lines": {"type": "array", "items": {"type": "string"}},
                "variant_lines": {"type": "array", "items": {"type": "string"}},
                "changed": {
                    "type": "array",
                    "items": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3},
                },
                "moved": {"type": "array", "items": {"type": "integer"}},
            },
            required=["variant", "prediction", "lines", "variant_lines", "changed", "moved"],
        ),
    ]
}

HEADER = _obj(
    {
        "schema": {"const": SCHEMA},
        "type": {"const": "header"},
        "invar": {"type": "string"},
        "model": MODEL,
        "task": {"type": "string"},
        "dataset": DATASET,
        "transform": TRANSFORM,
        "task_symmetry": {"type": "boolean"},
        "variants": {"type": "integer", "minimum": 1},
        "seed": {"type": "integer"},
        "limit": INT,
        "tolerance": {"type": "number", "minimum": 0},
        "oracle": {"type": "boolean"},
        "example": STR,
        "shard": {
            "oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}]
        },
    }
)

#: what table a language model read its variants with (null: not a language model)
TABLE = {"enum": [None, "own", "along", "learned"]}
# added within schema 2: optional, so that earlier files still validate
HEADER["properties"]["table"] = TABLE
#: the labels a classify prompt offered (null: none offered); optional, added within schema 3
LABELS_OFFERED = {"oneOf": [{"type": "null"}, {"type": "array"}]}
HEADER["properties"]["labels_offered"] = LABELS_OFFERED
#: those of the offered labels that no reply can be read as (null: none offered); optional, added within schema 3
HEADER["properties"]["labels_unanswerable"] = LABELS_OFFERED

EXAMPLE = _obj(
    {
        "type": {"const": "example"},
        "index": {"type": "integer", "minimum": 0},
        "id": {"type": "string"},
        "location": {"type": "string"},
        "label": ANY,
        "lines": INT,
        "tokens": INT,
        "referents": INT,
        "space": {"type": ["integer", "string", "null"]},
        "varies": {"type": ["boolean", "null"]},
        "variants": INT,
        "exhaustive": {"type": "boolean"},
        "exact": {"type": "boolean"},
        "prediction": ANY,
        "violation": {"type": ["boolean", "null"]},
        "distinct": INT,
        "alpha_covariance": NUM,
        "range": NUM,
        "std": NUM,
        "relative_range": NUM,
        "metric": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "original": NUM,
                        "variants": NUM,
                        "worst": NUM,
                        "worst_prediction": ANY,
                        "variant_predictions": {
                            "type": "array",
                            "items": {"type": "array", "minItems": 2, "maxItems": 2},
                        },
                    },
                    required=["original", "variants", "worst", "worst_prediction"],
                ),
            ]
        },
        "most_different": MOST_DIFFERENT,
        "oracle": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "label": ANY,
                        "changed": {"type": ["boolean", "null"]},
                        "distinct": INT,
                        "range": NUM,
                        "relative_range": NUM,
                        "metric_variants": NUM,
                        "error": STR,
                    }
                ),
            ]
        },
        "predictions": {"type": "array"},
        "error": STR,
        "stage": {"enum": [None, "parse", "space", "model"]},
    },
    required=[
        "type",
        "index",
        "id",
        "location",
        "label",
        "variants",
        "prediction",
        "violation",
        "distinct",
        "alpha_covariance",
        "range",
        "std",
        "relative_range",
        "metric",
        "most_different",
        "oracle",
        "error",
        "stage",
    ],
)

REPORT = _obj(
    {
        "schema": {"const": SCHEMA},
        "type": {"enum": ["report", "summary"]},
        "invar": {"type": "string"},
        "model": MODEL,
        "task": TASK,
        "dataset": DATASET,
        "transform": TRANSFORM,
        "task_symmetry": {"type": "boolean"},
        "settings": _obj(
            {
                "variants": {"type": "integer"},
                "seed": {"type": "integer"},
                "limit": INT,
                "tolerance": {"type": "number"},
                "oracle": {"type": "boolean"},
                "example": STR,
            }
        ),
        "examples": {"type": "integer"},
        "audited": {"type": "integer"},
        "errors": {"type": "integer"},
        "unparsable": {"type": "integer"},
        "predictions": {"type": "integer"},
        "exhaustive": {"type": "integer"},
        "inexact": {"type": "integer"},
        "violations": {"type": "integer"},
        "violation_rate": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "alpha_covariance": _obj(
            {
                "mean": NUM,
                "by_referents": {
                    "type": "array",
                    "items": _obj(
                        {
                            "referents": INT,
                            "examples": {"type": "integer"},
                            "violation_rate": NUM,
                            "alpha_covariance": NUM,
                            # sequence tasks only: the task's metric (and its extra metrics) by number of names
                            "metric": NUM,
                            "extra": {"type": "object", "additionalProperties": NUM},
                        },
                        required=["referents", "examples", "violation_rate", "alpha_covariance"],
                    ),
                },
            }
        ),
        "spread": {
            "oneOf": [
                {"type": "null"},
                _obj({"range": QUANTILES, "std": QUANTILES, "relative_range": QUANTILES, "histogram": HISTOGRAM}),
            ]
        },
        "metric": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        **METRIC,
                        "f1": {"oneOf": [{"type": "null"}, _obj({"original": NUM, "variants": NUM, "worst": NUM})]},
                        # the task's chance level on the same labels (null for sequence tasks and under two labels)
                        "chance": {
                            "oneOf": [
                                {"type": "null"},
                                _obj(
                                    {
                                        "rule": {"enum": ["most common label", "mean label"]},
                                        "prediction": ANY,
                                        "value": NUM,
                                    }
                                ),
                            ]
                        },
                        # tasks with more metrics (ltl: exact): each as the main one
                        "extra": {
                            "type": "object",
                            "additionalProperties": _obj({"original": NUM, "variants": NUM, "worst": NUM}),
                        },
                    },
                    required=["name", "examples", "original", "variants", "worst", "f1", "chance"],
                ),
            ]
        },
        # whether the model is invariant for want of looking (schema 2)
        "trivial": _obj(
            {
                "constant": {"type": ["boolean", "null"]},
                "prediction": ANY,
                "no_better_than_chance": {"type": ["boolean", "null"]},
                "notes": {"type": "array", "items": {"type": "string"}},
            }
        ),
        "oracle": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "examples": {"type": "integer"},
                        "errors": {"type": "integer"},
                        "label_changes": {"type": "integer"},
                        "label_change_rate": NUM,
                        "relative_range": QUANTILES,
                        "metric_variants": NUM,
                        "violations_with_label_change": {"type": "integer"},
                        "violations_without_label_change": {"type": "integer"},
                    }
                ),
            ]
        },
        "worst_examples": {
            "type": "array",
            "items": _obj(
                {
                    "index": {"type": "integer"},
                    "id": {"type": "string"},
                    "location": {"type": "string"},
                    "label": ANY,
                    "prediction": ANY,
                    "range": NUM,
                    "relative_range": NUM,
                    "distinct": {"type": "integer"},
                    "variants": {"type": "integer"},
                    "most_different": MOST_DIFFERENT,
                }
            ),
        },
        "failed": {
            "type": "array",
            "items": _obj(
                {
                    "index": {"type": "integer"},
                    "id": {"type": "string"},
                    "location": {"type": "string"},
                    "stage": {"enum": ["parse", "space", "model"]},
                    "error": {"type": "string"},
                }
            ),
        },
        "example": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "id": {"type": "string"},
                        "location": {"type": "string"},
                        "label": ANY,
                        "prediction": ANY,
                        "variants": {"type": "integer"},
                        "distinct": {"type": "integer"},
                        "min": NUM,
                        "max": NUM,
                        "mean": NUM,
                        "std": NUM,
                        "histogram": {"oneOf": [{"type": "null"}, HISTOGRAM]},
                        "counts": {"type": ["array", "null"]},
                    }
                ),
            ]
        },
        "run": {"type": "object", "description": "timing and how the run was split: excluded from comparisons"},
    }
)

REPORT["properties"]["table"] = TABLE  # optional, as in the header
REPORT["properties"]["labels_offered"] = LABELS_OFFERED
REPORT["properties"]["labels_unanswerable"] = LABELS_OFFERED
# added within schema 2, optional: the audited examples whose space holds a
# variant besides the original (the only ones that can violate), their violation rate and alpha-covariance
REPORT["properties"]["varied"] = {
    "oneOf": [{"type": "null"}, _obj({"examples": {"type": "integer"}, "violation_rate": NUM, "alpha_covariance": NUM})]
}

# ----------------------------------------------------------------- schema 3
#: the audit's settings (invar.audit.config.AuditConfig, every field)
CONFIG = {"type": "object", "description": "AuditConfig: every setting of the audit, by field name"}
HEADER["properties"]["config"] = CONFIG
REPORT["properties"]["config"] = {"oneOf": [{"type": "null"}, CONFIG]}
EXAMPLE["properties"]["metric"]["oneOf"][1]["properties"]["paired_prediction"] = ANY
FATES = _obj(
    {
        "inputs": {"type": "integer"},
        "sent": {"type": "integer"},
        "from_cache": {"type": "integer"},
        "rate_limited": {"type": "integer"},
        "waited": {"type": "number"},
        "ambiguous": {"type": "integer"},
    }
)
EXAMPLE["properties"].update(
    {
        "repeats": {"type": "integer", "minimum": 1},
        # with --repeats K > 1: the original's K answers, the model's disagreement with itself and the test's p-value
        "noise": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "answers": {"type": "array"},
                        "self_disagreement": NUM,
                        "cross_disagreement": NUM,
                        "p_value": {"type": "number", "minimum": 0, "maximum": 1},
                    }
                ),
            ]
        },
        # sensitivity controls: transforms that change the meaning, with the model's answer to each
        "controls": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "drawn": {"type": "integer"},
                        "items": {
                            "type": "array",
                            "items": _obj(
                                {
                                    "kind": {"enum": ["capture", "order", "constant", "operator"]},
                                    "change": {"type": "object"},
                                    "label_changed": {"type": ["boolean", "null"]},
                                    "prediction": ANY,
                                    "changed": {"type": "boolean"},
                                    "p_value": NUM,
                                }
                            ),
                        },
                    }
                ),
            ]
        },
        # a text model's requests (HTTP): what became of them; null for other models
        "replies": {
            "oneOf": [
                {"type": "null"},
                {
                    **FATES,
                    "properties": {
                        **FATES["properties"],
                        "ambiguous_example": {
                            "oneOf": [{"type": "null"}, _obj({"segment": STR, "candidates": {"type": "integer"}})]
                        },
                    },
                    "required": [*FATES["required"], "ambiguous_example"],
                },
            ]
        },
    }
)
EXAMPLE["required"] += ["repeats", "noise", "controls", "replies"]
INTERVAL = {"oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}]}
REPORT["properties"].update(
    {
        "intervals": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "confidence": {"type": "number"},
                        "resamples": {"type": "integer"},
                        "violation_rate": INTERVAL,
                        "alpha_covariance": INTERVAL,
                        "metric": {
                            "oneOf": [
                                {"type": "null"},
                                _obj({"original": INTERVAL, "variants": INTERVAL, "worst": INTERVAL}),
                            ]
                        },
                    }
                ),
            ]
        },
        "paired": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "examples": {"type": "integer"},
                        "original_correct": {"type": "integer"},
                        "variant_correct": {"type": "integer"},
                        "original_only": {"type": "integer"},
                        "variant_only": {"type": "integer"},
                        "p_value": {"type": "number"},
                    }
                ),
            ]
        },
        "noise": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "repeats": {"type": "integer"},
                        "examples": {"type": "integer"},
                        "self_disagreement": NUM,
                        "self_disagreement_interval": INTERVAL,
                        "cross_disagreement": NUM,
                        "cross_disagreement_interval": INTERVAL,
                        "test": {"const": "permutation"},
                        "level": {"type": "number"},
                        "correction": {"const": "benjamini-hochberg"},
                        "uncorrected": {"type": "integer"},
                        "violations": {"type": "integer"},
                    }
                ),
            ]
        },
        "sensitivity": {
            "oneOf": [
                {"type": "null"},
                _obj(
                    {
                        "drawn": {"type": "integer"},
                        "controls": {"type": "integer"},
                        "examples": {"type": "integer"},
                        "label_changed": {"type": "integer"},
                        "unchecked": {"type": "integer"},
                        "on": {"enum": ["label_changed", "all"]},
                        "judged": {"type": "integer"},
                        "changed": {"type": "integer"},
                        "change_rate": NUM,
                        "change_rate_interval": INTERVAL,
                        "by_kind": {
                            "type": "object",
                            "additionalProperties": _obj(
                                {
                                    "controls": {"type": "integer"},
                                    "changed": {"type": "integer"},
                                    "label_changed": {"type": "integer"},
                                    "change_rate": {"type": "number"},
                                }
                            ),
                        },
                        "insensitive": {"type": ["boolean", "null"]},
                    }
                ),
            ]
        },
        "replies": {
            "oneOf": [
                {"type": "null"},
                {
                    **FATES,
                    "properties": {
                        **FATES["properties"],
                        "ambiguous_examples": {
                            "type": "array",
                            "items": _obj(
                                {"id": {"type": "string"}, "segment": STR, "candidates": {"type": "integer"}}
                            ),
                        },
                    },
                    "required": [*FATES["required"], "ambiguous_examples"],
                },
            ]
        },
    }
)
REPORT["properties"]["trivial"]["properties"]["insensitive"] = {"type": ["boolean", "null"]}
# added within schema 3, optional: how many replies each served model gave, by the name (and fingerprint) they say
SERVED = {"type": "object", "additionalProperties": {"type": "integer"}}
for _replies in (EXAMPLE["properties"]["replies"], REPORT["properties"]["replies"]):
    _replies["oneOf"][1]["properties"]["served"] = SERVED
REPORT["required"] = list(REPORT["properties"])

#: the schema of one JSONL line: a header, an example record or the summary
LINE = {"oneOf": [HEADER, EXAMPLE, REPORT]}

#: JSON Schema's types -> the Python values of parsed JSON that are of that type
_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def mismatch(value, schema: dict, where: str = "") -> str | None:
    """Where ``value`` does not fit ``schema`` and how (``field.sub is "x",
    not number``), or None: the subset of JSON Schema this module writes
    (the records of earlier schemas fit it: what was added is optional).
    Lenient where the schema is ambiguous: ``oneOf`` passes when any
    alternative does."""
    said = f"{where or 'the record'} is {_short(value)}"
    if "const" in schema and value != schema["const"]:
        return f"{said}, not {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{said}, not one of {', '.join(map(repr, schema['enum']))}"
    if "oneOf" in schema:
        found = [mismatch(value, alternative, where) for alternative in schema["oneOf"]]
        return None if None in found else found[0]
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_TYPES[k](value) for k in kinds):
            return f"{said}, not {' or '.join(kinds)}"
    if "minimum" in schema and _TYPES["number"](value) and value < schema["minimum"]:
        return f"{said}, below {schema['minimum']}"
    if isinstance(value, list):
        return _array_mismatch(value, schema, where, said)
    if isinstance(value, dict):
        return _object_mismatch(value, schema, where)
    return None


def _array_mismatch(value: list, schema: dict, where: str, said: str) -> str | None:
    if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
        return f"{said}, not {schema.get('minItems', 0)} to {schema.get('maxItems', 'any number of')} items"
    items = schema.get("items")
    for i, item in enumerate(value if isinstance(items, dict) else ()):
        found = mismatch(item, items, f"{where}[{i}]")
        if found:
            return found
    return None


def _object_mismatch(value: dict, schema: dict, where: str) -> str | None:
    properties, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
    missing = [key for key in schema.get("required", ()) if key not in value]
    if missing:
        return f"{where or 'the record'} has no {missing[0]!r}"
    for key, item in value.items():
        at = f"{where}.{key}" if where else key
        if key not in properties and extra is False:
            return f"{where or 'the record'} has {key!r}, not a field of it"
        sub = properties.get(key, extra if isinstance(extra, dict) else None)
        found = None if sub is None else mismatch(item, sub, at)
        if found:
            return found
    return None


def _short(value) -> str:
    """``value`` as JSON, cut to a readable length."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["SCHEMA", "REPORT", "HEADER", "EXAMPLE", "LINE", "mismatch"]
