"""The models an audit can run, behind one small interface.

* an **invar checkpoint** (``invar.load_model``: ``torch.load(weights_only=True)``,
  nothing in the file runs): fixes the task; reads encodings, so variants are
  made by id and index remaps (:func:`invar.encoding.renamed`,
  :func:`invar.encoding.permuted`) and never rendered or parsed again;
* a **TorchScript** file (``torch.jit.load``: TorchScript is code, so the file
  is trusted like a program): ``forward(texts: List[str]) -> Tensor``, one
  prediction per program text;
* a **Python callable** named ``package.module:function``, imported like a
  plugin (the user asks for that code to run): ``function(texts) -> list``, one
  prediction per program text;
* a model served behind an **OpenAI-compatible HTTP endpoint**
  (``http://HOST:PORT/v1``, as vLLM and llama.cpp serve them): one chat
  completion per program, the prompt a template with ``{program}`` in it, the
  answer read by the task's reader; retries, rate limits, a time budget and a
  reply cache (:mod:`.http`, :mod:`.replies`);
* a local **Hugging Face transformers** model, ``hf:DIR`` (:mod:`.hf`,
  transformers imported only then): a sequence classifier answers with its
  label, a causal or seq2seq language model writes greedily from the task's
  prompt and its text is read by the task's reader; loaded with
  ``local_files_only`` and no remote code (a directory holding code is refused).

Every adapter returns one outcome per input (:mod:`.adapter`, re-exported
here): the prediction, a :class:`Reply` (an answer read from a text reply), or
a :class:`Failure` saying why there is none. A batch that raises (anything but
an interrupt), returns something other than a list of predictions, returns
the wrong number of them or outlives its timeout is retried one input at a
time, so the inputs that fail are found and every other one still gets its
prediction; the adapter counts such batches (the report's notes say so). A
request to an endpoint that fails in transit (refused, reset, timed out, cut
short, not HTTP, not JSON, a 408, 429 or 5xx status) is tried again; one
whose reply is final and unusable is that input's error.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import time
import warnings
import zipfile
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import ModelError, UsageError
from .adapter import Adapter, Failure, Fate, Reply, _describe, guarded
from .adapter import _a  # noqa: F401 - run.py reads it from here
from .http import HttpAdapter
from .replies import ReplyCache

_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
#: what ``--model`` starts with to name a local transformers model (:mod:`.hf`, imported only then)
HF_PREFIX = "hf:"


# --------------------------------------------------------------- checkpoints
class _Loaded(Adapter):
    """A model loaded in this process (from a checkpoint, or handed over from Python)."""

    kind = "checkpoint"

    def __init__(self, model, path: str | None = None, device: str | None = None) -> None:
        super().__init__()
        self.model = model
        self.path = path
        self.device = device
        self.task = model.task


#: how a language model with a random table reads a lexical permutation
#: (``--lexinvariant-table``): its own seeded table (invariance in
#: distribution), or that table permuted along the renaming (exact invariance)
TABLES = ("own", "along")


class CheckpointAdapter(_Loaded):
    encodes = True

    def __init__(self, model, path: str | None = None, device: str | None = None, table: str = "own") -> None:
        super().__init__(model, path, device)
        self._timer = _forward_timer(model.network)
        self._start = self._timer[0]
        #: ``own`` or ``along`` (:data:`TABLES`)
        self.table = table

    @property
    def pairs(self) -> bool:
        """Whether each input is an (original, variant) pair of encodings:
        a language model with a random table, read with it permuted along."""
        return self.table == "along" and self.model.along_table

    @property
    def table_read(self) -> str | None:
        """What table a language model reads variants with: ``own``,
        ``along``, or ``learned`` (its table is learned, the same for every
        sequence: there is nothing to permute); None for other models."""
        if self.model.config.head != "lm":
            return None
        return self.table if self.model.along_table else "learned"

    @property
    def forward_seconds(self) -> float:  # type: ignore[override]
        return self._timer[0] - self._start

    @forward_seconds.setter
    def forward_seconds(self, _value) -> None:  # the base class's initial None
        pass

    def info(self) -> dict:
        c = self.model.config
        return {"kind": self.kind, "path": self.path, "arch": c.arch, "size": c.size}

    def _predict(self, inputs: Sequence, batch_size: int, repeat: int = 0) -> list:
        if self.pairs:
            return list(
                self.model.predict_encoded(
                    [v for _, v in inputs], batch_size=batch_size, device=self.device, along=[o for o, _ in inputs]
                )
            )
        return list(self.model.predict_encoded(list(inputs), batch_size=batch_size, device=self.device))


def _forward_timer(network) -> list[float]:
    """Seconds spent in ``network``'s forward passes so far (hooks added
    once per network, so auditing one loaded model many times adds none)."""
    timer = getattr(network, "_invar_forward_seconds", None)
    if timer is None:
        timer = [0.0]
        started: list[float] = []

        def before(_module, _args):
            started.append(time.perf_counter())

        def after(_module, _args, _out):
            timer[0] += time.perf_counter() - started.pop()

        network.register_forward_pre_hook(before)
        network.register_forward_hook(after)
        network._invar_forward_seconds = timer
    return timer


class TextModelAdapter(_Loaded):
    """A loaded model that reads program texts rather than encodings (a
    compiled ALTA program: ``reads_text``, ``task``, ``predict_texts(texts,
    device=…)``, ``info()``, and its own ``oracle(texts)``): it predicts
    from each variant's rendered text."""

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.path, **self.model.info()}

    def call(self, batch: list) -> Sequence:
        return self.model.predict_texts(list(batch), device=self.device)


