"""Checkpoints: one ``.pt`` file, written atomically, read without unpickling code.

A checkpoint is a dict of plain data: the weights (tensors), the model config,
the vocabulary, the task, the languages it was trained on, the metrics, the
training run's settings (``train``: :class:`~invar.config.TrainConfig` as a
dict, which :meth:`~invar.config.TrainConfig.stored` makes the config again) and a format version, every value
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
import warnings
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
    if Path(path).is_dir():
        raise ModelError("is a directory, not a checkpoint", path=shown)
    try:
        with warnings.catch_warnings():  # torch's warnings (an old pickle protocol, a TorchScript archive)
            warnings.simplefilter("ignore")  # would print lines of their own before the one error
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
        if "TorchScript" in str(err):
            raise ModelError(
                "a TorchScript archive, not an invar checkpoint (invar audit --model runs TorchScript)", path=shown
            )
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


#: the config's fields that size a tensor of the network: none can be larger than the largest
#: dimension of the weights the file holds
DIMENSIONS = ("d_model", "n_head", "d_ff", "n_labels", "pool_size")
#: the config's fields that count layers: none can be more than the layers the file holds
LAYERS = ("n_layer", "decoder_layers", "mask_layers")
#: the config's fields that size what is made at run time (tables of random vectors, positions,
#: decoding, draws): no larger than the largest dimension of the weights or than this
MOST_STEPS = 1 << 16
STEPS = ("n_tokens", "n_views", "n_referents", "max_len", "max_output", "beam", "random_draws")


def check_sizes(
    config: Mapping[str, Any], state_dict: Any, path: str, *, fields: Mapping[str, int] | None = None
) -> None:
    """Refuse (ModelError at ``path``) a config that would build more than
    the weights it came with: a size field larger than the largest dimension
    of any stored tensor, or more layers than the stored tensors number,
    checked before anything is built, so a crafted file cannot make invar
    allocate without bound. ``fields``: other sizes to check as dimensions
    (a compiled program's variables)."""
    if not isinstance(state_dict, Mapping) or not all(isinstance(t, torch.Tensor) for t in state_dict.values()):
        raise ModelError("inconsistent checkpoint (its weights are not a table of tensors)", path=path)
    largest = max((max(t.shape, default=1) for t in state_dict.values()), default=0)
    indices = [int(part) for key in state_dict for part in str(key).split(".") if part.isdigit()]
    layers = 1 + max(indices, default=0)
    bounds = {
        **{name: (largest, f"the largest dimension of its weights is {largest}") for name in DIMENSIONS},
        **{name: (layers, f"its weights hold {layers} layer(s) at most") for name in LAYERS},
        **{name: (max(largest, MOST_STEPS), f"at most {max(largest, MOST_STEPS)}") for name in STEPS},
    }
    sizes = {name: config.get(name) for name in bounds} | dict(fields or {})
    for name, value in sizes.items():
        if value is None or isinstance(value, bool):
            continue
        bound, why = bounds.get(name, (largest, f"the largest dimension of its weights is {largest}"))
        if not isinstance(value, int) or value < 0 or value > bound:
            raise ModelError(f"inconsistent checkpoint ({name} {value!r}, but {why})", path=path)


def load_model(path: str | os.PathLike, *, task: str | None = None, device: str | None = None):
    """The :class:`~invar.nn.model.Model` stored at ``path`` (for a compiled
    architecture, its compiler's model, :data:`COMPILED`). With ``task``, a
    checkpoint of another task is refused. Torch's global random stream is
    left as it was."""
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
    if not isinstance(data.get("config"), dict):
        raise ModelError("inconsistent checkpoint (no model config)", path=shown)
    check_sizes(data["config"], data.get("state_dict"), shown)
    try:
        config = ModelConfig.from_dict(data["config"])
        vocab = Vocab.from_dict(data["vocab"])
        if languages is None:  # written before checkpoints named their languages
            languages = list(get_task(data["task"]).languages)
        with torch.random.fork_rng(devices=[]):  # the weights' initial draws leave the caller's stream as it was
            network = build_network(config, vocab, data["task"])
        model = Model(
            data["task"], config, vocab, network, data.get("metrics"), labels=data.get("labels"), languages=languages
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


__all__ = ["save", "load", "load_model", "check_sizes", "model_payload", "FORMAT", "VERSION", "COMPILED"]
