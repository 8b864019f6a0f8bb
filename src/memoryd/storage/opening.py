"""Opening a database from a URL a person typed: the errors they can act on, in words.

``Memoryd`` opens its database lazily; a URL that is not one, names an unknown dialect or
needs a driver that is not installed would otherwise surface as one of SQLAlchemy's (or
Python's) exceptions at the first call. Here they become ``InvalidInput``, with any
password in the URL hidden, so the library, the CLI and the worker say the same thing.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy.engine
import sqlalchemy.exc

from memoryd.domain.errors import InvalidInput
from memoryd.storage.database import Database

# Every database error, for code above storage that reports them; and those of a failed
# connection (restart, failover, network), which a caller may retry or answer with 503.
DatabaseError = sqlalchemy.exc.SQLAlchemyError
DATABASE_DOWN = (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError)


def open_database(url: object) -> Database:
    """Open (and migrate) the database; a URL that cannot name one is InvalidInput, its
    password hidden. A database that does not answer raises SQLAlchemy's error."""
    if not isinstance(url, str):
        raise InvalidInput(f"the database URL must be text, not {type(url).__name__}")
    try:
        return Database.open(url)
    except (sqlalchemy.exc.ArgumentError, ImportError, ValueError) as exc:
        # ArgumentError: not a URL; NoSuchModuleError (one of them): no such dialect;
        # ImportError: its driver is not installed; ValueError: in-memory SQLite
        raise InvalidInput(f"cannot open database {safe_url(url)}: {first_line(exc)}") from exc


def safe_url(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return "<unparseable URL>"


def missing_sqlite_file(url: str) -> bool:
    """Whether the URL names a SQLite file that does not exist (yet)."""
    parsed = sqlalchemy.engine.make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return False
    if parsed.database.startswith("file:"):
        return False
    return not Path(parsed.database).expanduser().exists()


def first_line(exc: BaseException) -> str:
    """The first line of a database error's message (the driver's own, for SQLAlchemy's
    wrappers), or its type's name when it has none."""
    origin = getattr(exc, "orig", None) or exc
    lines = str(origin).strip().splitlines()
    return lines[0] if lines else type(origin).__name__
