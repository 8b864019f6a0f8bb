"""Memories: list, create, edit, delete, promote, demote, detail, history (R1, R2, R8, R12).

The same routes serve a user's own memories (``/api/v1/memories``) and, for admins, any
user's (``/api/v1/users/{user_id}/memories``): ``build_router`` is called once with each
way of deciding the owner. Another user's memory id is simply not found (404).
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response

from memoryd.domain.errors import NotFound
from memoryd.domain.models import AuditEntry, Memory, Role, Scope
from memoryd.server.deps import Owner, ServerState, State, require_workspace, visible_chat_memories
from memoryd.server.schemas import (
    AuditOut,
    ChatOut,
    Demote,
    MemoryCreate,
    MemoryDetail,
    MemoryEdit,
    MemoryList,
    MemoryOut,
    ScopeUsage,
)


def visible_memory(state: ServerState, owner: Owner, memory_id: str) -> Memory:
    memory = state.md.get_memory(owner.user.id, memory_id)
    if not owner.may_use(state, memory.workspace):
        raise NotFound(f"no memory {memory_id!r} for this user")
    return memory


def overview(
    state: ServerState, owner: Owner, scope: Scope | None, workspace: str | None
) -> MemoryList:
    """The owner's memories plus how full each scope is, for the lists people see."""
    if workspace is not None and owner.acting.role is not Role.ADMIN:
        require_workspace(state, owner.user, workspace)
    memories = state.md.list_memories(owner.user.id, scope, workspace)
    memories = [m for m in memories if owner.may_use(state, m.workspace)]
    limits = state.md.limits
    if workspace is not None:
        slugs = [workspace]
    else:
        member = [w.slug for w in state.auth.workspaces_of(owner.user)]
        if owner.user.role is Role.ADMIN or owner.acting.role is Role.ADMIN:
            member = sorted({*member, *(m.workspace for m in memories if m.workspace)})
        slugs = member
    usage: list[ScopeUsage] = []
    all_owned = (
        memories if scope is None and workspace is None else state.md.list_memories(owner.user.id)
    )
    now = datetime.now(UTC)
    all_owned = [m for m in all_owned if not m.is_expired(now)]  # only live ones hold a slot
    if scope in (None, Scope.GLOBAL) and workspace is None:
        count = sum(1 for m in all_owned if m.scope is Scope.GLOBAL)
        usage.append(
            ScopeUsage(
                scope="global",
                workspace=None,
                count=count,
                limit=limits.global_per_user,
                full=count >= limits.global_per_user,
            )
        )
    if scope in (None, Scope.WORKSPACE):
        for slug in slugs:
            count = sum(1 for m in all_owned if m.workspace == slug)
            usage.append(
                ScopeUsage(
                    scope="workspace",
                    workspace=slug,
                    count=count,
                    limit=limits.workspace_per_pair,
                    full=count >= limits.workspace_per_pair,
                )
            )
    return MemoryList(memories=[MemoryOut.of(m, now) for m in memories], scopes=usage)


def memory_detail(state: ServerState, owner: Owner, memory_id: str) -> MemoryDetail:
    """One memory with its source chats and history (the API's detail, and the web UI's
    detail view without JavaScript). A source chat in a workspace the caller may not use
    is only counted (``hidden_source_chats``): a global memory learned in a workspace the
    user has left must not show that workspace's chats, which the chat routes hide too."""
    visible_memory(state, owner, memory_id)
    detail = state.md.memory_detail(owner.user.id, memory_id)
    allowed: dict[str, bool] = {}
    for chat in detail.source_chats:
        if chat.workspace not in allowed:
            allowed[chat.workspace] = owner.may_use(state, chat.workspace)
    shown = [c for c in detail.source_chats if allowed[c.workspace]]
    return MemoryDetail(
        **MemoryOut.of(detail.memory).model_dump(),
        created_by=detail.created_by,
        source_chats=[ChatOut.of(c) for c in shown],
        deleted_source_chat_ids=list(detail.deleted_source_chat_ids),
        hidden_source_chats=len(detail.source_chats) - len(shown),
        history=audit_out(detail.history),
    )


def chats_using(state: ServerState, owner: Owner, memory_id: str, limit: int) -> list[ChatOut]:
    """The recorded chats a memory was injected into that the caller may see, newest first."""
    visible_memory(state, owner, memory_id)
    chats = state.md.chats_using(owner.user.id, memory_id, limit=limit)
    chats = [c for c in chats if owner.may_use(state, c.workspace)]
    used = visible_chat_memories(state, owner, [c.id for c in chats])
    return [ChatOut.of(c, used.get(c.id, ())) for c in chats]


