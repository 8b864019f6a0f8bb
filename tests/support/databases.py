"""Which databases the suite uses, from the environment (see docs/testing.md).

``MEMORYD_TEST_PG_URL``: the PostgreSQL server the PostgreSQL tests create their databases
on. ``MEMORYD_TEST_DATABASE_URL``: "the default database" of the suite; unset or SQLite, a
fresh SQLite file per test; a PostgreSQL server URL, a fresh database on that server.
"""

from __future__ import annotations

import os

from sqlalchemy.engine import make_url

PG_URL = os.environ.get("MEMORYD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DEFAULT_DATABASE_URL = os.environ.get("MEMORYD_TEST_DATABASE_URL", "")
DEFAULT_IS_POSTGRES = make_url(DEFAULT_DATABASE_URL or "sqlite://").get_backend_name() == (
    "postgresql"
)


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
