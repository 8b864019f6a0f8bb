"""The chats of an unfinished import, staged in short transactions (issue 37, item 6).

SQLite has one writer at a time: an import writing tens of thousands of chats in one
transaction held every other writer for tens of seconds. So an import stages its chats
in ``import_chats`` in batches, each with the id it will have, and its last transaction
copies them into ``chats`` in one statement (``publish``): all or nothing as seen from
outside. Staged rows are dropped afterwards, and those of a dead import once ``STALE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select, text, true
from sqlalchemy.engine import Connection

from memoryd.storage.chat_erasure import next_chat_id, retire_chat_ids
from memoryd.storage.tables import chats, import_chats, workspaces

BATCH_ROWS = 1000  # rows per write transaction: well under a second on SQLite
STALE = timedelta(minutes=15)  # staged rows untouched this long belong to a dead import


def reserve_chat_ids(conn: Connection, count: int) -> list[int]:
    """``count`` chat ids no other chat will get, inside the caller's write transaction.
    SQLite: the next ones, marked given in ``id_high_water`` (as a deleted chat's are);
    PostgreSQL: taken from the chats' sequence."""
    if count <= 0:
        return []
    if conn.dialect.name == "sqlite":
        first = int(conn.execute(select(next_chat_id())).scalar_one())
        retire_chat_ids(conn, first + count - 1)
        return list(range(first, first + count))
    query = text(
        "SELECT nextval(pg_get_serial_sequence('chats', 'id')) FROM generate_series(1, :n)"
    )
    return sorted(int(i) for i in conn.execute(query, {"n": count}).scalars())


def stage(conn: Connection, import_id: str, rows: Sequence[dict[str, Any]]) -> None:
    """Insert staged chats (``import_chats`` columns but ``import_id``) in one statement."""
    if rows:
        conn.execute(insert(import_chats), [{"import_id": import_id, **r} for r in rows])


def publish(conn: Connection, import_id: str, *, learns: bool) -> int:
    """Copy the import's staged chats into ``chats`` (one statement, in the caller's write
    transaction), their workspaces by slug; with ``learns`` false they arrive processed.
    Returns how many were copied."""
    staged = import_chats.c
    processed = staged.memory_processed if learns else true()
    query = insert(chats).from_select(
        ["id", "user_id", "workspace_id", "prompt", "response", "created_at", "memory_processed"],
        select(
            staged.chat_id,
            staged.user_id,
            workspaces.c.id,
            staged.prompt,
            staged.response,
            staged.created_at,
            processed,
        )
        .join(workspaces, workspaces.c.slug == staged.workspace)
        .where(staged.import_id == import_id)
        .order_by(staged.seq),
    )  # counted from RETURNING: psycopg gives no row count for INSERT ... SELECT
    return len(conn.execute(query.returning(chats.c.id)).all())


def drop(conn: Connection, import_id: str, limit: int = BATCH_ROWS) -> int:
    """Delete up to ``limit`` of the import's staged rows; returns how many went."""
    mine = import_chats.c.import_id == import_id
    first = select(import_chats.c.seq).where(mine).order_by(import_chats.c.seq).limit(limit)
    query = delete(import_chats).where(mine, import_chats.c.seq.in_(first))
    return int(conn.execute(query).rowcount)


def stale(conn: Connection, now: datetime) -> list[str]:
    """The imports whose staged rows nobody touched for ``STALE``: their process died."""
    newest = func.max(import_chats.c.staged_at)
    query = (
        select(import_chats.c.import_id)
        .group_by(import_chats.c.import_id)
        .having(newest < now - STALE)
    )
    return [str(i) for i in conn.execute(query).scalars()]
