"""Rate limits never lose an answer, on servers on loopback started here: a
429, or a 503 with Retry-After, does not use up ``--retries``; the input
waits what Retry-After says (seconds or an HTTP date), else a backoff; the
requests in flight back off while rate limits come and recover after; and
each input's time budget bounds it all, its error saying so."""

from __future__ import annotations

import email.utils
import re
import threading
import time

import pytest

from invar.audit.models import Failure, Fate, HttpAdapter
from tests.audit.test_http_replies import PROMPT, Response, chat, program_of, served

TEXTS = [f"movq ${k}, %rax" for k in range(12)]


def answer(request: dict) -> Response:
    """The program's immediate, as the answer: each input's own."""
    return chat(f"About {program_of(request).split('$')[1].split(',')[0]} cycles.")


def limited(status: int = 429, after: str | None = None) -> Response:
    return Response(
        status,
        b'{"error": {"message": "slow down"}}',
        {"Content-Type": "application/json", **({"Retry-After": after} if after is not None else {})},
    )


def http_date(seconds: float) -> str:
    return email.utils.formatdate(time.time() + seconds, usegmt=True)


def read(text: str, truncated: bool) -> int:
    return int(text.split()[1])


@pytest.fixture(autouse=True)
def _loopback(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.mark.parametrize(
    "after, least", [(lambda: "1", 1.0), (lambda: http_date(1), 0.0)], ids=["seconds", "HTTP date"]
)
def test_a_sustained_rate_limit_loses_nothing_with_default_settings(after, least):
    # every other request is refused: each refused input waits the second it is told, and tries again
    with served(lambda request, n: limited(429, after()) if n % 2 == 0 else answer(request)) as (url, script):
        adapter = HttpAdapter(url, PROMPT, read)
        out = adapter.predict(TEXTS, 8)
    assert [o.value for o in out] == list(range(12))
    refused = sum(1 for n in range(1, script.sent + 1) if n % 2 == 0)
    assert sum(o.fate.rate_limited for o in out) == refused >= 6
    assert sum(o.fate.tries for o in out) == script.sent
    assert all(o.fate.tries == o.fate.rate_limited + 1 and not o.fate.cached for o in out)
    counts = adapter.requests()
    assert counts["inputs"] == 12 and counts["sent"] == script.sent and counts["rate_limited"] == refused
    assert counts["failed"] == 0 and counts["from_cache"] == 0 and counts["retries"] == refused
    assert counts["lowest_concurrency"] < 8
    # a wait of seconds is waited whole; a date one second ahead, up to the second it names (0 to 1 s)
    assert all(least * o.fate.rate_limited <= o.fate.waited <= 1.0 * o.fate.rate_limited for o in out)
    assert counts["waited"] == pytest.approx(sum(o.fate.waited for o in out))


def once_then_answer(first: Response):
    """``first`` to each program's first request, then its answer."""
    seen: dict = {}
    lock = threading.Lock()

    def respond(request, n):
        with lock:
            k = seen[program_of(request)] = seen.get(program_of(request), 0) + 1
        return first if k == 1 else answer(request)

    return respond


@pytest.mark.parametrize(
    "first, retries, rate_limited",
    [
        (limited(503, "0"), 0, 1),  # a 503 with Retry-After is a rate limit: with no retry left it is still answered
        (limited(429, "0"), 0, 1),
        (limited(429, None), 0, 1),  # without Retry-After: a backoff, and no retry used up
        (limited(503, None), 1, 0),  # a 503 without Retry-After is a failure like any other 5xx: it uses a retry
        (limited(500, "0"), 1, 0),
    ],
    ids=["503 after", "429 after", "429", "503", "500 after"],
)
def test_a_rate_limit_uses_up_no_retry(first, retries, rate_limited):
    with served(once_then_answer(first)) as (url, script):
        adapter = HttpAdapter(url, PROMPT, read, retries=retries, backoff=0.01)
        out = adapter.predict(TEXTS[:3], 8)
    assert [o.value for o in out] == [0, 1, 2] and script.sent == 6
    assert {(o.fate.tries, o.fate.rate_limited) for o in out} == {(2, rate_limited)}
    assert adapter.requests()["rate_limited"] == 3 * rate_limited


@pytest.mark.parametrize(
    "respond, error",
    [
        (lambda r, n: limited(503), r"HTTP 503 Service Unavailable: slow down \(after 2 tries\)"),
        (
            lambda r, n: limited(429, "0") if n % 2 else limited(500),
            r"HTTP 500 Internal Server Error: slow down \(after 2 tries, and 2 rate-limited\)",
        ),
    ],
    ids=["503", "500s between 429s"],
)
def test_other_failures_still_use_up_the_retries(respond, error):
    with served(respond) as (url, script):
        (out,) = HttpAdapter(url, PROMPT, read, retries=1, backoff=0.01, concurrency=1).predict(TEXTS[:1], 1)
    assert isinstance(out, Failure) and re.fullmatch(error, out.message), out.message
    assert out.fate.tries == script.sent


@pytest.mark.parametrize(
    "after, budget, tries",
    [
        ("5", 1.0, 1),  # the wait asked for is past the budget: the input fails at once, without sleeping
        (None, 0.6, None),  # backoffs of 0.05 s, doubling, until the next would end past the budget
        ("0", 0.3, None),  # a server that asks for no wait at all: tried again and again until the budget is spent
    ],
    ids=["Retry-After past the budget", "backoff", "no wait"],
)
def test_the_budget_bounds_an_input_and_its_error_says_so(after, budget, tries):
    with served(lambda r, n: limited(429, after)) as (url, script):
        adapter = HttpAdapter(url, PROMPT, read, budget=budget, backoff=0.05)
        (out,) = adapter.predict(TEXTS[:1], 1)
    assert isinstance(out, Failure)
    # the last try may be one cut short by the budget's end: it timed out, or its status line came in
    # and the budget's end shut the socket before the error's body could be read (a busy machine)
    want = (
        r"(HTTP 429 Too Many Requests(?:: slow down)?|timed out) \(the input's time budget of "
        rf"{budget:g} s ran out after (\d+) tr(y|ies), (\d+) rate-limited\)"
    )
    match = re.fullmatch(want, out.message)
    assert match, out.message
    assert out.fate.tries == int(match.group(2)) >= (tries or 2)
    # a last try cut short where the budget ends (shut at its deadline) may not have reached the server
    assert script.sent == out.fate.tries or match.group(1) == "timed out" and script.sent == out.fate.tries - 1
    assert out.fate.rate_limited == int(match.group(4)) >= out.fate.tries - 1
    if tries is not None:
        assert (out.fate.tries, out.fate.rate_limited, out.fate.waited) == (tries, tries, 0.0)
    assert out.fate.waited <= budget and adapter.requests()["failed"] == 1


def test_the_requests_in_flight_back_off_under_rate_limits_and_recover():
    # the first 30 requests are refused; then each answer is held until 8
    # requests are in flight or 0.2 s pass, so however the threads are
    # scheduled the server sees as many at once as the client allows
    def respond(request, n):
        if n <= 30:
            return limited(429, "0")
        with script.lock:
            script.lock.wait_for(lambda: script.in_flight >= 8, timeout=0.2)
        return answer(request)

    texts = [f"movq ${k}, %rax" for k in range(60)]
    with served(respond) as (url, script):
        adapter = HttpAdapter(url, PROMPT, read)
        out = adapter.predict(texts, 8)
    assert [o.value for o in out] == list(range(60))
    refused, answered = script.arrivals[:30], script.arrivals[30:]
    assert max(script.arrivals) <= 8
    # the 429s halved the requests in flight down to one; one success at a
    # time added them back (one more after as many successes as in flight)
    assert adapter.requests()["lowest_concurrency"] == 1 and refused[-1] == 1
    assert answered[:2] == [1, 1] and max(answered) == 8
    assert adapter.requests()["rate_limited"] == 30


def test_an_interrupted_audit_does_not_sleep_out_a_wait():
    # the audit sets the event when it stops (an interrupt): the input ends at once instead of waiting 30 s
    stop = threading.Event()
    stop.set()
    with served(lambda r, n: limited(429, "30")) as (url, script):
        out = HttpAdapter(url, PROMPT, read)._one(TEXTS[0], 0, stop)
    assert out == Failure(
        "HTTP 429 Too Many Requests: slow down (stopped before the next try)",
        Fate(tries=1, rate_limited=1, waited=0.0, cached=False),
    )
    assert script.sent == 1
