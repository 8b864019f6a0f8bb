"""The one interface every embedder implements.

A memory's vector is computed when it is written and stored with the embedder's name, so
a different embedder can be configured later: stored vectors from another embedder are
simply recomputed when first needed. What is embedded for a memory is its text in the
user's own words (``embed_memories``, ``memoryd.domain.perspective``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memoryd.domain.perspective import first_person


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def embed_memories(embedder: Embedder, contents: Sequence[str]) -> npt.NDArray[np.float32]:
    """The vectors stored for memories with these texts: each text's first-person form
    ("The user runs a dog school." is embedded as "I run a dog school.")."""
    if not contents:
        return np.zeros((0, embedder.dimensions), np.float32)
    return embedder.embed([first_person(text) for text in contents])
