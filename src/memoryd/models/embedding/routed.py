"""``routed``: MiniLM for English turns, multilingual-e5-small for all others (R21).

MiniLM is fast and, on English, as good as e5 or better; e5 finds Chinese memories and
crosses languages at ten times the cost (docs/reranking.md, "Why ``routed``"). Vectors of
two models cannot be compared, so the choice is made per turn and the whole turn is
scored in one model: a memory's stored vector is both vectors side by side (each scaled
by 1/sqrt(2), so the whole stays of length 1), and a turn is scored in e5 when any of
its texts does not read as English (``route``), else in MiniLM. Each half is read back
by its ``View``, which also reads vectors the bare model stored, so a store embedded by
``minilm`` keeps its vectors for English turns while ``Memoryd.refresh_vectors`` adds the
e5 half. Extraction compares facts in MiniLM (``comparison``), where its thresholds were
measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from memoryd.domain import language
from memoryd.domain.models import Vector
from memoryd.models.embedding.base import Embedder, embed_queries, stored_vector

_HALF = 1 / math.sqrt(2)


@lru_cache(maxsize=65536)
def is_english(text: str) -> bool:
    """``memoryd.domain.language.is_english``, remembered: a pool's memories recur."""
    return language.is_english(text)


class View:
    """One model of a ``RoutedEmbedder``: embeds with it, and reads its half of the
    routed vectors (or the whole of the model's own) from storage."""

    def __init__(self, model: Embedder, whole: str, part: slice, width: int) -> None:
        self.model = model
        self.name = model.name
        self.dimensions = model.dimensions
        self._whole = whole
        self._part = part
        self._width = width

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.model.embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return embed_queries(self.model, texts)

    def read_stored(self, vectors: Vector, made_by: str | None) -> Vector | None:
        if made_by == self._whole and vectors.shape[-1] == self._width:
            half: Vector = np.ascontiguousarray(vectors[..., self._part]) * np.float32(math.sqrt(2))
            return half
        return stored_vector(self.model, vectors, made_by)


class RoutedEmbedder:
    """Stores both models' vectors of a memory; scores a turn in one (see the module doc)."""

    def __init__(self, english: Embedder, other: Embedder) -> None:
        self.name = f"routed:{english.name}+{other.name}"
        self.dimensions = english.dimensions + other.dimensions
        cut = english.dimensions
        self.english = View(english, self.name, slice(0, cut), self.dimensions)
        self.other = View(other, self.name, slice(cut, self.dimensions), self.dimensions)
        self.comparison: Embedder = english

    def _join(self, first: Vector, second: Vector) -> npt.NDArray[np.float32]:
        joined: npt.NDArray[np.float32] = (np.hstack([first, second]) * _HALF).astype(np.float32)
        return joined

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._join(self.english.embed(texts), self.other.embed(texts))

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._join(self.english.embed_queries(texts), self.other.embed_queries(texts))

    def route(self, texts: Sequence[str]) -> Embedder:
        """The view that scores a turn over ``texts``: e5 when any is not English."""
        return self.english if all(is_english(text) for text in texts if text) else self.other
