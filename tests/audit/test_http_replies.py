"""What an OpenAI-compatible endpoint's replies are read as, on servers on
loopback started here: the request asks for no stream, the token budget,
temperature and seed as set (the seed plus the repeat index); a reply
streamed anyway (server-sent events, split anywhere, with or without
``[DONE]``) is read as one; reasoning is never the answer; a tool call, or
reasoning without an answer, is that input's error; ``finish_reason:
"length"`` (or ``"content_filter"``) reaches the reader as ``truncated``; a
stream that stops before a finish_reason or ``[DONE]`` is cut short and
tried again; the answer is the choice with index 0; a refusal is that
input's error.

:func:`served` (a scripted server) is shared with the rate-limit and cache tests."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import pytest

from invar.audit.models import Failure, Fate, HttpAdapter, Reply, ReplyCache, open_model

PROMPT = "Answer for this block:\n{program}\n"


@dataclass
class Response:
    """What the scripted server sends: a status, headers, and a body (bytes,
    or pieces sent as the chunks of a chunked body)."""

    status: int = 200
    body: bytes | list[bytes] = b""
    headers: dict | None = None
    #: a body sent with no length, ended by closing the connection (as a server that stops mid-stream)
    close: bool = False


def chat(content, finish: str | None = "stop", **message) -> Response:
    """A chat completion whose first choice's message has ``content`` (and ``message``'s other fields)."""
    choice = {"index": 0, "message": {"role": "assistant", "content": content, **message}, "finish_reason": finish}
    return Response(
        200,
        json.dumps({"object": "chat.completion", "choices": [choice]}).encode(),
        {"Content-Type": "application/json"},
    )


def sse(
    *deltas: dict,
    finish: str | None = "stop",
    done: bool = True,
    split: int | None = None,
    content_type: str | None = "text/event-stream",
) -> Response:
    """A streamed chat completion: one chunk per delta, then one with the
    finish_reason, then ``data: [DONE]``; sent whole, or in pieces of
    ``split`` bytes (which cut events, lines and JSON anywhere)."""
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
        for d in deltas
    ]
    chunks.append({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + ("data: [DONE]\n\n" if done else "")
    raw = text.encode()
    body = [raw[k : k + split] for k in range(0, len(raw), split)] if split else raw
    return Response(200, body, {"Content-Type": content_type} if content_type else {})


def events(*chunks: dict, done: bool = False, end: str = "\n\n", framing: str = "close") -> Response:
    """``chunks`` as server-sent events as written (then ``data: [DONE]``
    when ``done``), the last one followed by ``end``; the body ended by
    closing the connection (``close``: no length, as a server that stops
    mid-stream), or sent with its ``length``, or ``chunked``, whole."""
    text = "\n\n".join([f"data: {json.dumps(c)}" for c in chunks] + (["data: [DONE]"] if done else [])) + end
    raw = text.encode()
    body = [raw[k : k + 16] for k in range(0, len(raw), 16)] if framing == "chunked" else raw
    return Response(200, body, {"Content-Type": "text/event-stream"}, close=framing == "close")


def piece(content: str | None, index: int = 0, finish: str | None = None) -> dict:
    """A chat-completion chunk: ``content`` as choice ``index``'s delta."""
    delta = {} if content is None else {"content": content}
    return {"object": "chat.completion.chunk", "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


class Served:
    """A scripted endpoint: ``respond(request, n)`` answers the n-th POST
    (counted from 1 over the server's life). It keeps every request's JSON
    body and, at each arrival, how many POSTs were in flight (the server
    counts one out before it sends its reply, so no client can count more
    than the server allowed)."""

    def __init__(self, respond: Callable[[dict, int], Response]) -> None:
        self.respond = respond
        self.requests: list[dict] = []
        self.in_flight = 0
        #: in flight at each arrival, this one included
        self.arrivals: list[int] = []
        self.lock = threading.Condition()

    @property
    def sent(self) -> int:
        return len(self.requests)

    def handler(self):
        served = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._send(Response(200, b'{"data": [{"id": "toy-model"}]}', {"Content-Type": "application/json"}))

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with served.lock:
                    served.requests.append(request)
                    n = len(served.requests)
                    served.in_flight += 1
                    served.arrivals.append(served.in_flight)
                    served.lock.notify_all()
                try:
                    response = served.respond(request, n)
                finally:
                    with served.lock:
                        served.in_flight -= 1
                self._send(response)

            def _send(self, r: Response):
                try:
                    self.send_response(r.status)
                    for k, v in (r.headers or {}).items():
                        self.send_header(k, v)
                    self.send_header("Connection", "close")
                    if r.close:
                        self.end_headers()
                        self.wfile.write(r.body)
                    elif isinstance(r.body, list):
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for piece in r.body:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                            self.wfile.flush()
                        self.wfile.write(b"0\r\n\r\n")
                    else:
                        self.send_header("Content-Length", str(len(r.body)))
                        self.end_headers()
                        self.wfile.write(r.body)
                except OSError:  # the client gave up first
                    pass

        return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # read when the server starts listening: with the default backlog of 5, a
    # connection past it is dropped and tried again a second later
    request_queue_size = 128


@contextlib.contextmanager
def served(respond: Callable[[dict, int], Response]):
    """(``http://127.0.0.1:PORT/v1``, the :class:`Served`) while the block runs."""
    script = Served(respond)
    server = _Server(("127.0.0.1", 0), script.handler())
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _loopback(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def program_of(request: dict) -> str:
    """The program a request asks about (the prompt's last line)."""
    return request["messages"][0]["content"].rstrip("\n").rsplit("\n", 1)[-1]


class Reader:
    """A reader that keeps what it was given: the text itself is the value."""

    def __init__(self) -> None:
        self.given: list[tuple[str, bool]] = []

    def __call__(self, text: str, truncated: bool):
        self.given.append((text, truncated))
        return text


def ask(
    response: Response | Callable[[dict, int], Response], texts=("addq %rax, %rbx",), read=None, repeat=0, **options
):
    """(outcomes, the server's record, the reader) of one adapter's predict on ``texts``."""
    reader = read or Reader()
    respond = response if callable(response) else (lambda request, n: response)
    with served(respond) as (url, script):
        adapter = HttpAdapter(url, PROMPT, reader, **options)
        out = adapter.predict(list(texts), 8, repeat=repeat)
    return out, script, reader


# ------------------------------------------------------------------ requests
@pytest.mark.parametrize(
    "options, repeat, sent",
    [
        ({}, 0, {"stream": False, "max_tokens": 1024, "temperature": 0.0, "seed": 0}),
        (
            {"max_tokens": 77, "temperature": 0.7, "seed": 5},
            0,
            {"stream": False, "max_tokens": 77, "temperature": 0.7, "seed": 5},
        ),
        ({"seed": 5}, 3, {"stream": False, "max_tokens": 1024, "temperature": 0.0, "seed": 8}),
        (
            {"max_tokens": 4096, "temperature": 1.0},
            1,
            {"stream": False, "max_tokens": 4096, "temperature": 1.0, "seed": 1},
        ),
    ],
)
def test_a_request_asks_for_no_stream_and_the_settings_as_set(options, repeat, sent):
    out, script, _ = ask(chat("2"), repeat=repeat, **options)
    assert out == [Reply("2", fate=Fate(tries=1, rate_limited=0, waited=0.0, cached=False))]
    (request,) = script.requests
    assert {k: request[k] for k in sent} == sent
    assert request["model"] == "toy-model" and request["messages"] == [
        {"role": "user", "content": PROMPT.replace("{program}", "addq %rax, %rbx")}
    ]


# ------------------------------------------------------------ streamed replies
@pytest.mark.parametrize(
    "response, text, truncated",
    [
        (
            sse({"role": "assistant"}, {"content": "About "}, {"content": "2"}, {"content": " cycles."}),
            "About 2 cycles.",
            False,
        ),
        (sse({"content": "About 2"}, {"content": " cycles."}, done=False), "About 2 cycles.", False),
        # reasoning deltas (vLLM's and DeepSeek's reasoning_content, others' reasoning) are never the answer
        (
            sse(
                {"reasoning_content": "Four loads, so 7? "},
                {"reasoning": "No: "},
                {"content": "2"},
                {"reasoning_content": "9"},
            ),
            "2",
            False,
        ),
        # pieces of 7 bytes cut lines, JSON and the event separators anywhere
        (sse({"content": "About "}, {"content": "2 cycles."}, split=7), "About 2 cycles.", False),
        (sse({"content": "Ab\u2028out"}, {"content": " 2"}, split=3), "Ab\u2028out 2", False),
        # a server that calls its stream something else still starts it with data:
        (sse({"content": "2"}, content_type="application/json"), "2", False),
        (sse({"content": "2"}, content_type=None), "2", False),
        (sse({"content": "Let me count: 1, "}, finish="length"), "Let me count: 1, ", True),
        (
            Response(
                200,
                b'data: {"choices":[{"index":0,"delta":{"content":"2"}}]}\r\n\r\n'
                b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n',
                {"Content-Type": "text/event-stream; charset=utf-8"},
            ),
            "2",
            False,
        ),
        # comments, event names and a second choice say nothing about the first choice's answer
        (
            Response(
                200,
                b': keep-alive\n\nevent: message\ndata: {"choices":[{"index":1,"delta":{"content":"9"}},'
                b'{"index":0,"delta":{"content":"2"}}]}\n\n'
                b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
                {"Content-Type": "text/event-stream"},
            ),
            "2",
            False,
        ),
        # [DONE] ends a stream whose chunks name no finish_reason; a finish_reason ends one without [DONE]
        (sse({"content": "About 2"}, finish=None), "About 2", False),
        (sse({"content": "About 2"}, finish="content_filter", done=False), "About 2", True),
        # choices without an index are numbered by where they stand in their chunk
        (
            events(
                {"choices": [{"delta": {"content": "2"}}, {"delta": {"content": "9"}}]},
                {"choices": [{"delta": {}, "finish_reason": "stop"}, {"delta": {}, "finish_reason": "stop"}]},
                done=True,
            ),
            "2",
            False,
        ),
    ],
    ids=[
        "done",
        "no done",
        "reasoning deltas",
        "split",
        "split unicode",
        "mislabelled",
        "unlabelled",
        "length",
        "crlf",
        "comments",
        "done, no finish_reason",
        "content_filter, no done",
        "choices without an index",
    ],
)
def test_a_streamed_reply_is_read_as_one(response, text, truncated):
    out, script, reader = ask(response)
    assert out == [Reply(text, fate=Fate(tries=1, rate_limited=0, waited=0.0, cached=False))]
    assert reader.given == [(text, truncated)] and script.sent == 1


@pytest.mark.parametrize(
    "response, error, tries",
    [
        (
            Response(
                200, b'data: {"error": {"message": "model overloaded"}}\n\n', {"Content-Type": "text/event-stream"}
            ),
            "the endpoint answered with an error: model overloaded",
            1,
        ),
        (
            sse(
                {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "count", "arguments": ""}}]},
                finish="tool_calls",
            ),
            "the model answered with a tool call, not text",
            1,
        ),
        (
            sse({"reasoning_content": "Hmm, four loads"}, finish="length"),
            r'the reply held reasoning and no answer: .*finish_reason "length".*--max-tokens',
            1,
        ),
        # not an event stream that can be read: tried again, then that input's error
        (
            Response(200, b"data: {not json\n\n", {"Content-Type": "text/event-stream"}),
            r"an event of the reply's stream is not JSON .*\(after 2 tries\)",
            2,
        ),
        (
            Response(200, b"data: [DONE]\n\n", {"Content-Type": "text/event-stream"}),
            r"the reply's event stream holds no chunk \(after 2 tries\)",
            2,
        ),
        (
            Response(200, b"data: \xff\xfe\n\n", {"Content-Type": "text/event-stream"}),
            r"the reply's event stream is not UTF-8 .*",
            2,
        ),
        (
            Response(200, b'data: {"usage": {"total_tokens": 3}}\n\n', {"Content-Type": "text/event-stream"}),
            r"the reply is not a chat completion: no choices\[0\]\.message\.content in an object with keys usage",
            1,
        ),
        # OpenAI streams a refusal as delta.refusal pieces
        (
            sse({"refusal": "I cannot "}, {"refusal": "help with that."}),
            "the model refused: I cannot help with that.",
            1,
        ),
    ],
    ids=["error event", "tool call", "reasoning only", "not JSON", "no chunk", "not UTF-8", "no choices", "refusal"],
)
def test_a_streamed_reply_without_an_answer_is_that_inputs_error(response, error, tries):
    out, script, reader = ask(response, retries=1, backoff=0.01)
    (failure,) = out
    assert isinstance(failure, Failure)
    assert re.fullmatch(error, failure.message), failure.message
    assert failure.fate.tries == tries == script.sent and reader.given == []


