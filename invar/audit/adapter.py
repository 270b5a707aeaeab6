"""What every model adapter is, and what it gives back for one input.

The audit sees a model as an :class:`Adapter`: ``predict(inputs, batch_size,
repeat)`` returns one outcome per input, either the prediction (a plain value,
or a :class:`Reply` when the model answered in text that a reader read) or a
:class:`Failure` saying why there is none. A model served over HTTP also says
what happened to the request (:class:`Fate`). :func:`guarded` is the batching
that models called in this process share: a batch that fails is retried one
input at a time, so only the inputs that fail fail; the adapter counts such
batches and keeps the first one's reason (:attr:`Adapter.fallbacks`), which
the report's notes and the command's standard error then say.

These live apart from :mod:`.models` (which re-exports them) so that
:mod:`.http` can build on them while :mod:`.models` opens HTTP endpoints: an
import circle otherwise, which the house forbids.
"""

from __future__ import annotations

import collections.abc
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence


@dataclass(frozen=True)
class Fate:
    """What happened to the request of one input (HTTP models; None for the others)."""

    #: requests sent for this input (0 when it came from the reply cache)
    tries: int
    #: of them, those answered 429, or 503 with Retry-After: they never use up ``--retries``
    rate_limited: int
    #: seconds spent waiting before retries
    waited: float
    #: the reply came from the reply cache
    cached: bool
    #: the model the reply says answered (its ``model``, and its ``system_fingerprint`` in
    #: parentheses where it gives one); None where it says neither
    served: str | None = None


@dataclass(frozen=True)
class Failure:
    """Why an input got no prediction."""

    message: str
    #: what happened to its request (HTTP models), else None
    fate: Fate | None = None


@dataclass(frozen=True)
class Reply:
    """An answer read from a model's text reply."""

    #: the prediction
    value: Any
    #: distinct candidate answers the reply held (as the reader counted them)
    candidates: int = 1
    #: what the reader read the value from, when it says
    segment: str | None = None
    #: what happened to the request (HTTP models), else None
    fate: Fate | None = None


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
        #: batches :func:`guarded` retried one input at a time, and why the first was
        self.fallbacks = 0
        self.fallback_reason: str | None = None

    def fell_back(self, reason: str) -> None:
        """A batch was retried one input at a time (``reason``: what it did)."""
        self.fallbacks += 1
        if self.fallback_reason is None:
            self.fallback_reason = reason

    def info(self) -> dict:
        raise NotImplementedError

    def predict(self, inputs: Sequence, batch_size: int, repeat: int = 0) -> list:
        """One prediction, :class:`Reply` or :class:`Failure` per input.
        ``repeat`` numbers the times the audit asks the same inputs again (to
        measure a sampling model's noise floor): a model that samples is
        asked afresh (HTTP: the request's seed is the audit's seed plus
        ``repeat``); the others answer as they would anyway."""
        t = time.perf_counter()
        try:
            return self._predict(inputs, batch_size, repeat)
        finally:
            self.model_seconds += time.perf_counter() - t

    def _predict(self, inputs: Sequence, batch_size: int, repeat: int = 0) -> list:
        return guarded(self.call, inputs, batch_size, on_fallback=self.fell_back)

    def call(self, batch: list) -> Sequence:
        raise NotImplementedError


def guarded(
    call: Callable[[list], Sequence],
    inputs: Sequence,
    batch_size: int,
    timeout: float | None = None,
    on_fallback: Callable[[str], None] | None = None,
) -> list:
    """``call`` on batches of at most ``batch_size`` inputs; a batch that
    raises (any exception but KeyboardInterrupt: a model's ``sys.exit()`` is
    its error), answers with something other than a list of predictions or
    with the wrong number of them, or takes more than ``timeout`` seconds is
    retried one input at a time (``on_fallback`` is told why, as
    ``returned 1 prediction for 64 programs``), and an input that still
    fails gets a :class:`Failure`."""
    out: list = []
    for lo in range(0, len(inputs), batch_size):
        batch = list(inputs[lo : lo + batch_size])
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
            if on_fallback is not None:
                why = str(err) if isinstance(err, _Count) else f"failed on {len(batch)} programs ({_describe(err)})"
                on_fallback(why)
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
        super().__init__(
            f"returned {got} prediction{'s' if got != 1 else ''} for {wanted} program{'s' if wanted != 1 else ''}"
        )


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
