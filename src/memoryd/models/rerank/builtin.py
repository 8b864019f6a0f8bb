"""Registers the built-in rerankers through the plugin hook, as a plugin would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.models.embedding.base import Embedder
from memoryd.models.rerank.api import ApiReranker, ApiRerankSettings
from memoryd.models.rerank.embedding import EmbeddingReranker
from memoryd.models.rerank.hybrid import HybridReranker
from memoryd.models.rerank.lexical import LexicalReranker
from memoryd.models.rerank.recency import RecencyReranker
from memoryd.plugins.hookspecs import hookimpl


def _api(embedder: Embedder) -> ApiReranker:
    return ApiReranker(ApiRerankSettings())


def _embedding(embedder: Embedder) -> EmbeddingReranker:
    return EmbeddingReranker(embedder)


def _hybrid(embedder: Embedder) -> HybridReranker:
    return HybridReranker(EmbeddingReranker(embedder))


def _lexical(embedder: Embedder) -> LexicalReranker:
    return LexicalReranker()


def _recency(embedder: Embedder) -> RecencyReranker:
    return RecencyReranker()


@hookimpl
def register_rerankers(register: Callable[[str, Callable[..., Any]], None]) -> None:
    register("api", _api)
    register("embedding", _embedding)
    register("hybrid", _hybrid)
    register("lexical", _lexical)
    register("recency", _recency)
