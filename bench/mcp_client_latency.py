"""Latency of one chat turn's memories three ways: the library, ``MemorydClient.context``
and the MCP ``recall`` tool over streamable HTTP, in one run.

One command::

    .venv/bin/python bench/mcp_client_latency.py [--calls 300]

Seeds a user with 5 global and 20 workspace memories, starts ``memoryd serve`` (a separate
process, SQLite, one worker) on that database, and then, interleaved call by call, asks for
the turn's memories with ``Memoryd.context`` in this process (the baseline), with
``MemorydClient.context`` (REST, kept-alive connection) and with the MCP ``recall`` tool
through the SDK's client (one open session; each call is one HTTP POST). Every call sends
a message never sent before, so no query embedding comes from a cache; every call reranks
20 memories. Prints p50/p95 and the ratio to the library.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.client import MemorydClient
from memoryd.testing.live import free_port

TOPICS = ["Python", "Rust", "Go", "SQL", "Kubernetes", "Terraform", "React", "Kafka"]
VERBS = ["deploy", "test", "profile", "document", "migrate", "review", "monitor", "package"]


def seed(url: str) -> tuple[int, str]:
    """A user with 5 global and 20 workspace memories; (their id, an API key)."""
    with Memoryd(url) as md:
        user = md.create_user("bench")
        md.create_workspace("work")
        for i in range(5):
            md.add_memory(user.id, f"Global fact number {i} about the bench user's life")
        for i in range(20):
            topic = TOPICS[i % len(TOPICS)]
            md.add_memory(
                user.id, f"The work project uses {topic} for component {i}", "workspace", "work"
            )
        auth = AuthStore(md.db)
        auth.add_member("work", user.id)
        return user.id, auth.create_api_key(user.id, "bench").secret


def messages() -> Callable[[], str]:
    """A new, never-repeated question on every call."""
    count = 0

    def next_message() -> str:
        nonlocal count
        count += 1
        topic, verb = TOPICS[count % len(TOPICS)], VERBS[(count // 8) % len(VERBS)]
        return (
            f"How should we {verb} the {topic} part of ticket {count} before release {count // 3}?"
        )

    return next_message


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def wait_healthy(base: str) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            httpx.get(f"{base}/health", timeout=5).raise_for_status()
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


async def measure(
    url: str, base: str, user_id: int, key: str, calls: int, warmup: int
) -> dict[str, list[float]]:
    next_message = messages()
    times: dict[str, list[float]] = {"library": [], "client": [], "mcp": []}
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    with Memoryd(url) as md, MemorydClient(base, key) as client:
        async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as mcp:

            async def via_mcp(message: str) -> None:
                result = await mcp.call_tool("recall", {"query": message, "workspace": "work"})
                assert not result.is_error and result.structured_content is not None
                assert len(result.structured_content["memories"]) == 10

            async def via_library(message: str) -> None:
                assert len(md.context(user_id, "work", message).memories) == 10

            async def via_client(message: str) -> None:
                assert len(client.context(user_id, "work", message).memories) == 10

            targets: dict[str, Callable[[str], Awaitable[None]]] = {
                "library": via_library,
                "client": via_client,
                "mcp": via_mcp,
            }
            for i in range(warmup + calls):
                for name, target in targets.items():
                    message = next_message()
                    start = time.perf_counter()
                    await target(message)
                    if i >= warmup:
                        times[name].append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="measured calls per target")
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memoryd-bench-"))
    url = f"sqlite:///{tmp / 'bench.db'}"
    user_id, key = seed(url)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(MEMORYD_DATA_DIR=str(tmp), MEMORYD_ADMIN_PASSWORD="bench-admin-password")
    server = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.app", "serve", "--port", str(port), "--db", url,
         "--no-scheduler"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base)
        load_before = os.getloadavg()[0]
        times = anyio.run(measure, url, base, user_id, key, args.calls, args.warmup)
        load_after = os.getloadavg()[0]
    finally:
        server.terminate()
        server.wait(timeout=30)
    when = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    print(f"## recall latency: library vs MemorydClient vs MCP ({when})\n")
    print(f"Command: `.venv/bin/python bench/mcp_client_latency.py --calls {args.calls}`; ")
    print(f"load average {load_before:.1f} before, {load_after:.1f} after.\n")
    print("| path | p50 | p95 | p50 vs library | p95 vs library |")
    print("|---|---|---|---|---|")
    base50, base95 = percentile(times["library"], 50), percentile(times["library"], 95)
    labels = {
        "library": "`Memoryd.context` (in-process)",
        "client": "`MemorydClient.context` (REST)",
        "mcp": "MCP `recall` (streamable HTTP)",
    }
    for name, label in labels.items():
        p50, p95 = percentile(times[name], 50), percentile(times[name], 95)
        added50, added95 = p50 - base50, p95 - base95
        print(
            f"| {label} | {p50:.1f} ms | {p95:.1f} ms | {p50 / base50:.2f}x (+{added50:.1f} ms)"
            f" | {p95 / base95:.2f}x (+{added95:.1f} ms) |"
        )


if __name__ == "__main__":
    main()
