"""Shared fixtures: a Memoryd over a fresh SQLite file or a fresh PostgreSQL database.

PostgreSQL tests use ``MEMORYD_TEST_PG_URL`` (default: the local server at
127.0.0.1:5432, user postgres, database test); each test gets its own database, created
and dropped here. They skip, saying why, only when no server answers.

``MEMORYD_TEST_DATABASE_URL`` picks "the default database" of the suite: unset (or a
``sqlite:`` URL) it is a fresh SQLite file per test; set to a PostgreSQL server URL, the
``database_url`` and ``md`` fixtures give each test a fresh PostgreSQL database on that
server instead. See docs/testing.md.

A fresh database handed out at the current schema is a copy of a template migrated once
per session (a file copy on SQLite, ``CREATE DATABASE ... TEMPLATE`` on PostgreSQL): the
same tables ``Memoryd`` would create on an empty one, without running the migrations for
every test. The migrations themselves are tested on empty databases (``empty_db_url``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import typer.testing
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from memoryd import Memoryd
from memoryd.config import default_data_dir
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.database import Database
from support.databases import (
    DEFAULT_DATABASE_URL,
    DEFAULT_IS_POSTGRES,
    PG_URL,
    at_head,
    dropper,
    fresh_pg_database,
)

# Every memoryd the tests start (in process or as `memoryd serve`, with a data directory of
# its own) finds the re-quantised embedder where the session's `embedder` fixture put it,
# instead of deriving it again (seconds per process); tests of that derivation name their
# own models directory.
os.environ.setdefault("MEMORYD_MODELS_DIR", str(default_data_dir() / "models"))

# support.markers marks tests sqlite/postgres and reports how many ran per marker;
# support.garbage keeps the garbage collector's work small over a long run.
pytest_plugins = ["support.markers", "support.garbage"]

# typer's CliRunner.invoke builds the click command tree from the Typer app again on
# every call (about 90 ms for memoryd's commands, once most of tests/cli's time); the tree
# depends on nothing but the app, so the tests build it once per app.
typer.testing._get_command = functools.cache(typer.testing._get_command)


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


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every PostgreSQL database a test made is gone before the run ends."""
    errors = dropper.wait()
    if errors:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for line in errors:
            if reporter is not None:
                reporter.write_line(f"ERROR {line}", red=True)


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
    """The URL of a brand-new, empty PostgreSQL database, dropped after the test."""
    with fresh_pg_database(pg_server) as url:
        yield url


@contextmanager
def migrated_template(server: str) -> Iterator[str]:
    """A database on ``server`` migrated to head, for ``fresh_pg_database(server,
    template=...)`` to copy; yields its name, dropped at the end."""
    with fresh_pg_database(server) as url:
        Database.open(url).dispose()  # no connection may stay open on a template
        yield make_url(url).database or ""


@pytest.fixture(scope="session")
def pg_template(pg_server: str) -> Iterator[str]:
    """The PostgreSQL test server's migrated template (made once per session)."""
    with migrated_template(pg_server) as name:
        yield name


@pytest.fixture
def migrated_pg_url(pg_server: str, pg_template: str) -> Iterator[str]:
    """A brand-new PostgreSQL database at the current schema (a copy of ``pg_template``),
    dropped after the test."""
    with fresh_pg_database(pg_server, template=pg_template) as url:
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
    with migrated_template(server) as name:
        yield name


@pytest.fixture
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The suite's default database for one test, at the current schema: a fresh SQLite
    file, or a fresh PostgreSQL database when ``MEMORYD_TEST_DATABASE_URL`` names a
    PostgreSQL server."""
    if not DEFAULT_IS_POSTGRES:
        yield at_head(str(request.getfixturevalue("sqlite_url")))
        return
    template = str(request.getfixturevalue("default_pg_template"))
    with fresh_pg_database(DEFAULT_DATABASE_URL, template=template) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """The URL of a SQLite file that does not exist yet (nothing in it)."""
    return f"sqlite:///{tmp_path / 'memoryd.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Runs a test once on SQLite and once on PostgreSQL, each time on a fresh database
    at the current schema."""
    if request.param == "sqlite":
        return at_head(str(request.getfixturevalue("sqlite_url")))
    return str(request.getfixturevalue("migrated_pg_url"))


@pytest.fixture(params=["sqlite", "postgres"])
def empty_db_url(request: pytest.FixtureRequest) -> str:
    """A fresh database with nothing in it, on SQLite and on PostgreSQL (parametrised):
    for tests of the migrations themselves."""
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
    with Memoryd(at_head(sqlite_url), embedder=embedder) as instance:
        yield instance


@pytest.fixture
def any_md(db_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    """A Memoryd on SQLite and on PostgreSQL (parametrised)."""
    with Memoryd(db_url, embedder=embedder) as instance:
        yield instance