CUT = r"the reply ended early \(its event stream stopped before a finish_reason or \[DONE\]\) \(after 2 tries\)"


@pytest.mark.parametrize(
    "response",
    [
        events(piece("Answer: "), piece("1")),
        events(piece("Answer: "), piece("1"), end=""),
        events(piece("Answer: "), piece("1"), framing="length"),
        events(piece("Answer: "), piece("1"), framing="chunked"),
        # another choice's finish_reason does not end the answering one
        events(piece("Answer: "), piece("1"), piece(None, index=1, finish="stop")),
        events({"choices": [{"index": 0, "delta": {"reasoning_content": "Four loads, so"}}]}),
    ],
    ids=["closed", "no blank line after the last event", "with its length", "chunked", "another choice", "reasoning"],
)
def test_a_stream_that_stops_before_its_end_is_cut_short_and_tried_again(response):
    """Neither ``[DONE]`` nor a finish_reason: the server stopped mid-answer,
    whatever the HTTP framing said; never read as the answer so far."""
    out, script, reader = ask(response, retries=1, backoff=0.01)
    (failure,) = out
    assert isinstance(failure, Failure) and re.fullmatch(CUT, failure.message), failure
    assert failure.fate.tries == 2 == script.sent and reader.given == []


def test_a_stream_cut_once_is_read_whole_at_the_next_try():
    def respond(request, n):
        if n == 1:
            return events(piece("Answer: "), piece("1"))
        return events(piece("Answer: "), piece("1"), piece(".5 cycles", finish="stop"))

    out, script, reader = ask(respond, retries=1, backoff=0.01)
    assert [o.value for o in out] == ["Answer: 1.5 cycles"] and out[0].fate.tries == 2 == script.sent
    assert reader.given == [("Answer: 1.5 cycles", False)]


