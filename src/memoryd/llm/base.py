"""The one small interface every LLM provider implements.

Extraction asks for structured output (a JSON schema); the proxy asks for plain chat,
streamed or not. Providers raise ``LLMError`` for anything that went wrong on the way
(HTTP errors, timeouts, refusals), so callers handle one exception type.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from memoryd.domain.errors import MemorydError

Message = Mapping[str, str]


class LLMError(MemorydError):
    """A provider call failed; ``status`` is the upstream HTTP status when there was one."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class LLMProvider(Protocol):
    name: str
    model: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """One answer; with ``schema`` the answer text is meant to be JSON of that schema."""
        ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        """The answer as text pieces, in order."""
        ...
