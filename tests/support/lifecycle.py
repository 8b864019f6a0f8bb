"""Helpers for memory-lifecycle tests: file a suggestion the way extraction does, and
move a memory's expiry into the past as time would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memoryd import Memoryd
from memoryd.domain.models import Scope
from memoryd.extraction.decide import Change
from memoryd.extraction.review import suggest


def file_suggestion(
    md: Memoryd,
    user_id: int,
    text: str,
    target_id: str | None = None,
    *,
    workspace: str = "",
    run_id: str = "run-test",
    chats: list[int] | None = None,
) -> str:
    """A pending suggestion: a create (global, or in ``workspace``) or an update of
    ``target_id``, learned from ``chats`` (their ids); returns its id."""
    target = md.get_memory(user_id, target_id) if target_id else None
    scope = target.scope if target else (Scope.WORKSPACE if workspace else Scope.GLOBAL)
    with md.db.write() as repo:
        return suggest(
            md, repo, user_id, workspace, Change(text, scope, target), None, chats or [], run_id
        ).id


def expire_now(md: Memoryd, memory_id: str, *, days_ago: float = 2) -> None:
    """Put a memory's expiry ``days_ago`` days in the past."""
    with md.db.write() as repo:
        repo.update_memory(memory_id, {"expires_at": datetime.now(UTC) - timedelta(days=days_ago)})
