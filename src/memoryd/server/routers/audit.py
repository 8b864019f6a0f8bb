"""The audit log (R12): your own at ``GET /api/v1/audit``, anyone's for an admin at
``GET /api/v1/users/{user_id}/audit``, newest first, a page at a time. What a caller sees
is ``memoryd.access.audit.read_audit``'s, as for the Activity page and ``memoryd audit``.
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from memoryd.access.audit import read_audit
from memoryd.access.callers import Owner
from memoryd.access.wire import AuditOut
from memoryd.domain.audit import (
    DEFAULT_PAGE,
    MAX_ACTOR_CHARS,
    MAX_MEMORY_ID_CHARS,
    MAX_PAGE,
)
from memoryd.domain.models import AuditAction
from memoryd.domain.rules import MAX_ROW_ID
from memoryd.server.deps import State


def build_router(owner_dependency: Callable[..., Owner], *, prefix: str, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])
    OwnerDep = Annotated[Owner, Depends(owner_dependency)]

    @router.get(
        "/audit",
        response_model=list[AuditOut],
        summary="The audit log: every change to the user's memories and settings, newest first",
    )
    def list_audit(
        state: State,
        owner: OwnerDep,
        before: Annotated[
            int | None,
            Query(
                ge=1,
                le=MAX_ROW_ID,
                description="The id of the last entry of the page you have: only older "
                "entries. Leave it out for the newest page.",
            ),
        ] = None,
        limit: Annotated[
            int, Query(ge=1, le=MAX_PAGE, description="The most entries in one page.")
        ] = DEFAULT_PAGE,
        memory_id: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=MAX_MEMORY_ID_CHARS,
                description="Only this memory's entries (a deleted memory's too).",
            ),
        ] = None,
        action: Annotated[
            list[AuditAction] | None,
            Query(description="Only these actions; repeat it for several."),
        ] = None,
        actor: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=MAX_ACTOR_CHARS,
                description="Only changes by this kind of actor (user, admin, extraction, "
                "import, system) or by one actor as the log names it (extraction:RUN_ID).",
            ),
        ] = None,
        workspace: Annotated[
            str | None,
            Query(
                max_length=64,
                description="Only changes to memories that were in this workspace before or "
                "after, and chat deletions there (a change to a setting of the whole account "
                "is in no workspace).",
            ),
        ] = None,
        since: Annotated[
            str | None,
            Query(
                max_length=64,
                description="Only entries from this date (YYYY-MM-DD, UTC) or ISO 8601 time on.",
            ),
        ] = None,
    ) -> list[AuditOut]:
        """At most ``limit`` entries, newest first. To read further back, ask again with
        ``before`` set to the id of the last entry you got (and the same filters); a page
        shorter than ``limit`` is the last one. Entries are never changed or removed and
        their ids only grow, so paging never skips or repeats one. Entries about memories
        in workspaces you no longer belong to are left out (see the module doc)."""
        entries = read_audit(
            state,
            owner,
            before=before,
            limit=limit,
            memory_id=memory_id,
            action=action,
            actor=actor,
            workspace=workspace,
            since=since,
        )
        return [AuditOut.of(e) for e in entries]

    return router