# --------------------------------------------------------------- TorchScript
class TorchScriptAdapter(Adapter):
    kind = "torchscript"

    def __init__(self, path: str, device: str | None = None) -> None:
        import torch

        super().__init__()
        self.path = path
        try:
            with warnings.catch_warnings():  # deprecated in favour of torch.export, still what reads these files
                warnings.simplefilter("ignore", DeprecationWarning)
                self.module = torch.jit.load(path, map_location=device or "cpu")
        except (RuntimeError, ValueError, OSError) as err:
            raise ModelError(f"not a loadable TorchScript file ({_describe(err)})", path=path)
        self.module.eval()

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.path}

    def call(self, batch: list) -> Sequence:
        import torch

        with torch.inference_mode():
            return self.module(list(batch))


# ------------------------------------------------------------------ callables
class CallableAdapter(Adapter):
    kind = "callable"

    def __init__(self, fn: Callable, name: str, timeout: float | None = None) -> None:
        super().__init__()
        self.fn = fn
        self.name = name
        #: seconds one call may take (a watchdog thread), or None for no limit
        self.timeout = timeout

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.name}

    def _predict(self, inputs: Sequence, batch_size: int, repeat: int = 0) -> list:
        return guarded(self.call, inputs, batch_size, self.timeout, on_fallback=self.fell_back)

    def call(self, batch: list) -> Sequence:
        return self.fn(list(batch))


def import_callable(spec: str) -> Callable:
    """``package.module:function`` imported (the current directory first on
    the path, as ``python -m`` has it). This runs the module's code: the user
    asked for it by naming it."""
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - any error while importing user code, sys.exit() included
        if isinstance(err, ModuleNotFoundError) and _names_itself(module_name, err.name):
            named = _file_spec_error(spec)  # mods.py:f: a file named where its module is expected
            if named is not None:
                raise named
        raise ModelError(f"cannot import {module_name} ({_describe(err)})", path="--model")
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ModelError(f"{module_name} has no {attr}", path="--model")
    if not callable(fn):
        raise ModelError(f"{spec} is not callable", path="--model")
    return fn


def _names_itself(module_name: str, missing: str | None) -> bool:
    """Whether the module not found is ``module_name`` or a package above
    it (not a module that the named one imports)."""
    return missing is not None and (module_name == missing or module_name.startswith(missing + "."))


def _file_spec_error(spec: str) -> ModelError | None:
    """The error of a callable named by its file (``mods.py:f``,
    ``sub/mods.py:f``), located at the file: there is no such file, or it
    is a Python file where a module is expected, and what to write instead
    (the module's name, as imported with the current directory on the
    path: ``mods:f``, ``sub.mods:f``; or with its folder on PYTHONPATH);
    None for any other spec."""
    path, sep, attr = spec.rpartition(":")
    if not sep or not path.endswith(".py") or not attr:
        return None
    file = Path(path)
    if not file.exists():
        return ModelError(
            "no such file (a Python callable is named package.module:function, the module importable from the "
            "current directory or PYTHONPATH)",
            path=path,
        )
    if not file.is_file():
        return None
    return ModelError(f"a Python file, named where a module is expected; {_module_hint(file, attr)}", path=path)


def _module_hint(file: Path, attr: str) -> str:
    """What to write for the existing Python file ``file`` and its callable ``attr``."""
    if not file.stem.isidentifier():
        return f"its name is no module's ({file.stem!r} is not a Python name): rename it, then write MODULE:{attr}"
    try:
        parts = file.resolve().relative_to(Path.cwd().resolve()).with_suffix("").parts
    except ValueError:  # outside the current directory: importable from its own folder
        parts = ()
    if parts and all(part.isidentifier() for part in parts):
        return f"name the module, not its file: drop .py and write {'.'.join(parts)}:{attr}"
    # outside the current directory, or under a folder whose name is no package's (my-dir/mods.py)
    return f"name the module, not its file: {file.stem}:{attr}, with {file.parent} on PYTHONPATH (or run from there)"


