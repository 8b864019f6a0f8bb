"""Extraction as procrastinate jobs: a periodic sweep defers one job per due pair.

How the jobs share the work (a pair's lock and queueing lock, ``recover`` requeueing a
dead worker's job, the hourly ``prune_runs``) is docs/deploy.md's; the fleet-wide
``ask_questions`` job is docs/extraction.md's ("Questions"). ``extract_pair`` runs
``run_extraction``, the embedded scheduler's code path, with its backoff and parking (R9).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ParamSpec

from procrastinate import App, JobContext, PsycopgConnector
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException
from procrastinate.jobs import Status

from memoryd.domain import runtime_settings
from memoryd.domain.errors import MemorydError
from memoryd.extraction import retention
from memoryd.extraction.memory_pass import PassJob
from memoryd.extraction.pipeline import ExtractionConfig
from memoryd.extraction.scheduler import record_setup_failure, run_extraction
from memoryd.models.llm.base import LLMProvider
from memoryd.models.llm.builtin import make_provider
from memoryd.plugins import memory_pass_factories
from memoryd.storage.database import parse_url
from memoryd.storage.extraction_rows import DuePair, due_pairs, get_pair_state
from memoryd.storage.opening import DATABASE_DOWN

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd

log = logging.getLogger("memoryd.scale")

QUEUE = "memoryd"
SWEEP_TASK = "memoryd.sweep"
EXTRACT_TASK = "memoryd.extract_pair"
RECOVER_TASK = "memoryd.recover"
PRUNE_TASK = "memoryd.prune_runs"
TAG_TASK = "memoryd.tag_topics"  # ask_questions: the old name, so queued jobs still run
PRUNE_CRON = "7 * * * *"  # hourly, off the top of the hour when sweeps pile up
# A database outage inside a job: wait and retry while holding the pair's lock.
DB_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
P = ParamSpec("P")

SECOND_STEPS = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)  # the steps that divide a minute
_HOUR_STEPS = (1, 2, 3, 4, 6, 8, 12)


def sweep_cron(interval: timedelta) -> tuple[str, timedelta]:
    """The cron line for an interval, and the period it really gives.

    Cron can only repeat at steps that divide a minute, an hour or a day, so other
    intervals round down to the nearest such step (45min sweeps every 30min): pairs are
    never looked at less often than asked.
    """
    seconds = max(1, int(interval.total_seconds()))
    if seconds >= 86400:
        return "0 0 * * *", timedelta(days=1)
    hours = [h for h in _HOUR_STEPS if h * 3600 <= seconds]
    if hours:
        return f"0 */{hours[-1]} * * *", timedelta(hours=hours[-1])
    minutes = [m for m in SECOND_STEPS if m * 60 <= seconds]
    if minutes:
        return f"*/{minutes[-1]} * * * *", timedelta(minutes=minutes[-1])
    step = [s for s in SECOND_STEPS if s <= seconds][-1]
    return f"* * * * * */{step}", timedelta(seconds=step)


def pair_lock(user_id: int, workspace: str) -> str:
    return f"pair:{user_id}:{workspace}"


def libpq_conninfo(database_url: str) -> str:
    """memoryd's SQLAlchemy URL (``postgresql+psycopg://...``) as a libpq URL."""
    url = parse_url(database_url)
    if url.get_backend_name() != "postgresql":
        raise ValueError("procrastinate workers need a PostgreSQL database")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def make_app(database_url: str, *, interval: timedelta, recover_seconds: int = 10) -> App:
    """The procrastinate app over memoryd's database, with memoryd's five tasks."""
    if recover_seconds not in SECOND_STEPS:
        raise ValueError(f"recover_seconds must divide a minute, one of {SECOND_STEPS}")
    connector = PsycopgConnector(conninfo=libpq_conninfo(database_url), min_size=1, max_size=4)
    app = App(connector=connector)
    cron, _ = sweep_cron(interval)

    def task(name: str, run: Callable[..., Any], *, locked: bool = True) -> Any:
        """Register ``run``; ``locked``: one job of it at a time, and one waiting."""
        one = name if locked else None
        register = app.task(name=name, queue=QUEUE, pass_context=True, lock=one, queueing_lock=one)
        return register(run)

    app.periodic(cron=cron, periodic_id="sweep")(task(SWEEP_TASK, sweep))
    task(EXTRACT_TASK, extract_pair, locked=False)
    task(TAG_TASK, ask_questions)
    recovering = task(RECOVER_TASK, recover)
    app.periodic(cron=f"* * * * * */{recover_seconds}", periodic_id="recover")(recovering)
    app.periodic(cron=PRUNE_CRON, periodic_id="prune_runs")(task(PRUNE_TASK, prune_runs))
    return app


