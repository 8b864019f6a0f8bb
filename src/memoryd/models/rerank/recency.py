"""Newest first: the fallback order of R4, also usable as a reranker on its own."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory


class RecencyReranker:
    name = "recency"

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        return [m.created_at.timestamp() for m in memories]
