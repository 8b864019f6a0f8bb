"""Plugin hooks: how embedders, rerankers, LLM providers and memory passes join memoryd.

Built-in providers are registered through these same hooks (see ``memoryd.plugins``), and
a third-party package joins by declaring an entry point in the ``memoryd`` group that
points at a module with ``@hookimpl`` functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("memoryd")
hookimpl = pluggy.HookimplMarker("memoryd")


@hookspec
def register_embedders(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Call ``register(name, factory)``; ``factory(settings)`` returns an Embedder
    (``settings`` is the process's ``MemorydSettings``; ``MEMORYD_EMBEDDER`` picks one)."""


@hookspec
def register_rerankers(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Call ``register(name, factory)``; ``factory(embedder)`` returns a Reranker."""


@hookspec
def register_llm_providers(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Call ``register(name, factory)``; ``factory(settings)`` returns an LLM provider."""


@hookspec
def register_memory_passes(register: Callable[[str, Callable[[], Any]], None]) -> None:
    """Call ``register(kind, factory)``; ``factory()`` returns a
    ``memoryd.extraction.memory_pass.MemoryPass`` whose values are stored under ``kind``
    (extraction runs with a budget run every registered pass after their pairs)."""
