"""The reply cache: one SQLite file that threads and processes share; an
audit run again with the same settings sends no request, and one with
another repeat index or other request settings asks again; only usable
replies are kept, and a changed reader re-reads them."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from invar.audit.models import Failure, Fate, HttpAdapter, Reply
from invar.audit.replies import FILE, ReplyCache, _set_up, default_directory
from invar.errors import InvarError
from tests.audit.test_http_replies import PROMPT, Response, chat, program_of, served, sse

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["movq $1, %rax", "movq $2, %rbx", "movq $3, %rcx"]
CACHED = Fate(tries=0, rate_limited=0, waited=0.0, cached=True)


def answer(request: dict, n: int) -> Response:
    return chat(f"About {program_of(request).split('$')[1].split(',')[0]} cycles.")


def read(text: str, truncated: bool) -> int:
    words = text.split()
    if len(words) < 2:
        raise ValueError(f"no number in {text!r}")
    return int(words[1])


@pytest.fixture(autouse=True)
def _loopback(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


# ------------------------------------------------------------------ the store
def test_a_reply_is_kept_under_its_key(tmp_path):
    cache = ReplyCache(tmp_path / "c")
    assert cache.get("k") is None and len(cache) == 0
    assert cache.put("k", {"choices": [{"message": {"content": "2"}}]})
    assert cache.get("k") == {"choices": [{"message": {"content": "2"}}]}
    assert cache.put("k", {"choices": []}) and cache.get("k") == {"choices": []} and len(cache) == 1
    # another connection (another adapter, another process) reads what this one wrote
    assert ReplyCache(tmp_path / "c").get("k") == {"choices": []}
    assert (tmp_path / "c" / FILE).is_file()
    with sqlite3.connect(tmp_path / "c" / FILE) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_row_that_is_not_a_reply_is_a_miss(tmp_path):
    cache = ReplyCache(tmp_path)
    with sqlite3.connect(tmp_path / FILE) as db:
        db.execute("INSERT INTO replies VALUES ('bad', '{not json')")
        db.execute("INSERT INTO replies VALUES ('list', '[1, 2]')")
    assert cache.get("bad") is None and cache.get("list") is None and cache.errors == 2


def test_a_cache_that_cannot_be_opened_is_an_error(tmp_path):
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(InvarError, match="cannot open the reply cache"):
        ReplyCache(tmp_path / "file")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / FILE).write_bytes(b"not a database" * 100)
    with pytest.raises(InvarError, match="cannot open the reply cache"):
        ReplyCache(tmp_path / "d")


@pytest.mark.parametrize(
    "env, want",
    [
        ({"INVAR_REPLY_CACHE": "/x/replies", "XDG_CACHE_HOME": "/y"}, "/x/replies"),
        ({"INVAR_REPLY_CACHE": "", "XDG_CACHE_HOME": "/y"}, "/y/invar/replies"),
        ({"INVAR_REPLY_CACHE": None, "XDG_CACHE_HOME": None, "HOME": "/home/u"}, "/home/u/.cache/invar/replies"),
    ],
)
def test_the_default_directory(monkeypatch, env, want):
    for k, v in env.items():
        if v is None:
            monkeypatch.delenv(k, raising=False)
        else:
            monkeypatch.setenv(k, v)
    assert default_directory() == Path(want)


@pytest.mark.parametrize("case", ["one", "another"])
def test_every_test_has_a_cache_of_its_own(case, request, tmp_path_factory):
    named = default_directory()
    assert named.parent == tmp_path_factory.getbasetemp() / "reply-caches"
    assert named.name == hashlib.sha1(request.node.nodeid.encode()).hexdigest()  # the test's own


def test_threads_share_one_cache(tmp_path):
    cache = ReplyCache(tmp_path)

    def work(t: int) -> None:
        for k in range(100):
            cache.put(f"{t}-{k}", {"t": t, "k": k})
            assert cache.get(f"{t}-{k}") == {"t": t, "k": k}

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(cache) == 800 and cache.errors == 0


WRITER = """
import sys
from invar.audit.replies import ReplyCache
cache = ReplyCache(sys.argv[1])
for k in range(300):
    assert cache.put(f"{sys.argv[2]}-{k}", {"k": k, "by": sys.argv[2]})
    assert cache.get(f"{sys.argv[2]}-{k}") == {"k": k, "by": sys.argv[2]}