# ------------------------------------------------------------------- opening
def is_torchscript(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a TorchScript archive (code), not a plain checkpoint."""
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.split("/", 1)[-1].startswith("code/") or n.endswith("/constants.pkl") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def _http_adapter(spec: str, prompt: str | None, read, answer, requests: dict) -> Adapter:
    """The adapter of an endpoint: its prompt and its reader are required;
    ``requests`` are :class:`~.http.HttpAdapter`'s settings."""
    if prompt is None:
        raise UsageError("an HTTP model needs --prompt TEMPLATE_FILE (a prompt with {program} in it)", path="--prompt")
    if read is None and answer is None:
        raise UsageError("an HTTP model needs --task: the task reads its answers", path="--task")
    return HttpAdapter(spec, prompt, read or _untruncated(answer), **requests)


def open_model(
    model: Any,
    *,
    task: str | None = None,
    device: str | None = None,
    prompt: str | None = None,
    read: Callable[[str, bool], Any] | None = None,
    answer: Callable[[str], Any] | None = None,
    concurrency: int = 8,
    timeout: float | None = None,
    retries: int = 2,
    max_tokens: int = 1024,
    temperature: float = 0.0,
    budget: float = 600.0,
    cache: ReplyCache | None = None,
    seed: int = 0,
    table: str = "own",
) -> Adapter:
    """The adapter for ``model``: a checkpoint or TorchScript path, an
    ``http(s)://`` endpoint, ``hf:DIR`` (a local transformers model: its
    text read by ``read``, or by ``task``'s reader, from ``prompt``, or the
    task's shipped one), ``package.module:function``, or (from Python) a
    loaded :class:`~invar.nn.model.Model` or any callable. ``table``: how a
    language model reads lexical permutations (:data:`TABLES`).

    An endpoint's replies are read by ``read(text, truncated)`` (or by
    ``answer(text)``, a reader that does not ask whether the reply was cut
    short); ``max_tokens``, ``temperature``, ``budget`` (seconds per input)
    and ``cache`` (a :class:`ReplyCache`, or None for none) are its
    requests' (:class:`~.http.HttpAdapter`)."""
    from ..nn.model import Model

    if getattr(model, "reads_text", False):
        _same_task(model, task)
        return TextModelAdapter(model, None, device)
    if isinstance(model, Model):
        _same_task(model, task)
        return CheckpointAdapter(model, None, device, table)
    if callable(model):
        return CallableAdapter(model, getattr(model, "__qualname__", type(model).__name__), timeout)
    spec = str(model)
    if spec.startswith(HF_PREFIX):  # before the check below: a local language model takes --prompt too
        from .hf import open_hf

        return open_hf(
            spec,
            task=task,
            device=device,
            prompt=prompt,
            read=read or (_untruncated(answer) if answer is not None else None),
            max_tokens=max_tokens,
        )
    if spec.startswith(("http://", "https://")):
        requests = dict(
            concurrency=concurrency,
            timeout=timeout,
            retries=retries,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            budget=budget,
            cache=cache,
        )
        return _http_adapter(spec, prompt, read, answer, requests)
    if prompt is not None:
        raise UsageError("--prompt is for models served over HTTP", path="--prompt")
    return _local_adapter(spec, task, device, timeout, table)


def _local_adapter(spec: str, task: str | None, device: str | None, timeout: float | None, table: str) -> Adapter:
    """The adapter of a model named on this machine: ``package.module:function``,
    a TorchScript file or a checkpoint."""
    path = Path(spec)
    if not path.exists() and _CALLABLE.match(spec):
        return CallableAdapter(import_callable(spec), spec, timeout)
    if not path.exists():
        raise _file_spec_error(spec) or ModelError(
            "no such model file (a checkpoint, a TorchScript file, an http:// endpoint or package.module:function)",
            path=spec,
        )
    if is_torchscript(path):
        return TorchScriptAdapter(spec, device)
    from ..checkpoint import load_model

    loaded = load_model(spec, task=task, device=device)
    if getattr(loaded, "reads_text", False):
        return TextModelAdapter(loaded, spec, device)
    return CheckpointAdapter(loaded, spec, device, table)


def _untruncated(answer: Callable[[str], Any]) -> Callable[[str, bool], Any]:
    """A task's ``answer(text)`` as a reader: it reads a reply cut short at
    max_tokens as any other."""

    def read(text: str, truncated: bool) -> Any:
        return answer(text)

    return read


def _same_task(model, task: str | None) -> None:
    if task is not None and task != model.task:
        raise ModelError(f"a model of the {model.task!r} task, not {task!r}")


__all__ = [
    "TABLES",
    "Adapter",
    "Failure",
    "Fate",
    "Reply",
    "CheckpointAdapter",
    "TextModelAdapter",
    "TorchScriptAdapter",
    "CallableAdapter",
    "HttpAdapter",
    "ReplyCache",
    "open_model",
    "import_callable",
    "is_torchscript",
    "guarded",
]