def audit_out(entries: Sequence[AuditEntry]) -> list[AuditOut]:
    return [AuditOut.of(e) for e in entries]


def build_router(owner_dependency: Callable[..., Owner], *, prefix: str, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])
    OwnerDep = Annotated[Owner, Depends(owner_dependency)]

    @router.get("/memories", response_model=MemoryList, summary="List memories")
    def list_memories(
        state: State,
        owner: OwnerDep,
        scope: Annotated[Scope | None, Query(description="global or workspace")] = None,
        workspace: Annotated[str | None, Query(max_length=64)] = None,
    ) -> MemoryList:
        return overview(state, owner, scope, workspace)

    @router.post("/memories", response_model=MemoryOut, status_code=201, summary="Add a memory")
    def create_memory(state: State, owner: OwnerDep, body: MemoryCreate) -> MemoryOut:
        if body.workspace is not None:
            require_workspace(state, owner.acting, body.workspace)
        memory = state.md.add_memory(
            owner.user.id,
            body.content,
            body.scope,
            body.workspace,
            actor=owner.actor,
            expires_at=body.expires_at,
        )
        return MemoryOut.of(memory)

    @router.get(
        "/memories/{memory_id}",
        response_model=MemoryDetail,
        summary="One memory with its source, source chats and history",
    )
    def get_memory(state: State, owner: OwnerDep, memory_id: str) -> MemoryDetail:
        return memory_detail(state, owner, memory_id)

    @router.patch(
        "/memories/{memory_id}", response_model=MemoryOut, summary="Edit a memory or its expiry"
    )
    def edit_memory(state: State, owner: OwnerDep, memory_id: str, body: MemoryEdit) -> MemoryOut:
        visible_memory(state, owner, memory_id)
        if "expires_at" in body.model_fields_set:
            return MemoryOut.of(
                state.md.edit_memory(
                    owner.user.id,
                    memory_id,
                    body.content,
                    actor=owner.actor,
                    expires_at=body.expires_at,
                )
            )
        return MemoryOut.of(
            state.md.edit_memory(owner.user.id, memory_id, body.content, actor=owner.actor)
        )

    @router.delete(
        "/memories/{memory_id}", status_code=204, response_class=Response, summary="Delete"
    )
    def delete_memory(
        state: State,
        owner: OwnerDep,
        memory_id: str,
        reason: Annotated[
            str | None,
            Query(max_length=200, description="Why (e.g. it is wrong): kept in the audit log."),
        ] = None,
    ) -> Response:
        visible_memory(state, owner, memory_id)
        state.md.delete_memory(owner.user.id, memory_id, reason=reason, actor=owner.actor)
        return Response(status_code=204)

    @router.post(
        "/memories/{memory_id}/promote", response_model=MemoryOut, summary="Make it global"
    )
    def promote(state: State, owner: OwnerDep, memory_id: str) -> MemoryOut:
        visible_memory(state, owner, memory_id)
        return MemoryOut.of(state.md.promote(owner.user.id, memory_id, actor=owner.actor))

    @router.post(
        "/memories/{memory_id}/demote",
        response_model=MemoryOut,
        summary="Move a global memory into a workspace",
    )
    def demote(state: State, owner: OwnerDep, memory_id: str, body: Demote) -> MemoryOut:
        visible_memory(state, owner, memory_id)
        require_workspace(state, owner.acting, body.workspace)
        return MemoryOut.of(
            state.md.demote(owner.user.id, memory_id, body.workspace, actor=owner.actor)
        )

    @router.get(
        "/memories/{memory_id}/history",
        response_model=list[AuditOut],
        summary="Every change to a memory (audit log)",
    )
    def history(state: State, owner: OwnerDep, memory_id: str) -> list[AuditOut]:
        entries = state.md.audit_log(owner.user.id, memory_id)
        if not entries:
            raise NotFound(f"no memory {memory_id!r} for this user")
        latest: dict[str, Any] = entries[-1].after or entries[-1].before or {}
        if not owner.may_use(state, latest.get("workspace")):
            raise NotFound(f"no memory {memory_id!r} for this user")
        return audit_out(entries)

    @router.get(
        "/memories/{memory_id}/chats",
        response_model=list[ChatOut],
        summary="The recorded chats this memory was injected into, newest first",
    )
    def memory_chats(
        state: State,
        owner: OwnerDep,
        memory_id: str,
        limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    ) -> list[ChatOut]:
        return chats_using(state, owner, memory_id, limit)

    return router
