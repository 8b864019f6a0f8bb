"""Text embedders: the interface and the bundled MiniLM implementation."""

from memoryd.embedding.base import Embedder
from memoryd.embedding.minilm import MiniLMEmbedder

__all__ = ["Embedder", "MiniLMEmbedder"]
