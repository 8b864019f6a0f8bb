"""Extraction on procrastinate workers (R16, R9): real ``memoryd worker`` processes.

Each test starts worker processes against a fresh PostgreSQL database and the scripted
LLM server (``EchoExtractor``: one memory per chat, and a count of concurrent calls per
pair), then checks the database: every chat processed once, one memory per chat, one
``create`` audit entry per memory, no job left behind.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from croniter import croniter
from procrastinate import App
from procrastinate.exceptions import AlreadyEnqueued
from sqlalchemy import text

from memoryd import Memoryd
from memoryd.extraction.english_form import memory_form
from memoryd.scale.tasks import (
    EXTRACT_TASK,
    PRUNE_TASK,
    QUEUE,
    TAG_TASK,
    make_app,
    pair_lock,
    sweep_now,
)
from memoryd.scale.worker import install_schema
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.echo_extraction import EchoExtractor
from support.extraction import run_ids, stored_run
from support.questions import give_questions, store_questions
from support.scale import (
    WorkerProcess,
    Workers,
    seed_pairs,
    stated_facts,
    through,
    wait_for,
)
from support.tcp_proxy import TcpProxy

pytestmark = pytest.mark.postgres


@pytest.fixture
def queue(pg_md: Memoryd) -> Iterator[App]:
    """The procrastinate app over the test database, schema installed, open for defers."""
    app = make_app(pg_md.url, interval=timedelta(hours=1))
    install_schema(pg_md, app)
    app.open()
    try:
        yield app
    finally:
        app.close()


def scalar(md: Memoryd, sql: str) -> int:
    with md.db.read() as repo:
        return int(repo.conn.execute(text(sql)).scalar_one())


def unprocessed(md: Memoryd, pairs: list[tuple[int, str]]) -> int:
    return sum(len(md.list_chats(uid, slug, processed=False)) for uid, slug in pairs)


def live_workers(md: Memoryd) -> int:
    return scalar(md, "SELECT count(*) FROM procrastinate_workers")


def jobs(md: Memoryd, *statuses: str) -> int:
    wanted = ", ".join(f"'{s}'" for s in statuses)
    return scalar(md, f"SELECT count(*) FROM procrastinate_jobs WHERE status IN ({wanted})")


def jobs_of(md: Memoryd, task: str) -> int:
    """Jobs of a task in the queue, in any state (succeeded jobs are deleted)."""
    return scalar(md, f"SELECT count(*) FROM procrastinate_jobs WHERE task_name = '{task}'")


def skipped_sweeps(worker: WorkerProcess) -> int:
    """Sweeps the worker ran and skipped because extraction was switched off (its log)."""
    return worker.log().count("sweep skipped: memory_enabled or memory_auto_extraction is off")


def defer(
    app: App, pairs: list[tuple[int, str]], *, copies: int = 1, queueing: bool = True
) -> None:
    """Queue extraction jobs by hand. A worker starting shortly after a tick of the sweep's
    cron line runs that sweep at once, which may have queued a pair already: fine."""
    for uid, slug in pairs:
        lock = pair_lock(uid, slug)
        for _ in range(copies):
            with contextlib.suppress(AlreadyEnqueued):
                app.configure_task(
                    EXTRACT_TASK, queue=QUEUE, lock=lock, queueing_lock=lock if queueing else None
                ).defer(user_id=uid, workspace=slug)


def assert_one_memory_per_chat(md: Memoryd, pairs: list[tuple[int, str]], chats: int) -> None:
    for n, (uid, slug) in enumerate(pairs):
        stored = md.list_memories(uid, "workspace", slug)
        expected = [memory_form(f) for f in stated_facts(n)[:chats]]
        assert sorted(m.content for m in stored) == sorted(expected)
        creates = [e for e in md.audit_log(uid) if e.action.value == "create"]
        assert len(creates) == chats
        assert {e.memory_id for e in creates} == {m.id for m in stored}
        assert all(e.actor.startswith("extraction") for e in creates)


def test_two_workers_never_run_one_pair_at_once(
    pg_md: Memoryd, queue: App, workers: Workers
) -> None:
    pairs = seed_pairs(pg_md, pairs=6, chats=6)
    with FakeOpenAIServer() as llm:
        echo = EchoExtractor(hold_seconds=0.3)
        llm.responder = echo
        for name in ("a", "b"):
            workers.start(pg_md.url, llm.base_url, name=name)
        wait_for(lambda: live_workers(pg_md) == 2, 60, "both workers to start")
        # three jobs per pair and no queueing lock: only the pair lock keeps two workers
        # from extracting one pair at the same time
        defer(queue, pairs, copies=3, queueing=False)
        wait_for(lambda: jobs(pg_md, "todo", "doing") == 0, 120, "the queue to drain")
    assert unprocessed(pg_md, pairs) == 0
    assert jobs(pg_md, "failed") == 0
    assert max(echo.max_in_flight_per_workspace.values()) == 1
    assert echo.max_in_flight >= 2, "the two workers never worked at the same time"
    assert_one_memory_per_chat(pg_md, pairs, chats=6)


def test_worker_killed_mid_batch_is_finished_by_another(
    pg_md: Memoryd, queue: App, workers: Workers
) -> None:
    pairs = seed_pairs(pg_md, pairs=1, chats=16)  # two batches of 8
    with FakeOpenAIServer() as llm:
        llm.responder = EchoExtractor(hold_seconds=0.6)
        doomed = workers.start(pg_md.url, llm.base_url, name="doomed")
        wait_for(lambda: live_workers(pg_md) == 1, 60, "the worker to start")
        defer(queue, pairs)
        # request 1 is batch 1's Observer (nothing stored yet to ask the Reflector about;
        # applied right after); request 2 is batch 2's Observer
        wait_for(lambda: len(llm.requests) >= 2, 60, "the second batch to start")
        doomed.kill()
        assert unprocessed(pg_md, pairs) == 8  # batch 1 committed, batch 2 not
        assert len(pg_md.list_memories(pairs[0][0])) == 8
        rescuer = workers.start(pg_md.url, llm.base_url, name="rescuer")
        wait_for(lambda: unprocessed(pg_md, pairs) == 0, 120, "the rescuer to finish")
        wait_for(lambda: jobs(pg_md, "todo", "doing") == 0, 30, "the queue to drain")
    # the dead worker's job was put back, or dropped for an equal one already queued
    recovered = (
        r"(requeued|dropped) memoryd\.extract_pair\[\d+\]\(user_id=\d+, workspace='ws0'\) of a dead"
    )
    assert re.search(recovered, rescuer.log())
    # recover ran every heartbeat; procrastinate's three lines per run are not logged
    assert "memoryd.recover[" not in rescuer.log()
    assert_one_memory_per_chat(pg_md, pairs, chats=16)


def test_database_cut_during_extraction(
    pg_md: Memoryd, queue: App, proxy: TcpProxy, workers: Workers
) -> None:
    pairs = seed_pairs(pg_md, pairs=3, chats=12)  # batches of 8 and 4
    with FakeOpenAIServer() as llm:
        llm.responder = EchoExtractor(hold_seconds=0.4)
        started = [
            workers.start(through(proxy, pg_md.url), llm.base_url, name=name) for name in ("a", "b")
        ]
        wait_for(lambda: live_workers(pg_md) == 2, 60, "both workers to start")
        defer(queue, pairs)
        wait_for(lambda: len(llm.requests) >= 3, 60, "extraction to be under way")
        with proxy.outage():
            time.sleep(4)
        wait_for(lambda: unprocessed(pg_md, pairs) == 0, 180, "extraction to finish")
        wait_for(lambda: jobs(pg_md, "todo", "doing") == 0, 60, "the queue to drain")
    assert all(w.alive() for w in started), "a worker died with the database connection"
    assert_one_memory_per_chat(pg_md, pairs, chats=12)


def test_periodic_sweep_queues_due_pairs_and_obeys_the_switch(
    pg_md: Memoryd, queue: App, workers: Workers
) -> None:
    pg_md.set_setting("memory_auto_extraction", False)
    pairs = seed_pairs(pg_md, pairs=3, chats=4)
    with FakeOpenAIServer() as llm:
        llm.responder = EchoExtractor()
        sweeper = workers.start(pg_md.url, llm.base_url, name="sweeper", interval="1s")
        # several sweeps while background extraction is switched off: none queued a job
        wait_for(lambda: skipped_sweeps(sweeper) >= 3, 60, "three sweeps")
        assert jobs_of(pg_md, EXTRACT_TASK) == 0
        assert unprocessed(pg_md, pairs) == 12
        assert llm.requests == []
        pg_md.set_setting("memory_auto_extraction", True)
        wait_for(lambda: unprocessed(pg_md, pairs) == 0, 90, "the sweep to queue the pairs")
    assert_one_memory_per_chat(pg_md, pairs, chats=4)


def test_the_sweep_queues_the_job_for_memories_waiting_only_for_their_questions(
    pg_md: Memoryd, queue: App, workers: Workers
) -> None:
    """Memories not asked for their questions yet are enough for
    the sweep to queue the fleet-wide job, which asks them (one LLM call per prompt)."""
    ana = pg_md.create_user("ana")
    texts = ["I play chess.", "I drink green tea."]
    for fact in texts:
        pg_md.add_memory(ana.id, fact)
    asked = ["What do you do for fun?", "What do you drink?", "Any hobbies?"]
    with FakeOpenAIServer() as llm:
        llm.default = Reply.json({"questions": asked})
        workers.start(pg_md.url, llm.base_url, name="asker", interval="1s", ask_questions=50)
        wait_for(
            lambda: all(m.questions is not None for m in pg_md.list_memories(ana.id)),
            90,
            "the questions job",
        )
        assert len(llm.requests) == 4
    assert {m.questions for m in pg_md.list_memories(ana.id)} == {tuple(asked)}
    [run] = [r for r in pg_md.extraction_runs(50) if r.memories_questioned]
    assert (run.memories_questioned, run.llm_calls) == (2, 4)


def test_the_sweep_queues_the_job_for_questions_another_embedder_embedded(
    pg_md: Memoryd, queue: App
) -> None:
    """After an embedder change, memories whose questions only wait to be embedded again
    (no LLM call: the questions pass does it first) are work for the fleet-wide job too;
    else nothing embeds them until some other memory needs asking."""
    ana = pg_md.create_user("ana")
    memory = pg_md.add_memory(ana.id, "I play chess.")
    asked = ["What do you do for fun?", "Do you play games?", "Any hobbies?"]
    give_questions(pg_md, memory.id, asked)  # by the service's embedder: nothing waits
    assert not sweep_now(pg_md, queue).questions_deferred
    assert jobs_of(pg_md, TAG_TASK) == 0

    vectors = pg_md.embedder.embed(asked)
    store_questions(pg_md, memory.id, asked, vectors, "an-older-embedder")
    assert sweep_now(pg_md, queue).questions_deferred
    assert jobs_of(pg_md, TAG_TASK) == 1
    assert not sweep_now(pg_md, queue).questions_deferred  # one waits already


def test_the_sweep_queues_the_job_for_memories_an_older_prompt_asked(
    pg_md: Memoryd, queue: App
) -> None:
    """Memories whose questions an older prompt wrote (before 0018) are work for the
    fleet-wide job too, though none waits to be asked or embedded again: else
    they would keep their old questions until some other memory needs the job."""
    ana = pg_md.create_user("ana")
    memory = pg_md.add_memory(ana.id, "I play chess.")
    asked = ["What do you do for fun?", "Do you play games?", "Any hobbies?"]
    give_questions(pg_md, memory.id, asked)  # by the current prompts: nothing waits
    assert not sweep_now(pg_md, queue).questions_deferred

    give_questions(pg_md, memory.id, asked, prompt=1)
    assert sweep_now(pg_md, queue).questions_deferred
    assert jobs_of(pg_md, TAG_TASK) == 1


def test_an_hourly_job_prunes_old_run_history(pg_md: Memoryd, queue: App, workers: Workers) -> None:
    [prune] = [
        p for p in queue.periodic_registry.periodic_tasks.values() if p.task.name == PRUNE_TASK
    ]
    ticks = croniter(prune.cron)
    assert ticks.get_next(float) + 3600 == ticks.get_next(float)  # one job an hour, fleet-wide
    ana = pg_md.create_user("ana")
    pg_md.create_workspace("lab")
    old = stored_run(pg_md, pg_md.clock() - timedelta(days=200))
    newest = stored_run(pg_md, pg_md.clock() - timedelta(days=150), [(ana.id, "lab")])
    running = stored_run(pg_md, pg_md.clock() - timedelta(days=150), finished=False)
    with FakeOpenAIServer() as llm:
        workers.start(pg_md.url, llm.base_url, name="pruner")
        wait_for(lambda: live_workers(pg_md) == 1, 60, "the worker to start")
        # what procrastinate's periodic deferrer does at the hour's tick; a worker started
        # within minutes after a tick may have queued that tick's job itself (the same
        # queueing lock): then that job does the pruning
        with contextlib.suppress(AlreadyEnqueued):
            queue.configure_task(PRUNE_TASK, queue=QUEUE).defer(timestamp=0)
        wait_for(lambda: old not in run_ids(pg_md), 60, "the prune job")
        wait_for(lambda: jobs(pg_md, "todo", "doing") == 0, 60, "the queue to drain")
    assert {newest, running} <= run_ids(pg_md)
    assert jobs(pg_md, "failed") == 0
