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

With ``--questions`` (issue 10) it asks instead what a memory's questions cost a turn:
two databases of the same size (``--users``, 20,000 by default in this mode), one whose
memories have no questions (NULL, as before migration 0016; the reranker skips the
question gain) and one where every memory has its questions, their MiniLM vectors and
the embedder's name, as the questions pass stores them (up to 6, the two
prompts' union, their vectors as float16: up to 4.6 kB). The questions are the real ones
the bundled model wrote for the sentence (``turn_latency.read_questions``; 3
generic ones for a sentence it lacks). Each ``--storage`` adds one more database with
questions, whose table (``memory_derived`` since 0026) keeps its rows another way than
the migrations do (see ``STORAGE``; ``toast``: PostgreSQL's default). The ratios are
then against the database without questions; it prints each database's size (tables
and TOAST), the pages the read touches in each with every column of its rows detoasted
(a plain EXPLAIN never fetches TOASTed values), the WAL written per memory the write
marks used (and how many
of those updates were heap-only), and the plan of the read on the one with questions.

    .venv/bin/python bench/pg_context_scale.py [--users 100000] [--turns 400]
    .venv/bin/python bench/pg_context_scale.py --questions [--users 20000] [--storage toast ...]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

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
from turn_latency import read_questions

from memoryd import Memoryd
from memoryd.domain.rules import content_key, normalize_content
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.derived import encode, matrix_bytes
from memoryd.storage.repository import Repository

DATA = Path(__file__).parent / "data" / "retrieval.json"
# --storage: how memory_derived keeps its questions rows of up to 4.6 kB, instead of as
# the migrations leave it (since 0026 whole, up to a page's 8,160 bytes)
_TOAST = "ALTER TABLE memory_derived RESET (toast_tuple_target)"
STORAGE = {
    # rows over about 2 kB: the question vectors out of line, in the TOAST table
    "toast": (_TOAST,),
    # the same without a compression attempt first
    "external": (_TOAST, "ALTER TABLE memory_derived ALTER COLUMN vectors SET STORAGE EXTERNAL"),
    # the vectors kept in the row, compressed if need be
    "main": (_TOAST, "ALTER TABLE memory_derived ALTER COLUMN vectors SET STORAGE MAIN"),
    # rows up to 8,160 bytes whole, neither compressed nor out of line (what 0026 does)
    "inline": ("ALTER TABLE memory_derived SET (toast_tuple_target = 8160)",),
}
GENERIC = ("What do you like?", "What do you do?", "What should I know about you?")
WORKSPACES = 100
CHUNK = 10_000  # users per INSERT ... SELECT
WHAT = ("read", "write", "turn")


def personas(embedder: MiniLMEmbedder) -> list[dict[str, Any]]:
    """Per persona: its 25 memories (scope, text, vector, questions, their vectors as
    bytes) and its queries."""
    pools = json.loads(DATA.read_text())["pools"]
    texts = sorted({m for p in pools for m in p["memories"]})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    written = read_questions()
    asked = {t: written.get(normalize_content(t)) or GENERIC for t in texts}
    unique = sorted({q for qs in asked.values() for q in qs})
    question_vectors = dict(zip(unique, embedder.embed(unique), strict=True))
    blobs = {t: matrix_bytes([question_vectors[q] for q in qs]) for t, qs in asked.items()}
    out = []
    for n, pool in enumerate(pools):
        donor = pools[(n + 1) % len(pools)]["memories"]
        chosen = [("global", t) for t in donor[:5]]
        chosen += [("workspace", t) for t in pool["memories"]]
        rows = [(scope, t, vectors[t], asked[t], blobs[t]) for scope, t in chosen]
        out.append({"memories": rows, "queries": pool["queries"]})
    return out


