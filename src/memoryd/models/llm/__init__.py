"""LLM providers: the interface extraction and the proxy use, and the built-in providers."""

from memoryd.models.llm.base import Completion, LLMError, LLMProvider

__all__ = ["Completion", "LLMError", "LLMProvider"]
