"""Scratch PostgreSQL databases for the scale benchmarks, filled on the server side.

Each benchmark creates its own database named ``memoryd_bench_<what>_<random>`` on the
server (``MEMORYD_BENCH_PG_URL``, else ``MEMORYD_TEST_PG_URL``, else the local server),
migrates it with memoryd's own migrations, bulk-loads rows with ``INSERT ... SELECT`` over
``generate_series`` (no per-row Python), and drops it at the end. Nothing else on the
server is touched.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url

from memoryd.storage.database import Database

SERVER = os.environ.get(
    "MEMORYD_BENCH_PG_URL",
    os.environ.get("MEMORYD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
)


def libpq_dsn(url: str) -> str:
    """A SQLAlchemy ``postgresql+psycopg://`` URL as a plain libpq connection string."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def scratch_database(what: str) -> Iterator[str]:
    """Create, migrate, yield the SQLAlchemy URL of, and finally drop a fresh database."""
    name = f"memoryd_bench_{what}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(libpq_dsn(SERVER), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = make_url(SERVER).set(database=name).render_as_string(hide_password=False)
    try:
        Database.open(url).dispose()
        yield url
    finally:
        with psycopg.connect(libpq_dsn(SERVER), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


def add_workspaces(conn: psycopg.Connection, count: int) -> None:
    """Workspaces with ids 1..count and slugs ws0..ws{count-1}."""
    conn.execute(
        "INSERT INTO workspaces (id, slug, name, created_at) "
        "SELECT g, 'ws' || (g - 1), 'Workspace ' || (g - 1), now() "
        "FROM generate_series(1, %s::int) g",
        (count,),
    )
    conn.execute("SELECT setval(pg_get_serial_sequence('workspaces', 'id'), %s)", (count,))


def add_users(conn: psycopg.Connection, first: int, last: int) -> None:
    """Users with ids first..last (inclusive) named u<id>."""
    conn.execute(
        "INSERT INTO users (id, name, role, created_at) "
        "SELECT g, 'u' || g, 'default', now() FROM generate_series(%s::int, %s::int) g",
        (first, last),
    )
    conn.execute(
        "SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))"
    )


def workspace_of(user_id: int, workspaces: int) -> str:
    """The workspace slug ``add_users`` callers give a user: ws<(id mod workspaces)>."""
    return f"ws{user_id % workspaces}"


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        cpu = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), cpu)
    pg = subprocess.run(
        ["psql", libpq_dsn(SERVER), "-Atc", "SHOW server_version"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores ({cpu}), "
        f"Python {platform.python_version()}, PostgreSQL {pg or '?'}"
    )


def explain(conn: Connection, call: Callable[[Connection], object], wrap: str = "{}") -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of the last SQL statement ``call(conn)`` sends, placed
    in ``wrap`` at ``{}`` (e.g. a query over its rows that reads every column)."""
    captured: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, params: Any, *_rest: Any) -> None:
        captured.append((statement, params))

    event.listen(conn, "before_cursor_execute", capture)
    try:
        call(conn)
    finally:
        event.remove(conn, "before_cursor_execute", capture)
    statement, params = captured[-1]
    rows = conn.exec_driver_sql(
        "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + wrap.replace("{}", statement), params
    )
    return [row[0] for row in rows]
