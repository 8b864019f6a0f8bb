"""The review queue's side of extraction: which changes wait for the user, and filing them.

Under the run-time setting ``memory_review`` (off | updates | everything) a change the
Reflector and code agreed on is stored as a pending suggestion the user accepts or
rejects (``memoryd.app.lifecycle``) instead of applied: ``updates`` holds back changes to
existing memories, ``everything`` new memories too. A text already waiting, or rejected
before, in that scope is not filed again.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import Scope, Suggestion, SuggestionKind, SuggestionStatus
from memoryd.domain.rules import content_key
from memoryd.extraction.decide import Change
from memoryd.extraction.deps import ExtractionDeps
from memoryd.storage import lifecycle as queries
from memoryd.storage.repository import Repository


def needs_review(mode: str, change: Change) -> bool:
    """Whether ``change`` waits for the user under review mode ``mode``."""
    return mode == "everything" or (mode == "updates" and change.target is not None)


def suggest(
    md: ExtractionDeps,
    repo: Repository,
    user_id: int,
    workspace: str,
    change: Change,
    expires_at: datetime | None,
    source_chat_ids: Sequence[int],
    run_id: str,
) -> Suggestion:
    """File ``change`` as a pending suggestion (raises AlreadyExists for a repeat)."""
    target = change.target
    scope = target.scope if target is not None else change.scope
    slug = None
    if scope is Scope.WORKSPACE:
        slug = target.workspace if target is not None else workspace
    workspace_id = md.store.require_workspace(repo, slug) if slug else None
    key = content_key(change.text)
    earlier = queries.find_similar_suggestion(repo.conn, user_id, scope, workspace_id, key)
    if earlier is not None:
        pending = earlier.status is SuggestionStatus.PENDING
        how = "is already waiting for review" if pending else "was rejected before"
        raise AlreadyExists(f"this suggestion {how}")
    now = md.clock()
    suggestion_id = uuid.uuid4().hex
    kind = SuggestionKind.CREATE if target is None else SuggestionKind.UPDATE
    queries.insert_suggestion(
        repo.conn,
        {
            "id": suggestion_id,
            "user_id": user_id,
            "kind": kind.value,
            "scope": scope.value,
            "workspace_id": workspace_id,
            "target_id": target.id if target is not None else None,
            "target_content": target.content if target is not None else None,
            "content": change.text,
            "content_key": key,
            "expires_at": expires_at,
            "source_chats": sorted(set(source_chat_ids)),
            "run_id": run_id,
            "status": SuggestionStatus.PENDING.value,
            "created_at": now,
        },
    )
    filed = queries.get_suggestion(repo.conn, suggestion_id)
    assert filed is not None
    return filed
