"""A run whose process stops before it finishes reads as interrupted, not running for ever.

Runs in progress beat (``heartbeat_at``, ``alive_until``) after every batch and pair; one
still "running" past ``alive_until`` is read back as ``interrupted`` and pruned like a
finished run. Here: the status as read, the heartbeat moving during a run, a process
killed mid-run (its chats and pair state), Ctrl-C, and the migration -- on SQLite and
PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from memoryd import Memoryd
from memoryd.extraction.pipeline import ExtractionConfig
from memoryd.extraction.runs import (
    STALE_FLOOR,
    Heartbeat,
    Run,
    finish_run,
    get_run,
    list_runs,
    new_run_id,
    record_failure,
    stale_after,
    start_run,
)
from memoryd.extraction.scheduler import run_extraction
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import Database
from memoryd.storage.run_retention import last_runs, prune
from memoryd.storage.tables import chats, extraction_pairs
from memoryd.testing import FakeOpenAIServer, Reply
from support.databases import revision_before
from support.extraction import START, Clock, chat, make_md, observe, run_ids, stored_run

DAY = timedelta(days=1)
MEMORYD = str(Path(sys.executable).parent / "memoryd")


def status(md: Memoryd, run_id: str) -> str:
    return md.extraction_run(run_id).status


def unprocessed(md: Memoryd, user_id: int) -> int:
    with md.db.read() as repo:
        query = select(func.count()).where(
            chats.c.user_id == user_id, chats.c.memory_processed.is_(False)
        )
        return int(repo.conn.execute(query).scalar_one())


def test_staleness_bound_is_a_floor_or_five_llm_timeouts() -> None:
    assert stale_after(1.5) == STALE_FLOOR == timedelta(minutes=15)
    assert stale_after(120) == timedelta(minutes=15)
    assert stale_after(600) == timedelta(minutes=50)


def test_a_run_reads_interrupted_once_its_heartbeat_is_stale(
    team_md: Memoryd, clock: Clock
) -> None:
    now = clock()
    finished = stored_run(team_md, now - 200 * DAY)
    alive = stored_run(team_md, now - 200 * DAY, finished=False)  # beat just now
    dead = stored_run(team_md, now - 200 * DAY, finished=False, last_beat=now - 20 * DAY)
    dead_recently = stored_run(team_md, now - 2 * DAY, finished=False, last_beat=now - DAY)
    assert [status(team_md, r) for r in (finished, alive, dead, dead_recently)] == [
        "ok",
        "running",
        "interrupted",
        "interrupted",
    ]
    listed = {r.id: r for r in team_md.extraction_runs()}
    assert listed[alive].status == "running" and listed[alive].status_note is None
    assert listed[dead].status == "interrupted"
    note = listed[dead].status_note
    assert note is not None and note.startswith("the process running it stopped before it")
    assert f"{now - 20 * DAY:%Y-%m-%d %H:%M:%S} UTC" in note  # its last sign of life
    assert listed[dead].to_dict()["status_note"] == note
    assert listed[dead].heartbeat_at == now - 20 * DAY and listed[dead].finished_at is None

    # alive until its last heartbeat plus the bound, to the second
    clock.advance(minutes=15)
    assert status(team_md, alive) == "running"
    clock.advance(seconds=1)
    assert status(team_md, alive) == "interrupted"
    clock.now = now

    assert team_md.prune_runs(dry_run=True).total == 2
    done = team_md.prune_runs()  # 90 days: the finished run and the long-dead one
    assert done.total == 2
    assert run_ids(team_md) == {alive, dead_recently}
    assert team_md.prune_runs(older_than_days=1).total == 1  # dead_recently; alive stays
    assert run_ids(team_md) == {alive}


def test_a_run_that_was_only_stalled_comes_back(team_md: Memoryd, clock: Clock) -> None:
    """A run that looked dead but was not: its next beat makes it running again, and
    finishing stores it even if retention deleted it meanwhile."""
    run = Run(id=new_run_id(), trigger="manual", started_at=clock() - 100 * DAY)
    start_run(team_md.db, run, STALE_FLOOR)
    assert status(team_md, run.id) == "interrupted"
    Heartbeat(team_md.db, run, clock, STALE_FLOOR).beat()
    assert status(team_md, run.id) == "running"
    clock.advance(hours=1)
    assert team_md.prune_runs().total == 1 and run_ids(team_md) == set()
    run.pairs_processed = 1
    finish_run(team_md.db, run, clock())
    stored = team_md.extraction_run(run.id)
    assert (stored.status, stored.pairs_processed, stored.finished_at) == ("ok", 1, clock())


def test_a_run_named_by_a_failing_pair_is_kept_even_when_interrupted(
    team_md: Memoryd, clock: Clock
) -> None:
    ana = team_md.get_user("ana").id
    dead = stored_run(team_md, clock() - 100 * DAY, finished=False, last_beat=clock() - 99 * DAY)
    with team_md.db.write() as repo:
        workspace_id = repo.workspace_id("lab")
        assert workspace_id is not None
        record_failure(
            repo, ana, workspace_id, error="model crashed", chat_ids=[], run_id=dead,
            now=clock(), max_attempts=5, backoff_seconds=60,
        )  # fmt: skip
    assert status(team_md, dead) == "interrupted"
    assert team_md.prune_runs().total == 0
    assert dead in run_ids(team_md)


def test_the_heartbeat_moves_forward_during_a_multi_pair_run(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana, bo = team_md.get_user("ana").id, team_md.get_user("bo").id
    for user in (ana, bo):  # two batches of two chats each, one LLM call per batch
        for n in range(4):
            team_md.record_chat(user, "lab", f"I keep my lab notes in notebook {n}.", "Noted.")
    seen: list[tuple[datetime | None, str, int, int]] = []

    def answer(request: Any) -> Reply:
        # what a reader sees while the run waits for the model, then a minute passes
        [run] = list_runs(team_md.db, 1, now=clock())
        seen.append((run.heartbeat_at, run.status, run.pairs_processed, run.chats_processed))
        clock.advance(minutes=1)
        return observe()

    fake_llm.responder = answer
    run = run_extraction(team_md, force=True, config=ExtractionConfig(batch_chats=2))
    minute = timedelta(minutes=1)
    assert seen == [
        (START, "running", 0, 0),  # started
        (START + minute, "running", 0, 0),  # after ana's first batch
        (START + 2 * minute, "running", 1, 4),  # after ana's pair: its counters too
        (START + 3 * minute, "running", 1, 4),  # after bo's first batch
    ]
    stored = get_run(team_md.db, run.id, now=clock() + 30 * DAY)
    assert stored is not None
    assert (stored.status, stored.pairs_processed, stored.chats_processed) == ("ok", 2, 8)
    assert stored.finished_at == stored.heartbeat_at == START + 4 * minute
    assert stored.alive_until is None  # finished runs never go stale


def test_while_running_alive_until_is_the_last_beat_plus_the_bound(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    chat(team_md, team_md.get_user("ana").id, "lab", 3)
    stored: list[Run] = []

    def answer(request: Any) -> Reply:
        stored.extend(list_runs(team_md.db, 1, now=clock()))
        return observe()

    fake_llm.responder = answer
    team_md.extract(force=True)
    [run] = stored
    bound = stale_after(team_md.settings.llm_timeout)
    assert run.heartbeat_at == START and run.alive_until == START + bound


def test_ctrl_c_stores_the_run_as_interrupted_and_the_finished_pairs_as_done(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana, bo = team_md.get_user("ana").id, team_md.get_user("bo").id
    chat(team_md, ana, "lab", 3, "I run the Porto lab.")
    clock.advance(minutes=1)
    chat(team_md, bo, "lab", 3, "I run the Lisbon lab.")
    fake_llm.script(observe(person=[1]))

    def ctrl_c_at_the_second_pair(user_id: int, slug: str, index: int, total: int) -> None:
        if index == 2:
            clock.advance(minutes=3)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        team_md.extract(on_pair_start=ctrl_c_at_the_second_pair)
    [run] = team_md.extraction_runs()
    assert (run.status, run.pairs_processed, run.memories_created) == ("interrupted", 1, 1)
    assert run.finished_at == clock()
    assert run.errors[-1] == {
        "kind": "interrupted", "user_id": bo, "workspace": "lab", "error": "Ctrl-C",
    }  # fmt: skip
    assert run.status_note == (
        "it stopped before it finished (Ctrl-C); the chats of the batch it was on stay "
        "unprocessed and a later run extracts them"
    )
    assert (unprocessed(team_md, ana), unprocessed(team_md, bo)) == (0, 3)
    with team_md.db.read() as repo:
        assert list(last_runs(repo.conn).values()) == [run.id]  # ana/lab's newest run
        assert repo.conn.execute(select(func.count()).select_from(extraction_pairs)).scalar() == 0
    fake_llm.script(observe(person=[1]))
    assert team_md.extract().pairs_processed == 1  # bo's chats, no penalty for the stop
    assert unprocessed(team_md, bo) == 0 and len(fake_llm.requests) == 2


def _extract_in_a_process(url: str, llm: FakeOpenAIServer, tmp_path: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY")}
    env.update(
        MEMORYD_DATA_DIR=str(tmp_path),
        MEMORYD_LLM_PROVIDER="openai",
        MEMORYD_LLM_BASE_URL=llm.base_url,
        MEMORYD_LLM_API_KEY="sk-test-not-a-real-key-0000",
        MEMORYD_LLM_MODEL="fake-model",
        MEMORYD_LLM_TIMEOUT="120",
        MEMORY_IDLE_THRESHOLD_MS="0",
    )
    return subprocess.Popen(
        [MEMORYD, "extract", "--db", url],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_a_killed_process_leaves_an_interrupted_run_and_unfinished_chats_for_the_next(
    db_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    clock = Clock(datetime.now(UTC) - timedelta(minutes=5))  # the child runs on real time
    with make_md(db_url, fake_llm, tmp_path, embedder, clock) as md:
        ana, bo = md.create_user("ana").id, md.create_user("bo").id
        md.create_workspace("lab")
        chat(md, ana, "lab", 3, "I run the Porto lab.")
        clock.advance(seconds=1)
        chat(md, bo, "lab", 3, "I run the Lisbon lab.")  # bo's chats are newer: second
    second_call = threading.Event()

    def answer(request: Any) -> Reply:
        if "Porto" in str(request):
            return observe(person=[1])
        second_call.set()
        return Reply.delay(120, observe(person=[1]))  # the child is killed meanwhile

    fake_llm.responder = answer
    child = _extract_in_a_process(db_url, fake_llm, tmp_path)
    try:
        assert second_call.wait(120), child.stdout.read() if child.stdout else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    fake_llm.responder = None

    clock.now = datetime.now(UTC)
    with make_md(db_url, fake_llm, tmp_path, embedder, clock) as md:
        [run] = md.extraction_runs()
        # alive: it beat after ana's pair, with what it had done by then
        assert (run.status, run.finished_at) == ("running", None)
        assert (run.pairs_processed, run.memories_created, run.chats_processed) == (1, 1, 3)
        assert run.heartbeat_at is not None and run.alive_until is not None
        assert run.alive_until - run.heartbeat_at == stale_after(120)
        # ana's batch was committed; bo's was not, and bo is not penalised for it
        assert (unprocessed(md, ana), unprocessed(md, bo)) == (0, 3)
        assert [m.content for m in md.list_memories(ana)] == ["The user runs the Porto lab."]
        assert md.list_memories(bo) == []
        with md.db.read() as repo:
            assert (
                repo.conn.execute(select(func.count()).select_from(extraction_pairs)).scalar() == 0
            )
            assert last_runs(repo.conn) == {}  # only a finished run becomes a pair's newest

        clock.now = run.alive_until + timedelta(seconds=1)
        assert status(md, run.id) == "interrupted"
        fake_llm.script(observe(person=[1]))
        retried = md.extract()  # the next run picks up bo's chats, and only those
        assert (retried.status, retried.pairs_processed, retried.chats_processed) == ("ok", 1, 3)
        assert unprocessed(md, bo) == 0
        assert [m.content for m in md.list_memories(bo)] == ["The user runs the Lisbon lab."]

        clock.advance(days=91)
        assert md.prune_runs().total == 1  # the interrupted run; the retry is bo's newest
        assert run_ids(md) == {retried.id}


# the migration that adds the heartbeat -------------------------------------------------
def test_migration_keeps_old_runs_and_times_unfinished_ones_from_their_start(
    empty_db_url: str,
) -> None:
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_run_heartbeat.py"))
    insert_run = text(
        "INSERT INTO extraction_runs (id, trigger, dry_run, started_at, finished_at, status, "
        "pairs_seen, pairs_processed, pairs_skipped, skipped_reasons, memories_created, "
        "memories_updated, chats_processed, llm_calls, prompt_tokens, completion_tokens, "
        "errors, pairs, pairs_failed, facts_dropped, facts_not_stored) VALUES (:id, "
        "'scheduler', false, :at, :done, :status, 1, 1, 0, '{}', 2, 0, 3, 1, 0, 0, '[]', "
        "'[]', 0, 0, 0)"
    )
    rows = [
        ("a" * 32, timedelta(days=100), True, "ok"),
        ("b" * 32, timedelta(days=100), False, "running"),  # its process died long ago
        ("c" * 32, timedelta(minutes=10), False, "running"),  # started 10 minutes ago
    ]
    with db.engine.begin() as conn:
        for run_id, ago, done, state in rows:
            at = START - ago
            conn.execute(
                insert_run,
                {"id": run_id, "at": at, "done": at if done else None, "status": state},
            )
    db.upgrade()
    runs = {r.id: r for r in list_runs(db, now=START)}
    assert {k: r.status for k, r in runs.items()} == {
        "a" * 32: "ok",
        "b" * 32: "interrupted",
        "c" * 32: "running",
    }
    assert all(r.heartbeat_at is None and r.alive_until is None for r in runs.values())
    assert runs["b" * 32].memories_created == 2  # counters untouched
    later = get_run(db, "c" * 32, now=START + timedelta(minutes=6))
    assert later is not None and later.status == "interrupted"  # 15 minutes from its start
    with db.write() as repo:
        cutoff = START - 90 * DAY
        rows_gone = prune(repo.conn, cutoff, now=START, legacy_stale=STALE_FLOOR)
    assert rows_gone == {"extraction_runs": 2}
    assert [r.id for r in list_runs(db, now=START)] == ["c" * 32]
    db.dispose()
