"""The sandbox (invar/sandbox.py): calls run in a child process, fenced off.

A program that loops forever (in Python or in C), allocates without bound,
writes outside its directory, opens a socket, forks, starts a process or a
thread, or ends its interpreter becomes that call's error within its
limits; the calls after it in the batch still run; nothing outside the
child's temporary directory changes, and that directory is removed. The
environment is scrubbed, and results are canonical literals written alike
in both processes.
"""

from __future__ import annotations

import ast
import os
import socket
import tempfile

import pytest

from invar.errors import UsageError
from invar.sandbox import Call, Limits, environment, literal, run

#: one second per call: the misbehaving calls below stop within seconds
QUICK = Limits(seconds=1.0, memory=256 << 20, batch=50)


def _f(body: str) -> str:
    return "def f():\n" + "".join(f"    {line}\n" for line in body.split("\n"))


# ------------------------------------------------------------------ literals
@pytest.mark.parametrize(
    "value, text",
    [
        (None, "None"),
        (True, "True"),
        (3, "3"),
        (-0.5, "-0.5"),
        (1.0, "1.0"),
        ((1 + 2j), "(1+2j)"),
        ("a'b", '"a\'b"'),
        (b"\x00", "b'\\x00'"),
        ([1, (2,)], "[1, (2,)]"),
        ((), "()"),
        ({"b": 1, "a": [2]}, "{'b': 1, 'a': [2]}"),
        ({"b", "a", "c"}, "{'a', 'b', 'c'}"),
        (set(), "set()"),
        ({(2, 1), (1, 2)}, "{(1, 2), (2, 1)}"),
    ],
)
def test_a_literal_is_canonical_and_reads_back_as_an_equal_value(value, text):
    assert literal(value) == text
    assert ast.literal_eval(text) == value


@pytest.mark.parametrize(
    "value", [float("inf"), float("nan"), frozenset({1}), object(), len, iter([1]), type("Int", (int,), {})(3)]
)
def test_what_has_no_literal_is_a_type_error(value):
    with pytest.raises(TypeError):
        literal(value)


def test_a_recursive_list_has_no_literal():
    xs: list = []
    xs.append(xs)
    with pytest.raises(TypeError, match="nested"):
        literal(xs)


def test_the_child_writes_literals_as_the_parent_does():
    values = ["{'y', 'x', 'z', 'w'}", "[{3, 1, 2}, ('a',), {'k': {'q', 'p'}}]", "1.10", "-0.0", "(1+0j)", "b'ab'"]
    got = run([Call("", v) for v in values], QUICK, hash_seed=7)
    assert [o.value for o in got] == [literal(ast.literal_eval(v)) for v in values]


# ---------------------------------------------------------------- misbehaving
@pytest.fixture()
def outside(tmp_path, monkeypatch):
    """A directory outside the children's (theirs are made in tmp_path/children)."""
    children = tmp_path / "children"
    children.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(children))
    there = tmp_path / "outside"
    there.mkdir()
    (there / "kept.txt").write_text("kept")
    return there


def _server():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    return server


MISBEHAVING = [
    ("loops forever", "while True:\n    pass", "timeout"),
    ("loops forever in C", "import itertools\nreturn sum(itertools.repeat(1))", "timeout"),
    (
        "ignores the alarm",
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass",
        "timeout",
    ),
    # in blocks the address-space limit refuses at once, however busy the machine (no copying toward it)
    ("allocates without bound", "b = []\nwhile True:\n    b.append(bytes(64 << 20))", "memory"),
    ("writes outside", "open(OUTSIDE + '/new.txt', 'w').write('x')", "refused"),
    ("overwrites outside", "open(OUTSIDE + '/kept.txt', 'a').write('x')", "refused"),
    ("removes outside", "import os\nos.remove(OUTSIDE + '/kept.txt')", "refused"),
    ("escapes by a link", "import os\nos.symlink(OUTSIDE, 'link')\nopen('link/new.txt', 'w')", "refused"),
    ("opens a socket", "import socket\nsocket.create_connection(('127.0.0.1', PORT))", "refused"),
    ("opens a raw socket", "import _socket\n_socket.socket().connect(('127.0.0.1', PORT))", "refused"),
    ("forks", "import os\nos.fork()", "refused"),
    (
        "forks and catches the refusal",
        "import os\ntry:\n    os.fork()\nexcept BaseException:\n    pass\nreturn 1",
        "refused",
    ),
    ("starts a process", "import subprocess\nsubprocess.run(['true'])", "refused"),
    ("starts a thread", "import threading\nthreading.Thread(target=print).start()", "refused"),
    ("calls sys.exit", "import sys\nsys.exit(3)", "raised"),
    ("ends its interpreter", "import os\nos._exit(4)", "exit"),
    ("changes directory", "import os\nos.chdir('/')", "refused"),
    ("raises", "return 1 // 0", "raised"),
    ("returns an object", "return object()", "not literal"),
]


