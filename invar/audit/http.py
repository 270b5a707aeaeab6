"""Models served behind an OpenAI-compatible chat-completions endpoint
(``http://HOST:PORT/v1``, as vLLM, llama.cpp and hosted services serve them).

One chat completion per program: the prompt is a template with ``{program}``
in it; the request asks for no stream, ``max_tokens``, ``temperature`` and a
seed, which is the audit's seed plus the repeat index (so that a repeat is a
fresh request, not the same one again). The reply is read as JSON, or as
server-sent events when the server streams anyway; its text goes to a reader
injected by the caller (``read(text, truncated)``, ``truncated`` when the
model stopped at ``max_tokens`` or the endpoint's content filter stopped
it), and reasoning fields are never the answer. The answer is the choice
with index 0 (:func:`_choice`); a refusal (a null content beside OpenAI's
``refusal``) is that input's error, saying what the model said.

Nothing is lost to the endpoint's weather:

* a request that fails in transit (refused, reset, timed out, cut short, an
  event stream that stops before a finish_reason or ``[DONE]``, not HTTP,
  not JSON, a 408 or 5xx status) is tried again, up to ``retries`` more
  times; a reply that another try would not change is that input's error;
* a rate limit (a 429, or a 503 with Retry-After) never uses up a retry: the
  input waits what Retry-After says (seconds or an HTTP date), else an
  exponential backoff with a jitter that is a function of the request, and
  the number of requests in flight backs off (:class:`_Limiter`);
* every input has a time budget, from its first send to its answer, waits
  included; past it, the input's error says so.

Usable replies are kept in a :class:`~.replies.ReplyCache` when one is given,
so a re-run with the same settings sends nothing; and an input whose request
is already in flight for another input waits for that reply rather than
sending it again (it counts as answered from the cache), so what a run
sends does not depend on how its threads were scheduled. A failure is
shared no more than it is cached: each input that waited asks in its turn.
"""

from __future__ import annotations

import email.utils
import functools
import hashlib
import heapq
import http.client
import itertools
import json
import math
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from ..errors import ModelError, UsageError
from .adapter import Adapter, Failure, Fate, Reply, _describe
from .replies import ReplyCache

#: the most bytes a reply may hold (a runaway endpoint does not fill memory)
MAX_REPLY = 16 * 2**20
#: the longest wait a Retry-After header is allowed to ask for, in seconds
MAX_RETRY_AFTER = 60.0
#: the longest wait between two tries that the client chooses itself, in seconds
MAX_BACKOFF = 8.0


class _Retry(Exception):
    """A request that failed in a way another try may cure."""

    def __init__(self, message: str, after: float | None = None, limited: bool = False) -> None:
        super().__init__(message)
        #: seconds the server asked to wait (Retry-After), or None
        self.after = after
        #: a rate limit (429, or 503 with Retry-After): it does not use up a retry
        self.limited = limited


class _Final(Exception):
    """A reply that another try would not change."""


class _OutOfTime(Exception):
    """The input's time budget ran out before a request could be sent."""


