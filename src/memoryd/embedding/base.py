"""The one interface every embedder implements.

A memory's vector is computed when it is written and stored with the embedder's name, so
a different embedder can be configured later: stored vectors from another embedder are
simply recomputed when first needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...
