"""The hot queries use their indexes, and the migrations build exactly tables.py.

Each query is captured as memoryd sends it (through the real repository and scheduler
functions) and explained by the database itself: ``EXPLAIN`` on PostgreSQL (sequential
scans disabled, so the planner shows which index it *can* use whatever the table size)
and ``EXPLAIN QUERY PLAN`` on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event

from memoryd import Memoryd
from memoryd.extraction.scheduler import due_pairs, pending_summary
from memoryd.storage import derived, run_retention
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository
from memoryd.storage.tables import metadata
from memoryd.storage.vectors import old_vector_memories


def test_migrations_build_exactly_the_tables_module(empty_db_url: str) -> None:
    db = Database.open(empty_db_url)
    with db.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    db.dispose()
    assert differences == []


def query_plans(db: Database, call: Callable[[Repository], object]) -> list[str]:
    """The plan of every statement ``call`` sends (run in a transaction rolled back)."""
    sent: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, statement: str, params: Any, *_rest: Any) -> None:
        sent.append((statement, params))

    postgres = db.dialect == "postgresql"
    with db.engine.connect() as conn:
        with conn.begin() as trans:
            event.listen(conn, "before_cursor_execute", capture)
            call(Repository(conn))
            event.remove(conn, "before_cursor_execute", capture)
            trans.rollback()
        plans = []
        with conn.begin():
            if postgres:
                conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            for statement, params in sent:
                prefix = "EXPLAIN " if postgres else "EXPLAIN QUERY PLAN "
                rows = conn.exec_driver_sql(prefix + statement, params).all()
                plans.append("\n".join(str(row[-1]) for row in rows))
    return plans


@pytest.fixture
def populated(any_md: Memoryd) -> Memoryd:
    any_md.create_workspace("phoenix")
    for name in ("ana", "ben"):
        uid = any_md.create_user(name).id
        any_md.add_memory(uid, f"{name} likes tea")
        any_md.add_memory(uid, f"{name} works on the launch", workspace="phoenix")
        for n in range(4):
            any_md.record_chat(uid, "phoenix", f"question {n}", f"answer {n}")
    return any_md


def test_due_pair_sweep_reads_the_partial_index(populated: Memoryd) -> None:
    def sweep(repo: Repository) -> None:
        now = populated.clock()
        due_pairs(repo.conn, now=now, idle_threshold=timedelta(0), min_chats=3)
        pending_summary(repo.conn, now=now, idle_threshold=timedelta(0), min_chats=3)

    plans = query_plans(populated.db, sweep)
    assert len(plans) == 2
    for plan in plans:
        assert "ix_chats_unprocessed" in plan, plan


def test_a_pairs_unprocessed_chats_come_from_an_index(populated: Memoryd) -> None:
    uid = populated.get_user("ana").id
    plans = query_plans(populated.db, lambda repo: repo.list_chats(uid, 1, processed=False))
    assert "ix_chats_unprocessed" in plans[0] or "ix_chats_pair_processed" in plans[0]


def test_turn_read_uses_the_user_index(populated: Memoryd) -> None:
    uid = populated.get_user("ben").id
    plans = query_plans(populated.db, lambda repo: repo.turn_memories(uid, 1))
    assert "ix_memories_user_scope_workspace" in plans[0], plans[0]


def test_deleting_a_workspace_reads_by_workspace_index(populated: Memoryd) -> None:
    plans = query_plans(populated.db, lambda repo: repo.delete_workspace(1))
    memories_plan = next(p for p in plans if "memories" in p)
    chats_plan = next(p for p in plans if "chats" in p)
    assert "ix_memories_workspace_id" in memories_plan, memories_plan
    assert "ix_chats_workspace_id" in chats_plan, chats_plan


def test_pruning_run_history_reads_the_start_and_newest_run_indexes(populated: Memoryd) -> None:
    cutoff = populated.clock() - timedelta(days=90)
    now = populated.clock()
    plans = query_plans(
        populated.db,
        lambda repo: run_retention.prune(
            repo.conn, cutoff, now=now, legacy_stale=timedelta(minutes=15)
        ),
    )
    assert len(plans) == 1
    assert "ix_extraction_runs_started_at" in plans[0], plans[0]
    assert "ix_extraction_last_runs_run_id" in plans[0], plans[0]


def test_the_passes_read_underived_and_outdated_memories_through_indexes(
    populated: Memoryd,
) -> None:
    """A pass (and the queue's sweep) looks for memories with no value of its kind for
    their text, oldest first, then for values an older version wrote (0027): through
    the memories' creation time, memory_derived's key and its (kind, version) index."""
    now = populated.clock()
    q = derived.QUESTIONS
    plans = query_plans(populated.db, lambda repo: derived.underived(repo.conn, q, 50, now))
    indexes = ("memory_derived_pkey", "sqlite_autoindex_memory_derived", "ix_memory_derived_kind")
    assert any(index in plans[0] for index in indexes), plans[0]
    plans = query_plans(populated.db, lambda repo: derived.outdated(repo.conn, q, 2, 1, now))
    assert "ix_memory_derived_kind_version" in plans[0], plans[0]


def test_the_vector_refresh_reads_old_vectors_from_their_partial_index(populated: Memoryd) -> None:
    """The scheduler's ticks and the sweep look for vectors made from an older form of
    their text (0019) through ix_memories_old_vectors, not by reading every memory."""
    plans = query_plans(populated.db, lambda repo: old_vector_memories(repo.conn, 500))
    assert "ix_memories_old_vectors" in plans[0], plans[0]
