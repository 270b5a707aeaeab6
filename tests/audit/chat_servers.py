"""Chat models on loopback that behave in known ways, for the audit's tests.

A :class:`ChatServer` serves ``/v1/models`` and ``/v1/chat/completions``
like an OpenAI-compatible endpoint. Its answer is a function of the program
in the prompt (between ``<code>`` and ``</code>``) and of the request's
``seed``: the audit asks each repeat with another seed, so a behaviour that
mixes the seed into its answer samples, and one that does not is
deterministic. Every behaviour answers the bugs task ("Answer: 0" or
"Answer: 1") and is, by construction, one of:

* invariant, deterministic or sampled (its answer depends only on what the
  function does, here whether it compares with ``==``, flipped with a
  probability by a hash of the text and the seed: the same distribution for
  every variant);
* name-sensitive (a hash of the lines, sorted: reorderings leave it alone),
  order-sensitive (a hash of the lines' shapes in order, identifiers blanked:
  renamings leave it alone);
* constant; or reacting to nothing but the numbers written in the code.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

PROMPT = (
    "Does this Python function hold a bug (a misused variable or a swapped comparison)?\n"
    "<code>\n{program}\n</code>\nEnd with a line 'Answer: 1' (a bug) or 'Answer: 0'.\n"
)

_NAME = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"(?<![\w.])\d+")


def _unit(*parts: object) -> float:
    """A number in [0, 1) drawn by hashing ``parts``: random-looking, reproducible."""
    digest = hashlib.sha256("\0".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2**64


def _compares(program: str) -> int:
    return int("==" in program)


def invariant(program: str, seed: int) -> int:
    return _compares(program)


def sampled(noise: float) -> Callable[[str, int], int]:
    def answer(program: str, seed: int) -> int:
        flip = _unit("noise", program, seed) < noise
        return _compares(program) ^ flip

    return answer


def name_sensitive(program: str, seed: int) -> int:
    # the lines as a multiset: which name stands where, but not in which order
    # (a renaming permutes a function's own names, so the set of names is the same)
    lines = sorted(line.strip() for line in program.splitlines() if line.strip())
    return int(_unit("names", *lines) < 0.5)


def order_sensitive(program: str, seed: int) -> int:
    shapes = [_NAME.sub("x", line.strip()) for line in program.splitlines() if line.strip()]
    return int(_unit("order", *shapes) < 0.5)


def constant(program: str, seed: int) -> int:
    return 0


def numbers_only(program: str, seed: int) -> int:
    return sum(int(n) for n in _NUMBER.findall(program)) % 2


BEHAVIOURS: dict[str, Callable[[str, int], int]] = {
    "invariant": invariant,
    "sampled-0.1": sampled(0.1),
    "sampled-0.3": sampled(0.3),
    "name-sensitive": name_sensitive,
    "order-sensitive": order_sensitive,
    "constant": constant,
    "numbers-only": numbers_only,
}


class _Server(ThreadingHTTPServer):
    # more than 8 connections may wait to be accepted (the audit's default concurrency): past the default
    # backlog of 5, a connection waits a second for the kernel to retry it
    request_queue_size = 64


class LoopbackChat:
    """A threading HTTP server on 127.0.0.1 serving ``/v1/models`` (one
    model, ``model``) and ``/v1/chat/completions``, which answers with what
    :meth:`reply` writes for the request; ``requests`` counts the chat
    completions it was asked for."""

    model = "toy"

    def __init__(self) -> None:
        self.requests = 0
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def reply(self, request: dict) -> str:
        raise NotImplementedError

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._send({"object": "list", "data": [{"id": outer.model, "object": "model"}]})

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests += 1
                text = outer.reply(request)
                self._send(
                    {
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                        ]
                    }
                )

        return Handler


class ChatServer(LoopbackChat):
    """A chat model on loopback answering the bugs task with ``behaviour``."""

    def __init__(self, behaviour: Callable[[str, int], int]) -> None:
        self.behaviour = behaviour
        super().__init__()

    def reply(self, request: dict) -> str:
        prompt = request["messages"][0]["content"]
        program = prompt.split("<code>\n", 1)[1].rsplit("\n</code>", 1)[0]
        verdict = self.behaviour(program, request.get("seed", 0))
        return f"Looking at the function, I see {len(program.splitlines())} lines.\nAnswer: {verdict}"
