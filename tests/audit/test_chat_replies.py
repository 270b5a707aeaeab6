"""Whole audits through endpoints that answer as chat models do: every reply
read for its answer or made that example's error, never a wrong number; a
sustained rate limit loses nothing; a re-run asks nothing twice.

The servers answer the bhive task with the invar prompt it ships (the
program in its ```asm fence) and a throughput that depends on the block's
register names, so a renaming moves the answer: an audit that misread the
replies as one number would report a violation rate of 0, as one did before
replies were read for their answer."""

from __future__ import annotations

import hashlib
import json

import pytest

from invar.audit import audit
from invar.audit.http import _served_as
from invar.audit.render import summary_rows
from tests.audit.test_http_replies import Response, served

BLOCKS = """\
addq %rax, %rbx
imulq %rbx, %rcx

movq $7, %rdx
addq %rdx, %rsi

movq 8(%rsp), %r8
addq %r8, %r9

subq %rax, %rdi
andq %rdi, %r11

xorq %r9, %r10
orq %r10, %r9
"""


def program_of(request: dict) -> str:
    prompt = request["messages"][0]["content"]
    return prompt.split("```asm\n", 1)[1].split("\n```", 1)[0]


def cycles(program: str) -> float:
    """The server's throughput for a block: a function of its spelling."""
    return 1 + int(hashlib.sha256(program.encode()).hexdigest(), 16) % 40 / 8


def message(content, **extra) -> dict:
    return {
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content, **extra}}
        ]
    }


def sse(text: str) -> Response:
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    events = [json.dumps({"choices": [{"index": 0, "delta": {"content": p}}]}) for p in pieces]
    events.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    body = "".join(f"data: {e}\n\n" for e in events) + "data: [DONE]\n\n"
    return Response(200, [body.encode()], {"Content-Type": "text/event-stream"})


def json_reply(body: dict) -> Response:
    return Response(200, json.dumps(body).encode(), {"Content-Type": "application/json"})


#: how each server writes the number n: every one must be read as n
STYLES = {
    "prose with x86-64 before": lambda n: json_reply(message(f"This x86-64 block takes about {n:g} cycles.")),
    "inline reasoning with counts": lambda n: json_reply(
        message(f"<think>The block has 7 instructions and 3 loads, so 2 ports…</think>\nAnswer: {n:g} cycles")
    ),
    "a product's generation first": lambda n: json_reply(message(f"On Haswell (Intel 4th gen), roughly {n:g}")),
    "a list of parts, then the answer": lambda n: json_reply(
        message(f"- 2 loads on ports 2 and 3\n- 1 multiply: 3 cycles of latency\n\nAnswer: {n:g} cycles")
    ),
    "answer: N": lambda n: json_reply(message(f"Each iteration retires 4 uops.\nanswer: {n:g}")),
    "reasoning in its own field": lambda n: json_reply(
        message(f"{n:g} cycles", reasoning_content="There are 7 instructions; 12 cycles would be the total.")
    ),
    "server-sent events": lambda n: sse(f"Roughly {n:g} cycles per iteration."),
    "parts of text": lambda n: json_reply(
        message([{"type": "text", "text": "About "}, {"type": "text", "text": f"{n:g} cycles."}])
    ),
    "output_text parts and plain strings": lambda n: json_reply(
        message([{"type": "output_text", "text": "About "}, f"{n:g} cycles."])
    ),
    "one part, not in a list": lambda n: json_reply(message({"type": "text", "text": f"About {n:g} cycles."})),
    # each part is a block of its own: the explicit answer still opens its line
    "a first estimate, then the answer, as parts": lambda n: json_reply(
        message(
            [
                {"type": "text", "text": "I first estimated 4 cycles per iteration."},
                {"type": "text", "text": f"Answer: {n:g} cycles"},
            ]
        )
    ),
    # the answer is the choice with index 0, wherever it stands
    "choices out of order": lambda n: json_reply(
        {
            "choices": [
                {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": "Answer: 99 cycles"}},
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": f"Answer: {n:g} cycles"},
                },
            ]
        }
    ),
}


