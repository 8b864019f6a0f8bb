"""Queries for the memory lifecycle: suggestions waiting for review, and source chats.

Kept apart from ``memoryd.storage.repository`` (which holds the core tables' queries) so
each module stays small; like the repository, every function is one read or write over
the caller's open transaction and decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Row, insert, select, update
from sqlalchemy.engine import Connection

from memoryd.domain.models import Chat, Scope, Suggestion, SuggestionKind, SuggestionStatus
from memoryd.storage.repository import Repository
from memoryd.storage.tables import chats, memory_suggestions, workspaces

_SUGGESTION_SELECT = select(memory_suggestions, workspaces.c.slug).select_from(
    memory_suggestions.outerjoin(workspaces, memory_suggestions.c.workspace_id == workspaces.c.id)
)


def _suggestion(row: Row[Any]) -> Suggestion:
    return Suggestion(
        id=row.id,
        user_id=row.user_id,
        kind=SuggestionKind(row.kind),
        scope=Scope(row.scope),
        workspace=row.slug,
        content=row.content,
        created_at=row.created_at,
        status=SuggestionStatus(row.status),
        target_id=row.target_id,
        target_content=row.target_content,
        expires_at=row.expires_at,
        source_chat_ids=tuple(row.source_chats or ()),
        run_id=row.run_id,
        decided_at=row.decided_at,
        memory_id=row.memory_id,
    )


def insert_suggestion(conn: Connection, values: dict[str, Any]) -> None:
    conn.execute(insert(memory_suggestions).values(**values))


def get_suggestion(conn: Connection, suggestion_id: str) -> Suggestion | None:
    row = conn.execute(_SUGGESTION_SELECT.where(memory_suggestions.c.id == suggestion_id)).first()
    return _suggestion(row) if row else None


def list_suggestions(
    conn: Connection, user_id: int, status: SuggestionStatus | None = SuggestionStatus.PENDING
) -> list[Suggestion]:
    query = _SUGGESTION_SELECT.where(memory_suggestions.c.user_id == user_id)
    if status is not None:
        query = query.where(memory_suggestions.c.status == status.value)
    query = query.order_by(memory_suggestions.c.created_at, memory_suggestions.c.id)
    return [_suggestion(r) for r in conn.execute(query)]


def find_similar_suggestion(
    conn: Connection, user_id: int, scope: Scope, workspace_id: int | None, key: str
) -> Suggestion | None:
    """A pending or rejected suggestion of the same text in the same scope, if any."""
    query = _SUGGESTION_SELECT.where(
        memory_suggestions.c.user_id == user_id,
        memory_suggestions.c.scope == scope.value,
        memory_suggestions.c.content_key == key,
        memory_suggestions.c.status.in_(
            [SuggestionStatus.PENDING.value, SuggestionStatus.REJECTED.value]
        ),
    )
    if scope is Scope.WORKSPACE:
        query = query.where(memory_suggestions.c.workspace_id == workspace_id)
    row = conn.execute(query.limit(1)).first()
    return _suggestion(row) if row else None


def decide_suggestion(
    conn: Connection,
    suggestion_id: str,
    status: SuggestionStatus,
    now: datetime,
    memory_id: str | None = None,
) -> bool:
    """Mark a pending suggestion decided; False if it was no longer pending (a race)."""
    query = (
        update(memory_suggestions)
        .where(
            memory_suggestions.c.id == suggestion_id,
            memory_suggestions.c.status == SuggestionStatus.PENDING.value,
        )
        .values(status=status.value, decided_at=now, memory_id=memory_id)
    )
    return bool(conn.execute(query).rowcount)


def with_origins(conn: Connection, user_id: int, found: list[Suggestion]) -> list[Suggestion]:
    """``found`` with each suggestion's ``origin``: the workspace its chats were in (a
    global suggestion's from its source chats that are still stored)."""
    wanted = sorted({i for s in found if s.workspace is None for i in s.source_chat_ids})
    where: dict[int, str] = {}
    if wanted:
        query = (
            select(chats.c.id, workspaces.c.slug)
            .join(workspaces, chats.c.workspace_id == workspaces.c.id)
            .where(chats.c.user_id == user_id, chats.c.id.in_(wanted))
        )
        where = {row.id: row.slug for row in conn.execute(query)}
    return [
        replace(
            s, origin=s.workspace or next((where[i] for i in s.source_chat_ids if i in where), None)
        )
        for s in found
    ]


def chats_by_id(conn: Connection, user_id: int, chat_ids: Iterable[int]) -> list[Chat]:
    """The user's chats among ``chat_ids`` that still exist, oldest first."""
    wanted = sorted(set(chat_ids))
    return Repository(conn).list_chats(user_id, ids=wanted) if wanted else []
