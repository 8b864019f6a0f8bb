"""Helpers for the scale tests: seeding pairs, waiting, worker processes, proxied URLs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from tcp_proxy import TcpProxy

from memoryd import Memoryd

FACTS_FILE = Path(__file__).parents[2] / "bench" / "data" / "retrieval.json"


def distinct_facts(pool: int) -> list[str]:
    """20 one-line facts that no two embed alike (cosine < 0.65), from the bench data."""
    pools = json.loads(FACTS_FILE.read_text())["pools"]
    return list(pools[pool % len(pools)]["memories"])


def through(proxy: TcpProxy, url: str) -> str:
    """The same database URL, reached through the proxy."""
    return (
        make_url(url).set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    )


def seed_pairs(md: Memoryd, pairs: int, chats: int) -> list[tuple[int, str]]:
    """``pairs`` users each with their own workspace and ``chats`` distinct-fact chats."""
    made = []
    for n in range(pairs):
        user = md.create_user(f"user{n}")
        slug = f"ws{n}"
        md.create_workspace(slug)
        for fact in distinct_facts(n)[:chats]:
            md.record_chat(user.id, slug, fact, "Noted.")
        made.append((user.id, slug))
    return made


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@dataclass
class WorkerProcess:
    name: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no cleanup, no goodbye to the database."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


class Workers:
    """Starts ``memoryd worker`` processes; all are stopped when the test ends."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.started: list[WorkerProcess] = []

    def start(
        self, url: str, llm_url: str, *, name: str, interval: str = "1hr", heartbeat: int = 1
    ) -> WorkerProcess:
        env = {
            **os.environ,
            "MEMORYD_DATABASE_URL": url,
            "MEMORYD_DATA_DIR": str(self.tmp_path / "data"),
            "MEMORYD_LLM_PROVIDER": "openai",
            "MEMORYD_LLM_BASE_URL": llm_url,
            "MEMORYD_LLM_API_KEY": "test-key",
            "MEMORYD_LLM_MODEL": "fake-model",
            "MEMORYD_LLM_TIMEOUT": "30",
            "MEMORY_IDLE_THRESHOLD_MS": "0",
            "MEMORY_EXTRACTION_INTERVAL": interval,
        }
        log_path = self.tmp_path / f"{name}.log"
        command = [sys.executable, "-m", "memoryd.cli.app", "worker"]
        command += ["--name", name, "--heartbeat", str(heartbeat)]
        with log_path.open("wb") as log:
            proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        worker = WorkerProcess(name, proc, log_path)
        self.started.append(worker)
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()
