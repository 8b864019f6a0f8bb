"""``memoryd db copy``: move a whole install to another database (SQLite <-> PostgreSQL).

A module of its own so ``memoryd.cli.db`` stays about the schema; the copy itself (checks,
batches, ids, the one transaction) is ``memoryd.storage.database_copy``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    database_url,
    echo,
    emit_json,
    print_table,
    require_utf8,
)


def copy(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="URL",
            help="SQLAlchemy URL of the database to copy into; it must hold no memoryd data.",
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Check both databases and print what would be copied; write nothing."
        ),
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the whole database (--db) into an empty one (--to), e.g. SQLite to PostgreSQL.

    Everything is copied: users and passwords, roles, workspaces and members, API keys,
    sessions, memories with their history, suggestions, chats, run history and settings.
    The source must be at the newest revision (`memoryd db upgrade`); the target is
    migrated first and must hold no memoryd data. All rows go in one transaction, so a
    failure leaves the target empty; row counts are checked before it commits. Stop the
    processes using the source first, then point them at the target. Not copied:
    procrastinate's job queue (workers rebuild it; run `memoryd worker --setup-only` on a
    PostgreSQL target) and cache_epoch (each database's own cache counter).
    """
    from memoryd.storage.database_copy import copy_database

    report = copy_database(database_url(db), require_utf8(to, "target URL"), dry_run=dry_run)
    if as_json:
        emit_json(report.to_dict())
        return
    count = f"{report.total} rows in {len(report.tables)} tables"
    verb, done = (
        ("would copy", "nothing was written") if dry_run else ("copied", "row counts verified")
    )
    echo(f"{verb} {count} from {report.source} (revision {report.revision})")
    echo(f"into {report.target} ({report.target_state}); {done}")
    if dry_run:
        print_table(None, ["table", "rows"], [(t.table, t.source) for t in report.tables])
    else:
        rows = [(t.table, t.source, t.target) for t in report.tables]
        print_table(None, ["table", "source rows", "target rows"], rows)
    if report.next_ids:
        echo("next ids: " + ", ".join(f"{name} {n}" for name, n in report.next_ids.items()))
    echo(f"not copied: {', '.join(report.not_copied)} (see `memoryd db copy --help`)")