# the tasks -----------------------------------------------------------------------------
def _memoryd(context: JobContext) -> Memoryd:
    md: Memoryd = context.additional_context["memoryd"]
    return md


@dataclass(frozen=True)
class SweepResult:
    due: int
    deferred: int
    already_queued: int
    questions_deferred: bool = False  # an ask_questions job was queued


def _defer(app: App, task: str, lock: str, **args: Any) -> bool:
    """Queue a job of ``task`` holding ``lock``, unless one is already waiting; True if queued."""
    try:
        app.configure_task(task, queue=QUEUE, lock=lock, queueing_lock=lock).defer(**args)
    except AlreadyEnqueued:
        return False
    return True


def defer_pairs(app: App, pairs: Sequence[DuePair]) -> SweepResult:
    """One ``extract_pair`` job per pair, unless one is already waiting for it."""
    deferred = 0
    for pair in pairs:
        lock = pair_lock(pair.user_id, pair.workspace)
        deferred += _defer(app, EXTRACT_TASK, lock, user_id=pair.user_id, workspace=pair.workspace)
    return SweepResult(due=len(pairs), deferred=deferred, already_queued=len(pairs) - deferred)


def sweep_now(md: Memoryd, app: App) -> SweepResult:
    """Find the due pairs and queue them (what the periodic sweep does)."""
    if not runtime_settings.extraction_on(md.get_settings()):
        log.info("sweep skipped: memory_enabled or memory_auto_extraction is off")
        return SweepResult(0, 0, 0)
    cfg = ExtractionConfig.from_settings(md.settings)
    with md.db.read() as repo:
        due = due_pairs(
            repo.conn, now=md.clock(), idle_threshold=cfg.idle_threshold, min_chats=cfg.min_chats
        )
    result = replace(defer_pairs(app, due), questions_deferred=defer_questions(md, app))
    log.info(
        "sweep: %d due pairs, %d jobs deferred, %d already queued%s",
        result.due,
        result.deferred,
        result.already_queued,
        "; questions queued" if result.questions_deferred else "",
    )
    return result


def defer_questions(md: Memoryd, app: App) -> bool:
    """Queue one ``ask_questions`` job, which runs every pass, if asking is on and some
    pass says a memory is ``waiting``, unless one is already waiting; True if queued."""
    if md.settings.question_memories_per_run <= 0:
        return False
    job = PassJob(md.db, None, md.embedder, md.clock())
    if not any(factory().waiting(job) for factory in memory_pass_factories().values()):
        return False
    return _defer(app, TAG_TASK, TAG_TASK)


def sweep(context: JobContext, timestamp: int) -> None:
    """The periodic task: delete memories expired past their grace period, make a batch
    of vectors of an older form of their text again, then queue every due pair."""
    md = _memoryd(context)
    md.upkeep()  # logs its own failures: extraction must not wait for it
    sweep_now(md, context.app)


def prune_runs(context: JobContext, timestamp: int) -> None:
    """The hourly task: delete extraction runs older than ``run_retention_days`` (never
    one in progress, nor a pair's newest run)."""
    md = _memoryd(context)
    done = retention.prune_runs(md.db, md.clock())
    if done.total:
        log.info("deleted %d extraction runs older than %d days", done.total, done.days)


