"""Extraction runs started by hand: only admins start them, one at a time from this
process (the REST API's ``POST /api/v1/extraction/run`` and parked-batch retry, the web
UI's Run now and Retry). The scheduler and ``memoryd extract`` run extraction without
asking anyone: they are the operator's.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from memoryd.access.callers import require_admin
from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import User

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd
    from memoryd.extraction.pipeline import PairResult
    from memoryd.extraction.runs import Run
    from memoryd.extraction.scheduler import RunCallback

_running = threading.Lock()


def run_now(
    md: Memoryd,
    admin: User,
    user_id: int | None,
    workspace: str | None,
    force: bool,
    on_start: RunCallback | None = None,
) -> PairResult | Run:
    """One extraction run, by ``admin``: of one pair (always forced), or of every due pair;
    AlreadyExists while one started here is running. ``on_start(run)`` is called once the
    run is stored as running. The run then asks up to ``question_memories_per_run``
    memories' questions, as a scheduled run does."""
    require_admin(admin)
    asking = md.settings.question_memories_per_run
    if not _running.acquire(blocking=False):
        raise AlreadyExists("an extraction run started here is still running; try again later")
    try:
        if user_id is not None and workspace is not None:
            md.get_user(user_id)
            md.get_workspace(workspace)
            return md.extract(
                user_id, workspace, force=True, on_start=on_start, ask_questions=asking
            )
        return md.extract(force=force, on_start=on_start, ask_questions=asking)
    finally:
        _running.release()


def is_running() -> bool:
    return _running.locked()
