"""Shared fixtures: a Memoryd over a fresh SQLite file or a fresh PostgreSQL database.

PostgreSQL tests use ``MEMORYD_TEST_PG_URL`` (default: the local server at
127.0.0.1:5432, user postgres, database test); each test gets its own database, created
and dropped here. They skip, saying why, only when no server answers.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from memoryd import Memoryd
from memoryd.embedding.minilm import MiniLMEmbedder

PG_URL = os.environ.get(
    "MEMORYD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


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


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """The URL of a brand-new PostgreSQL database, dropped after the test."""
    name = f"memoryd_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(pg_server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(pg_server).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"
                ),
                {"n": name},
            )
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


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
def md(sqlite_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on a fresh SQLite file (the embedded default)."""
    with Memoryd(sqlite_url, embedder=embedder) as instance:
        yield instance


@pytest.fixture
def any_md(db_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on SQLite and on PostgreSQL (parametrised)."""
    with Memoryd(db_url, embedder=embedder) as instance:
        yield instance
