"""The schedule (R6, R7): interval parsing, idle threshold, the message minimum, the
run-time switches, backoff and parking, and the in-process loop -- on a controllable clock.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from sqlalchemy import select, update

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.interval import parse_interval
from memoryd.extraction.pipeline import ExtractionConfig
from memoryd.extraction.scheduler import ExtractionScheduler, due_pairs, run_extraction
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.tables import memories
from memoryd.storage.vectors import old_vector_memories
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30min", 1800), ("1hr", 3600), ("6hr", 21600), ("90s", 90), ("1d", 86400),
     ("3hr", 10800), ("2 hours", 7200), ("1.5h", 5400), ("45m", 2700)],
)  # fmt: skip
def test_interval_forms(text: str, seconds: int) -> None:
    assert parse_interval(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "3", "hr", "3 fortnights", "-1hr", "0s", "0.5s", "1 h r"])
def test_invalid_interval_names_the_variable(text: str) -> None:
    with pytest.raises(ValueError, match="MEMORY_EXTRACTION_INTERVAL"):
        parse_interval(text)


def test_invalid_interval_in_the_environment_stops_start_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_EXTRACTION_INTERVAL", "every tuesday")
    with pytest.raises(ValidationError, match="MEMORY_EXTRACTION_INTERVAL='every tuesday'"):
        MemorydSettings()
    monkeypatch.setenv("MEMORY_EXTRACTION_INTERVAL", "45min")
    monkeypatch.setenv("MEMORY_IDLE_THRESHOLD_MS", "0")
    settings = MemorydSettings()
    assert (settings.extraction_interval, settings.idle_threshold_ms) == ("45min", 0)


def test_five_messages_means_three_chats() -> None:
    assert ExtractionConfig(min_messages=5).min_chats == 3
    assert ExtractionConfig(min_messages=6).min_chats == 3
    assert ExtractionConfig(min_messages=1).min_chats == 1


def due(md: Memoryd, clock: Clock, idle_ms: int = 1_200_000, minimum: int = 3) -> list[str]:
    with md.db.read() as repo:
        pairs = due_pairs(
            repo.conn,
            now=clock(),
            idle_threshold=timedelta(milliseconds=idle_ms),
            min_chats=minimum,
        )
    return [f"{md.get_user(p.user_id).name}/{p.workspace}" for p in pairs]


@pytest.fixture
def smd(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> Memoryd:
    return make_md(
        database_url, fake_llm, tmp_path, embedder, clock, idle_threshold_ms=1_200_000,
        extraction_backoff_seconds=600, extraction_max_attempts=2,
    )  # fmt: skip


def test_idle_threshold(smd: Memoryd, clock: Clock) -> None:
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    clock.advance(minutes=19)
    assert due(smd, clock) == []
    assert due(smd, clock, idle_ms=0) == ["ana/lab"]  # 0 disables the threshold
    clock.advance(minutes=2)
    assert due(smd, clock) == ["ana/lab"]
    chat(smd, ana.id, "lab", 1)  # a new chat restarts the wait
    assert due(smd, clock) == []


def test_minimum_of_five_messages(smd: Memoryd, clock: Clock) -> None:
    ana = smd.create_user("ana")
    bob = smd.create_user("bob")
    smd.create_workspace("lab")
    smd.create_workspace("ops")
    chat(smd, ana.id, "lab", 2)  # 4 messages
    chat(smd, bob.id, "lab", 3)  # 6 messages
    chat(smd, ana.id, "ops", 3)
    clock.advance(hours=1)
    assert sorted(due(smd, clock)) == ["ana/ops", "bob/lab"]


def test_run_records_pairs_seen_processed_and_skipped_with_reasons(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    ana = smd.create_user("ana")
    bob = smd.create_user("bob")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3, "I use R for statistics.")
    chat(smd, bob.id, "lab", 1)
    clock.advance(hours=1)
    carol = smd.create_user("carol")
    chat(smd, carol.id, "lab", 5)  # too recent
    fake_llm.script(observe(person=[1]))

    run = smd.extract()

    assert (run.pairs_seen, run.pairs_processed, run.pairs_skipped) == (3, 1, 2)
    assert run.skipped_reasons == {"below minimum": 1, "idle threshold": 1}
    assert run.memories_created == 1 and run.trigger == "manual"
    assert smd.extraction_runs()[0].id == run.id
    # --force ignores idle threshold and minimum
    fake_llm.responder = lambda body: observe()
    forced = smd.extract(force=True)
    assert forced.pairs_processed == 2 and forced.chats_processed == 6


def test_named_pair_respects_idle_and_minimum_unless_forced(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 2)
    assert smd.extract(ana.id, "lab").reason == "below minimum"
    chat(smd, ana.id, "lab", 1)
    assert smd.extract(ana.id, "lab").reason == "idle threshold"
    clock.advance(minutes=21)
    fake_llm.script(observe())
    assert smd.extract(ana.id, "lab").status == "processed"
    assert fake_llm.requests and len(fake_llm.requests) == 1


def test_switches_are_obeyed_at_run_time(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    clock.advance(hours=1)
    scheduler = ExtractionScheduler(smd)
    fake_llm.responder = lambda body: observe()

    smd.set_setting("memory_auto_extraction", False)
    assert scheduler.tick() is None
    smd.set_setting("memory_auto_extraction", True)
    smd.set_setting("memory_enabled", False)
    assert scheduler.tick() is None
    assert fake_llm.requests == [] and smd.extraction_runs() == []
    # a manual run still works with auto extraction off, but not with memory off
    assert smd.extract(ana.id, "lab", force=True).reason == "memory disabled"
    smd.set_setting("memory_enabled", True)
    smd.set_setting("memory_auto_extraction", False)
    assert smd.extract(ana.id, "lab", force=True).status == "processed"

    chat(smd, ana.id, "lab", 3)
    clock.advance(hours=1)
    smd.set_setting("memory_auto_extraction", True)
    run = scheduler.tick()
    assert run is not None and run.trigger == "scheduler" and run.chats_processed == 3


def test_backoff_then_parking_then_retry_by_hand(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    clock.advance(hours=1)
    scheduler = ExtractionScheduler(smd)
    fake_llm.default = Reply.error(500, "model crashed")

    first = scheduler.tick()
    assert first is not None and first.errors[0]["error"].endswith("model crashed")
    assert due(smd, clock) == []  # backing off for 600 s
    second = scheduler.tick()
    assert second is not None and second.skipped_reasons == {"backoff": 1}
    clock.advance(seconds=601)
    assert due(smd, clock) == ["ana/lab"]
    third = scheduler.tick()  # second failure: parked (max attempts 2)
    assert third is not None and third.errors[0]["parked"] is True
    clock.advance(days=30)
    assert due(smd, clock) == []
    fourth = scheduler.tick()
    assert fourth is not None and fourth.skipped_reasons == {"parked": 1}
    assert not any(c.memory_processed for c in smd.list_chats(ana.id, "lab"))

    fake_llm.default = observe()
    retried = smd.extract(ana.id, "lab")  # naming the pair retries it by hand
    assert retried.status == "processed"
    assert smd.extraction_failures() == []
    assert all(c.memory_processed for c in smd.list_chats(ana.id, "lab"))


def test_scheduler_thread_runs_every_interval_and_stops(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    clock.advance(hours=1)
    fake_llm.responder = lambda body: observe()
    scheduler = ExtractionScheduler(smd, interval=timedelta(seconds=0.2)).start()
    try:
        assert scheduler.wait_for_ticks(2, timeout=10)
    finally:
        scheduler.stop()
    assert not scheduler.running  # the thread has ended: no tick can follow
    runs = smd.extraction_runs()
    # one stored run per tick, the last one finished before stop() returned
    assert len(runs) == scheduler.ticks >= 2
    assert all(r.finished_at is not None for r in runs)
    assert sum(r.chats_processed for r in runs) == 3


def test_stop_does_not_wait_out_the_interval(smd: Memoryd) -> None:
    scheduler = ExtractionScheduler(smd, interval=timedelta(hours=1)).start()
    assert scheduler.running
    scheduler.stop(timeout=30)
    assert not scheduler.running and scheduler.ticks == 0
    assert smd.extraction_runs() == []


def test_ticks_count_skipped_and_failed_ticks_too(
    smd: Memoryd, clock: Clock, fake_llm: FakeOpenAIServer
) -> None:
    scheduler = ExtractionScheduler(smd)
    smd.set_setting("memory_auto_extraction", False)
    assert scheduler.tick() is None
    smd.set_setting("memory_auto_extraction", True)
    fake_llm.default = Reply.error(500, "model crashed")
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    clock.advance(hours=1)
    failed = scheduler.tick()
    assert failed is not None and failed.pairs_failed == 1
    assert scheduler.ticks == 2 and scheduler.wait_for_ticks(2, timeout=0)
    assert not scheduler.wait_for_ticks(3, timeout=0)


def test_scheduler_uses_the_configured_interval(smd: Memoryd) -> None:
    assert ExtractionScheduler(smd).interval == timedelta(hours=3)
    assert ExtractionScheduler(smd, interval="90s").interval == timedelta(seconds=90)
    with pytest.raises(ValueError, match="MEMORY_EXTRACTION_INTERVAL"):
        ExtractionScheduler(smd, interval="soon")


def test_run_extraction_uses_the_admin_choice_of_provider(
    smd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    smd.set_setting("extraction_model", "other-model")
    ana = smd.create_user("ana")
    smd.create_workspace("lab")
    chat(smd, ana.id, "lab", 3)
    fake_llm.script(observe())
    run = run_extraction(smd, force=True)
    assert (run.provider, run.model) == ("openai", "other-model")
    assert fake_llm.requests[0]["model"] == "other-model"


def test_each_tick_makes_a_batch_of_old_vectors_again(smd: Memoryd) -> None:
    """Vectors stored before migration 0019 (of "The user ..." as written) are made again
    by the scheduler's ticks, whether or not extraction runs."""
    ana = smd.create_user("ana")
    memory = smd.add_memory(ana.id, "The user has two cats.")
    with smd.db.write() as repo:
        repo.conn.execute(
            update(memories)
            .where(memories.c.id == memory.id)
            .values(embedding=smd.embedder.embed([memory.content])[0].tobytes(), vector_form=None)
        )
    smd.set_setting("memory_auto_extraction", False)
    assert ExtractionScheduler(smd).tick() is None
    with smd.db.read() as repo:
        assert old_vector_memories(repo.conn, 10) == []
        blob = repo.conn.execute(
            select(memories.c.embedding).where(memories.c.id == memory.id)
        ).scalar_one()
    said = smd.embedder.embed(["I have two cats."])[0]
    assert float(np.frombuffer(blob, np.float32) @ said) > 0.9999