print(cache.errors)
"""


def test_processes_share_one_cache(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), name], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        for name in ("a", "b")
    ]
    cache = ReplyCache(tmp_path)
    for k in range(300):  # this process writes while they do
        assert cache.put(f"c-{k}", {"k": k})
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and [o.strip() for o, _ in outs] == ["0", "0"]
    assert len(cache) == 900 and cache.get("b-299") == {"k": 299, "by": "b"}


# ------------------------------------------------------------ in the adapter
def run(url: str, directory, texts=TEXTS, repeat: int = 0, reader=read, **options) -> tuple[list, dict]:
    adapter = HttpAdapter(url, PROMPT, reader, cache=ReplyCache(directory), **options)
    return adapter.predict(texts, 8, repeat=repeat), adapter.requests()


def test_a_run_again_with_the_same_settings_sends_nothing(tmp_path):
    with served(answer) as (url, script):
        first, counts = run(url, tmp_path, temperature=0.5, seed=3)
        assert script.sent == 3 and counts["sent"] == 3 and counts["from_cache"] == 0
        again, counts = run(url, tmp_path, temperature=0.5, seed=3)
        assert script.sent == 3
    assert [o.value for o in first] == [o.value for o in again] == [1, 2, 3]
    assert [o.fate for o in again] == [CACHED] * 3
    assert counts == {
        "inputs": 3,
        "sent": 0,
        "from_cache": 3,
        "retries": 0,
        "rate_limited": 0,
        "waited": 0.0,
        "failed": 0,
        "lowest_concurrency": 8,
    }


@pytest.mark.parametrize(
    "change",
    [{"repeat": 1}, {"temperature": 0.7}, {"max_tokens": 100}, {"seed": 1}, {"url": "#other-model"}],
    ids=["repeat", "temperature", "max_tokens", "seed", "model"],
)
def test_another_repeat_or_other_settings_ask_again(tmp_path, change):
    change = dict(change)
    model = change.pop("url", "")
    with served(answer) as (url, script):
        run(url, tmp_path)
        assert script.sent == 3
        out, counts = run(url + model, tmp_path, **change)
        assert script.sent == 6 and counts["from_cache"] == 0
        run(url + model, tmp_path, **change)  # and what it was answered is kept in its turn
        assert script.sent == 6
    assert [o.value for o in out] == [1, 2, 3]


@pytest.mark.parametrize(
    "failing",
    [
        Response(500, b'{"error": "crashed"}'),
        Response(429, b"{}", {"Retry-After": "5"}),  # past the budget: the input fails after its first try
        Response(200, b'{"error": {"message": "model not loaded"}}'),
        Response(200, b"<html>busy</html>"),
        chat(None, tool_calls=[{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]),
        chat(None, finish="length", reasoning_content="thinking"),
        chat(""),
    ],
    ids=["500", "429", "error object", "not JSON", "tool call", "reasoning only", "empty"],
)
def test_failures_are_not_kept(tmp_path, failing):
    first = True

    def respond(request, n):
        return failing if first else answer(request, n)

    with served(respond) as (url, script):
        out, _ = run(url, tmp_path, retries=0, budget=2.0)
        assert all(isinstance(o, Failure) for o in out) and len(ReplyCache(tmp_path)) == 0
        sent = script.sent
        first = False
        out, counts = run(url, tmp_path)
        assert script.sent == sent + 3 and counts["from_cache"] == 0
    assert [o.value for o in out] == [1, 2, 3]


def test_a_changed_reader_rereads_the_kept_replies(tmp_path):
    def picky(text: str, truncated: bool):
        raise ValueError(f"no answer in {text!r}")

    with served(answer) as (url, script):
        out, _ = run(url, tmp_path, reader=picky)
        assert [o.message for o in out] == [f"no answer in 'About {k} cycles.'" for k in (1, 2, 3)]
        out, _ = run(url, tmp_path)
        assert script.sent == 3
    assert out == [Reply(k, fate=CACHED) for k in (1, 2, 3)]


def test_a_streamed_reply_is_kept_as_one_chat_completion(tmp_path):
    streamed = sse({"reasoning_content": "7?"}, {"content": "About "}, {"content": "4 cycles."}, finish="length")
    with served(lambda request, n: streamed) as (url, script):
        run(url, tmp_path, texts=TEXTS[:1])
        out, _ = run(url, tmp_path, texts=TEXTS[:1], reader=lambda text, truncated: (text, truncated))
        assert script.sent == 1
    assert out == [Reply(("About 4 cycles.", True), fate=CACHED)]
    (stored,) = [ReplyCache(tmp_path).get(k) for k in _keys(tmp_path)]
    assert stored["choices"][0]["message"] == {
        "role": "assistant",
        "content": "About 4 cycles.",
        "reasoning_content": "7?",
    }


def _keys(directory) -> list[str]:
    with sqlite3.connect(Path(directory) / FILE) as db:
        return [k for (k,) in db.execute("SELECT key FROM replies")]


def test_two_adapters_in_two_threads_share_one_cache_file(tmp_path):
    texts = [f"movq ${k}, %rax" for k in range(40)]
    results: dict = {}
    with served(answer) as (url, script):

        def work(name: str, part: list[str]) -> None:
            results[name] = run(url, tmp_path, texts=part, concurrency=4)

        # the two halves overlap by ten inputs: each of those is asked once or twice, and kept once
        threads = [
            threading.Thread(target=work, args=("a", texts[:25])),
            threading.Thread(target=work, args=("b", texts[15:])),
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        sent = script.sent
        again, counts = run(url, tmp_path, texts=texts)
        assert script.sent == sent and counts["from_cache"] == 40
    assert 40 <= sent <= 50 and sorted(_keys(tmp_path)) == sorted(set(_keys(tmp_path))) and len(_keys(tmp_path)) == 40
    assert [o.value for o in results["a"][0] + results["b"][0]] == list(range(25)) + list(range(15, 40))
    assert [o.value for o in again] == list(range(40)) and {o.fate for o in again} == {CACHED}


def test_the_same_request_in_flight_is_sent_once(tmp_path):
    """Inputs asked at once with one request wait for its reply: what a run
    sends does not depend on which thread got there first."""

    def slow(request, n):
        # held until every other input has had its turn to send (a missing
        # wait sends them before this reply is written)
        threading.Event().wait(0.5)
        return answer(request, n)

    with served(slow) as (url, script):
        out, counts = run(url, tmp_path, texts=[TEXTS[0]] * 6 + [TEXTS[1]] * 2)
        assert script.sent == 2
    assert [o.value for o in out] == [1] * 6 + [2] * 2
    assert (counts["sent"], counts["from_cache"], counts["inputs"]) == (2, 6, 8)


def test_a_request_in_flight_that_fails_is_asked_again_by_an_input_that_waited(tmp_path):
    """A failure is shared no more than it is cached: an input that waited
    asks in its turn, and the reply it gets answers the others."""

    def refuse_first(request, n):
        threading.Event().wait(0.3)
        if n == 1:
            return Response(400, b'{"error": {"message": "no"}}', {"Content-Type": "application/json"})
        return answer(request, n)

    with served(refuse_first) as (url, script):
        out, counts = run(url, tmp_path, texts=[TEXTS[0]] * 3, concurrency=3)
        assert script.sent == 2
    assert [type(o).__name__ for o in out].count("Failure") == 1
    assert sorted(o.value for o in out if isinstance(o, Reply)) == [1, 1]
    assert (counts["sent"], counts["from_cache"], counts["failed"]) == (2, 1, 1)


def test_a_new_cache_set_up_while_another_sets_it_up_waits_for_it():
    """SQLite answers a change of journal mode that meets another's with
    "locked" at once, whatever the busy timeout: shards started together
    on a new cache file tried each step again, and none fails to open it."""

    class Locked:
        def __init__(self) -> None:
            self.done: list[str] = []
            self.refusals = 2

        def execute(self, statement: str):
            if "journal_mode" in statement and self.refusals:
                self.refusals -= 1
                raise sqlite3.OperationalError("database is locked")
            self.done.append(statement)

    db = Locked()
    _set_up(db)
    assert db.refusals == 0 and any("journal_mode = WAL" in s for s in db.done) and "CREATE TABLE" in db.done[-1]

    class Broken(Locked):
        def execute(self, statement: str):
            raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):  # not a lock: no waiting for it
        _set_up(Broken())


def test_eight_caches_opened_at_once_on_a_new_file_all_open(tmp_path):
    failures = []
    for k in range(40):
        directory = tmp_path / str(k)
        start = threading.Barrier(8)

        def open_one() -> None:
            start.wait()
            try:
                cache = ReplyCache(directory)
                cache.put(f"key{threading.get_ident()}", {"a": 1})
                cache.close()
            except Exception as err:  # noqa: BLE001 - any failure to open is what this test looks for
                failures.append(str(err))

        threads = [threading.Thread(target=open_one) for _ in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(ReplyCache(directory)) == 8
    assert not failures, failures[0]
