"""Queries for deleting a user's recorded chats, and for what must hold around it.

Memories keep a deleted chat's id in their ``source_chats``, so an id must never be given
again: SQLite numbers a new row ``max(id) + 1``, so ``retire_chat_ids`` remembers the
highest id ever deleted (in ``id_high_water``) and ``next_chat_id`` starts above it.
Extraction locks its batch's rows (``lock_batch``): a deletion waits for the batch's
transaction, or the batch finds its chats gone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.engine import Connection

from memoryd.storage.tables import chats, id_high_water, workspaces

BATCH = 500  # ids per IN list
_RETIRED = id_high_water.c.name == "chats"


def batches(ids: Iterable[Any], size: int = BATCH) -> Iterator[list[Any]]:
    """``ids`` in lists of at most ``size``: bounded IN lists and inserts."""
    listed = list(ids)
    for start in range(0, len(listed), size):
        yield listed[start : start + size]


def _existing(conn: Connection, chat_ids: Sequence[int], *where: Any, lock: bool) -> set[int]:
    """Which of ``chat_ids`` name chats matching ``where``; ``lock`` locks their rows."""
    found: set[int] = set()
    for part in batches(chat_ids):
        query = select(chats.c.id).where(*where, chats.c.id.in_(part))
        if lock:
            query = query.with_for_update()
        found.update(int(i) for i in conn.execute(query).scalars())
    return found


def owned_chat_ids(conn: Connection, user_id: int, chat_ids: Sequence[int]) -> set[int]:
    """Which of ``chat_ids`` are this user's chats."""
    return _existing(conn, chat_ids, chats.c.user_id == user_id, lock=False)


def delete_chats(
    conn: Connection,
    user_id: int,
    *,
    ids: Sequence[int] | None = None,
    workspace_id: int | None = None,
) -> dict[int, str]:
    """Delete the user's chats among ``ids`` (all of them when None), only in
    ``workspace_id`` if given; returns each deleted chat's id with its workspace slug."""
    where: list[Any] = [chats.c.user_id == user_id]
    if workspace_id is not None:
        where.append(chats.c.workspace_id == workspace_id)
    parts: Iterable[list[int] | None] = [None] if ids is None else batches(ids)
    deleted: dict[int, int] = {}
    for part in parts:
        query = delete(chats).where(*where)
        if part is not None:
            query = query.where(chats.c.id.in_(part))
        rows = conn.execute(query.returning(chats.c.id, chats.c.workspace_id))
        deleted.update((int(r.id), int(r.workspace_id)) for r in rows)
    if not deleted:
        return {}
    retire_chat_ids(conn, max(deleted))
    slug_query = select(workspaces.c.id, workspaces.c.slug).where(
        workspaces.c.id.in_(set(deleted.values()))
    )
    slugs = {int(r.id): str(r.slug) for r in conn.execute(slug_query)}
    return {chat_id: slugs.get(ws, "") for chat_id, ws in sorted(deleted.items())}


def retire_chat_ids(conn: Connection, highest: int | None) -> None:
    """Never give a chat id up to ``highest`` again (SQLite; see the module doc). The
    caller holds the write transaction, which on SQLite is the only writer."""
    if highest is None or conn.dialect.name != "sqlite":
        return
    known = conn.execute(select(id_high_water.c.value).where(_RETIRED)).scalar_one_or_none()
    if known is None:
        conn.execute(insert(id_high_water).values(name="chats", value=highest))
    elif known < highest:
        conn.execute(update(id_high_water).where(_RETIRED).values(value=highest))


def highest_chat_id(conn: Connection, *where: Any) -> int | None:
    """The highest id among the chats matching ``where`` (before deleting them)."""
    found = conn.execute(select(func.max(chats.c.id)).where(*where)).scalar_one_or_none()
    return None if found is None else int(found)


def next_chat_id() -> Any:
    """SQLite: the id for a new chat, above every chat id ever given (one statement)."""
    newest = select(func.max(chats.c.id)).scalar_subquery()
    retired = select(id_high_water.c.value).where(_RETIRED).scalar_subquery()
    return func.max(func.coalesce(newest, 0), func.coalesce(retired, 0)) + 1


def highest_given_chat_id(conn: Connection) -> int:
    """The highest chat id this database ever gave (0 when none): every new chat's id is
    above it, so an id at or below it can never name a chat recorded later."""
    if conn.dialect.name == "sqlite":
        return int(conn.execute(select(next_chat_id())).scalar_one()) - 1
    given = conn.execute(
        text("SELECT pg_sequence_last_value(pg_get_serial_sequence('chats', 'id')::regclass)")
    ).scalar_one_or_none()  # NULL until the sequence gave its first id
    return max(highest_chat_id(conn) or 0, int(given or 0))


def lock_batch(
    conn: Connection, user_id: int, workspace_id: int, chat_ids: Sequence[int]
) -> set[int]:
    """The batch's chats that still exist, their rows locked (PostgreSQL) until the
    caller's transaction ends, so they cannot be deleted while it writes."""
    mine = (chats.c.user_id == user_id, chats.c.workspace_id == workspace_id)
    return _existing(conn, chat_ids, *mine, lock=True)
