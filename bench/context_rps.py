"""Requests per second of ``POST /api/v1/context`` with 1,000 users x 25 memories.

One command::

    .venv/bin/python bench/context_rps.py [--users 1000] [--seconds 20] [--concurrency 4]
                                          [--workers 1]

Seeds a SQLite database with 1,000 users, each with 5 global and 20 workspace memories
and an API key, starts ``memoryd serve`` (a separate process), and drives the context
endpoint from a third process (a lean keep-alive HTTP/1.1 client on asyncio, so the load
generator takes as little of the shared CPU as it can) with concurrent clients, each
request for a random user (so every request authenticates, reads 25 memories, embeds the
query and reranks 20). Every message is new (numbered), so no query embedding comes from
a cache, in the baseline as in the endpoint. In the same run it measures two baselines:
``md.context`` called in-process (the library, no HTTP, one thread), and ``GET /health``
through the same HTTP stack, and prints the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.config import default_data_dir
from memoryd.domain.models import Actor, Scope, Source
from memoryd.domain.rules import normalize_content

SUBJECTS = ["Python", "Rust", "Go", "SQL", "Kubernetes", "Terraform", "React", "Kafka",
            "Redis", "GraphQL", "Django", "Flask", "Spark", "Airflow", "Elixir", "Swift",
            "Kotlin", "Haskell", "Postgres", "SQLite"]  # fmt: skip
GLOBAL_FACTS = ["lives in {city}", "prefers short answers", "is a {job}",
                "has a dog named {pet}", "drinks {drink} every morning"]  # fmt: skip
CITIES = ["Oslo", "Lyon", "Porto", "Kyoto", "Austin", "Lima", "Cairo", "Perth"]
JOBS = ["nurse", "teacher", "data engineer", "designer", "chef", "pilot"]
PETS = ["Rex", "Miso", "Luna", "Bolt", "Pepper"]
DRINKS = ["tea", "coffee", "matcha", "cocoa"]
QUESTIONS = ["How do I speed up my {s} build?", "What is a good way to test {s} code?",
             "Can you review my {s} config?", "Why is my {s} job slow?"]  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def seed(md: Memoryd, users: int) -> list[str]:
    """``users`` users with 5 global + 20 workspace memories and an API key each."""
    rng = random.Random(7)
    md.create_workspace("main")
    auth = AuthStore(md.db)
    texts: set[str] = set()
    plans = []
    for n in range(users):
        facts = [
            f.format(
                city=rng.choice(CITIES), job=rng.choice(JOBS), pet=rng.choice(PETS),
                drink=rng.choice(DRINKS),
            )
            for f in GLOBAL_FACTS
        ]  # fmt: skip
        work = [f"The main project uses {s} for part {rng.randint(1, 3)}" for s in SUBJECTS]
        plans.append((f"user{n:04d}", [normalize_content(f"User {f}") for f in facts],
                      [normalize_content(w) for w in work]))  # fmt: skip
        texts.update(plans[-1][1] + plans[-1][2])
    ordered = sorted(texts)
    vectors = dict(zip(ordered, md.embedder.embed(ordered), strict=True))
    keys = []
    for name, globals_, workspace in plans:
        user = md.create_user(name)
        actor = Actor(Source.IMPORT, user.id)
        with md.db.write() as repo:
            for text in globals_:
                md.store.insert_memory(
                    repo, user.id, text, Scope.GLOBAL, None, actor, vectors[text]
                )
            for text in workspace:
                md.store.insert_memory(
                    repo, user.id, text, Scope.WORKSPACE, "main", actor, vectors[text]
                )
        auth.add_member("main", user.id)
        keys.append(auth.create_api_key(user.id, "bench").secret)
    return keys


def question(rng: random.Random, n: int) -> str:
    """A message no request before it had: the number sits inside the question, because
    the default reranker embeds a question behind a short remark on its own, so a
    trailing "(ticket 12)" would leave 80 distinct questions, all cached after a while."""
    return f"{rng.choice(QUESTIONS).format(s=rng.choice(SUBJECTS))[:-1]} (ticket {n})?"


HISTORY = [{"role": "assistant", "content": "Sure, tell me more."}]


def library_baseline(md: Memoryd, users: int, seconds: float) -> float:
    rng = random.Random(1)
    ids = [u.id for u in md.list_users()][:users]
    done, deadline = 0, time.perf_counter() + seconds
    cpu = time.process_time()
    while time.perf_counter() < deadline:
        md.context(rng.choice(ids), "main", question(rng, 1_000_000 + done), HISTORY)
        done += 1
    LIBRARY_CPU_MS.append((time.process_time() - cpu) * 1000 / done)
    return done / seconds


LIBRARY_CPU_MS: list[float] = []


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of processes so far (Linux /proc)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def server_pids(pid: int) -> list[int]:
    """The uvicorn process and its worker processes."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [int(p) for p in children.read_text().split()] if children.exists() else []
    return [pid, *found]