# --------------------------------------------------------------- choices
def completion(*choices: dict) -> Response:
    return Response(200, json.dumps({"object": "chat.completion", "choices": list(choices)}).encode())


def choice(content: str, index: int | None = None) -> dict:
    made = {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    return made if index is None else {"index": index, **made}


@pytest.mark.parametrize(
    "response, text",
    [
        (completion(choice("Answer: 9 cycles", 1), choice("Answer: 2.5 cycles", 0)), "Answer: 2.5 cycles"),
        (completion(choice("Answer: 2.5 cycles"), choice("Answer: 9 cycles")), "Answer: 2.5 cycles"),
        (completion(choice("Answer: 2.5 cycles"), choice("Answer: 9 cycles", 1)), "Answer: 2.5 cycles"),
        # the request asks for one completion: a lone choice answers it, whatever its index
        (completion(choice("Answer: 2.5 cycles", 1)), "Answer: 2.5 cycles"),
        (
            events(piece("Answer: 9", index=1), piece("Answer: 2.5", index=0), piece(None, finish="stop"), done=True),
            "Answer: 2.5",
        ),
        (events(piece("Answer: 2.5", index=1), piece(None, index=1, finish="stop")), "Answer: 2.5"),
    ],
    ids=["index 0 second", "no indices", "unnumbered first", "lone choice 1", "streamed", "streamed lone choice 1"],
)
def test_the_answer_is_the_choice_with_index_0(response, text):
    out, _, reader = ask(response)
    assert [o.value for o in out] == [text] and reader.given == [(text, False)]


@pytest.mark.parametrize(
    "response, error",
    [
        (
            completion(choice("Answer: 9 cycles", 1), choice("Answer: 2.5 cycles", 2)),
            "the reply holds 2 choices and none has index 0: which one answers is unknown",
        ),
        (
            completion(choice("Answer: 9 cycles", 0), choice("Answer: 2.5 cycles", 0)),
            "the reply holds 2 choices with index 0: which one answers is unknown",
        ),
        # a choice without an index is numbered by where it stands: here, 1
        (
            completion(choice("Answer: 9 cycles", 1), choice("Answer: 2.5 cycles")),
            "the reply holds 2 choices and none has index 0: which one answers is unknown",
        ),
        (
            events(piece("9", index=1, finish="stop"), piece("2.5", index=2, finish="stop"), done=True),
            "the reply holds 2 choices and none has index 0: which one answers is unknown",
        ),
    ],
    ids=["none is 0", "two are 0", "unnumbered second", "streamed, none is 0"],
)
def test_choices_that_leave_the_answer_unknown_are_that_inputs_error(response, error):
    out, script, reader = ask(response, retries=2)
    assert out == [Failure(error, Fate(tries=1, rate_limited=0, waited=0.0, cached=False))]
    assert script.sent == 1 and reader.given == []


# ------------------------------------------------ reasoning, tool calls, length
@pytest.mark.parametrize(
    "response, text, truncated",
    [
        (chat("2", reasoning_content="Four loads at 7 cycles each... no."), "2", False),
        (chat("2", reasoning="I count 9 registers."), "2", False),
        (chat("About 2", finish="length"), "About 2", True),
        (chat("About 2", finish=None), "About 2", False),
        (chat("About 2", finish="content_filter"), "About 2", True),
        # an empty answer beside no reasoning and no tool call is the reader's to refuse
        (chat("", finish="length"), "", True),
        (chat([{"type": "text", "text": "2"}], reasoning_content="7"), "2", False),
        # each part is a block: the explicit answer still opens its line
        (
            chat(
                [
                    {"type": "text", "text": "I first estimated 4 cycles per iteration."},
                    {"type": "output_text", "text": "Answer: 2.5 cycles"},
                ]
            ),
            "I first estimated 4 cycles per iteration.\nAnswer: 2.5 cycles",
            False,
        ),
        (chat(["Four loads.", {"type": "text", "text": "Answer: 2"}]), "Four loads.\nAnswer: 2", False),
    ],
    ids=[
        "reasoning_content",
        "reasoning",
        "length",
        "no finish_reason",
        "content_filter",
        "empty",
        "parts",
        "parts as lines",
        "string and text parts",
    ],
)
def test_only_the_content_is_the_answer_and_length_is_truncated(response, text, truncated):
    out, _, reader = ask(response)
    assert [o.value for o in out] == [text]
    assert reader.given == [(text, truncated)]


@pytest.mark.parametrize(
    "response, error",
    [
        (
            chat(
                None,
                finish="tool_calls",
                tool_calls=[{"id": "c1", "type": "function", "function": {"name": "count", "arguments": "{}"}}],
            ),
            "the model answered with a tool call, not text",
        ),
        (
            chat("", tool_calls=[{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]),
            "the model answered with a tool call, not text",
        ),
        (
            Response(
                200,
                json.dumps(
                    {
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "tool_calls",
                                "message": {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]},
                            }
                        ]
                    }
                ).encode(),
            ),
            "the model answered with a tool call, not text",
        ),
        (
            chat(None, finish="function_call", function_call={"name": "count", "arguments": "{}"}),
            "the model answered with a tool call, not text",
        ),
        (
            chat(None, finish="length", reasoning_content="Let me think about each instruction"),
            'the reply held reasoning and no answer: the model stopped at max_tokens (finish_reason "length") while '
            "still reasoning; raise --max-tokens",
        ),
        (
            chat("", finish="stop", reasoning="I think 2"),
            'the reply held reasoning and no answer (finish_reason "stop")',
        ),
        (chat(None), "the reply's message has no content (null)"),
        (
            chat(None, refusal="I cannot help with that.\nIt is against the policy."),
            "the model refused: I cannot help with that.",
        ),
        (chat("", refusal="  No.  "), "the model refused: No."),
        (
            Response(
                200,
                json.dumps(
                    {"choices": [{"index": 0, "message": {"role": "assistant", "refusal": "I cannot help with that."}}]}
                ).encode(),
            ),
            "the model refused: I cannot help with that.",
        ),
    ],
    ids=[
        "tool call",
        "tool call, empty content",
        "tool call, no content",
        "function call",
        "reasoning, length",
        "reasoning, stop",
        "null",
        "refusal",
        "refusal, empty content",
        "refusal, no content",
    ],
)
def test_a_reply_without_a_text_answer_is_that_inputs_error(response, error):
    out, script, reader = ask(response, retries=2)
    assert out == [Failure(error, Fate(tries=1, rate_limited=0, waited=0.0, cached=False))]
    assert script.sent == 1 and reader.given == []


