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
:class:`Failure` saying why there is none. A batch that raises (anything but
an interrupt), returns something other than a list of predictions, returns
the wrong number of them or outlives its timeout is retried one input at a
time, so the inputs that fail are found and every other one still gets its
prediction. A request to an endpoint that fails in transit (refused, reset,
timed out, cut short, not HTTP, not JSON, a 408, 429 or 5xx status) is tried
again; one whose reply is final and unusable is that input's error.
"""

from __future__ import annotations

import collections.abc
import http.client
import importlib
import json
import os
import re
import sys
import threading
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


def guarded(call: Callable[[list], Sequence], inputs: Sequence, batch_size: int,
            timeout: float | None = None) -> list:
    """``call`` on batches of at most ``batch_size`` inputs; a batch that
    raises (any exception but KeyboardInterrupt: a model's ``sys.exit()`` is
    its error), answers with something other than a list of predictions or
    with the wrong number of them, or takes more than ``timeout`` seconds is
    retried one input at a time, and an input that still fails gets a
    :class:`Failure`."""
    out: list = []
    for lo in range(0, len(inputs), batch_size):
        batch = list(inputs[lo: lo + batch_size])
        try:
            got = _as_list(_within(call, batch, timeout))
            if len(got) != len(batch):
                raise _Count(len(got), len(batch))
            out += got
            continue
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # noqa: BLE001 - the model is user code: anything may go wrong
            if len(batch) == 1:
                out.append(Failure(_describe(err)))
                continue
        for x in batch:
            try:
                got = _as_list(_within(call, [x], timeout))
                out.append(got[0] if len(got) == 1 else Failure(_describe(_Count(len(got), 1))))
            except KeyboardInterrupt:
                raise
            except BaseException as err:  # noqa: BLE001
                out.append(Failure(_describe(err)))
    return out


class _Count(Exception):
    def __init__(self, got: int, wanted: int) -> None:
        super().__init__(f"returned {got} predictions for {wanted} program{'s' if wanted != 1 else ''}")


class _Refused(Exception):
    """A model's answer that is not a list of predictions."""


class _TimedOut(Exception):
    """A model call that outlived its timeout."""


def _within(call: Callable[[list], Any], batch: list, timeout: float | None):
    """``call(batch)``, in a watchdog thread when there is a ``timeout``: a
    call that has not returned after ``timeout`` seconds raises
    :class:`_TimedOut` here, and its thread is abandoned (Python cannot stop
    a thread; it is a daemon, so it does not keep the process alive)."""
    if timeout is None:
        return call(batch)
    box: dict = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call(batch)
        except BaseException as err:  # noqa: BLE001 - handed to the caller, which decides
            box["error"] = err
        finally:
            done.set()

    threading.Thread(target=run, name="invar-model-call", daemon=True).start()
    if not done.wait(timeout):
        raise _TimedOut(f"timed out: no answer in {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _describe(err: BaseException) -> str:
    try:
        if isinstance(err, (_Count, _Refused, _TimedOut)):
            return str(err)
        text = str(err).strip().splitlines()
    except Exception:  # noqa: BLE001 - a user exception whose __str__ fails
        text = []
    return f"{type(err).__name__}: {text[0][:300]}" if text else type(err).__name__


def _a(value: Any) -> str:
    """``a dict``, ``a generator``, ``None``: what a value is, for messages."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _as_list(value) -> list:
    """A model's answer as a list of predictions: a list or tuple (or a
    sequence such as a range or deque), a tensor or an array (one entry per
    program). Anything else is refused, not read: a dict would be read as its
    keys, a set in no order, a string as its characters, a generator once."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a tensor
        value = value.detach().cpu().tolist()
    elif hasattr(value, "tolist") and not isinstance(value, (list, tuple)):  # numpy, pandas
        try:
            value = value.tolist()
        except Exception:  # noqa: BLE001 - user objects with a tolist of their own
            raise _Refused(f"returned {_a(value)}, not a list of predictions (one per program)") from None
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, collections.abc.Sequence):
        raise _Refused(f"returned {_a(value)}, not a list of predictions (one per program)")
    return list(value)


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

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
        if self.pairs:
            return list(self.model.predict_encoded([v for _, v in inputs], batch_size=batch_size, device=self.device,
                                                   along=[o for o, _ in inputs]))
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

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
        return guarded(self.call, inputs, batch_size, self.timeout)

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
#: the most bytes a reply may hold (a runaway endpoint does not fill memory)
MAX_REPLY = 16 * 2 ** 20
#: the longest wait a Retry-After header is allowed to ask for, in seconds
MAX_RETRY_AFTER = 60.0


class _Retry(Exception):
    """A request that failed in a way another try may cure."""

    def __init__(self, message: str, after: float | None = None) -> None:
        super().__init__(message)
        #: seconds the server asked to wait (Retry-After), or None
        self.after = after


class _Final(Exception):
    """A reply that another try would not change."""


