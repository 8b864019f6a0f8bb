"""What an import flood or a login flood does to everyone else: other users' p50/p95.

One command::

    .venv/bin/python bench/flood_latency.py [--seconds 15] [--baseline REV]

Starts ``memoryd serve`` (a separate process, SQLite, one worker) with three users, then
measures a bystander's ``GET /api/v1/memories`` (API key, 25 memories) sequentially:

- quiet: nothing else running;
- login flood: 16 threads posting wrong passwords to ``/login`` for another account;
- import flood: one client posting a 10,000-line import (4 MB) as a default user, over
  and over (what the attack run did once);
- import 1k: the same with 1,000 lines, under the line cap but over the workspace's
  limit of 20 (the old code embedded and inserted them all before refusing).

With ``--baseline REV`` the same runs against the code of git revision ``REV`` (its
``src/`` extracted to a temporary folder), in the same run, so the two sets of figures
share the machine's load. A flood lasts ``--seconds``; a request of the old code that
has not finished then is abandoned with the server.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

SEED = """
import sys
from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
with Memoryd(sys.argv[1]) as md:
    md.create_workspace("work")
    auth = AuthStore(md.db)
    keys = {}
    for name in ("bystander", "importer", "target"):
        user = md.create_user(name)
        auth.set_password(user.id, "a-long-password-1")
        auth.add_member("work", user.id)
        keys[name] = auth.create_api_key(user.id, "bench").secret
    by = md.get_user("bystander").id
    for i in range(5):
        md.add_memory(by, f"Global fact {i} about the bystander")
    for i in range(20):
        md.add_memory(by, f"Work fact {i} about component {i}", "workspace", "work")
    print(" ".join(keys[n] for n in ("bystander", "importer", "target")))
"""


MEMORYD = str(Path(sys.executable).parent / "memoryd")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def import_body(lines: int = 10_000) -> bytes:
    rows = []
    for n in range(lines):
        record = {
            "id": f"flood{n}",
            "scope": "workspace",
            "workspace": "work",
            "content": f"Imported fact number {n} with some words to make it realistic " * 3,
            "source": "user",
            "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00",
            "last_used_at": None,
            "source_chat_ids": [],
        }
        rows.append(json.dumps(record))
    return "\n".join(rows).encode()


class Server:
    def __init__(self, src: Path, tmp: Path) -> None:
        self.url = f"sqlite:///{tmp / 'flood.db'}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update(
            PYTHONPATH=str(src),
            MEMORYD_DATA_DIR=str(tmp),
            MEMORYD_ADMIN_PASSWORD="bench-admin-password",
        )
        self.env = env
        keys = subprocess.run(
            [sys.executable, "-c", SEED, self.url], env=env, capture_output=True, text=True,
            check=True,
        ).stdout.split()  # fmt: skip
        self.keys = dict(zip(("bystander", "importer", "target"), keys, strict=True))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [MEMORYD, "serve", "--port", str(self.port), "--db",
             self.url, "--no-scheduler", "--workers", "1"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.base}/health").raise_for_status()
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


def bystander(server: Server, seconds: float) -> list[float]:
    """Latencies (ms) of the bystander's reads for ``seconds``; failures count as 10 s."""
    latencies = []
    headers = {"Authorization": f"Bearer {server.keys['bystander']}"}
    with httpx.Client(base_url=server.base, headers=headers, timeout=10) as client:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            started = time.perf_counter()
            try:
                ok = client.get("/api/v1/memories").status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append((time.perf_counter() - started) * 1000 if ok else 10_000.0)
            time.sleep(0.05)
    return latencies


def flood(server: Server, kind: str, stop: threading.Event, counts: dict[int, int]) -> None:
    lock = threading.Lock()
    body = {"import": import_body(), "import 1k": import_body(1_000)}.get(kind, b"")
    with httpx.Client(base_url=server.base, timeout=600) as client:
        while not stop.is_set():
            try:
                if kind == "login":
                    status = client.post(
                        "/login", data={"name": "target", "password": "guess", "csrf_token": "x"},
                        cookies={"memoryd_login_csrf": "x"},
                    ).status_code  # fmt: skip
                else:
                    status = client.post(
                        "/api/v1/import", content=body,
                        headers={"Authorization": f"Bearer {server.keys['importer']}",
                                 "Content-Type": "application/x-ndjson"},
                    ).status_code  # fmt: skip
            except httpx.HTTPError:
                status = 0
                if stop.is_set():
                    return
            with lock:
                counts[status] = counts.get(status, 0) + 1


def run(src: Path, seconds: float) -> dict[str, tuple[list[float], dict[int, int]]]:
    results = {}
    for kind, threads in (("quiet", 0), ("login", 16), ("import", 1), ("import 1k", 1)):
        tmp = Path(tempfile.mkdtemp(prefix="memoryd-flood-"))
        server = Server(src, tmp)
        try:
            bystander(server, 2)  # warm up
            stop = threading.Event()
            counts: dict[int, int] = {}
            workers = [
                threading.Thread(target=flood, args=(server, kind, stop, counts), daemon=True)
                for _ in range(threads)
            ]
            for worker in workers:
                worker.start()
            time.sleep(1 if threads else 0)
            latencies = bystander(server, seconds)
            stop.set()
        finally:
            server.stop()
        results[kind] = (latencies, counts)
    return results


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--baseline", default=None, help="git revision to compare with")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent / "src"
    runs = {"now": run(here, args.seconds)}
    if args.baseline:
        old = Path(tempfile.mkdtemp(prefix="memoryd-base-"))
        archive = subprocess.run(
            ["git", "archive", args.baseline, "src"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        runs[f"baseline {args.baseline}"] = run(old / "src", args.seconds)
    print(f"## Flood latency ({datetime.now(UTC):%Y-%m-%d})\n")
    print(f"Command: `.venv/bin/python bench/flood_latency.py --seconds {args.seconds:g}"
          + (f" --baseline {args.baseline}`" if args.baseline else "`") + "\n")  # fmt: skip
    print(
        "| code | flood | bystander requests | p50 ms | p95 ms | p95 / quiet p95 | flood answers |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, result in runs.items():
        quiet95 = pct(result["quiet"][0], 95)
        for kind, (latencies, counts) in result.items():
            answers = ", ".join(f"{s or 'error'}: {n}" for s, n in sorted(counts.items())) or "-"
            print(
                f"| {name} | {kind} | {len(latencies)} | {pct(latencies, 50):.1f} | "
                f"{pct(latencies, 95):.1f} | {pct(latencies, 95) / quiet95:.1f}x | {answers} |"
            )


if __name__ == "__main__":
    main()
