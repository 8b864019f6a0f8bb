"""One ``memoryd worker`` process: memoryd's procrastinate tasks over its PostgreSQL database.

It migrates memoryd's schema, installs procrastinate's tables the first time (under an
advisory lock, so a fleet starting together installs them once), then runs jobs until
SIGTERM/SIGINT; how a fleet shares the work and rides out an outage is docs/deploy.md's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass
from typing import Any

import psycopg
from procrastinate import App
from procrastinate.exceptions import ConnectorException
from psycopg_pool import PoolTimeout

from memoryd.app.service import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidInput
from memoryd.domain.interval import parse_interval
from memoryd.extraction.scheduler import provider_for
from memoryd.scale.tasks import QUEUE, RECOVER_TASK, make_app, sweep_cron
from memoryd.storage.database import parse_url
from memoryd.storage.opening import first_line, safe_url

log = logging.getLogger("memoryd.scale")

_SCHEMA_LOCK = 7_243_002  # advisory-lock key for "install procrastinate's schema"
RESTART_DELAYS = (1.0, 30.0)  # first wait after losing the database, and the longest


# SQLSTATE classes that mean "set up wrongly", not "away for now": access rule violations
# and missing objects (42: permission denied, a procrastinate table missing...), a role or
# password refused (28), a database that does not exist (3D). Waiting does not fix them.
MISCONFIGURED = ("42", "28", "3D")


def database_cause(exc: BaseException) -> psycopg.Error | None:
    """The PostgreSQL error behind an exception (procrastinate wraps them in its own
    ConnectorException, whose message is only "Database error.")."""
    seen: BaseException | None = exc
    for _ in range(10):  # causes chain; never loop on a cycle
        if seen is None or isinstance(seen, psycopg.Error):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


@dataclass(frozen=True)
class WorkerOptions:
    name: str | None = None
    concurrency: int = 1
    heartbeat_seconds: int = 10  # a worker silent for 3 heartbeats is presumed dead


class QuietRecoverLogs(logging.Filter):
    """Drops procrastinate's INFO lines about the ``recover`` task: three every heartbeat
    would bury the lines that matter, and ``recover`` logs a warning itself whenever it
    finds a dead worker's job."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.levelno <= logging.INFO
            and record.name.startswith("procrastinate")
            and f"{RECOVER_TASK}[" in record.getMessage()
        )


def require_postgres(url: str) -> None:
    backend = parse_url(url).get_backend_name()
    if backend != "postgresql":
        why = (
            "with SQLite, `memoryd serve` runs extraction in its own process"
            if backend == "sqlite"
            else f"{safe_url(url)} is {backend}"
        )
        raise InvalidInput(
            "memoryd worker needs PostgreSQL (MEMORYD_DATABASE_URL=postgresql+psycopg://...); "
            + why
        )


def build(md: Memoryd, options: WorkerOptions) -> App:
    interval = parse_interval(md.settings.extraction_interval)
    _, period = sweep_cron(interval)
    if period != interval:
        log.warning(
            "MEMORY_EXTRACTION_INTERVAL=%s is not a cron step; sweeping every %s instead",
            md.settings.extraction_interval,
            period,
        )
    return make_app(md.url, interval=interval, recover_seconds=options.heartbeat_seconds)


def install_schema(md: Memoryd, app: App) -> bool:
    """procrastinate's tables, created once; True if this call created them.

    A schema that cannot be installed (a role without CREATE, a clashing table) is
    InvalidInput naming the cause, not procrastinate's bare "Database error."."""
    with md.db.advisory_lock(_SCHEMA_LOCK):
        app.open()
        try:
            if app.check_connection():
                return False
            app.schema_manager.apply_schema()
            log.info("installed procrastinate's schema")
            return True
        except ConnectorException as exc:
            cause = exc.__cause__ or exc
            reason = first_line(cause)
            raise InvalidInput(
                f"cannot install procrastinate's tables in {safe_url(md.url)}: {reason} "
                "(run `memoryd worker --setup-only` once as a role that may create "
                "tables there, e.g. the database owner)"
            ) from exc
        finally:
            app.close()


def prepare(settings: MemorydSettings, options: WorkerOptions) -> tuple[Memoryd, App]:
    """Open and migrate the database, install procrastinate's schema, build the app."""
    url = settings.resolved_database_url()
    require_postgres(url)
    md = Memoryd(url, settings=settings)
    md.db  # noqa: B018 - migrates memoryd's schema now
    app = build(md, options)
    install_schema(md, app)
    return md, app


def warm_up(md: Memoryd) -> None:
    """Load the embedder and the LLM provider now, so the first job is not the slow one."""
    md.embedder.embed(["warm up"])
    try:
        provider_for(md)
    except Exception as exc:  # a bad provider setting fails each job, with its message
        log.warning("LLM provider not ready: %s", exc)


def run(
    settings: MemorydSettings, options: WorkerOptions, prepared: tuple[Memoryd, App] | None = None
) -> None:
    """Run a worker in the foreground until SIGTERM or SIGINT (on what ``prepare`` gave,
    when the caller already called it)."""
    md, app = prepared or prepare(settings, options)
    cron, period = sweep_cron(parse_interval(md.settings.extraction_interval))
    log.info("sweep schedule: %s (every %s)", cron, period)
    warm_up(md)
    heartbeat = float(options.heartbeat_seconds)
    worker_options: Any = {
        "queues": [QUEUE],
        "name": options.name,
        "concurrency": options.concurrency,
        "delete_jobs": "successful",
        "update_heartbeat_interval": heartbeat,
        "stalled_worker_timeout": 3 * heartbeat,
        # copied (shallowly) into each job's context: the providers dict is shared
        "additional_context": {"memoryd": md, "stalled_seconds": 3 * heartbeat, "providers": {}},
        "install_signal_handlers": False,
    }
    try:
        asyncio.run(_supervise(app, worker_options))
    finally:
        md.close()


async def _supervise(app: App, worker_options: Any) -> None:
    """Run procrastinate's worker; when it stops on a lost database, start it again.

    procrastinate stops a worker whose notification listener loses its connection, and
    raises when a job fetch fails: either way this loop waits, with backoff, so an outage
    needs no supervisor. SIGTERM/SIGINT stop it after the job in hand.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    delay = RESTART_DELAYS[0]
    while not stop.is_set():
        started = loop.time()
        try:
            async with app.open_async():
                working = asyncio.create_task(app.run_worker_async(**worker_options))
                stopping = asyncio.create_task(stop.wait())
                await asyncio.wait({working, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stop.is_set():
                    working.cancel()  # procrastinate stops gracefully on cancellation
                    with contextlib.suppress(asyncio.CancelledError):
                        await working
                    return
                stopping.cancel()
                working.result()
                log.warning("worker stopped after losing the database")
        except (ConnectorException, psycopg.Error, PoolTimeout, OSError) as exc:
            cause = database_cause(exc)
            reason = " ".join(str(cause or exc).split())
            if cause is not None and (cause.sqlstate or "")[:2] in MISCONFIGURED:
                first = first_line(cause)
                raise InvalidInput(
                    f"the worker cannot use the job queue: {first} (the database answers, "
                    "so waiting will not help: check the role's privileges on procrastinate's "
                    "tables, or run `memoryd worker --setup-only`)"
                ) from exc
            log.warning("database unavailable: %s", reason)
        if loop.time() - started > 60:
            delay = RESTART_DELAYS[0]
        log.warning("starting the worker again in %.0f s", delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        delay = min(delay * 2, RESTART_DELAYS[1])