def load(
    url: str,
    users: int,
    people: list[dict[str, Any]],
    embedder_name: str,
    *,
    questions: bool = False,
    storage: str | None = None,
) -> float:
    """Fill a migrated database with ``users`` users (their memories with questions when
    ``questions``; ``storage``: a key of ``STORAGE``); returns seconds taken."""
    started = time.perf_counter()
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        for statement in STORAGE.get(storage or "", ()):
            conn.execute(statement)
        add_workspaces(conn, WORKSPACES)
        conn.execute(
            "CREATE TEMP TABLE persona_memory (persona int, idx int, scope text, "
            "content text, content_key text, embedding bytea, questions text, "
            "question_vectors bytea, question_embedder text)"
        )
        with conn.cursor().copy("COPY persona_memory FROM STDIN") as copy:
            for p, person in enumerate(people):
                for i, (scope, text, vector, asked, blob) in enumerate(person["memories"]):
                    extra = (
                        (encode(list(asked)), blob, embedder_name)
                        if questions
                        else (None, None, None)
                    )
                    copy.write_row((p, i, scope, text, content_key(text), vector.tobytes(), *extra))
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
                JOIN persona_memory pm ON pm.persona = u %% %(personas)s;
                INSERT INTO memory_derived (memory_id, kind, content_key, version, value,
                    vectors, embedder)
                SELECT md5(u || ':' || pm.idx), 'questions', pm.content_key, 2, pm.questions,
                    pm.question_vectors, pm.question_embedder
                FROM generate_series(%(first)s::int, %(last)s::int) AS u
                JOIN persona_memory pm ON pm.persona = u %% %(personas)s
                WHERE pm.questions IS NOT NULL
                """,
                {
                    "ws": WORKSPACES,
                    "embedder": embedder_name,
                    "first": first,
                    "last": last,
                    "personas": len(people),
                },
            )
            if (questions or users >= 10 * CHUNK) and sys.stdout.isatty():
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


class Variant(NamedTuple):
    """One scratch database of the run."""

    label: str
    users: int
    questions: bool = False
    storage: str | None = None  # a key of STORAGE; None: PostgreSQL's default


def variants(args: argparse.Namespace) -> list[Variant]:
    """The databases to compare; the first is the baseline of the ratios."""
    if not args.questions:
        return [
            Variant(f"{args.baseline_users / 1000:g}k", args.baseline_users),
            Variant(f"{args.users / 1000:g}k", args.users),
        ]
    users = args.users or 20_000
    out = [Variant("none", users), Variant("questions", users, True)]
    out += [Variant(f"q {storage}", users, True, storage) for storage in args.storage or ()]
    return out


def sizes_of(url: str) -> str:
    """The memories and memory_derived tables' heap, TOAST and index sizes."""
    with psycopg.connect(libpq_dsn(url)) as conn:
        row = conn.execute(
            "SELECT pg_size_pretty(sum(pg_relation_size(c.oid))), "
            "pg_size_pretty(sum(coalesce(pg_total_relation_size(c.reltoastrelid), 0))), "
            "pg_size_pretty(sum(pg_indexes_size(c.oid))) "
            "FROM pg_class c WHERE c.relname IN ('memories', 'memory_derived')"
        ).fetchone()
    assert row is not None
    return f"heap {row[0]}, TOAST {row[1]}, indexes {row[2]}"


