"""Does a chat turn get slower as the number of users grows? (PostgreSQL)

Two scratch databases on the local PostgreSQL server hold the same kind of users: 1,000
users (the baseline) and 100,000 users, each with 5 global and 20 workspace memories
(2.5 million memory rows in the large one). Every memory is a real sentence from
bench/data/retrieval.json stored with its real MiniLM vector: a user follows one of the
12 personas there (20 workspace memories of that persona, 5 globals taken from the next
persona); the rows are generated on the server, the 300 vectors are computed here once.

Turns then alternate between the two databases, for random users of each, with a fresh
message every turn (the persona's questions, made unique) and that question's history.
Each of the three measurements of a round is for a different random user, so none runs
on pages another just read (a turn timed right after a read of the same user's rows
would find them cached and hide the cost of a cold read):

- read:   the turn's memory read alone (``Repository.turn_memories`` in a read
          transaction, connection from the pool included);
- write:  the write that marks the 10 injected memories used, alone (a transaction
          updating ``last_used_at``, as the turn does at its end);
- turn:   the whole ``Memoryd.context()``: user, workspace and setting checks (cached
          per process), the read (one statement with the cache version), the default
          reranker (query embedding + scoring of 20 memories); the write above is queued
          for the background writer, off the turn's path.

It prints p50/p95 per database and the 100k / 1k ratio (1.0 means the cost does not grow
with users), and the query plan of the memory read on the large database.

    .venv/bin/python bench/pg_context_scale.py [--users 100000] [--turns 400]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))

from pg_scratch import (
    add_users,
    add_workspaces,
    explain,
    libpq_dsn,
    machine,
    scratch_database,
    workspace_of,
)

from memoryd import Memoryd
from memoryd.domain.rules import content_key
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.storage.repository import Repository

DATA = Path(__file__).parent / "data" / "retrieval.json"
WORKSPACES = 100
CHUNK = 10_000  # users per INSERT ... SELECT
WHAT = ("read", "write", "turn")


def personas(embedder: MiniLMEmbedder) -> list[dict[str, Any]]:
    """Per persona: its 25 memories (scope, text, vector) and its questions."""
    pools = json.loads(DATA.read_text())["pools"]
    texts = sorted({m for p in pools for m in p["memories"]})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    out = []
    for n, pool in enumerate(pools):
        donor = pools[(n + 1) % len(pools)]["memories"]
        rows = [("global", t, vectors[t]) for t in donor[:5]]
        rows += [("workspace", t, vectors[t]) for t in pool["memories"]]
        out.append({"memories": rows, "queries": pool["queries"]})
    return out


def load(url: str, users: int, people: list[dict[str, Any]], embedder_name: str) -> float:
    """Fill a migrated database with ``users`` users; returns seconds taken."""
    started = time.perf_counter()
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        add_workspaces(conn, WORKSPACES)
        conn.execute(
            "CREATE TEMP TABLE persona_memory (persona int, idx int, scope text, "
            "content text, content_key text, embedding bytea)"
        )
        with conn.cursor().copy("COPY persona_memory FROM STDIN") as copy:
            for p, person in enumerate(people):
                for i, (scope, text, vector) in enumerate(person["memories"]):
                    copy.write_row((p, i, scope, text, content_key(text), vector.tobytes()))
        for first in range(1, users + 1, CHUNK):
            last = min(first + CHUNK - 1, users)
            add_users(conn, first, last)
            conn.execute(
                """
                INSERT INTO memories (id, user_id, scope, workspace_id, content, content_key,
                    source, created_at, updated_at, last_used_at, source_chats, embedding,
                    embedder)
                SELECT md5(u || ':' || pm.idx), u, pm.scope,
                    CASE WHEN pm.scope = 'workspace' THEN u %% %(ws)s + 1 END,
                    pm.content, pm.content_key, 'user',
                    now() - make_interval(mins => 100 - pm.idx),
                    now() - make_interval(mins => 100 - pm.idx), NULL, '[]', pm.embedding,
                    %(embedder)s
                FROM generate_series(%(first)s::int, %(last)s::int) AS u
                JOIN persona_memory pm ON pm.persona = u %% %(personas)s
                """,
                {
                    "ws": WORKSPACES,
                    "embedder": embedder_name,
                    "first": first,
                    "last": last,
                    "personas": len(people),
                },
            )
            if users >= 10 * CHUNK and sys.stdout.isatty():
                print(f"  loaded {last:,} users", end="\r", flush=True)
        conn.execute("VACUUM ANALYZE")
    return time.perf_counter() - started


def memory_id(user_id: int, idx: int) -> str:
    """The id ``load()`` gives a user's idx-th memory (PostgreSQL's md5 of "user:idx")."""
    return hashlib.md5(f"{user_id}:{idx}".encode()).hexdigest()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--baseline-users", type=int, default=1_000)
    parser.add_argument("--turns", type=int, default=400, help="measured turns per database")
    args = parser.parse_args()

    print(machine())
    embedder = MiniLMEmbedder()
    people = personas(embedder)
    rng = random.Random(7)
    with scratch_database("ctx_small") as small_url, scratch_database("ctx_large") as large_url:
        small, large = f"{args.baseline_users / 1000:g}k", f"{args.users / 1000:g}k"
        sizes = {small: (small_url, args.baseline_users), large: (large_url, args.users)}
        for label, (url, users) in sizes.items():
            seconds = load(url, users, people, embedder.name)
            print(f"loaded {users:,} users x 25 memories ({label}) in {seconds:.0f} s")
        services = {label: Memoryd(url, embedder=embedder) for label, (url, _) in sizes.items()}

        def one_turn(label: str, n: int, record: dict[str, list[float]] | None) -> None:
            """One read, one turn and one write, each for a different random user, so no
            measurement runs on pages another one just brought into the cache."""
            md = services[label]
            reader, talker, writer = rng.sample(range(1, sizes[label][1] + 1), 3)
            slug = workspace_of(talker, WORKSPACES)
            query = rng.choice(people[talker % len(people)]["queries"])
            message = f"{query['message']} (turn {n})"
            history = query["history"]
            # The 10 memories a turn would mark used: 5 globals and 5 of the 20 workspace
            # ones; ids are computed as load() made them, so nothing reads them first.
            touched = [memory_id(writer, i) for i in [*range(5), *rng.sample(range(5, 25), 5)]]

            def read() -> object:
                with md.db.read() as repo:
                    return repo.turn_memories(reader, reader % WORKSPACES + 1)

            def write() -> None:
                with md.db.write() as repo:
                    repo.touch_memories(touched, md.clock())

            read_ms = timed(read)
            turn_ms = timed(lambda: md.context(talker, slug, message, history))
            write_ms = timed(write)
            if record is not None:
                record[f"{label} read"].append(read_ms)
                record[f"{label} write"].append(write_ms)
                record[f"{label} turn"].append(turn_ms)

        for md in services.values():  # the write must hit rows, not miss them silently
            with md.db.read() as repo:
                stored = {m.id for m in repo.turn_memories(1, 1 % WORKSPACES + 1)}
            assert stored == {memory_id(1, i) for i in range(25)}, "memory ids differ"
        for n in range(30):  # warm-up: pools, caches, onnxruntime
            for label in sizes:
                one_turn(label, -n, None)
        record: dict[str, list[float]] = {f"{s} {k}": [] for s in sizes for k in WHAT}
        for n in range(args.turns):
            order = list(sizes) if n % 2 == 0 else list(reversed(sizes))
            for label in order:
                one_turn(label, n, record)

        print(f"\n{args.turns} turns per database, interleaved; times in ms")
        print(f"{'':14}{'p50':>8}{'p95':>8}   ratio p50 / p95 vs {small}")
        for what in WHAT:
            base = record[f"{small} {what}"]
            for label in sizes:
                vals = record[f"{label} {what}"]
                p50, p95 = percentile(vals, 0.5), percentile(vals, 0.95)
                ratio = f"{p50 / percentile(base, 0.5):.2f} / {p95 / percentile(base, 0.95):.2f}"
                print(f"{label + ' ' + what:14}{p50:8.2f}{p95:8.2f}   {ratio}")

        print(f"\nplan of the turn's memory read at {args.users:,} users:")
        uid = rng.randint(1, args.users)
        with services[large].db.read() as repo:
            plan = explain(
                repo.conn, lambda c: Repository(c).turn_memories(uid, uid % WORKSPACES + 1)
            )
        for line in plan:
            print("  " + line)
        for md in services.values():
            md.close()


if __name__ == "__main__":
    main()
