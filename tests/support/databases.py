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