class _Limiter:
    """How many requests the adapter's threads may have in flight at once.

    At most ``ceiling``. A rate-limited reply to a request sent since the
    last cut halves the limit (at least 1); replies to requests sent before
    it were already answered under the old limit and do not cut again, so
    one burst of 429s is one cut, as TCP cuts once per window. After as many
    successes in a row as the limit, the limit grows by one, back up to the
    ceiling.
    """

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        #: requests allowed in flight now
        self.limit = ceiling
        #: the lowest the limit has been
        self.lowest = ceiling
        self._in_flight = 0
        self._cuts = 0
        self._streak = 0
        self._changed = threading.Condition()

    def acquire(self, timeout: float | None) -> int | None:
        """Wait for a free slot (at most ``timeout`` seconds); the number of
        cuts so far (to give back to :meth:`release`), or None when none came free."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._in_flight < self.limit, timeout):
                return None
            self._in_flight += 1
            return self._cuts

    def release(self, cuts: int, outcome: str) -> None:
        """Free a slot; ``outcome``: ``answered`` (the server answered:
        a success), ``limited`` (a rate limit) or ``failed`` (in transit:
        says nothing about the rate)."""
        with self._changed:
            self._in_flight -= 1
            if outcome == "limited":
                self._streak = 0
                if cuts == self._cuts:
                    self.limit = max(1, self.limit // 2)
                    self.lowest = min(self.lowest, self.limit)
                    self._cuts += 1
            elif outcome == "answered":
                self._streak += 1
                if self._streak >= self.limit and self.limit < self.ceiling:
                    self.limit += 1
                    self._streak = 0
            self._changed.notify_all()


@dataclass
class _Progress:
    """One input's requests so far (one thread's; mutable)."""

    #: requests sent
    tries: int = 0
    #: of them, the tries that count against ``retries`` (not rate-limited)
    counted: int = 0
    rate_limited: int = 0
    #: seconds slept before retries
    waited: float = 0.0
    #: time.monotonic() past which the input's budget is spent; set at the first send
    deadline: float | None = None
    #: the last failure, in words
    last: str = ""
    #: set when the audit stops waiting for this input (an interrupt): no more sleeping before retries
    stop: threading.Event = field(default_factory=threading.Event)

    def fate(self, cached: bool = False) -> Fate:
        return Fate(tries=self.tries, rate_limited=self.rate_limited, waited=self.waited, cached=cached)

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


class _Flight:
    """One request being asked for the inputs that share it: ``done`` is set
    when the asking ends, ``reply`` then holds its usable reply (JSON), or
    None (a failure, or a reply the cache would not keep: each waiting input
    asks in its turn)."""

    __slots__ = ("done", "reply")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.reply: Any = None


#: the fate of an input answered without a request of its own
CACHED = Fate(tries=0, rate_limited=0, waited=0.0, cached=True)

#: the counters of :meth:`HttpAdapter.requests`
COUNTERS = ("inputs", "sent", "from_cache", "retries", "rate_limited", "waited", "failed")


class HttpAdapter(Adapter):
    """An OpenAI-compatible chat-completions endpoint. ``read(text,
    truncated)`` reads an answer from a reply's text: a plain value, or an
    object with ``.value``, ``.candidates`` and ``.segment``; a ValueError
    refuses the reply (that input's error)."""

    kind = "http"

    def __init__(
        self,
        url: str,
        template: str,
        read: Callable[[str, bool], Any],
        *,
        concurrency: int = 8,
        timeout: float | None = 60.0,
        retries: int = 2,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        budget: float = 600.0,
        cache: ReplyCache | None = None,
        backoff: float = 0.25,
    ) -> None:
        super().__init__()
        base, _, name = url.partition("#")
        self.base = base.rstrip("/")
        try:
            where = urllib.parse.urlsplit(self.base)
            where.port  # a port that is not a number is found here
        except ValueError as err:
            raise UsageError(f"{url!r} is not a URL ({err})", path="--model") from None
        if not where.hostname:
            raise UsageError(f"{url!r} names no host", path="--model")
        if "{program}" not in template:
            raise UsageError("the prompt template has no {program} placeholder", path="--prompt")
        self.template = template
        self.read = read
        self.concurrency = max(1, concurrency)
        #: seconds one request may take, its reply included
        self.timeout = 60.0 if timeout is None else timeout
        self.retries = max(0, retries)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        #: seconds one input may take from its first send to its answer, waits included
        self.budget = budget
        self.cache = cache
        #: seconds before the first retry; doubled at each next one (at most 8 s)
        self.backoff = backoff
        self._limiter = _Limiter(self.concurrency)
        #: keys being asked now, each with its flight (the inputs with that request wait on it)
        self._asking: dict[str, _Flight] = {}
        self._asking_lock = threading.Lock()
        self._counts = dict.fromkeys(COUNTERS, 0)
        self._counts["waited"] = 0.0
        self._counting = threading.Lock()
        self.name = name or self._served_model()

    def info(self) -> dict:
        return {"kind": self.kind, "path": self.base, "name": self.name}

    def requests(self) -> dict:
        """What the adapter's requests came to over its life: ``inputs``
        asked, requests ``sent``, inputs answered ``from_cache``, ``retries``
        (requests after an input's first), ``rate_limited`` replies, seconds
        ``waited`` before retries, ``failed`` inputs and the
        ``lowest_concurrency`` the rate limits brought the requests in flight to."""
        with self._counting:
            counts = dict(self._counts)
        return {**counts, "lowest_concurrency": self._limiter.lowest}

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
            data = self._fetch(request, self.timeout)
            return str(data["data"][0]["id"])
        except (_Retry, _Final) as err:
            why = str(err)
        except Exception as err:  # noqa: BLE001 - a reply of any shape
            why = (
                f"no data[0].id in the reply ({_describe(err)})"
                if isinstance(err, (KeyError, IndexError, TypeError))
                else _describe(err)
            )
        raise ModelError(f"cannot list the endpoint's models ({why}); name one as URL#MODEL", path=self.base)

    # ------------------------------------------------------------ one input
    def _predict(self, inputs: Sequence, batch_size: int, repeat: int = 0) -> list:
        pool = ThreadPoolExecutor(self.concurrency)
        stop = threading.Event()
        try:
            return list(pool.map(lambda text: self._one(text, repeat, stop), inputs))
        finally:  # an interrupt does not wait for the requests in flight, nor sleep out a wait before a retry
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            if self.cache is not None:  # the replies so far are kept, whatever ends the batch
                self.cache.flush()

    def _one(self, text: str, repeat: int, stop: threading.Event | None = None):
        body = self._body(text, repeat)
        key = self._key(body, repeat)
        progress = _Progress(stop=stop or threading.Event())
        try:
            outcome = self._answer(body, key, progress)
        except Exception as err:  # noqa: BLE001 - whatever the endpoint does is this input's error, not the audit's
            outcome = Failure(f"unexpected reply: {_describe(err)}", progress.fate())
        self._tally(outcome)
        return outcome

    def _body(self, text: str, repeat: int) -> bytes:
        return json.dumps(
            {
                "model": self.name,
                "messages": [{"role": "user", "content": self.template.replace("{program}", text)}],
                "stream": False,
                "max_tokens": self.max_tokens,
                "temperature": self.temperature,
                "seed": self.seed + repeat,
            }
        ).encode()

    def _key(self, body: bytes, repeat: int) -> str:
        """The reply cache's key: the endpoint, the model, the request as sent and the repeat index."""
        what = json.dumps([self.base, self.name, body.decode(), repeat])
        return hashlib.sha256(what.encode()).hexdigest()

    def _answer(self, body: bytes, key: str, progress: _Progress):
        if self.cache is None:
            data = self._ask(body, key, progress)
            return data if isinstance(data, Failure) else self._read(data, progress.fate())
        while True:  # one input asks; the others with the same request wait for its reply
            stored = self.cache.get(key)
            if stored is None:
                with self._asking_lock:
                    flight = self._asking.get(key)
                    if flight is None:
                        stored = self.cache.get(key)  # an asker that ended since the first look has stored its reply
                        if stored is None:
                            flight = self._asking[key] = _Flight()
                            break
            if stored is not None:
                return self._read(stored, CACHED)
            while not flight.done.wait(0.1) and not progress.stop.is_set():
                pass
            if progress.stop.is_set():
                return Failure("stopped while the same request was in flight", progress.fate())
            if flight.reply is not None:
                return self._read(flight.reply, CACHED)
            # no usable reply (a failure is not shared, as it is not cached): this input asks in its turn
        try:
            data = self._ask(body, key, progress)
            if not isinstance(data, Failure) and _usable(data):
                flight.reply = data
                self.cache.put(key, data)  # stored before the flight ends: a later input finds it
        finally:
            with self._asking_lock:
                del self._asking[key]
            flight.done.set()
        return data if isinstance(data, Failure) else self._read(data, progress.fate())

    def _ask(self, body: bytes, key: str, p: _Progress):
        """The endpoint's reply to ``body`` (JSON), tried again while another
        try may help and the budget lasts; else a :class:`Failure`."""
        wait = self.backoff
        while True:
            try:
                return self._send(body, p)
            except _Final as err:
                return Failure(str(err), p.fate())
            except _OutOfTime:
                return Failure(self._spent(p), p.fate())
            except _Retry as err:
                p.last = str(err)
                if err.limited:
                    p.rate_limited += 1
                    pause = _backoff(self.backoff, p.rate_limited, key) if err.after is None else err.after
                else:
                    p.counted += 1
                    if p.counted > self.retries:
                        return Failure(self._exhausted(p), p.fate())
                    pause = wait if err.after is None else max(wait, err.after)
                    wait = min(MAX_BACKOFF, wait * 2)
            pause = min(pause, MAX_RETRY_AFTER)
            if p.left() <= pause:  # past the budget, or it would be before the next try is sent
                return Failure(self._spent(p), p.fate())
            if p.stop.wait(pause):
                return Failure(f"{p.last} (stopped before the next try)", p.fate())
            p.waited += pause

    def _send(self, body: bytes, p: _Progress):
        """One try, in one of the limiter's slots."""
        cuts = self._limiter.acquire(p.left())
        if cuts is None:
            raise _OutOfTime
        outcome = "failed"
        try:
            if p.deadline is None:
                p.deadline = time.monotonic() + self.budget
            left = p.left()
            if left <= 0:
                raise _OutOfTime
            p.tries += 1
            request = urllib.request.Request(self.base + "/chat/completions", data=body, headers=self._headers())
            data = self._fetch(request, min(self.timeout, left))
            outcome = "answered"
            return data
        except _Final:
            outcome = "answered"
            raise
        except _Retry as err:
            outcome = "limited" if err.limited else "failed"
            raise
        finally:
            self._limiter.release(cuts, outcome)

    def _exhausted(self, p: _Progress) -> str:
        also = f", and {p.rate_limited} rate-limited" if p.rate_limited else ""
        tries = f"{p.counted} tr{'ies' if p.counted > 1 else 'y'}"
        if p.last == "timed out":  # the only failure that took the whole timeout
            return f"{p.last} (after {tries} of {self.timeout:g} s each{also})"
        return f"{p.last} (after {tries}{also})"

    def _spent(self, p: _Progress) -> str:
        last = p.last or "no request could be sent"
        return (
            f"{last} (the input's time budget of {self.budget:g} s ran out after {p.tries} "
            f"tr{'ies' if p.tries != 1 else 'y'}, {p.rate_limited} rate-limited)"
        )

    def _tally(self, outcome) -> None:
        fate = outcome.fate
        with self._counting:
            c = self._counts
            c["inputs"] += 1
            c["failed"] += isinstance(outcome, Failure)
            if fate is not None:
                c["sent"] += fate.tries
                c["from_cache"] += fate.cached
                c["retries"] += max(0, fate.tries - 1)
                c["rate_limited"] += fate.rate_limited
                c["waited"] += fate.waited

    # ------------------------------------------------------------ the wire
    def _fetch(self, request: urllib.request.Request, timeout: float):
        """The reply to ``request`` as JSON (a stream of server-sent events
        assembled into one chat completion); :class:`_Retry` when another try
        may do better, :class:`_Final` when it would not. The whole exchange
        ends within ``timeout`` seconds, however slowly the server sends its
        status line, headers or body (a socket's own timeout bounds one read)."""
        deadline = time.monotonic() + timeout
        watch = _Deadline(timeout)
        try:
            with watch, _opener().open(request, timeout=timeout) as response:
                raw = _read_reply(response, deadline)
                streamed = response.headers.get_content_type() == "text/event-stream"
            if watch.passed:  # shut mid-body: a body without a length would look whole
                raise TimeoutError("timed out")
        except urllib.error.HTTPError as err:
            message = f"HTTP {err.code} {err.reason}{_error_detail(err)}"
            after = _retry_after(err.headers)
            if err.code == 429 or (err.code == 503 and after is not None):
                raise _Retry(message, after, limited=True)
            if err.code == 408 or err.code >= 500:
                raise _Retry(message, after)
            raise _Final(message)  # the request itself is refused: another try gets the same
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            raise _Retry("timed out" if watch.passed else _transport(err))
        return _parsed(raw, streamed)

    # ----------------------------------------------------------- the reply
    def _read(self, data, fate: Fate):
        """The answer in a chat completion, or a Failure saying what is wrong with it."""
        fate = replace(fate, served=_served_as(data))
        if isinstance(data, dict) and "error" in data and "choices" not in data:
            return Failure(f"the endpoint answered with an error: {_error_text(data['error'])}", fate)
        found = _message(data)
        if isinstance(found, str):
            return Failure(found, fate)
        if found is None:
            return Failure(f"the reply is not a chat completion: no choices[0].message.content in {_shape(data)}", fate)
        message, finish = found
        content = message.get("content")
        if _blank(content) and _refusal(message):
            return Failure(f"the model refused: {_error_text(message['refusal'])}", fate)
        if _blank(content) and (message.get("tool_calls") or message.get("function_call")):
            return Failure("the model answered with a tool call, not text", fate)
        if _blank(content) and _reasoning(message):
            return Failure(_reasoning_only(finish), fate)
        text = _content_text(content)
        if not isinstance(text, str):
            return Failure(text.message, fate)
        try:
            # a reply the endpoint's content filter stopped may be cut short as one stopped at
            # max_tokens is: only a final answer that ends before it does is read
            reading = self.read(text, finish in _CUT)
        except ValueError as err:
            if finish == "content_filter":  # the reader's words would blame the token limit
                return Failure(_FILTERED + "; what came before holds no whole final answer", fate)
            return Failure(str(err), fate)
        if all(hasattr(reading, a) for a in ("value", "candidates", "segment")):
            return Reply(reading.value, reading.candidates, reading.segment, fate)
        return Reply(reading, fate=fate)


def _served_as(data) -> str | None:
    """The model a chat completion says answered: its ``model``, with its
    ``system_fingerprint`` in parentheses where it gives one (the
    weights' and settings' revision, where the endpoint tells it)."""
    if not isinstance(data, dict):
        return None
    model, fingerprint = data.get("model"), data.get("system_fingerprint")
    model = model if isinstance(model, str) and model else None
    fingerprint = fingerprint if isinstance(fingerprint, str) and fingerprint else None
    if fingerprint is None:
        return model
    return f"{model or 'unnamed'} ({fingerprint})"


def _backoff(base: float, n: int, key: str) -> float:
    """The wait before the retry after the ``n``-th rate limit without a
    Retry-After: ``base`` doubled each time (at most :data:`MAX_BACKOFF`),
    times a jitter in [0.5, 1) that is a function of the request and ``n``
    (inputs limited together spread out, and a run is repeatable)."""
    unit = int.from_bytes(hashlib.sha256(f"{key}:{n}".encode()).digest()[:8], "big") / 2**64
    return min(MAX_BACKOFF, base * 2 ** (n - 1)) * (0.5 + unit / 2)


class _Deadline:
    """One request's hard deadline: when it passes, every socket the request
    opened is shut, so that a read blocked on a server that trickles bytes
    (its status line, headers or body) ends there; a socket's timeout bounds
    one read only, and a byte each second resets it. (A TLS handshake, made
    on a socket the handshake then replaces, is bounded by the socket's
    timeout per read.) While it is entered, it is this thread's request's
    (urllib opens a request's connections in the thread that sends it)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passed = False
        self.done = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []

    def __enter__(self) -> "_Deadline":
        _current.watch = self
        _WATCHDOG.add(time.monotonic() + self.seconds, self)
        return self

    def __exit__(self, *exc) -> None:
        self.done = True
        _current.watch = None

    def opened(self, sock: socket.socket) -> None:
        """Watch ``sock``: shut it now if the deadline has passed. The socket
        itself, not its connection: urllib lets go of the connection's socket
        once the headers are read, and the reply's body is read from it."""
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _shut(sock)

    def expire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.passed = True
            for sock in self._sockets:
                _shut(sock)


#: the deadline of the request this thread is sending (None between requests)
_current = threading.local()


class _Watchdog:
    """One thread that ends every request at its deadline (a timer thread
    per request costs more than a request to a local server)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._due: list[tuple[float, int, _Deadline]] = []
        self._order = itertools.count()
        self._pid: int | None = None  # the process whose thread runs: a forked child starts its own

    def add(self, when: float, watch: _Deadline) -> None:
        with self._changed:
            heapq.heappush(self._due, (when, next(self._order), watch))
            if self._pid != os.getpid():
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="invar-http-deadlines", daemon=True).start()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                while self._due and self._due[0][2].done:  # answered in time
                    heapq.heappop(self._due)
                wait = self._due[0][0] - time.monotonic() if self._due else None
                if wait is None or wait > 0:
                    self._changed.wait(wait)
                    continue
                _, _, watch = heapq.heappop(self._due)
            watch.expire()


_WATCHDOG = _Watchdog()


def _shut(sock: socket.socket) -> None:
    """End ``sock`` both ways: a read blocked on it returns at once."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # closed already, or handed on to TLS
        pass


def _created(*args, **kwargs) -> socket.socket:
    """A connection's socket, watched by this thread's request's deadline
    before a proxy's or TLS's talk on it."""
    sock = socket.create_connection(*args, **kwargs)
    watch = getattr(_current, "watch", None)
    if watch is not None:
        watch.opened(sock)
    return sock


@functools.lru_cache(maxsize=None)
def _watched(http_class: type) -> type:
    """``http_class`` with its sockets watched by the request's deadline."""

    class Connection(http_class):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._create_connection = _created  # http.client's hook for making the socket

        def connect(self) -> None:
            super().connect()
            watch = getattr(_current, "watch", None)
            if watch is not None:
                watch.opened(self.sock)  # the TLS socket, where the handshake replaced the plain one

    return Connection


class _Watched:
    """A handler whose connections the request's :class:`_Deadline` watches."""

    def do_open(self, http_class, req, **kwargs):
        return super().do_open(_watched(http_class), req, **kwargs)


class _HTTP(_Watched, urllib.request.HTTPHandler):
    pass


class _HTTPS(_Watched, urllib.request.HTTPSHandler):
    pass


@functools.lru_cache(maxsize=1)
def _opener() -> urllib.request.OpenerDirector:
    """urllib's opener (proxies from the environment, redirects, HTTPS), made
    once as urlopen's is, with connections that the request's deadline shuts."""
    return urllib.request.build_opener(_HTTP(), _HTTPS())


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


def _parsed(raw: bytes, streamed: bool):
    """A reply's body as JSON: parsed, or assembled from server-sent events
    (``text/event-stream``, or a body that starts as one)."""
    if not raw.strip():
        raise _Retry("the reply is empty")
    if streamed or raw.lstrip().startswith(b"data:"):
        try:
            return _assembled(_events(raw.decode("utf-8")))
        except UnicodeDecodeError as err:
            raise _Retry(f"the reply's event stream is not UTF-8 ({_describe(err)})")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as err:  # not JSON, not UTF-8, nested too deep
        raise _Retry(f"the reply is not JSON ({_describe(err)}; it starts {raw[:40]!r})")


def _events(text: str) -> list[str]:
    """The data of each server-sent event in ``text`` (its ``data:`` lines
    joined by newlines). Lines end at CR, LF or CRLF only: ``str.splitlines``
    would also split a JSON string at a U+2028 it holds."""
    events, data = [], []
    for line in re.split(r"\r\n|\r|\n", text):
        if not line:
            if data:
                events.append("\n".join(data))
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        # event:, id:, retry: and comments (":") say nothing about the answer
    if data:  # a stream that ends without the blank line after its last event
        events.append("\n".join(data))
    return events


def _assembled(events: list[str]):
    """Chat-completion chunks as one chat completion: each choice's
    ``delta.content`` concatenated, its reasoning, refusal and tool calls
    kept apart (they are never the answer), the finish_reason of its last
    chunk that has one; a choice without an ``index`` is numbered by where it
    stands in its chunk. ``[DONE]`` ends the stream; an error event is the
    reply. A stream that stops before ``[DONE]`` and before the answering
    choice (:func:`_choice`) has a finish_reason was cut short (the server
    closed it mid-answer): another try may get it whole, as a body shorter
    than its Content-Length may. (Some servers send no ``[DONE]``: a
    finish_reason ends their stream.)"""
    chunks, done = [], False
    for payload in events:
        if payload.strip() == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(payload)
        except (ValueError, RecursionError) as err:
            raise _Retry(f"an event of the reply's stream is not JSON ({_describe(err)}; it starts {payload[:40]!r})")
        if isinstance(chunk, dict) and "error" in chunk and "choices" not in chunk:
            return chunk
        chunks.append(chunk)
    if not chunks:
        raise _Retry("the reply's event stream holds no chunk")
    parts: dict[Any, dict] = {}  # index -> the choice's pieces, in the order its index first came
    for chunk in chunks:
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        for position, choice in enumerate(choices if isinstance(choices, list) else []):
            if not isinstance(choice, dict):
                continue
            index = _index(choice, position)
            got = parts.setdefault(
                _key_of(index),
                {"index": index, "content": [], "reasoning": [], "refusal": [], "tools": [], "finish": None},
            )
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, dict):
                got["content"] += [delta["content"]] if isinstance(delta.get("content"), str) else []
                got["reasoning"] += [
                    r for r in (delta.get("reasoning_content"), delta.get("reasoning")) if isinstance(r, str)
                ]
                got["refusal"] += [delta["refusal"]] if isinstance(delta.get("refusal"), str) else []
                got["tools"] += delta.get("tool_calls") or []
            got["finish"] = choice.get("finish_reason") or got["finish"]
    if not parts:
        return chunks[-1]  # read as it is, and refused for its shape
    assembled = []
    for got in parts.values():
        message: dict = {"role": "assistant", "content": "".join(got["content"]) if got["content"] else None}
        if got["reasoning"]:
            message["reasoning_content"] = "".join(got["reasoning"])
        if got["refusal"]:
            message["refusal"] = "".join(got["refusal"])
        if got["tools"]:
            message["tool_calls"] = got["tools"]
        assembled.append({"index": got["index"], "message": message, "finish_reason": got["finish"]})
    answering = _choice(assembled)
    if not done and isinstance(answering, dict) and answering["finish_reason"] is None:
        raise _Retry("the reply ended early (its event stream stopped before a finish_reason or [DONE])")
    return {"object": "chat.completion", "choices": assembled}


