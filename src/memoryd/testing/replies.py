"""The replies a test scripts for ``FakeOpenAIServer``, and the requests it records.

Kept apart from the server so a test reads as a list of replies, not HTTP plumbing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

FAKE_MODEL_ID = "fake-model"

_ReplyKind = Literal["json", "text", "error"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer.  Build it with the class methods, not directly."""

    kind: _ReplyKind
    content: str = ""
    payload: Any = None
    status: int = 200
    message: str = ""
    error_type: str | None = None
    error_code: str | None = None
    retry_after: float | None = None
    delay_seconds: float = 0.0
    chunk_pause_seconds: float = 0.0
    usage: tuple[int, int] | None = None
    finish_reason: str = "stop"

    @classmethod
    def json(
        cls, obj: Any, *, usage: tuple[int, int] | None = None, finish_reason: str = "stop"
    ) -> Reply:
        """Answer with ``json.dumps(obj)`` as the assistant message content.

        On Anthropic's ``/v1/messages`` with ``tools`` in the request, the
        object becomes the ``input`` of a ``tool_use`` block instead.
        ``usage`` is ``(prompt_tokens, completion_tokens)``.
        """
        return cls(
            kind="json",
            content=json.dumps(obj),
            payload=obj,
            usage=usage,
            finish_reason=finish_reason,
        )

    @classmethod
    def text(
        cls, s: str, *, usage: tuple[int, int] | None = None, finish_reason: str = "stop"
    ) -> Reply:
        """Answer with ``s`` verbatim as the assistant message content.

        ``finish_reason="length"`` imitates a reply cut off by max_tokens.
        """
        return cls(kind="text", content=s, usage=usage, finish_reason=finish_reason)

    @classmethod
    def error(
        cls,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        """Answer with HTTP ``status`` and an OpenAI-style error body.

        ``retry_after`` adds a ``Retry-After`` header (seconds), as providers
        do on 429 and 503.
        """
        return cls(
            kind="error",
            status=status,
            message=message,
            error_type=type,
            error_code=code,
            retry_after=retry_after,
        )

    @classmethod
    def delay(cls, seconds: float, reply: Reply) -> Reply:
        """Answer with ``reply`` after sleeping ``seconds`` (for client timeouts)."""
        return replace(reply, delay_seconds=reply.delay_seconds + seconds)

    @classmethod
    def paced(cls, seconds: float, reply: Reply) -> Reply:
        """Stream ``reply`` with a pause of ``seconds`` before each chunk after the first
        (for clients that hang up mid-stream)."""
        return replace(reply, chunk_pause_seconds=seconds)


class RecordedRequest(dict[str, Any]):
    """A received request: the decoded JSON body (a dict) plus where it went.

    It compares equal to the plain body dict, so ``srv.requests[0]["model"]``
    works; ``method``, ``path`` and ``headers`` (lower-cased names) say how
    it arrived.
    """

    def __init__(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> None:
        super().__init__(body)
        self.method = method
        self.path = path
        self.headers = headers

    def __repr__(self) -> str:
        return f"RecordedRequest({self.method} {self.path} {dict.__repr__(self)})"


Responder = Callable[[dict[str, Any]], Reply]


def default_error_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        409: "conflict_error",
        422: "invalid_request_error",
        429: "rate_limit_error",
    }.get(status, "server_error" if status >= 500 else "api_error")


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def text_of(content: Any) -> str:
    """Flatten a message ``content`` (string or list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, dict):
                value = part.get("text", part.get("content", ""))
                parts.append(text_of(value))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return ""


def prompt_text(body: dict[str, Any]) -> str:
    pieces = [text_of(body.get("system", ""))]
    messages = body.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                pieces.append(text_of(message.get("content", "")))
    return "\n".join(p for p in pieces if p)


def split_text(text: str, pieces: int = 4) -> list[str]:
    """Cut ``text`` into up to ``pieces`` consecutive non-empty chunks."""
    if not text:
        return []
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]
