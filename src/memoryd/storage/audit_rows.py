"""Reading the audit log: one user's entries, filtered and paged, in one statement.

An entry keeps its memory before and after the change in two JSON columns, so "which
workspace" is read from them with SQLAlchemy's JSON operators (the same on SQLite and
PostgreSQL). A missing ``before``/``after`` is SQL NULL in some rows and JSON ``null`` in
others; reading a key of either gives NULL, so both are treated alike.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Row, Select, TableClause, and_, case, func, or_, select
from sqlalchemy.engine import Connection

from memoryd.domain.audit import AuditQuery
from memoryd.domain.models import AuditAction, AuditEntry
from memoryd.storage.tables import audit_log


def entry_of(row: Row[Any]) -> AuditEntry:
    """An ``audit_log`` row (its columns are ``AuditEntry``'s fields) as an entry."""
    return AuditEntry(**{**row._mapping, "action": AuditAction(row.action)})


def list_entries(
    conn: Connection, query: AuditQuery, *, newest_first: bool = True
) -> list[AuditEntry]:
    """The entries ``query`` asks for, newest first (or oldest first), at most
    ``query.limit`` of them (all with ``limit=None``)."""
    statement = _select(query).order_by(
        audit_log.c.id.desc() if newest_first else audit_log.c.id.asc()
    )
    if query.limit is not None:
        statement = statement.limit(query.limit)
    return [entry_of(r) for r in conn.execute(statement)]


def _select(query: AuditQuery) -> Select[Any]:
    log = audit_log.c
    statement = select(audit_log).where(log.user_id == query.user_id)
    if query.before is not None:
        statement = statement.where(log.id < query.before)
    if query.memory_id is not None:
        statement = statement.where(log.memory_id == query.memory_id)
    if query.actions:
        statement = statement.where(log.action.in_([a.value for a in query.actions]))
    if query.actor is not None:
        exact = log.actor == query.actor
        if ":" not in query.actor:  # a kind: every actor of that kind
            exact = or_(exact, log.actor.startswith(f"{query.actor}:", autoescape=True))
        statement = statement.where(exact)
    if query.since is not None:
        statement = statement.where(log.at >= query.since)
    if query.workspace is not None:
        statement = statement.where(_mentions(query.workspace))
    if query.visible_in is not None:
        statement = statement.where(log.memory_id.not_in(_hidden_memories(query)))
    return statement


def _mentions(slug: str) -> ColumnElement[bool]:
    """The entry's memory was in this workspace before or after the change, or the entry
    is a chat deletion that deleted chats there."""
    log = audit_log.c
    return or_(
        log.before["workspace"].as_string() == slug,
        log.after["workspace"].as_string() == slug,
        and_(
            log.action == AuditAction.DELETE_CHATS.value,
            log.before[("workspaces", slug)].as_string().is_not(None),
        ),
    )


def latest_workspace(entry: TableClause | Any) -> ColumnElement[Any]:
    """Where an entry leaves its memory: ``after``'s workspace, or ``before``'s when the
    entry deleted it (no ``after``); NULL for a global memory."""
    return case(
        (entry.c.after["scope"].as_string().is_(None), entry.c.before["workspace"].as_string()),
        else_=entry.c.after["workspace"].as_string(),
    )


def _hidden_memories(query: AuditQuery) -> Select[Any]:
    """The user's memories whose latest entry leaves them in a workspace outside
    ``query.visible_in``: every entry about them is hidden."""
    log = audit_log.c
    latest = (
        select(log.memory_id, func.max(log.id).label("last_id"))
        .where(log.user_id == query.user_id, log.memory_id != "")
        .group_by(log.memory_id)
        .subquery()
    )
    last = audit_log.alias("last_entry")
    where = latest_workspace(last)
    return (
        select(latest.c.memory_id)
        .join(last, last.c.id == latest.c.last_id)
        .where(where.is_not(None), where.not_in(sorted(query.visible_in or ())))
    )
