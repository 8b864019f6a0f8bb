"""Opening a database: engines for SQLite and PostgreSQL, migrations, transactions.

Writes that must respect a limit run in a transaction that serialises them: on SQLite the
transaction starts with ``BEGIN IMMEDIATE`` (one writer at a time), on PostgreSQL the
repository locks the user's row (``SELECT ... FOR UPDATE``). Either way two writers racing
for the last free slot cannot both see it free.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.engine.url import URL, make_url
from sqlalchemy.exc import SQLAlchemyError

from memoryd.storage.files import create_private, private_dirs
from memoryd.storage.repository import Repository

SQLITE_BUSY_TIMEOUT_S = 30
_PG_MIGRATION_LOCK = 7_243_001  # arbitrary advisory-lock key for "memoryd migrations"


def _configure_sqlite(engine: Engine, path: Path | None) -> None:
    if path is not None:

        @event.listens_for(engine, "do_connect")
        def _create_privately(*_: Any) -> None:
            create_private(path)  # SQLite would create it readable by every account

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        # deleted rows are overwritten, not left in free pages: a deleted chat's text goes
        cur.execute("PRAGMA secure_delete=ON")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = "IMMEDIATE" if conn.get_execution_options().get("memoryd_write") else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")


def parse_url(url: str) -> URL:
    """A SQLAlchemy URL, also from the ``postgres://`` form that Heroku and other hosts
    hand out (SQLAlchemy only knows ``postgresql://``). ArgumentError if not a URL."""
    parsed = make_url(url)
    scheme, plus, driver = parsed.drivername.partition("+")
    if scheme == "postgres":
        parsed = parsed.set(drivername=f"postgresql{plus}{driver}")
    return parsed


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for a SQLAlchemy URL; a SQLite file and the folders above it are
    created private to this account (``memoryd.storage.files``)."""
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database in (None, "", ":memory:"):
            raise ValueError("in-memory SQLite is not supported: use a file (sqlite:///path.db)")
        path = None if database.startswith("file:") else Path(database).expanduser()
        if path is not None:
            private_dirs(path.parent)
        engine = create_engine(
            parsed,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False},
            **kwargs,
        )
        _configure_sqlite(engine, path)
        return engine
    if parsed.get_backend_name() == "postgresql":
        kwargs.setdefault("pool_pre_ping", True)
        kwargs.setdefault("pool_size", 10)
        kwargs.setdefault("max_overflow", 20)
    return create_engine(parsed, **kwargs)


def _alembic_config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option(
        "script_location", str(resources.files("memoryd") / "storage" / "migrations")
    )
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def head_revision() -> str | None:
    """The newest revision of memoryd's migrations. Found by loading every migration
    script, so once per process: each open of a database compares its revision to it."""
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def _release_migration_lock(conn: Connection) -> None:
    """Unlock after the migration; a failed one leaves its transaction aborted, so that
    is rolled back first. If even that fails the connection is dropped, which ends the
    session and with it the lock (a pooled connection would otherwise keep holding it)."""
    try:
        conn.rollback()
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_MIGRATION_LOCK})
        conn.commit()
    except SQLAlchemyError:
        conn.invalidate()
        raise


def _sqlite_foreign_keys(conn: Connection, on: bool) -> None:
    """SQLite: enforce foreign keys or not (outside a transaction; a no-op inside one).
    Off while migrating: a migration that alters ``memories`` copies it to a new table
    and drops the old one, which would otherwise delete, by cascade, the rows that
    reference it (``memory_derived``)."""
    if conn.dialect.name == "sqlite" and not conn.in_transaction():
        driver: Any = conn.connection.driver_connection
        driver.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


class Database:
    """One database: an engine plus migrations and transaction helpers.

    ``Database.open(url)`` creates the engine and brings the schema up to date;
    ``Database(engine)`` wraps an engine you made yourself.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._migrated = False
        self._migrate_lock = threading.Lock()

    @classmethod
    def open(cls, url: str, *, migrate: bool = True, **engine_kwargs: Any) -> Database:
        db = cls(make_engine(url, **engine_kwargs))
        if migrate:
            db.upgrade()
        return db

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def head_revision(self) -> str | None:
        return head_revision()

    def current_revision(self) -> str | None:
        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def upgrade(self, revision: str = "head") -> None:
        """Apply pending migrations (safe to call from several processes at once)."""
        with self._migrate_lock:
            if self._migrated and revision == "head":
                return
            with self.engine.connect().execution_options(memoryd_write=True) as conn:
                _sqlite_foreign_keys(conn, False)
                if self.dialect == "postgresql":
                    conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
                    conn.commit()
                try:
                    current = MigrationContext.configure(conn).get_current_revision()
                    if current != head_revision() or revision != "head":
                        command.upgrade(_alembic_config(conn), revision)
                    conn.commit()
                except BaseException:
                    if self.dialect == "postgresql":
                        # the migration's own error is the one to report, not the unlock's
                        with suppress(SQLAlchemyError):
                            _release_migration_lock(conn)
                    else:
                        conn.rollback()
                        _sqlite_foreign_keys(conn, True)
                    raise
                if self.dialect == "postgresql":
                    _release_migration_lock(conn)
                _sqlite_foreign_keys(conn, True)
            self._migrated = revision == "head"

    @contextmanager
    def read(self) -> Iterator[Repository]:
        with self.engine.connect() as conn, conn.begin():
            yield Repository(conn)

    @contextmanager
    def write(self) -> Iterator[Repository]:
        """A write transaction, committed on success and rolled back on any exception."""
        with self.engine.connect().execution_options(memoryd_write=True) as conn, conn.begin():
            yield Repository(conn)

    @contextmanager
    def advisory_lock(self, key: int) -> Iterator[None]:
        """Hold PostgreSQL's session advisory lock ``key`` meanwhile: one process at a
        time, across the fleet, does what is inside."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})

    def ping(self) -> None:
        """One round trip (a health check): raises when the database does not answer."""
        with self.read() as repo:
            repo.conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()
