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
  answer read by the task (:attr:`invar.tasks.Task.answer`); bounded
  concurrency, retries and a request timeout.

Every adapter returns one outcome per input: the prediction, or a
:class:`Failure` saying why there is none. A batch that raises or returns the
wrong number of predictions is retried one input at a time, so the inputs
that fail are found and every other one still gets its prediction.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import ModelError, UsageError

_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class Failure:
    """Why an input got no prediction."""

    message: str


class Adapter:
    """One model as the audit sees it."""

    #: ``checkpoint``, ``torchscript``, ``callable`` or ``http``
    kind = ""
    #: the task the model fixes (checkpoints), else None
    task: str | None = None
    #: True when the model reads encodings (variants by id remap), else texts
    encodes = False

    def __init__(self) -> None:
        #: seconds spent in the model (the call, or for checkpoints collate + forward)
        self.model_seconds = 0.0
        #: seconds spent in the network's forward pass alone (checkpoints), else None
        self.forward_seconds: float | None = None

    def info(self) -> dict:
        raise NotImplementedError

    def predict(self, inputs: Sequence, batch_size: int) -> list:
        """One prediction or :class:`Failure` per input."""
        t = time.perf_counter()
        try:
            return self._predict(inputs, batch_size)
        finally:
            self.model_seconds += time.perf_counter() - t

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
        return guarded(self.call, inputs, batch_size)

    def call(self, batch: list) -> Sequence:
        raise NotImplementedError


def guarded(call: Callable[[list], Sequence], inputs: Sequence, batch_size: int) -> list:
    """``call`` on batches of at most ``batch_size`` inputs; a batch that
    raises or answers with the wrong number of predictions is retried one
    input at a time, and an input that still fails gets a :class:`Failure`."""
    out: list = []
    for lo in range(0, len(inputs), batch_size):
        batch = list(inputs[lo: lo + batch_size])
        try:
            got = _as_list(call(batch))
            if len(got) != len(batch):
                raise _Count(len(got), len(batch))
            out += got
            continue
        except Exception as err:  # noqa: BLE001 - the model is user code: anything may go wrong
            if len(batch) == 1:
                out.append(Failure(_describe(err)))
                continue
        for x in batch:
            try:
                got = _as_list(call([x]))
                out.append(got[0] if len(got) == 1 else Failure(_describe(_Count(len(got), 1))))
            except Exception as err:  # noqa: BLE001
                out.append(Failure(_describe(err)))
    return out


class _Count(Exception):
    def __init__(self, got: int, wanted: int) -> None:
        super().__init__(f"returned {got} predictions for {wanted} program{'s' if wanted != 1 else ''}")


def _describe(err: BaseException) -> str:
    if isinstance(err, _Count):
        return str(err)
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:300]}" if text else type(err).__name__


def _as_list(value) -> list:
    if hasattr(value, "detach"):  # a tensor
        value = value.detach().cpu().tolist()
    elif hasattr(value, "tolist"):  # a numpy array
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"returned {type(value).__name__}, not a list of predictions")
    return list(value)


# --------------------------------------------------------------- checkpoints
class CheckpointAdapter(Adapter):
    kind = "checkpoint"
    encodes = True

    def __init__(self, model, path: str | None = None, device: str | None = None) -> None:
        super().__init__()
        self.model = model
        self.path = path
        self.device = device
        self.task = model.task
        self._timer = _forward_timer(model.network)
        self._start = self._timer[0]

    @property
    def forward_seconds(self) -> float:  # type: ignore[override]
        return self._timer[0] - self._start

    @forward_seconds.setter
    def forward_seconds(self, _value) -> None:  # the base class's initial None
        pass

    def info(self) -> dict:
        c = self.model.config
        return {"kind": self.kind, "path": self.path, "arch": c.arch, "size": c.size}

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
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

    def __init__(self, fn: Callable, name: str) -> None:
        super().__init__()
        self.fn = fn
        self.name = name

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.name}

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
    except Exception as err:  # noqa: BLE001 - any error while importing user code
        raise ModelError(f"cannot import {module_name} ({_describe(err)})", path="--model")
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ModelError(f"{module_name} has no {attr}", path="--model")
    if not callable(fn):
        raise ModelError(f"{spec} is not callable", path="--model")
    return fn


