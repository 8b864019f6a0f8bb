"""Which pairs are due, one extraction run over them, and the in-process loop (R6, R7, R9).

A (user, workspace) pair is due when it has at least the minimum of unprocessed chat
messages, its newest chat is older than the idle threshold, and it is neither waiting out
a backoff nor parked: one query, ``memoryd.storage.extraction_rows.due_pairs``.
``run_extraction`` processes pairs, then runs the passes over memories when given a
budget, and stores the run's history; ``ExtractionScheduler`` repeats it every
``MEMORY_EXTRACTION_INTERVAL`` in a daemon thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from memoryd.domain import runtime_settings
from memoryd.domain.errors import InvalidInput, MemorydError
from memoryd.domain.interval import parse_interval
from memoryd.extraction.deps import ExtractionDeps, current_settings
from memoryd.extraction.memory_pass import PassJob, PassOutcome
from memoryd.extraction.pipeline import ExtractionConfig, PairResult, process_pair
from memoryd.extraction.retention import PruneTimer
from memoryd.extraction.runs import Heartbeat, Run, finish_run, new_run_id, stale_after, start_run
from memoryd.models.llm.base import LLMConfigError, LLMProvider, LLMUnreachable
from memoryd.plugins import memory_pass_factories
from memoryd.storage.extraction_rows import due_pairs, pending_summary

# Skip reasons of the pairs a run left alone after the provider refused its settings, or
# after its server could not be reached (LLMUnavailable.reason).
SETTINGS_REFUSED = LLMConfigError.reason
SERVER_UNREACHABLE = LLMUnreachable.reason

log = logging.getLogger("memoryd.extraction")

ProgressCallback = Callable[[PairResult, int, int], None]
# Called before a pair starts: (user_id, workspace, index, total).
StartCallback = Callable[[int, str, int, int], None]
# Called once the run is stored as running, before its first pair.
RunCallback = Callable[[Run], None]


def provider_name(md: ExtractionDeps) -> str:
    """The name of the provider ``provider_for`` would build ("local" for the bundled
    model), without building it."""
    chosen = current_settings(md).get(runtime_settings.EXTRACTION_PROVIDER.key)
    return str(chosen or md.settings.llm_provider or "local")


def provider_for(md: ExtractionDeps) -> LLMProvider:
    """The admin's choice (runtime settings), else MEMORYD_LLM_*, else the local model."""
    from memoryd.models.llm.builtin import make_provider

    current = current_settings(md)
    name = current.get(runtime_settings.EXTRACTION_PROVIDER.key) or None
    model = current.get(runtime_settings.EXTRACTION_MODEL.key) or None
    return make_provider(md.settings, name, model)


