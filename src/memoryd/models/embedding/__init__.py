"""Text embedders: the interface, the bundled MiniLM, multilingual e5 and the routed pair."""

from memoryd.models.embedding.base import Embedder
from memoryd.models.embedding.minilm import MiniLMEmbedder

__all__ = ["Embedder", "MiniLMEmbedder"]
