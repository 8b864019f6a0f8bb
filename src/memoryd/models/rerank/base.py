"""The one small interface every reranker implements.

A reranker returns one score per memory, higher meaning more relevant. It may raise any
exception: the caller then falls back to recency and logs why (R4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, query: Query, memories: Sequence[Memory]) -> Sequence[float]: ...


@runtime_checkable
class Warmable(Protocol):
    """A reranker that can prepare texts ahead of the turns that will quote them."""

    def warm(self, texts: Sequence[str]) -> None: ...
