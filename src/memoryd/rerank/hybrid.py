"""Embedding similarity fused with BM25: meaning plus exact names and numbers.

BM25 is scaled to the pool's best and added at LEXICAL_WEIGHT: enough to break ties
towards exact names and numbers, small enough not to pull in memories that only share
a word (the weight is measured in BENCHMARKS.md, "Retrieval quality"). On turns that ask
what someone does for fun, the memories an LLM called pastimes are lifted last
(``memoryd.rerank.pastime``)."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.rerank.embedding import EmbeddingReranker, question_focus
from memoryd.rerank.lexical import LexicalReranker
from memoryd.rerank.pastime import WEIGHT as PASTIME_WEIGHT
from memoryd.rerank.pastime import PastimeLift

LEXICAL_WEIGHT = 0.05


class HybridReranker:
    name = "hybrid"

    def __init__(
        self,
        dense: EmbeddingReranker,
        lexical: LexicalReranker | None = None,
        lexical_weight: float = LEXICAL_WEIGHT,
        pastime_weight: float = PASTIME_WEIGHT,
    ) -> None:
        self.dense = dense
        self.lexical = lexical or LexicalReranker()
        self.lexical_weight = lexical_weight
        self.pastime = PastimeLift(dense.encoder, pastime_weight)

    def warm(self, texts: Sequence[str]) -> None:
        self.dense.warm(texts)

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        dense = self.dense.score(query, memories)
        sparse = self.lexical.score(query, memories)
        top = max(sparse, default=0.0)
        scores = list(dense)
        if top > 0:
            scores = [d + self.lexical_weight * s / top for d, s in zip(dense, sparse, strict=True)]
        if query.message and any(m.pastime is not None for m in memories):
            focus = question_focus(query.message, self.dense.remark_words)
            scores = self.pastime.lift(focus, scores, memories)
        return scores
