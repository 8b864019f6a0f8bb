"""Embedding similarity fused with BM25: meaning plus exact names and numbers.

BM25 is scaled to the pool's best and added in the units of the dense scores' own spread
over the pool: ``lexical_weight`` x their standard deviation. Cosines of one embedder are
not on the scale of another's (multilingual-e5's spread over a pool is about a sixth of
MiniLM's), so a fixed weight let BM25 decide e5 turns while only breaking ties in MiniLM
ones; in spread units it moves a memory past the same share of the pool whichever model
scored the turn. When the dense scores do not tell the memories apart at all, BM25 ranks
them. The weight, 1.0, was chosen on the dev splits of all genres (per-genre figures:
BENCHMARKS.md, "Retrieval per genre")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.models.rerank.embedding import EmbeddingReranker
from memoryd.models.rerank.lexical import LexicalReranker

LEXICAL_WEIGHT = 1.0  # BM25 / the pool's best BM25, in standard deviations of the dense scores


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
        dense = np.asarray(self.dense.score(query, memories), dtype=float)
        sparse = np.asarray(self.lexical.score(query, memories), dtype=float)
        top = float(sparse.max(initial=0.0))
        if top <= 0:
            return [float(x) for x in dense]
        spread = float(dense.std())
        weight = self.lexical_weight * spread if spread > 0 else 1.0  # else the words decide
        return [float(x) for x in dense + weight * sparse / top]
