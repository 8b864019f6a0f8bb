"""The extraction part of the library facade: ``md.extract(...)`` and its history.

``Memoryd``'s extraction methods are ``ExtractionService``'s, which is given what the
pipeline needs as ``ExtractionDeps`` (storage, embedder, write rules, limits, settings,
clock; the facade passes itself), so nothing in ``memoryd.extraction`` imports the facade.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoryd.extraction.deps import ExtractionDeps
    from memoryd.extraction.pipeline import PairResult
    from memoryd.extraction.retention import RunPrune
    from memoryd.extraction.runs import Run
    from memoryd.extraction.scheduler import (
        ExtractionScheduler,
        ProgressCallback,
        RunCallback,
        StartCallback,
    )
    from memoryd.models.llm.base import LLMProvider


class ExtractionService:
    """Extraction and its history (see the module doc)."""

    def __init__(self, deps: ExtractionDeps) -> None:
        self.deps = deps

    def extract(
        self,
        user_id: int | None = None,
        workspace: str | None = None,
        *,
        force: bool = False,
        dry_run: bool = False,
        provider: LLMProvider | None = None,
        on_pair: ProgressCallback | None = None,
        on_pair_start: StartCallback | None = None,
        on_start: RunCallback | None = None,
        ask_questions: int = 0,
    ) -> PairResult | Run:
        """Extract memories now: one pair (returns its PairResult) or all due pairs (a Run).

        ``force`` ignores the idle threshold and the message minimum; naming a pair also
        retries it when parked. ``dry_run`` writes nothing and lists what would change.
        ``on_start(run)`` is called once the run is stored as running, before any pair.
        ``ask_questions`` then runs the passes over up to that many memories (the named
        pair's user's, or anyone's), as ``run_extraction`` does.
        """
        from memoryd.domain.errors import InvalidInput
        from memoryd.extraction.scheduler import run_extraction

        if (user_id is None) != (workspace is None):
            raise InvalidInput("give both a user and a workspace, or neither")
        results: list[PairResult] = []

        def collect(result: PairResult, index: int, total: int) -> None:
            results.append(result)
            if on_pair is not None:
                on_pair(result, index, total)

        run = run_extraction(
            self.deps, provider=provider, user_id=user_id, workspace=workspace,
            force=force, dry_run=dry_run, on_pair=collect, on_pair_start=on_pair_start,
            on_start=on_start, ask_questions=ask_questions,
        )  # fmt: skip
        return results[0] if user_id is not None else run

    def extraction_runs(self, limit: int = 20) -> list[Run]:
        """The latest extraction runs, newest first. A run whose process stopped before
        it finished (no heartbeat for a while) has the status ``interrupted``."""
        from memoryd.extraction.runs import list_runs

        return list_runs(self.deps.db, limit, now=self.deps.clock())

    def extraction_run(self, run_id: str) -> Run:
        """One run by its id, or by a unique prefix of at least 6 characters."""
        from memoryd.extraction.runs import find_run

        return find_run(self.deps.db, run_id, now=self.deps.clock())

    def prune_runs(self, older_than_days: int | None = None, *, dry_run: bool = False) -> RunPrune:
        """Delete finished and interrupted runs started more than ``older_than_days`` ago
        (default: the ``run_retention_days`` setting; 0 there keeps every run), keeping
        each user and workspace's newest run; ``dry_run`` only counts them."""
        from memoryd.extraction.retention import prune_runs

        return prune_runs(self.deps.db, self.deps.clock(), older_than_days, dry_run=dry_run)

    def extraction_failures(self, *, parked_only: bool = False) -> list[dict[str, Any]]:
        """Pairs whose batch failed (attempts, next try, parked, last error)."""
        from memoryd.extraction.runs import list_pair_states

        return list_pair_states(self.deps.db, parked_only=parked_only)

    def start_extraction_scheduler(
        self, interval: str | timedelta | None = None
    ) -> ExtractionScheduler:
        """Run extraction every MEMORY_EXTRACTION_INTERVAL in a background thread."""
        from memoryd.extraction.scheduler import ExtractionScheduler

        return ExtractionScheduler(self.deps, interval=interval).start()
