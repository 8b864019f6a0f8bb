"""The OpenAI chat-completions wire format, in one place: the turn read out of a request's
messages, the memory section put into them, the answer read out of a completion or its
stream, and another provider's text wrapped as OpenAI objects. Pure functions.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memoryd.domain.injection import Turn, compose_system_prompt

SYSTEM_ROLES = ("system", "developer")


# the request ----------------------------------------------------------------------------
def split_turn(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The last user message's text and the messages before it (without system ones)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            history = [m for m in messages[:index] if m.get("role") not in SYSTEM_ROLES]
            return message_text(messages[index].get("content")), history
    return "", [m for m in messages if m.get("role") not in SYSTEM_ROLES]


def inject(messages: list[dict[str, Any]], turn: Turn) -> list[dict[str, Any]]:
    """Append the turn's memory section to the first system message, or add one in front.

    A section that claims to be memoryd's, in any language, is first taken out of every
    system message (``Turn.strip``): one sent back from an earlier ``/context`` answer
    or forged by the client never sits beside (or stands in for) the real one."""
    messages = [_stripped(m, turn) if m.get("role") in SYSTEM_ROLES else m for m in messages]
    section = turn.section
    if not section:
        return messages
    for index, message in enumerate(messages):
        if message.get("role") not in SYSTEM_ROLES:
            continue
        content = message.get("content")
        updated = dict(message)
        if isinstance(content, list):
            updated["content"] = [*content, {"type": "text", "text": f"\n\n{section}"}]
        else:
            updated["content"] = compose_system_prompt(message_text(content), section)
        return [*messages[:index], updated, *messages[index + 1 :]]
    return [{"role": "system", "content": section}, *messages]


def _stripped(message: dict[str, Any], turn: Turn) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": turn.strip(content)}
    if isinstance(content, list):
        parts = [
            {**p, "text": turn.strip(p["text"])}
            if isinstance(p, dict) and isinstance(p.get("text"), str)
            else p
            for p in content
        ]
        return {**message, "content": parts}
    return message


# reading answers ------------------------------------------------------------------------
def message_text(content: Any) -> str:
    """The text of a message's content: a string or a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text")
        )
    return ""


def completion_text(data: Any) -> str:
    """The first choice's text of a non-streamed chat.completion (parsed JSON; "" if
    none)."""
    try:
        return message_text(data["choices"][0]["message"].get("content"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""


class StreamCollector:
    """Assembles the answer text from server-sent ``chat.completion.chunk`` events.

    ``feed`` returns the bytes that end on a line break and keeps the rest until its
    line is complete, so a client is never sent half a line: if the upstream breaks off,
    the relay can still end the stream with an error event the client can parse.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._held = b""
        self._pieces: list[str] = []
        self.done = False  # [DONE] was seen
        self.finished = False  # a first choice came with its finish_reason

    def feed(self, data: bytes) -> bytes:
        """Read ``data``; the bytes to relay now (up to its last line break)."""
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._line(line.strip())
        held = self._held + data
        cut = max(held.rfind(b"\n"), held.rfind(b"\r")) + 1
        self._held = held[cut:]
        return held[:cut]

    def rest(self) -> bytes:
        """What ``feed`` held back (the stream ended without a last line break)."""
        held, self._held = self._held, b""
        return held

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        payload = line[5:].strip()
        if payload == b"[DONE]":
            self.done = True
            return
        try:
            choices = json.loads(payload).get("choices") or []
            for choice in choices:
                if choice.get("index", 0) == 0:
                    if choice.get("finish_reason"):
                        self.finished = True
                    piece = (choice.get("delta") or {}).get("content")
                    if isinstance(piece, str):
                        self._pieces.append(piece)
        except (ValueError, AttributeError, TypeError):
            return

    @property
    def text(self) -> str:
        return "".join(self._pieces)


# wrapping provider output as OpenAI objects ------------------------------------------------
def plain_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    return [
        {"role": str(m.get("role", "user")), "content": message_text(m.get("content"))}
        for m in messages
    ]


def completion_object(text: str, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    prompt_tokens, completion_tokens = usage
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def chunk_events(first: str | None, rest: Iterator[str], model: str) -> Iterator[bytes]:
    """``chat.completion.chunk`` SSE events for text pieces, then ``[DONE]``."""
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())

    def event(delta: dict[str, Any], finish: str | None) -> bytes:
        chunk = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return f"data: {json.dumps(chunk)}\n\n".encode()

    yield event({"role": "assistant", "content": ""}, None)
    if first is not None:
        yield event({"content": first}, None)
    for piece in rest:
        yield event({"content": piece}, None)
    yield event({}, "stop")
    yield b"data: [DONE]\n\n"
