"""The extraction tables' rows: runs, each pair's retry state, and which pairs are due.

``memoryd.extraction`` decides (backoff, parking, a run's status); this module reads and
writes ``extraction_runs`` and ``extraction_pairs``. ``due_pairs`` is the single query
that picks the pairs to process (it reads the partial index ``ix_chats_unprocessed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, literal, or_, select, update
from sqlalchemy.engine import Connection

from memoryd.storage.tables import (
    CHAT_UNPROCESSED,
    chats,
    extraction_pairs,
    extraction_runs,
    users,
    workspaces,
)


# runs -----------------------------------------------------------------------------
def insert_run(conn: Connection, values: dict[str, Any]) -> None:
    conn.execute(insert(extraction_runs).values(**values))


def update_run(
    conn: Connection, run_id: str, values: dict[str, Any], *, unfinished: bool = False
) -> bool:
    """Write ``values`` into the run (with ``unfinished``, only while it is not
    finished); False when no row changed."""
    query = update(extraction_runs).where(extraction_runs.c.id == run_id)
    if unfinished:
        query = query.where(extraction_runs.c.finished_at.is_(None))
    return bool(conn.execute(query.values(**values)).rowcount)


def run_rows(conn: Connection, limit: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """Up to ``limit`` runs, newest first; with ``prefix``, those whose id starts so."""
    query = select(extraction_runs).order_by(
        extraction_runs.c.started_at.desc(), extraction_runs.c.id
    )
    if prefix:
        query = query.where(extraction_runs.c.id.startswith(prefix, autoescape=True))
    return [dict(r._mapping) for r in conn.execute(query.limit(limit))]


def run_row(conn: Connection, run_id: str) -> dict[str, Any] | None:
    row = conn.execute(select(extraction_runs).where(extraction_runs.c.id == run_id)).first()
    return None if row is None else dict(row._mapping)


# pairs' retry state ---------------------------------------------------------------
@dataclass(frozen=True)
class PairState:
    user_id: int
    workspace_id: int
    attempts: int
    next_attempt_at: datetime | None
    parked: bool
    last_error: str | None
    last_run_id: str | None
    failed_chat_ids: tuple[int, ...]


def _this_pair(user_id: int, workspace_id: int) -> Any:
    return and_(
        extraction_pairs.c.user_id == user_id, extraction_pairs.c.workspace_id == workspace_id
    )


def get_pair_state(conn: Connection, user_id: int, workspace_id: int) -> PairState | None:
    r = conn.execute(select(extraction_pairs).where(_this_pair(user_id, workspace_id))).first()
    if r is None:
        return None
    failed = tuple(r.failed_chat_ids or ())
    return PairState(
        r.user_id, r.workspace_id, r.attempts, r.next_attempt_at, r.parked, r.last_error,
        r.last_run_id, failed,
    )  # fmt: skip


def put_pair_state(
    conn: Connection, user_id: int, workspace_id: int, values: dict[str, Any], *, new: bool
) -> None:
    """Insert (``new``) or update the pair's state row."""
    if new:
        conn.execute(
            insert(extraction_pairs).values(user_id=user_id, workspace_id=workspace_id, **values)
        )
    else:
        query = update(extraction_pairs).where(_this_pair(user_id, workspace_id))
        conn.execute(query.values(**values))


def clear_failures(conn: Connection, user_id: int, workspace_id: int) -> None:
    """The pair's batch went through: forget earlier failures and any parking."""
    conn.execute(delete(extraction_pairs).where(_this_pair(user_id, workspace_id)))


def pair_state_rows(conn: Connection, *, parked_only: bool = False) -> list[dict[str, Any]]:
    """Pairs with failed attempts, last changed first, with the user's name and the
    workspace's slug."""
    query = (
        select(
            extraction_pairs, users.c.name.label("user_name"), workspaces.c.slug.label("workspace")
        )
        .join(users, users.c.id == extraction_pairs.c.user_id)
        .join(workspaces, workspaces.c.id == extraction_pairs.c.workspace_id)
        .order_by(extraction_pairs.c.updated_at.desc())
    )
    if parked_only:
        query = query.where(extraction_pairs.c.parked.is_(True))
    return [dict(r._mapping) for r in conn.execute(query)]


