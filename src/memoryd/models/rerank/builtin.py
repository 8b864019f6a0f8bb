"""Registers the built-in rerankers through the plugin hook, as a plugin would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.models.rerank.api import ApiReranker, ApiRerankSettings
from memoryd.models.rerank.embedding import EmbeddingReranker
from memoryd.models.rerank.hybrid import HybridReranker
from memoryd.models.rerank.lexical import LexicalReranker
from memoryd.models.rerank.recency import RecencyReranker
from memoryd.plugins.hookspecs import hookimpl


@hookimpl
def register_rerankers(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Each factory takes the service's embedder (only the embedding ones use it)."""
    register("api", lambda embedder: ApiReranker(ApiRerankSettings()))
    register("embedding", lambda embedder: EmbeddingReranker(embedder))
    register("hybrid", lambda embedder: HybridReranker(EmbeddingReranker(embedder)))
    register("lexical", lambda embedder: LexicalReranker())
    register("recency", lambda embedder: RecencyReranker())
