"""Audits of a model served behind an OpenAI-compatible endpoint, on a real
HTTP server on loopback started here: answers are parsed by the task; a
request that times out and one the server fails are reported, and nothing is
lost."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

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
        self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant",
                                                               "content": f"About {count:g} cycles."}}]})


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


def test_audit_of_an_http_endpoint_survives_timeouts_and_errors(invoke, endpoint, tmp_path):
    (tmp_path / "blocks.s").write_text(BLOCKS)
    (tmp_path / "prompt.txt").write_text(PROMPT)
    result = invoke("audit", "--model", endpoint, "--prompt", tmp_path / "prompt.txt", "--task", "bhive",
                    "--dataset", tmp_path / "blocks.s", "--variants", "3", "--timeout", "2", "--retries", "1",
                    "--concurrency", "4", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["model"] == {"kind": "http", "path": endpoint, "name": "toy-model"}
    assert (report["examples"], report["audited"], report["errors"]) == (5, 3, 2)
    failed = {f["id"]: f["error"] for f in report["failed"]}
    assert failed == {
        "blocks.s:4": "original: timed out (after 2 tries, 2 s each)",
        "blocks.s:7": "original: HTTP 500 Internal Server Error (after 2 tries, 2 s each)",
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
    (tmp_path / "p.txt").write_text("no placeholder")
    result = invoke("audit", "--model", endpoint, "--task", "bhive", "--dataset", tmp_path / "blocks.s")
    assert result.exit_code == 2 and "needs --prompt" in result.stderr
    result = invoke("audit", "--model", endpoint, "--prompt", tmp_path / "p.txt", "--task", "bhive",
                    "--dataset", tmp_path / "blocks.s")
    assert result.exit_code == 2 and "no {program} placeholder" in result.stderr
