"""Where the proxy sends chat requests: the configured upstream, resolved once, and a true
sentence about where that is for the start-up banner and the chat page.

An OpenAI-compatible upstream (OpenAI, Ollama, vLLM, llama.cpp, ...) gets the request
body as sent; any other provider is called through ``LLMProvider``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from memoryd.config import MemorydSettings
from memoryd.models.llm.base import LLMProvider

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


def provider_name(settings: MemorydSettings) -> str:
    return settings.proxy_provider or settings.llm_provider or "local"


def resolve_upstream(settings: MemorydSettings) -> Upstream:
    """The proxy's upstream from ``MEMORYD_PROXY_*``, else the extraction LLM settings."""
    name = provider_name(settings)
    secret = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    url = settings.proxy_upstream_url or settings.llm_base_url
    key = settings.proxy_upstream_key or secret
    if name == "openai":
        return OpenAIUpstream(url or OPENAI_DEFAULT_URL, key)

    def factory(model: str | None) -> LLMProvider:
        from memoryd.models.llm.builtin import make_provider

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
    local: bool = False  # the bundled small model: the page says it is slow and limited


def _where(settings: MemorydSettings) -> tuple[str, str, str | None]:
    """The upstream's provider name, where it is in words (no credentials) and the
    configured model."""
    name, model = provider_name(settings), settings.proxy_model or settings.llm_model
    if name == "local":
        return name, "the bundled local model", model
    if name == "openai":
        url = settings.proxy_upstream_url or settings.llm_base_url or OPENAI_DEFAULT_URL
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        where = f"the OpenAI-compatible server at {urlunsplit(parts._replace(netloc=netloc))}"
        return name, where, model
    return name, f"the {name} provider", model


def describe_upstream(settings: MemorydSettings) -> str:
    """Where the proxy sends chats, for the ``memoryd serve`` start-up banner."""
    name, where, model = _where(settings)
    if name == "local":
        return where
    if model:
        return f"{where}, model {model} for the web chat page (clients name their own)"
    return f"{where}, with the model each client names (MEMORYD_PROXY_MODEL is not set)"


def chat_target(settings: MemorydSettings) -> ChatTarget:
    """The web chat page's model and what it tells the user about where answers come from."""
    name, where, model = _where(settings)
    tail = "through memoryd's proxy, with your memories in the system prompt."
    if name == "local":
        return ChatTarget(model or "local", f"Answers come from {where} {tail}", local=True)
    if model:
        return ChatTarget(model, f"Answers come from {model} on {where} {tail}")
    return ChatTarget(
        "default",
        f"No chat model is configured (an admin sets MEMORYD_PROXY_MODEL), so this page asks "
        f'{where} for a model named "default", which it may not have.',
    )
