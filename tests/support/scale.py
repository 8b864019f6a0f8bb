"""Helpers for the scale tests: seeding, waiting, worker processes, proxied URLs, checks."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
from sqlalchemy.engine import make_url

from memoryd import Memoryd
from memoryd.domain.models import Chat
from memoryd.extraction.sentences import user_sentences
from support.tcp_proxy import TcpProxy

FACTS_FILE = Path(__file__).parents[2] / "bench" / "data" / "retrieval.json"


def distinct_facts(pool: int) -> list[str]:
    """20 one-line facts that no two embed alike (cosine < 0.65), from the bench data."""
    pools = json.loads(FACTS_FILE.read_text())["pools"]
    return list(pools[pool % len(pools)]["memories"])


def stated_facts(pool: int) -> list[str]:
    """The facts of ``distinct_facts`` that extraction takes as one user sentence each
    (it skips sentences with neither a first person nor a name or number)."""
    return [
        f for f in distinct_facts(pool) if [s.text for s in user_sentences([_chat(f)], 9)] == [f]
    ]


def _chat(prompt: str) -> Chat:
    return Chat(0, 0, "ws", prompt, "Noted.", datetime.now(UTC), False)


def through(proxy: TcpProxy, url: str) -> str:
    """The same database URL, reached through the proxy."""
    return (
        make_url(url).set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    )


def seed_pairs(md: Memoryd, pairs: int, chats: int) -> list[tuple[int, str]]:
    """``pairs`` users each with their own workspace and ``chats`` distinct-fact chats, each
    prompt one fact that extraction takes as a user sentence."""
    made = []
    for n in range(pairs):
        user = md.create_user(f"user{n}")
        slug = f"ws{n}"
        md.create_workspace(slug)
        for fact in stated_facts(n)[:chats]:
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
        self,
        url: str,
        llm_url: str,
        *,
        name: str,
        interval: str = "1d",
        heartbeat: int = 1,
        ask_questions: int = 0,
    ) -> WorkerProcess:
        """A worker process; ``ask_questions`` 0 keeps the questions pass out of the LLM
        requests a test counts, unless it is its subject."""
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
            "MEMORYD_EXTRACTION_BATCH_CHATS": "8",  # so that 16 chats make two batches
            "MEMORYD_QUESTION_MEMORIES_PER_RUN": str(ask_questions),
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
        for worker in self.started:  # the test is over: no need to wait for goodbyes
            if worker.alive():
                worker.kill()


class HashEmbedder:
    """A cheap deterministic embedder for tests about storage, not about meaning.

    Processes that only race for limits or ride out an outage do not need MiniLM's
    meaning; loading it in every process would only make the test slow.
    """

    name = "sha256-test"
    dimensions = 384

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
            row = np.random.default_rng(seed).standard_normal(self.dimensions)
            rows.append(row / np.linalg.norm(row))
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.dimensions)


def assert_storage_consistent(md: Memoryd, limits_global: int = 5, limits_pair: int = 20) -> None:
    """No memory without its create audit entry, no audit of a memory never stored,
    and no scope over its limit, for every user of the database."""
    with md.db.read() as repo:
        conn = repo.conn
        orphans = conn.exec_driver_sql(
            "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM audit_log a "
            "WHERE a.memory_id = m.id AND a.action = 'create')"
        ).scalar_one()
        assert orphans == 0, "memories without a create entry in the audit log"
        ghosts = conn.exec_driver_sql(
            "SELECT count(*) FROM audit_log a WHERE a.action = 'create' AND NOT EXISTS "
            "(SELECT 1 FROM memories m WHERE m.id = a.memory_id) AND NOT EXISTS "
            "(SELECT 1 FROM audit_log d WHERE d.memory_id = a.memory_id AND d.action = 'delete')"
        ).scalar_one()
        assert ghosts == 0, "audit entries for memories that were never committed"
        over = conn.exec_driver_sql(
            "SELECT count(*) FROM (SELECT user_id, scope, workspace_id, count(*) AS n "
            "FROM memories GROUP BY user_id, scope, workspace_id) per_scope "
            f"WHERE (scope = 'global' AND n > {limits_global}) "
            f"OR (scope = 'workspace' AND n > {limits_pair})"
        ).scalar_one()
        assert over == 0, "a scope holds more memories than its limit"