class HttpAdapter(Adapter):
    """An OpenAI-compatible chat-completions endpoint."""

    kind = "http"

    def __init__(self, url: str, template: str, answer: Callable[[str], Any], *, concurrency: int = 8,
                 timeout: float | None = 60.0, retries: int = 2, max_tokens: int = 64, seed: int = 0,
                 backoff: float = 0.25) -> None:
        super().__init__()
        base, _, name = url.partition("#")
        self.base = base.rstrip("/")
        if "{program}" not in template:
            raise UsageError("the prompt template has no {program} placeholder", path="--prompt")
        self.template = template
        self.answer = answer
        self.concurrency = max(1, concurrency)
        self.timeout = 60.0 if timeout is None else timeout
        self.retries = max(0, retries)
        self.max_tokens = max_tokens
        self.seed = seed
        #: seconds before the first retry; doubled at each next one (at most 8 s)
        self.backoff = backoff
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
            data = self._fetch(request)
            return str(data["data"][0]["id"])
        except (_Retry, _Final) as err:
            why = str(err)
        except Exception as err:  # noqa: BLE001 - a reply of any shape
            why = f"no data[0].id in the reply ({_describe(err)})" if isinstance(
                err, (KeyError, IndexError, TypeError)) else _describe(err)
        raise ModelError(f"cannot list the endpoint's models ({why}); name one as URL#MODEL", path=self.base)

    def _predict(self, inputs: Sequence, batch_size: int) -> list:
        pool = ThreadPoolExecutor(self.concurrency)
        try:
            return list(pool.map(self._one, inputs))
        finally:  # an interrupt does not wait for the requests in flight
            pool.shutdown(wait=False, cancel_futures=True)

    def _one(self, text: str):
        try:
            return self._ask(text)
        except Exception as err:  # noqa: BLE001 - whatever the endpoint does is this input's error, not the audit's
            return Failure(f"unexpected reply: {_describe(err)}")

    def _ask(self, text: str):
        body = json.dumps({
            "model": self.name, "temperature": 0, "seed": self.seed, "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": self.template.replace("{program}", text)}],
        }).encode()
        last = ""
        wait = self.backoff
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(wait)
                wait = min(8.0, wait * 2)
            request = urllib.request.Request(self.base + "/chat/completions", data=body, headers=self._headers())
            try:
                data = self._fetch(request)
            except _Final as err:
                return Failure(str(err))
            except _Retry as err:
                last = str(err)
                if err.after is not None:
                    wait = max(wait, min(err.after, MAX_RETRY_AFTER))
                continue
            return self._read(data)
        tries = self.retries + 1
        return Failure(f"{last} (after {tries} tr{'ies' if tries > 1 else 'y'}, {self.timeout:g} s each)")

    def _fetch(self, request: urllib.request.Request):
        """The reply to ``request`` as JSON; :class:`_Retry` when another try
        may do better, :class:`_Final` when it would not."""
        deadline = time.monotonic() + self.timeout
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = _read_reply(response, deadline)
        except urllib.error.HTTPError as err:
            message = f"HTTP {err.code} {err.reason}{_error_detail(err)}"
            if err.code in (408, 429) or err.code >= 500:
                raise _Retry(message, _retry_after(err.headers))
            raise _Final(message)  # the request itself is refused: another try gets the same
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            raise _Retry(_transport(err))
        if not raw.strip():
            raise _Retry("the reply is empty")
        try:
            return json.loads(raw)
        except (ValueError, RecursionError) as err:  # not JSON, not UTF-8, nested too deep
            raise _Retry(f"the reply is not JSON ({_describe(err)}; it starts {raw[:40]!r})")

    def _read(self, data):
        """The prediction in a chat completion, or a Failure saying what is wrong with it."""
        if isinstance(data, dict) and "error" in data and "choices" not in data:
            return Failure(f"the endpoint answered with an error: {_error_text(data['error'])}")
        try:
            message = data["choices"][0]["message"]
            content = message["content"]
        except (KeyError, IndexError, TypeError):
            return Failure(f"the reply is not a chat completion: no choices[0].message.content in {_shape(data)}")
        text = _content_text(content)
        if isinstance(text, Failure):
            return text
        try:
            return self.answer(text)
        except ValueError as err:
            return Failure(str(err))


def _read_reply(response, deadline: float) -> bytes:
    """The body of ``response``, whole: IncompleteRead when it ends before its
    Content-Length (or its last chunk), TimeoutError when it is still coming
    at ``deadline`` (a server that sends a byte at a time), _Final beyond
    :data:`MAX_REPLY` bytes."""
    chunks, size = [], 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("timed out")
        piece = response.read1(65536)
        if not piece:
            break
        size += len(piece)
        if size > MAX_REPLY:
            raise _Final(f"the reply is longer than {MAX_REPLY:,} bytes")
        chunks.append(piece)
    left = getattr(response, "length", None)
    if left:  # read1 ends quietly where the connection does
        raise http.client.IncompleteRead(b"".join(chunks), left)
    return b"".join(chunks)


