"""Setting up the scale path as docs/deploy.md says, on real PostgreSQL databases.

What an operator runs before the fleet starts -- ``memoryd db upgrade``, ``memoryd worker
--setup-only`` -- either prepares the database or says in one line what stands in the
way, and the URL forms hosts hand out (``postgres://``) are understood everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError
from typer.testing import CliRunner

from memoryd import Memoryd
from memoryd.storage.database import Database
from support.cli import Cli

pytestmark = pytest.mark.postgres

MIGRATION_LOCK = 7_243_001  # memoryd.storage.database._PG_MIGRATION_LOCK


def sql(url: str, statement: str) -> object:
    """Run one statement; its first value if it returns rows."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            result = conn.execute(text(statement))
            return result.scalar() if result.returns_rows else None
    finally:
        engine.dispose()


def memoryd(
    *args: str, tmp_path: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The ``memoryd`` command in its own process, as an operator runs it."""
    full = {**os.environ, "MEMORYD_DATA_DIR": str(tmp_path / "data"), "MEMORYD_DEBUG": ""}
    full.pop("MEMORYD_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "memoryd", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**full, **(env or {})},
    )


def test_a_failed_migration_names_its_own_error_and_frees_the_lock(
    pg_url: str, tmp_path: Path
) -> None:
    sql(pg_url, "CREATE TABLE users (id integer)")  # in the way of migration 0001

    with pytest.raises(SQLAlchemyError, match='relation "users" already exists'):
        Database.open(pg_url)
    held = f"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {MIGRATION_LOCK}"
    assert sql(pg_url, held) == 0

    result = Cli(pg_url, CliRunner()).run("db", "upgrade")
    assert result.exit_code != 0
    assert result.stderr.splitlines() == ['error: database error: relation "users" already exists']

    sql(pg_url, "DROP TABLE users")
    Database.open(pg_url).dispose()  # nothing left locked or half-done: it migrates now
    assert sql(pg_url, "SELECT count(*) FROM users") == 0


def test_worker_setup_that_cannot_install_procrastinate_says_why_in_one_line(
    pg_url: str, tmp_path: Path
) -> None:
    pytest.importorskip("procrastinate")
    sql(pg_url, "CREATE TABLE procrastinate_workers (id integer)")  # clashes with its schema

    result = memoryd("worker", "--setup-only", "--db", pg_url, tmp_path=tmp_path)

    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: cannot install procrastinate's tables in postgresql+psycopg://")
    assert 'relation "procrastinate_workers" already exists' in line
    assert "memoryd worker --setup-only" in line
    assert sql(pg_url, "SELECT to_regclass('procrastinate_jobs')::text") is None


def test_worker_setup_prints_one_line_and_is_repeatable(pg_url: str, tmp_path: Path) -> None:
    pytest.importorskip("procrastinate")
    for _ in range(2):
        result = memoryd("worker", "--setup-only", "--db", pg_url, tmp_path=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        assert result.stdout.splitlines() == [
            "database ready: memoryd migrations and procrastinate's schema are in place"
        ]
    assert sql(pg_url, "SELECT count(*) FROM procrastinate_jobs") == 0


def test_a_postgres_scheme_url_as_heroku_hands_out_works_everywhere(
    pg_url: str, tmp_path: Path
) -> None:
    pytest.importorskip("procrastinate")
    heroku = pg_url.replace("postgresql+psycopg://", "postgres://", 1)
    assert heroku.startswith("postgres://")
    cli = Cli(heroku, CliRunner())

    cli.ok("db", "upgrade")
    status = cli.json("db", "status")
    assert status["dialect"] == "postgresql" and status["up_to_date"]
    cli.ok("users", "add", "alice")
    with Memoryd(heroku) as md:
        assert [u.name for u in md.list_users()] == ["alice"]

    result = memoryd("worker", "--setup-only", "--db", heroku, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sql(pg_url, "SELECT to_regclass('procrastinate_jobs')::text") == "procrastinate_jobs"


def test_a_worker_the_job_queue_refuses_stops_with_the_reason(pg_url: str, tmp_path: Path) -> None:
    """A database that answers but refuses the queue (a table gone, privileges missing)
    is not an outage: the worker says why and exits instead of retrying forever."""
    pytest.importorskip("procrastinate")
    assert memoryd("worker", "--setup-only", "--db", pg_url, tmp_path=tmp_path).returncode == 0
    sql(pg_url, "DROP TABLE procrastinate_workers CASCADE")  # procrastinate_jobs stays

    llm = {
        "MEMORYD_LLM_PROVIDER": "openai",
        "MEMORYD_LLM_BASE_URL": "http://127.0.0.1:9/v1",  # never called: no job runs
        "MEMORYD_LLM_API_KEY": "unused",
    }
    # (a worker that took this for an outage would retry until the timeout)
    result = memoryd(
        "worker", "--heartbeat", "1", "--db", pg_url, tmp_path=tmp_path, env=llm, timeout=45
    )

    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("error: the worker cannot use the job queue: relation ")
    assert '"procrastinate_workers" does not exist' in last
    assert "database unavailable" not in result.stderr