@pytest.fixture
def blocks(tmp_path):
    path = tmp_path / "blocks.s"
    path.write_text(BLOCKS)
    return str(path)


@pytest.mark.parametrize("style", list(STYLES))
def test_every_reply_style_is_read_for_its_answer(style, blocks):
    asked: dict[str, float] = {}

    def respond(request, _n):
        program = program_of(request)
        asked[program] = cycles(program)
        return STYLES[style](asked[program])

    with served(respond) as (url, _script):
        result = audit(url, blocks, task="bhive", variants=3, seed=1)
    assert (result.report["audited"], result.report["errors"]) == (5, 0), result.report["failed"]
    for record in result.records:
        assert record["prediction"] == cycles(originals(blocks)[record["id"]])
    assert result.report["violations"] > 0  # the answers move under renaming, and the audit sees it


def originals(blocks: str) -> dict[str, str]:
    """Each example's text as the audit sends it, by id."""
    from invar.audit.datasets import load
    from invar.tasks import get_task

    return {ex.id: ex.parse().render() for ex in load(blocks, task=get_task("bhive")).examples}


@pytest.mark.parametrize(
    "reply, why",
    [
        (
            json_reply(
                message(
                    None,
                    tool_calls=[{"id": "1", "type": "function", "function": {"name": "estimate", "arguments": "{}"}}],
                )
            ),
            "tool call",
        ),
        (json_reply(message("", reasoning_content="7 instructions, about 2 cycles")), "reasoning"),
        (json_reply(message("Between 1.5 and 2 cycles.")), "range"),
        (json_reply(message("It takes 7 instructions and 3 loads.")), "number"),
        (json_reply(message("-2 cycles")), "positive"),
        (
            json_reply(
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "length",
                            "message": {"role": "assistant", "content": "Let me count: 7 instructions, then 3"},
                        }
                    ]
                }
            ),
            "token limit",
        ),
        # the server closes its stream mid-answer: no finish_reason, no [DONE]
        (
            Response(
                200,
                b'data: {"choices":[{"index":0,"delta":{"content":"Answer: "},"finish_reason":null}]}\n\n'
                b'data: {"choices":[{"index":0,"delta":{"content":"1"},"finish_reason":null}]}\n\n',
                {"Content-Type": "text/event-stream"},
                close=True,
            ),
            "the reply ended early (its event stream stopped before a finish_reason or [DONE]) (after 3 tries)",
        ),
        (
            json_reply(
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "content_filter",
                            "message": {"role": "assistant", "content": "The chain through %rbx makes it about 3"},
                        }
                    ]
                }
            ),
            "content filter",
        ),
        (json_reply(message(None, refusal="I cannot help with that.")), "the model refused: I cannot help with that."),
        (
            json_reply(
                {
                    "choices": [
                        {"index": 1, "finish_reason": "stop", "message": {"content": "Answer: 2 cycles"}},
                        {"index": 2, "finish_reason": "stop", "message": {"content": "Answer: 3 cycles"}},
                    ]
                }
            ),
            "none has index 0",
        ),
    ],
)
def test_a_reply_without_a_sure_answer_is_that_examples_error_never_a_number(reply, why, blocks):
    with served(lambda request, n: reply) as (url, _script):
        result = audit(url, blocks, task="bhive", variants=2)
    report = result.report
    assert (report["audited"], report["errors"]) == (0, 5)
    assert all(why in f["error"] for f in report["failed"]), report["failed"][0]["error"]
    assert all(r["prediction"] is None for r in result.records)


def test_a_sustained_rate_limit_loses_no_example(blocks):
    def respond(request, n):
        if n % 2 == 0:
            return Response(
                429, b'{"error": {"message": "slow down"}}', {"Content-Type": "application/json", "Retry-After": "1"}
            )
        return json_reply(message(f"Answer: {cycles(program_of(request)):g} cycles"))

    with served(respond) as (url, script):
        report = audit(url, blocks, task="bhive", variants=2).report
    assert (report["audited"], report["errors"]) == (5, 0)
    assert report["replies"]["rate_limited"] >= 5 and report["replies"]["sent"] == script.sent


