"""``memoryd worker``: run extraction jobs from the procrastinate queue (PostgreSQL only).

The worker itself lives in ``memoryd.scale.worker``; this module only reads options,
checks the ``scale`` extra is installed and sets up logging. See docs/deploy.md.
"""

from __future__ import annotations

import logging
import os
from typing import Annotated

import typer

from memoryd.cli.common import DbOption, echo
from memoryd.domain.errors import InvalidInput


def worker(
    name: Annotated[
        str | None, typer.Option(help="Worker name shown in logs (default: host-pid).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=64, help="Jobs run at once in this process.")
    ] = 1,
    heartbeat: Annotated[
        int,
        typer.Option(
            help="Seconds between heartbeats (a divisor of 60, at most 30); a worker silent "
            "for 3 heartbeats is presumed dead and its job requeued.",
        ),
    ] = 10,
    setup_only: Annotated[
        bool,
        typer.Option(
            "--setup-only",
            help="Apply memoryd's migrations and install procrastinate's tables, then exit.",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Run a worker for background extraction (PostgreSQL + procrastinate)."""
    from memoryd.config import MemorydSettings
    from memoryd.storage.opening import DatabaseError, first_line, safe_url

    try:
        from memoryd.scale import worker as scale_worker
        from memoryd.scale.tasks import SECOND_STEPS
    except ImportError as exc:
        raise InvalidInput(
            f"workers need the 'scale' extra ({exc.name} is missing): pip install 'memoryd[scale]'"
        ) from None
    if heartbeat not in SECOND_STEPS:
        steps = ", ".join(map(str, SECOND_STEPS))
        raise InvalidInput(f"--heartbeat must divide a minute: one of {steps}")
    if db:
        os.environ["MEMORYD_DATABASE_URL"] = db
    settings = MemorydSettings()
    options = scale_worker.WorkerOptions(
        name=name or f"{os.uname().nodename}-{os.getpid()}",
        concurrency=concurrency,
        heartbeat_seconds=heartbeat,
    )
    # Setting up says only what went wrong (one line, then exit 2); a running worker logs.
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    url = settings.resolved_database_url()
    try:
        prepared = scale_worker.prepare(settings, options)
    except DatabaseError as exc:
        # before any job: the database could not be opened (unreachable, refused, ...)
        raise InvalidInput(f"cannot open database {safe_url(url)}: {first_line(exc)}") from None
    if setup_only:
        prepared[0].close()
        echo("database ready: memoryd migrations and procrastinate's schema are in place")
        return
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    for handler in root.handlers:
        handler.addFilter(scale_worker.QuietRecoverLogs())
    scale_worker.run(settings, options, prepared)
