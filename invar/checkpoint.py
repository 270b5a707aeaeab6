"""Checkpoints: one ``.pt`` file, written atomically, read without unpickling code.

A checkpoint is a dict of plain data: the weights (tensors), the model config,
the vocabulary, the task, the languages it was trained on, the metrics, the
training run's settings (``train``: :class:`~invar.config.TrainConfig` as a
dict, which makes the config again) and a format version, every value
JSON-compatible apart from the tensors. A
checkpoint written before ``languages`` existed reads every language of its
task's datasets (:attr:`invar.tasks.Task.languages`: ``bhive`` x86, ``ltl``
LTL, ``copy`` copy strings, ``names`` and ``bugs`` Python or Java). A config
written before one of its fields existed is read as what it meant then
(:meth:`~invar.nn.config.ModelConfig.from_dict`,
:func:`~invar.nn.config.written_before`): a dual-part model from before
``embed_scaling`` reads its vectors unscaled, a lexinvariant one from before
``random_vectors`` its small ones, so it predicts as it did. It is written to a temporary file in
the same directory, flushed to disk, and renamed over the target, so a kill
never leaves a half-written checkpoint. It is read with
``torch.load(weights_only=True)``: a file whose pickle would build arbitrary
objects (and so could run code) is refused with :class:`ModelError` before
anything in it runs.
"""

from __future__ import annotations

import importlib
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any, Mapping

import torch

from .errors import ModelError

FORMAT = "invar-checkpoint"
#: architectures whose weights are compiled from a program, not trained -> the
#: module that reads their checkpoints (``from_checkpoint(data, path, device)``);
#: found by name, as the tasks are, since compilers stand above this module
COMPILED = {"alta": "invar.alta.model"}
#: bump when the layout of a checkpoint changes
VERSION = 1


def save(path: str | os.PathLike, payload: Mapping[str, Any]) -> None:
    """Write ``payload`` (plus format and version) to ``path`` atomically."""
    from .files import write_atomic

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "version": VERSION, **payload}
    write_atomic(path, lambda f: torch.save(data, f))


def load(path: str | os.PathLike, *, kind: str = "model") -> dict:
    """Read a checkpoint written by :func:`save`; ModelError, located at
    ``path``, for a missing, corrupt, foreign or unsafe file."""
    shown = str(path)
    if not Path(path).exists():
        raise ModelError("no such checkpoint", path=shown)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        unsafe = next((line for line in lines if "GLOBAL" in line), None)
        if unsafe:
            raise ModelError(
                f"refused: the file holds objects other than weights and plain data ({unsafe})", path=shown
            )
        detail = next((line for line in lines if line.startswith("Unsupported")), _first_line(err))
        raise ModelError(f"not a readable checkpoint ({detail})", path=shown)
    except (
        RuntimeError,
        EOFError,
        zipfile.BadZipFile,
        OSError,
        ValueError,
        KeyError,
        AttributeError,
        TypeError,
        IndexError,
    ) as err:
        raise ModelError(f"not a readable checkpoint ({type(err).__name__}: {_first_line(err)})", path=shown)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError("not an invar checkpoint", path=shown)
    if data.get("version") != VERSION:
        raise ModelError(f"checkpoint format version {data.get('version')}, this invar reads {VERSION}", path=shown)
    if data.get("kind", "model") != kind:
        raise ModelError(f"a {data.get('kind')} file, not a {kind} checkpoint", path=shown)
    return data


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__


def load_model(path: str | os.PathLike, *, task: str | None = None, device: str | None = None):
    """The :class:`~invar.nn.model.Model` stored at ``path`` (for a compiled
    architecture, its compiler's model, :data:`COMPILED`). With ``task``, a
    checkpoint of another task is refused."""
    from .encoding import Vocab
    from .nn.config import ModelConfig
    from .nn.model import Model, build_network
    from .tasks import get_task

    data = load(path)
    shown = str(path)
    if task is not None and data.get("task") != task:
        raise ModelError(f"a checkpoint of the {data.get('task')!r} task, not {task!r}", path=shown)
    arch = data.get("config", {}).get("arch") if isinstance(data.get("config"), dict) else None
    if arch in COMPILED:
        return importlib.import_module(COMPILED[arch]).from_checkpoint(data, shown, device)
    languages = data.get("languages")
    if languages is not None and not (isinstance(languages, list) and all(isinstance(x, str) for x in languages)):
        raise ModelError(f"inconsistent checkpoint (languages {languages!r} is not a list of names)", path=shown)
    try:
        config = ModelConfig.from_dict(data["config"])
        vocab = Vocab.from_dict(data["vocab"])
        if languages is None:  # written before checkpoints named their languages
            languages = list(get_task(data["task"]).languages)
        model = Model(
            data["task"],
            config,
            vocab,
            build_network(config, vocab, data["task"]),
            data.get("metrics"),
            labels=data.get("labels"),
            languages=languages,
        )
        model.network.load_state_dict(data["state_dict"])
    except ModelError as err:
        raise err.located(shown)
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise ModelError(f"inconsistent checkpoint ({type(err).__name__}: {_first_line(err)})", path=shown)
    except Exception as err:  # e.g. an unknown task
        from .errors import InvarError

        if isinstance(err, InvarError):
            raise ModelError(err.message, path=shown)
        raise
    model.network.eval()
    if device:
        model.network.to(device)
    return model


def model_payload(model, metrics: Mapping[str, Any] | None = None, **extra: Any) -> dict:
    """What :func:`save` stores for ``model``."""
    from .tasks import get_task

    return {
        "kind": "model",
        "task": model.task,
        # a model built without naming its languages is saved with its task's
        "languages": list(model.languages or sorted(get_task(model.task).languages)),
        "config": model.config.to_dict(),
        "vocab": model.vocab.to_dict(),
        "state_dict": {k: v.detach().cpu() for k, v in model.network.state_dict().items()},
        "metrics": dict(metrics if metrics is not None else model.metrics),
        **({"labels": list(model.labels)} if getattr(model, "labels", None) is not None else {}),
        **extra,
    }


__all__ = ["save", "load", "load_model", "model_payload", "FORMAT", "VERSION", "COMPILED"]
