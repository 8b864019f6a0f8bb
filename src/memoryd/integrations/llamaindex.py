"""LlamaIndex adapter (``pip install 'memoryd[llamaindex]'``): ``MemorydMemoryBlock``.

Add it to ``llama_index.core.memory.Memory(memory_blocks=[...])``. On every ``get`` it
supplies the memory section a chat turn with the latest user message would get (all
globals, then the workspace's top 5); messages flushed out of short-term memory are
recorded with memoryd as exchanges, and memoryd learns new memories from them later.
The backend is the embedded ``Memoryd``, a ``MemorydClient`` (called in a thread) or an
``AsyncMemorydClient`` (awaited). Its errors reach the caller of ``get`` / ``put``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field

from memoryd.domain.injection import Turn
from memoryd.integrations._backend import exchanges, is_async

ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant"}


class MemorydMemoryBlock(BaseMemoryBlock[str]):
    """memoryd's memories of one user in one workspace, as a LlamaIndex memory block."""

    name: str = "memoryd"
    description: str | None = "Facts memoryd remembers about the user."
    backend: Any = Field(
        description="A memoryd.Memoryd, memoryd.client.MemorydClient or AsyncMemorydClient."
    )
    user_id: int
    workspace: str | None = None
    record: bool = Field(
        default=True, description="False: incognito, nothing is recorded or learned from."
    )
    pending: str | None = None  # a flushed prompt whose reply has not been flushed yet

    async def _aget(self, messages: list[ChatMessage] | None = None, **kwargs: Any) -> str:
        history = [
            {"role": ROLES.get(m.role, str(m.role)), "content": m.content or ""}
            for m in messages or []
        ]
        last = max((i for i, h in enumerate(history) if h["role"] == "user"), default=None)
        message = "" if last is None else history[last]["content"]
        prior = history if last is None else history[:last]
        turn: Turn = await self._call(
            "context", self.user_id, self.workspace, message, prior, record=self.record
        )
        return turn.section

    async def _aput(self, messages: list[ChatMessage]) -> None:
        if self.workspace is None or not self.record:
            return  # memoryd records exchanges per workspace; incognito records none
        flat = [(ROLES.get(m.role, str(m.role)), m.content or "") for m in messages]
        pairs, self.pending = exchanges(flat, self.pending)
        for prompt, response in pairs:
            await self._call("record_chat", self.user_id, self.workspace, prompt, response)

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """The backend's method: awaited on an async client, in a thread on a sync one."""
        if is_async(self.backend):
            return await getattr(self.backend, method)(*args, **kwargs)
        return await asyncio.to_thread(getattr(self.backend, method), *args, **kwargs)
