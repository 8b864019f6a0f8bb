"""The plugin manager: built-ins and installed plugins, registered the same way."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pluggy

from memoryd.domain.errors import InvalidInput
from memoryd.plugins import hookspecs

DEFAULT_PLUGINS = (
    "memoryd.models.embedding.builtin",
    "memoryd.models.rerank.builtin",
    "memoryd.models.llm.builtin",
    "memoryd.extraction.builtin",
)

_lock = threading.Lock()
_manager: pluggy.PluginManager | None = None


def plugin_manager() -> pluggy.PluginManager:
    global _manager
    with _lock:
        if _manager is None:
            pm = pluggy.PluginManager("memoryd")
            pm.add_hookspecs(hookspecs)
            for name in DEFAULT_PLUGINS:
                pm.register(importlib.import_module(name), name)
            pm.load_setuptools_entrypoints("memoryd")
            _manager = pm
        return _manager


def _collect(hook_name: str) -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    getattr(plugin_manager().hook, hook_name)(register=found.__setitem__)
    return found


# each a dict of factories by name, gathered from every plugin's hook (built-ins included)
embedder_factories = partial(_collect, "register_embedders")
reranker_factories = partial(_collect, "register_rerankers")
llm_provider_factories = partial(_collect, "register_llm_providers")
memory_pass_factories = partial(_collect, "register_memory_passes")


def pick(kind: str, name: str, factories: dict[str, Callable[..., Any]]) -> Callable[..., Any]:
    try:
        return factories[name]
    except KeyError:
        known = ", ".join(sorted(factories)) or "none"
        raise InvalidInput(f"unknown {kind} {name!r}; available: {known}") from None
