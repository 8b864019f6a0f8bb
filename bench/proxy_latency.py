"""What the OpenAI-compatible proxy adds: time to first byte and total, proxy vs direct.

One command::

    .venv/bin/python bench/proxy_latency.py [--requests 400] [--upstream openai|anthropic]

Starts FakeOpenAIServer (a scripted upstream, no model behind it) and ``memoryd serve``
(a separate process, SQLite, proxy pointed at the fake upstream) with a user who has 5
global and 20 workspace memories, so every proxied turn embeds the query, reranks 20
memories, injects 10 and records the exchange. Every request carries a user message no
earlier request had (the retrieval set's queries with varied openers and closers, then
numbered), so no query embedding comes from a cache, and every answer differs (numbered),
so the background pre-embedding of each stored exchange is real work too. Requests go
alternately straight to the upstream (the baseline) and through the proxy, streamed and
not, and it prints p50/p95 of both and the difference, all measured in this one run.

``--upstream openai`` (default) relays an OpenAI-compatible upstream byte for byte;
``--upstream anthropic`` goes through the provider path (``AnthropicProvider`` against
the fake's ``/v1/messages``, streamed with Anthropic's events or not), and its baseline
is the same request, in Anthropic's shape, straight to the fake's ``/v1/messages``. Time
to first byte is the first body bytes either way: the direct stream's first event is
``message_start``, the proxy's first chunk waits for the first text piece (the fake sends
them all at once, so the two are as far apart as memoryd makes them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.config import default_data_dir
from memoryd.testing import FakeOpenAIServer, Reply

ANSWER = "Here is a medium-sized answer to your question, " * 8
DATA = Path(__file__).parent / "data" / "retrieval.json"
OPENERS = ("", "Quick question: ", "Hey, ", "One more thing. ", "Okay, next: ", "Also, ")
CLOSERS = ("", " Thanks!", " Keep it short please.", " Just double-checking.", " No rush.")


def unseen_messages(seed: int = 11) -> Iterator[str]:
    """Endless user messages, each different from all before it, with the last question
    numbered ("... (case 12)?"): the default reranker embeds a question behind short
    remarks on its own, so without the number the same question with another opener or
    closer would come from the query cache (31% of requests did)."""
    queries = [q["message"] for p in json.loads(DATA.read_text())["pools"] for q in p["queries"]]
    combos = [f"{o}{q}{c}" for q, o, c in itertools.product(queries, OPENERS, CLOSERS)]
    random.Random(seed).shuffle(combos)
    more = (random.Random(n).choice(queries) for n in itertools.count(1))
    for n, message in enumerate(itertools.chain(combos, more), 1):
        at = message.rfind("?")
        yield f"{message[:at]} (case {n}){message[at:]}" if at >= 0 else f"{message} (case {n})"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def seed(url: str) -> str:
    """A user with 5 global and 20 workspace memories; returns their API key."""
    with Memoryd(url) as md:
        user = md.create_user("bench")
        md.create_workspace("work")
        for i in range(5):
            md.add_memory(user.id, f"Global fact number {i} about the bench user's life")
        topics = ["Python", "Rust", "Go", "SQL", "Kubernetes", "Terraform", "React", "Kafka"]
        for i in range(20):
            topic = topics[i % len(topics)]
            md.add_memory(
                user.id, f"The work project uses {topic} for component {i}", "workspace", "work"
            )
        auth = AuthStore(md.db)
        auth.add_member("work", user.id)
        return auth.create_api_key(user.id, "bench").secret


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def timed(
    client: httpx.Client, url: str, body: dict[str, object], headers: dict[str, str]
) -> tuple[float, float]:
    """(time to first body byte, total) in milliseconds."""
    start = time.perf_counter()
    with client.stream("POST", url, json=body, headers=headers) as response:
        first = None
        for chunk in response.iter_raw():
            if first is None and chunk:
                first = time.perf_counter()
        end = time.perf_counter()
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    return ((first or end) - start) * 1000, (end - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="per mode and target (≥300)")
    parser.add_argument("--upstream", choices=("openai", "anthropic"), default="openai")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memoryd-bench-"))
    url = f"sqlite:///{tmp / 'bench.db'}"
    key = seed(url)
    port = free_port()
    with FakeOpenAIServer() as upstream:
        # every answer is new too: the server embeds each stored reply for the next
        # turn's history, and the same answer every time would come from its cache
        answers = (f"Answer {n}: {ANSWER}" for n in itertools.count(1))
        upstream.responder = lambda body: Reply.text(next(answers))
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update(
            MEMORYD_DATA_DIR=str(tmp),
            MEMORYD_ADMIN_PASSWORD="bench-admin-password",
            MEMORYD_PROXY_PROVIDER=args.upstream,
            MEMORYD_PROXY_UPSTREAM_URL=(
                upstream.base_url if args.upstream == "openai" else upstream.base_url[:-3]
            ),
        )
        models = default_data_dir() / "models"  # the re-quantised embedder, made once
        (tmp / "models").mkdir()
        for made in models.glob("all-MiniLM-L6-v2.*.onnx"):  # not the extraction LLM (1 GB)
            shutil.copy2(made, tmp / "models" / made.name)
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "memoryd"), "serve", "--port", str(port),
             "--db", url, "--no-scheduler"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            run(upstream, port, key, args.requests, args.upstream, server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
            shutil.rmtree(tmp, ignore_errors=True)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(
    upstream: FakeOpenAIServer, port: int, key: str, count: int, kind: str, server_pid: int
) -> None:
    proxy = f"http://127.0.0.1:{port}"
    with httpx.Client(timeout=60) as client:
        deadline = time.monotonic() + 60
        while True:
            try:
                client.get(f"{proxy}/health").raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        messages = unseen_messages()
        direct = (
            f"{upstream.base_url}/chat/completions"
            if kind == "openai"
            else f"{upstream.base_url}/messages"
        )
        targets = {
            "direct": (direct, {}),
            "proxy": (
                f"{proxy}/v1/chat/completions",
                {"Authorization": f"Bearer {key}", "X-Memoryd-Workspace": "work"},
            ),
        }

        def body(stream: bool, direct: bool) -> dict[str, object]:
            chat = [{"role": "user", "content": next(messages)}]
            system = "You are a helpful assistant."
            if direct and kind == "anthropic":
                return {
                    "model": "fake-model",
                    "max_tokens": 1024,
                    "system": system,
                    "messages": chat,
                    "stream": stream,
                }
            opening = [{"role": "system", "content": system}]
            return {"model": "fake-model", "messages": opening + chat, "stream": stream}

        modes = (True, False)
        results: dict[tuple[str, bool], list[tuple[float, float]]] = {}
        server_cpu: dict[bool, float] = {}
        for stream in modes:
            for name, (url, headers) in targets.items():  # warm up
                for _ in range(10):
                    timed(client, url, body(stream, name == "direct"), headers)
            cpu_before = cpu_seconds(server_pid)
            for _ in range(count):
                for name, (url, headers) in targets.items():
                    results.setdefault((name, stream), []).append(
                        timed(client, url, body(stream, name == "direct"), headers)
                    )
            server_cpu[stream] = (cpu_seconds(server_pid) - cpu_before) * 1000 / count
    print(
        f"## Proxy latency, {kind} upstream ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC,"
        f" {count} requests per row, {load_average()})\n"
    )
    print(f"Command: `.venv/bin/python bench/proxy_latency.py --upstream {kind}`\n")
    columns = ["direct p50", "proxy p50", "added p50", "direct p95", "proxy p95", "added p95"]
    print(f"| mode | metric | {' | '.join(columns)} |")
    print("|---|---|---|---|---|---|---|---|")
    for stream in modes:
        for index, metric in ((0, "time to first byte"), (1, "total")):
            direct = [r[index] for r in results[("direct", stream)]]
            proxied = [r[index] for r in results[("proxy", stream)]]
            d50, p50 = percentile(direct, 50), percentile(proxied, 50)
            d95, p95 = percentile(direct, 95), percentile(proxied, 95)
            print(
                f"| {'stream' if stream else 'non-stream'} | {metric} | {d50:.1f} ms | "
                f"{p50:.1f} ms | +{p50 - d50:.1f} ms ({p50 / d50:.1f}x) | {d95:.1f} ms | "
                f"{p95:.1f} ms | +{p95 - d95:.1f} ms ({p95 / d95:.1f}x) |"
            )
    for stream in modes:
        print(
            f"\nmemoryd serve CPU per proxied request ({'stream' if stream else 'non-stream'}):"
            f" {server_cpu[stream]:.1f} ms (user + system, includes the background writer)"
        )
    mean = statistics.mean(r[1] for r in results[("proxy", modes[0])])
    print(f"\nmean proxied total ({'streamed' if modes[0] else 'not streamed'}): {mean:.1f} ms")


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f}/{five:.1f} (1/5 min) on {os.cpu_count()} CPUs"


if __name__ == "__main__":
    main()