# ---------------------------------------------------------------- the reader
@dataclass(frozen=True)
class Reading:
    value: object
    candidates: int
    segment: str | None


class Refused(ValueError):
    """A reader's refusal (the task's reader raises ValueError subclasses)."""


def reading(text: str, truncated: bool):
    if "?" in text:
        raise Refused(f"two candidate answers in {text!r}")
    return Reading(float(text.split()[-1]), 2 if truncated else 1, text.split()[-1])


@pytest.mark.parametrize(
    "response, want",
    [
        (chat("It takes 2"), Reply(2.0, 1, "2")),
        (chat("It takes 3", finish="length"), Reply(3.0, 2, "3")),
        (chat("2 or 3?"), Failure("two candidate answers in '2 or 3?'")),
    ],
)
def test_the_reader_says_what_it_read_or_refuses(response, want):
    out, _, _ = ask(response, read=reading)
    fate = Fate(tries=1, rate_limited=0, waited=0.0, cached=False)
    assert out == [replace(want, fate=fate)]


def cautious(text: str, truncated: bool):
    """A reader that refuses every reply cut short, in the task readers' words."""
    if truncated:
        raise Refused("cut off at the token limit before a final answer (Answer: …): raise --max-tokens")
    return text


FILTERED = 'the endpoint\'s content filter stopped the reply (finish_reason "content_filter")'


