"""The extraction run history's retention: each pair's newest run, and the prune.

Without a bound ``extraction_runs`` gains a row per tick, job and manual run, forever.
``prune`` deletes old runs that are over, except each (user, workspace) pair's newest
(``extraction_last_runs``), so a pair quiet for months still shows what extraction last
did for it, and the run a failing pair's ``last_run_id`` names. The cutoff comes from
``memoryd.extraction.retention``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from memoryd.storage.tables import (
    extraction_last_runs,
    extraction_pairs,
    extraction_runs,
    users,
    workspaces,
)

# The run-history tables ``prune`` deletes from, in the order it reports them.
PRUNED_TABLES = ("extraction_runs",)


def record_last_runs(
    conn: Connection, run_id: str, started_at: datetime, pairs: Iterable[Mapping[str, Any]]
) -> None:
    """Make ``run_id`` the newest run of every pair it processed (``pairs``: the run's
    outcomes, each with ``user_id`` and ``workspace``), unless a run that started later
    already is. Pairs whose user or workspace is gone are left out."""
    wanted = {
        (p["user_id"], p["workspace"])
        for p in pairs
        if isinstance(p.get("user_id"), int) and isinstance(p.get("workspace"), str)
    }
    if not wanted:
        return
    # FOR KEY SHARE on PostgreSQL: the users and workspaces cannot be deleted before
    # this transaction commits, so the rows below never miss their foreign keys.
    found = conn.execute(
        select(workspaces.c.slug, workspaces.c.id)
        .where(workspaces.c.slug.in_({slug for _, slug in wanted}))
        .with_for_update(read=True, key_share=True)
    )
    ids = {str(r.slug): int(r.id) for r in found}
    present = set(
        conn.execute(
            select(users.c.id)
            .where(users.c.id.in_({uid for uid, _ in wanted}))
            .with_for_update(read=True, key_share=True)
        ).scalars()
    )
    rows = [
        {"user_id": uid, "workspace_id": ids[slug], "run_id": run_id, "started_at": started_at}
        for uid, slug in sorted(wanted)
        if uid in present and slug in ids
    ]
    if rows:
        conn.execute(_upsert(conn, rows))


def _upsert(conn: Connection, rows: list[dict[str, Any]]) -> Any:
    """INSERT ... ON CONFLICT (pair) DO UPDATE, only towards a later-started run."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(extraction_last_runs).values(rows)
    return statement.on_conflict_do_update(
        index_elements=[extraction_last_runs.c.user_id, extraction_last_runs.c.workspace_id],
        set_={"run_id": statement.excluded.run_id, "started_at": statement.excluded.started_at},
        where=statement.excluded.started_at >= extraction_last_runs.c.started_at,
    )


def _prunable(cutoff: datetime, now: datetime, legacy_stale: timedelta) -> Any:
    runs = extraction_runs.c
    interrupted = or_(
        runs.alive_until < now,
        and_(runs.alive_until.is_(None), runs.started_at < now - legacy_stale),
    )
    newest_of_a_pair = exists().where(extraction_last_runs.c.run_id == runs.id)
    named_by_a_failure = exists().where(extraction_pairs.c.last_run_id == runs.id)
    return and_(
        runs.started_at < cutoff,
        or_(runs.finished_at.is_not(None), interrupted),
        ~newest_of_a_pair,
        ~named_by_a_failure,
    )


def prune(
    conn: Connection,
    cutoff: datetime,
    *,
    now: datetime,
    legacy_stale: timedelta,
    dry_run: bool = False,
) -> dict[str, int]:
    """Delete the runs started before ``cutoff`` that finished or were interrupted (still
    unfinished past their ``alive_until`` at ``now``; a run stored without one,
    ``legacy_stale`` after it started), are no pair's newest run and no failing pair's
    last run (one DELETE per table); with ``dry_run`` only count them. Rows per table."""
    where = _prunable(cutoff, now, legacy_stale)
    if dry_run:
        query = select(func.count()).select_from(extraction_runs).where(where)
        return {"extraction_runs": int(conn.execute(query).scalar_one())}
    result = conn.execute(delete(extraction_runs).where(where))
    return {"extraction_runs": int(result.rowcount or 0)}


def last_runs(conn: Connection) -> dict[tuple[int, int], str]:
    """Each pair's newest run id, by (user id, workspace id)."""
    last = extraction_last_runs
    query = select(last.c.user_id, last.c.workspace_id, last.c.run_id)
    return {(r.user_id, r.workspace_id): r.run_id for r in conn.execute(query)}