async def drive(
    port: int, keys: list[str], seconds: float, concurrency: int, context: bool, first: int
) -> tuple[float, list[float]]:
    """Keep-alive HTTP/1.1 clients on raw asyncio streams (httpx costs more CPU)."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    rng = random.Random(first)
    counter = iter(range(first, first + 10_000_000))

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < deadline:
                if context:
                    body = json.dumps(
                        {
                            "message": question(rng, next(counter)),
                            "workspace": "main",
                            "history": HISTORY,
                        }
                    ).encode()
                    head = (
                        f"POST /api/v1/context HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                        f"Authorization: Bearer {rng.choice(keys)}\r\n"
                        "Content-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n"
                    )
                else:
                    body, head = b"", f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                start = time.perf_counter()
                writer.write(head.encode() + body)
                status = await reader.readline()
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                if b" 200 " not in status:
                    raise RuntimeError(f"request failed: {status!r}")
                latencies.append((time.perf_counter() - start) * 1000)
        finally:
            writer.close()

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(latencies) / (time.perf_counter() - began), latencies


def drive_in_process(
    port: int, keys: list[str], seconds: float, concurrency: int, context: bool, first: int
) -> tuple[float, list[float]]:
    """``drive`` in a separate process, so the load generator is not the server's peer."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        result: tuple[float, list[float]] = pool.apply(
            _drive_sync, (port, keys, seconds, concurrency, context, first)
        )
    return result


def _drive_sync(
    port: int, keys: list[str], seconds: float, concurrency: int, context: bool, first: int
) -> tuple[float, list[float]]:
    return asyncio.run(drive(port, keys, seconds, concurrency, context, first))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memoryd-rps-"))
    url = f"sqlite:///{tmp / 'rps.db'}"
    started = time.perf_counter()
    with Memoryd(url) as md:
        keys = seed(md, args.users)
        seeded = time.perf_counter() - started
        md.context(1, "main", "warm up", [])
        library = library_baseline(md, args.users, min(args.seconds, 10))
        library_variant = getattr(md.embedder, "variant", "?")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(MEMORYD_DATA_DIR=str(tmp), MEMORYD_ADMIN_PASSWORD="bench-admin-password")
    models = default_data_dir() / "models"  # the re-quantised embedder, made once
    (tmp / "models").mkdir()
    for made in models.glob("all-MiniLM-L6-v2.*.onnx"):  # not the extraction LLM (1 GB)
        shutil.copy2(made, tmp / "models" / made.name)
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "memoryd"), "serve", "--port", str(port), "--db", url,
         "--no-scheduler", "--workers", str(args.workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/health").raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        drive_in_process(port, keys, 3, args.concurrency, True, 1)  # warm up every worker
        health_rps, _ = drive_in_process(port, keys, 5, args.concurrency, False, 1)
        pids = server_pids(server.pid)
        cpu_before = cpu_seconds(pids)
        rps, latencies = drive_in_process(
            port, keys, args.seconds, args.concurrency, True, 2_000_000
        )
        server_cpu_ms = (cpu_seconds(pids) - cpu_before) * 1000 / max(len(latencies), 1)
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    one, five, _ = os.getloadavg()
    print(
        f"## Context endpoint throughput ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC,"
        f" load average {one:.1f}/{five:.1f})\n"
    )
    print(f"Command: `.venv/bin/python bench/context_rps.py --workers {args.workers}`\n")
    print(f"{args.users} users x 25 memories (5 global, 20 in one workspace), SQLite, "
          f"{args.workers} uvicorn worker(s), {args.concurrency} concurrent clients in a "
          f"separate process on the same {os.cpu_count()}-core machine, {args.seconds:.0f} s;"
          f" embedder graph {library_variant}; seeding took {seeded:.0f} s.\n")  # fmt: skip
    print("| what | requests/s | ratio |")
    print("|---|---|---|")
    print(f"| `md.context` in-process (library baseline, 1 thread) | {library:.1f} | 1.00 |")
    print(f"| `POST /api/v1/context` | {rps:.1f} | {rps / library:.2f} |")
    print(f"| `GET /health` (HTTP stack ceiling) | {health_rps:.1f} | {health_rps / library:.2f} |")
    print(
        f"\nCPU per request: library {LIBRARY_CPU_MS[0]:.1f} ms, memoryd serve"
        f" {server_cpu_ms:.1f} ms ({server_cpu_ms / LIBRARY_CPU_MS[0]:.2f}x; all its"
        " processes, user + system)"
    )
    print(f"\ncontext latency p50 {pct(latencies, 50):.1f} ms, p95 {pct(latencies, 95):.1f} ms, "
          f"{len(latencies)} requests")  # fmt: skip


if __name__ == "__main__":
    main()
