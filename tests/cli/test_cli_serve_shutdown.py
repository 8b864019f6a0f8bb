"""Proxied chats are queued for a background writer; SIGTERM to ``memoryd serve`` must
still store every one of them before the process exits."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.testing import FakeOpenAIServer, Reply
from support.processes import free_port, memoryd_env

MEMORYD = str(Path(sys.executable).parent / "memoryd")
CHATS = 6


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return memoryd_env(MEMORYD_DATA_DIR=str(tmp_path), **extra)


def _wait_until_up(process: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
            return
        except httpx.HTTPError:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            assert time.monotonic() < deadline, "memoryd serve did not start"
            time.sleep(0.2)


def test_sigterm_writes_every_queued_chat(tmp_path: Path) -> None:
    path = tmp_path / "served.db"
    db = f"sqlite:///{path}"
    with Memoryd(db) as md:
        user = md.create_user("alice")
        md.create_workspace("alpha")
        auth = AuthStore(md.db)
        auth.add_member("alpha", user.id)
        key = auth.create_api_key(user.id, "test").secret
    with FakeOpenAIServer() as llm:
        llm.script(*(Reply.text(f"answer {i}") for i in range(CHATS)))
        port = free_port()
        env = _env(
            tmp_path,
            MEMORYD_PROXY_PROVIDER="openai",
            MEMORYD_PROXY_UPSTREAM_URL=llm.base_url,
            MEMORYD_EMBEDDER_QUANTIZE="off",
        )
        process = subprocess.Popen(
            [MEMORYD, "serve", "--port", str(port), "--db", db, "--no-scheduler"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        blocker = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            _wait_until_up(process, port)
            # hold the write lock: the server can answer (reads) but not store the chats
            blocker.execute("BEGIN IMMEDIATE")
            headers = {"Authorization": f"Bearer {key}", "X-Memoryd-Workspace": "alpha"}
            for i in range(CHATS):
                reply = httpx.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    headers=headers,
                    json={"model": "m", "messages": [{"role": "user", "content": f"q {i}"}]},
                    timeout=30,
                )
                assert reply.status_code == 200, reply.text
            assert blocker.execute("SELECT count(*) FROM chats").fetchone() == (0,)
            process.send_signal(signal.SIGTERM)
            time.sleep(1.0)  # shutting down, its writes still waiting for the lock
            assert process.poll() is None
            blocker.execute("ROLLBACK")
            output, _ = process.communicate(timeout=60)
        finally:
            blocker.close()
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode in (0, -signal.SIGTERM), output  # uvicorn re-raises SIGTERM
    with sqlite3.connect(path) as conn:
        stored = conn.execute("SELECT prompt, response FROM chats ORDER BY id").fetchall()
    assert stored == [(f"q {i}", f"answer {i}") for i in range(CHATS)]
