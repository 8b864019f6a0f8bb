"""Anthropic's Messages API; structured output through one forced tool.

The schema becomes the ``input_schema`` of a tool the model must call, and the tool input
is handed back as JSON text, so callers treat every provider the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import anthropic

from memoryd.models.llm.base import Completion, Message, SdkProvider

DEFAULT_MODEL = "claude-3-5-haiku-latest"
DEFAULT_MAX_TOKENS = 1024
HINT = "leave it unset for Anthropic's API; a proxy's URL may be given with or without /v1"


class AnthropicProvider(SdkProvider):
    name = "anthropic"
    sdk = anthropic
    client = anthropic.Anthropic
    default_model = DEFAULT_MODEL
    no_key = "not-set"
    hint = HINT

    def __init__(self, *, base_url: str | None = None, **given: Any) -> None:
        # The SDK adds /v1 itself; accept base URLs written either way.
        if base_url and base_url.rstrip("/").endswith("/v1"):
            base_url = base_url.rstrip("/")[: -len("/v1")]
        super().__init__(base_url=base_url, **given)

    def _request(self, messages: Sequence[Message], max_tokens: int | None) -> dict[str, Any]:
        system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
        chat = [
            {"role": m["role"], "content": m["content"]}
            for m in messages
            if m.get("role") in ("user", "assistant")
        ]
        request: dict[str, Any] = {
            "model": self.model,
            "messages": chat,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
        }
        if system:
            request["system"] = system
        # ``temperature`` is not sent: current Messages API versions no longer take it.
        return request

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        request = self._request(messages, max_tokens)
        if schema is not None:
            request["tools"] = [
                {
                    "name": schema_name,
                    "description": f"Record the {schema_name} as structured data.",
                    "input_schema": dict(schema),
                }
            ]
            request["tool_choice"] = {"type": "tool", "name": schema_name}
        try:
            response = self._client.messages.create(**request)
        except anthropic.AnthropicError as exc:
            raise self._error(exc) from exc
        text = ""
        for block in response.content:
            if block.type == "tool_use":
                text = json.dumps(block.input)
                break
            if block.type == "text":
                text += block.text
        return Completion(
            text=text,
            model=response.model or self.model,
            prompt_tokens=int(response.usage.input_tokens),
            completion_tokens=int(response.usage.output_tokens),
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        request = self._request(messages, max_tokens)
        try:
            with self._client.messages.stream(**request) as events:
                yield from events.text_stream
        except anthropic.AnthropicError as exc:
            raise self._error(exc) from exc
