"""What the library facade's services are given: storage, the models, the write rules.

Each service is handed this interface rather than ``memoryd.app.service.Memoryd``, so
none of them imports the facade or reaches into another; anything with these attributes
works as well (a test's own wiring). ``ExtractionDeps`` is the part extraction needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memoryd.extraction.deps import ExtractionDeps

if TYPE_CHECKING:
    from memoryd.app.writeback import BackgroundWriter, QuietGate
    from memoryd.models.rerank.base import Reranker
    from memoryd.storage.catalog import Catalog


class Backends(ExtractionDeps, Protocol):
    """``ExtractionDeps`` with the reranker, the cache, the turn gate and the writer."""

    catalog: Catalog  # per-process cache of users, workspaces and settings
    quiet: QuietGate  # chat turns in progress

    @property
    def reranker(self) -> Reranker: ...

    @property
    def writer(self) -> BackgroundWriter: ...

    def flush_writes(self) -> None:
        """Write what the background writer holds, if it was started."""
