"""Runs stored before the run-details migration get honest counters from their errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from memoryd.extraction.runs import list_runs
from memoryd.storage import Database
from support.databases import revision_before


def test_old_runs_get_counters_and_no_pairs(db_url: str) -> None:
    db = Database.open(db_url, migrate=False)
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
