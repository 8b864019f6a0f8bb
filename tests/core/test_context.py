"""The chat turn: which memories are injected and how (R3, R4, R7)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest
from sqlalchemy import update

from memoryd import SECTION_HEADING, Memory, Memoryd, Query
from memoryd.domain.injection import build_query
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.tables import memories

PHOENIX = [
    "The Phoenix launch date is September 30",
    "Sarah Chen is the legal contact for Phoenix",
    "Phoenix uses PostgreSQL 16 in production",
    "The Phoenix budget is 120k EUR",
    "Daily standup is at 9:30 CET",
    "The design review happens every second Thursday",
    "Marco owns the mobile app",
    "Staging deploys need approval from Priya",
    "Customer feedback lives in the #phoenix-voice channel",
    "The office cat is called Biscuit",
]


class ExplodingReranker:
    name = "exploding"

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        raise RuntimeError("model file vanished")


def _user_with(md: Memoryd, contents: list[str], globals_: int = 0) -> int:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    for i in range(globals_):
        md.add_memory(uid, f"global fact {i}")
    for text in contents:
        md.add_memory(uid, text, workspace="phoenix")
    return uid


def test_query_is_message_plus_last_three_messages() -> None:
    history = [{"role": "user", "content": f"m{i}"} for i in range(6)]
    history.append({"role": "tool", "content": None})  # type: ignore[dict-item]
    query = build_query("  now?  ", history)
    assert query.message == "now?"
    assert query.history == ("m3", "m4", "m5")
    assert query.parts == ("now?", "m5", "m4", "m3")


def test_top_five_relevant_workspace_memories_after_all_globals(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX, globals_=5)
    turn = md.context(uid, "phoenix", "Who should I ask about the contract terms and legal review?")
    assert len(turn.global_memories) == 5 and len(turn.workspace_memories) == 5
    assert [m.content for m in turn.memories[:5]] == [f"global fact {i}" for i in range(5)]
    assert (
        turn.workspace_memories[0].memory.content == "Sarah Chen is the legal contact for Phoenix"
    )
    scores = [s.score for s in turn.workspace_memories]
    assert all(s is not None for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    lines = turn.section.split("\n")
    assert lines[0] == SECTION_HEADING and len(lines) == 11
    assert all(line.startswith("- ") for line in lines[1:])


def test_history_steers_the_choice(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX)
    history = [
        {"role": "user", "content": "How much money do we have for Phoenix?"},
        {"role": "assistant", "content": "Let me check the budget numbers."},
    ]
    turn = md.context(uid, "phoenix", "and can we afford two more contractors?", history)
    assert "The Phoenix budget is 120k EUR" in [m.content for m in turn.memories[:2]]


def test_five_or_fewer_workspace_memories_are_all_injected_without_ranking(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX[:5])
    turn = md.context(uid, "phoenix", "anything")
    assert sorted(m.content for m in turn.memories) == sorted(PHOENIX[:5])
    assert turn.reranker is None


def test_reranker_failure_falls_back_to_five_newest(
    md: Memoryd, embedder: MiniLMEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    uid = _user_with(md, PHOENIX)
    with Memoryd(md.url, embedder=embedder, reranker=ExplodingReranker()) as failing:
        with caplog.at_level(logging.WARNING, logger="memoryd"):
            turn = failing.context(uid, "phoenix", "Who is the legal contact?")
        assert [m.content for m in turn.memories] == PHOENIX[:-6:-1]
        assert turn.fallback_reason == "RuntimeError: model file vanished"
        assert "reranker exploding failed" in caplog.text


def test_memory_disabled_injects_nothing_but_keeps_memories(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX, globals_=2)
    md.set_setting("memory_enabled", "off")
    turn = md.context(uid, "phoenix", "Who is the legal contact?")
    assert turn.enabled is False and turn.memories == []
    assert turn.system_prompt("Base prompt.") == "Base prompt."
    assert len(md.list_memories(uid)) == 12
    md.set_setting("memory_enabled", True)
    assert len(md.context(uid, "phoenix", "legal?").memories) == 7


def test_injected_memories_are_marked_used(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX, globals_=1)
    turn = md.context(uid, "phoenix", "budget?")
    used = {m.id for m in turn.memories}
    assert md.writer.flush()  # marks are written in the background, off the turn's path
    after = {m.id: m.last_used_at for m in md.list_memories(uid)}
    assert all(after[i] is not None for i in used)
    assert all(after[i] is None for i in after if i not in used)


def test_no_workspace_gets_globals_only(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX, globals_=2)
    turn = md.context(uid, None, "hello")
    assert [m.content for m in turn.memories] == ["global fact 0", "global fact 1"]


def test_no_memories_leaves_prompt_unchanged(md: Memoryd) -> None:
    uid = md.create_user("new").id
    turn = md.context(uid, None, "hello")
    assert turn.section == "" and turn.system_prompt("Base.") == "Base."


def test_stale_vectors_from_another_embedder_are_recomputed(md: Memoryd) -> None:
    uid = _user_with(md, PHOENIX)
    with md.db.write() as repo:
        repo.conn.execute(update(memories).values(embedder="old-model", embedding=b"\x00"))
    turn = md.context(uid, "phoenix", "Who is the legal contact for contracts?")
    assert turn.fallback_reason is None
    assert (
        turn.workspace_memories[0].memory.content == "Sarah Chen is the legal contact for Phoenix"
    )


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> object:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_recorded_exchanges_are_embedded_before_the_turns_that_quote_them(
    md: Memoryd, embedder: MiniLMEmbedder
) -> None:
    uid = _user_with(md, PHOENIX)
    counting = CountingEmbedder(embedder)
    with Memoryd(md.url, embedder=counting) as chat:  # type: ignore[arg-type]
        chat.context(uid, "phoenix", "What is our budget?")
        reply = "The budget is 120k EUR. " + "Long explanation. " * 100
        chat.record_chat(uid, "phoenix", "What is our budget?", reply)
        counting.texts.clear()
        history = [
            {"role": "user", "content": "What is our budget?"},
            {"role": "assistant", "content": reply},
        ]
        turn = chat.context(uid, "phoenix", "Can we hire two contractors?", history)
        assert counting.texts == ["Can we hire two contractors?"]
        assert "The Phoenix budget is 120k EUR" in [m.content for m in turn.memories]


def test_last_used_is_kept_to_the_minute(md: Memoryd, embedder: MiniLMEmbedder) -> None:
    from datetime import UTC, datetime, timedelta

    uid = _user_with(md, PHOENIX[:2])
    now = [datetime(2026, 1, 1, 12, 0, tzinfo=UTC)]
    with Memoryd(md.url, embedder=embedder, clock=lambda: now[0]) as timed:
        first = timed.context(uid, "phoenix", "hi").memories[0].id

        def last_used() -> datetime | None:
            assert timed.writer.flush()
            return timed.get_memory(uid, first).last_used_at

        assert last_used() == now[0]
        now[0] += timedelta(seconds=30)
        timed.context(uid, "phoenix", "hi")
        assert last_used() == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        now[0] += timedelta(seconds=31)
        timed.context(uid, "phoenix", "hi")
        assert last_used() == now[0]
