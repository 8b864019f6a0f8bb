"""Embedding similarity fused with BM25: meaning plus exact names and numbers.

BM25 is scaled to the pool's best and added at LEXICAL_WEIGHT: enough to break ties
towards exact names and numbers, small enough not to pull in memories that only share
a word (per-genre figures: BENCHMARKS.md, "Retrieval per genre")."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.models.rerank.embedding import EmbeddingReranker
from memoryd.models.rerank.lexical import LexicalReranker

LEXICAL_WEIGHT = 0.05


class HybridReranker:
    name = "hybrid"

    def __init__(
        self,
        dense: EmbeddingReranker,
        lexical: LexicalReranker | None = None,
        lexical_weight: float = LEXICAL_WEIGHT,
    ) -> None:
        self.dense = dense
        self.lexical = lexical or LexicalReranker()
        self.lexical_weight = lexical_weight

    def warm(self, texts: Sequence[str]) -> None:
        self.dense.warm(texts)

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        dense = self.dense.score(query, memories)
        sparse = self.lexical.score(query, memories)
        top = max(sparse, default=0.0)
        if top <= 0:
            return list(dense)
        return [d + self.lexical_weight * s / top for d, s in zip(dense, sparse, strict=True)]
