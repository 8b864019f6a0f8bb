"""What the library facade's services are given: storage, the models, the write rules.

``memoryd.app.service.Memoryd`` opens the database, the embedder, the reranker and the
background writer on first use and owns the per-process cache; each service
(``memoryd.app.memories``, ``memoryd.app.accounts``, ``memoryd.app.turns``,
``memoryd.app.chat_log``, ``memoryd.app.lifecycle``, ``memoryd.app.audit``,
``memoryd.app.transfer``) is handed this interface rather than the facade, so none of them
imports it or reaches into another. Anything with these attributes works as well (a test's
own wiring). ``ExtractionDeps`` is the part the extraction pipeline needs."""

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