# chats waiting for extraction -----------------------------------------------------
def pending_chats(conn: Connection, user_id: int, workspace_id: int) -> tuple[int, datetime | None]:
    """How many of the pair's chats wait for extraction, and when the newest was said."""
    count, last = conn.execute(
        select(func.count(), func.max(chats.c.created_at)).where(
            chats.c.user_id == user_id, chats.c.workspace_id == workspace_id, CHAT_UNPROCESSED
        )
    ).one()
    return int(count), last  # max() keeps the column's type: read back aware, in UTC


def mark_processed(
    conn: Connection, user_id: int, workspace_id: int, chat_ids: Sequence[int]
) -> int:
    """Mark the pair's chats processed; how many were not yet (another worker's)."""
    query = update(chats).where(
        chats.c.id.in_(chat_ids),
        chats.c.user_id == user_id,
        chats.c.workspace_id == workspace_id,
        CHAT_UNPROCESSED,
    )
    return int(conn.execute(query.values(memory_processed=True)).rowcount)


# which pairs are due ---------------------------------------------------------------
@dataclass(frozen=True)
class DuePair:
    user_id: int
    workspace_id: int
    workspace: str
    pending_chats: int


def _pending_pairs(now: datetime) -> Any:
    """Per pair with unprocessed chats: how many, the oldest and the newest; the join
    condition of its retry state; and "waiting out a backoff"."""
    grouped = (
        select(
            chats.c.user_id,
            chats.c.workspace_id,
            func.count().label("pending"),
            func.min(chats.c.created_at).label("oldest"),
            func.max(chats.c.created_at).label("newest"),
        )
        .where(CHAT_UNPROCESSED)
        .group_by(chats.c.user_id, chats.c.workspace_id)
        .subquery("pending_pairs")
    )
    waiting = and_(
        extraction_pairs.c.next_attempt_at.is_not(None), extraction_pairs.c.next_attempt_at > now
    )
    state = and_(
        extraction_pairs.c.user_id == grouped.c.user_id,
        extraction_pairs.c.workspace_id == grouped.c.workspace_id,
    )
    return grouped, state, waiting


def due_pairs(
    conn: Connection,
    *,
    now: datetime,
    idle_threshold: timedelta,
    min_chats: int,
    limit: int | None = None,
) -> list[DuePair]:
    """The pairs to process now, oldest pending chat first (the one due-pair query)."""
    grouped, state, waiting = _pending_pairs(now)
    query = (
        select(grouped.c.user_id, grouped.c.workspace_id, workspaces.c.slug, grouped.c.pending)
        .join(workspaces, workspaces.c.id == grouped.c.workspace_id)
        .outerjoin(extraction_pairs, state)
        .where(
            grouped.c.pending >= min_chats,
            grouped.c.newest <= now - idle_threshold,
            or_(
                extraction_pairs.c.user_id.is_(None),
                and_(extraction_pairs.c.parked.is_(False), ~waiting),
            ),
        )
        .order_by(grouped.c.oldest, grouped.c.user_id, grouped.c.workspace_id)
    )
    if limit is not None:
        query = query.limit(limit)
    return [DuePair(r.user_id, r.workspace_id, r.slug, r.pending) for r in conn.execute(query)]


def pending_summary(
    conn: Connection, *, now: datetime, idle_threshold: timedelta, min_chats: int
) -> dict[str, int]:
    """How many pairs with unprocessed chats are due, and why the others are not."""
    grouped, state, waiting = _pending_pairs(now)
    reason = case(
        (extraction_pairs.c.parked.is_(True), literal("parked")),
        (waiting, literal("backoff")),
        (grouped.c.pending < min_chats, literal("below minimum")),
        (grouped.c.newest > now - idle_threshold, literal("idle threshold")),
        else_=literal("due"),
    ).label("reason")
    inner = select(reason).select_from(grouped).outerjoin(extraction_pairs, state).subquery()
    rows = conn.execute(select(inner.c.reason, func.count()).group_by(inner.c.reason))
    return {str(r[0]): int(r[1]) for r in rows}
