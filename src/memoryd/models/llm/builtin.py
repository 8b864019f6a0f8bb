"""Registers the built-in LLM providers through the plugin hook, as a plugin would.

Each factory takes the process settings (``MemorydSettings``) and builds a provider from
the ``MEMORYD_LLM_*`` values; ``make_provider`` picks one by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.config import MemorydSettings
from memoryd.models.llm.base import LLMConfigError, LLMProvider
from memoryd.plugins.hookspecs import hookimpl

DEFAULT_PROVIDER = "local"


def _key(settings: MemorydSettings) -> str | None:
    return settings.llm_api_key.get_secret_value() if settings.llm_api_key else None


def _hosted_needs_key(settings: MemorydSettings, name: str, where: str) -> None:
    """Refuse, before any call, a hosted API without a key (local servers need none)."""
    if settings.llm_base_url or _key(settings):
        return
    raise LLMConfigError(
        f"MEMORYD_LLM_API_KEY is not set: the {name} provider without MEMORYD_LLM_BASE_URL "
        f"talks to {where}, which needs a key; set the key, or set MEMORYD_LLM_BASE_URL to "
        "your own server"
    )


def _openai(settings: MemorydSettings) -> LLMProvider:
    from memoryd.models.llm.openai_provider import OpenAIProvider

    _hosted_needs_key(settings, "openai", "api.openai.com")
    return OpenAIProvider(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=_key(settings),
        timeout=settings.llm_timeout,
    )


def _anthropic(settings: MemorydSettings) -> LLMProvider:
    from memoryd.models.llm.anthropic_provider import AnthropicProvider

    _hosted_needs_key(settings, "anthropic", "api.anthropic.com")
    return AnthropicProvider(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=_key(settings),
        timeout=settings.llm_timeout,
    )


def _local(settings: MemorydSettings) -> LLMProvider:
    from memoryd.models.llm.local import LocalProvider

    return LocalProvider(
        model=settings.llm_model,
        models_dir=settings.models_path,
        threads=settings.llm_threads,
        timeout=settings.llm_timeout,
    )


@hookimpl
def register_llm_providers(register: Callable[[str, Callable[..., Any]], None]) -> None:
    register("openai", _openai)
    register("anthropic", _anthropic)
    register("local", _local)


def make_provider(
    settings: MemorydSettings, name: str | None = None, model: str | None = None
) -> LLMProvider:
    """The provider ``name`` (else MEMORYD_LLM_PROVIDER, else the bundled local model)."""
    from memoryd.plugins import llm_provider_factories, pick

    chosen = name or settings.llm_provider or DEFAULT_PROVIDER
    if model:
        settings = settings.model_copy(update={"llm_model": model})
    provider: LLMProvider = pick("LLM provider", chosen, llm_provider_factories())(settings)
    return provider
