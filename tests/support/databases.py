"""Which databases the suite uses, from the environment (see docs/testing.md); the SQLite
template that gives a test a fresh database at the current schema in a copy; making and
dropping the tests' PostgreSQL databases.

``MEMORYD_TEST_PG_URL``: the PostgreSQL server the PostgreSQL tests create their databases
on. ``MEMORYD_TEST_DATABASE_URL``: "the default database" of the suite; unset or SQLite, a
fresh SQLite file per test; a PostgreSQL server URL, a fresh database on that server.
"""

from __future__ import annotations

import atexit
import functools
import os
import queue
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url

PG_URL = os.environ.get("MEMORYD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DEFAULT_DATABASE_URL = os.environ.get("MEMORYD_TEST_DATABASE_URL", "")
DEFAULT_IS_POSTGRES = make_url(DEFAULT_DATABASE_URL or "sqlite://").get_backend_name() == (
    "postgresql"
)

_sqlite_template: Path | None = None


def sqlite_template() -> Path:
    """A SQLite file migrated to head, made on first use, once per process (in a
    temporary folder removed at exit)."""
    global _sqlite_template
    if _sqlite_template is None:
        from memoryd.storage.database import Database

        folder = Path(tempfile.mkdtemp(prefix="memoryd-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = folder / "template.db"
        db = Database.open(f"sqlite:///{path}")
        with db.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        db.dispose()
        # closing the last connection folds the write-ahead log into the file itself
        assert not path.with_name(path.name + "-wal").exists(), "template still has a WAL"
        _sqlite_template = path
    return _sqlite_template


def at_head(url: str) -> str:
    """``url``, after giving a SQLite file that does not exist yet the current schema:
    what opening it with ``Memoryd`` would make of it (the migrations run on an empty
    file), copied from ``sqlite_template()`` instead of migrating again. Any other URL
    (an existing file, PostgreSQL) is left alone."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return url
    path = Path(parsed.database)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sqlite_template(), path)
    return url


@functools.cache
def _admin(server: str) -> Engine:
    """One engine per server for CREATE and DROP DATABASE (which refuse a transaction)."""
    return create_engine(server, isolation_level="AUTOCOMMIT")


class _Dropper:
    """Drops the tests' PostgreSQL databases in a thread of its own: a DROP DATABASE waits
    for the server to remove the files, and the next test need not wait with it.
    ``wait()`` (at the end of the session) returns once every database is gone."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, str]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.errors: list[str] = []

    def drop(self, server: str, name: str) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="drop-db", daemon=True)
                self._thread.start()
        self._queue.put((server, name))

    def wait(self) -> list[str]:
        """Block until every queued database is dropped; the errors met on the way."""
        self._queue.join()
        return self.errors

    def _run(self) -> None:
        while True:
            server, name = self._queue.get()
            try:
                drop_pg_database(server, name)
            except Exception as exc:
                self.errors.append(f"could not drop {name}: {exc}")
            finally:
                self._queue.task_done()


dropper = _Dropper()


def drop_pg_database(server: str, name: str) -> None:
    """End every session on database ``name`` and drop it."""
    with _admin(server).connect() as conn:
        conn.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
            {"n": name},
        )
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))


@contextmanager
def fresh_pg_database(server: str, *, template: str | None = None) -> Iterator[str]:
    """Create a uniquely named database on ``server`` (a copy of ``template`` if given),
    yield its URL, then have it dropped (by ``dropper``, in the background). Only
    databases made here are ever dropped."""
    name = f"memoryd_t_{uuid.uuid4().hex[:12]}"
    clause = f' TEMPLATE "{template}"' if template else ""
    with _admin(server).connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"{clause}'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        dropper.drop(server, name)


def revision_before(migration_suffix: str) -> str:
    """The revision the migration whose file ends in ``migration_suffix`` (e.g.
    ``"_run_details.py"``) starts from: found in the migration scripts, not hard-coded, so
    a migration test keeps working when later migrations are added."""
    from importlib import resources

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option(
        "script_location", str(resources.files("memoryd") / "storage" / "migrations")
    )
    for script in ScriptDirectory.from_config(cfg).walk_revisions():
        if script.path.endswith(migration_suffix):
            down = script.down_revision
            assert isinstance(down, str)
            return down
    raise AssertionError(f"no migration file ending in {migration_suffix!r}")


def seed_user(conn: Connection, at: datetime) -> None:
    """User 1, 'ana', written with SQL that any schema version takes."""
    conn.execute(
        text("INSERT INTO users (id, name, role, created_at) VALUES (1, 'ana', 'default', :at)"),
        {"at": at},
    )


def seed_run(conn: Connection, at: datetime, run_id: str) -> None:
    """One finished manual extraction run (1 pair, 1 memory created, 2 LLM calls),
    written with SQL that needs only the first schema's columns."""
    conn.execute(
        text(
            "INSERT INTO extraction_runs (id, trigger, dry_run, started_at, finished_at, "
            "status, pairs_seen, pairs_processed, pairs_skipped, skipped_reasons, "
            "memories_created, memories_updated, chats_processed, llm_calls, "
            "prompt_tokens, completion_tokens, errors) VALUES (:id, 'manual', false, "
            ":at, :at, 'ok', 1, 1, 0, '{}', 1, 0, 3, 2, 10, 2, '[]')"
        ),
        {"id": run_id, "at": at},
    )


def seed_memory_and_run(engine: Engine, at: datetime) -> None:
    """One user (id 1) with one global memory ('m1', "I play chess.") and one finished
    extraction run, written with SQL that needs only the first schema's columns: what a
    migration test puts in a database before upgrading it."""
    with engine.begin() as conn:
        seed_user(conn, at)
        conn.execute(
            text(
                "INSERT INTO memories (id, user_id, scope, content, content_key, source, "
                "created_at, updated_at, source_chats) VALUES ('m1', 1, 'global', "
                "'I play chess.', 'i play chess.', 'user', :at, :at, '[]')"
            ),
            {"at": at},
        )
        seed_run(conn, at, "c" * 32)
