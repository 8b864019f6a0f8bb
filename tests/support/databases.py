"""Which databases the suite uses, from the environment (see docs/testing.md), and the
SQLite template that gives a test a fresh database at the current schema in a copy.

``MEMORYD_TEST_PG_URL``: the PostgreSQL server the PostgreSQL tests create their databases
on. ``MEMORYD_TEST_DATABASE_URL``: "the default database" of the suite; unset or SQLite, a
fresh SQLite file per test; a PostgreSQL server URL, a fresh database on that server.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

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