# ------------------------------------------------------------ HTTP endpoints
class HttpAdapter(Adapter):
    """An OpenAI-compatible chat-completions endpoint."""

    kind = "http"

    def __init__(self, url: str, template: str, answer: Callable[[str], Any], *, concurrency: int = 8,
                 timeout: float = 60.0, retries: int = 2, max_tokens: int = 64, seed: int = 0) -> None:
        super().__init__()
        base, _, name = url.partition("#")
        self.base = base.rstrip("/")
        if "{program}" not in template:
            raise UsageError("the prompt template has no {program} placeholder", path="--prompt")
        self.template = template
        self.answer = answer
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.retries = max(0, retries)
        self.max_tokens = max_tokens
        self.seed = seed
        self.name = name or self._served_model()

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.base, "name": self.name}

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get("OPENAI_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _served_model(self) -> str:
        """The first model the endpoint lists (``GET /models``)."""
        request = urllib.request.Request(self.base + "/models", headers=self._headers())
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data = json.loads(response.read())
            return str(data["data"][0]["id"])
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as err:
            raise ModelError(f"cannot list the endpoint's models ({_describe(err)}); name one as URL#MODEL",
                             path=self.base)

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
        pool = ThreadPoolExecutor(self.concurrency)
        try:
            return list(pool.map(self._one, inputs))
        finally:  # an interrupt does not wait for the requests in flight
            pool.shutdown(wait=False, cancel_futures=True)

    def _one(self, text: str):
        body = json.dumps({
            "model": self.name, "temperature": 0, "seed": self.seed, "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": self.template.replace("{program}", text)}],
        }).encode()
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(8.0, 0.25 * 2 ** attempt))
            request = urllib.request.Request(self.base + "/chat/completions", data=body, headers=self._headers())
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = json.loads(response.read())
            except urllib.error.HTTPError as err:
                last = f"HTTP {err.code} {err.reason}"
                if err.code < 500 and err.code != 429:
                    return Failure(last)  # the request itself is wrong: another try gives the same
                continue
            except (urllib.error.URLError, OSError) as err:
                reason = getattr(err, "reason", err)
                last = "timed out" if "timed out" in str(reason) else f"{type(reason).__name__}: {reason}"
                continue
            except ValueError as err:
                return Failure(f"the endpoint's reply is not JSON ({err})")
            try:
                content = data["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError):
                return Failure("the endpoint's reply has no choices[0].message.content")
            try:
                return self.answer(content or "")
            except ValueError as err:
                return Failure(str(err))
        return Failure(f"{last} (after {self.retries + 1} tries, {self.timeout:g} s each)")


# ------------------------------------------------------------------- opening
def is_torchscript(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a TorchScript archive (code), not a plain checkpoint."""
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.split("/", 1)[-1].startswith("code/") or n.endswith("/constants.pkl") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def open_model(model: Any, *, task: str | None = None, device: str | None = None, prompt: str | None = None,
               answer: Callable[[str], Any] | None = None, concurrency: int = 8, timeout: float = 60.0,
               retries: int = 2, seed: int = 0) -> Adapter:
    """The adapter for ``model``: a checkpoint or TorchScript path, an
    ``http(s)://`` endpoint, ``package.module:function``, or (from Python) a
    loaded :class:`~invar.nn.model.Model` or any callable."""
    from ..nn.model import Model

    if isinstance(model, Model):
        if task is not None and task != model.task:
            raise ModelError(f"a model of the {model.task!r} task, not {task!r}")
        return CheckpointAdapter(model, None, device)
    if callable(model):
        return CallableAdapter(model, getattr(model, "__qualname__", type(model).__name__))
    spec = str(model)
    if spec.startswith(("http://", "https://")):
        if prompt is None:
            raise UsageError("an HTTP model needs --prompt TEMPLATE_FILE (a prompt with {program} in it)",
                             path="--prompt")
        if answer is None:
            raise UsageError("an HTTP model needs --task: the task reads its answers", path="--task")
        return HttpAdapter(spec, prompt, answer, concurrency=concurrency, timeout=timeout, retries=retries,
                           seed=seed)
    if prompt is not None:
        raise UsageError("--prompt is for models served over HTTP", path="--prompt")
    path = Path(spec)
    if not path.exists() and _CALLABLE.match(spec):
        return CallableAdapter(import_callable(spec), spec)
    if not path.exists():
        raise ModelError("no such model file (a checkpoint, a TorchScript file, an http:// endpoint or "
                         "package.module:function)", path=spec)
    if is_torchscript(path):
        return TorchScriptAdapter(spec, device)
    from ..checkpoint import load_model

    return CheckpointAdapter(load_model(spec, task=task, device=device), spec, device)


__all__ = ["Adapter", "Failure", "CheckpointAdapter", "TorchScriptAdapter", "CallableAdapter", "HttpAdapter",
           "open_model", "import_callable", "is_torchscript", "guarded"]
