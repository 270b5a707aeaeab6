"""What invar's HTTP adapter costs beside the requests themselves: an
endpoint that answers at once (in its own process), asked the same chat
completions by invar's adapter at ``--concurrency 8`` and by a plain loop of
8 threads with no invar code (urllib, json; the same bodies, the reply's
content taken), alternating, medians over repeats.

    python bench/bench_http_overhead.py [--requests 2000] [--repeat 5] [--report overhead.json]

invar's share of the wall time is (invar − plain) / invar; the target is at
most 5 %. Against a real model every request takes far longer, so the share
there is smaller still. Two more rows say what the reply cache costs: every
reply new (looked up, then stored), and every reply found (nothing sent).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import machine, median, repeat

from invar.audit.http import HttpAdapter
from invar.audit.replies import ReplyCache

PROMPT = "How many cycles per iteration does this block take?\n<block>\n{program}\n</block>\n"
REPLY = json.dumps(
    {
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "About 2 cycles."}, "finish_reason": "stop"}
        ],
    }
).encode()
HEAD = (
    f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(REPLY)}\r\nConnection: close\r\n\r\n"
).encode()
#: the most invar's adapter may add, as a share of the wall time
TARGET = 0.05


class Instant(BaseHTTPRequestHandler):
    """Reads the request, answers one chat completion at once."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.wfile.write(HEAD + REPLY)  # in one write: no delayed ACK between headers and body
        self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # the listen backlog, read when the server starts listening: with the
    # default 5, connections past it are dropped and tried again a second later
    request_queue_size = 256


def serve(port_out) -> None:
    server = Server(("127.0.0.1", 0), Instant)
    port_out.put(server.server_address[1])
    server.serve_forever()


def plain(url: str, texts: list[str], concurrency: int = 8) -> list[str]:
    """The same requests with no invar code: 8 threads, urllib, json."""

    def one(text: str) -> str:
        body = json.dumps(
            {
                "model": "toy-model",
                "messages": [{"role": "user", "content": PROMPT.replace("{program}", text)}],
                "stream": False,
                "max_tokens": 1024,
                "temperature": 0.0,
                "seed": 0,
            }
        ).encode()
        request = urllib.request.Request(
            url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["choices"][0]["message"]["content"]

    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, texts))


def through_invar(url: str, texts: list[str], cache: ReplyCache | None = None) -> list[str]:
    adapter = HttpAdapter(url + "#toy-model", PROMPT, lambda text, truncated: text, concurrency=8, cache=cache)
    out = adapter.predict(texts, 8)
    assert adapter.requests()["failed"] == 0, adapter.requests()
    return [o.value for o in out]


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/audit.md shows."""
    n, shares = report["args"]["requests"], report["invar_share"]
    lines = ["| arm | median s | requests/s | invar's share of the wall time |", "|---|---|---|---|"]
    for arm, seconds in report["median_seconds"].items():
        share = f"{100 * shares[arm]:+.1f} %" if arm in shares else "–"
        lines.append(f"| {arm} | {seconds:.3f} | {n / seconds:,.0f} | {share} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    ports = multiprocessing.get_context("spawn").Queue()
    server = multiprocessing.get_context("spawn").Process(target=serve, args=(ports,), daemon=True)
    server.start()
    url = f"http://127.0.0.1:{ports.get(timeout=60)}/v1"
    texts = [f"movq ${k}, %rax\naddq %rax, %rbx" for k in range(args.requests)]
    try:
        assert plain(url, texts[:50]) == through_invar(url, texts[:50]) == ["About 2 cycles."] * 50
        times: dict[str, list[float]] = {"plain": [], "invar": [], "invar, cache missed": [], "invar, cache hit": []}
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.repeat):
                times["plain"] += repeat(lambda: plain(url, texts), 1)
                times["invar"] += repeat(lambda: through_invar(url, texts), 1)
                cache = ReplyCache(f"{tmp}/{r}")  # a fresh one: every reply looked up, missed, then stored
                times["invar, cache missed"] += repeat(lambda: through_invar(url, texts, cache), 1)
                times["invar, cache hit"] += repeat(lambda: through_invar(url, texts, cache), 1)
    finally:
        server.terminate()
    medians = {k: median(v) for k, v in times.items()}
    shares = {k: (medians[k] - medians["plain"]) / medians[k] for k in ("invar", "invar, cache missed")}
    result = {
        "machine": machine(),
        "args": vars(args),
        "seconds": times,
        "median_seconds": medians,
        "requests_per_second": {k: args.requests / v for k, v in medians.items()},
        "invar_share": shares,
        "target": TARGET,
        "met": shares["invar"] <= TARGET,
    }
    if args.report:
        with open(args.report, "w") as f:
            json.dump(result, f, indent=2)
    print(f"machine: {machine()}")
    for k, v in medians.items():
        print(f"{k:22s} {v:7.3f} s  ({args.requests / v:,.0f} requests/s)")
    for k, v in shares.items():
        print(f"{k}: invar's share of the wall time {100 * v:+.1f} % (target at most {100 * TARGET:.0f} %)")
    return result


if __name__ == "__main__":
    main()