def run_extraction(
    md: ExtractionDeps,
    *,
    provider: LLMProvider | None = None,
    trigger: str = "manual",
    user_id: int | None = None,
    workspace: str | None = None,
    force: bool = False,
    dry_run: bool = False,
    clock: Callable[[], datetime] | None = None,
    config: ExtractionConfig | None = None,
    on_pair: ProgressCallback | None = None,
    on_pair_start: StartCallback | None = None,
    on_start: RunCallback | None = None,
    ask_questions: int = 0,
    extract_pairs: bool = True,
) -> Run:
    """One extraction run: one named pair, or every due pair; its history is stored.

    A named pair is processed even when parked or backing off (that is how a parked
    batch is retried by hand); ``force`` also ignores the idle threshold and minimum.
    An exception or Ctrl-C that stops the run is stored as status ``interrupted``.

    After the pairs, the run's passes over up to ``ask_questions`` memories (``_derive``),
    not on a dry run nor after the LLM was found unavailable. ``extract_pairs=False``
    runs only those (the queue workers' questions job).
    """
    now = clock or md.clock
    cfg = config or ExtractionConfig.from_settings(md.settings)
    try:
        llm = provider or provider_for(md)
    except MemorydError as exc:  # unknown provider, hosted API without a key
        if trigger != "manual" and not dry_run:  # by hand, the caller is told at once
            record_setup_failure(md, trigger, now(), exc)
        raise
    run = Run(
        id=new_run_id(),
        trigger=trigger,
        started_at=now(),
        provider=llm.name,
        model=llm.model,
        dry_run=dry_run,
    )
    targets: list[tuple[int, str]]
    if user_id is not None:
        if workspace is None:
            raise InvalidInput("name the workspace of the pair to extract")
        with md.db.read() as repo:  # NotFound before any run starts
            md.store.require_user(repo, user_id)
            md.store.require_workspace(repo, workspace)
        targets = [(user_id, workspace)]
        run.pairs_seen = 1
    elif not extract_pairs:
        targets = []
    else:
        idle = timedelta(0) if force else cfg.idle_threshold
        minimum = 1 if force else cfg.min_chats
        with md.db.read() as repo:
            summary = pending_summary(repo.conn, now=now(), idle_threshold=idle, min_chats=minimum)
            due = due_pairs(repo.conn, now=now(), idle_threshold=idle, min_chats=minimum)
        run.pairs_seen = sum(summary.values())
        for reason, count in summary.items():
            if reason != "due":
                run.skip(reason, count)
        targets = [(p.user_id, p.workspace) for p in due]
    stale = stale_after(md.settings.llm_timeout)
    heartbeat = None if dry_run else Heartbeat(md.db, run, now, stale)
    if not dry_run:
        start_run(md.db, run, stale)
    at: tuple[int, str] | None = None
    stopped = False
    try:
        if on_start is not None:
            on_start(run)
        for index, (uid, slug) in enumerate(targets, 1):
            at = (uid, slug)
            if on_pair_start is not None:
                on_pair_start(uid, slug, index, len(targets))
            result = process_pair(
                md,
                llm,
                uid,
                slug,
                force=force,
                run_id=run.id,
                clock=now,
                dry_run=dry_run,
                config=cfg,
                on_batch=heartbeat.beat if heartbeat else None,
            )
            _account(run, result)
            at = None
            if heartbeat is not None:
                heartbeat.beat(progress=True)
            if on_pair is not None:
                on_pair(result, index, len(targets))
            if result.stopped_by:  # every other pair would fail the same way
                stopped = True
                if index < len(targets):
                    run.skip(result.stopped_by, len(targets) - index)
                break
        if ask_questions > 0 and not dry_run and not stopped:
            _derive(md, llm, run, ask_questions, now, (user_id, workspace), heartbeat)
    except BaseException as exc:
        run.interrupt(exc, at)
        raise
    finally:
        run.finished_at = now()
        if not dry_run:
            finish_run(md.db, run, now())
        else:
            run.settle()
    return run


def record_setup_failure(md: ExtractionDeps, trigger: str, now: datetime, exc: Exception) -> Run:
    """Store a run that could not start because its LLM provider could not be built, so
    admins see why nothing is extracted (in the run list, not only in a log)."""
    current = current_settings(md)
    run = Run(
        id=new_run_id(),
        trigger=trigger,
        started_at=now,
        provider=provider_name(md),
        model=current.get(runtime_settings.EXTRACTION_MODEL.key) or md.settings.llm_model,
        errors=[{"kind": "config", "user_id": None, "workspace": None, "error": str(exc)}],
    )
    start_run(md.db, run)
    return finish_run(md.db, run, now)


def _derive(
    md: ExtractionDeps,
    llm: LLMProvider,
    run: Run,
    budget: int,
    now: Callable[[], datetime],
    where: tuple[int | None, str | None],
    heartbeat: Heartbeat | None,
) -> None:
    """The run's passes over memories (``memoryd.extraction.memory_pass``: questions, and
    any a plugin registers), each over up to ``budget`` of ``where``'s user (with their
    workspace) or anyone's; an error that stops a pass is listed with the run's errors
    and fails nothing. With the master switch ``memory_enabled`` off, nothing is sent."""
    if not current_settings(md)[runtime_settings.MEMORY_ENABLED.key]:
        return
    user_id, workspace = where
    job = PassJob(
        md.db, llm, md.embedder, now(), user_id, _workspace_id(md, workspace),
        heartbeat.beat if heartbeat else None,
    )  # fmt: skip
    for factory in memory_pass_factories().values():
        memory_pass = factory()
        try:
            done = memory_pass.run(job, budget)
        except Exception as exc:  # a plugin's failure fails neither the run nor the others
            log.exception("the %s pass failed", memory_pass.kind)
            done = PassOutcome(error=f"{type(exc).__name__}: {exc}")
        kind = memory_pass.kind
        run.memories_derived[kind] = run.memories_derived.get(kind, 0) + done.stored
        run.add_usage(done.usage)
        if done.error is not None:
            count = f"{done.stored} memor{'y' if done.stored == 1 else 'ies'}"
            said = f"{memory_pass.what} stopped after {count}: {done.error}"
            error = {"kind": kind, "user_id": user_id, "workspace": workspace}
            run.errors.append({**error, "error": f"{said}; the rest wait for a later run"})
    if heartbeat is not None:
        heartbeat.beat(progress=True)


