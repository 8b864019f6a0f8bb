"""What ``FakeOpenAIServer`` answers on Anthropic's ``/v1/messages``, streamed or not.

Kept apart from the HTTP server so that one file holds the OpenAI shapes and plumbing and
this one Anthropic's shapes: a Message object, or, for ``"stream": true``, the server-sent
event sequence of the Messages streaming API (``message_start``, ``content_block_start``,
``content_block_delta`` pieces, ``content_block_stop``, ``message_delta``,
``message_stop``) that the official ``anthropic`` SDK's ``messages.stream()`` reads.
Both come from the same scripted :class:`Reply`, so a test can switch between the two
without scripting anything else.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from memoryd.testing.replies import FAKE_MODEL_ID, Reply, split_text

__all__ = ["message_object", "stream_events"]


def _block(body: dict[str, Any], reply: Reply) -> tuple[dict[str, Any], str]:
    """The one content block answering ``body`` and the message's stop reason.

    A JSON reply to a request with ``tools`` becomes a ``tool_use`` block (the tool the
    request forces, else its first), anything else a ``text`` block.
    """
    tools = body.get("tools")
    if reply.kind == "json" and isinstance(tools, list) and tools:
        name = str(tools[0].get("name", "tool")) if isinstance(tools[0], dict) else "tool"
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "tool":
            name = str(choice.get("name", name))
        block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": reply.payload}
        return block, "tool_use"
    stop_reason = "max_tokens" if reply.finish_reason == "length" else "end_turn"
    return {"type": "text", "text": reply.content}, stop_reason


def _message(
    body: dict[str, Any],
    message_id: str,
    content: list[dict[str, Any]],
    stop_reason: str | None,
    usage: tuple[int, int],
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or FAKE_MODEL_ID),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def message_object(
    body: dict[str, Any], reply: Reply, message_id: str, usage: tuple[int, int]
) -> dict[str, Any]:
    """The whole Message answering a non-streamed request; ``usage`` is (input, output)."""
    block, stop_reason = _block(body, reply)
    return _message(body, message_id, [block], stop_reason, usage)


def stream_events(
    body: dict[str, Any], reply: Reply, message_id: str, usage: tuple[int, int]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(event name, data)`` pairs of a streamed answer, in the order Anthropic sends them.

    Text arrives as ``text_delta`` pieces (``split_text``, as the OpenAI stream cuts it),
    a tool call as ``input_json_delta`` pieces of its JSON input. The opening message
    carries the input tokens, ``message_delta`` the output tokens, as the real API does.
    """
    block, stop_reason = _block(body, reply)
    opening = _message(body, message_id, [], None, (usage[0], 1 if usage[1] else 0))
    yield "message_start", {"type": "message_start", "message": opening}
    if block["type"] == "tool_use":
        start = {**block, "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in split_text(json.dumps(block["input"]))
        ]
    else:
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in split_text(block["text"])]
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    stop: dict[str, Any] = {"stop_reason": stop_reason, "stop_sequence": None}
    ending = {"type": "message_delta", "delta": stop, "usage": {"output_tokens": usage[1]}}
    yield "message_delta", ending
    yield "message_stop", {"type": "message_stop"}
