"""A real OpenAI-compatible server in the loop: ``transformers serve`` (the
``serving`` extra of transformers: FastAPI and uvicorn), on the CPU and
offline, serves a tiny GPT-2 of random weights that the test saves with a
tokenizer built here (tests/audit/test_hf.py), and the audit asks it through
``http://127.0.0.1:PORT/v1`` as it would ask vLLM.

What the server writes is checked against transformers called directly
(greedy, the same chat template), and an audit through it end to end against
the answers those texts read as. The misbehaving servers of
tests/audit/test_http*.py and test_chat_*.py stay: a real server behaves
well, and they are how the audit's handling of the rest is tested."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from invar.audit import audit
from invar.audit.adapter import Failure, Reply
from invar.audit.models import open_model
from tests.audit.test_hf import PROGRAMS, PROMPT, generated, read_all, save_causal

#: seconds the server may take to start (importing transformers and torch on a busy CI machine)
START = 240
MAX_TOKENS = 6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _command() -> list[str]:
    """The ``transformers`` command of this Python's environment."""
    beside = Path(sys.executable).parent / "transformers"
    found = str(beside) if beside.exists() else shutil.which("transformers")
    assert found, "transformers' command is not installed (pip install 'transformers[serving]')"
    return [found]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``(url, model directory)`` of a running ``transformers serve``; stopped after the module's tests."""
    root = tmp_path_factory.mktemp("served")
    model = save_causal(root / "model")
    port = _free_port()
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": str(root / "hf-home"),
        "NO_PROXY": "*",
    }
    log = open(root / "server.log", "wb")
    server = subprocess.Popen(
        [*_command(), "serve", str(model), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait(server, url, root / "server.log")
        yield url, model
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _wait(server: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + START
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"transformers serve exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/models", timeout=5) as reply:
                if json.load(reply)["data"]:
                    return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.25)
    pytest.fail(f"transformers serve did not answer in {START} s:\n{log.read_text()[-3000:]}")


def _served_rule(ended: bool, tokens: int, limit: int) -> bool:
    # transformers serve says finish_reason "length" whenever it wrote max_tokens tokens, an end token among
    # them; invar reads the reply as cut short then (its own hf: adapter looks at the tokens instead)
    return tokens >= limit


def test_the_server_lists_the_model_and_writes_what_transformers_writes(served):
    url, model = served
    texts: list = []
    adapter = open_model(
        url,
        prompt=PROMPT,
        read=lambda text, truncated: texts.append(text) or text,
        max_tokens=MAX_TOKENS,
        concurrency=2,
        cache=None,
    )
    assert adapter.info()["name"] == str(model)
    got = adapter.predict(PROGRAMS, batch_size=len(PROGRAMS))
    made = generated(model, "causal", PROGRAMS, max_tokens=MAX_TOKENS)
    # a reply with no text at all (every token an end or special token) is refused before it is read
    assert [o.value if isinstance(o, Reply) else "" for o in got] == [text for text, _, _ in made]
    assert all(isinstance(o, Reply) and o.fate.tries == 1 for o in got if not isinstance(o, Failure))
    assert len(set(texts)) > 2


def test_an_audit_through_the_server_end_to_end(served):
    url, model = served
    data = [(p, "sorting") for p in PROGRAMS[:6]]
    settings = dict(
        task="classify",
        lang="python",
        prompt=PROMPT,
        max_tokens=MAX_TOKENS,
        variants=2,
        seed=1,
        controls=0,
        concurrency=2,
        cache=False,
    )
    sent: list[str] = []

    def recorder(texts):  # the same audit asked of a callable: the texts the server is sent, in order
        sent.extend(texts)
        return ["sorting"] * len(texts)

    recorded = audit(recorder, data, **settings).records
    result = audit(url, data, **settings)
    report = result.report
    assert report["model"] == {"kind": "http", "path": url, "name": str(model)}
    assert report["replies"]["sent"] == len(sent) and report["replies"]["from_cache"] == 0
    expected = read_all(
        generated(model, "causal", sent, max_tokens=MAX_TOKENS), max_tokens=MAX_TOKENS, truncated=_served_rule
    )
    at, audited = 0, 0
    for rec, asked in zip(result.records, recorded, strict=True):
        mine = expected[at : at + 1 + asked["variants"]]
        at += 1 + asked["variants"]
        if rec["error"] is not None:
            assert any(e.message in rec["error"] for e in mine if isinstance(e, Failure)), (rec["error"], mine)
            continue
        audited += 1
        assert rec["prediction"] == mine[0]
        assert Counter(dict(rec["metric"]["variant_predictions"])) == Counter(mine[1:])
    assert at == len(sent) and audited == report["audited"] >= 1