def _workspace_id(md: ExtractionDeps, workspace: str | None) -> int | None:
    if workspace is None:
        return None
    with md.db.read() as repo:
        return repo.workspace_id(workspace)


def _account(run: Run, result: PairResult) -> None:
    run.add_usage(result.usage)
    run.memories_created += len(result.created)
    run.memories_updated += len(result.updated)
    run.memories_suggested += len(result.suggested)
    run.chats_processed += len(result.chats_processed)
    where = {"user_id": result.user_id, "workspace": result.workspace}
    run.errors += [
        {"kind": "suggested", **where, "change": f"{s.kind.value}: {s.content}"}
        for s in result.suggested
    ]
    if result.status == "skipped":
        run.skip(result.reason or "skipped")
    elif result.error is None:
        run.pairs_processed += 1
    else:
        run.pairs_failed += 1
        run.errors.append(
            {"kind": "pair", **where, "error": result.error, "parked": result.status == "parked"}
        )
    run.facts_dropped += len(result.rejected)
    run.facts_not_stored += len(result.not_stored)
    if result.status != "skipped":
        run.pairs.append(result.outcome())
    run.errors += [{"kind": "item", **where, "error": item} for item in result.rejected]
    run.errors += [{"kind": "not_stored", **where, "error": item} for item in result.not_stored]
    run.errors += [{"kind": "planned", **where, "change": p} for p in result.planned]


class ExtractionScheduler:
    """Runs extraction every interval in a daemon thread, in this process.

    ``tick()`` is one scheduled run (skipped while ``memory_enabled`` or
    ``memory_auto_extraction`` is off); every tick first purges expired memories and, at
    most once an hour, old run history, whatever the switches say. ``ticks`` counts the
    ticks finished, whether they ran, were skipped or failed (``wait_for_ticks``).
    """

    def __init__(
        self,
        md: ExtractionDeps,
        *,
        interval: str | timedelta | None = None,
        provider: LLMProvider | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.md = md
        raw = interval if interval is not None else md.settings.extraction_interval
        self.interval = raw if isinstance(raw, timedelta) else parse_interval(raw)
        self.provider = provider
        self.clock = clock or md.clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_run: Run | None = None
        self.retention = PruneTimer()
        self.ticks = 0
        self._ticked = threading.Condition()

    def enabled(self) -> bool:
        return runtime_settings.extraction_on(current_settings(self.md))

    def tick(self) -> Run | None:
        try:
            return self._tick()
        finally:
            with self._ticked:
                self.ticks += 1
                self._ticked.notify_all()

    def wait_for_ticks(self, count: int, timeout: float | None = None) -> bool:
        """Whether ``count`` ticks have finished, waiting up to ``timeout`` seconds."""
        with self._ticked:
            return self._ticked.wait_for(lambda: self.ticks >= count, timeout)

    def _tick(self) -> Run | None:
        upkeep = getattr(self.md, "upkeep", None)
        if upkeep is not None:  # expired memories, old vectors: in any case (logs failures)
            upkeep()
        self.retention.maybe_prune(self.md.db, self.clock())
        if not self.enabled():
            log.info("extraction skipped: memory_enabled or memory_auto_extraction is off")
            return None
        self.last_run = run_extraction(
            self.md,
            provider=self.provider,
            trigger="scheduler",
            clock=self.clock,
            ask_questions=self.md.settings.question_memories_per_run,
        )
        return self.last_run

    def _loop(self) -> None:
        while not self._stop.wait(self.interval.total_seconds()):
            try:
                self.tick()
            except MemorydError as exc:  # e.g. the LLM settings: stored as a run already
                log.warning("scheduled extraction run failed: %s", exc)
            except Exception:  # the loop must survive a bad run; the next one retries
                log.exception("scheduled extraction run failed")

    def start(self) -> ExtractionScheduler:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._loop, name="memoryd-extraction", daemon=True
            )
            self._thread.start()
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
