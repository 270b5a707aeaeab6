"""Audits of a model served behind an OpenAI-compatible endpoint, on real
servers on loopback started here: answers are parsed by the task; a request
that times out and one the server fails are reported, and nothing is lost.
A raw TCP server misbehaves in every way a reply can (cut short, an event
stream closed mid-answer, reset, not HTTP, not JSON, JSON of another shape,
error statuses, a content that is not a string, choices out of order, a
refusal, a filtered reply …): each is retried when another try can help, else it is that
example's error, and the audit always finishes with its report."""

from __future__ import annotations

import json
import re
import socket
import socketserver
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from invar.audit import audit
from invar.audit import http as http_adapter
from tests.audit import callables

BLOCKS = """\
addq %rax, %rbx
imulq %rbx, %rcx  # label: 2.0

movq $77, %rdx
addq %rdx, %rsi

movq 8(%rsp), %r8
addq $99, %r8

movq $55, %rax
subq %rax, %rdi  # label: 1.0

xorq %r9, %r10
andq %r10, %r11
orq %r11, %r9
"""

PROMPT = "How many cycles per iteration does this block take?\n<block>\n{program}\n</block>\n"


class Endpoint(BaseHTTPRequestHandler):
    """/v1/models and /v1/chat/completions: the answer counts the block's
    registers, in a sentence. ``$77`` makes a request hang past the client's
    timeout, ``$99`` fails every time, ``$55`` fails once per text."""

    seen: dict = {}
    lock = threading.Lock()

    def log_message(self, *args):  # keep the test output clean
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (the timeout case)
            pass

    def do_GET(self):
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "toy-model", "object": "model"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert request["model"] == "toy-model" and request["temperature"] == 0
        prompt = request["messages"][0]["content"]
        program = prompt.split("<block>\n", 1)[1].split("\n</block>", 1)[0]
        with self.lock:
            tries = self.seen[program] = self.seen.get(program, 0) + 1
        if "$77" in program:
            time.sleep(6.0)
        if "$99" in program or ("$55" in program and tries == 1):
            self._send(500, {"error": "the model crashed"})
            return
        count = callables.distinct_registers([program])[0]
        self._send(
            200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"About {count:g} cycles."}}]}
        )


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    Endpoint.seen = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _audit_blocks(invoke, model: str, tmp_path, blocks: str, *options, prompt: str = PROMPT):
    """``invar audit`` of ``blocks`` (written to tmp_path/blocks.s) on the bhive
    task through ``model``, asking with ``prompt``."""
    (tmp_path / "blocks.s").write_text(blocks)
    (tmp_path / "prompt.txt").write_text(prompt)
    return invoke(
        "audit",
        "--model",
        model,
        "--prompt",
        tmp_path / "prompt.txt",
        "--task",
        "bhive",
        "--dataset",
        tmp_path / "blocks.s",
        *options,
    )


def test_audit_of_an_http_endpoint_survives_timeouts_and_errors(invoke, endpoint, tmp_path):
    options = ("--variants", "3", "--timeout", "2", "--retries", "1", "--concurrency", "4", "--format", "json")
    result = _audit_blocks(invoke, endpoint, tmp_path, BLOCKS, *options)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["model"] == {"kind": "http", "path": endpoint, "name": "toy-model"}
    assert (report["examples"], report["audited"], report["errors"]) == (5, 3, 2)
    failed = {f["id"]: f["error"] for f in report["failed"]}
    assert failed == {
        "blocks.s:4": "original: timed out (after 2 tries of 2 s each)",
        "blocks.s:7": "original: HTTP 500 Internal Server Error: the model crashed (after 2 tries)",
    }
    assert f"{tmp_path / 'blocks.s'}:4:1: error: the model failed on this example" in result.stderr
    # the answer is the block's register count, whatever the renaming
    assert report["violation_rate"] == 0.0 and report["alpha_covariance"]["mean"] == 1.0
    assert report["predictions"] == 3 * 4
    # the block whose first request failed was retried and is audited; its label and the first's are read
    assert report["metric"]["examples"] == 2
    assert report["metric"]["original"] == pytest.approx(100 * (abs(3 - 2.0) / 2.0 + abs(2 - 1.0) / 1.0) / 2)


