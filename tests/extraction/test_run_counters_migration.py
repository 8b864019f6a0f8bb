"""Runs stored before a run-history migration get honest counters (0007: from their
errors; 0014: no failed LLM calls, which were never recorded; 0015: no memories tagged)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from memoryd.extraction.runs import Run, finish_run, list_runs, new_run_id, start_run
from memoryd.storage import Database
from support.databases import revision_before, seed_run


def test_old_runs_get_counters_and_no_pairs(empty_db_url: str) -> None:
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_run_details.py"))
    errors = [
        {"kind": "item", "user_id": 1, "workspace": "lab", "error": "sentence 9: invented"},
        {"kind": "item", "user_id": 1, "workspace": "lab", "error": "sentence 8: invented"},
        {"kind": "not_stored", "user_id": 1, "workspace": "lab", "error": "global is full"},
    ]
    with db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO extraction_runs (id, trigger, dry_run, started_at, status, "
                "pairs_seen, pairs_processed, pairs_skipped, skipped_reasons, "
                "memories_created, memories_updated, chats_processed, llm_calls, "
                "prompt_tokens, completion_tokens, errors) VALUES (:id, 'manual', false, "
                ":at, 'ok', 1, 1, 0, '{}', 0, 0, 3, 1, 10, 2, :errors)"
            ),
            {"id": "a" * 32, "at": datetime(2026, 1, 1, tzinfo=UTC), "errors": json.dumps(errors)},
        )
    db.upgrade()
    [run] = list_runs(db)
    assert (run.pairs_failed, run.facts_dropped, run.facts_not_stored) == (0, 2, 1)
    assert run.pairs == [] and run.status == "ok"
    db.dispose()


def test_runs_stored_before_failed_calls_were_counted_read_zero_failed(empty_db_url: str) -> None:
    """Migration 0014 adds ``llm_calls_failed`` to a database holding runs: theirs is 0
    (never recorded), and a run finished after the upgrade stores its own."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_failed_llm_calls.py"))
    with db.engine.begin() as conn:
        seed_run(conn, datetime(2026, 1, 1, tzinfo=UTC), "b" * 32)
    db.upgrade()
    [old] = list_runs(db)
    assert (old.llm_calls, old.llm_calls_failed) == (2, 0)
    new = Run(id=new_run_id(), trigger="manual", started_at=datetime(2026, 1, 2, tzinfo=UTC))
    start_run(db, new)
    new.llm_calls, new.llm_calls_failed = 3, 2
    finish_run(db, new, datetime(2026, 1, 2, 0, 1, tzinfo=UTC))
    assert [(r.llm_calls, r.llm_calls_failed) for r in list_runs(db)] == [(3, 2), (2, 0)]
    db.dispose()


def test_runs_stored_before_suggestions_were_counted_read_zero(empty_db_url: str) -> None:
    """Migration 0025 adds ``memories_suggested``: 0 for the runs already stored."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_run_suggestions.py"))
    with db.engine.begin() as conn:
        seed_run(conn, datetime(2026, 1, 1, tzinfo=UTC), "c" * 32)
    db.upgrade()
    new = Run(id=new_run_id(), trigger="manual", started_at=datetime(2026, 1, 2, tzinfo=UTC))
    start_run(db, new)
    new.memories_suggested = 8
    finish_run(db, new, datetime(2026, 1, 2, 0, 1, tzinfo=UTC))
    assert [r.memories_suggested for r in list_runs(db)] == [8, 0]
    db.dispose()
