"""``memoryd db``: apply schema migrations, show where a database stands, copy it.

Every other command migrates on first open too; these exist so an operator can upgrade
deliberately (before starting a fleet of API processes) and check a database without
changing it. ``db copy`` (``memoryd.cli.db_copy``) moves a whole install elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    database_url,
    echo,
    emit,
    emit_json,
    open_memoryd,
)
from memoryd.cli.db_copy import copy
from memoryd.domain.errors import InvalidInput

if TYPE_CHECKING:
    from memoryd.storage.database import Database


def safe_url(url: str) -> str:
    from memoryd.storage.opening import safe_url as hidden

    return hidden(url)


app = typer.Typer(
    help="Database schema: upgrade and status; copy a whole install to another database;"
    " refresh memory vectors.",
    no_args_is_help=True,
)


@contextmanager
def _opened(url: str) -> Iterator[tuple[Database, str | None]]:
    """The database, not migrated, and its applied revision; reading that revision is
    where a wrong URL or a down server shows."""
    from memoryd.storage.database import Database
    from memoryd.storage.opening import DatabaseError, first_line

    try:
        database = Database.open(url, migrate=False)
    except ValueError as exc:
        raise InvalidInput(f"cannot open database {safe_url(url)}: {exc}") from None
    try:
        try:
            current = database.current_revision()
        except DatabaseError as exc:
            raise InvalidInput(f"cannot open database {safe_url(url)}: {first_line(exc)}") from None
        yield database, current
    finally:
        database.dispose()


@app.command("upgrade")
def upgrade(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Apply pending migrations and print the revision the database is at."""
    url = database_url(db)
    with _opened(url) as (database, before):
        database.upgrade()
        after = database.current_revision()
    if as_json:
        emit_json({"url": safe_url(url), "from": before, "to": after})
    elif before == after:
        echo(f"{safe_url(url)} is already at revision {after} (head)")
    else:
        echo(f"{safe_url(url)} upgraded from {before or 'an empty database'} to {after} (head)")


@app.command("refresh-vectors")
def refresh_vectors(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Make again every memory vector made from an older form of its text, now.

    Since 0019 a memory's vector is made from its text in the user's own words ("The
    user runs ..." is embedded as "I run ...", since 0020 "User prefers ..." as "I
    prefer ..." too). The extraction scheduler and the PostgreSQL sweep do this in the
    background, 500 memories at a time; this does all of them at once (about 2 ms a
    memory)."""
    with open_memoryd(db) as md:
        made = md.refresh_vectors(limit=None)
    text = f"made {made} memory vectors again" if made else "every memory vector is current"
    emit(as_json, {"made": made}, text)


@app.command("status")
def status(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Show the database URL (password hidden), its revision and the newest one."""
    from memoryd.storage.database import head_revision
    from memoryd.storage.opening import missing_sqlite_file

    url = database_url(db)
    exists = not missing_sqlite_file(url)
    head = head_revision()  # the newest revision known to this memoryd
    current, dialect = None, "sqlite"
    if exists:
        with _opened(url) as (database, current):
            dialect = database.dialect
    report = {
        "url": safe_url(url),
        "dialect": dialect,
        "exists": exists,
        "current": current,
        "head": head,
        "up_to_date": current == head,
    }
    if as_json:
        emit_json(report)
        return
    echo(f"database: {report['url']} ({dialect})")
    if not exists:
        echo("current:  none (the file does not exist yet; it is created on first use)")
    else:
        echo(f"current:  {current or 'none (empty database)'}")
    echo(f"head:     {head}")
    echo("status:   up to date" if current == head else "status:   run `memoryd db upgrade`")


app.command("copy")(copy)
