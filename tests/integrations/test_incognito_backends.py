"""Incognito and "which memories answered" through every backend an app can hold: the
HTTP client (``MemorydClient``) and the adapters with ``record=False``, over a real
memoryd server."""

from __future__ import annotations

import asyncio

import pytest

from memoryd.client import MemorydClient
from memoryd.domain.errors import InvalidInput
from memoryd.testing.live import LiveMemoryd


def test_client_records_the_turns_memories_and_refuses_an_incognito_turn(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    turn = client.context(alice, "alpha", "Where do the logs go?")
    chat = client.record_chat(alice, "alpha", "Where do the logs go?", "Loki.", turn=turn)
    used = live.md.chat_memories(alice, [chat.id])[chat.id]
    assert [u.id for u in used] == turn.memory_ids
    secret = client.context(alice, "alpha", "Where do the logs go?", record=False)
    assert secret.record is False and secret.memory_ids == turn.memory_ids
    with pytest.raises(InvalidInput, match="incognito"):
        client.record_chat(alice, "alpha", "Where do the logs go?", "Loki.", turn=secret)
    assert [c.id for c in live.md.list_chats(alice)] == [chat.id]


def test_incognito_client_turn_leaves_last_used_alone(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    client.context(alice, "alpha", "Where do the logs go?", record=False)
    live.md.writer.flush()
    assert all(m.last_used_at is None for m in live.md.list_memories(alice))


def test_langchain_history_with_record_false_keeps_messages_to_itself(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
    from memoryd.integrations.langchain import MemorydChatMessageHistory

    alice = live.ids["alice"]
    history = MemorydChatMessageHistory(client, alice, "alpha", record=False)
    history.add_user_message("A private question")
    history.add_ai_message("A private answer")
    assert [m.content for m in history.messages] == ["A private question", "A private answer"]
    assert live.md.list_chats(alice) == []


def test_llamaindex_block_with_record_false_records_nothing(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from memoryd.integrations.llamaindex import MemorydMemoryBlock

    alice = live.ids["alice"]
    block = MemorydMemoryBlock(backend=client, user_id=alice, workspace="alpha", record=False)
    section = asyncio.run(
        block._aget([ChatMessage(role=MessageRole.USER, content="Where do the logs go?")])
    )
    assert "- Logs are shipped to Loki" in section
    asyncio.run(
        block._aput(
            [
                ChatMessage(role=MessageRole.USER, content="I moved to Lisbon"),
                ChatMessage(role=MessageRole.ASSISTANT, content="Noted"),
            ]
        )
    )
    live.md.writer.flush()
    assert live.md.list_chats(alice) == []
    assert all(m.last_used_at is None for m in live.md.list_memories(alice))