def test_http_needs_a_prompt_with_a_placeholder_and_a_task(invoke, endpoint, tmp_path):
    (tmp_path / "blocks.s").write_text(BLOCKS)
    # invar ships prompts for bhive, names, bugs and classify; any other task needs the user's
    result = invoke("audit", "--model", endpoint, "--task", "ltl", "--dataset", tmp_path / "blocks.s")
    assert result.exit_code == 2 and "needs --prompt" in result.stderr
    result = _audit_blocks(invoke, endpoint, tmp_path, BLOCKS, prompt="no placeholder")
    assert result.exit_code == 2 and "no {program} placeholder" in result.stderr


# ------------------------------------------------------- a misbehaving server
def _chat(content) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).encode()


def _reply(status: str, body: bytes, *headers: str, length: int | None = None) -> bytes:
    head = [
        f"HTTP/1.1 {status}",
        "Content-Type: application/json",
        f"Content-Length: {len(body) if length is None else length}",
        "Connection: close",
        *headers,
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _choices(*choices: tuple[int, str, str]) -> bytes:
    """A chat completion of ``(index, content, finish_reason)`` choices, in that order."""
    made = [{"index": i, "message": {"role": "assistant", "content": c}, "finish_reason": f} for i, c, f in choices]
    return json.dumps({"choices": made}).encode()


def _stream(*pieces: str, end: bool = False) -> bytes:
    """An event stream of ``pieces`` with no length, ended by closing the
    connection: after a chunk with a finish_reason when ``end`` (and no
    ``[DONE]``), else right after the last piece."""
    chunks = [{"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    chunks += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}] if end else []
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    return head + "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode()


RIGHT = "About 2 cycles."  # every block below names two registers
OK = _reply("200 OK", _chat(RIGHT))

#: mode -> what the server sends on a try (tries counted from 1 per program
#: text): bytes, or "hang" (nothing, until the test ends), "drip" (a body one
#: byte at a time, forever), "drip headers" (a status line, then a header one
#: byte at a time, forever), "drip without length" (a body with no length
#: that never ends), "reset" (part of a reply, then a TCP reset),
#: "close" (no reply at all)
BEHAVIOUR = {
    "ok": lambda t: OK,
    # transport failures: another try may help
    "short body": lambda t: _reply("200 OK", _chat(RIGHT)[:20], length=500),
    "short body once": lambda t: _reply("200 OK", _chat(RIGHT)[:20], length=500) if t == 1 else OK,
    "not HTTP": lambda t: b"SSH-2.0-OpenSSH_9.6\r\n",
    "garbage bytes": lambda t: bytes(range(256)) * 4,
    "not HTTP once": lambda t: b"\x00\x01\x02 hello\r\n" if t == 1 else OK,
    "empty reply": lambda t: "close",
    "empty reply once": lambda t: "close" if t == 1 else OK,
    "reset mid-body": lambda t: "reset",
    "cut chunked body": lambda t: (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        b"10\r\n" + _chat(RIGHT)[:16] + b"\r\n"
    ),
    "chunked body": lambda t: (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (_chat(RIGHT)[:9], _chat(RIGHT)[9:]))
        + b"0\r\n\r\n"
    ),
    "not JSON": lambda t: _reply("200 OK", b"<html><body>busy</body></html>"),
    "not UTF-8": lambda t: _reply("200 OK", b'{"choices": "\xff\xfe\xfa"}'),
    "nested too deep": lambda t: _reply("200 OK", b"[" * 200_000),
    "empty body": lambda t: _reply("200 OK", b""),
    "hang": lambda t: "hang",
    "drip": lambda t: "drip",
    "drip headers": lambda t: "drip headers",
    "drip without length": lambda t: "drip without length",
    "HTTP 503": lambda t: _reply("503 Service Unavailable", b'{"error": {"message": "overloaded"}}'),
    "HTTP 429 once": lambda t: _reply("429 Too Many Requests", b"{}", "Retry-After: 0") if t == 1 else OK,
    "HTTP 502 once": lambda t: _reply("502 Bad Gateway", b"<html>proxy</html>") if t == 1 else OK,
    # final replies: another try would get the same
    "HTTP 400": lambda t: _reply("400 Bad Request", b'{"error": {"message": "prompt too long", "code": 400}}'),
    "HTTP 404": lambda t: _reply("404 Not Found", b"no such route"),
    "a list": lambda t: _reply("200 OK", b"[1, 2, 3]"),
    "a number": lambda t: _reply("200 OK", b"42"),
    "no choices": lambda t: _reply("200 OK", b'{"choices": []}'),
    "no message": lambda t: _reply("200 OK", b'{"choices": [{"text": "About 2 cycles."}]}'),
    "an error object": lambda t: _reply("200 OK", b'{"error": {"message": "model not loaded"}}'),
    "null content": lambda t: _reply("200 OK", _chat(None)),
    "boolean content": lambda t: _reply("200 OK", _chat(True)),
    "image part only": lambda t: _reply("200 OK", _chat([{"type": "image_url", "image_url": {"url": "x"}}])),
    "object content": lambda t: _reply("200 OK", _chat({"value": 2})),
    "no number": lambda t: _reply("200 OK", _chat("I cannot tell.")),
    # contents that are not a string but hold an answer
    "number content": lambda t: _reply("200 OK", _chat(2)),
    "float content": lambda t: _reply("200 OK", _chat(2.5)),
    "text parts": lambda t: _reply(
        "200 OK",
        _chat(
            [
                {"type": "text", "text": "About "},
                {"type": "image_url", "image_url": {"url": "x"}},
                {"type": "text", "text": "2 cycles."},
            ]
        ),
    ),
    "string parts": lambda t: _reply("200 OK", _chat(["I see two registers.", "About 2 cycles."])),
    "one text part": lambda t: _reply("200 OK", _chat({"type": "text", "text": "2 cycles"})),
    # each part is a block: the explicit answer still opens its line
    "parts as blocks": lambda t: _reply(
        "200 OK",
        _chat(
            [
                {"type": "text", "text": "I first estimated 4 cycles per iteration."},
                {"type": "text", "text": "Answer: 2.5 cycles"},
            ]
        ),
    ),
    # the answer is the choice with index 0; several choices, none of them 0, leave it unknown
    "choices out of order": lambda t: _reply(
        "200 OK", _choices((1, "Answer: 9 cycles", "stop"), (0, "Answer: 2.5 cycles", "stop"))
    ),
    "choices, none index 0": lambda t: _reply(
        "200 OK", _choices((1, "Answer: 9 cycles", "stop"), (2, "Answer: 2.5 cycles", "stop"))
    ),
    # a filtered reply may be cut short, as one stopped at the token limit: no explicit answer, no answer
    "content filter": lambda t: _reply("200 OK", _choices((0, "It takes about 3 cycles", "content_filter"))),
    "refusal": lambda t: _reply(
        "200 OK",
        json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": "I cannot help."}}]}
        ).encode(),
    ),
    # an event stream the server closes mid-answer (no finish_reason, no [DONE]) is cut short
    "cut event stream": lambda t: _stream("Answer: ", "1"),
    "cut event stream once": lambda t: _stream("Answer: ", "1") if t == 1 else _stream("About ", "2 cycles.", end=True),
    "event stream without [DONE]": lambda t: _stream("About ", "2 cycles.", end=True),
}

RETRIED = r" \(after 2 tries\)"
#: mode -> (the prediction, or a regex the example's error matches; tries per program text)
EXPECTED = {
    "ok": (2.0, 1),
    "short body": (r"the reply ended early \(20 bytes of its body read, 480 more expected\)" + RETRIED, 2),
    "short body once": (2.0, 2),
    "not HTTP": (r"the reply is not HTTP \(it starts 'SSH-2\.0-OpenSSH_9\.6\\r\\n'\)" + RETRIED, 2),
    "garbage bytes": (r"the reply is not (valid )?HTTP .*" + RETRIED, 2),
    "not HTTP once": (2.0, 2),
    "empty reply": ("the server closed the connection without a reply" + RETRIED, 2),
    "empty reply once": (2.0, 2),
    # where the reset overtakes the bytes before it, the client sees less of the reply
    "reset mid-body": (
        r"(connection reset|the reply ended early \(.*\)|the server closed the connection "
        r"without a reply)" + RETRIED,
        2,
    ),
    "cut chunked body": (r"the reply ended early \(its chunked body is cut short or garbled\)" + RETRIED, 2),
    "chunked body": (2.0, 1),
    "not JSON": (
        r"the reply is not JSON \(JSONDecodeError: Expecting value: line 1 column 1 \(char 0\); "
        r"it starts b'<html><body>busy</body></html>'\)" + RETRIED,
        2,
    ),
    "not UTF-8": (r"the reply is not JSON \(.*\)" + RETRIED, 2),
    "nested too deep": (r"the reply is not JSON \(RecursionError.*\)" + RETRIED, 2),
    "empty body": ("the reply is empty" + RETRIED, 2),
    "hang": (r"timed out \(after 2 tries of 5 s each\)", 2),
    "drip": (r"timed out \(after 2 tries of 5 s each\)", 2),
    "drip headers": (r"timed out \(after 2 tries of 5 s each\)", 2),  # each byte restarts a socket's timeout
    # a body without a length, cut where the time ran out, is no whole reply
    "drip without length": (r"timed out \(after 2 tries of 5 s each\)", 2),
    "HTTP 503": ("HTTP 503 Service Unavailable: overloaded" + RETRIED, 2),
    "HTTP 429 once": (2.0, 2),
    "HTTP 502 once": (2.0, 2),
    "HTTP 400": ("HTTP 400 Bad Request: prompt too long", 1),
    "HTTP 404": ("HTTP 404 Not Found", 1),
    "a list": (r"the reply is not a chat completion: no choices\[0\]\.message\.content in a list", 1),
    "a number": (r"the reply is not a chat completion: no choices\[0\]\.message\.content in a number", 1),
    "no choices": (
        r"the reply is not a chat completion: no choices\[0\]\.message\.content in an object with "
        r"keys choices",
        1,
    ),
    "no message": (r"the reply is not a chat completion: .* keys choices", 1),
    "an error object": ("the endpoint answered with an error: model not loaded", 1),
    "null content": (r"the reply's message has no content \(null\)", 1),
    "boolean content": ("the reply's content is true, not text", 1),
    "image part only": (r"the reply's content has no text part \(1 part\)", 1),
    "object content": (r"the reply's content has no text part \(1 part\)", 1),
    "no number": ("no number in the answer 'I cannot tell.'", 1),
    "number content": (2.0, 1),
    "float content": (2.5, 1),
    "text parts": (2.0, 1),
    "string parts": (2.0, 1),
    "one text part": (2.0, 1),
    "parts as blocks": (2.5, 1),
    "choices out of order": (2.5, 1),
    "choices, none index 0": ("the reply holds 2 choices and none has index 0: which one answers is unknown", 1),
    "content filter": (
        r'the endpoint\'s content filter stopped the reply \(finish_reason "content_filter"\); '
        "what came before holds no whole final answer",
        1,
    ),
    "refusal": (r"the model refused: I cannot help\.", 1),
    "cut event stream": (
        r"the reply ended early \(its event stream stopped before a finish_reason or \[DONE\]\)" + RETRIED,
        2,
    ),
    "cut event stream once": (2.0, 2),
    "event stream without [DONE]": (2.0, 1),
}
MODES = list(BEHAVIOUR)
#: the example of each mode: an immediate names the mode, two registers make renamings
PROGRAMS = [f"movq ${300 + k}, %rax\naddq %rax, %rbx" for k in range(len(MODES))]


class Misbehaving(socketserver.StreamRequestHandler):
    """One request per connection; the program's immediate picks the mode."""

    seen: dict = {}
    lock = threading.Lock()
    stop = threading.Event()
    #: what GET /v1/models answers
    models: bytes = _reply("200 OK", b'{"data": [{"id": "toy-model"}]}')

    def handle(self):
        line = self.rfile.readline()
        headers = {}
        while (h := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
            k, _, v = h.decode().partition(":")
            headers[k.strip().lower()] = v.strip()
        body = self.rfile.read(int(headers.get("content-length", 0)))
        if line.startswith(b"GET"):
            self.send(self.models)
            return
        prompt = json.loads(body)["messages"][0]["content"]
        program = prompt.split("<block>\n", 1)[1].split("\n</block>", 1)[0]
        mode = MODES[int(re.search(r"\$(\d+)", program).group(1)) - 300]
        with self.lock:
            tries = self.seen[program] = self.seen.get(program, 0) + 1
        self.send(BEHAVIOUR[mode](tries))

    def send(self, what):
        try:
            if what == "hang":
                self.stop.wait()
            elif what == "drip":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                while not self.stop.is_set():
                    self.wfile.write(b" ")
                    time.sleep(0.05)
            elif what == "drip without length":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + _chat(RIGHT)[:-1])
                while not self.stop.is_set():
                    self.wfile.write(b" ")
                    time.sleep(0.05)
            elif what == "drip headers":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                while not self.stop.is_set():
                    self.wfile.write(b"x")
                    time.sleep(0.05)
            elif what == "reset":
                self.wfile.write(_reply("200 OK", _chat(RIGHT)[:10], length=300))
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.request.close()
            elif what != "close":
                self.wfile.write(what)
        except OSError:  # the client gave up first
            pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    # every connection of the audit's 16 threads waits in the queue: with the
    # default 5, a dropped connection is tried again seconds later (a timeout)
    request_queue_size = 128


@pytest.fixture
def misbehaving(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    Misbehaving.seen = {}
    Misbehaving.stop = threading.Event()
    server = Server(("127.0.0.1", 0), Misbehaving)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    Misbehaving.stop.set()
    server.shutdown()
    server.server_close()


def test_every_misbehaviour_of_an_endpoint_is_a_retry_or_that_examples_error(misbehaving):
    # a generous timeout: the server answers at once, or never (hang, drip)
    result = audit(misbehaving, PROGRAMS, task="bhive", prompt=PROMPT, variants=1, timeout=5, retries=1, concurrency=16)
    assert set(EXPECTED) == set(BEHAVIOUR)
    assert result.examples == len(MODES) and result.model["name"] == "toy-model"
    assert result.errors + result.audited == len(MODES)
    for mode, program, rec in zip(MODES, PROGRAMS, result.records):
        want, tries = EXPECTED[mode]
        if isinstance(want, float):
            assert rec["error"] is None, (mode, rec["error"])
            assert rec["prediction"] == want and rec["violation"] is False, mode
        else:
            assert rec["stage"] == "model" and re.fullmatch("original: " + want, rec["error"]), (mode, rec["error"])
        # the original and its variant (a renaming drawn at random: maybe the same text) were each asked so often
        asked = sum(n for t, n in Misbehaving.seen.items() if f"${300 + MODES.index(mode)}," in t)
        assert Misbehaving.seen[program] in (tries, 2 * tries) and asked == 2 * tries, mode


def test_a_reply_longer_than_the_limit_is_that_examples_error(misbehaving, monkeypatch):
    monkeypatch.setattr(http_adapter, "MAX_REPLY", 1000)
    monkeypatch.setitem(BEHAVIOUR, "ok", lambda t: _reply("200 OK", _chat(RIGHT + " " * 5000)))
    result = audit(misbehaving, PROGRAMS[:1], task="bhive", prompt=PROMPT, variants=1, timeout=5, retries=1)
    assert result.records[0]["error"] == "original: the reply is longer than 1,000 bytes"
    assert Misbehaving.seen[PROGRAMS[0]] == 1


def test_a_refused_connection_fails_every_example_and_the_audit_still_reports(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = audit(
        f"http://127.0.0.1:{port}/v1#toy-model",
        PROGRAMS[:3],
        task="bhive",
        prompt=PROMPT,
        variants=2,
        timeout=5,
        retries=1,
    )
    assert (result.examples, result.audited, result.errors) == (3, 0, 3)
    assert {f["error"] for f in result.failed} == {"original: connection refused (after 2 tries)"}
    assert result.violation_rate is None


@pytest.mark.parametrize(
    "reply, why",
    [
        (_reply("200 OK", b'{"data": [{"id": "toy"}]}', length=400), r"the reply ended early"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", r"the reply is not HTTP"),
        ("close", r"the server closed the connection without a reply"),
        (_reply("200 OK", b"not json"), r"the reply is not JSON"),
        (_reply("200 OK", b'{"data": []}'), r"no data\[0\]\.id in the reply \(IndexError: list index out of range\)"),
        (_reply("200 OK", b'[1]'), r"no data\[0\]\.id in the reply \(TypeError: .*\)"),
        (_reply("500 Internal Server Error", b"{}"), r"HTTP 500 Internal Server Error"),
    ],
)
def test_an_endpoint_whose_model_list_is_broken_is_named_in_one_error(
    invoke, misbehaving, tmp_path, monkeypatch, reply, why
):
    monkeypatch.setattr(Misbehaving, "models", reply)
    result = _audit_blocks(invoke, misbehaving, tmp_path, PROGRAMS[0] + "\n", "--timeout", "5")
    assert result.exit_code == 1, result.output
    assert re.search(
        f"error: cannot list the endpoint's models \\({why}.*\\); name one as URL#MODEL$", result.stderr
    ), result.stderr


def test_the_command_finishes_with_its_report_whatever_the_replies(invoke, misbehaving, tmp_path):
    # the replies that once stopped the whole audit with an internal error, beside good ones
    picked = ["ok", "short body", "not HTTP", "number content", "text parts", "garbage bytes", "a list"]
    blocks = "\n\n".join(PROGRAMS[MODES.index(m)] for m in picked) + "\n"
    options = ("--variants", "2", "--timeout", "5", "--retries", "1", "--format", "json")
    result = _audit_blocks(invoke, misbehaving, tmp_path, blocks, *options)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["examples"], report["audited"], report["errors"]) == (7, 3, 4)
    assert [f["index"] for f in report["failed"]] == [1, 2, 5, 6]
    assert result.stderr.count("error: the model failed on this example") == 4
