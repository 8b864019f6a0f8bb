"""The background writer: queued chats and ``last_used_at`` marks reach the database, in
order, checked up front, and none is lost when the Memoryd closes."""

from __future__ import annotations

import logging

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput
from memoryd.embedding.minilm import MiniLMEmbedder


def _alice(md: Memoryd) -> int:
    uid = md.create_user("alice").id
    md.create_workspace("alpha")
    md.create_workspace("beta")
    return uid


def test_queued_chats_are_stored_in_order(md: Memoryd) -> None:
    uid = _alice(md)
    for i in range(5):
        md.record_chat_later(uid, "alpha", f"question {i}", f"answer {i}")
    assert md.writer.flush()
    chats = md.list_chats(uid, "alpha")
    assert [(c.prompt, c.response) for c in chats] == [
        (f"question {i}", f"answer {i}") for i in range(5)
    ]
    assert all(not c.memory_processed for c in chats)


def test_bad_input_is_refused_before_it_is_queued(md: Memoryd) -> None:
    uid = _alice(md)
    with pytest.raises(InvalidInput, match="prompt is empty"):
        md.record_chat_later(uid, "alpha", "   ", "answer")
    with pytest.raises(InvalidInput, match="must be text"):
        md.record_chat_later(uid, "alpha", "question", None)  # type: ignore[arg-type]
    assert md.writer.pending() == 0


def test_a_chat_whose_workspace_went_away_is_dropped_not_the_others(
    md: Memoryd, caplog: pytest.LogCaptureFixture
) -> None:
    uid = _alice(md)
    md.record_chat_later(uid, "beta", "kept before", "a")
    md.record_chat_later(uid, "gone", "dropped", "b")
    md.record_chat_later(uid, "beta", "kept after", "c")
    with caplog.at_level(logging.WARNING, logger="memoryd"):
        assert md.writer.flush()
    assert [c.prompt for c in md.list_chats(uid)] == ["kept before", "kept after"]
    assert "dropping a queued chat" in caplog.text


def test_close_writes_what_is_still_queued(database_url: str, embedder: MiniLMEmbedder) -> None:
    first = Memoryd(database_url, embedder=embedder)
    uid = _alice(first)
    first.add_memory(uid, "Alice likes tea")
    first.context(uid, None, "drinks?")  # queues a last_used_at mark
    for i in range(20):
        first.record_chat_later(uid, "alpha", f"q{i}", f"a{i}")
    first.close()  # no flush before: close must write them
    with Memoryd(database_url, embedder=embedder) as second:
        assert len(second.list_chats(uid)) == 20
        assert second.list_memories(uid)[0].last_used_at is not None
