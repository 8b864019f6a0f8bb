"""The background writer: queued chats and ``last_used_at`` marks reach the database, in
order, checked up front, and none is lost when the Memoryd closes."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from memoryd import Memoryd
from memoryd.app import writeback
from memoryd.domain.errors import InvalidInput
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.rerank import HybridReranker, RecencyReranker


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


class CountingEmbedder:
    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.dimensions = inner, inner.name, inner.dimensions
        self.texts: list[str] = []
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts.extend(texts)
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def test_a_stored_exchange_is_pre_embedded_at_a_lower_priority(
    database_url: str, embedder: MiniLMEmbedder
) -> None:
    counting = CountingEmbedder(embedder)
    with Memoryd(database_url, embedder=counting) as md:
        uid = _alice(md)
        for i in range(6):  # more than 5, so the turn reranks
            md.add_memory(uid, f"Workspace fact {i}", workspace="alpha")
        prompt, answer = "What is the Phoenix budget?", "It is 120k EUR, signed off in May."
        md.record_chat_later(uid, "alpha", prompt, answer)
        assert md.writer.flush()
        assert isinstance(md.reranker, HybridReranker)
        encoder = md.reranker.dense.encoder
        deadline = time.monotonic() + 30
        while not (prompt in encoder and answer in encoder) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert prompt in encoder and answer in encoder
        warm = next(t for t in threading.enumerate() if t.name == "memoryd-warm")
        assert warm.native_id is not None
        if os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19:
            mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            assert os.getpriority(os.PRIO_PROCESS, warm.native_id) > mine
        before = len(counting.texts)
        history = [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]
        md.context(uid, "alpha", "And who signed it off?", history)
        assert counting.texts[before:] == ["And who signed it off?"]  # history came warm


def test_queued_chats_are_written_without_a_flush(md: Memoryd) -> None:
    uid = _alice(md)
    for i in range(3):  # one burst: gathered into one transaction
        md.record_chat_later(uid, "alpha", f"burst {i}", "ok")
    deadline = time.monotonic() + 10
    # the writer may still be busy after its commit (it pre-embeds what it wrote)
    while (len(md.list_chats(uid)) < 3 or md.writer.pending()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [c.prompt for c in md.list_chats(uid)] == ["burst 0", "burst 1", "burst 2"]
    assert md.writer.pending() == 0


def test_threads_that_ask_for_the_reranker_at_once_share_one(
    database_url: str, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's pre-embedding thread and a turn may ask first at the same moment; two
    rerankers would split the query cache, so the turn would find its history cold."""
    import memoryd.plugins

    made: list[RecencyReranker] = []

    def slow_factory(emb: Any) -> RecencyReranker:
        time.sleep(0.2)  # long enough for the other thread to arrive
        made.append(RecencyReranker())
        return made[-1]

    monkeypatch.setattr(memoryd.plugins, "reranker_factories", lambda: {"slow": slow_factory})
    with Memoryd(database_url, embedder=embedder, reranker="slow") as md:
        seen: list[object] = []
        threads = [threading.Thread(target=lambda: seen.append(md.reranker)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(made) == 1 and seen == [made[0], made[0]]


def _wait_until(condition: Any, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(condition())


def test_pre_embedding_waits_for_the_turns_in_progress_and_embeds_one_text_a_call(
    database_url: str, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writeback, "WARM_MAX_DEFER_S", 60.0)
    counting = CountingEmbedder(embedder)
    with Memoryd(database_url, embedder=counting) as md:
        uid = _alice(md)
        encoder = md.reranker.dense.encoder  # type: ignore[attr-defined]
        prompt, answer = "Where is the Phoenix kickoff?", "In Lyon, on the 3rd of March."
        md.quiet.enter()  # a turn is in progress
        try:
            md.record_chat_later(uid, "alpha", prompt, answer)
            assert md.writer.flush()  # stored: pre-embedding may start now
            time.sleep(0.3)
            assert prompt not in encoder and answer not in encoder
        finally:
            md.quiet.leave()
        assert _wait_until(lambda: prompt in encoder and answer in encoder)
        assert [prompt] in counting.calls and [answer] in counting.calls  # not one batch
