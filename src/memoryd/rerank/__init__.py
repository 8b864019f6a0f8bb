"""Rerankers: score workspace memories against a turn's query (R4)."""

from memoryd.rerank.base import Reranker
from memoryd.rerank.embedding import EmbeddingReranker, QueryEncoder
from memoryd.rerank.hybrid import HybridReranker
from memoryd.rerank.lexical import LexicalReranker
from memoryd.rerank.recency import RecencyReranker

__all__ = [
    "EmbeddingReranker",
    "HybridReranker",
    "LexicalReranker",
    "QueryEncoder",
    "RecencyReranker",
    "Reranker",
]
