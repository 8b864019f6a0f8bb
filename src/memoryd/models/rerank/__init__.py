"""Rerankers: score workspace memories against a turn's query (R4)."""

from memoryd.models.rerank.base import Reranker
from memoryd.models.rerank.embedding import EmbeddingReranker, QueryEncoder
from memoryd.models.rerank.hybrid import HybridReranker
from memoryd.models.rerank.lexical import LexicalReranker
from memoryd.models.rerank.recency import RecencyReranker

__all__ = [
    "EmbeddingReranker",
    "HybridReranker",
    "LexicalReranker",
    "QueryEncoder",
    "RecencyReranker",
    "Reranker",
]
