"""Extraction throughput with 1, 2 and 4 ``memoryd worker`` processes (PostgreSQL).

The LLM is ``FakeOpenAIServer`` with a fixed 200 ms latency per call, answering like
``memoryd.testing.EchoExtractor`` (one memory per chat), so a pair costs two LLM calls
(Observer and Reflector, 0.4 s of waiting) plus memoryd's own work: reading the batch,
embedding, applying it in one transaction. For each worker count a fresh scratch
database gets the same pairs (one user and workspace each, 6 distinct-fact chats); the
workers are started and ready (registered, model loaded) before the clock starts; then
one job per pair is queued at once and the clock stops when every chat is processed.
The sequence 1, 2, 4 is repeated (``--rounds``) and each count keeps its best time, so a
burst of load from other programs on the machine does not decide the ratio.

It prints pairs per second, the speed-up over one worker and the workers' CPU seconds per
pair (from /proc), and checks the result: every pair ends with exactly 6 memories.

    .venv/bin/python bench/extraction_workers.py [--pairs 60]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).parent))

from pg_scratch import add_users, add_workspaces, libpq_dsn, machine, scratch_database

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.scale.tasks import defer_pairs, make_app
from memoryd.scale.worker import install_schema
from memoryd.storage.extraction_rows import DuePair
from memoryd.testing import FakeOpenAIServer
from memoryd.testing.echo_extraction import EchoExtractor

DATA = Path(__file__).parent / "data" / "retrieval.json"
CHATS_PER_PAIR = 6
LATENCY_S = 0.2


def seed(url: str, pairs: int) -> None:
    """Pair n: user n in workspace ws<n-1>, with 6 chats from retrieval pool n mod 12."""
    pools = json.loads(DATA.read_text())["pools"]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        add_workspaces(conn, pairs)
        add_users(conn, 1, pairs)
        with conn.cursor().copy(
            "COPY chats (user_id, workspace_id, prompt, response, created_at, "
            "memory_processed) FROM STDIN"
        ) as copy:
            for n in range(1, pairs + 1):
                for fact in pools[n % len(pools)]["memories"][:CHATS_PER_PAIR]:
                    copy.write_row((n, n, fact, "Noted.", "2026-01-01 00:00:00+00", False))


def count(url: str, sql: str) -> int:
    with psycopg.connect(libpq_dsn(url)) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def start_workers(url: str, llm_url: str, n: int, logs: Path) -> list[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "MEMORYD_DATABASE_URL": url,
        "MEMORYD_DATA_DIR": str(logs),
        "MEMORYD_LLM_PROVIDER": "openai",
        "MEMORYD_LLM_BASE_URL": llm_url,
        "MEMORYD_LLM_API_KEY": "bench",
        "MEMORYD_LLM_MODEL": "fake-model",
        "MEMORY_IDLE_THRESHOLD_MS": "0",
        "MEMORY_EXTRACTION_INTERVAL": "1d",  # no periodic sweep during the measurement
    }
    procs = []
    for i in range(n):
        out = (logs / f"worker{n}-{i}.log").open("wb")
        command = [sys.executable, "-m", "memoryd.cli.app", "worker", "--name", f"w{n}-{i}"]
        procs.append(subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT))
    return procs


def wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def cpu_seconds(procs: list[subprocess.Popen[bytes]]) -> float:
    """User + system CPU time the (still running) processes used so far (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in procs:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def measure(workers: int, pairs: int, llm: FakeOpenAIServer, logs: Path) -> tuple[float, float]:
    """Wall seconds to extract every pair, and the workers' CPU seconds per pair."""
    with scratch_database(f"workers{workers}") as url:
        seed(url, pairs)
        md = Memoryd(url, embedder=MiniLMEmbedder())
        app = make_app(url, interval=timedelta(days=1))
        install_schema(md, app)
        procs = start_workers(url, llm.base_url, workers, logs)
        try:
            wait(
                lambda: count(url, "SELECT count(*) FROM procrastinate_workers") == workers,
                120,
                "the workers to start (they load the model before registering)",
            )
            due = [DuePair(n, n, f"ws{n - 1}", CHATS_PER_PAIR) for n in range(1, pairs + 1)]
            app.open()
            cpu_before = cpu_seconds(procs)
            started = time.perf_counter()
            defer_pairs(app, due)
            unprocessed = "SELECT count(*) FROM chats WHERE NOT memory_processed"
            wait(lambda: count(url, unprocessed) == 0, 900, "extraction to finish")
            seconds = time.perf_counter() - started
            cpu_per_pair = (cpu_seconds(procs) - cpu_before) / pairs
            app.close()
            memories = count(url, "SELECT count(*) FROM memories")
            if memories != pairs * CHATS_PER_PAIR:
                raise SystemExit(f"expected {pairs * CHATS_PER_PAIR} memories, found {memories}")
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait(60)
            md.close()
    return seconds, cpu_per_pair


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--rounds", type=int, default=2, help="repeat the whole sequence; keep each best time"
    )
    args = parser.parse_args()
    print(machine())
    print(
        f"{args.pairs} pairs x {CHATS_PER_PAIR} chats, LLM latency {LATENCY_S * 1000:.0f} ms "
        "per call (2 calls per pair)"
    )
    runs: dict[int, list[tuple[float, float]]] = {n: [] for n in args.workers}
    with FakeOpenAIServer() as llm, tempfile.TemporaryDirectory() as tmp:
        llm.responder = EchoExtractor()
        llm.latency = LATENCY_S
        for round_ in range(1, args.rounds + 1):
            for n in args.workers:
                runs[n].append(measure(n, args.pairs, llm, Path(tmp)))
                print(f"  round {round_}, {n} worker(s): {runs[n][-1][0]:.1f} s", flush=True)
    results = {n: min(times) for n, times in runs.items()}  # the least disturbed run
    base = args.pairs / results[args.workers[0]][0]
    print(f"\n{'workers':>8} {'seconds':>8} {'pairs/s':>8} {'speed-up':>9} {'CPU s/pair':>11}")
    for n, (seconds, cpu) in results.items():
        rate = args.pairs / seconds
        print(f"{n:>8} {seconds:>8.1f} {rate:>8.2f} {rate / base:>8.2f}x {cpu:>11.2f}")
    floor = 2 * LATENCY_S
    cpu = results[args.workers[0]][1]
    cores = os.cpu_count() or 1
    print(
        f"\nCeilings: one worker waits {floor:.1f} s per pair for the LLM (at most "
        f"{1 / floor:.2f} pairs/s); memoryd's own work is {cpu:.2f} CPU s per pair, so "
        f"{cores} cores cap all workers together at ~{cores / cpu:.1f} pairs/s when nothing "
        "else runs."
    )


if __name__ == "__main__":
    main()
