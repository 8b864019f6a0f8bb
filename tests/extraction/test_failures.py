"""Nothing is lost (R9): every way the LLM can fail leaves memories and chats untouched.

After a failure the pair's chats are still unprocessed, no memory changed, the failure is
in the run history, and the pair waits out a backoff before it is tried again.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.extraction.pipeline import GONE
from memoryd.extraction.runs import get_pair_state
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe, reflect

OBSERVED = observe(project=[1])

FAILURES = {
    "http-500": ([Reply.error(500, "upstream exploded")], "HTTP 500"),
    "http-429": ([Reply.error(429, "slow down", retry_after=1)], "HTTP 429"),
    "timeout": ([Reply.delay(3, OBSERVED)], "timed out"),
    "invalid-json": ([Reply.text("{'person': nope"), Reply.text("still {not json")], "unusable"),
    "wrong-shape": ([Reply.json({"person": "none"}), Reply.json({"items": []})], "unusable"),
    "cut-off": ([Reply.text('{"person": [1, ', finish_reason="length")] * 2, "not closed"),
    "reflector-500": ([OBSERVED, Reply.error(503, "overloaded")], "HTTP 503"),
    "reflector-invalid": ([OBSERVED, Reply.text("no"), Reply.text("no")], "unusable"),
    "reflector-wrong-shape": ([OBSERVED, *[Reply.json({"verdicts": "same"})] * 2], "unusable"),
}
# LLM calls each case makes, and how many of them get no answer: a call that failed is
# counted (a run whose calls all failed never reads "0 LLM calls", like one that needed
# none); an answer that was not usable JSON is an answered call.
CALLS = {
    "http-500": (1, 1),
    "http-429": (1, 1),
    "timeout": (1, 1),
    "invalid-json": (2, 0),
    "wrong-shape": (2, 0),
    "cut-off": (2, 0),
    "reflector-500": (2, 1),
    "reflector-invalid": (3, 0),
    "reflector-wrong-shape": (3, 0),
}


def seed(md: Memoryd) -> tuple[int, str]:
    ana = md.create_user("ana")
    md.create_workspace("lab")
    md.add_memory(ana.id, "The lab uses Slurm 22.", None, "lab")
    chat(md, ana.id, "lab", 3, "The lab now uses Slurm 23.")
    return ana.id, md.list_memories(ana.id)[0].id


def snapshot(md: Memoryd, user_id: int) -> list[tuple[str, str, str]]:
    return [(m.id, m.content, m.updated_at.isoformat()) for m in md.list_memories(user_id)]


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failure_changes_nothing_and_keeps_chats_unprocessed(
    case: str, xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    replies, expected = FAILURES[case]
    user_id, _ = seed(xmd)
    before = snapshot(xmd, user_id)
    fake_llm.script(*replies)

    result = xmd.extract(user_id, "lab", force=True)

    assert result.status == "failed" and expected in (result.error or "")
    assert snapshot(xmd, user_id) == before
    assert not any(c.memory_processed for c in xmd.list_chats(user_id, "lab"))
    run = xmd.extraction_runs()[0]
    assert run.status == "errors" and run.chats_processed == 0
    assert (run.llm_calls, run.llm_calls_failed) == CALLS[case]
    assert (result.usage.calls, result.usage.failed) == CALLS[case]
    [outcome] = run.pairs
    assert (outcome["llm_calls"], outcome["llm_calls_failed"]) == CALLS[case]
    [error] = [e for e in run.errors if e["kind"] == "pair"]
    assert expected in error["error"] and error["parked"] is False
    with xmd.db.read() as repo:
        state = get_pair_state(repo.conn, user_id, repo.workspace_id("lab") or 0)
    assert state is not None and state.attempts == 1 and state.last_error == result.error
    assert state.failed_chat_ids == tuple(c.id for c in xmd.list_chats(user_id, "lab"))


def test_after_a_failure_the_next_try_succeeds_and_clears_the_state(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    user_id, memory_id = seed(xmd)
    fake_llm.script(Reply.error(500, "boom"))
    assert xmd.extract(user_id, "lab", force=True).status == "failed"
    fake_llm.script(OBSERVED, reflect("replaces"))

    result = xmd.extract(user_id, "lab", force=True)

    assert result.status == "processed"
    assert xmd.get_memory(user_id, memory_id).content == "The lab now uses Slurm 23."
    assert all(c.memory_processed for c in xmd.list_chats(user_id, "lab"))
    assert xmd.extraction_failures() == []


def test_chats_processed_elsewhere_meanwhile_drop_the_batch(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """Two workers on one pair: the second apply finds its chats taken and writes nothing."""
    user_id, _ = seed(xmd)

    def responder(body: dict[str, object]) -> Reply:
        if len(fake_llm.requests) == 1:
            return OBSERVED
        from sqlalchemy import update

        from memoryd.storage.tables import chats

        with xmd.db.write() as repo:  # another worker finished this batch first
            repo.conn.execute(update(chats).values(memory_processed=True))
        return reflect("separate")

    fake_llm.responder = responder
    result = xmd.extract(user_id, "lab", force=True)
    assert result.error is not None and "another worker" in result.error
    assert [m.content for m in xmd.list_memories(user_id)] == ["The lab uses Slurm 22."]


def test_apply_is_one_transaction_with_items_failing_alone(
    any_md: Memoryd, fake_llm: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """On SQLite and PostgreSQL: creates, an update and refused items in one apply."""
    md = make_md(any_md.url, fake_llm, tmp_path, embedder, Clock())
    ana = md.create_user("ana")
    md.create_workspace("lab")
    old = md.add_memory(ana.id, "The lab uses Slurm 22.", None, "lab")
    md.add_memory(ana.id, "The user works at the Porto lab.")
    said = (
        "I work at the Porto lab. The lab now uses Slurm 23. Experiments run on Fridays. "
        "Builds of the Atlas pipeline run nightly at 2:00."
    )
    chat(md, ana.id, "lab", 3, said)

    def responder(body: dict[str, object]) -> Reply:
        if len(fake_llm.requests) == 1:
            return observe(person=[1], project=[2, 3, 4])
        # while the Reflector thinks, Ana adds one of the facts herself
        md.add_memory(ana.id, "Builds of the Atlas pipeline run nightly at 2:00.", None, "lab")
        return reflect("replaces", {"pair": 5, "verdict": "replaces"})  # no pair 5

    fake_llm.responder = responder
    result = md.extract(ana.id, "lab", force=True)

    assert [m.content for m in result.created] == ["Experiments run on Fridays."]
    assert [m.id for m in result.updated] == [old.id]
    # sentence 1 is stored already (before the LLM: code); pair 5 does not exist
    # (the Reflector's answer); the build fact was added meanwhile (the core, inside the
    # transaction)
    assert len(result.rejected) == 3
    assert any("already says this" in r for r in result.rejected)
    assert any("no usable pair number" in r for r in result.rejected)
    assert any("already exists" in r for r in result.rejected)
    assert sorted(m.content for m in md.list_memories(ana.id)) == [
        "Builds of the Atlas pipeline run nightly at 2:00.",
        "Experiments run on Fridays.",
        "The lab now uses Slurm 23.",
        "The user works at the Porto lab.",
    ]
    assert all(c.memory_processed for c in md.list_chats(ana.id, "lab"))
    md.close()


def test_backoff_grows_and_the_pair_is_parked_after_max_attempts(
    database_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    clock = Clock()
    md = make_md(database_url, fake_llm, tmp_path, embedder, clock, extraction_max_attempts=3,
                 extraction_backoff_seconds=60)  # fmt: skip
    user_id, _ = seed(md)
    fake_llm.default = Reply.error(500, "down")
    waits = []
    for _ in range(3):
        result = md.extract(user_id, "lab", force=True)
        with md.db.read() as repo:
            state = get_pair_state(repo.conn, user_id, repo.workspace_id("lab") or 0)
        assert state is not None and state.next_attempt_at is not None
        waits.append(state.next_attempt_at - clock())
        clock.advance(hours=1)
    assert waits == [timedelta(seconds=60), timedelta(seconds=120), timedelta(seconds=240)]
    assert result.status == "parked"
    [parked] = md.extraction_failures(parked_only=True)
    assert (
        parked["user_name"] == "ana" and parked["attempts"] == 3 and "down" in parked["last_error"]
    )
    assert md.extraction_runs()[0].errors[0]["parked"] is True
    assert not any(c.memory_processed for c in md.list_chats(user_id, "lab"))
    md.close()


def test_a_pair_deleted_after_the_run_picked_it_is_skipped_and_the_run_goes_on(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """The run picks every due pair first; a user deleted before their turn is a skip,
    not the end of the run for everyone after them."""
    ana, _ = seed(xmd)
    bo = xmd.create_user("bo")
    chat(xmd, bo.id, "lab", 3, "The lab now uses Slurm 23.")
    fake_llm.script(OBSERVED, reflect("replaces"))
    order: list[int] = []

    def delete_the_other(user_id: int, workspace: str, index: int, total: int) -> None:
        order.append(user_id)
        if index == 1:
            xmd.delete_user(bo.id if user_id == ana else ana)

    run = xmd.extract(force=True, on_pair_start=delete_the_other)

    assert run.status == "ok" and len(order) == 2 and run.pairs_processed == 1
    assert run.skipped_reasons == {GONE: 1}
    assert all(c.memory_processed for c in xmd.list_chats(order[0], "lab"))


def test_a_user_deleted_during_their_batch_is_skipped_with_no_failure_recorded(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana, _ = seed(xmd)
    bo = xmd.create_user("bo")
    chat(xmd, bo.id, "lab", 3, "The lab now uses Slurm 23.")
    current: list[int] = []
    deleted: list[int] = []

    def responder(body: dict[str, object]) -> Reply:
        if not deleted:  # the first pair's user goes while its Observer call runs
            deleted.append(current[-1])
            xmd.delete_user(current[-1])
            return Reply.error(500, "the batch fails after its user went")
        return OBSERVED if len(fake_llm.requests) % 2 == 0 else reflect("separate")

    fake_llm.responder = responder
    run = xmd.extract(force=True, on_pair_start=lambda uid, *_: current.append(uid))

    assert run.status == "ok", run.errors
    assert run.skipped_reasons == {GONE: 1} and run.pairs_processed == 1
    assert not [e for e in run.errors if e["kind"] in ("pair", "interrupted")]
    assert xmd.extraction_failures() == []
    survivor = ana if deleted == [bo.id] else bo.id
    assert all(c.memory_processed for c in xmd.list_chats(survivor, "lab"))
