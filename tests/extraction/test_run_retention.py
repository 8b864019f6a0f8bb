"""Run history retention (``run_retention_days``): what a prune deletes and keeps, the
setting's values, each pair's newest run, the migration that finds it in old history,
and the scheduler pruning by itself at most once an hour -- on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput
from memoryd.extraction.scheduler import ExtractionScheduler
from memoryd.storage import Database
from memoryd.storage.run_retention import last_runs
from support.databases import revision_before
from support.extraction import START, Clock, run_ids, stored_run

DAY = timedelta(days=1)


def ids(md: Memoryd, *names: str) -> list[int]:
    return [md.get_user(name).id for name in names]


def test_old_finished_runs_go_while_runs_in_progress_and_each_pairs_newest_stay(
    team_md: Memoryd, clock: Clock
) -> None:
    ana, bo = ids(team_md, "ana", "bo")
    now = clock()
    old_empty = stored_run(team_md, now - 200 * DAY)  # a tick that found nothing due
    old_ana_lab = stored_run(team_md, now - 190 * DAY, [(ana, "lab"), (bo, "lab")])
    newest_ana_lab = stored_run(team_md, now - 150 * DAY, [(ana, "lab")])  # old, yet ana/lab's last
    newest_bo = stored_run(team_md, now - 120 * DAY, [(bo, "lab"), (bo, "ops")])
    in_progress = stored_run(team_md, now - 300 * DAY, finished=False)  # e.g. a long first run
    recent = stored_run(team_md, now - 10 * DAY)
    newest_ana_ops = stored_run(team_md, now - 95 * DAY, [(ana, "ops")])
    everything = run_ids(team_md)

    planned = team_md.prune_runs(dry_run=True)
    assert (planned.days, planned.total, planned.rows) == (90, 2, {"extraction_runs": 2})
    assert planned.cutoff == now - 90 * DAY and planned.dry_run
    assert run_ids(team_md) == everything  # a dry run deletes nothing

    done = team_md.prune_runs()
    assert (done.total, done.dry_run) == (2, False)
    assert run_ids(team_md) == everything - {old_empty, old_ana_lab}
    assert {newest_ana_lab, newest_bo, in_progress, recent, newest_ana_ops} <= run_ids(team_md)
    assert team_md.prune_runs().total == 0  # nothing left to prune

    with team_md.db.read() as repo:
        newest = last_runs(repo.conn)
    assert sorted(newest.values()) == sorted([newest_ana_lab, newest_bo, newest_bo, newest_ana_ops])

    assert team_md.prune_runs(older_than_days=100).total == 0
    assert team_md.prune_runs(older_than_days=5, dry_run=True).total == 1  # `recent`
    assert team_md.prune_runs(older_than_days=5).total == 1
    assert recent not in run_ids(team_md)


def test_a_pairs_newest_run_only_moves_to_a_later_started_run(
    team_md: Memoryd, clock: Clock
) -> None:
    [ana] = ids(team_md, "ana")
    later = stored_run(team_md, clock() - 100 * DAY, [(ana, "lab")])
    earlier = stored_run(team_md, clock() - 110 * DAY, [(ana, "lab")])  # finished after `later`
    with team_md.db.read() as repo:
        assert list(last_runs(repo.conn).values()) == [later]
    team_md.prune_runs()
    assert later in run_ids(team_md) and earlier not in run_ids(team_md)


def test_a_deleted_users_runs_are_no_longer_kept_for_them(team_md: Memoryd, clock: Clock) -> None:
    ana, bo = ids(team_md, "ana", "bo")
    anas = stored_run(team_md, clock() - 100 * DAY, [(ana, "lab")])
    bos = stored_run(team_md, clock() - 100 * DAY, [(bo, "ops")])
    team_md.delete_user(ana)
    team_md.delete_workspace("ops")
    assert team_md.prune_runs().total == 2
    assert not run_ids(team_md) & {anas, bos}


def test_setting_zero_keeps_every_run(team_md: Memoryd, clock: Clock) -> None:
    stored_run(team_md, clock() - 3000 * DAY)
    team_md.set_setting("run_retention_days", "0")
    assert team_md.get_settings()["run_retention_days"] == 0
    kept = team_md.prune_runs()
    assert (kept.days, kept.cutoff, kept.total) == (0, None, 0)
    assert len(run_ids(team_md)) == 1
    team_md.set_setting("run_retention_days", 3650)
    assert team_md.prune_runs().total == 0  # 3000 days is inside ten years
    team_md.set_setting("run_retention_days", " 30 ")
    assert team_md.prune_runs().total == 1


@pytest.mark.parametrize("bad", [-1, "-1", 3651, "abc", "1.5", 1.5, "", None, True, [30]])
def test_bad_retention_values_are_refused_and_change_nothing(team_md: Memoryd, bad: Any) -> None:
    team_md.set_setting("run_retention_days", 45)
    with pytest.raises(InvalidInput, match=r"run_retention_days: .*from 0 \(keep every run\)"):
        team_md.set_setting("run_retention_days", bad)
    assert team_md.get_settings()["run_retention_days"] == 45


@pytest.mark.parametrize("bad", [0, -3, 3651])
def test_an_explicit_age_must_be_at_least_a_day(team_md: Memoryd, clock: Clock, bad: int) -> None:
    stored_run(team_md, clock() - 500 * DAY)
    with pytest.raises(InvalidInput, match="from 1 to 3650"):
        team_md.prune_runs(older_than_days=bad)
    assert len(run_ids(team_md)) == 1


def test_scheduler_prunes_by_itself_at_most_once_an_hour(team_md: Memoryd, clock: Clock) -> None:
    scheduler = ExtractionScheduler(team_md, interval="10min", clock=clock)
    team_md.set_setting("memory_auto_extraction", False)  # pruning does not depend on it
    first = stored_run(team_md, clock() - 100 * DAY)
    assert scheduler.tick() is None
    assert first not in run_ids(team_md)
    second = stored_run(team_md, clock() - 100 * DAY)
    clock.advance(minutes=50)
    scheduler.tick()
    assert second in run_ids(team_md)  # pruned 50 minutes ago: not yet again
    clock.advance(minutes=10)
    scheduler.tick()
    assert second not in run_ids(team_md)


def test_the_schedulers_own_runs_go_once_older_than_the_retention(
    team_md: Memoryd, clock: Clock
) -> None:
    scheduler = ExtractionScheduler(team_md, interval="10min", clock=clock)
    made = scheduler.tick()
    assert made is not None
    clock.advance(days=89)
    scheduler.tick()
    assert made.id in run_ids(team_md)
    clock.advance(days=2)
    scheduler.tick()
    assert made.id not in run_ids(team_md)


# the migration that finds each pair's newest run in existing history -------------------
def test_migration_finds_each_pairs_newest_run_in_old_history(empty_db_url: str) -> None:
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_run_retention.py"))
    insert_run = text(
        "INSERT INTO extraction_runs (id, trigger, dry_run, started_at, finished_at, status, "
        "pairs_seen, pairs_processed, pairs_skipped, skipped_reasons, memories_created, "
        "memories_updated, chats_processed, llm_calls, prompt_tokens, completion_tokens, "
        "errors, pairs, pairs_failed, facts_dropped, facts_not_stored) VALUES (:id, "
        "'scheduler', false, :at, :done, 'ok', 0, 0, 0, '{}', 0, 0, 0, 0, 0, 0, '[]', "
        ":pairs, 0, 0, 0)"
    )

    def pairs(*items: tuple[int, str]) -> str:
        return json.dumps([{"user_id": u, "workspace": w, "status": "ok"} for u, w in items])

    with db.engine.begin() as conn:
        for uid, name in ((1, "ana"), (2, "bo")):
            conn.execute(
                text(
                    "INSERT INTO users (id, name, role, created_at) VALUES (:i, :n, 'default', :t)"
                ),
                {"i": uid, "n": name, "t": START},
            )
        conn.execute(
            text(
                "INSERT INTO workspaces (id, slug, name, created_at) VALUES (7, 'lab', 'Lab', :t)"
            ),
            {"t": START},
        )
        rows = [
            ("a" * 32, 30, True, pairs((1, "lab"), (2, "lab"))),
            ("b" * 32, 20, True, pairs((1, "lab"), (9, "lab"), (1, "gone"))),
            ("c" * 32, 10, False, pairs((2, "lab"))),  # still in progress: not a last run
        ]
        for run_id, days_ago, done, outcome in rows:
            at = START - timedelta(days=days_ago)
            conn.execute(
                insert_run,
                {"id": run_id, "at": at, "done": at if done else None, "pairs": outcome},
            )
    db.upgrade()
    with db.read() as repo:
        assert last_runs(repo.conn) == {(1, 7): "b" * 32, (2, 7): "a" * 32}
    db.dispose()
