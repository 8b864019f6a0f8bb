"""LangChain adapters (``pip install 'memoryd[langchain]'``).

- ``MemorydChatMessageHistory``: a ``BaseChatMessageHistory`` that records each finished
  exchange with memoryd (which learns memories from it later) and reads them back: pass
  ``messages`` to the prompt and ``add_messages`` the question and the reply after a turn
  (anything that takes a ``BaseChatMessageHistory`` works with it).
- ``MemorydRetriever``: a ``BaseRetriever`` returning the memories a chat turn with this
  query would get (all globals, then the top 5 of the workspace), best first. With an
  ``AsyncMemorydClient`` it answers ``ainvoke``.

A backend's errors reach the caller as they are (``ServerError`` for a server that is
down, ``NotAuthenticated`` for a bad key...): a chat must not go on as if memoryd had
recorded or supplied something it did not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from memoryd.domain.injection import Turn
from memoryd.integrations._backend import Backend, exchanges, is_async

ROLES = {"human": "user", "ai": "assistant"}


class MemorydChatMessageHistory(BaseChatMessageHistory):
    """One user's chat in one workspace, recorded in memoryd. ``record=False`` is an
    incognito chat: its messages live in this object only, nothing is recorded."""

    def __init__(
        self, backend: Backend, user_id: int, workspace: str, *, record: bool = True
    ) -> None:
        if is_async(backend):
            raise TypeError(
                "MemorydChatMessageHistory calls memoryd synchronously: give it a "
                "MemorydClient (or the embedded Memoryd), not an AsyncMemorydClient"
            )
        self.backend = backend
        self.user_id = user_id
        self.workspace = workspace
        self.record = record
        self._pending: str | None = None  # a prompt whose reply has not arrived yet
        self._private: list[tuple[str, str]] = []  # incognito exchanges, never sent

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        out: list[BaseMessage] = []
        if self.record:
            recorded = self.backend.list_chats(self.user_id, self.workspace)
            pairs = [(c.prompt, c.response) for c in recorded]
        else:
            pairs = self._private
        for prompt, response in pairs:
            out += [HumanMessage(prompt), AIMessage(response)]
        if self._pending is not None:
            out.append(HumanMessage(self._pending))
        return out

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Record each complete exchange. When the backend refuses or cannot be reached
        before anything of this call was recorded, the error is raised and the history is
        as it was, so the same call can simply be made again."""
        flat = [(ROLES.get(m.type, m.type), m.text) for m in messages]
        before = self._pending
        pairs, self._pending = exchanges(flat, self._pending)
        for n, (prompt, response) in enumerate(pairs):
            if not self.record:
                self._private.append((prompt, response))
                continue
            try:
                self.backend.record_chat(self.user_id, self.workspace, prompt, response)
            except Exception:
                if n == 0:
                    self._pending = before
                raise

    def clear(self) -> None:
        """Refused: it would delete every chat this user recorded in the workspace."""
        raise NotImplementedError(
            "clear() would delete every chat this user recorded in workspace "
            f"{self.workspace!r}; to do that on purpose call "
            f"backend.clear_chats({self.user_id}, {self.workspace!r}) (memories learned "
            "from them stay), or start a new history object for a new conversation"
        )


class MemorydRetriever(BaseRetriever):
    """The chat turn's memories for a query, as Documents (metadata: id, scope, workspace,
    score). ``invoke("When do we ship?")``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    backend: Any
    user_id: int
    workspace: str | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if is_async(self.backend):
            raise TypeError("an AsyncMemorydClient backend answers ainvoke(), not invoke()")
        return documents(self.backend.context(self.user_id, self.workspace, query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if is_async(self.backend):
            return documents(await self.backend.context(self.user_id, self.workspace, query))
        context = self.backend.context
        return documents(await asyncio.to_thread(context, self.user_id, self.workspace, query))


def documents(turn: Turn) -> list[Document]:
    """The turn's memories, best first, as Documents."""
    return [
        Document(
            page_content=s.memory.content,
            id=s.memory.id,
            metadata={
                "id": s.memory.id,
                "scope": s.memory.scope.value,
                "workspace": s.memory.workspace,
                "score": s.score,
            },
        )
        for s in (*turn.global_memories, *turn.workspace_memories)
    ]