def _transport(err: BaseException) -> str:
    """A failed exchange in words."""
    reason = getattr(err, "reason", None) if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, str):
        return "timed out" if "timed out" in reason else reason
    if reason is None:
        reason = err
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return "timed out"
    if isinstance(reason, http.client.IncompleteRead):
        if reason.expected is None:  # a chunk size line missing or garbled
            return "the reply ended early (its chunked body is cut short or garbled)"
        return f"the reply ended early ({len(reason.partial)} bytes of its body read, {reason.expected} more expected)"
    if isinstance(reason, http.client.RemoteDisconnected):
        return "the server closed the connection without a reply"
    if isinstance(reason, http.client.BadStatusLine):
        return f"the reply is not HTTP (it starts {str(reason)[:40]!r})"
    if isinstance(reason, http.client.LineTooLong):
        return "the reply is not HTTP (a header line too long)"
    if isinstance(reason, http.client.HTTPException):
        return f"the reply is not valid HTTP ({_describe(reason)})"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, ConnectionResetError):
        return "connection reset"
    if isinstance(reason, OSError) and reason.strerror:
        return f"{type(reason).__name__}: {reason.strerror}"
    return _describe(reason)


def _retry_after(headers) -> float | None:
    """Seconds a Retry-After header asks for (a date is not read)."""
    try:
        value = float(headers.get("Retry-After", ""))
    except (TypeError, ValueError, AttributeError):
        return None
    return value if value >= 0 else None


def _error_detail(err: urllib.error.HTTPError) -> str:
    """``: message`` from an error reply's body (``{"error": {"message": …}}``,
    as OpenAI-compatible servers write it), or nothing."""
    try:
        data = json.loads(err.read(65536))
    except Exception:  # noqa: BLE001 - a body of any kind, or none
        return ""
    if isinstance(data, dict):
        for key in ("error", "detail", "message"):
            if key in data:
                return f": {_error_text(data[key])}"
    return ""


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error).strip().splitlines()[0][:300] if str(error).strip() else "(no message)"


def _shape(data: Any) -> str:
    """What a JSON value holds, briefly: ``an object with keys id, choices``."""
    if isinstance(data, dict):
        keys = ", ".join(list(map(str, data))[:6])
        return f"an object with keys {keys}" if keys else "an empty object"
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(type(data), "a number")


def _content_text(content: Any):
    """The text of a message's ``content``: a string; a number as written;
    the text parts of a list of parts (``[{"type": "text", "text": …}]``, as
    some servers send it) joined; else a :class:`Failure`."""
    if isinstance(content, str):
        return content
    if content is None:
        return Failure("the reply's message has no content (null)")
    if isinstance(content, bool):
        return Failure(f"the reply's content is {str(content).lower()}, not text")
    if isinstance(content, (int, float)):
        return repr(content)
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        texts = [p if isinstance(p, str) else p["text"] for p in content
                 if isinstance(p, str) or isinstance(p, dict) and isinstance(p.get("text"), str)
                 and p.get("type", "text") in ("text", "output_text")]
        if texts:
            return "".join(texts)
        return Failure(f"the reply's content has no text part ({len(content)} part{'s' if len(content) != 1 else ''})")
    return Failure(f"the reply's content is {_shape(content)}, not text")


# ------------------------------------------------------------------- opening
def is_torchscript(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a TorchScript archive (code), not a plain checkpoint."""
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.split("/", 1)[-1].startswith("code/") or n.endswith("/constants.pkl") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def open_model(model: Any, *, task: str | None = None, device: str | None = None, prompt: str | None = None,
               answer: Callable[[str], Any] | None = None, concurrency: int = 8, timeout: float | None = None,
               retries: int = 2, seed: int = 0, table: str = "own") -> Adapter:
    """The adapter for ``model``: a checkpoint or TorchScript path, an
    ``http(s)://`` endpoint, ``package.module:function``, or (from Python) a
    loaded :class:`~invar.nn.model.Model` or any callable. ``table``: how a
    language model reads lexical permutations (:data:`TABLES`)."""
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
        return CallableAdapter(import_callable(spec), spec, timeout)
    if not path.exists():
        raise ModelError("no such model file (a checkpoint, a TorchScript file, an http:// endpoint or "
                         "package.module:function)", path=spec)
    if is_torchscript(path):
        return TorchScriptAdapter(spec, device)
    from ..checkpoint import load_model

    loaded = load_model(spec, task=task, device=device)
    if getattr(loaded, "reads_text", False):
        return TextModelAdapter(loaded, spec, device)
    return CheckpointAdapter(loaded, spec, device, table)


def _same_task(model, task: str | None) -> None:
    if task is not None and task != model.task:
        raise ModelError(f"a model of the {model.task!r} task, not {task!r}")


__all__ = ["TABLES", "Adapter", "Failure", "CheckpointAdapter", "TextModelAdapter", "TorchScriptAdapter", "CallableAdapter", "HttpAdapter",
           "open_model", "import_callable", "is_torchscript", "guarded"]
