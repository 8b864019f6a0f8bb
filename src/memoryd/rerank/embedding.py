"""The native reranker: cosine similarity of MiniLM vectors, computed locally (R4).

Memory vectors are stored when memories are written, so a turn embeds only its query.
The query's parts (the message and each history message) are embedded separately and
cached, so a history message that was the previous turn's message is never embedded
twice; the query vector is their weighted mean, the current message weighing most.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory, Vector
from memoryd.embedding.base import Embedder

MESSAGE_WEIGHT = 2.0


class QueryEncoder:
    """Embeds query parts with a bounded LRU cache shared by all turns of a process."""

    def __init__(self, embedder: Embedder, cache_size: int = 4096) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str]) -> list[Vector]:
        found: dict[str, Vector] = {}
        with self._lock:
            for text in texts:
                if text in self._cache:
                    self._cache.move_to_end(text)
                    found[text] = self._cache[text]
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = self.embedder.embed(missing)
            with self._lock:
                for text, vec in zip(missing, fresh, strict=True):
                    found[text] = vec
                    self._cache[text] = vec
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return [found[t] for t in texts]

    def encode(self, query: Query) -> Vector:
        parts = query.parts
        if not parts:
            return np.zeros(self.embedder.dimensions, dtype=np.float32)
        vecs = self.vectors(parts)
        weights = [MESSAGE_WEIGHT if query.message else 1.0] + [1.0] * (len(vecs) - 1)
        combined = np.average(np.stack(vecs), axis=0, weights=weights)
        norm = float(np.linalg.norm(combined))
        return (combined / norm if norm > 0 else combined).astype(np.float32)


def memory_vectors(embedder: Embedder, memories: Sequence[Memory]) -> np.ndarray:
    """Stored vectors where they come from this embedder; the rest are computed now."""
    rows: list[Vector | None] = [
        m.embedding
        if m.embedder == embedder.name
        and m.embedding is not None
        and m.embedding.shape == (embedder.dimensions,)
        else None
        for m in memories
    ]
    stale = [i for i, row in enumerate(rows) if row is None]
    if stale:
        fresh = embedder.embed([memories[i].content for i in stale])
        for i, vec in zip(stale, fresh, strict=True):
            rows[i] = vec
    return np.stack([r for r in rows if r is not None]) if rows else np.zeros((0, 1))


class EmbeddingReranker:
    name = "embedding"

    def __init__(self, embedder: Embedder, encoder: QueryEncoder | None = None) -> None:
        self.embedder = embedder
        self.encoder = encoder or QueryEncoder(embedder)

    def warm(self, texts: Sequence[str]) -> None:
        """Embed texts that later turns will carry as history, off those turns' path."""
        self.encoder.vectors([t for t in texts if t])

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        if not memories:
            return []
        matrix = memory_vectors(self.embedder, memories)
        return [float(x) for x in matrix @ self.encoder.encode(query)]
