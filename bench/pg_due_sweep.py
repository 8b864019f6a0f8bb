"""How long the due-pair sweep takes at 100,000 users with 1% of pairs due (PostgreSQL).

A scratch database on the local server gets 100,000 users in 100 workspaces, each user
with one (user, workspace) pair holding 20 chats already processed (2 million rows), and
on top of that, by ``user_id % 100``:

- 0      6 unprocessed chats, 2 hours old: **due** (1% = 1,000 pairs);
- 1..5   2 unprocessed chats: below the minimum of 5 messages;
- 6      6 unprocessed chats, 1 minute old: inside the idle threshold;
- 7      6 old unprocessed chats, the pair backing off after a failure;
- 8      6 old unprocessed chats, the pair parked.

It times the two queries every sweep runs (``due_pairs`` and ``pending_summary`` from
``memoryd.extraction.scheduler``, SQL exactly as memoryd sends it), first with the schema
as migrated, then, as the baseline in the same run, with the partial index
``ix_chats_unprocessed`` dropped. It prints p50/p95, the ratio, and the EXPLAIN (ANALYZE,
BUFFERS) plan of ``due_pairs`` with the index.

    .venv/bin/python bench/pg_due_sweep.py [--users 100000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from sqlalchemy.engine import Connection

sys.path.insert(0, str(Path(__file__).parent))

from pg_scratch import add_users, add_workspaces, explain, libpq_dsn, machine, scratch_database

from memoryd.extraction.pipeline import ExtractionConfig
from memoryd.extraction.scheduler import due_pairs, pending_summary
from memoryd.storage.database import Database

WORKSPACES = 100
CHUNK = 10_000
PROCESSED_PER_PAIR = 20


def load(url: str, users: int) -> float:
    started = time.perf_counter()
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        add_workspaces(conn, WORKSPACES)
        for first in range(1, users + 1, CHUNK):
            last = min(first + CHUNK - 1, users)
            add_users(conn, first, last)
            # processed history: 20 chats per pair over the last 20 days
            conn.execute(
                """
                INSERT INTO chats (user_id, workspace_id, prompt, response, created_at,
                    memory_processed)
                SELECT u, u %% %(ws)s + 1, 'question ' || n || ' from user ' || u,
                    'an answer of about this length to question ' || n,
                    now() - make_interval(days => n), true
                FROM generate_series(%(first)s::int, %(last)s::int) AS u,
                    generate_series(1, %(per)s) AS n
                """,
                {"ws": WORKSPACES, "first": first, "last": last, "per": PROCESSED_PER_PAIR},
            )
            # unprocessed chats, by user_id %% 100 as the module doc says
            conn.execute(
                """
                INSERT INTO chats (user_id, workspace_id, prompt, response, created_at,
                    memory_processed)
                SELECT u, u %% %(ws)s + 1, 'new question ' || n, 'new answer ' || n,
                    CASE WHEN u %% 100 = 6 THEN now() - interval '1 minute'
                         ELSE now() - interval '2 hours' END + make_interval(secs => n),
                    false
                FROM generate_series(%(first)s::int, %(last)s::int) AS u,
                    generate_series(1, 6) AS n
                WHERE u %% 100 <= 8 AND (u %% 100 NOT BETWEEN 1 AND 5 OR n <= 2)
                """,
                {"ws": WORKSPACES, "first": first, "last": last},
            )
            conn.execute(
                """
                INSERT INTO extraction_pairs (user_id, workspace_id, attempts, next_attempt_at,
                    parked, last_error, failed_chat_ids, updated_at)
                SELECT u, u %% %(ws)s + 1, CASE WHEN u %% 100 = 8 THEN 5 ELSE 1 END,
                    now() + interval '5 minutes', u %% 100 = 8, 'LLMError: timeout', '[]',
                    now()
                FROM generate_series(%(first)s::int, %(last)s::int) AS u
                WHERE u %% 100 IN (7, 8)
                """,
                {"ws": WORKSPACES, "first": first, "last": last},
            )
            if sys.stdout.isatty():
                print(f"  loaded {last:,} users", end="\r", flush=True)
        conn.execute("VACUUM ANALYZE")
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(conn: Connection, call: Callable[[Connection], object], repeat: int) -> list[float]:
    call(conn)  # warm the cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call(conn)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    print(machine())

    cfg = ExtractionConfig()  # the defaults: 5 messages (3 chats), 20 minutes idle
    now = datetime.now(UTC)
    with scratch_database("sweep") as url:
        seconds = load(url, args.users)
        print(f"loaded {args.users:,} users, one pair each, in {seconds:.0f} s")
        db = Database.open(url)

        def due(conn: Connection) -> object:
            return due_pairs(
                conn, now=now, idle_threshold=cfg.idle_threshold, min_chats=cfg.min_chats
            )

        def summary(conn: Connection) -> object:
            return pending_summary(
                conn, now=now, idle_threshold=cfg.idle_threshold, min_chats=cfg.min_chats
            )

        with db.read() as repo:
            counts = repo.conn.exec_driver_sql(
                "SELECT count(*), count(*) FILTER (WHERE NOT memory_processed) FROM chats"
            ).one()
            found = due(repo.conn)
            print(f"chats: {counts[0]:,} rows, {counts[1]:,} unprocessed")
            print(f"due pairs: {len(found):,} (expected {args.users // 100:,})")
            print(f"pending summary: {summary(repo.conn)}")
            timings = {
                "due_pairs": measure(repo.conn, due, args.repeat),
                "pending_summary": measure(repo.conn, summary, args.repeat),
            }
            plan = explain(repo.conn, due)
        with db.write() as repo:
            repo.conn.exec_driver_sql("DROP INDEX ix_chats_unprocessed")
            repo.conn.exec_driver_sql("ANALYZE chats")
        with db.read() as repo:
            baseline = {
                "due_pairs": measure(repo.conn, due, args.repeat),
                "pending_summary": measure(repo.conn, summary, args.repeat),
            }
            baseline_plan = explain(repo.conn, due)
        db.dispose()

    print(f"\n{args.repeat} runs each, ms     p50      p95   (baseline: no partial index)")
    for name, values in timings.items():
        base = baseline[name]
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        b50, b95 = percentile(base, 0.5), percentile(base, 0.95)
        print(f"{name:16} {p50:8.1f} {p95:8.1f}   baseline {b50:8.1f} {b95:8.1f}")
        print(f"{'':16} speed-up with the index: {b50 / p50:.1f}x (p50)")
    print("\nplan of due_pairs with ix_chats_unprocessed:")
    print("\n".join("  " + line for line in plan))
    print("\nplan of due_pairs without it (baseline):")
    print("\n".join("  " + line for line in baseline_plan))


if __name__ == "__main__":
    main()
