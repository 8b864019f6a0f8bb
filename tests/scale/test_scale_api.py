"""Several stateless API processes over one PostgreSQL: ``memoryd serve --workers 2``.

The real command runs on a free loopback port and reaches the database through the
cuttable proxy. Over HTTP: clients racing for one user's last slots get exactly the
limit; then the database is cut for 4 seconds under traffic and every response is either
a normal answer or a JSON ``503 database_unavailable`` with ``Retry-After``, never a 500,
and requests succeed again once the database is back, with no restart.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from support.processes import free_port
from support.scale import assert_storage_consistent, through, wait_for
from support.tcp_proxy import TcpProxy

pytestmark = pytest.mark.postgres


@pytest.fixture
def api(pg_md: Memoryd, proxy: TcpProxy, tmp_path: Path) -> Iterator[str]:
    """``memoryd serve --workers 2`` over the proxied database; yields its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "MEMORYD_DATABASE_URL": through(proxy, pg_md.url),
        "MEMORYD_DATA_DIR": str(tmp_path / "data"),
        "MEMORYD_ADMIN_PASSWORD": "admin-password-1",
        "MEMORYD_RERANKER": "recency",  # these tests are about the database, not ranking
    }
    command = [sys.executable, "-m", "memoryd.cli.app", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--workers", "2", "--no-scheduler"]
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return httpx.get(f"{base}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_for(healthy, 90, "memoryd serve to answer")
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def user_with_key(md: Memoryd, name: str) -> tuple[int, dict[str, str]]:
    auth = AuthStore(md.db, clock=md.clock)
    user = md.create_user(name)
    auth.add_member("phoenix", user.id)
    key = auth.create_api_key(user.id, "scale test").secret
    return user.id, {"Authorization": f"Bearer {key}"}


def test_two_api_processes_share_limits_and_ride_out_an_outage(
    pg_md: Memoryd, api: str, proxy: TcpProxy
) -> None:
    pg_md.create_workspace("phoenix")

    # clients racing for one user's 5 global slots, spread over both processes
    uid, headers = user_with_key(pg_md, "racer")

    def add(n: int) -> int:
        body = {"content": f"racing fact {n}", "scope": "global"}
        response = httpx.post(f"{api}/api/v1/memories", json=body, headers=headers, timeout=60)
        return response.status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = Counter(pool.map(add, range(24)))
    assert statuses == {201: 5, 409: 19}
    assert len(pg_md.list_memories(uid, "global")) == 5

    # then the database vanishes for 4 seconds under traffic
    clients = [user_with_key(pg_md, f"client{n}") for n in range(4)]
    seen: list[tuple[float, int, str]] = []  # (time, status, error type)
    lock = threading.Lock()
    stop = threading.Event()

    def traffic(n: int) -> int:
        _, headers = clients[n]
        step = 0
        with httpx.Client(base_url=api, headers=headers, timeout=30) as http:
            while not stop.is_set():
                step += 1
                if step % 2:
                    body = {"content": f"client {n} fact {step}", "workspace": "phoenix"}
                    response = http.post("/api/v1/memories", json=body)
                else:
                    body = {"workspace": "phoenix", "message": f"question {step}"}
                    response = http.post("/api/v1/context", json=body)
                kind = response.json().get("error", {}).get("type", "")
                if response.status_code == 503:
                    assert response.headers.get("retry-after"), response.text
                with lock:
                    seen.append((time.monotonic(), response.status_code, kind))
                time.sleep(0.02)
        return step

    def scenario() -> None:
        nonlocal cut_at, restored_at
        time.sleep(2)
        cut_at = time.monotonic()
        with proxy.outage():
            time.sleep(4)
        restored_at = time.monotonic()
        time.sleep(5)

    cut_at = restored_at = 0.0
    # The traffic threads' results (or exceptions) all come back; none may die unseen.
    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        running = [pool.submit(traffic, n) for n in range(len(clients))]
        try:
            scenario()
        finally:
            stop.set()
        steps = [future.result(timeout=60) for future in running]
    assert all(count > 10 for count in steps), steps

    statuses = Counter(status for _, status, _ in seen)
    assert set(statuses) <= {200, 201, 409, 503}, statuses
    during = Counter(kind for at, status, kind in seen if cut_at + 0.5 < at < restored_at)
    assert during["database_unavailable"] > 0
    assert set(during) == {"database_unavailable"}, during
    late = [status for at, status, _ in seen if at > restored_at + 2]
    assert late and all(status in (200, 201, 409) for status in late), Counter(late)
    assert_storage_consistent(pg_md)