def _index(choice: dict, position: int) -> Any:
    """A choice's ``index``, or where it stands in its list when it has none."""
    index = choice.get("index")
    return position if index is None else index


def _key_of(index: Any) -> Any:
    """``index`` as a dict key: 0 and 0.0 alike, ``False`` and ``"0"`` apart from 0."""
    return index if isinstance(index, (int, float, str)) and not isinstance(index, bool) else repr(index)


def _zero(index: Any) -> bool:
    return index == 0 and not isinstance(index, bool)


def _choice(choices: Any) -> dict | str | None:
    """The choice that answers the request among a reply's ``choices``: the
    one with index 0 (a choice without an ``index`` is numbered by where it
    stands), or the only one there is, whatever its index (the request asks
    for one completion, so a lone choice is its answer). Several choices none
    of which is index 0, or several with index 0, leave the answer unknown:
    why, in words. None when there is no choice at all."""
    if not isinstance(choices, list):
        return None
    numbered = [(_index(c, k), c) for k, c in enumerate(choices) if isinstance(c, dict)]
    zeros = [c for index, c in numbered if _zero(index)]
    if len(zeros) == 1:
        return zeros[0]
    if zeros:
        return f"the reply holds {len(zeros)} choices with index 0: which one answers is unknown"
    if len(numbered) == 1:
        return numbered[0][1]
    if numbered:
        return f"the reply holds {len(numbered)} choices and none has index 0: which one answers is unknown"
    return None