def test_a_rerun_asks_nothing_the_cache_holds(blocks):
    def respond(request, _n):
        return json_reply(message(f"Answer: {cycles(program_of(request)):g} cycles"))

    with served(respond) as (url, script):
        first = audit(url, blocks, task="bhive", variants=3, repeats=2).report
        sent = script.sent
        again = audit(url, blocks, task="bhive", variants=3, repeats=2).report
        assert script.sent == sent  # the second audit sent nothing
        uncached = audit(url, blocks, task="bhive", variants=3, repeats=2, cache=False).report
        assert script.sent == sent + uncached["replies"]["inputs"]  # without the cache, every input is sent
    # within one run, a request asked twice (two variants spelt alike) is sent once, however the threads ran
    distinct = len({json.dumps(r, sort_keys=True) for r in script.requests[:sent]})
    assert first["replies"]["sent"] == sent == distinct
    assert first["replies"]["sent"] + first["replies"]["from_cache"] == first["replies"]["inputs"]
    assert again["replies"]["from_cache"] == again["replies"]["inputs"] == first["replies"]["inputs"]
    assert again["replies"]["sent"] == 0 and uncached["replies"]["from_cache"] == 0
    for key in ("violations", "noise", "metric"):
        assert again[key] == first[key]


def test_replies_say_which_model_answered_and_a_mix_is_a_note(blocks):
    """A reply names the model that answered (and its fingerprint): a re-run
    whose cached answers came from other weights than its fresh ones says so,
    since its disagreements may be the model's change."""
    revision = {"model": "coder-1", "system_fingerprint": "fp_a"}

    def respond(request, _n):
        return json_reply({**message(f"Answer: {cycles(program_of(request)):g} cycles"), **revision})

    with served(respond) as (url, _script):
        first = audit(url, blocks, task="bhive", variants=3).report
        revision.update(system_fingerprint="fp_b")  # new weights behind the same name
        again = audit(url, blocks, task="bhive", variants=3, repeats=2).report
    inputs = first["replies"]["inputs"]
    assert first["replies"]["served"] == {"coder-1 (fp_a)": inputs}
    assert not [n for n in first["trivial"]["notes"] if "served models" in n]
    # repeat 0 comes from the cache (the old weights), repeat 1 is asked anew
    assert again["replies"]["served"] == {"coder-1 (fp_a)": inputs, "coder-1 (fp_b)": inputs}
    (note,) = [n for n in again["trivial"]["notes"] if "served models" in n]
    assert note.startswith("the replies name 2 served models (coder-1 (fp_a): ") and "--no-cache" in note
    assert "reply cache" in note
    rows = {name: value for name, value, _ in summary_rows(again)}
    assert rows["answered by"] == f"coder-1 (fp_a) ({inputs:,}); coder-1 (fp_b) ({inputs:,})"


def test_several_models_within_one_run_are_a_note_of_their_own(blocks):
    """Replicas or a redeploy answer one run from several revisions: without
    the cache, the note says so rather than blame the cache."""

    def respond(request, n):
        fingerprint = f"fp_{n % 2}"  # two replicas behind one address
        return json_reply(
            {**message(f"Answer: {cycles(program_of(request)):g} cycles"), "system_fingerprint": fingerprint}
        )

    with served(respond) as (url, _script):
        report = audit(url, blocks, task="bhive", variants=3, cache=False).report
    assert len(report["replies"]["served"]) == 2 and report["replies"]["from_cache"] == 0
    (note,) = [n for n in report["trivial"]["notes"] if "served models" in n]
    assert "all asked in this run" in note and "cache" not in note


@pytest.mark.parametrize(
    "reply, expected",
    [
        ({"model": "m"}, "m"),
        ({"model": "m", "system_fingerprint": "fp"}, "m (fp)"),
        ({"system_fingerprint": "fp"}, "unnamed (fp)"),
        ({"model": "", "system_fingerprint": None}, None),
        ({"model": 3}, None),
        ([], None),
    ],
)
def test_the_served_model_is_read_from_the_reply(reply, expected):
    assert _served_as(reply) == expected
