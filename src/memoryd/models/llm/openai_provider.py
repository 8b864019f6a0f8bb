"""Any OpenAI-compatible chat server: OpenAI, Ollama, vLLM, LM Studio, llama.cpp, OpenRouter.

Structured output is asked for with ``response_format`` and a JSON schema. Servers that
refuse that (HTTP 400 naming response_format) are asked again with plain JSON mode, then
without it; the process remembers what worked for that server and model. The caller
parses tolerantly either way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import openai

from memoryd.models.llm.base import Completion, LLMError, Message, SdkProvider

DEFAULT_MODEL = "gpt-4o-mini"
HINT = (
    "an OpenAI-compatible server's base URL usually ends in /v1, e.g. "
    "http://127.0.0.1:11434/v1 for Ollama"
)

# How structured output is requested, most precise first.
_MODES = ("json_schema", "json_object", "none")
# What each (server, model) took, for the whole process: extraction builds a provider per
# run, and asking again with a form the server refused would cost failed calls every run.
_MODE_BY_SERVER: dict[tuple[str, str], int] = {}


class OpenAIProvider(SdkProvider):
    name = "openai"
    sdk = openai
    client = openai.OpenAI
    default_model = DEFAULT_MODEL
    no_key = "not-needed"
    hint = HINT

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        server = (str(self._client.base_url), self.model)
        while True:
            index = _MODE_BY_SERVER.get(server, 0)
            mode = _MODES[index] if schema is not None else "none"
            extra = _options(max_tokens, temperature)
            if mode == "json_schema":
                extra["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": schema_name, "schema": dict(schema or {})},
                }
            elif mode == "json_object":
                extra["response_format"] = {"type": "json_object"}
            try:
                response = self._client.chat.completions.create(
                    model=self.model, messages=_messages(messages), **extra
                )
            except openai.BadRequestError as exc:
                if mode != "none" and "response_format" in str(exc):
                    _MODE_BY_SERVER[server] = index + 1  # not taken here: step down
                    continue
                raise self._error(exc) from exc
            except openai.OpenAIError as exc:
                raise self._error(exc) from exc
            return _completion(response, self.model)

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        extra = _options(max_tokens, temperature)
        try:
            chunks: Any = self._client.chat.completions.create(
                model=self.model, messages=_messages(messages), stream=True, **extra
            )
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield str(chunk.choices[0].delta.content)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc


def _options(max_tokens: int | None, temperature: float | None) -> dict[str, Any]:
    given = {"max_tokens": max_tokens, "temperature": temperature}
    return {name: value for name, value in given.items() if value is not None}


def _messages(messages: Sequence[Message]) -> Any:
    return [dict(m) for m in messages]


def _completion(response: Any, fallback_model: str) -> Completion:
    if not response.choices:
        raise LLMError("the LLM returned no choices")
    choice = response.choices[0]
    text = choice.message.content or ""
    usage = response.usage
    return Completion(
        text=text,
        model=response.model or fallback_model,
        prompt_tokens=int(usage.prompt_tokens) if usage else 0,
        completion_tokens=int(usage.completion_tokens) if usage else 0,
    )