def _message(data: Any) -> tuple[dict, Any] | str | None:
    """``(message, finish_reason)`` of the answering choice (:func:`_choice`)
    of a chat completion whose message has a content, a refusal, a tool call
    or reasoning; a reason in words when its choices leave the answer
    unknown; else None."""
    choice = _choice(data.get("choices")) if isinstance(data, dict) else None
    if not isinstance(choice, dict):
        return choice
    message = choice.get("message")
    if not isinstance(message, dict):
        return None
    if "content" not in message and not (message.get("tool_calls") or _reasoning(message) or _refusal(message)):
        return None
    return message, choice.get("finish_reason")


def _usable(data: Any) -> bool:
    """Whether a reply is worth keeping: a chat completion whose message
    holds text (which a reader may still refuse: a changed reader re-reads
    it). Errors, tool calls and reasoning without an answer are not kept."""
    found = _message(data)
    if not isinstance(found, tuple):
        return False
    text = _content_text(found[0].get("content"))
    return isinstance(text, str) and bool(text.strip())


def _blank(content: Any) -> bool:
    return content is None or content == [] or (isinstance(content, str) and not content.strip())


def _reasoning(message: dict) -> bool:
    """Whether a message holds reasoning (``reasoning_content``, as vLLM and
    DeepSeek write it, or ``reasoning``): never the answer."""
    return any(isinstance(message.get(k), str) and message[k].strip() for k in ("reasoning_content", "reasoning"))