def test_a_misbehaving_call_is_its_own_error_and_the_batch_goes_on(outside):
    server = _server()
    port = server.getsockname()[1]
    calls = []
    for _name, body, _kind in MISBEHAVING:
        source = _f(body).replace("OUTSIDE", repr(str(outside))).replace("PORT", str(port))
        calls += [Call(source, "f()"), Call("def g(x):\n    return [x, x]\n", "g(2)")]
    try:  # a child per misbehaving call and the call after it, four at a time: the slow ones side by side
        got = run(calls, Limits(seconds=1.0, memory=256 << 20, batch=2), jobs=4)
    finally:
        with pytest.raises(BlockingIOError):  # no connection ever reached the server
            server.accept()
        server.close()
    for (name, _body, kind), bad, good in zip(MISBEHAVING, got[::2], got[1::2]):
        assert (name, bad.kind, bad.value) == (name, kind, None), bad.reason
        assert bad.reason
        assert (name, good.value) == (name, "[2, 2]")  # the call after it ran as ever
    assert sorted(p.name for p in outside.iterdir()) == ["kept.txt"]
    assert (outside / "kept.txt").read_text() == "kept"
    assert os.listdir(tempfile.tempdir) == []  # every child's directory is gone


def test_a_call_writes_and_reads_in_its_own_directory_which_is_then_removed(outside):
    body = (
        "import os\nopen('mine.txt', 'w').write('x')\n"
        "return (open('mine.txt').read(), os.path.basename(os.getcwd())[:11])"
    )
    [got] = run([Call(_f(body), "f()")], QUICK)
    assert got.value == "('x', 'invar-exec-')"
    assert os.listdir(tempfile.tempdir) == []


def test_the_environment_is_scrubbed_and_the_hash_seed_set(monkeypatch):
    monkeypatch.setenv("INVAR_SECRET", "do not pass")
    body = (
        "import os, sys\n"
        "return (sorted(os.environ), os.environ['PYTHONHASHSEED'], any('site-packages' in p for p in sys.path))"
    )
    [got] = run([Call(_f(body), "f()")], QUICK, hash_seed=5)
    assert ast.literal_eval(got.value) == (sorted(environment("/x", 5)), "5", False)


def test_the_same_hash_seed_gives_the_same_order_and_another_may_not():
    calls = [Call(_f("return list({'apple', 'pear', 'fig', 'plum', 'kiwi', 'lime', 'date', 'sloe'})"), "f()")]
    once, again = run(calls, QUICK, hash_seed=1), run(calls, QUICK, hash_seed=1)
    assert once == again
    others = {run(calls, QUICK, hash_seed=seed)[0].value for seed in (2, 3, 4)}
    assert others - {once[0].value}  # eight strings in one order in four seeds: (1/8!)^3 by chance


def test_batches_and_parallel_children_keep_the_calls_in_order():
    calls = [Call("def f(x):\n    return x * x\n", f"f({k})") for k in range(23)]
    got = run(calls, Limits(batch=5), jobs=2)
    assert [o.value for o in got] == [str(k * k) for k in range(23)]


@pytest.mark.parametrize("limits", [dict(seconds=0), dict(memory=1 << 20), dict(batch=0)])
def test_bad_limits_are_a_usage_error(limits):
    with pytest.raises(UsageError):
        Limits(**limits)
