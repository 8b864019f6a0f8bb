"""What the extraction pipeline needs from the library, as an interface it is given.

The pipeline and the scheduler never import the library facade (``memoryd.app.service``):
the facade sits on top and passes itself in, and anything else with these attributes
(a worker's own wiring, a test's) works as well.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from memoryd.config import MemorydSettings
from memoryd.domain import runtime_settings
from memoryd.domain.rules import Limits
from memoryd.models.embedding.base import Embedder
from memoryd.storage.database import Database
from memoryd.storage.write_rules import MemoryStore


class ExtractionDeps(Protocol):
    """Storage, the embedder, the write rules, limits, settings and the clock."""

    settings: MemorydSettings
    limits: Limits
    clock: Callable[[], datetime]

    @property
    def db(self) -> Database: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def store(self) -> MemoryStore: ...


def current_settings(deps: ExtractionDeps) -> dict[str, Any]:
    """The run-time settings in force (database values over defaults)."""
    with deps.db.read() as repo:
        return runtime_settings.effective(repo.get_settings())
