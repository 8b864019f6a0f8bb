"""Shared fixtures: a Memoryd over a fresh SQLite file or a fresh PostgreSQL database.

PostgreSQL tests use ``MEMORYD_TEST_PG_URL`` (default: the local server at
127.0.0.1:5432, user postgres, database test); each test gets its own database, created
and dropped here. They skip, saying why, only when no server answers.

``MEMORYD_TEST_DATABASE_URL`` picks "the default database" of the suite: unset (or a
``sqlite:`` URL) it is a fresh SQLite file per test; set to a PostgreSQL server URL, the
``database_url`` and ``md`` fixtures give each test a fresh PostgreSQL database on that
server instead (copied from a migrated template, so it costs one CREATE DATABASE).
See docs/testing.md.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from memoryd import Memoryd
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.storage.database import Database
from support.databases import DEFAULT_DATABASE_URL, DEFAULT_IS_POSTGRES, PG_URL

# Marks tests sqlite/postgres and reports how many ran per marker.
pytest_plugins = ["support.markers"]


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    emb = MiniLMEmbedder()
    emb.embed(["warm up"])
    return emb


def _pg_available() -> str | None:
    try:
        engine = create_engine(PG_URL)
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as exc:  # pragma: no cover - depends on the machine
        return f"PostgreSQL not reachable at {PG_URL}: {exc}"


@pytest.fixture(scope="session")
def pg_server() -> str:
    reason = _pg_available()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return PG_URL


@contextmanager
def fresh_pg_database(server: str, *, template: str | None = None) -> Iterator[str]:
    """Create a uniquely named database on ``server`` (a copy of ``template`` if given),
    yield its URL, then drop it. Only databases made here are ever dropped."""
    name = f"memoryd_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    clause = f' TEMPLATE "{template}"' if template else ""
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"{clause}'))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
                {"n": name},
            )
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """The URL of a brand-new, empty PostgreSQL database, dropped after the test."""
    with fresh_pg_database(pg_server) as url:
        yield url


@pytest.fixture(scope="session")
def default_pg_template() -> Iterator[str]:
    """A database migrated to head once per session; per-test databases copy it."""
    server = DEFAULT_DATABASE_URL
    try:
        with create_engine(server).connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        pytest.fail(f"MEMORYD_TEST_DATABASE_URL={server} is not reachable: {exc}")
    with fresh_pg_database(server) as url:
        Database.open(url).dispose()
        yield make_url(url).database or ""


@pytest.fixture
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The suite's default database for one test: fresh SQLite, or fresh PostgreSQL when
    ``MEMORYD_TEST_DATABASE_URL`` names a PostgreSQL server."""
    if not DEFAULT_IS_POSTGRES:
        yield str(request.getfixturevalue("sqlite_url"))
        return
    template = str(request.getfixturevalue("default_pg_template"))
    with fresh_pg_database(DEFAULT_DATABASE_URL, template=template) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'memoryd.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Runs a test once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def other_db_url(db_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A second, empty database of the same kind as ``db_url`` (an instance to move to)."""
    if make_url(db_url).get_backend_name() == "sqlite":
        yield f"sqlite:///{tmp_path / 'other.db'}"
        return
    with fresh_pg_database(str(request.getfixturevalue("pg_server"))) as url:
        yield url


@pytest.fixture
def md(database_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on the default database: a fresh SQLite file (the embedded default), or
    PostgreSQL under ``MEMORYD_TEST_DATABASE_URL``."""
    with Memoryd(database_url, embedder=embedder) as instance:
        yield instance


@pytest.fixture
def sqlite_md(sqlite_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on a fresh SQLite file whatever the default database (SQLite's own tests)."""
    with Memoryd(sqlite_url, embedder=embedder) as instance:
        yield instance


@pytest.fixture
def any_md(db_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on SQLite and on PostgreSQL (parametrised)."""
    with Memoryd(db_url, embedder=embedder) as instance:
        yield instance
