"""Run history and per-pair retry state, stored in the database (R9).

A run is one pass of extraction (scheduled, manual or from the CLI) with its counters and
errors. A pair's state says how often its current batch failed, when it may be tried
again, and whether it is parked (given up on until someone retries it by hand).
Functions that must share the apply transaction take that transaction's connection.
Finishing a run also records it as the newest run of each pair it processed, which
retention (``memoryd.extraction.retention``) never deletes.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.storage.database import Database
from memoryd.storage.run_retention import record_last_runs
from memoryd.storage.tables import extraction_pairs, extraction_runs, users, workspaces

MAX_BACKOFF = timedelta(days=1)
MAX_STORED_ERRORS = 200
MAX_STORED_PAIRS = 200


@dataclass
class Run:
    """One extraction run and what it did; saved when it finishes.

    ``status`` is ``errors`` only when a pair's batch failed (``pairs_failed``); facts the
    pipeline refused (``facts_dropped``: invented, not about the user, secrets...) or
    could not file (``facts_not_stored``) are the pipeline doing its job, counted apart.
    ``pairs`` holds one outcome per pair processed, ``errors`` the itemised reasons.
    """

    id: str
    trigger: str
    started_at: datetime
    provider: str | None = None
    model: str | None = None
    dry_run: bool = False
    finished_at: datetime | None = None
    status: str = "running"
    pairs_seen: int = 0
    pairs_processed: int = 0
    pairs_skipped: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    memories_created: int = 0
    memories_updated: int = 0
    chats_processed: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    pairs_failed: int = 0
    facts_dropped: int = 0
    facts_not_stored: int = 0

    def settle(self) -> None:
        """Set the final status from the counters ("errors" only for a failed pair)."""
        self.status = "errors" if self.pairs_failed else "ok"

    def skip(self, reason: str, count: int = 1) -> None:
        self.pairs_skipped += count
        counts = Counter(self.skipped_reasons)
        counts[reason] += count
        self.skipped_reasons = dict(counts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("started_at", "finished_at"):
            data[key] = data[key].isoformat() if data[key] else None
        return data


def new_run_id() -> str:
    return uuid.uuid4().hex


def start_run(db: Database, run: Run) -> Run:
    values = asdict(run)
    with db.write() as repo:
        repo.conn.execute(insert(extraction_runs).values(**values))
    return run


def finish_run(db: Database, run: Run, now: datetime) -> Run:
    run.finished_at = now
    run.errors = run.errors[:MAX_STORED_ERRORS]
    run.pairs = run.pairs[:MAX_STORED_PAIRS]
    run.settle()
    values = asdict(run)
    values.pop("id")
    with db.write() as repo:
        repo.conn.execute(
            update(extraction_runs).where(extraction_runs.c.id == run.id).values(**values)
        )
        record_last_runs(repo.conn, run.id, run.started_at, run.pairs)
    return run


def _run(row: Any) -> Run:
    data = dict(row._mapping)
    return Run(**data)


def list_runs(db: Database, limit: int = 20) -> list[Run]:
    with db.read() as repo:
        rows = repo.conn.execute(
            select(extraction_runs)
            .order_by(extraction_runs.c.started_at.desc(), extraction_runs.c.id)
            .limit(limit)
        )
        return [_run(r) for r in rows]


def get_run(db: Database, run_id: str) -> Run | None:
    with db.read() as repo:
        row = repo.conn.execute(
            select(extraction_runs).where(extraction_runs.c.id == run_id)
        ).first()
    return _run(row) if row else None


def find_run(db: Database, given: str, min_prefix: int = 6) -> Run:
    """A run by its full id or a unique prefix of at least ``min_prefix`` characters."""
    found = get_run(db, given)
    if found is not None:
        return found
    if len(given) >= min_prefix:
        with db.read() as repo:
            rows = repo.conn.execute(
                select(extraction_runs)
                .where(extraction_runs.c.id.startswith(given, autoescape=True))
                .limit(2)
            ).all()
        if len(rows) == 1:
            return _run(rows[0])
        if len(rows) > 1:
            raise InvalidInput(f"run id prefix {given!r} is ambiguous; give more characters")
    raise NotFound(f"no extraction run {given!r}")


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


def get_pair_state(conn: Connection, user_id: int, workspace_id: int) -> PairState | None:
    row = conn.execute(
        select(extraction_pairs).where(
            extraction_pairs.c.user_id == user_id,
            extraction_pairs.c.workspace_id == workspace_id,
        )
    ).first()
    if row is None:
        return None
    return PairState(
        user_id=row.user_id,
        workspace_id=row.workspace_id,
        attempts=row.attempts,
        next_attempt_at=row.next_attempt_at,
        parked=row.parked,
        last_error=row.last_error,
        last_run_id=row.last_run_id,
        failed_chat_ids=tuple(row.failed_chat_ids or ()),
    )


def backoff_delay(attempts: int, base_seconds: float) -> timedelta:
    """Exponential: base, 2*base, 4*base ... capped at one day."""
    delay = timedelta(seconds=base_seconds * 2 ** max(0, attempts - 1))
    return min(delay, MAX_BACKOFF)


def record_failure(
    conn: Connection,
    user_id: int,
    workspace_id: int,
    *,
    error: str,
    chat_ids: list[int],
    run_id: str,
    now: datetime,
    max_attempts: int,
    backoff_seconds: float,
) -> PairState:
    """Count one more failed attempt; park the pair after ``max_attempts``."""
    before = get_pair_state(conn, user_id, workspace_id)
    attempts = (before.attempts if before else 0) + 1
    values = {
        "attempts": attempts,
        "next_attempt_at": now + backoff_delay(attempts, backoff_seconds),
        "parked": attempts >= max_attempts,
        "last_error": error[:2000],
        "last_run_id": run_id,
        "failed_chat_ids": chat_ids,
        "updated_at": now,
    }
    if before is None:
        conn.execute(
            insert(extraction_pairs).values(user_id=user_id, workspace_id=workspace_id, **values)
        )
    else:
        conn.execute(
            update(extraction_pairs)
            .where(
                extraction_pairs.c.user_id == user_id,
                extraction_pairs.c.workspace_id == workspace_id,
            )
            .values(**values)
        )
    state = get_pair_state(conn, user_id, workspace_id)
    assert state is not None
    return state


def clear_failures(conn: Connection, user_id: int, workspace_id: int) -> None:
    """The pair's batch went through: forget earlier failures and any parking."""
    conn.execute(
        delete(extraction_pairs).where(
            extraction_pairs.c.user_id == user_id,
            extraction_pairs.c.workspace_id == workspace_id,
        )
    )


def list_pair_states(db: Database, *, parked_only: bool = False) -> list[dict[str, Any]]:
    """Pairs with failed attempts (for admins): who, where, how often, and the last error."""
    query = (
        select(
            extraction_pairs,
            users.c.name.label("user_name"),
            workspaces.c.slug.label("workspace"),
        )
        .join(users, users.c.id == extraction_pairs.c.user_id)
        .join(workspaces, workspaces.c.id == extraction_pairs.c.workspace_id)
        .order_by(extraction_pairs.c.updated_at.desc())
    )
    if parked_only:
        query = query.where(extraction_pairs.c.parked.is_(True))
    with db.read() as repo:
        return [dict(r._mapping) for r in repo.conn.execute(query)]
