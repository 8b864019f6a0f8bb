"""The audit log (R12): ``GET /api/v1/audit`` reads your own, newest first, a page at a
time; an admin reads anyone's at ``GET /api/v1/users/{user_id}/audit``. ``build_router``
is called once with each way of deciding whose log it is, as for memories.

What a default user sees follows the rule of a memory's history
(``GET /memories/{id}/history``) and of the memories shown on a chat
(``visible_chat_memories``): a memory counts as being where its latest entry left it
(after its last change, or where it was when deleted). The entries of a memory that is,
or was when deleted, in a workspace the user no longer belongs to are left out, all of
them: its text stays out of reach, as in every other listing. A memory moved out of such
a workspace (promoted to global) shows with its whole history. Chat deletions always
show: they name workspaces, counts and chat ids, never text, and they are the user's
record that their chats were erased, and so do changes to the user's settings
(``change_setting``: learning from chats, review mode, role, workspace membership),
which name no memory. An admin sees every entry.

The library (``Memoryd.list_audit``) does the reading, through ``read_audit``, which the
web UI's Activity page (``memoryd.server.web.activity``) uses too; a bad cursor or filter
is a 422 with its message, a workspace filter the caller may not use is a 404 as
everywhere.
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from memoryd.domain.audit import (
    DEFAULT_PAGE,
    MAX_ACTOR_CHARS,
    MAX_MEMORY_ID_CHARS,
    MAX_PAGE,
    Actions,
)
from memoryd.domain.errors import NotFound
from memoryd.domain.models import AuditAction, AuditEntry, Role
from memoryd.domain.rules import MAX_ROW_ID, validate_slug
from memoryd.server.deps import Owner, ServerState, State
from memoryd.server.schemas import AuditOut


def visible_workspaces(state: ServerState, owner: Owner) -> set[str] | None:
    """The workspaces whose memories' entries the caller may read; None for all."""
    if owner.acting.role is Role.ADMIN or owner.user.role is Role.ADMIN:
        return None
    return {w.slug for w in state.auth.workspaces_of(owner.user)}


def read_audit(
    state: ServerState,
    owner: Owner,
    *,
    before: int | None = None,
    limit: int = DEFAULT_PAGE,
    memory_id: str | None = None,
    action: Actions = None,
    actor: str | None = None,
    workspace: str | None = None,
    since: str | None = None,
) -> list[AuditEntry]:
    """One page of ``owner.user``'s log as the caller may see it (the module doc): the
    reading behind ``GET .../audit`` and the web UI's Activity page. A workspace filter
    the caller may not use is NotFound; any other bad value is the library's
    InvalidInput."""
    visible_in = visible_workspaces(state, owner)
    if workspace is not None:
        validate_slug(workspace)
        if visible_in is not None and workspace not in visible_in:
            raise NotFound(f"no workspace {workspace!r} for this user")
    return state.md.list_audit(
        owner.user.id,
        before=before,
        limit=limit,
        memory_id=memory_id,
        action=action,
        actor=actor,
        workspace=workspace,
        since=since,
        visible_in=visible_in,
    )


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
