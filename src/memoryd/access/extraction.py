"""Extraction runs started by hand (REST, the admin panel): only by admins, one at a time
from this process.
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
    """One run of one pair (forced) or of every due pair, asking questions as a scheduled
    run does; ``on_start(run)`` once it is stored as running."""
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
