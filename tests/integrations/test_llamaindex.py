"""The LlamaIndex memory block with the real llama-index-core ``Memory``, over a real
memoryd server: ``get`` carries the memory section, flushed exchanges are recorded."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory

from memoryd.client import MemorydClient
from memoryd.integrations.llamaindex import MemorydMemoryBlock
from memoryd.testing.live import LiveMemoryd


def words(text: str) -> list[str]:
    """A tokenizer that needs no download (LlamaIndex's default fetches tiktoken's)."""
    return text.split()


def test_memory_get_carries_the_chat_turns_section(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    block = MemorydMemoryBlock(backend=client, user_id=alice, workspace="alpha")
    memory = Memory.from_defaults(
        session_id="s1", token_limit=2000, tokenizer_fn=words, memory_blocks=[block]
    )
    memory.put(ChatMessage(role=MessageRole.USER, content="Where do the logs go?"))
    messages = memory.get()
    system = messages[0]
    assert system.role == MessageRole.SYSTEM
    expected = live.md.context(alice, "alpha", "Where do the logs go?").section
    assert expected in (system.content or "")
    assert "- Logs are shipped to Loki" in (system.content or "")
    assert messages[-1].content == "Where do the logs go?"


def test_flushed_exchanges_are_recorded(live: LiveMemoryd, client: MemorydClient) -> None:
    alice = live.ids["alice"]
    block = MemorydMemoryBlock(backend=client, user_id=alice, workspace="alpha")
    memory = Memory.from_defaults(
        session_id="s2",
        token_limit=40,
        token_flush_size=10,
        chat_history_token_ratio=0.5,
        tokenizer_fn=words,
        memory_blocks=[block],
    )
    turns = [
        ("I moved to Lisbon last spring with my family", "Lisbon is lovely, noted for later"),
        ("My team now writes the backend in Go only", "Understood, Go for the backend"),
        ("We release every second Tuesday of the month", "Got it, biweekly Tuesday releases"),
    ]
    for prompt, reply in turns:
        memory.put(ChatMessage(role=MessageRole.USER, content=prompt))
        memory.put(ChatMessage(role=MessageRole.ASSISTANT, content=reply))
    recorded = [(c.prompt, c.response) for c in live.md.list_chats(alice, "alpha")]
    assert recorded, "nothing was flushed to memoryd"
    assert recorded == turns[: len(recorded)]