def _refusal(message: dict) -> bool:
    """Whether a message holds a refusal (OpenAI's ``refusal``, beside a null content)."""
    return isinstance(message.get("refusal"), str) and bool(message["refusal"].strip())


#: the finish_reasons of a reply that may be cut short: stopped at max_tokens, or by a content filter
_CUT = ("length", "content_filter")
_FILTERED = 'the endpoint\'s content filter stopped the reply (finish_reason "content_filter")'


def _reasoning_only(finish: Any) -> str:
    if finish == "content_filter":
        return f"the reply held reasoning and no answer: {_FILTERED}"
    if finish == "length":
        return (
            "the reply held reasoning and no answer: the model stopped at max_tokens (finish_reason "
            "\"length\") while still reasoning; raise --max-tokens"
        )
    return f"the reply held reasoning and no answer (finish_reason {json.dumps(finish)})"


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
    """Seconds a Retry-After header asks for: a number of seconds, or an
    HTTP date (RFC 9110), counted from now (a date past is 0); None when
    there is none or it reads as neither."""
    value = headers.get("Retry-After") if headers is not None else None
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # an HTTP date is GMT
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
    return seconds if seconds >= 0 and math.isfinite(seconds) else None


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
    some servers send it) joined by newlines; else a :class:`Failure`.

    A content part is a whole block of text, not a piece of a word or a line
    (a stream's deltas are those, and are joined as they come): OpenAI-style
    servers send a part per block (a paragraph, the reasoning, the answer).
    Joined with nothing between them, ``I first estimated 4 cycles.`` and
    ``Answer: 2.5 cycles`` would make one line on which the explicit answer
    no longer opens a line, and the 4 would be read; a newline keeps each
    part's lines as they were."""
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
        texts = [
            p if isinstance(p, str) else p["text"]
            for p in content
            if isinstance(p, str)
            or isinstance(p, dict)
            and isinstance(p.get("text"), str)
            and p.get("type", "text") in ("text", "output_text")
        ]
        if texts:
            return "\n".join(texts)
        return Failure(f"the reply's content has no text part ({len(content)} part{'s' if len(content) != 1 else ''})")
    return Failure(f"the reply's content is {_shape(content)}, not text")


__all__ = ["HttpAdapter", "MAX_REPLY", "MAX_RETRY_AFTER", "MAX_BACKOFF", "COUNTERS"]
