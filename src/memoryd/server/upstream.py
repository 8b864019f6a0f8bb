"""Where the proxy sends chat requests, and how it reads the answers on the way back.

An OpenAI-compatible upstream (OpenAI, Ollama, vLLM, LM Studio, llama.cpp, OpenRouter,
the fake test server) gets the request body as sent, with only the system message
rewritten, and its bytes are streamed back untouched. Any other provider (Anthropic, the
bundled local model, a plugin) is called through ``LLMProvider`` and its text is wrapped
as OpenAI ``chat.completion`` objects or ``chat.completion.chunk`` events.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from memoryd.config import MemorydSettings
from memoryd.llm.base import LLMProvider

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class OpenAIUpstream:
    """Any server speaking the OpenAI Chat Completions API."""

    base_url: str
    api_key: str | None = None

    def url(self, path: str) -> str:
        return f"{self.base_url.rstrip('/')}/{path.lstrip('/')}"

    def headers(self) -> dict[str, str]:
        # identity: the bytes are relayed as they come, so they must not be compressed
        headers = {"accept-encoding": "identity", "content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        return headers


@dataclass
class ProviderUpstream:
    """An ``LLMProvider``; ``factory(model)`` builds one per requested model name."""

    factory: Callable[[str | None], LLMProvider]
    fixed_model: bool = False
    _cache: dict[str | None, LLMProvider] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def provider(self, model: str | None) -> LLMProvider:
        key = None if self.fixed_model else model
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self.factory(key)
            return self._cache[key]


Upstream = OpenAIUpstream | ProviderUpstream


def resolve_upstream(settings: MemorydSettings) -> Upstream:
    """The proxy's upstream from ``MEMORYD_PROXY_*``, else the extraction LLM settings."""
    name = settings.proxy_provider or settings.llm_provider or "local"
    secret = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    url = settings.proxy_upstream_url or settings.llm_base_url
    key = settings.proxy_upstream_key or secret
    if name == "openai":
        return OpenAIUpstream(url or OPENAI_DEFAULT_URL, key)

    def factory(model: str | None) -> LLMProvider:
        from memoryd.llm.builtin import make_provider

        updates: dict[str, Any] = {"llm_base_url": url}
        if key:  # model_copy does not validate: give the field its declared type
            updates["llm_api_key"] = SecretStr(key)
        configured = settings.model_copy(update=updates)
        return make_provider(configured, name, model)

    return ProviderUpstream(factory, fixed_model=name == "local")


# saying where chats go ------------------------------------------------------------------
@dataclass(frozen=True)
class ChatTarget:
    """What the web chat page asks the proxy for, and a true sentence about it."""

    model: str
    sentence: str


def _where(settings: MemorydSettings) -> tuple[str, str]:
    """The upstream's provider name and where it is, in words (no credentials)."""
    name = settings.proxy_provider or settings.llm_provider or "local"
    if name == "local":
        return name, "the bundled local model"
    if name == "openai":
        url = settings.proxy_upstream_url or settings.llm_base_url or OPENAI_DEFAULT_URL
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return name, f"the OpenAI-compatible server at {urlunsplit(parts._replace(netloc=netloc))}"
    return name, f"the {name} provider"


def describe_upstream(settings: MemorydSettings) -> str:
    """Where the proxy sends chats, for the ``memoryd serve`` start-up banner."""
    name, where = _where(settings)
    model = settings.proxy_model or settings.llm_model
    if name == "local":
        return where
    if model:
        return f"{where}, model {model} for the web chat page (clients name their own)"
    return f"{where}, with the model each client names (MEMORYD_PROXY_MODEL is not set)"


def chat_target(settings: MemorydSettings) -> ChatTarget:
    """The web chat page's model and what it tells the user about where answers come from."""
    name, where = _where(settings)
    model = settings.proxy_model or settings.llm_model
    tail = "through memoryd's proxy, with your memories in the system prompt."
    if name == "local":
        return ChatTarget(model or "local", f"Answers come from {where} {tail}")
    if model:
        return ChatTarget(model, f"Answers come from {model} on {where} {tail}")
    return ChatTarget(
        "default",
        f"No chat model is configured (an admin sets MEMORYD_PROXY_MODEL), so this page asks "
        f'{where} for a model named "default", which it may not have.',
    )


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


def completion_text(body: bytes) -> str:
    """The first choice's text of a non-streamed chat.completion body ("" if none)."""
    try:
        data = json.loads(body)
        return message_text(data["choices"][0]["message"].get("content"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""


class StreamCollector:
    """Assembles the answer text from server-sent ``chat.completion.chunk`` events."""

    def __init__(self) -> None:
        self._buffer = b""
        self._pieces: list[str] = []
        self.done = False

    def feed(self, data: bytes) -> None:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._line(line.strip())

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
