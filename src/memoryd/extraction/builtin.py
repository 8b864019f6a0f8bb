"""The built-in background pass over memories, registered the way a plugin's would be.

The questions pass (``memoryd.extraction.questions``) is loaded when a run builds it, so
starting the plugin manager (every command picks an embedder) loads no extraction code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.plugins.hookspecs import hookimpl


def _questions() -> Any:
    from memoryd.extraction.questions import QuestionsPass

    return QuestionsPass()


@hookimpl
def register_memory_passes(register: Callable[[str, Callable[[], Any]], None]) -> None:
    register("questions", _questions)  # memoryd.storage.derived.QUESTIONS