def _provider(context: JobContext, md: Memoryd) -> LLMProvider:
    """The LLM provider the admin chose, built once per worker process and choice.

    Building one costs more than a short LLM call (an HTTP client with its TLS context),
    so jobs share it until the choice changes.
    """
    current = md.get_settings()
    choice = (
        current.get(runtime_settings.EXTRACTION_PROVIDER.key) or None,
        current.get(runtime_settings.EXTRACTION_MODEL.key) or None,
    )
    cache: dict[Any, LLMProvider] = context.additional_context.setdefault("providers", {})
    if choice not in cache:
        cache.clear()
        cache[choice] = make_provider(md.settings, *choice)
    return cache[choice]


def _retrying_database(task: Callable[P, None]) -> Callable[P, None]:
    """``task``, run again after a database outage (while its job holds the pair's lock)."""

    @functools.wraps(task)
    def retrying(*args: P.args, **kwargs: P.kwargs) -> None:
        for delay in (*DB_RETRY_DELAYS, None):
            try:
                return task(*args, **kwargs)
            except DATABASE_DOWN as exc:
                if delay is None:
                    raise
                log.warning("database unavailable (%s); retrying in %.0f s", exc.orig, delay)
                time.sleep(delay)

    return retrying


@_retrying_database
def extract_pair(context: JobContext, user_id: int, workspace: str) -> None:
    """One pair's extraction; skipped when switched off or the pair waits out a backoff."""
    md = _memoryd(context)
    if not runtime_settings.extraction_on(md.get_settings()):
        return
    with md.db.read() as repo:
        workspace_id = repo.workspace_id(workspace)
        state = get_pair_state(repo.conn, user_id, workspace_id) if workspace_id else None
    if workspace_id is None:
        log.info("pair %s/%s: workspace gone, nothing to do", user_id, workspace)
        return
    if state is not None and (
        state.parked or (state.next_attempt_at and state.next_attempt_at > md.clock())
    ):
        log.info("pair %s/%s: parked or backing off, skipped", user_id, workspace)
        return
    try:
        llm = _provider(context, md)
    except MemorydError as exc:  # unknown provider, hosted API without a key
        record_setup_failure(md, "worker", md.clock(), exc)
        log.warning("pair %s/%s: %s", user_id, workspace, exc)
        return
    try:
        done = run_extraction(
            md,
            provider=llm,
            trigger="worker",
            user_id=user_id,
            workspace=workspace,
            ask_questions=md.settings.question_memories_per_run,
        )
    except MemorydError as exc:  # the user or workspace was deleted meanwhile
        log.info("pair %s/%s: %s", user_id, workspace, exc)
        return
    log.info(
        "pair %s/%s: %d chats processed, %d created, %d updated, %d errors",
        user_id,
        workspace,
        done.chats_processed,
        done.memories_created,
        done.memories_updated,
        len(done.errors),
    )


@_retrying_database
def ask_questions(context: JobContext) -> None:
    """Ask up to ``question_memories_per_run`` of anyone's memories, oldest first, the
    questions they answer: a run of its own, with no pairs."""
    md = _memoryd(context)
    if not runtime_settings.extraction_on(md.get_settings()):
        return
    try:
        llm = _provider(context, md)
    except MemorydError as exc:  # unknown provider, hosted API without a key
        log.warning("asking questions: %s", exc)
        return
    done = run_extraction(
        md,
        provider=llm,
        trigger="worker",
        extract_pairs=False,
        ask_questions=md.settings.question_memories_per_run,
    )
    log.info(
        "asking questions: %d memories asked, %d errors",
        done.memories_questioned,
        len(done.errors),
    )


async def recover(context: JobContext, timestamp: int) -> None:
    """Requeue the jobs of workers that stopped sending heartbeats (killed, lost)."""
    manager = context.app.job_manager
    stalled_after: float = context.additional_context.get("stalled_seconds", 30.0)
    for job in await manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=stalled_after):
        if job.id == context.job.id:
            continue
        try:
            await manager.retry_job(job)
            log.warning("requeued %s of a dead worker", job.call_string)
        except ConnectorException:  # another job for the same pair is already waiting
            await manager.finish_job(job, status=Status.FAILED, delete_job=False)
            log.warning("dropped %s of a dead worker: an equal job is queued", job.call_string)