@pytest.mark.parametrize(
    "response, want",
    [
        (chat("About 2"), Reply("About 2")),
        (
            chat("About 2", finish="length"),
            Failure("cut off at the token limit before a final answer (Answer: …): raise --max-tokens"),
        ),
        (
            chat("About 2", finish="content_filter"),
            Failure(FILTERED + "; what came before holds no whole final answer"),
        ),
        (
            sse({"content": "About 2"}, finish="content_filter", done=False),
            Failure(FILTERED + "; what came before holds no whole final answer"),
        ),
        (
            chat(None, finish="content_filter", reasoning_content="Let me count"),
            Failure("the reply held reasoning and no answer: " + FILTERED),
        ),
    ],
    ids=["stop", "length", "content_filter", "streamed content_filter", "reasoning, content_filter"],
)
def test_a_filtered_reply_is_read_as_one_cut_short_and_says_it_was_filtered(response, want):
    out, _, _ = ask(response, read=cautious)
    assert out == [replace(want, fate=Fate(tries=1, rate_limited=0, waited=0.0, cached=False))]


def test_open_model_passes_the_request_settings_through(tmp_path):
    reader = Reader()
    with served(lambda request, n: chat("2", finish="length")) as (url, script):
        adapter = open_model(
            url,
            prompt=PROMPT,
            read=reader,
            max_tokens=9,
            temperature=0.5,
            budget=30.0,
            cache=ReplyCache(tmp_path),
            concurrency=3,
            retries=4,
            seed=2,
        )
        assert (adapter.max_tokens, adapter.temperature, adapter.budget, adapter.concurrency, adapter.retries) == (
            9,
            0.5,
            30.0,
            3,
            4,
        )
        assert adapter.predict(["x"], 1) == [Reply("2", fate=Fate(1, 0, 0.0, False))]
        assert reader.given == [("2", True)]
        assert {k: script.requests[0][k] for k in ("max_tokens", "temperature", "seed")} == {
            "max_tokens": 9,
            "temperature": 0.5,
            "seed": 2,
        }
        # the task's answer(text), as the audit passes it until it passes a reader, ignores truncation
        legacy = open_model(url, prompt=PROMPT, answer=lambda text: float(text) + 1)
        assert [o.value for o in legacy.predict(["x"], 1)] == [3.0]
        assert legacy.cache is None