def write_wal(md: Memoryd, users: int, rng: random.Random) -> tuple[float, int, int]:
    """WAL bytes per memory of 200 writes marking 10 memories used, and how many of
    those updates were heap-only (HOT: no index entry written). The WAL position is the
    server's: nothing else should write meanwhile."""
    dsn = libpq_dsn(md.url)

    def lsn_and_updates(conn: psycopg.Connection) -> tuple[str, int, int]:
        conn.execute("SELECT pg_stat_force_next_flush()")
        row = conn.execute(
            "SELECT pg_current_wal_insert_lsn()::text, n_tup_upd, n_tup_hot_upd "
            "FROM pg_stat_user_tables WHERE relname = 'memories'"
        ).fetchone()
        assert row is not None
        return row[0], int(row[1]), int(row[2])

    md.db.engine.dispose()  # the pool's sessions send their statistics as they end
    time.sleep(1)
    with psycopg.connect(dsn, autocommit=True) as conn:
        start, upd0, hot0 = lsn_and_updates(conn)
        for _ in range(200):
            writer = rng.randint(1, users)
            touched = [memory_id(writer, i) for i in [*range(5), *rng.sample(range(5, 25), 5)]]
            with md.db.write() as repo:
                repo.touch_memories(touched, md.clock())
        end = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        assert end is not None
        md.db.engine.dispose()
        time.sleep(1)
        _, upd1, hot1 = lsn_and_updates(conn)
        row = conn.execute("SELECT %s::pg_lsn - %s::pg_lsn", (end[0], start)).fetchone()
        assert row is not None
    return float(row[0]) / 2000, upd1 - upd0, hot1 - hot0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, help="100,000; 20,000 with --questions")
    parser.add_argument("--baseline-users", type=int, default=1_000)
    parser.add_argument("--turns", type=int, default=400, help="measured turns per database")
    parser.add_argument(
        "--questions",
        action="store_true",
        help="compare same-size databases without and with questions per memory",
    )
    parser.add_argument(
        "--storage",
        choices=sorted(STORAGE),
        action="append",
        help="with --questions: one more database with questions, stored this way (repeatable)",
    )
    args = parser.parse_args()
    if args.storage and not args.questions:
        parser.error("--storage needs --questions")
    if not args.questions and args.users is None:
        args.users = 100_000

    print(machine())
    embedder = MiniLMEmbedder()
    people = personas(embedder)
    rng = random.Random(7)
    wanted = variants(args)
    with contextlib.ExitStack() as stack:
        urls = {
            v.label: stack.enter_context(scratch_database(f"ctx_{n}")) for n, v in enumerate(wanted)
        }
        users_of = {v.label: v.users for v in wanted}
        for v in wanted:
            seconds = load(
                urls[v.label],
                v.users,
                people,
                embedder.name,
                questions=v.questions,
                storage=v.storage,
            )
            print(
                f"loaded {v.users:,} users x 25 memories ({v.label}) in {seconds:.0f} s: "
                + sizes_of(urls[v.label])
            )
        services = {v.label: Memoryd(urls[v.label], embedder=embedder) for v in wanted}

        def one_turn(label: str, n: int, record: dict[str, list[float]] | None) -> None:
            """One read, one turn and one write, each for a different random user, so no
            measurement runs on pages another one just brought into the cache."""
            md = services[label]
            reader, talker, writer = rng.sample(range(1, users_of[label] + 1), 3)
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

        for v in wanted:  # the write must hit rows, not miss them silently
            with services[v.label].db.read() as repo:
                stored = repo.turn_memories(1, 1 % WORKSPACES + 1)
            assert {m.id for m in stored} == {memory_id(1, i) for i in range(25)}, "ids differ"
            with_questions = sum(m.question_vectors is not None for m in stored)
            assert with_questions == (25 if v.questions else 0), "questions not read"
        labels = list(services)
        for n in range(30):  # warm-up: pools, caches, onnxruntime
            for label in labels:
                one_turn(label, -n, None)
        record: dict[str, list[float]] = {f"{s} {k}": [] for s in labels for k in WHAT}
        for n in range(args.turns):
            order = labels if n % 2 == 0 else list(reversed(labels))
            for label in order:
                one_turn(label, n, record)

        base_label = labels[0]
        width = max(len(s) for s in labels) + 7
        print(f"\n{args.turns} turns per database, interleaved; times in ms")
        print(f"{'':{width}}{'p50':>8}{'p95':>8}   ratio p50 / p95 vs {base_label}")
        for what in WHAT:
            base = record[f"{base_label} {what}"]
            for label in labels:
                vals = record[f"{label} {what}"]
                p50, p95 = percentile(vals, 0.5), percentile(vals, 0.95)
                ratio = f"{p50 / percentile(base, 0.5):.2f} / {p95 / percentile(base, 0.95):.2f}"
                print(f"{label + ' ' + what:{width}}{p50:8.2f}{p95:8.2f}   {ratio}")

        if args.questions:
            print("\nWAL the write makes, per memory marked used (200 writes of 10 each):")
            for v in wanted:
                wal, updates, hot = write_wal(services[v.label], v.users, rng)
                print(f"  {v.label:12} {wal:,.0f} bytes; {hot} of {updates} updates HOT")

        # EXPLAIN alone fetches no TOASTed value: the wrapped one reads every column
        detoasted = "SELECT sum(length(t::text)) FROM ({}) t"

        def plan(v: Variant, wrap: str) -> list[str]:
            uid = rng.randint(1, v.users)  # a user no measurement read, probably
            with services[v.label].db.read() as repo:
                return explain(
                    repo.conn,
                    lambda c: Repository(c).turn_memories(uid, uid % WORKSPACES + 1),
                    wrap,
                )

        if args.questions:
            print("\nthe read with every column detoasted, per database (one random user):")
            for v in wanted:
                lines = plan(v, detoasted)
                buffers = next((ln.strip() for ln in lines if "Buffers:" in ln), "")
                took = next((ln.strip() for ln in lines if ln.startswith("Execution")), "")
                print(f"  {v.label:12} {buffers}; {took}")
        shown = wanted[1] if args.questions else wanted[-1]
        wraps = {"": "{}", ", every column detoasted": detoasted} if shown.questions else {"": "{}"}
        for title, wrap in wraps.items():
            print(
                f"\nplan of the turn's memory read ({shown.label}, {shown.users:,} users{title}):"
            )
            for line in plan(shown, wrap):
                print("  " + line)
        for md in services.values():
            md.close()


if __name__ == "__main__":
    main()
