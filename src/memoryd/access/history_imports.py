"""History imports running in the background of the server (issue 38, item 4).

Tens of thousands of turns are more than a request should wait for, so the request checks
the file and a thread records it; progress is read by id. Imports live in this process's
memory, so the id holds the worker's pid and another worker answers 404. An import
interrupted by a restart continues when the file is uploaded again (nothing is recorded
twice). A user runs one import at a time; a finished one is forgotten after ``KEEP``.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from memoryd.access.callers import Site, require_workspace
from memoryd.app.history_import import HistoryImport
from memoryd.domain.errors import AlreadyExists, MemorydError, NotFound
from memoryd.domain.models import Actor, Source, User

if TYPE_CHECKING:
    from memoryd.app.history_formats import History
    from memoryd.app.service import Memoryd

log = logging.getLogger("memoryd.server")
KEEP = timedelta(hours=1)
State = Literal["running", "done", "failed"]


@dataclass(frozen=True)
class HistoryJob:
    """A snapshot of one import: copied out under the lock, so a reader never sees it
    half updated."""

    id: str
    user_id: int
    workspace: str
    state: State
    progress: HistoryImport
    started_at: datetime
    finished_at: datetime | None = None
    error: str | None = None


class HistoryJobs:
    """This process's history imports, by id."""

    def __init__(self) -> None:
        self._jobs: dict[str, HistoryJob] = {}
        self._lock = threading.Lock()

    def start(
        self, md: Memoryd, user_id: int, history: History, workspace: str, actor: Actor
    ) -> HistoryJob:
        """Begin recording ``history`` in a thread; AlreadyExists while the user has an
        import running."""
        now = datetime.now(UTC)
        progress = HistoryImport(history.format, len(history.conversations), len(history.turns))
        job = HistoryJob(
            f"{os.getpid()}-{secrets.token_urlsafe(12)}",
            user_id,
            workspace,
            "running",
            progress,
            now,
        )
        with self._lock:
            for job_id, old in list(self._jobs.items()):  # forget the long finished
                if old.finished_at is not None and old.finished_at < now - KEEP:
                    del self._jobs[job_id]
            if any(j.user_id == user_id and j.state == "running" for j in self._jobs.values()):
                raise AlreadyExists(
                    "an import of your history is already running; wait for it to finish"
                )
            self._jobs[job.id] = job
        thread = threading.Thread(
            target=self._run,
            args=(md, job, history, actor),
            name=f"history-import-{job.id}",
            daemon=True,
        )
        thread.start()
        return job

    def get(self, user_id: int, job_id: str) -> HistoryJob:
        """The user's import; NotFound for anyone else's (it looks like none)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or job.user_id != user_id:
            raise NotFound(f"no history import {job_id!r} for this user in this server process")
        return job

    def _run(self, md: Memoryd, job: HistoryJob, history: History, actor: Actor) -> None:
        def update(now: HistoryImport) -> None:
            self._set(job.id, progress=replace(now))

        try:
            done = md.import_history(
                job.user_id, history, job.workspace, actor=actor, progress=update
            )
        except MemorydError as exc:
            self._set(job.id, state="failed", error=str(exc), finished_at=datetime.now(UTC))
        except Exception:  # the thread's last word: never lost silently
            log.exception("history import %s failed", job.id)
            error = "the import stopped on an internal error; upload the file again to continue"
            self._set(job.id, state="failed", error=error, finished_at=datetime.now(UTC))
        else:
            self._set(job.id, state="done", progress=done, finished_at=datetime.now(UTC))

    def _set(self, job_id: str, **changes: object) -> None:
        with self._lock:
            self._jobs[job_id] = replace(self._jobs[job_id], **changes)  # type: ignore[arg-type]


def start_history_import(
    site: Site, jobs: HistoryJobs, user: User, history: History, workspace: str
) -> HistoryJob:
    require_workspace(site, user, workspace)
    return jobs.start(site.md, user.id, history, workspace, Actor(Source.USER, user.id))
