"""What the adapters need from a backend, and the one way they turn chat messages into
recorded exchanges (a user prompt followed by the assistant's reply)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from memoryd.domain.injection import Turn
from memoryd.domain.models import Chat


class Backend(Protocol):
    """The part of ``Memoryd`` / ``MemorydClient`` the adapters use."""

    def context(
        self,
        user_id: int,
        workspace: str | None = None,
        message: str = "",
        history: Sequence[Mapping[str, Any]] = (),
        *,
        record: bool = True,
    ) -> Turn: ...

    def record_chat(self, user_id: int, workspace: str, prompt: str, response: str) -> Chat: ...

    def list_chats(
        self, user_id: int, workspace: str | None = None, *, processed: bool | None = None
    ) -> list[Chat]: ...


def is_async(backend: object) -> bool:
    """An ``AsyncMemorydClient`` (its methods are coroutines) rather than a sync backend."""
    return inspect.iscoroutinefunction(getattr(backend, "context", None))


def exchanges(
    messages: Iterable[tuple[str, str]], pending: str | None = None
) -> tuple[list[tuple[str, str]], str | None]:
    """(role, text) messages -> complete (prompt, reply) pairs, and a prompt still waiting
    for its reply. Roles are "user", "assistant" or anything else (ignored)."""
    pairs: list[tuple[str, str]] = []
    for role, text in messages:
        if role == "user":
            pending = text if pending is None else f"{pending}\n{text}"
        elif role == "assistant" and pending is not None:
            pairs.append((pending, text))
            pending = None
    return pairs, pending
