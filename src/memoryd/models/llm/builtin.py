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


def _hosted(
    settings: MemorydSettings, provider: Callable[..., LLMProvider], where: str
) -> LLMProvider:
    """``provider`` (a hosted API's class) from the settings; refused, before any call,
    without a key when it would talk to ``where`` (local servers need none)."""
    name = getattr(provider, "name", "")
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    if not settings.llm_base_url and not key:
        raise LLMConfigError(
            f"MEMORYD_LLM_API_KEY is not set: the {name} provider without MEMORYD_LLM_BASE_URL "
            f"talks to {where}, which needs a key; set the key, or set MEMORYD_LLM_BASE_URL to "
            "your own server"
        )
    return provider(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=key,
        timeout=settings.llm_timeout,
    )


def _openai(settings: MemorydSettings) -> LLMProvider:
    from memoryd.models.llm.openai_provider import OpenAIProvider

    return _hosted(settings, OpenAIProvider, "api.openai.com")


def _anthropic(settings: MemorydSettings) -> LLMProvider:
    from memoryd.models.llm.anthropic_provider import AnthropicProvider

    return _hosted(settings, AnthropicProvider, "api.anthropic.com")


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
